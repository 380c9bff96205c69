//! The Agones SDK calls against a fake of the sidecar's HTTP endpoint (tests only).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use v12_master::agones::{AgonesSdk, AgonesWorker, Call};

/// Answers every request with `status`, recording each request line and body.
fn fake_sdk(status: &'static str) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    std::thread::spawn(move || {
        for conn in l.incoming().take(64) {
            let Ok(mut c) = conn else { continue };
            let mut r = BufReader::new(c.try_clone().unwrap());
            let mut line = String::new();
            let _ = r.read_line(&mut line);
            let mut len = 0;
            loop {
                let mut h = String::new();
                if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            let _ = r.read_exact(&mut body);
            s.lock().unwrap().push(format!("{} {}", line.trim(), String::from_utf8_lossy(&body)));
            let _ = write!(c, "HTTP/1.1 {status}\r\nContent-Length: 2\r\n\r\n{{}}");
        }
    });
    (addr, seen)
}

#[test]
fn each_call_is_a_post_with_an_empty_json_body() {
    let (addr, seen) = fake_sdk("200 OK");
    let sdk = AgonesSdk::new(addr);
    sdk.ready().unwrap();
    sdk.health().unwrap();
    sdk.allocate().unwrap();
    sdk.shutdown().unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "POST /ready HTTP/1.1 {}",
            "POST /health HTTP/1.1 {}",
            "POST /allocate HTTP/1.1 {}",
            "POST /shutdown HTTP/1.1 {}"
        ]
    );
}

#[test]
fn an_error_status_or_no_sidecar_is_an_error_not_a_panic() {
    let (addr, _) = fake_sdk("500 Internal Server Error");
    assert!(AgonesSdk::new(addr).ready().unwrap_err().contains("500"));
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    assert!(AgonesSdk::new(closed).health().is_err());
}

#[test]
fn the_worker_calls_in_order_and_sends_health_between() {
    let (addr, seen) = fake_sdk("200 OK");
    let w = AgonesWorker::spawn(AgonesSdk::new(addr), Duration::from_millis(20));
    w.call(Call::Ready);
    // Wait (bounded) until two health calls came in, however slow the machine is.
    let healths = || seen.lock().unwrap().iter().filter(|l| l.contains("/health")).count();
    let end = std::time::Instant::now() + Duration::from_secs(20);
    while healths() < 2 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    w.call(Call::Allocate);
    w.shutdown();
    let seen: Vec<String> =
        seen.lock().unwrap().iter().map(|l| l.split(' ').nth(1).unwrap().to_string()).collect();
    assert_eq!(seen.first().map(String::as_str), Some("/ready"));
    assert_eq!(seen.last().map(String::as_str), Some("/shutdown"));
    assert!(seen.iter().filter(|s| *s == "/health").count() >= 2, "{seen:?}");
    let alloc = seen.iter().position(|s| s == "/allocate").unwrap();
    assert!(alloc > 0 && alloc < seen.len() - 1);
}
