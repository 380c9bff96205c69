//! What every real-UDP example loop shares: the port type, how a loop sleeps without spinning,
//! and the server key material (the engine layer's [`entropy`]).

use std::io;
use std::time::Duration;

use v12_platform::{Clock, LinkConditioner, SystemClock, UdpTransport};
use v12_services::NetDriver;

/// A real UDP port behind the link conditioner.
pub type Port = LinkConditioner<UdpTransport>;

/// Longest sleep in a loop, so timers fire on time.
pub const MAX_WAIT: Duration = Duration::from_millis(4);

/// Sleeps until a datagram arrives or the driver's next timer is due (at most [`MAX_WAIT`]).
pub fn wait(driver: &NetDriver<Port>, clock: &SystemClock) -> io::Result<()> {
    let now = clock.now_ms();
    let wait = driver
        .next_wakeup(now)
        .map_or(MAX_WAIT, |t| Duration::from_millis(t.saturating_sub(now)).min(MAX_WAIT));
    if !wait.is_zero() {
        driver.transport.inner().wait_readable(wait)?;
    }
    Ok(())
}

pub use v12_game::entropy;
