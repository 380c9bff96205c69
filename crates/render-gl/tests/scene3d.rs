//! A 3D view rendered headless: ground grid, boxes and spheres, compared with a golden, and
//! shapes found where the camera's point_to_screen says they are.

mod common;

use common::{Harness, check_golden};
use std::sync::Arc;
use v12_render_gl::glam::Vec3;
use v12_render_gl::{Camera, ColorI, DrawList, RectI, Scene, Shape};

fn scene() -> Scene {
    Scene {
        shapes: vec![
            Shape::Grid { center: Vec3::ZERO, cell_size: 2.0, cells: 20, color: ColorI::rgb(90, 110, 90) },
            Shape::Box {
                center: Vec3::new(0.0, 0.0, 1.0),
                half_extents: Vec3::new(1.0, 1.0, 1.0),
                rotation_z: 0.5,
                color: ColorI::rgb(220, 80, 60),
            },
            Shape::Box {
                center: Vec3::new(-6.0, 6.0, 2.0),
                half_extents: Vec3::new(1.0, 1.0, 2.0),
                rotation_z: 0.0,
                color: ColorI::rgb(220, 200, 60),
            },
            Shape::Sphere { center: Vec3::new(5.0, 3.0, 1.5), radius: 1.5, color: ColorI::rgb(60, 120, 230) },
            Shape::Line {
                from: Vec3::new(0.0, 0.0, 2.0),
                to: Vec3::new(0.0, 0.0, 6.0),
                color: ColorI::WHITE,
            },
        ],
        ..Scene::default()
    }
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, -14.0, 7.0), Vec3::new(0.0, 0.0, 1.0), 1.2, 0.5, 200.0)
}

#[test]
fn scene_golden_and_shapes_where_projected() {
    let mut h = Harness::new(160, 120);
    let vp = RectI::new(0, 0, 160, 120);
    let (cam, scene) = (camera(), scene());
    let img = h.frame(|r| r.draw_scene(vp, &cam, &scene));
    check_golden("scene3d", &img);
    let sky = scene.clear_color.unwrap().to_array();
    assert_eq!(img.get(2, 2), Some(sky), "sky above the horizon");
    // The centre of each solid shape is drawn in (a lit shade of) its colour.
    let red = cam.point_to_screen(Vec3::new(0.0, 0.0, 1.0), vp).unwrap();
    let p = img.get(red.x as u32, red.y as u32).unwrap();
    assert!(p[0] > p[1] && p[0] > p[2] && p[0] > 60, "red box at {red}: {p:?}");
    let blue = cam.point_to_screen(Vec3::new(5.0, 3.0, 1.5), vp).unwrap();
    let p = img.get(blue.x as u32, blue.y as u32).unwrap();
    assert!(p[2] > p[0] && p[2] > p[1], "blue sphere at {blue}: {p:?}");
    // The sphere's projected radius matches its drawn width within a couple of pixels.
    let rad = cam.projected_radius(Vec3::new(5.0, 3.0, 1.5), 1.5, vp).unwrap();
    let row = blue.y as u32;
    let bluish = (0..160).filter(|&x| {
        let q = img.get(x, row).unwrap().map(i32::from);
        q[2] > q[0] + 40 && q[2] > q[1] + 20 && q != sky.map(i32::from)
    });
    let span = bluish.clone().max().unwrap() - bluish.min().unwrap() + 1;
    assert!((span as f32 - 2.0 * rad).abs() < 4.0, "span {span} vs diameter {}", 2.0 * rad);
}

#[test]
fn view_region_in_a_draw_list_is_clipped_to_its_viewport() {
    let mut h = Harness::new(128, 96);
    let mut dl = DrawList::new();
    dl.clear_color(ColorI::rgb(10, 10, 10));
    dl.view_3d(RectI::new(16, 8, 96, 64), camera(), Arc::new(scene()));
    dl.draw_rect(RectI::new(15, 7, 98, 66), ColorI::WHITE);
    dl.draw_text(12, v12_render_gl::Point2I::new(16, 76), "GuiTSCtrl", ColorI::WHITE);
    let img = h.frame(|r| r.execute(&dl));
    check_golden("view3d_region", &img);
    assert_eq!(img.get(5, 5), Some([10, 10, 10, 255]), "outside the view untouched");
    assert_eq!(img.get(15, 7), Some([255, 255, 255, 255]));
    assert_eq!(img.get(17, 9), Some(Scene::default().clear_color.unwrap().to_array()));
}

