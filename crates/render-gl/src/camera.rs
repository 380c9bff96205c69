//! The 3D camera in V12's convention (dglSetFrustum): the camera looks down +Y, +Z is
//! up and +X is right. Matrices are glam's (column-major); nothing here touches GL, so the
//! gui and game can project points without a context.

use crate::types::RectI;
use glam::{Mat4, Vec2, Vec3, Vec4};

/// Maps camera space (x right, y forward, z up) to GL eye space (x right, y up, -z forward).
const TORQUE_TO_GL: Mat4 = Mat4::from_cols(
    Vec4::new(1.0, 0.0, 0.0, 0.0),
    Vec4::new(0.0, 0.0, -1.0, 0.0),
    Vec4::new(0.0, 1.0, 0.0, 0.0),
    Vec4::new(0.0, 0.0, 0.0, 1.0),
);

/// A perspective camera: where it is, where it looks, and its horizontal field of view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Camera to world. Column 0 is right (+X), column 1 forward (+Y), column 2 up (+Z).
    pub transform: Mat4,
    /// Horizontal field of view in radians, as V12's camera query returns it.
    pub fov_x: f32,
    pub near: f32,
    pub far: f32,
}

impl Default for Camera {
    /// At the origin looking down +Y, 90 degrees wide, near 0.1, far 1000.
    fn default() -> Self {
        Camera { transform: Mat4::IDENTITY, fov_x: std::f32::consts::FRAC_PI_2, near: 0.1, far: 1000.0 }
    }
}

impl Camera {
    /// The camera reflected in the plane `normal · p = d` (`normal` of unit length): what it
    /// sees is the world as a mirror on that plane shows it to `self` (V12's mirrored camera
    /// for a MirrorSubObject). Its handedness is flipped, so triangles wind the other way.
    pub fn mirrored(&self, normal: Vec3, d: f32) -> Camera {
        let n = normal.normalize_or_zero();
        let r = Mat4::from_cols(
            (Vec3::X - 2.0 * n.x * n).extend(0.0),
            (Vec3::Y - 2.0 * n.y * n).extend(0.0),
            (Vec3::Z - 2.0 * n.z * n).extend(0.0),
            (2.0 * d * n).extend(1.0),
        );
        Camera { transform: r * self.transform, ..*self }
    }

