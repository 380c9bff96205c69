//! Opens a window and draws a draw list with 2D primitives, text and a 3D view.
//! Run on a desktop: `cargo run -p v12-render-gl --example window`.

use std::sync::Arc;
use v12_render_gl::glam::Vec3;
use v12_render_gl::winit::application::ApplicationHandler;
use v12_render_gl::winit::event::WindowEvent;
use v12_render_gl::winit::event_loop::{ActiveEventLoop, EventLoop};
use v12_render_gl::winit::window::{Window, WindowId};
use v12_render_gl::{Camera, ColorI, DrawList, GlWindow, Point2I, RectI, Renderer, Scene, Shape};

#[derive(Default)]
struct App {
    state: Option<(GlWindow, Renderer)>,
    frame: u32,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        let attrs = Window::default_attributes().with_title("v12-render-gl");
        let made = GlWindow::new(event_loop, attrs).and_then(|w| Renderer::new(w.gl()).map(|r| (w, r)));
        match made {
            Ok(s) => self.state = Some(s),
            Err(e) => {
                eprintln!("cannot open a GL window: {e}");
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some((win, renderer)) = &mut self.state else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(_) => win.resize(),
            WindowEvent::RedrawRequested => {
                let (w, h) = win.size();
                self.frame += 1;
                let spin = self.frame as f32 * 0.02;
                let scene = Scene {
                    shapes: vec![
                        Shape::Grid {
                            center: Vec3::ZERO,
                            cell_size: 2.0,
                            cells: 20,
                            color: ColorI::rgb(90, 110, 90),
                        },
                        Shape::Box {
                            center: Vec3::new(0.0, 0.0, 1.0),
                            half_extents: Vec3::ONE,
                            rotation_z: spin,
                            color: ColorI::rgb(220, 80, 60),
                        },
                        Shape::Sphere {
                            center: Vec3::new(4.0, 2.0, 1.5),
                            radius: 1.5,
                            color: ColorI::rgb(60, 120, 230),
                        },
                    ],
                    ..Scene::default()
                };
                let cam =
                    Camera::look_at(Vec3::new(0.0, -14.0, 7.0), Vec3::new(0.0, 0.0, 1.0), 1.2, 0.5, 200.0);
                let mut dl = DrawList::new();
                dl.clear_color(ColorI::rgb(20, 20, 28));
                dl.view_3d(RectI::new(10, 40, w as i32 - 20, h as i32 - 50), cam, Arc::new(scene));
                dl.fill_rect(RectI::new(10, 8, 220, 24), ColorI::rgba(0, 0, 0, 160));
                dl.draw_text(16, Point2I::new(16, 12), "V12 \u{3}render\u{0F}-gl window", ColorI::WHITE);
                win.bind();
                renderer.begin_frame(w, h);
                renderer.execute(&dl);
                renderer.end_frame();
                if let Err(e) = win.swap_buffers() {
                    eprintln!("swap failed: {e}");
                    event_loop.exit();
                }
                win.window().request_redraw();
            }
            _ => {}
        }
    }
}

fn main() {
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("no event loop (no display?): {e}");
            std::process::exit(1);
        }
    };
    let mut app = App::default();
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("event loop: {e}");
    }
}
