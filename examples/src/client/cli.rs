//! The `v12` program's client flags: `--headless --screenshot FILE.png [--size WxH]
//! [--play-seconds S] [--bots N]` and `--window` (also the default for a plain `v12` on a
//! desktop: no --dedicated, --connect, --exec or script arguments, and a display).

use crate::client::screenshot::{self, ScreenshotConfig};
use crate::game::host::HostConfig;
use std::path::PathBuf;

/// Client options parsed next to the host's.
#[derive(Debug, Clone, Default)]
pub struct ClientArgs {
    pub headless: bool,
    pub screenshot: Option<PathBuf>,
    pub size: Option<(u32, u32)>,
    pub play_seconds: Option<f64>,
    pub bots: Option<usize>,
    pub window: bool,
}

impl ClientArgs {
    /// A flag this module parses.
    pub fn is_flag(flag: &str) -> bool {
        matches!(flag, "headless" | "window" | "screenshot" | "size" | "play-seconds" | "bots")
    }

    /// Takes the value of a client flag; `false` when `flag` is not one.
    pub fn parse_flag(
        &mut self,
        flag: &str,
        value: &mut dyn FnMut() -> Result<String, String>,
    ) -> Result<bool, String> {
        match flag {
            "headless" => self.headless = true,
            "window" => self.window = true,
            "screenshot" => self.screenshot = Some(PathBuf::from(value()?)),
            "size" => {
                let v = value()?;
                let (w, h) = v.split_once('x').ok_or("--size wants WxH")?;
                let w: u32 = w.parse().map_err(|_| "bad --size width")?;
                let h: u32 = h.parse().map_err(|_| "bad --size height")?;
                if !(16..=4096).contains(&w) || !(16..=4096).contains(&h) {
                    return Err("--size out of range (16..4096)".into());
                }
                self.size = Some((w, h));
            }
            "play-seconds" => self.play_seconds = Some(value()?.parse().map_err(|_| "bad --play-seconds")?),
            "bots" => self.bots = Some(value()?.parse().map_err(|_| "bad --bots")?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Runs the client mode these flags ask for; `None` when the plain host should run.
    pub fn run(&self, host: &HostConfig) -> Option<Result<i32, String>> {
        if self.headless {
            let Some(out) = self.screenshot.clone() else {
                return Some(Err("--headless needs --screenshot FILE.png".into()));
            };
            let (width, height) = self.size.unwrap_or((800, 600));
            let v12 = match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => return Some(Err(e.to_string())),
            };
            let cfg = ScreenshotConfig {
                out,
                width,
                height,
                seconds: self.play_seconds.unwrap_or(3.0),
                bots: self.bots.unwrap_or(2),
                mod_dir: host.mod_dir.clone(),
                v12,
            };
            return Some(
                screenshot::run(&cfg)
                    .map(|r| {
                        // The program's result line, as the host prints its STATUS lines.
                        println!(
                            "SCREENSHOT {} objects={} chat_relayed={}",
                            cfg.out.display(),
                            r.objects,
                            r.chat_relayed
                        );
                        0
                    })
                    .map_err(|e| e.to_string()),
            );
        }
        let plain =
            !host.dedicated && host.connect.is_none() && host.script_args.is_empty() && host.exec.is_empty();
        let display = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
        if self.window || (plain && display) {
            let v12 = match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => return Some(Err(e.to_string())),
            };
            let cfg = crate::client::window::WindowConfig {
                connect: host.connect.clone(),
                mod_dir: host.mod_dir.clone(),
                v12,
                name: "Player".into(),
            };
            return Some(crate::client::window::run(cfg).map_err(|e| e.to_string()));
        }
        None
    }
}
