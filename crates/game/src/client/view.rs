//! What the game view shows: a snapshot of the client's world, the follow camera and the
//! shapes each kind of object is drawn as (GuiTSCtrl's camera query and world render).

use std::cell::RefCell;
use std::rc::Rc;
use v12_gui::GameView;
use v12_render_gl::glam::{Affine3A, Quat, Vec3};
use v12_render_gl::{Camera, ColorI, Scene, Shape};
use v12_render3d::{TsShape, TsShapeInstance};

pub use crate::client::snapshot::{ObjectKind, ViewObject, WorldView, facing};

/// Half the arena's side (metres), as the game's `Motion::arena_half`.
pub const ARENA_HALF: f32 = 50.0;

/// Brushes whose bottom is this high above the ground are roofs: the view leaves them off so
/// the chase camera sees into a building.
const ROOF_HEIGHT: f32 = 2.5;

/// The shapes objects are drawn with when the game has them: the one its datablock's
/// `shapeFile` names (as V12's ShapeBaseData), else `shapes/player.glb` for players and
/// `shapes/item.glb` for items; without those two, boxes and spheres.
#[derive(Debug)]
pub struct ViewShapes {
    pub player: Rc<TsShape>,
    pub item: Rc<TsShape>,
    /// Every `shapes/*.glb` of the game, by path in lower case.
    pub by_file: std::collections::HashMap<String, Rc<TsShape>>,
}

impl ViewShapes {
    /// The game's shapes, or `None` (with a warning when a file is there but unreadable).
    pub fn load(res: &v12_resource::ResourceManager) -> Option<Rc<ViewShapes>> {
        let read = |path: &str| -> Option<Rc<TsShape>> {
            let bytes = res.search().read(path).ok()?;
            TsShape::from_glb(&bytes)
                .map_err(|e| tracing::warn!(path, error = %e, "shape not loaded; drawing boxes"))
                .ok()
                .map(Rc::new)
        };
        // Each file read once; the defaults are two of them.
        let by_file: std::collections::HashMap<String, Rc<TsShape>> = res
            .search()
            .find("shapes/*.glb")
            .into_iter()
            .filter_map(|path| read(&path).map(|s| (path.to_ascii_lowercase(), s)))
            .collect();
        let player = by_file.get("shapes/player.glb")?.clone();
        let item = by_file.get("shapes/item.glb")?.clone();
        Some(Rc::new(ViewShapes { player, item, by_file }))
    }

    /// The shape object `o` is drawn with.
    pub fn shape_for(&self, o: &ViewObject) -> &Rc<TsShape> {
        let named = o
            .shape_file
            .as_deref()
            .and_then(|f| self.by_file.get(&f.replace('\\', "/").to_ascii_lowercase()));
        named.unwrap_or(if o.kind == ObjectKind::Player { &self.player } else { &self.item })
    }
}

/// A player's eye above its feet (m): where the first-person camera sits.
const EYE_HEIGHT: f32 = 1.7;

/// Pixels per metre at one metre away in the nominal 600-pixel-high view (the detail level
/// is chosen by projected size without knowing the viewport).
const PIXELS_PER_METRE_AT_1M: f32 = 500.0;

/// Team colours: red and blue; the local player is drawn in green.
pub fn team_color(team: u32, is_me: bool) -> ColorI {
    match (is_me, team % 2) {
        (true, _) => ColorI::rgb(70, 210, 90),
        (false, 0) => ColorI::rgb(220, 70, 60),
        (false, _) => ColorI::rgb(70, 120, 235),
    }
}

