//! The Agones SDK's local HTTP endpoint, called from a match server run in a Kubernetes
//! fleet: `ready` when it can take players, `health` periodically, `allocate` when a match
//! starts on its own, `shutdown` when the match is over. The SDK sidecar listens on
//! `localhost:${AGONES_SDK_HTTP_PORT}` (9358 by default) and takes `POST /<call>` with a
//! JSON body `{}`.
//!
//! A tiny blocking HTTP/1.1 client over `std::net::TcpStream` with timeouts: these are a
//! few calls a minute to a sidecar on the same pod, so a full HTTP stack is not needed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// The environment variable Agones sets to the SDK's HTTP port.
pub const PORT_ENV: &str = "AGONES_SDK_HTTP_PORT";
/// Default SDK HTTP port.
pub const DEFAULT_PORT: u16 = 9358;

/// A client of the SDK endpoint at one address.
#[derive(Debug, Clone, Copy)]
pub struct AgonesSdk {
    addr: SocketAddr,
    timeout: Duration,
}

impl AgonesSdk {
    pub fn new(addr: SocketAddr) -> Self {
        Self { addr, timeout: Duration::from_secs(2) }
    }

    /// The SDK on localhost at `AGONES_SDK_HTTP_PORT` (or the default port).
    pub fn from_env() -> Self {
        let port = std::env::var(PORT_ENV).ok().and_then(|p| p.parse().ok()).unwrap_or(DEFAULT_PORT);
        Self::new(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `POST /ready`: the server can take players.
    pub fn ready(&self) -> Result<(), String> {
        self.post("ready")
    }
    /// `POST /health`: still alive (call every few seconds).
    pub fn health(&self) -> Result<(), String> {
        self.post("health")
    }
    /// `POST /allocate`: the server allocated itself (a match started without the allocator).
    pub fn allocate(&self) -> Result<(), String> {
        self.post("allocate")
    }
    /// `POST /shutdown`: the match is over; Agones removes the pod.
    pub fn shutdown(&self) -> Result<(), String> {
        self.post("shutdown")
    }

    fn post(&self, call: &str) -> Result<(), String> {
        let err = |e: std::io::Error| format!("agones {call} at {}: {e}", self.addr);
        let mut s = TcpStream::connect_timeout(&self.addr, self.timeout).map_err(err)?;
        s.set_read_timeout(Some(self.timeout)).map_err(err)?;
        s.set_write_timeout(Some(self.timeout)).map_err(err)?;
        let body = "{}";
        let req = format!(
            "POST /{call} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        s.write_all(req.as_bytes()).map_err(err)?;
        // The status line is all we need; read at most 4 KiB of the answer.
        let mut head = Vec::new();
        s.take(4096).read_to_end(&mut head).map_err(err)?;
        let text = String::from_utf8_lossy(&head);
        let status = text.lines().next().unwrap_or("").to_string();
        let code = status.split_whitespace().nth(1).and_then(|c| c.parse::<u16>().ok());
        match code {
            Some(200..=299) => Ok(()),
            _ => Err(format!("agones {call} at {}: answered {status:?}", self.addr)),
        }
    }
}

/// A call the game loop asks of the SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Ready,
    Allocate,
    Shutdown,
}

/// Makes the SDK calls on a thread of its own, so the game loop never blocks on HTTP, and
/// sends `health` every `health_every` until shut down. Failures are logged, not fatal:
/// a server outside Kubernetes simply has no sidecar.
#[derive(Debug)]
pub struct AgonesWorker {
    tx: Option<std::sync::mpsc::Sender<Call>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AgonesWorker {
    pub fn spawn(sdk: AgonesSdk, health_every: Duration) -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Call>();
        let thread = std::thread::Builder::new()
            .name("agones-sdk".into())
            .spawn(move || {
                use std::sync::mpsc::RecvTimeoutError;
                loop {
                    let (name, result) = match rx.recv_timeout(health_every) {
                        Ok(Call::Ready) => ("ready", sdk.ready()),
                        Ok(Call::Allocate) => ("allocate", sdk.allocate()),
                        Ok(Call::Shutdown) => {
                            if let Err(e) = sdk.shutdown() {
                                tracing::warn!(error = %e, "agones: shutdown call failed");
                            }
                            return;
                        }
                        Err(RecvTimeoutError::Timeout) => ("health", sdk.health()),
                        Err(RecvTimeoutError::Disconnected) => return,
                    };
                    match result {
                        Ok(()) => tracing::debug!(call = name, "agones: ok"),
                        Err(e) => tracing::warn!(error = %e, "agones: call failed"),
                    }
                }
            })
            .ok();
        Self { tx: Some(tx), thread }
    }

    /// Queues a call (never blocks).
    pub fn call(&self, c: Call) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(c);
        }
    }

    /// Sends `shutdown` and waits for the worker to finish it.
    pub fn shutdown(mut self) {
        self.call(Call::Shutdown);
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
