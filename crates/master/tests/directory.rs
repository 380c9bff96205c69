//! The directory end to end on the one network emulator: game servers register with the
//! master and heartbeat, a browser queries with filters, receives every page and pings
//! each server; expiry, restart, paging, spoofed sources and garbage.

use std::net::SocketAddr;
use v12_master::info::ServerInfo;
use v12_master::token::TokenMinter;
use v12_master::wire::answer_info_request;
use v12_master::wire::{ALL_PAGES, Message, SERVERS_PER_PAGE};
use v12_master::{
    Filter, MasterConfig, MasterServer, QueryConfig, Registrar, RegistrarConfig, ServerQuery, ServerStore,
};
use v12_netsim::{Endpoint, Harness, LinkConfig, Millis, for_each_seed};

const MASTER: &str = "10.0.0.1:28000";

fn master_addr() -> SocketAddr {
    MASTER.parse().unwrap()
}

fn game_addr(i: usize) -> SocketAddr {
    SocketAddr::from(([10, 1, (i / 200) as u8, (i % 200) as u8 + 1], 28001))
}

fn info(i: usize) -> ServerInfo {
    ServerInfo {
        name: format!("Server {i}"),
        mission: if i.is_multiple_of(2) { "Katabatic".into() } else { "Raindance".into() },
        game_type: if i.is_multiple_of(3) { "CTF".into() } else { "DM".into() },
        players: (i % 5) as u16,
        max_players: 4,
        bots: 0,
        version: 7,
        password: i.is_multiple_of(7),
        dedicated: true,
        region: (i % 4) as u8,
    }
}

enum Node {
    Master(SocketAddr, Box<MasterServer>),
    Game {
        addr: SocketAddr,
        registrar: Registrar,
        info: ServerInfo,
        alive: bool,
        out: Vec<(SocketAddr, Vec<u8>)>,
    },
    Browser {
        addr: SocketAddr,
        query: Option<ServerQuery>,
    },
}

impl Endpoint for Node {
    type Addr = SocketAddr;
    fn addr(&self) -> SocketAddr {
        match self {
            Node::Master(a, _) | Node::Game { addr: a, .. } | Node::Browser { addr: a, .. } => *a,
        }
    }
    fn handle_datagram(&mut self, now: Millis, from: SocketAddr, data: &[u8]) {
        match self {
            Node::Master(_, m) => m.handle_datagram(now, from, data),
            Node::Game { registrar, info, alive, out, .. } => {
                if !*alive || registrar.handle_datagram(now, from, data) {
                    return;
                }
                if let Some(reply) = answer_info_request(data, info) {
                    out.push((from, reply));
                }
            }
            Node::Browser { query, .. } => {
                if let Some(q) = query {
                    q.handle_datagram(now, from, data);
                }
            }
        }
    }
    fn poll_transmit(&mut self, _now: Millis) -> Option<(SocketAddr, Vec<u8>)> {
        match self {
            Node::Master(_, m) => m.poll_transmit(),
            Node::Game { registrar, out, .. } => registrar.poll_transmit().or_else(|| out.pop()),
            Node::Browser { query, .. } => query.as_mut()?.poll_transmit(),
        }
    }
    fn poll_timeout(&self) -> Option<Millis> {
        match self {
            Node::Master(_, m) => Some(m.poll_timeout()),
            Node::Game { registrar, alive, .. } => alive.then(|| registrar.poll_timeout()).flatten(),
            // The test polls the browser itself, every 50 ms (as a GUI frame would).
            Node::Browser { .. } => None,
        }
    }
    fn handle_timeout(&mut self, now: Millis) {
        match self {
            Node::Master(_, m) => m.handle_timeout(now),
            Node::Game { registrar, info, alive, .. } => {
                if *alive {
                    registrar.poll(now, info);
                }
            }
            Node::Browser { query, .. } => {
                if let Some(q) = query {
                    q.poll(now);
                }
            }
        }
    }
}

fn master(key: u8) -> Node {
    Node::Master(
        master_addr(),
        Box::new(MasterServer::new(MasterConfig::default(), TokenMinter::with_key([key; 16]))),
    )
}

