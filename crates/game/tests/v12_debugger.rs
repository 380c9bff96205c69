//! Process-level: the script debugger on a dedicated server with a client connected. A
//! debugger client (this test, speaking the Torque telnet debugger protocol) stops the
//! server's scripts for longer than the network timeout; the client stays connected
//! (keep-alives while stopped), the game resumes where it stopped and the match ends
//! normally on both sides.

#[path = "common/gui.rs"]
mod gui;
#[path = "common/procs.rs"]
mod procs;

use procs::{collect, listening, start, wait_for};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[test]
fn a_server_stopped_at_a_breakpoint_keeps_its_client_and_resumes() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = procs::Scratch::new("debugger");
    std::fs::write(
        dir.join("probe.cs"),
        format!("dbgSetParameters({port}, \"pw\");\necho(\"DEBUGGER open\");\n"),
    )
    .unwrap();
    let dir = dir.to_string_lossy().into_owned();
    let (mut server, server_rx) =
        start(&["--dedicated", "--add-mod", &dir, "--exec", "probe.cs", "--", "-port", "0", "-seconds", "6"]);
    let mut server_lines = Vec::new();
    wait_for(&server_rx, "DEBUGGER open", &mut server_lines);
    let addr = wait_for(&server_rx, "LISTENING ", &mut server_lines)["LISTENING ".len()..].trim().to_string();
    let (mut client, client_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Guest"]);
    let mut client_lines = Vec::new();
    wait_for(&client_rx, "client: connection accepted", &mut client_lines);

    let dbg = TcpStream::connect(("127.0.0.1", port)).expect("debugger port");
    dbg.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut w = dbg.try_clone().unwrap();
    let mut r = BufReader::new(dbg);
    let mut expect = |prefix: &str| -> String {
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "debugger closed waiting for {prefix}");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    };
    w.write_all(b"pw\r\nBRKNEXT\r\n").unwrap();
    expect("PASS Connected.");
    // The next statement any script runs stops the whole server.
    let brk = expect("BREAK ");
    let stopped_at = Instant::now();
    w.write_all(b"EVAL 1 0 getSimTime() > 0\r\n").unwrap();
    assert_eq!(expect("EVALOUT 1 "), "EVALOUT 1 1");
    // Stopped well past the 5 s network timeout.
    std::thread::sleep(Duration::from_secs(7));
    w.write_all(b"CONTINUE\r\n").unwrap();
    expect("RUNNING");
    assert!(stopped_at.elapsed() >= Duration::from_secs(7));

    let server_lines =
        [server_lines, collect(&mut server, &server_rx, Duration::from_secs(60))].concat().join("\n");
    let client_lines =
        [client_lines, collect(&mut client, &client_rx, Duration::from_secs(30))].concat().join("\n");
    let _ = (server.wait(), client.wait());
    assert!(brk.split_whitespace().count() >= 4, "{brk}");
    assert!(!client_lines.contains("timed out") && !client_lines.contains("dropped"), "{client_lines}");
    assert!(!server_lines.contains("Guest left"), "{server_lines}");
    assert!(client_lines.contains("client: match over"), "{client_lines}");
    assert!(server_lines.contains("server: match over"), "{server_lines}");
}

/// V12's second instance as debugger: `v12 -- -dbg PORT PASSWORD` on a dedicated server,
/// and another `v12 -- -debugger ADDR PASSWORD` running `debugger/debugger.cs`, whose hooks (a
/// probe mod) break, evaluate in the stopped frame and continue.
#[test]
fn a_second_instance_attaches_as_the_debugger() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = procs::Scratch::new("debugger-probe");
    std::fs::write(
        dir.join("probe.cs"),
        r#"function onDebuggerConnected() { echo("PROBE attached"); dbgBreakNext(); }
function onDebuggerBreak(%file, %line, %function)
{
   echo("PROBE break " @ $Debugger::StackCount @ " " @ %file);
   if (!$probe::asked)
   {
      $probe::asked = 1;
      dbgEval("getWordCount(\"a b c\") + 1");
   }
}
function onDebuggerEval(%tag, %value) { echo("PROBE eval " @ %value); dbgContinue(); }
function onDebuggerRunning() { echo("PROBE running"); schedule(300, 0, quit); }
function onDebuggerClosed(%why) { echo("PROBE closed " @ %why); quit(); }
"#,
    )
    .unwrap();
    let dir = dir.to_string_lossy().into_owned();
    let port_arg = port.to_string();
    let (mut target, target_rx) =
        start(&["--dedicated", "--", "-port", "0", "-seconds", "4", "-dbg", &port_arg, "secret"]);
    listening(&target_rx);
    let target_lines: Vec<String> = Vec::new();
    let addr = format!("127.0.0.1:{port}");
    let (mut debugger, debugger_rx) =
        start(&["--add-mod", &dir, "--exec", "probe.cs", "--", "-debugger", &addr, "secret"]);
    let lines = collect(&mut debugger, &debugger_rx, Duration::from_secs(30)).join("\n");
    let target_lines =
        [target_lines, collect(&mut target, &target_rx, Duration::from_secs(30))].concat().join("\n");
    let _ = (debugger.wait(), target.wait());
    assert!(lines.contains("PROBE attached"), "{lines}");
    assert!(lines.contains("PROBE break "), "{lines}");
    assert!(lines.contains("PROBE eval 4"), "{lines}");
    assert!(lines.contains("PROBE running"), "{lines}");
    assert!(target_lines.contains("Debugger connection from"), "{target_lines}");
    assert!(target_lines.contains("server: match over"), "{target_lines}");
}

