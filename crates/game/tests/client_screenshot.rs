//! `v12 --headless --screenshot`: a real short match (server and two bots as processes on
//! loopback) and one frame of the game with its HUD written as a PNG of the asked size.

use std::process::Command;
use v12_render_gl::Image;

#[test]
fn headless_screenshot_writes_a_game_frame() {
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("client_screenshot.png");
    let _ = std::fs::remove_file(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_v12"))
        .args(["--headless", "--screenshot"])
        .arg(&out)
        .args(["--size", "640x480", "--play-seconds", "2"])
        .output()
        .expect("run v12");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "v12 --headless --screenshot failed: {}", run.status);
    // The chat line went out with commandToServer and came back relayed (serverCmdChatMessage).
    assert!(stdout.contains("chat_relayed=true"), "{stdout}");
    // The mission's Sky reached the client (arena.mis: visibleDistance = 500).
    assert!(stdout.contains("sky_visible_distance=500"), "{stdout}");
    let img = Image::load_png(&out).expect("a PNG was written");
    assert_eq!((img.width(), img.height()), (640, 480));
    // Non-trivial: many distinct colours (sky, ground, grid, HUD panels, text, objects).
    let mut colours = std::collections::BTreeSet::new();
    for y in (0..480).step_by(3) {
        for x in (0..640).step_by(3) {
            colours.insert(img.get(x, y).unwrap());
        }
    }
    assert!(colours.len() > 50, "only {} colours", colours.len());
    // The HUD's emblem, a PNG named without its extension and read through the resource
    // manager: gold at its centre.
    let emblem = img.get(24, 114).unwrap();
    assert_eq!(emblem, [230, 180, 40, 255], "the emblem bitmap is drawn");
    // The view holds the mission's water (`client::screenshot::framing`: the vehicles, the
    // building and the pond, seen from above): the pond's blue is in the frame, below the
    // HUD's bars and above its chat box (a player in blue is far smaller).
    let blue = (100..370)
        .step_by(2)
        .flat_map(|y| (0..640).step_by(2).map(move |x| (x, y)))
        .filter(|&(x, y)| img.get(x, y).is_some_and(|c| c[2] > c[0].saturating_add(30) && c[2] > c[1]))
        .count();
    assert!(blue > 1000, "the pond: {blue} blue pixels");
}

#[test]
fn headless_without_screenshot_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_v12")).arg("--headless").output().expect("run v12");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--screenshot"));
}
