//! `v12 --headless --screenshot FILE.png`: a short match (a dedicated `v12` server and two
//! bot clients as child processes, as the match demo runs them) joined by this process's
//! client, which plays a few seconds, renders one frame of the game view with its HUD
//! headless and writes it as a PNG.

use crate::client::frame::HeadlessFrame;
use crate::client::session::{ClientSession, ConnectOptions};
use crate::client::ui::ClientUi;
use glam::Vec3;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use v12_console_vm::Console;
use v12_render_gl::DrawList;
use v12_resource::ResourceManager;
use v12_sim::moves::Move;
use v12_sim::remote_command::RemoteCommands;

/// What the screenshot run does.
#[derive(Debug, Clone)]
pub struct ScreenshotConfig {
    pub out: PathBuf,
    pub width: u32,
    pub height: u32,
    /// Seconds of play before the frame is taken.
    pub seconds: f64,
    pub bots: usize,
    pub mod_dir: PathBuf,
    /// The `v12` binary for the server and bots (usually the current executable).
    pub v12: PathBuf,
    /// `--audio-capture FILE.wav`: the client's sound into a WAV file (else the sound card).
    pub audio_capture: Option<PathBuf>,
}

/// A local match for the client to join: a dedicated `v12` server and bot clients as child
/// processes (killed when this is dropped).
#[derive(Debug)]
pub struct LocalMatch {
    pub addr: String,
    children: Vec<Child>,
}

