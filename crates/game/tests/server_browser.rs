//! The directory end to end on loopback: a real `v12-master` core on a UDP socket, a real
//! dedicated `v12` server that lists itself there (`-master`), and
//! - the headless program's query (`v12 -- -query -master ADDR`) printing the list;
//! - the client's server browser screen (JoinServerGui), driven through the GUI crate with
//!   no GL: the list shows name, players, mission and ping; a click selects, Join joins.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use v12_game::browser::ServerBrowser;
use v12_game::client::screenshot::client_console;
use v12_game::client::ui::ClientUi;
use v12_master::token::TokenMinter;
use v12_master::{MasterConfig, MasterServer};

#[path = "common/gui.rs"]
mod gui;
#[path = "common/procs.rs"]
mod procs;
use gui::{click, click_at};
use v12_gui::screen_rect;

const MOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game");

struct Master {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Master {
    fn start() -> Master {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let addr = sock.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::from_os().unwrap());
            v12_master::udp::serve(&sock, &mut m, &st).unwrap();
        });
        Master { addr, stop, thread: Some(thread) }
    }
}

impl Drop for Master {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A `v12` process whose stdout lines arrive on a channel; killed when dropped.
struct Proc {
    child: Child,
    rx: mpsc::Receiver<String>,
}

impl Proc {
    fn start(args: &[&str]) -> Proc {
        let (child, rx) = procs::start(args);
        Proc { child, rx }
    }

    /// The address the server listens on (its `LISTENING` line).
    fn listening(&self) -> String {
        procs::listening(&self.rx)
    }

