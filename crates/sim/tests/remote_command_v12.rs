//! commandToServer / commandToClient over two real NetInterfaces joined by pump_local,
//! with V12's NetConsole worked examples printing V12's exact output.

use std::net::SocketAddr;
use std::sync::Arc;
use v12_console_vm::{BufferSink, Console};
use v12_netobject::LocalEnd;
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::{
    ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface, pump_local,
};
use v12_sim::remote_command::{RemoteCommandEvent, RemoteCommands, expand_string};

struct Side {
    iface: NetInterface,
    con: Console,
    out: BufferSink,
    rc: RemoteCommands,
}

struct World {
    server: Side,
    client: Side,
    s_addr: SocketAddr,
    c_addr: SocketAddr,
    to_server: ConnectionId,
    now: u64,
    server_handled: Vec<bool>,
    server_conn: Option<ConnectionId>,
}

fn side(accept: bool, seed: u8) -> Side {
    let reg = Arc::new(NetClassRegistryBuilder::new().register::<RemoteCommandEvent>().build().unwrap());
    let cfg = InterfaceConfig { accept_connections: accept, ..InterfaceConfig::default() };
    let iface = NetInterface::new(cfg, reg, [seed; 32]);
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    let rc = RemoteCommands::register(&mut con);
    Side { iface, con, out, rc }
}

impl World {
    fn new() -> Self {
        let server = side(true, 1);
        let mut client = side(false, 2);
        let s_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
        let c_addr: SocketAddr = "127.0.0.1:28001".parse().unwrap();
        let to_server = client.iface.connect(0, s_addr, bytes::Bytes::new());
        let mut w = World {
            server,
            client,
            s_addr,
            c_addr,
            to_server,
            now: 0,
            server_handled: Vec::new(),
            server_conn: None,
        };
        w.run(500);
        assert!(w.server.con.find_object_str("ClientGroup").is_some(), "client connected");
        w
    }

    fn server_conn(&self) -> ConnectionId {
        self.server_conn.expect("connected")
    }

    fn client_obj(&mut self) -> u32 {
        let cg = self.server.con.find_object_str("ClientGroup").unwrap();
        self.server.con.object(cg).unwrap().members[0]
    }

    fn run(&mut self, ms: u64) {
        let end = self.now + ms;
        while self.now < end {
            self.client.rc.flush_to_server(&mut self.client.iface, self.to_server).ok();
            self.server.rc.flush_to_clients(&mut self.server.iface);
            pump_local(
                self.now,
                LocalEnd::new(&mut self.client.iface, self.c_addr, &NoObjects, &mut GhostArena::new()),
                LocalEnd::new(&mut self.server.iface, self.s_addr, &NoObjects, &mut GhostArena::new()),
            );
            while let Some(ev) = self.server.iface.poll_event() {
                match ev {
                    InterfaceEvent::Connected { connection, .. } => {
                        self.server_conn = Some(connection);
                        self.server.rc.add_client(&mut self.server.con, connection).unwrap();
                    }
                    InterfaceEvent::EventReceived { connection, event } => {
                        let ok =
                            self.server.rc.handle_server_event(&mut self.server.con, connection, &*event);
                        self.server_handled.push(ok);
                    }
                    _ => {}
                }
            }
            while let Some(ev) = self.client.iface.poll_event() {
                if let InterfaceEvent::EventReceived { event, .. } = ev {
                    assert!(self.client.rc.handle_client_event(&mut self.client.con, &*event));
                }
            }
            self.now += 8;
        }
    }
}

const CLIENT_FN: &str = r#"
function clientCmdEchoMessage(%message, %a1, %a2, %a3, %a4)
{
// tagged strings must be detagged in order to be displayed.
echo(detag(%message));
echo("a1 = " @ detag(%a1));
echo("a2 = " @ detag(%a2));
echo("a3 = " @ detag(%a3));
echo("a4 = " @ detag(%a4));
}
"#;

fn lines(s: &str) -> Vec<String> {
    s.lines().map(|l| l.trim_end().to_string()).collect()
}