/// V12's Sky on llvmpipe: a dome from the fog colour at the horizon to the zenith's
/// colour, a drifting cloud layer, boxes fading into the fog with distance, and translucent
/// panes drawn after the opaque world, back to front (the near red pane tints the far green
/// one, which tints the white box behind both).
#[test]
fn sky_fog_clouds_and_translucency_golden() {
    use v12_render_gl::{CloudLayer, Sky};
    let pane = |y: f32, color: ColorI| Shape::Box {
        center: Vec3::new(0.0, y, 1.5),
        half_extents: Vec3::new(1.5, 0.05, 1.5),
        rotation_z: 0.0,
        color,
    };
    let mut shapes: Vec<Shape> = (0..6)
        .map(|k| Shape::Box {
            center: Vec3::new(-8.0 + 3.5 * k as f32, 25.0 + 45.0 * k as f32, 2.0),
            half_extents: Vec3::new(1.5, 1.5, 2.0),
            rotation_z: 0.0,
            color: ColorI::rgb(90, 70, 50),
        })
        .collect();
    shapes.push(Shape::Box {
        center: Vec3::new(0.0, 12.0, 1.5),
        half_extents: Vec3::splat(1.0),
        rotation_z: 0.0,
        color: ColorI::WHITE,
    });
    shapes.push(pane(6.0, ColorI::rgba(220, 40, 40, 110)));
    shapes.push(pane(9.0, ColorI::rgba(40, 200, 60, 110)));
    let sky = Sky {
        zenith: ColorI::rgb(40, 90, 170),
        fog_color: ColorI::rgb(190, 200, 215),
        fog_distance: 40.0,
        visible_distance: 260.0,
        clouds: Some(CloudLayer {
            height: 60.0,
            color: ColorI::rgba(255, 255, 255, 170),
            drift: v12_render_gl::glam::Vec2::new(12.0, 3.0),
        }),
        fog_layers: Vec::new(),
    };
    let scene = Scene { shapes, sky: Some(sky), ..Scene::default() };
    let cam = Camera::look_at(Vec3::new(0.0, -2.0, 2.5), Vec3::new(0.0, 30.0, 6.0), 1.4, 0.3, 260.0);
    let mut h = Harness::new(160, 120);
    let vp = RectI::new(0, 0, 160, 120);
    let img = h.frame(|r| r.draw_scene(vp, &cam, &scene));
    check_golden("sky_fog_translucency", &img);
    // Through both panes the white box is tinted by each: more red than blue.
    let white = cam.point_to_screen(Vec3::new(0.0, 12.0, 1.5), vp).unwrap();
    let p = img.get(white.x as u32, white.y as u32).unwrap();
    assert!(p[0] > p[2] && p[1] > p[2], "white box seen through red and green panes: {p:?}");
    // Overhead the sky is bluer than at the horizon.
    let top = img.get(80, 1).unwrap();
    assert!(top[2] > top[0] + 30, "zenith {top:?}");
}

