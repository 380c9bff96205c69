//! A mirror (V12's MirrorSubObject): a reflecting surface drawn from the mirrored camera,
//! against a golden; what stands in front of it is seen in it where its image behind the
//! plane would be, what hides the surface still hides it, and a mirror seen from behind or
//! with no plane draws no reflection.

mod common;

use common::{Harness, check_golden};
use std::sync::Arc;
use v12_render_gl::glam::Vec3;
use v12_render_gl::{Camera, ColorI, RectI, Scene, Shape};

const W: u32 = 320;
const H: u32 = 240;

/// A mirror 6 m wide and 3 m high on the plane y = 4, facing -Y.
fn mirror(tint: ColorI) -> Shape {
    let (a, b, c, d) = (
        Vec3::new(-3.0, 4.0, 0.0),
        Vec3::new(3.0, 4.0, 0.0),
        Vec3::new(3.0, 4.0, 3.0),
        Vec3::new(-3.0, 4.0, 3.0),
    );
    Shape::Mirror { triangles: Arc::new(vec![a, b, c, a, c, d]), tint }
}

/// A floor, a red box and a blue sphere in front of the mirror, a yellow post left of it
/// (seen directly and in it), and a green box in front hiding part of the surface.
fn scene(mirror_shape: Shape) -> Scene {
    let shapes = vec![
        Shape::Grid {
            center: Vec3::new(0.0, 0.0, 0.0),
            cell_size: 1.0,
            cells: 12,
            color: ColorI::rgb(200, 200, 200),
        },
        Shape::Box {
            center: Vec3::new(1.5, 1.5, 0.75),
            half_extents: Vec3::splat(0.75),
            rotation_z: 0.4,
            color: ColorI::rgb(210, 40, 40),
        },
        Shape::Sphere { center: Vec3::new(-1.2, 2.2, 0.8), radius: 0.8, color: ColorI::rgb(50, 80, 220) },
        Shape::Box {
            center: Vec3::new(-4.0, 3.0, 1.0),
            half_extents: Vec3::new(0.2, 0.2, 1.0),
            rotation_z: 0.0,
            color: ColorI::rgb(230, 210, 40),
        },
        Shape::Box {
            center: Vec3::new(0.6, -1.5, 0.3),
            half_extents: Vec3::new(0.3, 0.3, 0.3),
            rotation_z: 0.0,
            color: ColorI::rgb(40, 190, 60),
        },
        mirror_shape,
    ];
    Scene { shapes, clear_color: Some(ColorI::rgb(30, 30, 40)), ..Scene::default() }
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(-1.0, -5.0, 2.2), Vec3::new(0.5, 4.0, 1.2), 1.3, 0.1, 100.0)
}

#[test]
fn a_mirror_reflects_what_stands_in_front_of_it() {
    let mut h = Harness::new(W, H);
    let vp = RectI::new(0, 0, W as i32, H as i32);
    let cam = camera();
    let img = h.frame(|r| r.draw_scene(vp, &cam, &scene(mirror(ColorI::rgba(200, 220, 255, 40)))));
    check_golden("mirror", &img);
    let px = |p: Vec3| {
        let s = cam.point_to_screen(p, vp).expect("in view");
        img.get(s.x as u32, s.y as u32).expect("inside")
    };
    // The floor's grid line y = 2 is seen in it where its image y = 6 would be.
    let line = px(Vec3::new(-2.6, 6.0, 0.0));
    assert!(line[0] > 150, "the grid's reflection: {line:?}");
    // The red box's image, 2.5 m behind the plane, is red in the mirror (the side turned
    // from the light, ambient only, under the tint).
    let red = px(Vec3::new(1.5, 6.5, 0.75));
    assert!(red[0] > red[1] + 30 && red[0] > red[2] + 30, "the red box's reflection: {red:?}");
    // The sphere's image is blue.
    let blue = px(Vec3::new(-1.2, 5.8, 0.8));
    assert!(blue[2] > blue[0] + 30 && blue[2] > blue[1] + 30, "the sphere's reflection: {blue:?}");
    // The green box in front still hides the surface.
    let green = px(Vec3::new(0.6, -1.5, 0.3));
    assert!(green[1] > green[0] + 60, "the box in front: {green:?}");
    // Without the mirror, the same place of the surface shows the background, not red.
    let plain = h.frame(|r| {
        r.draw_scene(vp, &cam, &scene(Shape::Line { from: Vec3::ZERO, to: Vec3::ZERO, color: ColorI::WHITE }))
    });
    let s = cam.point_to_screen(Vec3::new(1.5, 6.5, 0.75), vp).unwrap();
    let bg = plain.get(s.x as u32, s.y as u32).unwrap();
    assert!(bg[0] < 100, "no reflection without the mirror: {bg:?}");
}

#[test]
fn a_mirror_from_behind_or_with_no_plane_reflects_nothing() {
    let mut h = Harness::new(W, H);
    let vp = RectI::new(0, 0, W as i32, H as i32);
    // From behind (north of the plane, looking south at its back): the tint alone.
    let back = Camera::look_at(Vec3::new(0.5, 10.0, 1.5), Vec3::new(0.5, 4.0, 1.5), 1.3, 0.1, 100.0);
    let img = h.frame(|r| r.draw_scene(vp, &back, &scene(mirror(ColorI::rgba(200, 220, 255, 255)))));
    let at = back.point_to_screen(Vec3::new(0.5, 4.0, 2.8), vp).unwrap();
    let p = img.get(at.x as u32, at.y as u32).unwrap();
    assert!(p[2] > 200 && p[1] > 180, "the back shows its tint: {p:?}");
    // No plane (collinear points, a NaN): a warning, nothing drawn, no panic.
    for pts in [vec![Vec3::ZERO, Vec3::X, Vec3::X * 2.0], vec![Vec3::NAN, Vec3::X, Vec3::Y], vec![Vec3::X]] {
        let s = scene(Shape::Mirror { triangles: Arc::new(pts), tint: ColorI::WHITE });
        h.frame(|r| r.draw_scene(vp, &camera(), &s));
    }
}
