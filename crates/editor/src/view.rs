//! The World Editor's 3D view (its `GameView`): while the editor is open, the terrain as the
//! brushes left it, every mission object as a box (the selected ones outlined), the gizmo,
//! and in terrain mode the brush's ring, from the editor's camera. While it is closed the
//! view is the game's.

use crate::Handle;
use crate::state::Mode;
use glam::Vec3;
use v12_console_vm::Console;
use v12_gui::GameView;
use v12_render_gl::{Camera, ColorI, Scene, Shape};
use v12_render3d::terrain::{TerrainDrawConfig, build_terrain_mesh};

/// The editor's view over the game's (which it shows while the editor is closed).
pub struct EditorView {
    pub ed: Handle,
    pub game: Option<Box<dyn GameView>>,
}

impl std::fmt::Debug for EditorView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorView").field("open", &self.ed.borrow().open).finish_non_exhaustive()
    }
}

impl EditorView {
    pub fn new(ed: Handle, game: Option<Box<dyn GameView>>) -> Self {
        EditorView { ed, game }
    }

    fn open(&self) -> bool {
        self.ed.borrow().open
    }
}

/// An object's colour by its class.
fn class_color(class: &str) -> ColorI {
    match class {
        "InteriorInstance" => ColorI::rgba(150, 140, 120, 255),
        "WaterBlock" => ColorI::rgba(40, 90, 200, 255),
        "SimGroup" => ColorI::rgba(200, 200, 200, 255),
        _ => ColorI::rgba(210, 150, 60, 255),
    }
}

impl GameView for EditorView {
    fn sync(&self, con: &Console) {
        if self.open() {
            crate::objects::sync(con, &mut self.ed.borrow_mut());
        } else if let Some(g) = &self.game {
            g.sync(con);
        }
    }

    fn camera_query(&self) -> Option<Camera> {
        if self.open() {
            return Some(self.ed.borrow().camera.camera());
        }
        self.game.as_ref().and_then(|g| g.camera_query())
    }

    fn render_world(&self, scene: &mut Scene) {
        if !self.open() {
            if let Some(g) = &self.game {
                g.render_world(scene);
            }
            return;
        }
        let e = self.ed.borrow();
        let cam = e.camera.camera();
        scene.clear_color = Some(ColorI::rgb(96, 120, 150));
        if let Some(t) = &e.terrain {
            let (mesh, _) = build_terrain_mesh(&t.block, cam.position(), &TerrainDrawConfig::default());
            scene.shapes.extend(mesh.into_shapes(&t.materials));
        }
        for o in &e.objects {
            let selected = e.selection.contains(&o.id);
            let color = class_color(&o.class);
            if o.class != "InteriorInstance" || selected {
                scene.shapes.push(Shape::Box {
                    center: o.center,
                    half_extents: o.half,
                    rotation_z: 0.0,
                    color,
                });
            }
            let line = if selected { ColorI::rgb(255, 255, 80) } else { ColorI::rgb(30, 30, 30) };
            scene.shapes.extend(crate::gizmo::outline(o.center, o.half * 1.02, line));
        }
        if let Some(origin) = e.gizmo_origin() {
            let active = match e.drag.as_ref().map(|d| &d.kind) {
                Some(crate::state::DragKind::Axis { axis, .. }) => {
                    crate::gizmo::AXES.iter().position(|a| a == axis)
                }
                _ => None,
            };
            scene.shapes.extend(crate::gizmo::shapes(e.mode, &cam, origin, active));
        }
        if let (Mode::Terrain, Some(at), Some(t)) = (e.mode, e.cursor, &e.terrain) {
            let n = 32;
            let r = e.brush.radius;
            let ring = |k: i32| {
                let a = k as f32 / n as f32 * std::f32::consts::TAU;
                let p = at + Vec3::new(a.cos(), a.sin(), 0.0) * r;
                Vec3::new(p.x, p.y, t.block.height(p.x, p.y) + 0.3)
            };
            for k in 0..n {
                scene.shapes.push(Shape::Line {
                    from: ring(k),
                    to: ring(k + 1),
                    color: ColorI::rgb(255, 240, 60),
                });
            }
        }
    }
}
