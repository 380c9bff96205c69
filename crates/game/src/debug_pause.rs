//! The engine at a script breakpoint (`dbgSetParameters`): while a script is stopped in the
//! debugger the program is inside the interpreter, so the host's loop cannot run. The
//! console calls the idle hook installed here every few milliseconds; it sends keep-alive
//! pings on every live connection (`NetDriver::keep_alive`) so no peer times this program
//! out. When the script resumes, [`DebugPause::resumed`] says how long it was stopped, and
//! the host skips that time instead of catching up on it tick by tick.

use crate::SharedDriver;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Instant;
use v12_console_vm::Console;

/// Drivers the hook keeps alive (weak: a server or client that goes, goes).
type Watched = Rc<RefCell<Vec<Weak<RefCell<v12_services::driver::NetDriver<crate::Port>>>>>>;

/// The drivers to keep alive and the host clock's last reading.
pub(crate) struct DebugPause {
    drivers: Watched,
    /// The host clock at the start of the frame, and when that was: the hook's `now`.
    frame: Rc<Cell<(u64, Instant)>>,
    paused_seen: u64,
}

impl DebugPause {
    /// Installs the idle hook in `con`.
    pub(crate) fn install(con: &mut Console, now: u64) -> Self {
        let drivers: Watched = Rc::default();
        let frame = Rc::new(Cell::new((now, Instant::now())));
        let (d, f) = (drivers.clone(), frame.clone());
        let mut warned = false;
        con.set_debugger_idle(Box::new(move || {
            let (at, since) = f.get();
            let now = at + since.elapsed().as_millis() as u64;
            d.borrow_mut().retain(|w| w.strong_count() > 0);
            for w in d.borrow().iter() {
                let Some(driver) = w.upgrade() else { continue };
                match driver.try_borrow_mut() {
                    Ok(mut driver) => {
                        if let Err(e) = driver.keep_alive(now) {
                            tracing::warn!(error = %e, "keep-alive at a breakpoint failed");
                        }
                    }
                    // Stopped inside a call that holds the driver (a connect callback):
                    // this stop cannot ping; a long one may cost the connection.
                    Err(_) if !warned => {
                        warned = true;
                        tracing::warn!(
                            "script stopped while the network was busy: no keep-alive for this stop"
                        );
                    }
                    Err(_) => {}
                }
            }
        }));
        DebugPause { drivers, frame, paused_seen: 0 }
    }

    /// Keeps `driver`'s connections alive at breakpoints.
    pub(crate) fn watch(&self, driver: &SharedDriver) {
        self.drivers.borrow_mut().push(Rc::downgrade(driver));
    }

    /// The frame starts at host time `now`. Returns the milliseconds scripts spent stopped
    /// in the debugger since the last frame (0 almost always).
    pub(crate) fn frame(&mut self, con: &Console, now: u64) -> u64 {
        self.frame.set((now, Instant::now()));
        let paused = con.debugger_paused_ms();
        let skipped = paused.saturating_sub(self.paused_seen);
        self.paused_seen = paused;
        if skipped > 0 {
            tracing::info!(
                skipped_ms = skipped,
                "resumed from the script debugger; the game skips the time stopped"
            );
        }
        skipped
    }
}