#[test]
fn v12s_first_example_prints_v12s_output() {
    let mut w = World::new();
    w.client.con.eval(CLIENT_FN).unwrap();
    let client = w.client_obj();
    w.server
        .con
        .eval(&format!(
            "commandToClient({client}, 'EchoMessage',\n'This %1 guy is super %2',\n'Got Milk?',\n\
             'slow at writing documentation');"
        ))
        .unwrap();
    w.run(400);
    // V12's text (trailing spaces of "a3 = " are invisible there).
    let expected = "This Got Milk? guy is super slow at writing documentation\n\
                    a1 = Got Milk?\n\
                    a2 = slow at writing documentation\n\
                    a3 =\n\
                    a4 =";
    assert_eq!(lines(&w.client.out.stdout()), lines(expected));
}

#[test]
fn v12s_second_example_prints_v12s_output() {
    let mut w = World::new();
    // V12 prints this example's labels as "A1 = ".
    w.client.con.eval(&CLIENT_FN.replace("\"a", "\"A")).unwrap();
    let client = w.client_obj();
    w.server
        .con
        .eval(&format!(
            "CommandToClient({client}, 'EchoMessage',\n'%1 is a good %2 for %3',\n'%1 the good %2',\n\
             'Role Model',\n'SuperDood %1',\n'the dude of super');"
        ))
        .unwrap();
    w.run(400);
    // V12 wraps its first output line after "Role Model"; echo prints it as one line.
    let expected = "Role Model the good SuperDood the dude of super is a good Role Model \
                    for SuperDood the dude of super\n\
                    A1 = Role Model the good SuperDood the dude of super\n\
                    A2 = Role Model\n\
                    A3 = SuperDood the dude of super\n\
                    A4 = the dude of super";
    assert_eq!(lines(&w.client.out.stdout()), lines(expected));
}