fn game(i: usize) -> Node {
    let cfg = RegistrarConfig { masters: vec![master_addr()], ..RegistrarConfig::default() };
    Node::Game {
        addr: game_addr(i),
        registrar: Registrar::new(cfg, 1000 + i as u64),
        info: info(i),
        alive: true,
        out: Vec::new(),
    }
}

fn browser() -> Node {
    Node::Browser { addr: "10.9.9.9:5000".parse().unwrap(), query: None }
}

fn the_master(h: &Harness<Node>) -> &MasterServer {
    match h.node(0) {
        Node::Master(_, m) => m,
        _ => unreachable!(),
    }
}

/// Runs a browser query to the end (polling it every 50 ms) and returns its answered rows.
fn run_query(h: &mut Harness<Node>, b: usize, filter: Filter) -> Vec<(SocketAddr, ServerInfo, u64)> {
    let now = h.now();
    let cfg = QueryConfig { masters: vec![master_addr()], filter, ..QueryConfig::default() };
    if let Node::Browser { query, .. } = h.node_mut(b) {
        *query = Some(ServerQuery::new(now, cfg, 77));
    }
    for _ in 0..400 {
        let t = h.now() + 50;
        h.run_until(t);
        let t = h.now();
        let Node::Browser { query: Some(q), .. } = h.node_mut(b) else { unreachable!() };
        q.poll(t);
        if q.is_done(t) {
            break;
        }
    }
    let Node::Browser { query: Some(q), .. } = h.node(b) else { unreachable!() };
    assert!(q.is_done(h.now()), "query did not finish: {}", q.status(h.now()));
    q.answered().into_iter().map(|e| (e.addr, e.info.clone().unwrap(), e.ping_ms.unwrap())).collect()
}

#[test]
fn servers_register_and_a_filtered_query_pings_them_all() {
    for_each_seed([1, 2, 3], |seed| {
        let mut nodes = vec![master(1)];
        nodes.extend((0..30).map(game));
        nodes.push(browser());
        let b = nodes.len() - 1;
        let mut h = Harness::new(nodes, LinkConfig::clean(20), seed);
        h.run_for(1_000);
        assert_eq!(the_master(&h).store().len(), 30);
        assert_eq!(the_master(&h).stats().challenges, 30, "one challenge per server, then tokens");

        let all = run_query(&mut h, b, Filter::default());
        assert_eq!(all.len(), 30);
        for (addr, got, ping) in &all {
            let i = (0..30).find(|i| game_addr(*i) == *addr).unwrap();
            assert_eq!(*got, info(i));
            assert_eq!(*ping, 40, "20 ms each way");
        }
        let ctf_open = Filter { game_type: "ctf".into(), not_full: true, ..Filter::default() };
        let got = run_query(&mut h, b, ctf_open.clone());
        let want = (0..30).filter(|i| ctf_open.matches(&info(*i))).count();
        assert!(want > 0 && want < 30);
        assert_eq!(got.len(), want);
        let region = Filter { region: 2, version: 7, no_password: true, ..Filter::default() };
        assert_eq!(
            run_query(&mut h, b, region.clone()).len(),
            (0..30).filter(|i| region.matches(&info(*i))).count()
        );
        assert!(run_query(&mut h, b, Filter { version: 8, ..Filter::default() }).is_empty());
    });
}

#[test]
fn a_silent_server_expires_and_heartbeats_keep_the_others() {
    let mut h = Harness::new(vec![master(1), game(0), game(1)], LinkConfig::clean(10), 5);
    h.run_for(1_000);
    assert_eq!(the_master(&h).store().len(), 2);
    if let Node::Game { alive, .. } = h.node_mut(2) {
        *alive = false;
    }
    h.run_for(120_000);
    let m = the_master(&h);
    assert_eq!(m.store().len(), 1, "the silent one expired after ~95 s");
    assert!(m.store().get(game_addr(0)).is_some());
    assert_eq!(m.stats().expired, 1);
    assert!(m.stats().heartbeats >= 2 + 4, "the live one kept heart-beating every 30 s");
}

