//! The window client's engine side, without the window (V12: GameInterface's
//! `processEvent`): platform events (keys, mouse buttons, mouse moves, resizes, the close)
//! are posted as `v12_platform::Event`s and each frame takes them through the session
//! journal, so `v12 --window --journal-record FILE` writes them with every clock reading,
//! received datagram and key, and `v12 --window --journal-play FILE` replays the session
//! with no window, no network and no display, to the same state (a `STATEHASH` line at the
//! end of both).
//!
//! A frame: the events posted since the last one (or, replaying, the recorded ones) go
//! through the GUI canvas and then the game's action maps; the client session advances with
//! the move the action maps' globals make; the browser, the TCP objects and the console's
//! clock follow. The window (`client::window`) only turns winit's events into platform
//! events and shows what [`ClientFront::render`] draws.

use crate::client::screenshot::{LocalMatch, client_console_with_mods};
use crate::client::session::{ClientSession, ConnectOptions};
use crate::client::ui::ClientUi;
use crate::journal::SessionJournal;
use std::io;
use std::path::PathBuf;
use std::rc::Rc;
use v12_console_vm::Console;
use v12_gui::InputHandler;
use v12_platform::{Clock, ConsoleEvent, Event, InputEvent, SystemClock};
use v12_render_gl::DrawList;
use v12_resource::ResourceManager;
use v12_sim::moves::Move;

/// What the window client connects to, and its journal.
#[derive(Clone)]
pub struct WindowConfig {
    /// A server address; `None` starts a local match (server and bots) on Join.
    pub connect: Option<String>,
    pub mod_dir: PathBuf,
    /// Mods over `mod_dir` (`--add-mod`), in the client and in the local match it starts.
    pub mods: Vec<PathBuf>,
    /// Scripts run after `main.cs` (`--exec`).
    pub exec: Vec<String>,
    pub v12: PathBuf,
    pub name: String,
    /// Record the session, or replay one (`--journal-record`, `--journal-play`).
    pub journal: Option<SessionJournal>,
    /// Where result lines (`STATEHASH`) go.
    pub report: fn(&str),
    /// `--audio-capture FILE.wav`: the sound into a WAV file (else the sound card).
    pub audio_capture: Option<PathBuf>,
}

impl std::fmt::Debug for WindowConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowConfig")
            .field("connect", &self.connect)
            .field("mod_dir", &self.mod_dir)
            .field("mods", &self.mods)
            .field("exec", &self.exec)
            .field("name", &self.name)
            .field("journal", &self.journal.is_some())
            .finish_non_exhaustive()
    }
}

/// The global action map: it sees input before the GUI does (Torque's GlobalActionMap).
struct GlobalMap;

impl InputHandler for GlobalMap {
    fn handle_input(&mut self, con: &mut Console, ev: &InputEvent) -> bool {
        v12_sim::action_map::handle_event_global(con, ev)
    }
}

/// The action map stack: what the GUI left.
struct GameMaps;

impl InputHandler for GameMaps {
    fn handle_input(&mut self, con: &mut Console, ev: &InputEvent) -> bool {
        v12_sim::action_map::handle_event(con, ev)
    }
}

/// The client's console, GUI and session, driven by platform events.
pub struct ClientFront {
    cfg: WindowConfig,
    pub con: Console,
    /// The mods the console reads; the renderer's textures come from them too.
    pub resources: Rc<ResourceManager>,
    remote: Option<v12_sim::remote_command::RemoteCommands>,
    pub ui: ClientUi,
    session: Option<ClientSession>,
    local: Option<LocalMatch>,
    live_clock: SystemClock,
    last_ms: u64,
    list: DrawList,
    browser: crate::browser::ServerBrowser,
    /// TCPObject connections (the debugger screen's link to another instance, ...).
    tcp_objects: v12_services::tcp_object::TcpObjects,
    /// The client's connection stays alive while a script is stopped in the debugger.
    debug_pause: crate::debug_pause::DebugPause,
    /// Events posted since the last frame.
    pending: Vec<Event>,
    closed: bool,
}

