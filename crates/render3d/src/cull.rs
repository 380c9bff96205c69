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
    }
}