#[test]
fn a_restarted_master_has_every_server_back_within_one_period() {
    let mut nodes = vec![master(1)];
    nodes.extend((0..20).map(game));
    let mut h = Harness::new(nodes, LinkConfig::clean(10), 9);
    h.run_for(5_000);
    assert_eq!(the_master(&h).store().len(), 20);
    // A new process: empty list and a new key, so every old token is refused.
    *h.node_mut(0) = master(2);
    h.run_for(30_000 + 1_000);
    assert_eq!(the_master(&h).store().len(), 20);
}

#[test]
fn a_goodbye_removes_the_server_at_once() {
    let mut h = Harness::new(vec![master(1), game(0)], LinkConfig::clean(10), 1);
    h.run_for(1_000);
    if let Node::Game { registrar, .. } = h.node_mut(1) {
        registrar.goodbye();
    }
    h.run_for(100);
    assert_eq!(the_master(&h).store().len(), 0);
    assert_eq!(the_master(&h).stats().goodbyes, 1);
}

#[test]
fn a_long_list_comes_in_pages_that_fit_the_mtu_even_over_loss() {
    for_each_seed([11, 12], |seed| {
        let n = SERVERS_PER_PAGE * 3 + 17;
        let mut nodes = vec![master(1)];
        nodes.extend((0..n).map(game));
        nodes.push(browser());
        let b = nodes.len() - 1;
        let mut h = Harness::new(nodes, LinkConfig::clean(15), seed);
        h.run_for(3_000);
        assert_eq!(the_master(&h).store().len(), n);
        h.network_mut().set_default(LinkConfig::clean(15).with_loss(0.1));
        let got = run_query(&mut h, b, Filter::default());
        // Pings over a 10 % lossy link with two tries: nearly all answer; all were listed.
        let Node::Browser { query: Some(q), .. } = h.node(b) else { unreachable!() };
        assert_eq!(q.entries().len(), n, "every page arrived (missing ones asked again)");
        assert!(got.len() >= n * 95 / 100, "{} of {n} answered", got.len());
        assert!(the_master(&h).stats().pages_sent >= 4);
    });
}

#[test]
fn pages_are_numbered_and_one_page_can_be_asked_for() {
    let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([3; 16]));
    for i in 0..(SERVERS_PER_PAGE * 2 + 5) {
        let a = game_addr(i);
        m.handle_datagram(0, a, &Message::Heartbeat { nonce: 1, token: 0, info: info(i) }.encode());
        let Some((_, d)) = m.poll_transmit() else { panic!() };
        let Ok(Message::Challenge { token, .. }) = Message::decode(&d) else { panic!() };
        m.handle_datagram(0, a, &Message::Heartbeat { nonce: 1, token, info: info(i) }.encode());
        while m.poll_transmit().is_some() {}
    }
    let me: SocketAddr = "10.200.0.1:9".parse().unwrap();
    let token = TokenMinter::with_key([3; 16]).token(me, 0);
    m.handle_datagram(
        0,
        me,
        &Message::Query { nonce: 5, token, filter: Filter::default(), page: 1 }.encode(),
    );
    let (to, d) = m.poll_transmit().unwrap();
    assert_eq!(to, me);
    assert!(d.len() <= 1200);
    let Ok(Message::ListPage { page, pages, total, servers, .. }) = Message::decode(&d) else { panic!() };
    assert_eq!(
        (page, pages, total as usize, servers.len()),
        (1, 3, SERVERS_PER_PAGE * 2 + 5, SERVERS_PER_PAGE)
    );
    assert!(m.poll_transmit().is_none(), "only the page asked for");
    m.handle_datagram(
        0,
        me,
        &Message::Query { nonce: 5, token, filter: Filter::default(), page: ALL_PAGES }.encode(),
    );
    let mut n = 0;
    while let Some((_, d)) = m.poll_transmit() {
        assert!(d.len() <= 1200);
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn spoofed_sources_get_a_small_challenge_and_register_nothing() {
    let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([4; 16]));
    let mut sent_bytes = 0usize;
    let mut got_bytes = 0usize;
    for i in 0..5_000u32 {
        let victim = SocketAddr::from(([172, 16, (i >> 8) as u8, i as u8], 28001));
        let guess = u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for m_ in [
            Message::Heartbeat { nonce: 1, token: guess, info: info(0) },
            Message::Query { nonce: 2, token: guess, filter: Filter::default(), page: ALL_PAGES },
            Message::Goodbye { nonce: 3, token: guess },
        ] {
            let d = m_.encode();
            sent_bytes += d.len();
            m.handle_datagram(u64::from(i), victim, &d);
        }
        while let Some((_, d)) = m.poll_transmit() {
            got_bytes += d.len();
            assert!(matches!(Message::decode(&d), Ok(Message::Challenge { .. })));
        }
    }
    assert_eq!(m.store().len(), 0, "no guessed token registers anything");
    assert!(got_bytes < sent_bytes, "no amplification: {got_bytes} out for {sent_bytes} in");
}

