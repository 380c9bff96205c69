//! The window client: a winit window with a GL surface (render-gl's `GlWindow`) showing the
//! main menu, then the game view with the HUD. Input from winit becomes
//! `v12_platform::Event`s posted to the [`ClientFront`] (the engine side, journaled), which
//! takes them through the GUI canvas first, then the game's action maps (`MoveMap` in
//! `client/ui/client.cs`: WASD, F or the left button fires, space jumps). Gamepads and
//! joysticks (the platform's gilrs `Gamepads`) are polled before each frame the same way.

use crate::client::front::ClientFront;
pub use crate::client::front::WindowConfig;
use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::time::Duration;
use v12_platform::{
    ConsoleEvent, Event, InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent,
};
use v12_render_gl::winit::application::ApplicationHandler;
use v12_render_gl::winit::event::{ElementState, MouseButton, WindowEvent};
use v12_render_gl::winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use v12_render_gl::winit::keyboard::{KeyCode, PhysicalKey};
use v12_render_gl::winit::window::{Window, WindowId};
use v12_render_gl::{GlWindow, Renderer};

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
    // F1..F24 (F10 the GUI Editor, F11 the World Editor).
    if let Some(n) = s.strip_prefix('F').filter(|n| n.parse::<u8>().is_ok()) {
        return Some(format!("f{n}"));
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
        KeyCode::PageUp => "pageup",
        KeyCode::PageDown => "pagedown",
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

/// What scripts asked of the window (`screenShot`, `toggleFullScreen`), done by the frame.
#[derive(Debug, Default)]
struct VideoRequests {
    /// `screenShot(file)`: the next frame is written there (a path inside the mod folder).
    screenshot: Option<std::path::PathBuf>,
    toggle_fullscreen: bool,
}

/// The window's prefs, V12's names: `$pref::Video::resolution` ("W H" or "W H BPP"),
/// `$pref::Video::fullScreen`, `$pref::Video::disableVerticalSync`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct VideoPrefs {
    size: Option<(u32, u32)>,
    fullscreen: bool,
    vsync: bool,
}

impl VideoPrefs {
    fn read(con: &v12_console_vm::Console) -> Self {
        let res = con.get_global("pref::Video::resolution").as_text().into_owned();
        let mut words = res.split_whitespace().map(|w| w.parse::<u32>().ok());
        let size = match (words.next().flatten(), words.next().flatten()) {
            (Some(w), Some(h)) if (320..=7680).contains(&w) && (200..=4320).contains(&h) => Some((w, h)),
            _ => None,
        };
        VideoPrefs {
            size,
            fullscreen: con.get_global("pref::Video::fullScreen").truthy(),
            vsync: !con.get_global("pref::Video::disableVerticalSync").truthy(),
        }
    }
}

/// `screenShot(file)` (a PNG of the next frame, inside the mod folder) and
/// `toggleFullScreen()`.
fn register_video_functions(con: &mut v12_console_vm::Console, video: &Rc<RefCell<VideoRequests>>) {
    let v = video.clone();
    con.register_function(
        "screenShot",
        2,
        2,
        "screenShot(file) - write the next frame as a PNG file in the mod folder",
        move |c, a| {
            let file = a.str(0).into_owned();
            match c.resolve_path(&file) {
                Some(p) => {
                    v.borrow_mut().screenshot = Some(p);
                    true
                }
                None => {
                    c.error(&format!("screenShot: {file} is outside the mod folder"));
                    false
                }
            }
        },
    );
    let v = video.clone();
    con.register_function(
        "toggleFullScreen",
        1,
        1,
        "toggleFullScreen() - full screen or windowed",
        move |_c, _a| {
            v.borrow_mut().toggle_fullscreen = true;
        },
    );
}

struct App {
    front: ClientFront,
    live: Option<Live>,
    error: Option<io::Error>,
    /// The modifier keys held now.
    modifiers: Modifiers,
    video: Rc<RefCell<VideoRequests>>,
    /// The gamepads and joysticks, polled before each frame; they play the rumbles queued.
    pads: Option<v12_platform::Gamepads>,
}

impl App {
    /// One frame of the engine, drawn; false when the program should stop.
    fn frame(&mut self) -> bool {
        self.front.con.profiler_enter("Frame");
        let go_on = self.frame_zoned();
        self.front.con.profiler_exit();
        go_on
    }