#[test]
fn command_to_server_calls_server_cmd_with_the_client() {
    let mut w = World::new();
    let client = w.client_obj();
    w.server
        .con
        .eval(r#"function serverCmdSetName(%client, %name, %n) { echo("name " @ %client @ " " @ detag(%name) @ " " @ %n); }"#)
        .unwrap();
    w.client.con.eval("commandToServer('SetName', 'Bob %1', \"plain\");").unwrap();
    w.client.con.eval("commandToServer('SetName', 'Ann', 42);").unwrap();
    w.run(400);
    assert_eq!(w.server.out.stdout(), format!("name {client} Bob plain plain\nname {client} Ann 42\n"));
}

#[test]
fn tags_cross_once_then_as_ids() {
    let mut w = World::new();
    w.client.con.eval(CLIENT_FN).unwrap();
    let client = w.client_obj();
    for _ in 0..5 {
        w.server
            .con
            .eval(&format!("commandToClient({client}, 'EchoMessage', 'hello %1', 'world');"))
            .unwrap();
        w.run(300);
    }
    let out = w.client.out.stdout();
    assert_eq!(out.matches("hello world\n").count(), 5);
    let sent = w.server.iface.connection(w.server.iface.connection_ids()[0]).unwrap().stats();
    // Three distinct texts crossed, once each.
    assert_eq!(sent.string_texts_sent, 3, "{sent:?}");
}

#[test]
fn bad_names_and_unknown_clients_do_not_run() {
    let mut w = World::new();
    w.server.con.eval("commandToClient(99999, 'X');").unwrap();
    assert!(
        w.server.out.stderr().contains("unknown client") || w.server.out.stdout().contains("unknown client")
    );
    w.server.con.eval(r#"function serverCmdok(%c) { echo("ran"); }"#).unwrap();
    w.client.con.eval("commandToServer('Bad::Name');").unwrap();
    w.client.con.eval("commandToServer('ok');").unwrap();
    w.run(300);
    assert_eq!(w.server.out.stdout(), "ran\n");
    assert_eq!(w.server_handled, vec![false, true]);
}

#[test]
fn expand_string_rules() {
    let later = vec!["\u{1}3 x y".to_string(), "two".to_string()];
    assert_eq!(expand_string("a %1 b %2 c %3 d", &later), "a x y b two c  d");
    assert_eq!(expand_string("100% sure %", &later), "100% sure %");
    let big = "%1%1%1%1%1%1%1%1".repeat(100);
    let huge = vec!["z".repeat(4000)];
    assert!(expand_string(&big, &huge).len() <= 4096);
}

/// A client's serverCmd calls are rate limited (issue 17: a chat flood), with the limit
/// set from script; the server's clock is the console's sim time.
#[test]
fn server_commands_are_rate_limited_per_client_from_script() {
    let mut w = World::new();
    w.server.con.eval("$calls = 0; function serverCmdPing(%client) { $calls++; }").unwrap();
    w.server.con.eval("$Pref::Server::CommandsPerSecond = 10; $Pref::Server::CommandBurst = 20;").unwrap();
    w.client
        .con
        .eval("function flood(){ for (%i = 0; %i < 500; %i++) commandToServer('Ping'); } flood();")
        .unwrap();
    w.run(400);
    assert_eq!(w.server.con.eval("return $calls;").unwrap().to_i32(), 20, "the burst, then nothing");
    // A second of sim time refills ten.
    w.server.con.advance_time(1_000);
    w.client.con.eval("flood();").unwrap();
    w.run(400);
    assert_eq!(w.server.con.eval("return $calls;").unwrap().to_i32(), 30);
}

/// Tagged strings a client sends are capped per client and freed when it goes (issue 17:
/// a tag flood grew a server from 5 to 215 MB, never freed).
#[test]
fn a_clients_tags_are_capped_and_freed_when_it_goes() {
    let mut w = World::new();
    w.server.con.eval("$Pref::Server::CommandsPerSecond = 100000; $got = 0; function serverCmdTag(%client, %t) { $got++; $last = detag(%t); }").unwrap();
    let base = w.server.con.tagged_string_count();
    w.client
        .con
        .eval("function flood(%n){ for (%i = 0; %i < %n; %i++) commandToServer('Tag', addTaggedString(\"text \" @ %i)); } flood(3000);")
        .unwrap();
    w.run(3_000);
    assert_eq!(w.server.con.eval("return $got;").unwrap().to_i32(), 3000, "every command ran");
    assert_eq!(w.server.con.eval("return $last;").unwrap().as_text(), "text 2999", "past the cap: the text");
    let grown = w.server.con.tagged_string_count() - base;
    assert!(grown <= v12_sim::remote_command::MAX_TAGS_PER_CLIENT + 2, "{grown} tags kept for one client");
    let conn = w.server_conn();
    w.server.rc.remove_client(&mut w.server.con, conn);
    assert!(w.server.con.tagged_string_count() <= base + 2, "freed when the client went");
}

/// Where the test's log lines go (a `tracing` writer).
#[derive(Clone, Default)]
struct LogBuffer(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for LogBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogBuffer {
    /// The `suppressed=N` of each line that says `what`.
    fn lines(&self, what: &str) -> Vec<u64> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter(|l| l.contains(what))
            .map(|l| {
                let n = l.split("suppressed=").nth(1).expect("a suppressed count");
                n.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
            })
            .collect()
    }
}

/// A client flooding commands with bad names writes a few warnings per window, not one per
/// command (issue 31: a tag flood wrote 50,006 WARN lines in 30 s); the next line after a
/// window says how many were left out, and so does a last line when the client leaves.
#[test]
fn a_flood_of_bad_command_names_logs_a_few_lines_and_counts_the_rest() {
    let log = LogBuffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let mut w = World::new();
        let flood = |w: &mut World, n: usize| {
            w.client
                .con
                .eval(&format!(
                    "function badNames(%n) {{ for (%i = 0; %i < %n; %i++) commandToServer('Bad::Name'); }} badNames({n});"
                ))
                .unwrap();
            let before = w.server_handled.len();
            while w.server_handled.len() < before + n {
                w.run(100);
            }
            assert!(w.server_handled[before..].iter().all(|ok| !ok), "no bad name ran");
        };
        flood(&mut w, 500);
        // Five lines per client each 10 s of the server's time (LogLimiter's default).
        assert_eq!(log.lines("a bad name dropped"), [0, 0, 0, 0, 0]);
        w.server.con.advance_time(10_000);
        flood(&mut w, 100);
        // The first line of the new window counts the 495 left out of the last one; then four
        // more lines, and 95 left out.
        assert_eq!(log.lines("a bad name dropped"), [0, 0, 0, 0, 0, 495, 0, 0, 0, 0]);
        let conn = w.server_conn();
        w.server.rc.remove_client(&mut w.server.con, conn);
        assert_eq!(log.lines("suppressed before the client left"), [95]);
    });
}