/// The debugger screen in the client, headless: the main menu's Debugger button shows it, and
/// its buttons attach to another instance (`-dbg`), set a breakpoint, stop it there, list
/// the stack, evaluate in the stopped frame, step and let it run on.
#[test]
fn the_debugger_screen_attaches_steps_and_evaluates() {
    use v12_game::client::screenshot::client_console;
    use v12_game::client::ui::ClientUi;

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = procs::Scratch::new("debugger-screen");
    std::fs::write(
        dir.join("work.cs"),
        "function work(%n)\n{\n   %twice = %n * 2;\n   return %twice;\n}\n\
         function tick() { echo(\"WORK \" @ work(21)); schedule(200, 0, tick); }\ntick();\n",
    )
    .unwrap();
    let dir = dir.to_string_lossy().into_owned();
    let port_arg = port.to_string();
    let (mut target, _target_rx) =
        start(&["--add-mod", &dir, "--exec", "work.cs", "--", "-dbg", &port_arg, "pw"]);

    let (mut con, _remote, _resources) = client_console(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game")),
        "Dbg",
    )
    .unwrap();
    let mut tcp = v12_services::tcp_object::TcpObjects::register(&mut con);
    let mut ui = ClientUi::new(&mut con, 800, 600).unwrap();
    ui.show(&mut con, "MainMenuGui").unwrap();
    use gui::click;
    click(&mut con, &mut ui, "DebuggerButton");
    assert_eq!(con.eval("return Canvas.getContent().getName();").unwrap().to_string(), "DebuggerGui");

    type Con = v12_console_vm::Console;
    fn until(
        con: &mut Con,
        tcp: &mut v12_services::tcp_object::TcpObjects,
        what: &str,
        test: &dyn Fn(&mut Con) -> bool,
    ) {
        let end = Instant::now() + Duration::from_secs(20);
        while !test(con) {
            assert!(
                Instant::now() < end,
                "waited in vain for {what}: {}",
                con.get_global("Debugger::Status")
            );
            tcp.pump(con);
            con.advance_time(10);
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    con.set_global("Debugger::Address", format!("127.0.0.1:{port}").as_str());
    con.set_global("Debugger::PasswordEntry", "pw");
    // The target listens once it starts: attach until it answers.
    let end = Instant::now() + Duration::from_secs(20);
    while !con.get_global("Debugger::Attached").truthy() {
        assert!(Instant::now() < end, "never attached: {}", con.get_global("Debugger::Status"));
        click(&mut con, &mut ui, "DebuggerAttachButton");
        for _ in 0..20 {
            tcp.pump(&mut con);
            con.advance_time(10);
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    con.set_global("Debugger::BreakFile", "work.cs");
    con.set_global("Debugger::BreakLine", "3");
    click(&mut con, &mut ui, "DebuggerSetBreakButton");
    until(&mut con, &mut tcp, "the stop", &|c| {
        c.get_global("Debugger::Status").to_string().starts_with("stopped")
    });
    assert_eq!(con.get_global("Debugger::Status").to_string(), "stopped in work at work.cs:3");
    assert_eq!(con.eval("return DebuggerStackList.rowCount();").unwrap().to_string(), "2");
    con.set_global("Debugger::EvalEntry", "%n + 1");
    click(&mut con, &mut ui, "DebuggerEvalButton");
    let has = |c: &mut v12_console_vm::Console, text: &str| {
        let n: i64 =
            c.eval("return DebuggerOutputList.rowCount();").unwrap().to_string().parse().unwrap_or(0);
        (0..n).any(|i| {
            c.eval(&format!("return DebuggerOutputList.getRowText({i});")).unwrap().to_string().contains(text)
        })
    };
    until(&mut con, &mut tcp, "the evaluation", &|c| has(c, "= 22"));
    click(&mut con, &mut ui, "DebuggerStepOverButton");
    until(&mut con, &mut tcp, "the step", &|c| {
        c.get_global("Debugger::Status").to_string().ends_with("work.cs:4")
    });
    con.eval("dbgClearBreakpoint(\"work.cs\", 3);").unwrap();
    click(&mut con, &mut ui, "DebuggerContinueButton");
    until(&mut con, &mut tcp, "the script's output", &|c| has(c, "WORK 42"));
    let _ = target.kill();
    let _ = target.wait();
}