impl WorldView {
    /// GameTSCtrl's camera query, asked of the control object: from its eye in first person
    /// (always for a Camera object), else a chase camera behind and above it; an overview of
    /// the arena without one. A fixed [`WorldView::overview`] wins over all of them.
    pub fn camera(&self) -> Camera {
        if let Some((eye, target)) = self.overview {
            return Camera::look_at(eye, target, 1.35, 0.5, self.far());
        }
        match self.me() {
            Some(me) if self.first_person || me.kind == ObjectKind::Camera => {
                let f = facing(me.yaw);
                let eye = me.pos
                    + Vec3::new(0.0, 0.0, if me.kind == ObjectKind::Player { EYE_HEIGHT } else { 0.0 });
                Camera::look_at(eye, eye + f * 10.0 - Vec3::Z * 0.6, 1.35, 0.1, self.far())
            }
            Some(me) => {
                let f = facing(me.yaw);
                let eye = me.pos - f * 16.0 + Vec3::new(0.0, 0.0, 11.0);
                Camera::look_at(eye, me.pos + f * 6.0 + Vec3::Z, 1.35, 0.5, self.far())
            }
            None => Camera::look_at(Vec3::new(0.0, -70.0, 55.0), Vec3::ZERO, 1.2, 0.5, self.far()),
        }
    }

    /// The far plane: the sky's visible distance (400 m without a sky).
    fn far(&self) -> f32 {
        self.sky.map_or(400.0, |s| s.visible_distance)
    }

    /// The mission's sky as the renderer draws it: the dome fading from a deeper blue overhead
    /// to the fog colour at the horizon, and a cloud layer drifting with time.
    fn sky(&self) -> Option<v12_render_gl::Sky> {
        let s = self.sky?;
        let c = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        let fog = ColorI::rgb(c(s.fog_color.x), c(s.fog_color.y), c(s.fog_color.z));
        let zenith = ColorI::rgb(c(s.fog_color.x * 0.35), c(s.fog_color.y * 0.55), c(s.fog_color.z * 0.95));
        let t = self.time_ms as f32 / 1000.0;
        Some(v12_render_gl::Sky {
            zenith,
            fog_color: fog,
            fog_distance: s.fog_distance,
            visible_distance: s.visible_distance,
            clouds: Some(v12_render_gl::CloudLayer {
                height: 90.0,
                color: ColorI::rgba(255, 255, 255, 150),
                drift: v12_render_gl::glam::Vec2::new(4.0, 1.5) * t,
            }),
            fog_layers: s
                .fog_volumes
                .iter()
                .filter(|f| f.visible_distance > 0.0)
                .map(|f| v12_render_gl::FogLayer {
                    bottom: f.bottom,
                    top: f.top,
                    visible_distance: f.visible_distance,
                    color: ColorI::rgb(c(f.color.x), c(f.color.y), c(f.color.z)),
                })
                .collect(),
        })
    }

    /// The ground, the arena's edge and every object as shapes (with `shapes`, players and
    /// items are the game's animated shapes), under the mission's sky. The terrain and
    /// interiors are built for this frame alone; a client drawing frame after frame keeps a
    /// [`WorldMeshes`] and calls [`WorldView::build_scene_resident`].
    pub fn build_scene(&self, scene: &mut Scene, shapes: Option<&ViewShapes>) {
        self.build_scene_resident(scene, shapes, &mut WorldMeshes::default());
    }