impl std::fmt::Debug for ClientFront {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientFront")
            .field("cfg", &self.cfg)
            .field("joined", &self.session.is_some())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl ClientFront {
    /// The client's console (the mod's `main.cs` run), its UI on the main menu.
    pub fn new(cfg: WindowConfig) -> io::Result<Self> {
        let (mut con, remote, resources) = client_console_with_mods(&cfg.mod_dir, &cfg.mods, &cfg.name)?;
        if let Some(a) = crate::audio::of(&con) {
            a.borrow_mut().open(&crate::audio::device_choice(cfg.audio_capture.as_ref()));
        }
        let tcp: Box<dyn v12_platform::TcpIo> = Box::new(v12_platform::TcpNet::new());
        let tcp = match &cfg.journal {
            Some(j) => j.tcp(tcp),
            None => tcp,
        };
        let browser = crate::browser::ServerBrowser::register_with(
            &mut con,
            crate::browser::query_io(cfg.journal.as_ref()),
        );
        let tcp_objects = v12_services::tcp_object::TcpObjects::register_with(&mut con, tcp);
        let live_clock = SystemClock::new();
        let start = match &cfg.journal {
            Some(j) => j.now_ms(),
            None => live_clock.now_ms(),
        };
        let debug_pause = crate::debug_pause::DebugPause::install(&mut con, start);
        let mut ui = ClientUi::new(&mut con, 800, 600).map_err(io::Error::other)?;
        ui.load_shapes(&resources);
        ui.install_editor(&mut con, resources.clone());
        ui.show(&mut con, "MainMenuGui").map_err(io::Error::other)?;
        // `--exec` scripts, after main.cs and the UI (they may bind keys or change the GUI).
        for f in &cfg.exec {
            if let Err(e) = con.exec_file(f) {
                con.error(&format!("v12: {e}"));
            }
        }
        con.set_global("Client::ServerAddress", cfg.connect.clone().unwrap_or_else(|| "local match".into()));
        Ok(ClientFront {
            cfg,
            con,
            resources,
            remote: Some(remote),
            ui,
            session: None,
            local: None,
            live_clock,
            last_ms: start,
            list: DrawList::new(),
            browser,
            tcp_objects,
            debug_pause,
            pending: Vec::new(),
            closed: false,
        })
    }

    /// The time now: the journal's reading when there is one.
    fn now(&self) -> u64 {
        match &self.cfg.journal {
            Some(j) => j.now_ms(),
            None => self.live_clock.now_ms(),
        }
    }

    /// Queues a platform event for the next frame (a resize is `Console("resize W H")`).
    pub fn post(&mut self, ev: Event) {
        self.pending.push(ev);
    }

    /// The session, once joined.
    pub fn session(&self) -> Option<&ClientSession> {
        self.session.as_ref()
    }

    /// The window was closed (a `Quit` event), or a script called `quit()`.
    pub fn should_exit(&self) -> bool {
        self.closed || self.con.quit_requested()
    }

    /// A replay that ran out or diverged.
    pub fn journal_stopped(&self) -> bool {
        self.cfg.journal.as_ref().is_some_and(SessionJournal::stopped)
    }

    fn join(&mut self) -> io::Result<()> {
        // A server picked in the browser, else `--connect`, else a local match (whose
        // address a journal keeps: a replay starts none).
        let picked =
            self.con.get_global("Client::ServerAddress").as_text().parse::<std::net::SocketAddr>().ok();
        let addr = match picked.map(|a| a.to_string()).or_else(|| self.cfg.connect.clone()) {
            Some(a) => a,
            None => {
                let playing = self.cfg.journal.as_ref().is_some_and(SessionJournal::is_playing);
                let mut started = None;
                if !playing {
                    started =
                        Some(LocalMatch::start(&self.cfg.v12, (&self.cfg.mod_dir, &self.cfg.mods), 2, 600)?);
                }
                let live = started.as_ref().map(|m| m.addr.clone()).unwrap_or_default();
                let addr = match &self.cfg.journal {
                    Some(j) => j.remember("local-match", || live.clone()).unwrap_or(live),
                    None => live,
                };
                self.local = started;
                addr
            }
        };
        let remote = self.remote.take().ok_or_else(|| io::Error::other("already joined"))?;
        let now = self.now();
        let mut opts =
            ConnectOptions { seed: 0xC11E, ..ConnectOptions::new(&self.con, &addr, &self.cfg.name) };
        let session = match &self.cfg.journal {
            Some(j) => {
                opts.keys = Some(j.keys(crate::entropy(opts.seed, 0x55)));
                let port = ClientSession::bind_port(&opts)?;
                let port = j.port(port);
                ClientSession::connect_via(&mut self.con, remote, self.resources.clone(), &opts, now, port)?
            }
            None => ClientSession::connect(&mut self.con, remote, self.resources.clone(), &opts, now)?,
        };
        self.debug_pause.watch(session.driver());
        self.session = Some(session);
        self.con.eval("MoveMap.push();").map_err(|e| io::Error::other(e.to_string()))?;
        Ok(())
    }

    /// One event: input through the canvas and the action maps, mouse moves to the canvas,
    /// a resize to the canvas, an input device's hot-plug, the close.
    fn process_event(&mut self, ev: Event) {
        match ev {
            // Joystick and gamepad input is dropped while a script disabled it.
            Event::Input(e) if crate::input_devices::accepts(&mut self.con, &e) => {
                self.ui.canvas.process_event(&mut self.con, &e, Some(&mut GlobalMap), Some(&mut GameMaps));
            }
            Event::DeviceChange(d) => crate::input_devices::on_device_change(&mut self.con, &d),
            Event::MouseMove(m) => {
                self.ui.canvas.process_mouse_move(&mut self.con, &m);
            }
            Event::Console(ConsoleEvent { line }) => {
                let mut words = line.split_whitespace().skip(1).map(|w| w.parse::<i32>().ok());
                if let (true, Some(Some(w)), Some(Some(h))) =
                    (line.starts_with("resize "), words.next(), words.next())
                {
                    self.ui.canvas.set_size(&mut self.con, w, h);
                }
            }
            Event::Quit => self.closed = true,
            _ => {}
        }
    }

    /// One frame: the posted (or recorded) events, then the session, the browser, the TCP
    /// objects and the console's clock.
    pub fn frame(&mut self) -> io::Result<()> {
        let live = std::mem::take(&mut self.pending);
        let events = match &self.cfg.journal {
            Some(j) => j.frame_events(live),
            None => live,
        };
        for ev in events {
            self.process_event(ev);
        }
        let now = self.now();
        // Time stopped at a script breakpoint is skipped, not caught up on.
        let stopped = self.debug_pause.frame(&self.con, now);
        if stopped > 0 {
            self.last_ms += stopped;
            if let Some(s) = &mut self.session {
                s.skip_time(stopped);
            }
        }
        if self.con.get_global("Client::JoinRequested").truthy() && self.session.is_none() {
            self.con.set_global("Client::JoinRequested", 0);
            self.join()?;
        }
        let con = &mut self.con;
        if let Some(s) = &mut self.session {
            let g = |con: &Console, n: &str| if con.get_global(n).truthy() { 1.0 } else { 0.0 };
            let fwd = g(con, "mvForward") - g(con, "mvBackward");
            let turn = (g(con, "mvTurnRight") - g(con, "mvTurnLeft")) * -0.12;
            let mut trig = [false; 6];
            trig[0] = g(con, "mvFire") > 0.0;
            trig[v12_sim::scene::JUMP_TRIGGER] = g(con, "mvJump") > 0.0;
            trig[v12_sim::scene::JET_TRIGGER] = g(con, "mvJet") > 0.0;
            let mv = Move::from_input(0.0, fwd, 0.0, turn, 0.0, 0.0, trig);
            con.profiler_enter("ClientProcess");
            let advanced = s.advance(con, now, |_| mv);
            con.profiler_exit();
            advanced?;
            let mut world = s.world_view(now);
            world.first_person = con.get_global("firstPerson").truthy();
            self.ui.update_effects(con, &s.projectiles(), &s.movers(), &s.dippers(), now);
            self.ui.set_world(world);
            let hud = s.hud(con, &self.cfg.name);
            self.ui.set_hud(con, &hud);
            if s.ended() {
                self.session = None;
            }
        }
        self.browser.pump(&mut self.con);
        self.tcp_objects.pump(&mut self.con);
        self.con.advance_time(now.saturating_sub(self.last_ms));
        crate::audio::advance(&mut self.con, now.saturating_sub(self.last_ms));
        self.last_ms = now;
        self.ui.canvas.set_time(&mut self.con, now);
        Ok(())
    }

    /// The frame's draw list (the GUI with the game view).
    pub fn render(&mut self) -> &DrawList {
        self.con.profiler_enter("DrawList");
        self.ui.render(&mut self.con, &mut self.list);
        self.con.profiler_exit();
        &self.list
    }

    /// A hash of what the client holds: the ghosts it shows (kind, position, facing), the
    /// scoreboard and the screen on the canvas. A recording and its replay print the same.
    pub fn state_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        if let Some(s) = &self.session {
            let mut objects = s.world_view(self.last_ms).objects;
            objects.sort_by_key(|o| o.id);
            for o in &objects {
                (o.id, o.kind as u8, o.pos.to_array().map(f32::to_bits), o.yaw.to_bits()).hash(&mut h);
            }
        }
        self.con.get_global("Scoreboard").as_text().hash(&mut h);
        if let Some(c) = self.ui.canvas.state(&self.con) {
            (&c.layers, c.size.x, c.size.y).hash(&mut h);
        }
        h.finish()
    }

    /// Leaves: the session disconnects, the local match stops; with a journal the
    /// `STATEHASH` line, then the journal's end (its error, if it stopped for one).
    pub fn finish(mut self) -> io::Result<i32> {
        let now = self.last_ms;
        let hash = self.state_hash();
        if let Some(s) = &mut self.session {
            s.disconnect(&mut self.con, now);
        }
        drop(self.local.take());
        let Some(j) = &self.cfg.journal else { return Ok(0) };
        (self.cfg.report)(&format!("STATEHASH {hash:016x}"));
        j.finish().map_err(io::Error::other)?;
        match j.take_error() {
            Some(e) => {
                self.con.error(&e.to_string());
                Ok(1)
            }
            None => Ok(0),
        }
    }
}

/// `v12 --window --journal-play FILE`: the recorded window session again, with no window:
/// every frame's events, clock readings and datagrams from the journal, until it ends.
pub fn replay(cfg: WindowConfig) -> io::Result<i32> {
    let mut front = ClientFront::new(cfg)?;
    while !front.should_exit() && !front.journal_stopped() {
        front.frame()?;
        front.render();
    }
    front.finish()
}
