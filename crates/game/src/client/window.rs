//! The window client: a winit window with a GL surface (render-gl's `GlWindow`) showing the
//! main menu, then the game view with the HUD. Input from winit becomes
//! `v12_platform::Event`s posted to the [`ClientFront`] (the engine side, journaled), which
//! takes them through the GUI canvas first, then the game's action maps (`MoveMap` in
//! `client/ui/client.cs`: WASD, F or the left button fires, space jumps).

use crate::client::front::ClientFront;
pub use crate::client::front::WindowConfig;
use std::io;
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
    front: ClientFront,
    live: Option<Live>,
    error: Option<io::Error>,
    /// The modifier keys held now.
    modifiers: Modifiers,
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
        let attrs = Window::default_attributes().with_title("V12");
        match GlWindow::new(event_loop, attrs).and_then(|w| Renderer::new(w.gl()).map(|r| (w, r))) {
            Ok((win, mut renderer)) => {
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
        if let Some(l) = &self.live {
            l.win.window().request_redraw();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Opens the window and runs until Quit or the window closes (with a journal recording,
/// the session is written down; `client::front::replay` plays it back without a window).
pub fn run(cfg: WindowConfig) -> io::Result<i32> {
    let front = ClientFront::new(cfg)?;
    let event_loop = EventLoop::new().map_err(io::Error::other)?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App { front, live: None, error: None, modifiers: Modifiers::NONE };
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
    fn winit_modifiers_become_the_action_maps_bits() {
        let m = |s: ModifiersState| modifiers_of(&s.into());
        assert_eq!(m(ModifiersState::empty()), Modifiers::NONE);
        assert_eq!(m(ModifiersState::SHIFT), Modifiers::LSHIFT);
        assert_eq!(m(ModifiersState::ALT | ModifiersState::CONTROL), Modifiers::LALT | Modifiers::LCTRL);
        assert!(m(ModifiersState::SHIFT).intersects(Modifiers::SHIFT), "\"shift w\" matches either shift");
    }
}
