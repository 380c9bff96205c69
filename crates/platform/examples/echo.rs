//! Two UDP ports on loopback, one of them sending through the link conditioner ("average":
//! 100 ms, 25 ms jitter, 2 % loss): 50 numbered pings echoed back, and what crossed.
//!
//! `cargo run -p v12-platform --example echo`

use std::time::Duration;
use v12_platform::{
    Clock, ConditionerConfig, Datagram, LinkConditioner, NetAddress, SystemClock, Transport, UdpTransport,
};

fn main() -> std::io::Result<()> {
    let any: NetAddress = "127.0.0.1:0".parse().expect("an address");
    let mut echo = UdpTransport::bind(any)?;
    let echo_addr = echo.local_addr();
    // Only this side's outgoing datagrams go through the conditioner.
    let mut client = LinkConditioner::new(UdpTransport::bind(any)?, ConditionerConfig::average(), 7);
    let clock = SystemClock::new();
    let (mut sent, mut back, mut rtt_sum) = (0u64, 0u64, 0u64);
    let mut inbox: Vec<Datagram> = Vec::new();
    while clock.now_ms() < 3_000 {
        let now = clock.now_ms();
        if sent < 50 && now >= sent * 40 {
            client.send_to(now, echo_addr, &now.to_le_bytes())?;
            sent += 1;
        }
        client.poll(now)?;
        inbox.clear();
        echo.recv_batch(now, &mut inbox)?;
        for d in &inbox {
            echo.send_to(now, d.from, &d.data)?;
        }
        inbox.clear();
        client.recv_batch(now, &mut inbox)?;
        for d in &inbox {
            let at = d.data.get(..8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes);
            if let Some(at) = at {
                back += 1;
                rtt_sum += now - at;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let stats = client.stats();
    println!("sent {sent}, echoed back {back}, mean round trip {} ms", rtt_sum / back.max(1));
    println!("the conditioner: {stats:?}");
    Ok(())
}