    /// [`WorldView::build_scene`] drawing geometry that lives on the GPU: terrain patches and
    /// interior zones from `meshes` (built once, uploaded once), shapes' meshes posed by a
    /// matrix.
    pub fn build_scene_resident(
        &self,
        scene: &mut Scene,
        shapes: Option<&ViewShapes>,
        meshes: &mut WorldMeshes,
    ) {
        scene.clear_color = Some(ColorI::rgb(96, 140, 190));
        scene.sky = self.sky();
        // Lines over a terrain sit a little higher than over the flat box: the terrain's
        // triangles need a margin larger than the depth buffer's step 60 m away.
        let lift = if self.terrain.is_some() { 0.08 } else { 0.0 };
        match &self.terrain {
            Some(t) => {
                // The terrain is drawn as far as one sees.
                let cfg = v12_render3d::TerrainDrawConfig {
                    visible_distance: self.far(),
                    ..v12_render3d::TerrainDrawConfig::default()
                };
                if !meshes.terrain_source.as_ref().is_some_and(|held| Rc::ptr_eq(held, t)) {
                    meshes.terrain.clear();
                    meshes.terrain_source = Some(t.clone());
                }
                let eye = self.camera().position();
                meshes.terrain.shapes(t, eye, &cfg, &self.terrain_materials, &mut scene.shapes);
            }
            None => scene.shapes.push(Shape::Box {
                center: Vec3::new(0.0, 0.0, -0.55),
                half_extents: Vec3::new(ARENA_HALF + 10.0, ARENA_HALF + 10.0, 0.5),
                rotation_z: 0.0,
                color: ColorI::rgb(58, 92, 52),
            }),
        }
        scene.shapes.push(Shape::Grid {
            center: Vec3::new(0.0, 0.0, lift + 0.02),
            cell_size: 5.0,
            cells: 20,
            color: ColorI::rgb(110, 150, 100),
        });
        let h = ARENA_HALF;
        let z = lift + 0.05;
        let corners = [Vec3::new(-h, -h, z), Vec3::new(h, -h, z), Vec3::new(h, h, z), Vec3::new(-h, h, z)];
        for i in 0..4 {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            scene.shapes.push(Shape::Line { from: a, to: b, color: ColorI::rgb(250, 240, 160) });
        }
        if let Some(graph) = &self.interiors {
            self.push_interiors(graph, scene, &mut meshes.interiors);
        }
        self.push_waters(scene, meshes);
        for &(center, half) in self.walls.iter().filter(|_| self.interiors.is_none()) {
            if center.z - half.z < ROOF_HEIGHT {
                scene.shapes.push(Shape::Box {
                    center,
                    half_extents: half,
                    rotation_z: 0.0,
                    color: ColorI::rgb(150, 146, 136),
                });
            }
        }
        let camera = self.camera();
        let eye = camera.position();
        // Shapes outside the view are not built (the nominal 4:3 view's frustum).
        let frustum = v12_render3d::cull::Frustum::from_view_projection(
            camera.view_projection(v12_render_gl::RectI::new(0, 0, 800, 600)),
        );
        for o in &self.objects {
            // In first person one does not see oneself.
            if o.is_me && self.first_person {
                continue;
            }
            match shapes {
                Some(s) if matches!(o.kind, ObjectKind::Player | ObjectKind::Item) => {
                    let shape = s.shape_for(o);
                    if frustum.sphere_visible(o.pos + shape.center, shape.radius + 0.5) {
                        push_shape(shape, o, self.time_ms, eye, scene);
                    }
                }
                _ => push_object(scene, o, self.time_ms),
            }
        }
    }
}

/// What a client keeps between frames so that the world's geometry lives on the GPU: the
/// terrain's patches (and the terrain they were built from, held so it is known by its
/// address) and the interiors' zones.
#[derive(Debug, Default)]
pub struct WorldMeshes {
    pub terrain: v12_render3d::TerrainPatches,
    terrain_source: Option<Rc<v12_world::TerrainBlock>>,
    pub interiors: v12_render3d::InteriorMeshes,
    /// Each water block's surface, built from its fields over the terrain they were filled
    /// on (built again when either changes).
    waters: std::collections::HashMap<u32, (Option<Rc<v12_world::TerrainBlock>>, v12_render3d::WaterSurface)>,
}

