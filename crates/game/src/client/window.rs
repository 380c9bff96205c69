//! The window client: a winit window with a GL surface (render-gl's `GlWindow`) showing the
//! main menu, then the game view with the HUD. Input from winit becomes
//! `v12_platform::InputEvent`s that go through the GUI canvas first, then the game's action
//! maps (`MoveMap` in `client/ui/client.cs`: WASD, F or the left button fires, space jumps).

use crate::client::screenshot::{LocalMatch, client_console};
use crate::client::session::{ClientSession, ConnectOptions};
use crate::client::ui::ClientUi;
use std::io;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};
use v12_console_vm::Console;
use v12_gui::InputHandler;
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};
use v12_render_gl::winit::application::ApplicationHandler;
use v12_render_gl::winit::event::{ElementState, MouseButton, WindowEvent};
use v12_render_gl::winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use v12_render_gl::winit::keyboard::{KeyCode, PhysicalKey};
use v12_render_gl::winit::window::{Window, WindowId};
use v12_render_gl::{DrawList, GlWindow, Renderer};
use v12_resource::ResourceManager;
use v12_sim::moves::Move;

/// What the window client connects to.
#[derive(Debug, Clone)]
pub struct WindowConfig {
    /// A server address; `None` starts a local match (server and bots) on Join.
    pub connect: Option<String>,
    pub mod_dir: PathBuf,
    pub v12: PathBuf,
    pub name: String,
}

/// The game's action maps, after the canvas.
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

/// The modifier keys winit reports, as the action maps' bits (left or right when winit
/// knows which side, else the left one).
fn modifiers_of(m: &v12_render_gl::winit::event::Modifiers) -> Modifiers {
    use v12_render_gl::winit::keyboard::ModifiersKeyState::Pressed;
    let st = m.state();
    let side = |held: bool, left: bool, right: bool, l: Modifiers, r: Modifiers| match (held, left, right) {
        (false, ..) => Modifiers::NONE,
        (true, false, true) => r,
        (true, true, true) => l | r,
        _ => l,
    };
    side(
        st.shift_key(),
        m.lshift_state() == Pressed,
        m.rshift_state() == Pressed,
        Modifiers::LSHIFT,
        Modifiers::RSHIFT,
    ) | side(
        st.control_key(),
        m.lcontrol_state() == Pressed,
        m.rcontrol_state() == Pressed,
        Modifiers::LCTRL,
        Modifiers::RCTRL,
    ) | side(
        st.alt_key(),
        m.lalt_state() == Pressed,
        m.ralt_state() == Pressed,
        Modifiers::LALT,
        Modifiers::RALT,
    )
}

/// A winit key as the action maps' key code (`key_code` names).
fn key_name(k: KeyCode) -> Option<String> {
    let s = format!("{k:?}");
    if let Some(c) = s.strip_prefix("Key").or_else(|| s.strip_prefix("Digit")) {
        return Some(c.to_ascii_lowercase());
    }
    let n = match k {
        KeyCode::Space => "space",
        KeyCode::Enter | KeyCode::NumpadEnter => "enter",
        KeyCode::Tab => "tab",
        KeyCode::Escape => "escape",
        KeyCode::Backspace => "backspace",
        KeyCode::Backquote => "tilde",
        KeyCode::ArrowUp => "up",
        KeyCode::ArrowDown => "down",
        KeyCode::ArrowLeft => "left",
        KeyCode::ArrowRight => "right",
        KeyCode::Delete => "delete",
        KeyCode::Home => "home",
        KeyCode::End => "end",
        KeyCode::ShiftLeft => "lshift",
        KeyCode::ShiftRight => "rshift",
        _ => return None,
    };
    Some(n.to_string())
}

fn event(
    device: InputDeviceType,
    object: InputObjectType,
    inst: u16,
    make: bool,
    ascii: u16,
    modifiers: Modifiers,
) -> InputEvent {
    InputEvent {
        device_type: device,
        device_inst: 0,
        object_type: object,
        object_inst: inst,
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers,
        ascii,
        value: if make { 1.0 } else { 0.0 },
    }
}

