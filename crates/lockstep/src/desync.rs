//! Desync reports a person can read (relayed lockstep and Robo Cat RTS: "a logging system …
//! commands executed by each peer"): when checksums differ, the frame, who diverged, every
//! checksum, the commands of the frames before it and the state dumps, as text.
//!
//! The format (version 1), one report per file, UTF-8, `#` lines are headings:
//!
//! ```text
//! # V12 lockstep desync report 1
//! mode: p2p                      (or relay)
//! frame: 57                      (the p2p turn or relay NWF whose end state differed)
//! gf: 171                        (the game frame that state was taken at)
//! reporter: 2                    (who wrote this; relay: the server, 0)
//! diverging: 4                   (the players outside the majority, space-separated)
//! checksum: 1 0x1a2b3c4d         (one line per player)
//! # commands, oldest first
//! frame 50 gf 150 delay 3: player 1: [Move { .. }] | player 2: []
//! # state of player 2 (812 bytes)
//! 0000: 00 01 02 ...             (32 bytes a line, hex)
//! ```

use crate::game::{LockstepGame, PlayerId, decode_batch};
use crate::relay_server::AsyncLog;
use crate::replay::ReplayFrame;
use std::fmt::Write as _;

/// The format version written in the first line.
pub const REPORT_VERSION: u32 = 1;
/// Frames of commands a report carries (the ring a peer keeps).
pub const REPORT_FRAMES: usize = 32;

/// The commands that ran in one frame, decoded for reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// p2p turn or relay NWF.
    pub frame: i64,
    pub gf: u32,
    /// The p2p turn delay in force (0: relay).
    pub turn_delay: u8,
    /// (player, the commands as `Debug` text; undecodable batches say so).
    pub batches: Vec<(PlayerId, String)>,
}

impl CommandLine {
    /// Decodes one recorded frame of game `G`.
    pub fn from_frame<G: LockstepGame>(frame: i64, f: &ReplayFrame) -> Self {
        let batches = f
            .batches
            .iter()
            .map(|(p, b)| {
                let text = match decode_batch::<G>(b) {
                    Ok(cmds) => format!("{cmds:?}"),
                    Err(e) => format!("<undecodable batch of {} bytes: {e}>", b.len()),
                };
                (*p, text)
            })
            .collect();
        Self { frame, gf: f.gf, turn_delay: f.turn_delay, batches }
    }
}

/// One desync, as written to a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DesyncReport {
    /// `p2p` or `relay`.
    pub mode: String,
    pub frame: i64,
    pub gf: u32,
    /// The player who wrote it (0: the relay server).
    pub reporter: PlayerId,
    pub diverging: Vec<PlayerId>,
    pub checksums: Vec<(PlayerId, u32)>,
    pub commands: Vec<CommandLine>,
    /// (player, saved state at the frame).
    pub dumps: Vec<(PlayerId, Vec<u8>)>,
}

impl DesyncReport {
    /// The relay server's record of an async (every player's checksum and state dump at
    /// the NWF) with the commands of the [`REPORT_FRAMES`] NWFs up to it, from a client's
    /// replay frames (frame `i` is NWF `i`).
    pub fn from_async_log<G: LockstepGame>(log: &AsyncLog, frames: &[ReplayFrame]) -> Self {
        let nwf = log.nwf as usize;
        let upto = (nwf + 1).min(frames.len());
        let from = upto.saturating_sub(REPORT_FRAMES);
        Self {
            mode: "relay".into(),
            frame: i64::from(log.nwf),
            gf: frames.get(nwf).map_or(0, |f| f.gf),
            reporter: 0,
            diverging: log.diverging.clone(),
            checksums: log.checksums.iter().map(|(p, c)| (*p, *c)).collect(),
            commands: (from..upto).map(|i| CommandLine::from_frame::<G>(i as i64, &frames[i])).collect(),
            dumps: log.dumps.iter().map(|(p, d)| (*p, d.clone())).collect(),
        }
    }

    /// A file name that says what it holds: `desync-<mode>-frame<F>-by<P>.txt`.
    pub fn file_name(&self) -> String {
        format!("desync-{}-frame{}-by{}.txt", self.mode, self.frame, self.reporter)
    }

    /// The report as text (the module's format).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let ids = |v: &[PlayerId]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ");
        let _ = writeln!(s, "# V12 lockstep desync report {REPORT_VERSION}");
        let _ = writeln!(s, "mode: {}", self.mode);
        let _ = writeln!(s, "frame: {}", self.frame);
        let _ = writeln!(s, "gf: {}", self.gf);
        let _ = writeln!(s, "reporter: {}", self.reporter);
        let _ = writeln!(s, "diverging: {}", ids(&self.diverging));
        for (p, c) in &self.checksums {
            let _ = writeln!(s, "checksum: {p} {c:#010x}");
        }
        let _ = writeln!(s, "# commands, oldest first");
        for l in &self.commands {
            let _ = write!(s, "frame {} gf {} delay {}:", l.frame, l.gf, l.turn_delay);
            if l.batches.is_empty() {
                s.push_str(" (none)");
            }
            for (i, (p, text)) in l.batches.iter().enumerate() {
                let _ = write!(s, "{} player {p}: {text}", if i == 0 { "" } else { " |" });
            }
            s.push('\n');
        }
        for (p, bytes) in &self.dumps {
            let _ = writeln!(s, "# state of player {p} ({} bytes)", bytes.len());
            for (i, chunk) in bytes.chunks(32).enumerate() {
                let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
                let _ = writeln!(s, "{:04x}: {}", i * 32, hex.join(" "));
            }
        }
        s
    }

    /// Writes the report into `dir` (created if missing); the path written.
    pub fn write_to(&self, dir: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(self.file_name());
        std::fs::write(&path, self.to_text())?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode_batch;
    use crate::toy::{ToyCommand, ToyGame};

    #[test]
    fn the_text_names_the_frame_the_players_the_commands_and_the_state() {
        let batch = encode_batch::<ToyGame>(&[ToyCommand { token: 3, x: 4, y: -5 }]);
        let frame = ReplayFrame {
            gf: 30,
            batches: vec![(1, batch), (2, vec![0xFF, 0xFF])],
            checksum: 7,
            turn_delay: 3,
        };
        let r = DesyncReport {
            mode: "p2p".into(),
            frame: 11,
            gf: 33,
            reporter: 2,
            diverging: vec![4],
            checksums: vec![(1, 0xAB), (4, 0xCD)],
            commands: vec![CommandLine::from_frame::<ToyGame>(10, &frame)],
            dumps: vec![(2, (0..40).collect())],
        };
        let t = r.to_text();
        assert!(
            t.starts_with(
                "# V12 lockstep desync report 1\nmode: p2p\nframe: 11\ngf: 33\nreporter: 2\ndiverging: 4\n"
            ),
            "{t}"
        );
        assert!(t.contains("checksum: 4 0x000000cd"), "{t}");
        assert!(t.contains("frame 10 gf 30 delay 3: player 1: [ToyCommand { token: 3, x: 4, y: -5 }] | player 2: <undecodable"), "{t}");
        assert!(t.contains("# state of player 2 (40 bytes)\n0000: 00 01 02"), "{t}");
        assert!(t.contains("\n0020: 20 21"), "{t}");
        assert_eq!(r.file_name(), "desync-p2p-frame11-by2.txt");
    }
}