impl WorldView {
    /// The water blocks' surfaces (seed-filled over the terrain, tessellated by distance,
    /// resident on the GPU while still) and, with the eye under one, the liquid's fog.
    fn push_waters(&self, scene: &mut Scene, meshes: &mut WorldMeshes) {
        meshes.waters.retain(|id, _| self.waters.iter().any(|(w, _)| w == id));
        let eye = self.camera().position();
        let t = self.time_ms as f32 / 1000.0;
        for (id, block) in &self.waters {
            let stale = meshes.waters.get(id).is_none_or(|(terrain, surface)| {
                surface.block != block.clone().clamped()
                    || !match (terrain, &self.terrain) {
                        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                        (None, None) => true,
                        _ => false,
                    }
            });
            if stale {
                let terrain = self.terrain.clone();
                let ground = terrain.clone();
                let height = move |x: f32, y: f32| ground.as_ref().map_or(f32::MIN, |g| g.height(x, y));
                meshes.waters.insert(*id, (terrain, v12_render3d::WaterSurface::new(block.clone(), height)));
            }
            let Some((_, surface)) = meshes.waters.get_mut(id) else { continue };
            surface.shapes(eye, t, self.far(), &mut scene.shapes);
            if surface.contains(eye) {
                scene.sky = Some(surface.underwater_sky(scene.sky.as_ref()));
            }
        }
    }
}

impl WorldView {
    /// The interiors by zone: the faces of the rooms the camera sees through open portals
    /// (closed ones drawn as doors; every room from an overview), roofs left off so the
    /// chase camera sees in; each
    /// material one textured batch, translucent when its bitmap is (a window's glass).
    fn push_interiors(
        &self,
        graph: &v12_world::SceneGraph,
        scene: &mut Scene,
        meshes: &mut v12_render3d::InteriorMeshes,
    ) {
        // An overview looks down over the walls (their roofs are left off): every room shows.
        let visible = if self.overview.is_some() {
            graph.zones_of_box(Vec3::splat(-1.0e6), Vec3::splat(1.0e6))
        } else {
            graph.visible_zones(self.camera().position())
        };
        let materials = |id: u32| self.interior_materials.get(&id).map_or(&[][..], |m| &m[..]);
        let below_roof = |inst: &v12_world::InteriorInstance, t: &[v12_render_gl::TexVertex3]| {
            let roof = inst.world_bounds().min.z + ROOF_HEIGHT;
            t.iter().any(|v| v.pos[2] < roof)
        };
        let (light, ambient) = (scene.light_dir, scene.ambient);
        meshes.shapes(graph, &visible, (light, ambient), materials, below_roof, &mut scene.shapes);
        push_lamps(graph, &self.camera(), scene);
    }
}

/// Most interior lights drawn as lamps.
const MAX_LAMPS: usize = 64;

/// The interiors' lights (the map's `light` entities their lightmaps were baked from) drawn
/// as glowing lamps: a bright core and a soft halo of the light's colour, added to what is
/// behind them, so a lit room shows where its light comes from.
fn push_lamps(graph: &v12_world::SceneGraph, camera: &Camera, scene: &mut Scene) {
    let mut glow = Vec::new();
    let lights = graph.interiors().flat_map(|(_, inst)| inst.interior.lights.iter().map(move |l| (inst, l)));
    for (inst, l) in lights.take(MAX_LAMPS) {
        let at = inst.to_world_point(l.position.as_vec3());
        let c = l.color.clamp(Vec3::ZERO, Vec3::ONE);
        glow.extend(v12_render3d::billboard(camera, at, 0.6, (c * 0.5 + Vec3::splat(0.5)).extend(1.0), 0.0));
        glow.extend(v12_render3d::billboard(camera, at, 4.0, c.extend(0.55), 0.0));
    }
    if !glow.is_empty() {
        scene.shapes.push(Shape::Particles {
            texture: None,
            triangles: std::sync::Arc::new(glow),
            additive: true,
        });
    }
}

/// Where a sequence is at `time_ms` for object `id` (objects out of step with each other).
fn cycle(time_ms: u64, id: u32, period_ms: u64) -> f32 {
    ((time_ms + u64::from(id) * 137) % period_ms) as f32 / period_ms as f32
}

