//! Scene state for the view: which objects the camera can see. The planes of the view
//! frustum come from the view-projection matrix (each plane is a sum or difference of the
//! matrix's rows); a bounding sphere wholly outside one plane is not drawn.

use glam::{Mat4, Vec3, Vec4};

/// The six planes of a view frustum, as `(normal, d)` with the inside where
/// `normal · p + d >= 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frustum {
    planes: [Vec4; 6],
}

impl Frustum {
    /// The frustum of a view-projection matrix (clip space z in -1..=1, as OpenGL's).
    pub fn from_view_projection(m: Mat4) -> Frustum {
        let r = [m.row(0), m.row(1), m.row(2), m.row(3)];
        let planes =
            [r[3] + r[0], r[3] - r[0], r[3] + r[1], r[3] - r[1], r[3] + r[2], r[3] - r[2]].map(|p| {
                let len = p.truncate().length();
                if len > 0.0 { p / len } else { p }
            });
        Frustum { planes }
    }

    /// False when the sphere is wholly outside the frustum (it cannot be seen).
    pub fn sphere_visible(&self, center: Vec3, radius: f32) -> bool {
        self.planes.iter().all(|p| p.truncate().dot(center) + p.w >= -radius)
    }
}

/// A view's frustum with what picking a shape's detail level needs, computed once a frame:
/// per object then a sphere test and a division (the camera's
/// [`v12_render_gl::Camera::projected_radius`] takes a tangent a call).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewCull {
    pub frustum: Frustum,
    /// The frustum's planes by component (x, y, z, w of each), for a branch-free test.
    planes: [[f32; 6]; 4],
    eye: Vec3,
    forward: Vec3,
    near: f32,
    /// Pixels a unit at unit distance covers.
    scale: f32,
}

impl ViewCull {
    pub fn new(camera: &v12_render_gl::Camera, viewport: v12_render_gl::RectI) -> ViewCull {
        let frustum = Frustum::from_view_projection(camera.view_projection(viewport));
        let planes = [0, 1, 2, 3].map(|c| frustum.planes.map(|p| p[c]));
        ViewCull {
            frustum,
            planes,
            eye: camera.position(),
            forward: camera.forward(),
            near: camera.near,
            scale: camera.world_to_screen_scale(viewport),
        }
    }

    /// `None` when the sphere cannot be seen; else its on-screen diameter in pixels (as
    /// twice the camera's `projected_radius`), 0 when its centre is nearer than the near
    /// plane.
    #[inline]
    pub fn diameter(&self, center: Vec3, radius: f32) -> Option<f32> {
        let [x, y, z, w] = &self.planes;
        let outside = (0..6)
            .fold(false, |o, i| o | (x[i] * center.x + y[i] * center.y + z[i] * center.z + w[i] < -radius));
        if outside {
            return None;
        }
        let dist = (center - self.eye).dot(self.forward);
        Some(if dist < self.near { 0.0 } else { 2.0 * radius / dist * self.scale })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spheres_in_front_are_seen_and_behind_or_aside_are_not() {
        // Looking down +Y from the origin, 90 degrees wide, 1 to 100 m, a square view.
        let camera =
            v12_render_gl::Camera::look_at(Vec3::ZERO, Vec3::Y, std::f32::consts::FRAC_PI_2, 1.0, 100.0);
        let f =
            Frustum::from_view_projection(camera.view_projection(v12_render_gl::RectI::new(0, 0, 100, 100)));
        assert!(f.sphere_visible(Vec3::new(0.0, 10.0, 0.0), 1.0));
        assert!(!f.sphere_visible(Vec3::new(0.0, -10.0, 0.0), 1.0), "behind");
        assert!(!f.sphere_visible(Vec3::new(30.0, 10.0, 0.0), 1.0), "far to the side");
        assert!(f.sphere_visible(Vec3::new(10.5, 10.0, 0.0), 1.0), "straddling the edge");
        assert!(!f.sphere_visible(Vec3::new(0.0, 150.0, 0.0), 1.0), "past the far plane");
        let vp = v12_render_gl::RectI::new(0, 0, 100, 100);
        let v = ViewCull::new(&camera, vp);
        for (c, r) in [(Vec3::new(0.0, 10.0, 0.0), 1.0), (Vec3::new(3.0, 40.0, 1.0), 2.5)] {
            let want = camera.projected_radius(c, r, vp).unwrap() * 2.0;
            assert!((v.diameter(c, r).unwrap() - want).abs() < 1e-3);
        }
        assert_eq!(v.diameter(Vec3::new(0.0, -10.0, 0.0), 1.0), None);
        assert_eq!(v.diameter(Vec3::new(0.0, 0.5, 0.0), 1.0), Some(0.0), "nearer than the near plane");
    }
}