#[test]
fn one_address_is_rate_limited_and_cannot_fill_the_list() {
    let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([5; 16]));
    let minter = TokenMinter::with_key([5; 16]);
    // 1,000 ports of one host, each verified: at most max_servers_per_ip listed; and one
    // burst from the host is cut by its rate limit.
    for port in 0..1_000u16 {
        let a = SocketAddr::from(([192, 0, 2, 1], 20_000 + port));
        let token = minter.token(a, 0);
        m.handle_datagram(
            u64::from(port) * 100,
            a,
            &Message::Heartbeat { nonce: 1, token, info: info(0) }.encode(),
        );
    }
    assert_eq!(m.store().len(), MasterConfig::default().max_servers_per_ip);
    let before = m.stats().rate_limited;
    let a = SocketAddr::from(([192, 0, 2, 2], 1));
    for _ in 0..1_000 {
        m.handle_datagram(200_000, a, &Message::InfoRequest { nonce: 0 }.encode());
    }
    assert!(m.stats().rate_limited - before >= 900, "{:?}", m.stats());
}

#[test]
fn forged_datagrams_from_a_servers_address_cannot_get_it_delisted() {
    // An attacker sends 200 datagrams a second with a listed server's source address: forged
    // heartbeats (no valid token: it never sees the master's answers) and garbage. The real
    // server heartbeats every 30 s with the token of its last acknowledgement.
    let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([8; 16]));
    let minter = TokenMinter::with_key([8; 16]);
    let server = SocketAddr::from(([192, 0, 2, 7], 28000));
    let forged = Message::Heartbeat { nonce: 9, token: 12345, info: info(1) }.encode();
    for t in (0..400_000u64).step_by(5) {
        if t % 30_000 == 0 {
            let token = minter.token(server, t);
            m.handle_datagram(t, server, &Message::Heartbeat { nonce: 1, token, info: info(0) }.encode());
        } else if t % 10 == 0 {
            m.handle_datagram(t, server, &forged);
        } else {
            m.handle_datagram(t, server, &[0x0E, 0xFF, 0xFF]);
        }
        m.handle_timeout(t);
        while m.poll_transmit().is_some() {}
    }
    let listed: Vec<SocketAddr> = {
        let mut v = Vec::new();
        m.store().matching(&Filter::default(), &mut v);
        v
    };
    assert_eq!(listed, vec![server], "the server stays listed: {:?}", m.stats());
    assert_eq!(m.stats().expired, 0);
    assert!(m.stats().rate_limited > 30_000, "the forged heartbeats were limited: {:?}", m.stats());
    assert!(m.stats().garbage > 30_000, "garbage was counted: {:?}", m.stats());
}

#[test]
fn garbage_is_counted_and_answered_with_nothing() {
    let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([6; 16]));
    let from: SocketAddr = "10.0.0.9:1".parse().unwrap();
    for d in [&[][..], &[0x0E], &[0x0E, 0], &[0x0E, 9, 1, 2], &[1, 2, 3], &[0x0E, 6, 0xFF]] {
        m.handle_datagram(0, from, d);
    }
    assert!(m.poll_transmit().is_none());
    assert_eq!(m.stats().garbage, 6);
}