    fn frame_zoned(&mut self) -> bool {
        if let Err(e) = self.front.frame() {
            self.error = Some(e);
            return false;
        }
        if self.front.should_exit() {
            return false;
        }
        self.front.con.profiler_enter("Render");
        let drawn = self.draw();
        self.front.con.profiler_exit();
        drawn
    }

    /// The frame's draw list executed on the window's GL context, and the buffers swapped.
    fn draw(&mut self) -> bool {
        let list = self.front.render();
        let Some(l) = &mut self.live else { return true };
        let (w, h) = l.win.size();
        l.win.bind();
        l.renderer.begin_frame(w, h);
        l.renderer.execute(list);
        l.renderer.end_frame();
        let shot = self.video.borrow_mut().screenshot.take();
        if let Some(path) = shot {
            let saved = l.win.read_pixels().and_then(|img| {
                if let Some(dir) = path.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                img.save_png(&path)
            });
            match saved {
                Ok(()) => self.front.con.echo(&format!("screenShot: wrote {}", path.display())),
                Err(e) => self.front.con.error(&format!("screenShot: {}: {e}", path.display())),
            }
        }
        let Some(l) = &mut self.live else { return true };
        if std::mem::take(&mut self.video.borrow_mut().toggle_fullscreen) {
            let on = !l.win.is_fullscreen();
            l.win.set_fullscreen(on);
            self.front.con.set_global("pref::Video::fullScreen", i64::from(on));
        }
        if let Err(e) = l.win.swap_buffers() {
            self.error = Some(io::Error::other(e.to_string()));
            return false;
        }
        true
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() {
            return;
        }
        let prefs = VideoPrefs::read(&self.front.con);
        let mut attrs = Window::default_attributes().with_title("V12");
        if let Some((w, h)) = prefs.size {
            attrs = attrs.with_inner_size(v12_render_gl::winit::dpi::PhysicalSize::new(w, h));
        }
        if prefs.fullscreen {
            attrs = attrs.with_fullscreen(Some(v12_render_gl::winit::window::Fullscreen::Borderless(None)));
        }
        match GlWindow::new(event_loop, attrs).and_then(|w| Renderer::new(w.gl()).map(|r| (w, r))) {
            Ok((win, mut renderer)) => {
                if let Err(e) = win.set_vsync(prefs.vsync) {
                    tracing::debug!(%e, "the vsync pref is not applied");
                }
                let f = &mut self.front;
                renderer.set_resources(f.resources.clone());
                if let Some(face) = crate::mod_files::ui_font(&mut f.con, &f.resources) {
                    f.ui.canvas.set_font_face(face.clone());
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
        let mods = self.modifiers;
        match ev {
            WindowEvent::CloseRequested => {
                // The close is an event of its own frame, so a replay ends where this did.
                self.front.post(Event::Quit);
                let _ = self.front.frame();
                event_loop.exit();
            }
            WindowEvent::Resized(sz) => {
                if let Some(l) = &self.live {
                    l.win.resize();
                }
                let line = format!("resize {} {}", sz.width, sz.height);
                self.front.post(Event::Console(ConsoleEvent { line }));
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = modifiers_of(&m),
            WindowEvent::KeyboardInput { event: k, .. } => {
                let PhysicalKey::Code(code) = k.physical_key else { return };
                // Alt+Enter: full screen or windowed (the window's own key, not the game's).
                if matches!(code, KeyCode::Enter | KeyCode::NumpadEnter)
                    && mods.intersects(Modifiers::LALT | Modifiers::RALT)
                {
                    if k.state == ElementState::Pressed && !k.repeat {
                        self.video.borrow_mut().toggle_fullscreen = true;
                    }
                    return;
                }
                let Some(name) = key_name(code) else { return };
                let Some(inst) = v12_platform::key_code(&name) else { return };
                let ascii = k.text.as_ref().and_then(|t| t.chars().next()).map_or(0, |c| c as u32 as u16);
                let make = k.state == ElementState::Pressed;
                let ev = event(InputDeviceType::Keyboard, InputObjectType::Key, inst, make, ascii, mods);
                self.front.post(Event::Input(ev));
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let inst = match button {
                    MouseButton::Left => 0,
                    MouseButton::Right => 1,
                    MouseButton::Middle => 2,
                    _ => return,
                };
                let make = state == ElementState::Pressed;
                let ev = event(InputDeviceType::Mouse, InputObjectType::Button, inst, make, 0, mods);
                self.front.post(Event::Input(ev));
            }
            WindowEvent::CursorMoved { position, .. } => {
                let mv =
                    MouseMoveEvent { x_pos: position.x as i32, y_pos: position.y as i32, modifiers: mods };
                self.front.post(Event::MouseMove(mv));
            }
            WindowEvent::RedrawRequested if !self.frame() => event_loop.exit(),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(p) = &mut self.pads {
            for ev in p.poll() {
                self.front.post(ev);
            }
            for r in crate::input_devices::take_rumbles(&mut self.front.con) {
                p.rumble(None, r);
            }
        }
        if let Some(l) = &self.live {
            l.win.window().request_redraw();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Opens the window and runs until Quit or the window closes (with a journal recording,
/// the session is written down; `client::front::replay` plays it back without a window).
pub fn run(cfg: WindowConfig) -> io::Result<i32> {
    let mut front = ClientFront::new(cfg)?;
    let video = Rc::new(RefCell::new(VideoRequests::default()));
    register_video_functions(&mut front.con, &video);
    let event_loop = EventLoop::new().map_err(io::Error::other)?;
    event_loop.set_control_flow(ControlFlow::Poll);
    // The gamepads and joysticks (gilrs): none where the machine has no udev or no device.
    let pads = match v12_platform::Gamepads::open() {
        Ok(p) => {
            crate::input_devices::set_plays_rumbles(&mut front.con, true);
            Some(p)
        }
        Err(e) => {
            tracing::info!(%e, "no gamepads or joysticks");
            None
        }
    };
    let mut app = App { front, live: None, error: None, modifiers: Modifiers::NONE, video, pads };
    event_loop.run_app(&mut app).map_err(io::Error::other)?;
    let App { front, error, .. } = app;
    let code = front.finish()?;
    error.map_or(Ok(code), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v12_render_gl::winit::keyboard::ModifiersState;

    #[test]
    fn video_prefs_read_v12_names_and_refuse_junk() {
        let mut con = v12_console_vm::Console::new();
        assert_eq!(VideoPrefs::read(&con), VideoPrefs { size: None, fullscreen: false, vsync: true });
        con.set_global("pref::Video::resolution", "1024 768 32");
        con.set_global("pref::Video::fullScreen", 1i64);
        con.set_global("pref::Video::disableVerticalSync", 1i64);
        assert_eq!(
            VideoPrefs::read(&con),
            VideoPrefs { size: Some((1024, 768)), fullscreen: true, vsync: false }
        );
        con.set_global("pref::Video::resolution", "99999 12");
        assert_eq!(VideoPrefs::read(&con).size, None);
    }

    #[test]
    fn screenshot_refuses_paths_outside_the_mod_folder() {
        let mut con = v12_console_vm::Console::new();
        let dir = std::env::temp_dir().join(format!("v12-shot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        con.set_file_root(&dir);
        let video = Rc::new(RefCell::new(VideoRequests::default()));
        register_video_functions(&mut con, &video);
        assert_eq!(con.eval("return screenShot(\"../x.png\");").unwrap().to_string(), "0");
        assert!(video.borrow().screenshot.is_none());
        assert_eq!(con.eval("return screenShot(\"shots/a.png\");").unwrap().to_string(), "1");
        assert_eq!(video.borrow().screenshot.as_deref(), Some(dir.join("shots/a.png").as_path()));
        con.eval("toggleFullScreen();").unwrap();
        assert!(video.borrow().toggle_fullscreen);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn function_keys_reach_the_canvas_binds() {
        assert_eq!(key_name(KeyCode::F10).as_deref(), Some("f10"));
        assert_eq!(
            v12_platform::key_code(&key_name(KeyCode::F11).unwrap()),
            Some(v12_gui::keys::KEY_F1 + 10)
        );
        assert_eq!(key_name(KeyCode::PageUp).as_deref(), Some("pageup"));
    }

    #[test]
    fn winit_modifiers_become_the_action_maps_bits() {
        let m = |s: ModifiersState| modifiers_of(&s.into());
        assert_eq!(m(ModifiersState::empty()), Modifiers::NONE);
        assert_eq!(m(ModifiersState::SHIFT), Modifiers::LSHIFT);
        assert_eq!(m(ModifiersState::ALT | ModifiersState::CONTROL), Modifiers::LALT | Modifiers::LCTRL);
        assert!(m(ModifiersState::SHIFT).intersects(Modifiers::SHIFT), "\"shift w\" matches either shift");
    }
}
