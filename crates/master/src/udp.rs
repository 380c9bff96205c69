//! A blocking UDP driver for the [`MasterServer`] core: receive, hand over, send what it
//! queued, run its timer; until `stop` is set.

use crate::server::MasterServer;
use crate::store::ServerStore;
use std::io::ErrorKind;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tracing::warn;

/// Serves `master` on `socket` until `stop` is set. Time is milliseconds since the call.
pub fn serve<S: ServerStore>(
    socket: &UdpSocket,
    master: &mut MasterServer<S>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    socket.set_read_timeout(Some(Duration::from_millis(50)))?;
    let start = Instant::now();
    let mut buf = [0u8; 2048];
    while !stop.load(Ordering::Relaxed) {
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                let now = start.elapsed().as_millis() as u64;
                master.handle_datagram(now, from, &buf[..n]);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            // ICMP "port unreachable" from an earlier send surfaces here on some systems.
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
            Err(e) => return Err(e),
        }
        while let Some((to, data)) = master.poll_transmit() {
            if let Err(e) = socket.send_to(&data, to) {
                warn!(%to, error = %e, "master: send failed");
            }
        }
        let now = start.elapsed().as_millis() as u64;
        if now >= master.poll_timeout() {
            master.handle_timeout(now);
        }
    }
    Ok(())
}