struct Live {
    win: GlWindow,
    renderer: Renderer,
}

struct App {
    cfg: WindowConfig,
    con: Console,
    /// The mods the console reads; the renderer's textures come from them too.
    resources: Rc<ResourceManager>,
    remote: Option<v12_sim::remote_command::RemoteCommands>,
    ui: ClientUi,
    live: Option<Live>,
    session: Option<ClientSession>,
    local: Option<LocalMatch>,
    start: Instant,
    last_ms: u64,
    list: DrawList,
    error: Option<io::Error>,
    browser: crate::browser::ServerBrowser,
    /// TCPObject connections (the debugger screen's link to another instance, ...).
    tcp_objects: v12_sim::tcp_object::TcpObjects,
    /// The client's connection stays alive while a script is stopped in the debugger.
    debug_pause: crate::debug_pause::DebugPause,
    /// The modifier keys held now.
    modifiers: Modifiers,
}

impl App {
    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn join(&mut self) -> io::Result<()> {
        // A server picked in the browser, else `--connect`, else a local match.
        let picked =
            self.con.get_global("Client::ServerAddress").as_text().parse::<std::net::SocketAddr>().ok();
        let addr = match picked.map(|a| a.to_string()).or_else(|| self.cfg.connect.clone()) {
            Some(a) => a,
            None => {
                let m = LocalMatch::start(&self.cfg.v12, &self.cfg.mod_dir, 2, 600)?;
                let a = m.addr.clone();
                self.local = Some(m);
                a
            }
        };
        let remote = self.remote.take().ok_or_else(|| io::Error::other("already joined"))?;
        let now = self.now();
        let opts = ConnectOptions { seed: 0xC11E, ..ConnectOptions::new(&self.con, &addr, &self.cfg.name) };
        let session = ClientSession::connect(&mut self.con, remote, self.resources.clone(), &opts, now)?;
        self.debug_pause.watch(session.driver());
        self.session = Some(session);
        self.con.eval("MoveMap.push();").map_err(|e| io::Error::other(e.to_string()))?;
        Ok(())
    }

