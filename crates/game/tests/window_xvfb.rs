//! The window client end to end on a virtual X display (Xvfb), driven as a player drives it
//! (xdotool): the main menu opens, a click on Join enters the match, a held W runs the
//! player forward, and the HUD and the 3D view draw. What the screen shows is read back from
//! Xvfb's framebuffer file (`-fbdir`, XWD format) and checked pixel by pixel.
//!
//! Needs `Xvfb` and `xdotool` (Debian: `apt-get install xvfb xdotool`); without them the test
//! says so and passes. Every wait below is a guard against a hang with a generous limit, not
//! a timing the test depends on.

#[path = "common/procs.rs"]
mod procs;

use procs::{V12, collect, listening, start};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A program on the PATH (`which`, without the `which` crate).
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Kills a child when dropped (a failing assert must not leave an X server behind).
struct Reap(Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The screen as Xvfb keeps it: an XWD file (a big-endian header, a colour map, then the
/// pixels; 24-bit depth in 32-bit pixels, in the byte order the header names).
struct Screen {
    width: usize,
    height: usize,
    pixels: Vec<[u8; 3]>,
}

impl Screen {
    fn read(file: &Path) -> Screen {
        let bytes = std::fs::read(file).expect("Xvfb's framebuffer file");
        let word = |i: usize| u32::from_be_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap()) as usize;
        let (header, width, height) = (word(0), word(4), word(5));
        let (byte_order, bits_per_pixel, bytes_per_line, ncolors) = (word(7), word(11), word(12), word(19));
        assert_eq!(bits_per_pixel, 32, "Xvfb started with -screen 0 WxHx24");
        let start = header + ncolors * 12;
        let mut pixels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let at = start + y * bytes_per_line + x * 4;
                let p: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
                let v = if byte_order == 0 { u32::from_le_bytes(p) } else { u32::from_be_bytes(p) };
                pixels.push([(v >> 16) as u8, (v >> 8) as u8, v as u8]);
            }
        }
        Screen { width, height, pixels }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.width + x]
    }

    /// The distinct colours in a rectangle (a flat fill has one; a drawn scene many).
    fn colours(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> usize {
        let mut seen = std::collections::HashSet::new();
        for y in y0..y1.min(self.height) {
            for x in x0..x1.min(self.width) {
                seen.insert(self.at(x, y));
            }
        }
        seen.len()
    }

    /// How many pixels of a rectangle are within 24 of `rgb` in each channel.
    fn count_near(&self, (x0, y0, x1, y1): (usize, usize, usize, usize), rgb: [u8; 3]) -> usize {
        let mut n = 0;
        for y in y0..y1.min(self.height) {
            for x in x0..x1.min(self.width) {
                let p = self.at(x, y);
                if (0..3).all(|i| p[i].abs_diff(rgb[i]) <= 24) {
                    n += 1;
                }
            }
        }
        n
    }
}

