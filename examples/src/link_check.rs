//! The platform-layer demo: a server and a client on real loopback UDP, both sending through the
//! link conditioner. The client sends numbered probes at a fixed rate; the server echoes each one
//! back. The client counts what crossed: sent, received, lost, duplicated, reordered, bytes, RTT.

use std::collections::HashSet;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use v12_platform::{
    Clock, ConditionerConfig, ConditionerStats, Datagram, LinkConditioner, Millis, NetAddress, SystemClock,
    Transport, UdpTransport,
};

/// What the link check runs.
#[derive(Clone, Debug)]
pub struct LinkCheckConfig {
    pub seconds: f64,
    /// Probes per second from the client.
    pub rate: u32,
    /// Probe size in bytes (at least 16: sequence number and send time).
    pub size: usize,
    /// Conditions applied to each direction.
    pub link: ConditionerConfig,
    pub seed: u64,
}

/// What the client saw, plus each conditioner's own counters.
#[derive(Clone, Debug, Default)]
pub struct LinkReport {
    pub sent: u64,
    pub received: u64,
    pub unique: u64,
    pub duplicates: u64,
    pub reordered: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub rtt_ms: Vec<Millis>,
    pub client_link: ConditionerStats,
    pub server_link: ConditionerStats,
}

impl LinkReport {
    /// Probes that never came back (either direction lost them).
    pub fn lost(&self) -> u64 {
        self.sent.saturating_sub(self.unique)
    }

    fn rtt_percentile(&self, p: f64) -> Option<Millis> {
        let mut v = self.rtt_ms.clone();
        v.sort_unstable();
        let i = ((v.len() as f64 - 1.0) * p).round() as usize;
        v.get(i).copied()
    }

    /// The report as printed by the demo.
    pub fn render(&self) -> String {
        let ms = |v: Option<Millis>| v.map_or("-".to_string(), |v| format!("{v} ms"));
        let mean = if self.rtt_ms.is_empty() {
            "-".to_string()
        } else {
            format!("{:.1} ms", self.rtt_ms.iter().sum::<u64>() as f64 / self.rtt_ms.len() as f64)
        };
        let pct = |n: u64| if self.sent == 0 { 0.0 } else { 100.0 * n as f64 / self.sent as f64 };
        let c = &self.client_link;
        let s = &self.server_link;
        format!(
            "probes sent        {}\n\
             echoes received    {} ({} unique)\n\
             lost               {} ({:.1} %)\n\
             duplicated         {}\n\
             reordered          {}\n\
             bytes sent / recv  {} / {}\n\
             RTT mean / p50 / p99  {} / {} / {}\n\
             conditioner client->server: dropped {} (loss) {} (mtu), duplicated {}, reordered {}, delayed {}\n\
             conditioner server->client: dropped {} (loss) {} (mtu), duplicated {}, reordered {}, delayed {}",
            self.sent,
            self.received,
            self.unique,
            self.lost(),
            pct(self.lost()),
            self.duplicates,
            self.reordered,
            self.bytes_sent,
            self.bytes_received,
            mean,
            ms(self.rtt_percentile(0.5)),
            ms(self.rtt_percentile(0.99)),
            c.dropped_loss,
            c.dropped_mtu,
            c.duplicated,
            c.reordered,
            c.delayed,
            s.dropped_loss,
            s.dropped_mtu,
            s.duplicated,
            s.reordered,
            s.delayed,
        )
    }
}

/// Longest a loop sleeps waiting for a datagram, so timers still fire on time.
const MAX_WAIT: Duration = Duration::from_millis(5);

/// Sleep until a datagram arrives, the next timer is due, or [`MAX_WAIT`] passes.
fn wait(port: &LinkConditioner<UdpTransport>, now: Millis, next_timer: Option<Millis>) -> io::Result<()> {
    let due = [next_timer, port.next_release()].into_iter().flatten().min();
    let wait = due.map_or(MAX_WAIT, |d| Duration::from_millis(d.saturating_sub(now)).min(MAX_WAIT));
    if !wait.is_zero() {
        port.inner().wait_readable(wait)?;
    }
    Ok(())
}

