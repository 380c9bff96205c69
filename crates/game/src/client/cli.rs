//! The `v12` program's client flags: `--headless --screenshot FILE.png [--size WxH]
//! [--play-seconds S] [--bots N]` and `--window` (also the default for a plain `v12` on a
//! desktop: no --dedicated, --connect, --exec or script arguments, and a display).

use crate::host::HostConfig;
use std::path::PathBuf;

/// Client options parsed next to the host's (flattened into `v12`'s command line).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClientArgs {
    /// Run a client without a window (EGL, off-screen) against a listen server with bots and
    /// write one frame to --screenshot.
    #[arg(long, requires = "screenshot")]
    pub headless: bool,
    /// The PNG file a headless client writes.
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
    /// The headless frame's size (16 to 4096 each way; default 800x600).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub size: Option<(u32, u32)>,
    /// Seconds the headless client plays before the frame (default 3).
    #[arg(long, value_name = "S")]
    pub play_seconds: Option<f64>,
    /// Bot clients in the headless run (default 2).
    #[arg(long, value_name = "N")]
    pub bots: Option<usize>,
    /// Open the window client (the default for a plain `v12` on a desktop).
    #[arg(long)]
    pub window: bool,
}

/// `WxH`, each 16 to 4096.
fn parse_size(v: &str) -> Result<(u32, u32), String> {
    let (w, h) = v.split_once('x').ok_or("wants WxH")?;
    let w: u32 = w.parse().map_err(|_| "bad width")?;
    let h: u32 = h.parse().map_err(|_| "bad height")?;
    if !(16..=4096).contains(&w) || !(16..=4096).contains(&h) {
        return Err("out of range (16..4096)".into());
    }
    Ok((w, h))
}

impl ClientArgs {
    /// Runs the client mode these flags ask for; `None` when the plain host should run.
    pub fn run(&self, host: &HostConfig) -> Option<Result<i32, String>> {
        if self.headless {
            return Some(self.headless_screenshot(host));
        }
        let plain =
            !host.dedicated && host.connect.is_none() && host.script_args.is_empty() && host.exec.is_empty();
        let display = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
        if self.window && host.journal.as_ref().is_some_and(crate::journal::SessionJournal::is_playing) {
            return Some(window_replay(host));
        }
        if self.window || (plain && display) {
            return Some(window(host));
        }
        None
    }
}

/// The window client's settings from the host's.
#[cfg(feature = "render")]
fn window_config(host: &HostConfig) -> Result<crate::client::front::WindowConfig, String> {
    Ok(crate::client::front::WindowConfig {
        connect: host.connect.clone(),
        mod_dir: host.mod_dir.clone(),
        mods: host.mods.clone(),
        exec: host.exec.clone(),
        v12: std::env::current_exe().map_err(|e| e.to_string())?,
        name: "Player".into(),
        journal: host.journal.clone(),
        report: host.report,
        audio_capture: host.audio_capture.clone(),
    })
}

/// `--window --journal-play`: the recorded window session, replayed with no window.
#[cfg(feature = "render")]
fn window_replay(host: &HostConfig) -> Result<i32, String> {
    crate::client::front::replay(window_config(host)?).map_err(|e| e.to_string())
}

#[cfg(not(feature = "render"))]
fn window_replay(_host: &HostConfig) -> Result<i32, String> {
    Err("this v12 was built without the render feature: no window session to replay".into())
}

impl ClientArgs {
    /// `--headless --screenshot`: plays against a local match and writes one frame.
    #[cfg(feature = "render")]
    fn headless_screenshot(&self, host: &HostConfig) -> Result<i32, String> {
        use crate::client::screenshot::{self, ScreenshotConfig};
        let out = self.screenshot.clone().ok_or("--headless needs --screenshot FILE.png")?;
        let (width, height) = self.size.unwrap_or((800, 600));
        let v12 = std::env::current_exe().map_err(|e| e.to_string())?;
        let cfg = ScreenshotConfig {
            out,
            width,
            height,
            seconds: self.play_seconds.unwrap_or(3.0),
            bots: self.bots.unwrap_or(2),
            mod_dir: host.mod_dir.clone(),
            v12,
            audio_capture: host.audio_capture.clone(),
        };
        let r = screenshot::run(&cfg).map_err(|e| e.to_string())?;
        // The program's result line, as the host reports its STATUS lines.
        (host.report)(&format!(
            "SCREENSHOT {} objects={} chat_relayed={} sky_visible_distance={}",
            cfg.out.display(),
            r.objects,
            r.chat_relayed,
            r.sky_visible_distance.map_or("none".to_string(), |d| d.to_string())
        ));
        Ok(0)
    }

    #[cfg(not(feature = "render"))]
    fn headless_screenshot(&self, _host: &HostConfig) -> Result<i32, String> {
        Err("this v12 was built without the render feature: no screenshot".into())
    }
}

/// The window client.
#[cfg(feature = "window")]
fn window(host: &HostConfig) -> Result<i32, String> {
    crate::client::window::run(window_config(host)?).map_err(|e| e.to_string())
}

#[cfg(not(feature = "window"))]
fn window(_host: &HostConfig) -> Result<i32, String> {
    Err("this v12 was built without the window feature: use --dedicated or --connect".into())
}