/// A player or an item as its animated shape, posed on the GPU: players run when they move,
/// jump while in the air and idle otherwise, in their team's colour; items spin and blink.
fn push_shape(shape: &Rc<TsShape>, o: &ViewObject, time_ms: u64, eye: Vec3, scene: &mut Scene) {
    let mut inst = TsShapeInstance::new(shape.clone());
    let play = |inst: &mut TsShapeInstance, name: &str, pos: f32| {
        if let Some(seq) = shape.find_sequence(name) {
            let t = inst.add_thread();
            inst.set_sequence(t, seq, pos);
        }
    };
    if !o.threads.is_empty() {
        // The server's scripts chose the sequences: each from when it reached this client
        // (backwards from the end when its direction is reversed).
        for (t, played) in &o.threads {
            let Some(seq) = shape.find_sequence(&t.sequence) else { continue };
            let s = &shape.sequences[seq];
            let pos = played / s.duration;
            let pos = if s.cyclic { pos.fract() } else { pos.min(1.0) };
            play(&mut inst, &t.sequence, if t.forward { pos } else { 1.0 - pos });
        }
    } else if o.kind == ObjectKind::Player {
        if o.vel.z.abs() > 1.0 {
            play(&mut inst, "jump", if o.vel.z > 0.0 { 0.3 } else { 0.7 });
        } else if o.vel.truncate().length() > 0.5 {
            play(&mut inst, "run", cycle(time_ms, o.id, 600));
        } else {
            play(&mut inst, "idle", cycle(time_ms, o.id, 2000));
        }
    } else {
        // Only an item whose datablock says `rotate` turns (V12's ItemData).
        play(&mut inst, "spin", if o.rotate { cycle(time_ms, o.id, 2000) } else { 0.0 });
        play(&mut inst, "blink", cycle(time_ms, o.id, 1000));
    }
    if o.kind == ObjectKind::Player {
        let c = team_color(o.team, o.is_me);
        inst.set_material_color("team", [c.r, c.g, c.b, c.a]);
        scene.shapes.push(gun(o, 0.45, Vec3::new(0.07, 0.4, 0.07)));
    }
    inst.animate();
    let place = Affine3A::from_rotation_translation(Quat::from_rotation_z(o.yaw), o.pos);
    let distance = place.transform_point3(shape.center).distance(eye).max(0.1);
    let pixels = 2.0 * shape.radius * PIXELS_PER_METRE_AT_1M / distance;
    inst.posed_meshes(place, shape.select_detail(pixels), &mut scene.shapes);
}

/// A player's gun: a box `reach` metres ahead at hand height, pointing where it faces.
fn gun(o: &ViewObject, reach: f32, half_extents: Vec3) -> Shape {
    Shape::Box {
        center: o.pos + facing(o.yaw) * reach + Vec3::new(0.0, 0.0, 1.2),
        half_extents,
        rotation_z: o.yaw,
        color: ColorI::rgb(60, 60, 60),
    }
}