impl Drop for LocalMatch {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Only the server's output is read (for its address); the bots' goes nowhere.
fn spawn(v12: &Path, (mod_dir, mods): (&Path, &[PathBuf]), args: &[&str], piped: bool) -> io::Result<Child> {
    Command::new(v12)
        .arg("--mod")
        .arg(mod_dir)
        .args(mods.iter().flat_map(|m| [std::ffi::OsStr::new("--add-mod"), m.as_os_str()]))
        .args(args)
        .stdin(Stdio::null())
        .stdout(if piped { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::null())
        .spawn()
}

impl LocalMatch {
    /// Starts the server on a free port, waits for its address, then starts the bots; each
    /// runs `mod_dir` with `mods` over it (`--add-mod`).
    pub fn start(
        v12: &Path,
        (mod_dir, mods): (&Path, &[PathBuf]),
        bots: usize,
        seconds: u64,
    ) -> io::Result<Self> {
        let (tx, rx) = mpsc::channel::<String>();
        let secs = seconds.to_string();
        let mut m = LocalMatch {
            addr: String::new(),
            children: vec![spawn(
                v12,
                (mod_dir, mods),
                &["--dedicated", "--", "-port", "0", "-seconds", &secs],
                true,
            )?],
        };
        let out = m.children[0].stdout.take().ok_or_else(|| io::Error::other("no server stdout"))?;
        std::thread::spawn(move || {
            // Keep draining the server's stdout for its whole life: if this end of the pipe
            // closed, the server's next status line would fail and take the server down.
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        m.addr = loop {
            let line = rx
                .recv_timeout(Duration::from_secs(10))
                .map_err(|_| io::Error::other("server did not start"))?;
            if let Some(a) = line.strip_prefix("LISTENING ") {
                break a.trim().to_string();
            }
        };
        for i in 0..bots {
            let name = format!("Bot{}", i + 1);
            m.children.push(spawn(
                v12,
                (mod_dir, mods),
                &["--connect", &m.addr, "--", "-bot", "-name", &name],
                false,
            )?);
        }
        Ok(m)
    }
}

/// Console of a client: the mod's `main.cs` (client scripts) with the remote commands, and
/// the resource manager it reads through (for the renderer's textures).
pub fn client_console(
    mod_dir: &Path,
    name: &str,
) -> io::Result<(Console, RemoteCommands, Rc<ResourceManager>)> {
    client_console_with_mods(mod_dir, &[], name)
}

/// [`client_console`] with `mods` over `mod_dir` (`--add-mod`: their scripts and files win).
pub fn client_console_with_mods(
    mod_dir: &Path,
    mods: &[PathBuf],
    name: &str,
) -> io::Result<(Console, RemoteCommands, Rc<ResourceManager>)> {
    let mut con = Console::new();
    con.set_file_root(mod_dir);
    let resources = crate::mod_files::install(&mut con, mod_dir, mods)?;
    let remote = RemoteCommands::register(&mut con);
    // The engine's classes, so the ghosts are console objects too (a client runs no server).
    crate::objects::register(&mut con, &Rc::default());
    // The container functions, answered by the session's container of its ghosts.
    v12_sim::container::register_container_functions(&mut con, Rc::default());
    v12_sim::container::prefer_client_container(&con, true);
    crate::audio::install(&mut con, &resources);
    crate::input_devices::install(&mut con);
    con.set_global("Game::argc", 0);
    con.set_global("Pref::Player::Name", name);
    con.exec_file("main.cs").map_err(|e| io::Error::other(e.to_string()))?;
    con.set_global("Pref::Player::Name", name);
    Ok((con, remote, resources))
}

/// How near (m) the screenshot's player walks to a vehicle: it fills part of the frame.
const VEHICLE_VIEW: f32 = 14.0;

/// The scripted input of the screenshot's player, firing all the while: walk towards the
/// nearest vehicle it sees and stop short of it, facing it (the picture shows a vehicle
/// and shots); with none in sight, run in a wide circle.
fn autopilot(s: &ClientSession, tick: u64) -> Move {
    let mut trig = [false; 6];
    trig[0] = tick.is_multiple_of(20);
    let me = s.predicted();
    let vehicle = me.and_then(|me| {
        s.other_ghosts()
            .filter(|(_, g)| s.datablock_class(g.datablock) == "VehicleData")
            .map(|(_, g)| g.render_pos)
            .min_by(|a, b| a.distance(me.pos).total_cmp(&b.distance(me.pos)))
            .map(|v| (me, v))
    });
    let Some((me, at)) = vehicle else { return Move::from_input(0.0, 1.0, 0.0, 0.03, 0.0, 0.0, trig) };
    let d = at - me.pos;
    let forward = if d.truncate().length() > VEHICLE_VIEW { 1.0 } else { 0.0 };
    Move::from_input(0.0, forward, 0.0, crate::client::bot::steer(me.yaw, d), 0.0, 0.0, trig)
}

/// How deep (m) into the water nearest the vehicles and buildings the frame reaches: the
/// near part of a pond, not all of it, so the building's lit rooms fill more of the picture.
pub const WATER_PATCH: f32 = 12.0;

/// How near (m) a vehicle the screenshot's player must be to be framed too.
pub const PLAYER_REACH: f32 = 24.0;

/// Where the framed things may lie in the frame (normalized device coordinates): clear of the
/// HUD's score and network boxes at the top and its chat box at the bottom left (the bottom
/// of the left half; the right half reaches lower).
const FRAME_X: f32 = 0.92;
const FRAME_Y: (f32, f32, f32) = (-0.5, -0.6, 0.62);

/// The screenshot's view: the match's vehicles, buildings (their lit rooms and lamps seen
/// from above, their roofs left off), the screenshot's player (firing at the vehicle it
/// walked to, when it is within [`PLAYER_REACH`] of it) and the near part of the water
/// ([`WATER_PATCH`]) in one frame. From the south-east (the building's window and
/// door face south and east; the pond lies south-east of it), about 53° above the horizon, looking at the middle of the box around them, as near as holds all of them
/// clear of the HUD; `None` (the chase camera) with nothing to frame.
pub fn framing(world: &crate::client::snapshot::WorldView, width: u32, height: u32) -> Option<(Vec3, Vec3)> {
    use crate::client::snapshot::ObjectKind;
    let mut points: Vec<Vec3> = Vec::new();
    for o in world.objects.iter().filter(|o| o.kind == ObjectKind::Vehicle) {
        points.extend([o.pos - o.half_extents, o.pos + o.half_extents * Vec3::new(1.0, 1.0, 2.0)]);
    }
    // The screenshot's player, firing at the vehicle it walked to (when it got there).
    let me = world.objects.iter().find(|o| o.is_me && o.kind == ObjectKind::Player);
    let near_vehicle = |p: Vec3| {
        world.objects.iter().any(|o| o.kind == ObjectKind::Vehicle && o.pos.distance(p) < PLAYER_REACH)
    };
    if let Some(me) = me.filter(|me| near_vehicle(me.pos)) {
        points.extend([me.pos - Vec3::new(1.0, 1.0, 0.0), me.pos + Vec3::new(1.0, 1.0, 2.5)]);
    }
    for (centre, half) in &world.walls {
        points.extend([*centre - *half, *centre + *half]);
    }
    // The water nearest them: the wet cells within WATER_PATCH of the nearest one (all of it
    // when there is nothing else to frame).
    let near = points.iter().copied().reduce(Vec3::min).zip(points.iter().copied().reduce(Vec3::max));
    let mut wet_cells: Vec<(f32, Vec3)> = Vec::new();
    for (_, block) in &world.waters {
        let ground = world.terrain.clone();
        let wet = block.coverage(move |x, y| ground.as_ref().map_or(f32::MIN, |g| g.height(x, y)));
        for j in 0..wet.ny {
            for i in (0..wet.nx).filter(|&i| wet.is_wet_cell(i, j)) {
                let o = wet.cell_origin(i, j);
                let p = Vec3::new(o.x + wet.cell / 2.0, o.y + wet.cell / 2.0, wet.surface_z);
                let d = near.map_or(0.0, |(lo, hi)| {
                    (p.truncate() - p.truncate().clamp(lo.truncate(), hi.truncate())).length()
                });
                wet_cells.push((d, p));
            }
        }
    }
    let nearest = wet_cells.iter().map(|w| w.0).fold(f32::INFINITY, f32::min);
    points.extend(wet_cells.iter().filter(|w| near.is_none() || w.0 <= nearest + WATER_PATCH).map(|w| w.1));
    points.retain(|p| p.is_finite());
    let vehicles: Vec<Vec3> =
        world.objects.iter().filter(|o| o.kind == ObjectKind::Vehicle).map(|o| o.pos).collect();
    tracing::debug!(?vehicles, walls = world.walls.len(), points = points.len(), "the screenshot's framing");
    let lo = points.iter().copied().reduce(Vec3::min)?;
    let hi = points.iter().copied().reduce(Vec3::max)?;
    let middle = Vec3::new((lo.x + hi.x) / 2.0, (lo.y + hi.y) / 2.0, lo.z);
    let from = Vec3::new(0.6, -0.65, 1.2).normalize();
    let viewport = v12_render_gl::RectI::new(0, 0, width.max(1) as i32, height.max(1) as i32);
    // The nearest eye that holds everything, looking at a point near the middle (within 20 m,
    // on a 5 m grid): the one that needs the least distance.
    let nearest = |target: Vec3| {
        (0..400).map(|k| 5.0 + k as f32).find(|&d| {
            let eye = target + from * d;
            let m = v12_render_gl::Camera::look_at(eye, target, 1.35, 0.5, 2000.0).view_projection(viewport);
            points.iter().all(|p| {
                let c = m * p.extend(1.0);
                let (x, y) = (c.x / c.w, c.y / c.w);
                let bottom = if x < 0.0 { FRAME_Y.0 } else { FRAME_Y.1 };
                c.w > 0.0 && x.abs() < FRAME_X && y > bottom && y < FRAME_Y.2
            })
        })
    };
    let offsets =
        (-4..=4).flat_map(|i| (-4..=4).map(move |j| Vec3::new(i as f32 * 5.0, j as f32 * 5.0, 0.0)));
    offsets
        .filter_map(|o| nearest(middle + o).map(|d| (d, middle + o)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(d, target)| (target + from * d, target))
}

/// What the run saw besides the picture.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScreenshotReport {
    /// The chat line this client sent came back relayed by the server.
    pub chat_relayed: bool,
    /// Objects in the game view.
    pub objects: usize,
    /// The mission's sky had arrived (its visible distance, metres).
    pub sky_visible_distance: Option<f32>,
}

/// The chat line the screenshot's player sends through `commandToServer('ChatMessage', ...)`.
pub const CHAT_TEXT: &str = "gl hf";

/// Runs the match, takes the frame and writes the PNG.
pub fn run(cfg: &ScreenshotConfig) -> io::Result<ScreenshotReport> {
    let local = LocalMatch::start(&cfg.v12, (&cfg.mod_dir, &[]), cfg.bots, cfg.seconds.ceil() as u64 + 20)?;
    let addr = local.addr.clone();
    let name = "Player";
    let (mut con, remote, resources) = client_console(&cfg.mod_dir, name)?;
    let audio = crate::audio::of(&con);
    if let Some(a) = &audio {
        a.borrow_mut().open(&crate::audio::device_choice(cfg.audio_capture.as_ref()));
    }
    let mut ui = ClientUi::new(&mut con, cfg.width as i32, cfg.height as i32).map_err(io::Error::other)?;
    ui.load_shapes(&resources);
    ui.show(&mut con, "PlayGui").map_err(io::Error::other)?;
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    let opts = ConnectOptions { seed: 0x5EED, ..ConnectOptions::new(&con, &addr, name) };
    let mut session = ClientSession::connect(&mut con, remote, resources.clone(), &opts, now())?;
    let mut tick = 0u64;
    let mut last = 0u64;
    let mut chatted = false;
    let play_ms = (cfg.seconds.max(0.5) * 1000.0) as u64;
    while now() < play_ms {
        let t = now();
        session.advance(&mut con, t, |s| {
            tick += 1;
            autopilot(s, tick)
        })?;
        con.advance_time(t - last);
        crate::audio::advance(&mut con, t - last);
        last = t;
        // The effects run all along (trails, explosions, jets, footsteps), as in the window.
        ui.update_effects(&mut con, &session.projectiles(), &session.movers(), &session.dippers(), t);
        if session.accepted() && !chatted {
            chatted = true;
            con.eval(&format!("commandToServer('ChatMessage', \"{CHAT_TEXT}\");"))
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        if session.ended() {
            return Err(io::Error::other("the connection ended before the screenshot"));
        }
        std::thread::sleep(Duration::from_millis(4));
    }
    if !session.accepted() {
        return Err(io::Error::other("not connected to the server in time"));
    }
    let chat_relayed =
        (0..5).any(|i| con.get_global(&format!("Chat::Line{i}")).as_text() == format!("{name}: {CHAT_TEXT}"));
    let t = now();
    let mut world = session.world_view(t);
    world.first_person = con.get_global("firstPerson").truthy();
    world.overview = framing(&world, cfg.width, cfg.height);
    let objects = world.objects.len();
    let sky_visible_distance = world.sky.map(|s| s.visible_distance);
    ui.set_world(world);
    let hud = session.hud(&con, name);
    ui.set_hud(&mut con, &hud);
    let mut list = DrawList::new();
    ui.render(&mut con, &mut list);
    let mut frame = HeadlessFrame::new(cfg.width, cfg.height).map_err(io::Error::other)?;
    if let Some(face) = crate::mod_files::ui_font(&mut con, &resources) {
        ui.canvas.set_font_face(face.clone());
        frame.renderer.set_font_face(face);
    }
    frame.renderer.set_resources(resources);
    let (img, _) = frame.capture(&list).map_err(io::Error::other)?;
    img.save_png(&cfg.out).map_err(io::Error::other)?;
    session.disconnect(&mut con, now());
    if let Some(a) = &audio {
        a.borrow_mut().finish();
    }
    Ok(ScreenshotReport { chat_relayed, objects, sky_visible_distance })
}