/// Starts Xvfb on a free display with one screen of `screen` (e.g. "800x600x24"), its frame
/// buffer written into `fbdir` when given: the server (killed when dropped) and its display.
fn start_xvfb(screen: &str, fbdir: Option<&Path>) -> (Reap, String) {
    let mut cmd = Command::new("Xvfb");
    // Xvfb picks a free display and writes its number to stdout (-displayfd 1).
    cmd.args(["-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp"]);
    if let Some(dir) = fbdir {
        cmd.arg("-fbdir").arg(dir);
    }
    let mut xvfb = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("Xvfb starts");
    let mut number = String::new();
    BufReader::new(xvfb.stdout.take().unwrap()).read_line(&mut number).expect("Xvfb's display number");
    (Reap(xvfb), format!(":{}", number.trim()))
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool").args(args).env("DISPLAY", display).output().expect("xdotool runs");
    assert!(out.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

std::thread_local! {
    /// The window client's log (its stderr), for a failure's message: one per test (the
    /// tests run side by side, each on its own thread, display and client).
    static CLIENT_LOG: std::cell::RefCell<Option<std::path::PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// A log file for this test's window client, named for failure messages.
fn client_log(dir: &Path) -> std::fs::File {
    let path = dir.join("client.log");
    CLIENT_LOG.with(|l| *l.borrow_mut() = Some(path.clone()));
    std::fs::File::create(path).expect("a log file")
}

/// Polls `check` every 100 ms until it holds (a hang guard fails the test after `limit`).
fn until<T>(what: &str, limit: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = check() {
            return v;
        }
        if Instant::now() > end {
            let log = CLIENT_LOG
                .with(|l| l.borrow().as_ref().and_then(|p| std::fs::read_to_string(p).ok()))
                .unwrap_or_default();
            panic!("gave up waiting: {what}\nthe window client's log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The player's position from the server probe's latest `PROBE x y z` line.
fn latest_position(rx: &mpsc::Receiver<String>, last: &mut Option<[f64; 3]>, log: &mut Vec<String>) {
    while let Ok(line) = rx.try_recv() {
        if let Some(rest) = line.strip_prefix("PROBE ") {
            let v: Vec<f64> = rest.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            if v.len() == 3 {
                *last = Some([v[0], v[1], v[2]]);
            }
        }
        log.push(line);
    }
}

#[test]
fn the_window_client_plays_on_a_virtual_display() {
    if !on_path("Xvfb") || !on_path("xdotool") {
        eprintln!("skipped: Xvfb and xdotool are not installed (apt-get install xvfb xdotool)");
        return;
    }
    let dir = procs::Scratch::new("xvfb");
    let (xvfb, display) = start_xvfb("800x600x24", Some(&*dir));
    let fb = dir.join("Xvfb_screen0");

    // The server reports its one client's player position four times a second (a probe
    // script in a mod folder over the game's).
    let probe = dir.join("probe.cs");
    std::fs::write(
        &probe,
        "function probe()\n{\n   for (%i = 0; %i < ClientGroup.getCount(); %i++)\n   {\n      \
         %c = ClientGroup.getObject(%i);\n      if (isObject(%c.player))\n         \
         echo(\"PROBE \" @ %c.player.getPosition());\n   }\n   schedule(250, 0, probe);\n}\nprobe();\n",
    )
    .unwrap();
    let (server, server_rx) = start(&[
        "--dedicated",
        "--add-mod",
        dir.to_str().unwrap(),
        "--exec",
        "probe.cs",
        "--",
        "-port",
        "0",
        "-seconds",
        "120",
    ]);
    let server = Reap(server);
    let addr = listening(&server_rx);

    let client = Command::new(V12)
        .arg("--mod")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"))
        .args(["--window", "--connect", &addr])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(client_log(&dir))
        .spawn()
        .expect("the window client starts");
    let client = Reap(client);

    // The main menu: the window opens (no window manager here: it sits at 0,0) and draws the
    // menu's dark blue back and its Join button.
    let window = until("the V12 window", Duration::from_secs(120), || {
        let out = Command::new("xdotool")
            .args(["search", "--name", "^V12$"])
            .env("DISPLAY", &display)
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).lines().next().map(str::to_string)
    });
    xdotool(&display, &["windowmove", &window, "0", "0"]);
    xdotool(&display, &["windowsize", &window, "800", "600"]);
    let join = (320, 260, 480, 296);
    until("the main menu drawn", Duration::from_secs(120), || {
        let s = Screen::read(&fb);
        let back = s.count_near((0, 0, 800, 100), [20, 28, 44]);
        let button = s.count_near(join, [50, 70, 110]) + s.count_near(join, [80, 110, 170]);
        (back > 40_000 && button > 2_000).then_some(())
    });

    // A click on Join enters the match: the server sees the player.
    xdotool(&display, &["mousemove", "--window", &window, "400", "278"]);
    xdotool(&display, &["click", "1"]);
    let mut log = Vec::new();
    let mut pos = None;
    let start_pos = until("the player in the match", Duration::from_secs(120), || {
        latest_position(&server_rx, &mut pos, &mut log);
        pos
    });

    // The HUD and the 3D view draw: the stats panel's health bar in its green, the score in
    // its yellow, and the view below them a scene of many colours, not a flat fill.
    until("the HUD and the 3D view", Duration::from_secs(120), || {
        let s = Screen::read(&fb);
        let health = s.count_near((74, 46, 164, 60), [60, 200, 80]);
        let score_text = s.count_near((16, 12, 200, 38), [255, 230, 120]);
        let scene = s.colours(0, 150, 800, 600);
        (health > 100 && score_text > 20 && scene > 200).then_some(())
    });

    // A held W runs the player forward.
    xdotool(&display, &["windowfocus", "--sync", &window]);
    xdotool(&display, &["keydown", "w"]);
    let moved = until("the player running", Duration::from_secs(60), || {
        latest_position(&server_rx, &mut pos, &mut log);
        let p = pos?;
        let d = ((p[0] - start_pos[0]).powi(2) + (p[1] - start_pos[1]).powi(2)).sqrt();
        (d > 5.0).then_some(d)
    });
    xdotool(&display, &["keyup", "w"]);
    assert!(moved > 5.0, "{log:?}");

    drop(client);
    let mut server = server;
    let _ = server.0.kill();
    let _ = collect(&mut server.0, &server_rx, Duration::from_secs(10));
    drop(server);
    drop(xvfb);
    let err = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    assert!(!err.contains("panicked"), "{err}");
}

/// A window's size and place as the X server has them (`xdotool getwindowgeometry`).
fn geometry(display: &str, window: &str) -> Option<(i64, i64, u32, u32)> {
    let out = xdotool(display, &["getwindowgeometry", "--shell", window]);
    let get = |k: &str| out.lines().find_map(|l| l.strip_prefix(k)?.strip_prefix('=')?.parse::<i64>().ok());
    Some((get("X")?, get("Y")?, u32::try_from(get("WIDTH")?).ok()?, u32::try_from(get("HEIGHT")?).ok()?))
}

/// The window's `_NET_WM_STATE` as the window manager set it (`xprop`).
fn wm_state(display: &str, window: &str) -> String {
    Command::new("xprop")
        .args(["-id", window, "_NET_WM_STATE"])
        .env("DISPLAY", display)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// The width and height of a PNG file (its IHDR), once it is written whole.
fn png_size(file: &Path) -> Option<(u32, u32)> {
    let img = v12_render_gl::Image::load_png(file).ok()?;
    Some((img.width(), img.height()))
}

/// Alt+Enter in a real window under a window manager (openbox, which does what V12 asks
/// through `_NET_WM_STATE_FULLSCREEN`): the window fills the screen, and a second Alt+Enter
/// brings it back to its size and place. `screenShot(file)`, bound by a mod to Ctrl+P (the
/// window client runs `--add-mod` and `--exec` as the dedicated server does), writes a PNG the
/// size of the window in each state, inside the mod folder.
#[test]
fn alt_enter_toggles_full_screen_and_back() {
    if !on_path("Xvfb") || !on_path("xdotool") || !on_path("openbox") {
        eprintln!(
            "skipped: Xvfb, xdotool and openbox are not all installed (apt-get install xvfb xdotool openbox)"
        );
        return;
    }
    let dir = procs::Scratch::new("xvfb-fullscreen");
    let (xvfb, display) = start_xvfb("1024x768x24", None);
    let wm = Command::new("openbox")
        .arg("--sm-disable")
        .env("DISPLAY", &display)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("openbox starts");
    let wm = Reap(wm);
    // The window manager owns the screen before the client starts, as on a desktop: a window
    // mapped while openbox is still starting up can be lost by it (left unmapped, a bare child
    // of the root, never shown: 4 starts in 18 here, racing). Openbox has taken
    // the screen once it publishes the EWMH root properties (_NET_NUMBER_OF_DESKTOPS).
    until("openbox managing the screen", Duration::from_secs(60), || {
        let out = Command::new("xdotool").arg("get_num_desktops").env("DISPLAY", &display).output().ok()?;
        (out.status.success()
            && String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().is_ok_and(|n| n > 0))
        .then_some(())
    });

    // The mod over the game: its folder is where screenShot writes (the --mod folder); the
    // game's scripts come from the mod over it.
    std::fs::write(
        dir.join("shot.cs"),
        "$shots = 0;\nfunction takeShot(%down)\n{\n   if (%down)\n   {\n      \
         screenShot(\"shot\" @ $shots @ \".png\");\n      $shots++;\n   }\n}\n\
         GlobalActionMap.bind(keyboard, \"ctrl p\", takeShot);\n",
    )
    .unwrap();
    let mut client = Command::new(V12)
        .arg("--mod")
        .arg(&*dir)
        .arg("--add-mod")
        .arg(procs::GAME)
        .args(["--exec", "shot.cs", "--window"])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(client_log(&dir))
        .spawn()
        .expect("the window client starts");
    let out = client.stdout.take().unwrap();
    let client = Reap(client);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    let window = until("the V12 window", Duration::from_secs(120), || {
        let out = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", "^V12$"])
            .env("DISPLAY", &display)
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).lines().next().map(str::to_string)
    });
    // The window manager has taken the window when it has placed it off the screen's corner.
    let windowed = until("the window placed by the window manager", Duration::from_secs(60), || {
        geometry(&display, &window).filter(|g| (g.0, g.1) != (0, 0) && (g.2, g.3) != (1024, 768))
    });
    xdotool(&display, &["windowactivate", "--sync", &window]);

    let mut seen = Vec::new();
    let mut shot = |n: u32| -> (u32, u32) {
        xdotool(&display, &["key", "ctrl+p"]);
        let file = dir.join(format!("shot{n}.png"));
        until(&format!("screenShot writing {}", file.display()), Duration::from_secs(60), || {
            while let Ok(l) = rx.try_recv() {
                seen.push(l);
            }
            let said =
                seen.iter().any(|l| l.contains("screenShot: wrote") && l.contains(&format!("shot{n}.png")));
            said.then(|| png_size(&file)).flatten()
        })
    };
    assert_eq!(shot(0), (windowed.2, windowed.3), "a windowed shot is the window's size");

    xdotool(&display, &["key", "alt+Return"]);
    until("the window full screen", Duration::from_secs(60), || {
        (geometry(&display, &window)? == (0, 0, 1024, 768)).then_some(())
    });
    if on_path("xprop") {
        assert!(wm_state(&display, &window).contains("_NET_WM_STATE_FULLSCREEN"));
    }
    assert_eq!(shot(1), (1024, 768), "a full-screen shot is the screen's size");

    xdotool(&display, &["key", "alt+Return"]);
    until("the window back to its size and place", Duration::from_secs(60), || {
        (geometry(&display, &window)? == windowed).then_some(())
    });
    if on_path("xprop") {
        assert!(!wm_state(&display, &window).contains("_NET_WM_STATE_FULLSCREEN"));
    }
    assert_eq!(shot(2), (windowed.2, windowed.3), "windowed again, the shot is the window's size again");

    drop(client);
    drop(wm);
    drop(xvfb);
    let err = std::fs::read_to_string(dir.join("client.log")).unwrap_or_default();
    assert!(!err.contains("panicked"), "{err}");
}