/// A ground of two layers blended by vertex weights on the GPU (red on the left edge, blue
/// on the right, both halves in between), a textured glass pane drawn after the opaque
/// world in the one back-to-front order, and a layer that names no texture drawn white and
/// counted.
#[test]
fn layers_blend_on_the_gpu_and_textured_glass_is_sorted_with_the_rest() {
    use v12_render_gl::{Layers, TexVertex3, TextureFilter};
    let mut h = Harness::new(160, 120);
    let solid = |c: [u8; 4]| v12_render_gl::Image::new(4, 4, c);
    let red =
        h.renderer.insert_texture("t/red", solid([230, 30, 30, 255]), TextureFilter::Mipmapped).unwrap();
    let blue =
        h.renderer.insert_texture("t/blue", solid([30, 30, 230, 255]), TextureFilter::Mipmapped).unwrap();
    let glass =
        h.renderer.insert_texture("t/glass", solid([40, 220, 40, 110]), TextureFilter::Mipmapped).unwrap();
    let v = |x: f32, y: f32, z: f32, w: [u8; 2]| TexVertex3 {
        pos: [x, y, z],
        uv: [x / 4.0, y / 4.0],
        color: [255; 4],
        weights: [w[0], w[1], 0, 0, 0, 0, 0, 0],
    };
    let quad = |a: TexVertex3, b: TexVertex3, c: TexVertex3, d: TexVertex3| vec![a, b, c, a, c, d];
    let ground = quad(
        v(-10.0, 0.0, 0.0, [255, 0]),
        v(10.0, 0.0, 0.0, [0, 255]),
        v(10.0, 30.0, 0.0, [0, 255]),
        v(-10.0, 30.0, 0.0, [255, 0]),
    );
    let pane = quad(
        v(-2.0, 8.0, 0.5, [255, 0]),
        v(2.0, 8.0, 0.5, [255, 0]),
        v(2.0, 8.0, 3.5, [255, 0]),
        v(-2.0, 8.0, 3.5, [255, 0]),
    );
    let layers = |names: &[&str]| -> Layers { names.iter().map(|n| Arc::from(*n)).collect() };
    let scene = Scene {
        shapes: vec![
            Shape::Textured {
                layers: layers(&["t/red", "t/blue"]),
                triangles: Arc::new(ground),
                translucent: false,
            },
            Shape::Box {
                center: Vec3::new(0.0, 12.0, 2.0),
                half_extents: Vec3::splat(1.0),
                rotation_z: 0.0,
                color: ColorI::WHITE,
            },
            Shape::Textured { layers: layers(&["t/glass"]), triangles: Arc::new(pane), translucent: true },
            Shape::Textured {
                layers: layers(&["no/such/texture"]),
                triangles: Arc::new(quad(
                    v(6.0, 10.0, 0.01, [255, 0]),
                    v(8.0, 10.0, 0.01, [255, 0]),
                    v(8.0, 12.0, 0.01, [255, 0]),
                    v(6.0, 12.0, 0.01, [255, 0]),
                )),
                translucent: false,
            },
        ],
        ambient: 1.0,
        ..Scene::default()
    };
    let cam = Camera::look_at(Vec3::new(0.0, -2.0, 3.0), Vec3::new(0.0, 12.0, 1.5), 1.4, 0.3, 200.0);
    let vp = RectI::new(0, 0, 160, 120);
    let img = h.frame(|r| r.draw_scene(vp, &cam, &scene));
    check_golden("textured_layers_glass", &img);
    let at = |p: Vec3| {
        let s = cam.point_to_screen(p, vp).unwrap();
        img.get(s.x as u32, s.y as u32).unwrap().map(i32::from)
    };
    let left = at(Vec3::new(-6.0, 5.0, 0.0));
    let right = at(Vec3::new(6.0, 5.0, 0.0));
    let middle = at(Vec3::new(0.0, 20.0, 0.0));
    assert!(left[0] > left[2] + 80, "red layer on the left: {left:?}");
    assert!(right[2] > right[0] + 80, "blue layer on the right: {right:?}");
    assert!((middle[0] - middle[2]).abs() < 40 && middle[0] > 90, "both halves between: {middle:?}");
    // The white box behind the glass is tinted green, the glass drawn after it.
    let boxed = at(Vec3::new(0.0, 11.0, 2.0));
    assert!(
        boxed[1] > boxed[0] + 60 && boxed[1] > boxed[2] + 60 && boxed[0] > 80,
        "box through glass: {boxed:?}"
    );
    // The missing layer is drawn white and counted.
    assert_eq!(at(Vec3::new(7.0, 11.0, 0.01)), [255, 255, 255, 255]);
    assert!(h.renderer.stats().missing_textures >= 1);
    assert!(h.renderer.stats().triangles >= 8);
    drop((red, blue, glass));
}