fn push_object(scene: &mut Scene, o: &ViewObject, time_ms: u64) {
    match o.kind {
        ObjectKind::Player => {
            let c = team_color(o.team, o.is_me);
            scene.shapes.push(Shape::Box {
                center: o.pos + Vec3::new(0.0, 0.0, 0.9),
                half_extents: Vec3::new(0.45, 0.3, 0.9),
                rotation_z: o.yaw,
                color: c,
            });
            scene.shapes.push(Shape::Sphere {
                center: o.pos + Vec3::new(0.0, 0.0, 2.1),
                radius: 0.35,
                color: c,
            });
            scene.shapes.push(gun(o, 0.6, Vec3::new(0.1, 0.45, 0.1)));
        }
        ObjectKind::Item => {
            let turn = (time_ms % 2000) as f32 / 2000.0 * std::f32::consts::TAU;
            let spin = if o.rotate { turn } else { 0.0 };
            scene.shapes.push(Shape::Box {
                center: o.pos + Vec3::new(0.0, 0.0, 0.7),
                half_extents: Vec3::splat(0.35),
                rotation_z: spin + o.id as f32,
                color: ColorI::rgb(250, 210, 40),
            });
        }
        ObjectKind::Camera => {}
        ObjectKind::Projectile => {
            scene.shapes.push(Shape::Sphere {
                center: o.pos,
                radius: 0.25,
                color: ColorI::rgb(255, 140, 30),
            });
            scene.shapes.push(Shape::Line {
                from: o.pos - facing(o.yaw) * 1.5,
                to: o.pos,
                color: ColorI::rgb(255, 220, 120),
            });
        }
        // A static shape or turret: a grey box of its size; a force field: a translucent one.
        ObjectKind::Shape | ObjectKind::ForceField => {
            let color = if o.kind == ObjectKind::Shape {
                ColorI::rgb(120, 128, 140)
            } else {
                ColorI { r: 60, g: 150, b: 250, a: 110 }
            };
            let h = o.half_extents;
            scene.shapes.push(Shape::Box {
                center: o.pos + Vec3::Z * h.z,
                half_extents: h,
                rotation_z: o.yaw,
                color,
            });
        }
        ObjectKind::Vehicle => vehicle_model(scene, o),
    }
}

/// A vehicle drawn from its box (no vehicle shapes are loaded): a hull with a nose, two
/// side pontoons, a canopy in its team's colour, a tail fin, and two engines at the rear
/// whose nozzles are where its forward jets fire (`client::jets::nodes`).
fn vehicle_model(scene: &mut Scene, o: &ViewObject) {
    let h = o.half_extents;
    let turn = Quat::from_rotation_z(o.yaw);
    let team = team_color(o.team, o.is_me);
    let mut part = |centre: Vec3, half: Vec3, color: ColorI| {
        scene.shapes.push(Shape::Box {
            center: o.pos + turn * (centre * h),
            half_extents: half * h,
            rotation_z: o.yaw,
            color,
        });
    };
    let hull = ColorI::rgb(92, 100, 112);
    let dark = ColorI::rgb(45, 48, 56);
    part(Vec3::new(0.0, -0.1, 0.5), Vec3::new(0.62, 0.8, 0.3), hull);
    part(Vec3::new(0.0, 0.8, 0.38), Vec3::new(0.4, 0.25, 0.18), ColorI::rgb(150, 156, 166));
    for side in [-1.0, 1.0] {
        part(Vec3::new(side * 0.82, -0.05, 0.3), Vec3::new(0.18, 0.92, 0.26), dark);
        part(Vec3::new(side * 0.82, 0.0, 0.58), Vec3::new(0.2, 0.7, 0.04), team);
    }
    part(Vec3::new(0.0, 0.25, 0.95), Vec3::new(0.32, 0.32, 0.2), ColorI::rgb(120, 185, 240));
    part(Vec3::new(0.0, -0.78, 1.15), Vec3::new(0.05, 0.18, 0.35), team);
    let (nozzles, _) = crate::client::jets::nodes(crate::client::jets::Jet::Forward, Vec3::ONE);
    for n in nozzles {
        part(n + Vec3::new(0.0, 0.17, 0.0), Vec3::new(0.17, 0.17, 0.17), dark);
        part(n + Vec3::new(0.0, 0.02, 0.0), Vec3::new(0.12, 0.02, 0.12), ColorI::rgb(255, 150, 60));
    }
}

/// The GUI's handle on the view: the client replaces the snapshot, GuiTSCtrl reads it.
#[derive(Debug, Clone)]
pub struct SharedView {
    pub world: Rc<RefCell<WorldView>>,
    /// The game's shapes, once loaded.
    pub shapes: Rc<RefCell<Option<Rc<ViewShapes>>>>,
    /// The world's geometry kept between frames (it lives on the GPU).
    pub meshes: Rc<RefCell<WorldMeshes>>,
    /// Particles, explosions and trails (`client::effects`), updated by the client's frame.
    pub effects: Rc<RefCell<crate::client::effects::ClientEffects>>,
}