    fn tick(&mut self) -> io::Result<()> {
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
            let mv = Move::from_input(0.0, fwd, 0.0, turn, 0.0, 0.0, trig);
            s.advance(con, now, |_| mv)?;
            let mut world = s.world_view(now);
            world.first_person = con.get_global("firstPerson").truthy();
            self.ui.set_world(world);
            let hud = s.hud(con, &self.cfg.name);
            self.ui.set_hud(con, &hud);
            if s.ended() {
                self.session = None;
            }
        }
        self.browser.pump(&mut self.con);
        self.tcp_objects.pump(&mut self.con);
        self.con.advance_time(now - self.last_ms);
        self.last_ms = now;
        self.ui.canvas.set_time(&mut self.con, now);
        Ok(())
    }

    fn input(&mut self, ev: &InputEvent) {
        self.ui.canvas.process_event(&mut self.con, ev, Some(&mut GlobalMap), Some(&mut GameMaps));
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            return;
        }
        let attrs = Window::default_attributes().with_title("V12");
        match GlWindow::new(event_loop, attrs).and_then(|w| Renderer::new(w.gl()).map(|r| (w, r))) {
            Ok((win, mut renderer)) => {
                renderer.set_resources(self.resources.clone());
                if let Some(face) = crate::mod_files::ui_font(&mut self.con, &self.resources) {
                    self.ui.canvas.set_font_face(face.clone());
                    renderer.set_font_face(face);
                }
                self.live = Some(Live { win, renderer })
            }
            Err(e) => {
                self.error = Some(io::Error::other(format!("cannot open a GL window: {e}")));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, ev: WindowEvent) {
        match ev {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(sz) => {
                if let Some(l) = &self.live {
                    l.win.resize();
                }
                self.ui.canvas.set_size(&mut self.con, sz.width as i32, sz.height as i32);
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = modifiers_of(&m),
            WindowEvent::KeyboardInput { event: k, .. } => {
                let PhysicalKey::Code(code) = k.physical_key else { return };
                let Some(name) = key_name(code) else { return };
                let Some(inst) = v12_platform::key_code(&name) else { return };
                let ascii = k.text.as_ref().and_then(|t| t.chars().next()).map_or(0, |c| c as u32 as u16);
                let make = k.state == ElementState::Pressed;
                let mods = self.modifiers;
                self.input(&event(InputDeviceType::Keyboard, InputObjectType::Key, inst, make, ascii, mods));
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let inst = match button {
                    MouseButton::Left => 0,
                    MouseButton::Right => 1,
                    MouseButton::Middle => 2,
                    _ => return,
                };
                let make = state == ElementState::Pressed;
                let mods = self.modifiers;
                self.input(&event(InputDeviceType::Mouse, InputObjectType::Button, inst, make, 0, mods));
            }
            WindowEvent::CursorMoved { position, .. } => {
                let mv = MouseMoveEvent {
                    x_pos: position.x as i32,
                    y_pos: position.y as i32,
                    modifiers: self.modifiers,
                };
                self.ui.canvas.process_mouse_move(&mut self.con, &mv);
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.tick() {
                    self.error = Some(e);
                    event_loop.exit();
                    return;
                }
                if self.con.quit_requested() {
                    event_loop.exit();
                    return;
                }
                self.ui.render(&mut self.con, &mut self.list);
                let Some(l) = &mut self.live else { return };
                let (w, h) = l.win.size();
                l.win.bind();
                l.renderer.begin_frame(w, h);
                l.renderer.execute(&self.list);
                l.renderer.end_frame();
                if let Err(e) = l.win.swap_buffers() {
                    self.error = Some(io::Error::other(e.to_string()));
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(l) = &self.live {
            l.win.window().request_redraw();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Opens the window and runs until Quit or the window closes.
pub fn run(cfg: WindowConfig) -> io::Result<i32> {
    let (mut con, remote, resources) = client_console(&cfg.mod_dir, &cfg.name)?;
    let browser = crate::browser::ServerBrowser::register(&mut con);
    let tcp_objects = v12_sim::tcp_object::TcpObjects::register(&mut con);
    let debug_pause = crate::debug_pause::DebugPause::install(&mut con, 0);
    let mut ui = ClientUi::new(&mut con, 800, 600).map_err(io::Error::other)?;
    ui.load_shapes(&resources);
    ui.show(&mut con, "MainMenuGui").map_err(io::Error::other)?;
    con.set_global("Client::ServerAddress", cfg.connect.clone().unwrap_or_else(|| "local match".into()));
    let event_loop = EventLoop::new().map_err(io::Error::other)?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        cfg,
        con,
        resources,
        remote: Some(remote),
        ui,
        live: None,
        session: None,
        local: None,
        start: Instant::now(),
        last_ms: 0,
        list: DrawList::new(),
        error: None,
        browser,
        tcp_objects,
        debug_pause,
        modifiers: Modifiers::NONE,
    };
    event_loop.run_app(&mut app).map_err(io::Error::other)?;
    let now = app.now();
    if let Some(s) = &mut app.session {
        s.disconnect(&mut app.con, now);
    }
    drop(app.local.take());
    app.error.map_or(Ok(0), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v12_render_gl::winit::keyboard::ModifiersState;

    #[test]
    fn winit_modifiers_become_the_action_maps_bits() {
        let m = |s: ModifiersState| modifiers_of(&s.into());
        assert_eq!(m(ModifiersState::empty()), Modifiers::NONE);
        assert_eq!(m(ModifiersState::SHIFT), Modifiers::LSHIFT);
        assert_eq!(m(ModifiersState::ALT | ModifiersState::CONTROL), Modifiers::LALT | Modifiers::LCTRL);
        assert!(m(ModifiersState::SHIFT).intersects(Modifiers::SHIFT), "\"shift w\" matches either shift");
    }
}