    /// A camera at `eye` looking at `target` with +Z as up (`target` must not be straight
    /// above or below `eye`; then +Y is used as forward).
    pub fn look_at(eye: Vec3, target: Vec3, fov_x: f32, near: f32, far: f32) -> Self {
        let fwd = (target - eye).try_normalize().unwrap_or(Vec3::Y);
        let right = fwd.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::X);
        let up = right.cross(fwd);
        let transform = Mat4::from_cols(right.extend(0.0), fwd.extend(0.0), up.extend(0.0), eye.extend(1.0));
        Camera { transform, fov_x, near, far }
    }

    pub fn position(&self) -> Vec3 {
        self.transform.w_axis.truncate()
    }

    pub fn forward(&self) -> Vec3 {
        self.transform.y_axis.truncate()
    }

    /// World to GL eye space.
    pub fn view_matrix(&self) -> Mat4 {
        TORQUE_TO_GL * self.transform.inverse()
    }

    /// The GL projection for a viewport of the given aspect (width / height).
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
        let fov_y = 2.0 * ((self.fov_x * 0.5).tan() / aspect).atan();
        // The classic glFrustum/gluPerspective matrix (eye looks down -Z, depth to -1..1).
        let f = 1.0 / (fov_y * 0.5).tan();
        let (n, fa) = (self.near, self.far);
        Mat4::from_cols(
            Vec4::new(f / aspect, 0.0, 0.0, 0.0),
            Vec4::new(0.0, f, 0.0, 0.0),
            Vec4::new(0.0, 0.0, (fa + n) / (n - fa), -1.0),
            Vec4::new(0.0, 0.0, 2.0 * fa * n / (n - fa), 0.0),
        )
    }

    /// Projection times view for a viewport.
    pub fn view_projection(&self, viewport: RectI) -> Mat4 {
        self.projection_matrix(viewport.w as f32 / viewport.h.max(1) as f32) * self.view_matrix()
    }

    /// Where a world point lands on screen, in pixels with (0,0) top left (dglPointToScreen),
    /// or `None` when it is not in front of the near plane.
    pub fn point_to_screen(&self, world: Vec3, viewport: RectI) -> Option<Vec2> {
        let clip = self.view_projection(viewport) * world.extend(1.0);
        if clip.w < self.near {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(Vec2::new(
            viewport.x as f32 + (ndc.x + 1.0) * 0.5 * viewport.w as f32,
            viewport.y as f32 + (1.0 - ndc.y) * 0.5 * viewport.h as f32,
        ))
    }

    /// Pixels per world unit at distance 1 along the view axis (V12's world-to-screen
    /// scale): `viewport.w / (2 tan(fov_x / 2))`.
    pub fn world_to_screen_scale(&self, viewport: RectI) -> f32 {
        viewport.w as f32 / (2.0 * (self.fov_x * 0.5).tan())
    }

    /// The on-screen radius in pixels of a sphere of `radius` at `center` (dglProjectRadius),
    /// measured by its distance along the view axis; `None` when it is behind the near plane.
    pub fn projected_radius(&self, center: Vec3, radius: f32, viewport: RectI) -> Option<f32> {
        let dist = (center - self.position()).dot(self.forward());
        if dist < self.near {
            return None;
        }
        Some(radius / dist * self.world_to_screen_scale(viewport))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VP: RectI = RectI::new(0, 0, 200, 100);

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-3
    }

    #[test]
    fn a_mirrored_camera_sees_the_reflection() {
        let cam = Camera::look_at(Vec3::new(0.0, -5.0, 1.0), Vec3::new(0.0, 5.0, 1.0), 1.2, 0.1, 100.0);
        // A mirror on the plane y = 2 facing the camera: a point 1 m in front of it at x = 1
        // shows where its image 1 m behind it would.
        let m = cam.mirrored(Vec3::NEG_Y, -2.0);
        let seen = m.point_to_screen(Vec3::new(1.0, 1.0, 1.5), VP).unwrap();
        let image = cam.point_to_screen(Vec3::new(1.0, 3.0, 1.5), VP).unwrap();
        assert!(close(seen, image), "{seen} against {image}");
        assert!(close(m.position().truncate(), Vec2::new(0.0, 9.0)));
    }

    #[test]
    fn looks_down_plus_y_with_z_up() {
        let cam = Camera::default();
        assert!(close(cam.point_to_screen(Vec3::new(0.0, 10.0, 0.0), VP).unwrap(), Vec2::new(100.0, 50.0)));
        // +Z is up on screen (smaller y), +X is right.
        let up = cam.point_to_screen(Vec3::new(0.0, 10.0, 2.0), VP).unwrap();
        assert!(up.y < 50.0 && (up.x - 100.0).abs() < 1e-3);
        let right = cam.point_to_screen(Vec3::new(2.0, 10.0, 0.0), VP).unwrap();
        assert!(right.x > 100.0 && (right.y - 50.0).abs() < 1e-3);
        // Behind the camera and on the camera plane there is no screen point.
        assert!(cam.point_to_screen(Vec3::new(0.0, -10.0, 0.0), VP).is_none());
        assert!(cam.point_to_screen(Vec3::new(1.0, 0.0, 0.0), VP).is_none());
    }

    #[test]
    fn fov_edges_and_aspect() {
        // 90 degrees wide: at distance 10, x = ±10 is the left/right edge.
        let cam = Camera::default();
        assert!(close(cam.point_to_screen(Vec3::new(10.0, 10.0, 0.0), VP).unwrap(), Vec2::new(200.0, 50.0)));
        assert!(close(cam.point_to_screen(Vec3::new(-10.0, 10.0, 0.0), VP).unwrap(), Vec2::new(0.0, 50.0)));
        // Square pixels: the vertical edge is half as far out on a 2:1 viewport.
        assert!(close(cam.point_to_screen(Vec3::new(0.0, 10.0, 5.0), VP).unwrap(), Vec2::new(100.0, 0.0)));
        // Viewport offset shifts the result.
        let vp = RectI::new(30, 40, 200, 100);
        assert!(close(cam.point_to_screen(Vec3::new(0.0, 10.0, 0.0), vp).unwrap(), Vec2::new(130.0, 90.0)));
    }

    #[test]
    fn look_at_and_projected_radius() {
        let cam =
            Camera::look_at(Vec3::new(0.0, -20.0, 0.0), Vec3::ZERO, std::f32::consts::FRAC_PI_2, 0.1, 100.0);
        assert!(close(cam.point_to_screen(Vec3::ZERO, VP).unwrap(), Vec2::new(100.0, 50.0)));
        // Radius 2 at distance 20 with a 90-degree fov on 200 px: 2/20 * 100 = 10 px.
        assert!((cam.projected_radius(Vec3::ZERO, 2.0, VP).unwrap() - 10.0).abs() < 1e-3);
        assert!(cam.projected_radius(Vec3::new(0.0, -30.0, 0.0), 1.0, VP).is_none());
        // Looking along +X: a point further along X is at the centre, +Y is to the left.
        let cam = Camera::look_at(Vec3::ZERO, Vec3::X, 1.2, 0.1, 100.0);
        assert!(close(cam.point_to_screen(Vec3::new(5.0, 0.0, 0.0), VP).unwrap(), Vec2::new(100.0, 50.0)));
        assert!(cam.point_to_screen(Vec3::new(5.0, 1.0, 0.0), VP).unwrap().x < 100.0);
        // The projected radius matches the distance between projected points at the centre.
        let a = cam.point_to_screen(Vec3::new(5.0, 0.0, 0.0), VP).unwrap();
        let b = cam.point_to_screen(Vec3::new(5.0, -0.5, 0.0), VP).unwrap();
        assert!(
            ((b - a).length() - cam.projected_radius(Vec3::new(5.0, 0.0, 0.0), 0.5, VP).unwrap()).abs()
                < 1e-2
        );
    }
}