/// Runs the check on two real UDP ports on 127.0.0.1 and returns what the client saw.
pub fn run(config: &LinkCheckConfig) -> io::Result<LinkReport> {
    let loopback = NetAddress::localhost(0);
    let server_port = UdpTransport::bind(loopback)?;
    let client_port = UdpTransport::bind(loopback)?;
    let server_addr = server_port.local_addr();
    tracing::info!(server = %server_addr, client = %client_port.local_addr(), "link check ports open");
    let clock = SystemClock::new();
    let stop = Arc::new(AtomicBool::new(false));

    let mut server = LinkConditioner::new(server_port, config.link, config.seed ^ 0x5e5e);
    let server_stop = stop.clone();
    let server_clock = clock;
    let server_thread = std::thread::spawn(move || -> io::Result<ConditionerStats> {
        let mut inbox = Vec::new();
        // Keep echoing until told to stop and every held datagram has left.
        while !server_stop.load(Ordering::Relaxed) || server.queued() > 0 {
            let now = server_clock.now_ms();
            inbox.clear();
            server.recv_batch(now, &mut inbox)?;
            for Datagram { from, data } in inbox.drain(..) {
                // A full send buffer loses the echo, like any other loss.
                let _ = server.send_to(now, from, &data);
            }
            server.poll(now)?;
            wait(&server, server_clock.now_ms(), None)?;
        }
        Ok(server.stats())
    });

    let mut client = LinkConditioner::new(client_port, config.link, config.seed);
    let mut report = LinkReport::default();
    let period = (1000 / config.rate.max(1)).max(1) as Millis;
    let size = config.size.max(16);
    let start = clock.now_ms();
    let send_until = start + (config.seconds * 1000.0) as Millis;
    // After the last probe, wait long enough for any delayed echo to come home.
    let listen_until = send_until + 2 * u64::from(config.link.latency_ms + config.link.jitter_ms) + 500;
    let mut next_send = start;
    let mut seen = HashSet::new();
    let mut highest: Option<u64> = None;
    let mut inbox = Vec::new();
    let mut probe = vec![0u8; size];
    loop {
        let now = clock.now_ms();
        if now >= listen_until {
            break;
        }
        if now >= next_send && now < send_until {
            probe[..8].copy_from_slice(&report.sent.to_le_bytes());
            probe[8..16].copy_from_slice(&now.to_le_bytes());
            if client.send_to(now, server_addr, &probe).is_ok() {
                report.sent += 1;
                report.bytes_sent += size as u64;
            }
            next_send += period;
        }
        inbox.clear();
        client.recv_batch(now, &mut inbox)?;
        for d in &inbox {
            let (Some(seq), Some(sent_at)) = (le_u64(&d.data, 0), le_u64(&d.data, 8)) else {
                tracing::warn!(from = %d.from, len = d.data.len(), "ignoring a datagram that is not a probe");
                continue;
            };
            report.received += 1;
            report.bytes_received += d.data.len() as u64;
            if !seen.insert(seq) {
                report.duplicates += 1;
                continue;
            }
            report.unique += 1;
            report.rtt_ms.push(now.saturating_sub(sent_at));
            match highest {
                Some(h) if seq < h => report.reordered += 1,
                _ => highest = Some(seq),
            }
        }
        client.poll(now)?;
        let timer = (now < send_until).then_some(next_send);
        wait(&client, clock.now_ms(), timer)?;
    }
    stop.store(true, Ordering::Relaxed);
    report.client_link = client.stats();
    report.server_link = server_thread.join().map_err(|_| io::Error::other("server thread panicked"))??;
    Ok(report)
}

fn le_u64(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(data.get(at..at + 8)?.try_into().ok()?))
}