impl Default for SharedView {
    fn default() -> Self {
        SharedView {
            world: Rc::default(),
            shapes: Rc::default(),
            meshes: Rc::default(),
            effects: Rc::new(RefCell::new(crate::client::effects::ClientEffects::new(EFFECTS_SEED))),
        }
    }
}

/// The seed of a client's particles (the same on every client, so a replay draws the same).
pub const EFFECTS_SEED: u64 = 0x5EED_0035;

impl GameView for SharedView {
    fn camera_query(&self) -> Option<Camera> {
        let mut camera = self.world.borrow().camera();
        let shake = self.effects.borrow().camera_shake(camera.position());
        camera.transform = v12_render_gl::glam::Mat4::from_translation(shake) * camera.transform;
        Some(camera)
    }

    fn render_world(&self, scene: &mut Scene) {
        let shapes = self.shapes.borrow().clone();
        let world = self.world.borrow();
        world.build_scene_resident(scene, shapes.as_deref(), &mut self.meshes.borrow_mut());
        self.effects.borrow_mut().shapes(&world.camera(), world.terrain.as_deref(), &mut scene.shapes);
    }
}

/// A deterministic world for tests and benchmarks: `n` objects (a quarter players, the rest
/// items and projectiles) laid out from a fixed integer hash, the first player local.
pub fn synthetic_world(n: usize) -> WorldView {
    let mut objects = Vec::with_capacity(n);
    for i in 0..n as u32 {
        let hsh = i.wrapping_mul(2_654_435_761).rotate_left(13) ^ 0x9E37_79B9;
        let fx = (hsh & 0xFFFF) as f32 / 65535.0;
        let fy = (hsh >> 16) as f32 / 65535.0;
        let kind = match i % 4 {
            0 => ObjectKind::Player,
            1 | 2 => ObjectKind::Item,
            _ => ObjectKind::Projectile,
        };
        // Shots fly at chest height.
        let z = if kind == ObjectKind::Projectile { 1.2 } else { 0.0 };
        let pos = if i == 0 {
            Vec3::new(0.0, -20.0, 0.0)
        } else {
            Vec3::new((fx * 2.0 - 1.0) * (ARENA_HALF - 2.0), (fy * 2.0 - 1.0) * (ARENA_HALF - 2.0), z)
        };
        // Every other player runs (forward at 6 m/s), the rest stand.
        let vel = if i % 8 == 4 { facing(i as f32 * 0.7) * 6.0 } else { Vec3::ZERO };
        objects.push(ViewObject {
            id: i,
            kind,
            pos,
            yaw: (i as f32) * 0.7,
            vel,
            shape_file: None,
            rotate: i % 2 == 1,
            threads: Vec::new(),
            team: i / 4 % 2,
            is_me: i == 0,
            half_extents: Vec3::splat(0.5),
        });
    }
    if let Some(me) = objects.first_mut() {
        me.yaw = 0.0;
    }
    WorldView { objects, ..WorldView::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(kind: ObjectKind, first_person: bool) -> WorldView {
        let me = ViewObject {
            id: 1,
            kind,
            pos: Vec3::new(5.0, 6.0, 0.0),
            yaw: 0.0,
            vel: Vec3::ZERO,
            shape_file: None,
            rotate: false,
            threads: Vec::new(),
            team: 0,
            is_me: true,
            half_extents: Vec3::splat(0.5),
        };
        WorldView { objects: vec![me], first_person, ..WorldView::default() }
    }

    #[test]
    fn the_camera_is_asked_of_the_control_object() {
        // Third person: behind (-Y, yaw 0 faces +Y) and above the player.
        let chase = world(ObjectKind::Player, false).camera().position();
        assert!(chase.y < 6.0 - 10.0 && chase.z > 5.0, "{chase}");
        // First person: at the player's eye, looking where it faces.
        let eye = world(ObjectKind::Player, true).camera();
        assert!(eye.position().distance(Vec3::new(5.0, 6.0, EYE_HEIGHT)) < 1e-4, "{}", eye.position());
        assert!(eye.forward().y > 0.9);
        // A Camera object is always seen from.
        let cam = world(ObjectKind::Camera, false).camera().position();
        assert!(cam.distance(Vec3::new(5.0, 6.0, 0.0)) < 1e-4, "{cam}");
        // In first person the player's own shape is not drawn.
        let mut scene = Scene::default();
        world(ObjectKind::Player, true).build_scene(&mut scene, None);
        let boxes = |s: &Scene| s.shapes.iter().filter(|s| matches!(s, Shape::Box { .. })).count();
        let mut third = Scene::default();
        world(ObjectKind::Player, false).build_scene(&mut third, None);
        assert!(boxes(&third) > boxes(&scene));
    }

    /// A mission's water block is drawn (translucent, resident once built) and, with the
    /// eye under its surface, the sky becomes the liquid's fog; fog volumes become layers.
    #[test]
    fn water_is_drawn_and_seen_from_under_it() {
        let block = v12_world::WaterBlock {
            position: Vec3::new(-20.0, -20.0, 0.0),
            scale: Vec3::new(40.0, 40.0, 4.0),
            liquid_type: "Lava".into(),
            color: v12_world::mission::liquid_color("Lava"),
            ..v12_world::WaterBlock::default()
        };
        let mut w = world(ObjectKind::Camera, false);
        w.objects[0].pos.z = 6.0;
        w.waters = vec![(9, block)];
        let mut sky = v12_world::SkyParams::default();
        sky.fog_volumes[0] =
            v12_world::FogVolume { visible_distance: 50.0, bottom: 0.0, top: 10.0, color: Vec3::ONE };
        w.sky = Some(sky);
        let mut meshes = WorldMeshes::default();
        let mut scene = Scene::default();
        w.build_scene_resident(&mut scene, None, &mut meshes);
        let water =
            |s: &Scene| s.shapes.iter().filter(|s| matches!(s, Shape::Resident(m) if m.translucent)).count();
        assert!(water(&scene) > 0);
        let above = scene.sky.clone().unwrap();
        assert_eq!(above.fog_layers.len(), 1);
        // The camera object at (5, 6, 0) is under the surface at 4 m: the lava's fog.
        w.objects[0].pos.z = 2.0;
        let mut under = Scene::default();
        w.build_scene_resident(&mut under, None, &mut meshes);
        let fog = under.sky.unwrap();
        assert!(fog.fog_color.r > 200 && fog.visible_distance < 100.0, "{fog:?}");
        assert_ne!(fog.fog_color, above.fog_color);
    }

    /// An item turns only when its datablock says `rotate` (V12's ItemData).
    #[test]
    fn only_rotating_items_turn() {
        let item_at = |rotate: bool, time_ms: u64| {
            let mut w = world(ObjectKind::Player, false);
            w.objects.push(ViewObject {
                id: 2,
                kind: ObjectKind::Item,
                is_me: false,
                rotate,
                ..w.objects[0].clone()
            });
            w.time_ms = time_ms;
            let mut scene = Scene::default();
            w.build_scene(&mut scene, None);
            scene.shapes.iter().find_map(|s| match s {
                Shape::Box { rotation_z, color, .. } if *color == ColorI::rgb(250, 210, 40) => {
                    Some(*rotation_z)
                }
                _ => None,
            })
        };
        assert_eq!(item_at(false, 0), item_at(false, 500), "a still item");
        assert_ne!(item_at(true, 0), item_at(true, 500), "a rotating item");
    }
}