    fn lines_until_exit(&mut self, limit: Duration) -> Vec<String> {
        procs::collect(&mut self.child, &self.rx, limit)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_listed_server_is_found_by_the_query_and_joined_from_the_browser_screen() {
    let master = Master::start();
    let m = master.addr.to_string();
    let server = Proc::start(&["--dedicated", "--", "-port", "0", "-seconds", "60", "-master", &m]);
    let game_addr: SocketAddr = server.listening().parse().unwrap();

    // The headless program's query prints what the master lists and the server answers.
    let mut found = Vec::new();
    for _ in 0..20 {
        let mut q = Proc::start(&["--", "-query", "-master", &m]);
        let lines = q.lines_until_exit(Duration::from_secs(15));
        found = lines.into_iter().filter(|l| l.starts_with("SERVER ")).collect();
        if !found.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(found.len(), 1, "{found:?}");
    let cols: Vec<&str> = found[0].trim_start_matches("SERVER ").split('\t').collect();
    assert_eq!(
        cols[..4],
        [game_addr.to_string().as_str(), "V12 Example Server", "0/32", "Arena"],
        "{found:?}"
    );
    assert!(cols[4].parse::<i64>().is_ok_and(|p| p >= 0), "ping column {found:?}");

    // The browser screen, headless.
    let (mut con, _remote, _resources) = client_console(std::path::Path::new(MOD), "Browser").unwrap();
    let browser = ServerBrowser::register(&mut con);
    let mut ui = ClientUi::new(&mut con, 800, 600).unwrap();
    ui.show(&mut con, "MainMenuGui").unwrap();
    con.set_global("Pref::Master0", m.as_str());
    click(&mut con, &mut ui, "BrowseButton");
    let list = con.find_object_str("ServerList").unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while con.eval("return ServerList.rowCount();").unwrap().to_i32() < 1 && Instant::now() < end {
        browser.pump(&mut con);
        std::thread::sleep(Duration::from_millis(10));
    }
    let row = con.eval("return ServerList.getRowText(0);").unwrap().as_text().into_owned();
    assert!(row.starts_with("V12 Example Server | 0/32 | Arena | "), "{row}");
    assert!(row.ends_with(" ms"), "{row}");
    assert!(
        con.get_global("Browser::Status").as_text().contains("1 server(s) found"),
        "{}",
        con.get_global("Browser::Status")
    );

    // Join without a selection is refused; a click on the row selects it; Join joins it.
    click(&mut con, &mut ui, "JoinServerButton");
    assert!(!con.get_global("Client::JoinRequested").truthy());
    let r = screen_rect(&con, list);
    click_at(&mut con, &mut ui, r.x + 20, r.y + 5);
    assert_eq!(con.eval("return ServerList.getSelectedId();").unwrap().to_i32(), 0);
    click(&mut con, &mut ui, "JoinServerButton");
    assert!(con.get_global("Client::JoinRequested").truthy(), "{}", con.get_global("Browser::Status"));
    assert_eq!(con.get_global("Client::ServerAddress").as_text(), game_addr.to_string());

    // LAN discovery: an info request to the broadcast address and the game port (loopback
    // stands for the LAN's broadcast address here) finds the server with no master.
    con.set_global("Pref::Net::LanBroadcast", "127.0.0.1");
    con.eval(&format!("queryLanServers({});", game_addr.port())).unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while browser.is_querying() && Instant::now() < end {
        browser.pump(&mut con);
        std::thread::sleep(Duration::from_millis(10));
    }
    browser.pump(&mut con);
    assert_eq!(con.eval("return getServerCount();").unwrap().to_i32(), 1);
    con.eval("setServerInfo(0);").unwrap();
    assert_eq!(con.get_global("ServerInfo::Address").as_text(), game_addr.to_string());
    drop(server);
}

/// The browser's query is journaled with the rest of the session: `-query` recorded with
/// `--journal-record` while a master lists a server, replayed with `--journal-play` after both
/// are gone, prints the same server line (address, name, players, map and ping).
#[test]
fn a_journaled_server_query_replays_with_no_master_or_server() {
    let dir = procs::Scratch::new("query-journal");
    let journal = dir.join("query.jnl");
    let j = journal.to_str().unwrap();
    let master = Master::start();
    let m = master.addr.to_string();
    let server = Proc::start(&["--dedicated", "--", "-port", "0", "-seconds", "60", "-master", &m]);
    server.listening();
    let servers = |lines: Vec<String>| -> Vec<String> {
        lines.into_iter().filter(|l| l.starts_with("SERVER ")).collect()
    };
    let mut recorded = Vec::new();
    for _ in 0..20 {
        let mut q = Proc::start(&["--journal-record", j, "--", "-query", "-master", &m]);
        recorded = servers(q.lines_until_exit(Duration::from_secs(15)));
        if !recorded.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    drop(server);
    drop(master);
    let mut replay = Proc::start(&["--journal-play", j, "--", "-query", "-master", &m]);
    let replayed = servers(replay.lines_until_exit(Duration::from_secs(15)));
    assert_eq!(replayed, recorded, "the replay found another answer");
}

/// The fleet path: a dedicated server given an Agones SDK address says ready, stays
/// healthy, and says shutdown when its match ends and it quits (a fake sidecar records it).
#[test]
fn a_dedicated_server_in_a_fleet_reports_ready_and_shutdown_to_agones() {
    use std::io::Write;
    let sidecar = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let sdk = sidecar.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for conn in sidecar.incoming().take(100) {
            let Ok(mut c) = conn else { continue };
            let mut first = String::new();
            let _ = BufReader::new(c.try_clone().unwrap()).read_line(&mut first);
            // Recorded before the answer, so a call the server saw answered is in the list.
            if tx.send(first.trim().to_string()).is_err() {
                break;
            }
            let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let mut server = Proc::start(&["--dedicated", "--", "-port", "0", "-seconds", "1", "-agones", &sdk]);
    server.listening();
    server.lines_until_exit(Duration::from_secs(30));
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let calls: Vec<String> = rx.try_iter().collect();
    assert_eq!(calls.first().map(String::as_str), Some("POST /ready HTTP/1.1"), "{calls:?}");
    assert_eq!(calls.last().map(String::as_str), Some("POST /shutdown HTTP/1.1"), "{calls:?}");
}
