//! 3D sound: distance attenuation between `referenceDistance` and `maxDistance`, sound cones,
//! and equal-power stereo panning by the source's direction in the listener's frame.
//!
//! Axes as in V12: x right, y forward, z up (a right-handed frame, so right = forward × up).

/// A point or direction.
pub type Vec3 = [f32; 3];

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn len(a: Vec3) -> f32 {
    dot(a, a).sqrt()
}

/// `a` scaled to length 1, or None when it is (nearly) zero or not finite.
pub fn normalized(a: Vec3) -> Option<Vec3> {
    let l = len(a);
    (l.is_finite() && l > 1e-6).then(|| [a[0] / l, a[1] / l, a[2] / l])
}

/// The listener: where the ears are and which way they face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listener {
    /// Position in the world.
    pub position: Vec3,
    /// The way the listener looks.
    pub forward: Vec3,
    /// The top of the listener's head.
    pub up: Vec3,
    /// Overall gain (`alxListenerf(AL_GAIN, …)`), 0..=1.
    pub gain: f32,
}

impl Default for Listener {
    fn default() -> Self {
        Listener { position: [0.0; 3], forward: [0.0, 1.0, 0.0], up: [0.0, 0.0, 1.0], gain: 1.0 }
    }
}

impl Listener {
    /// The listener's right, in the world (x when the frame is degenerate).
    pub fn right(&self) -> Vec3 {
        normalized(cross(self.forward, self.up)).unwrap_or([1.0, 0.0, 0.0])
    }
}

/// Distance attenuation: 1 within `reference`, 0 at and beyond `max`, linear between (as
/// V12's software falloff), so a sound past its `maxDistance` is exactly silent.
pub fn attenuation(distance: f32, reference: f32, max: f32) -> f32 {
    if !distance.is_finite() || distance >= max {
        return 0.0;
    }
    if distance <= reference {
        return 1.0;
    }
    (1.0 - (distance - reference) / (max - reference)).clamp(0.0, 1.0)
}

/// The cone's gain: 1 inside half the inner angle of the source's facing, `outside_volume`
/// beyond half the outer angle, linear between. Angles in degrees; 360 means no cone.
pub fn cone_gain(
    facing: Vec3,
    to_listener: Vec3,
    inside_deg: f32,
    outside_deg: f32,
    outside_volume: f32,
) -> f32 {
    if inside_deg >= 360.0 {
        return 1.0;
    }
    let (Some(f), Some(t)) = (normalized(facing), normalized(to_listener)) else { return 1.0 };
    let angle = dot(f, t).clamp(-1.0, 1.0).acos().to_degrees() * 2.0; // full cone angle
    let inside = inside_deg.max(0.0);
    let outside = outside_deg.max(inside);
    if angle <= inside {
        1.0
    } else if angle >= outside || outside <= inside {
        outside_volume
    } else {
        let t = (angle - inside) / (outside - inside);
        1.0 + (outside_volume - 1.0) * t
    }
}

/// Left and right gains for a pan in -1 (left) ..= 1 (right): equal power, scaled so that a
/// centred sound plays at full gain in both ears and a hard-panned one only in one.
pub fn pan_gains(pan: f32) -> [f32; 2] {
    let p = if pan.is_finite() { pan.clamp(-1.0, 1.0) } else { 0.0 };
    let theta = (p + 1.0) * std::f32::consts::FRAC_PI_4;
    let s = std::f32::consts::SQRT_2;
    // Snapped to 1 within rounding, so a centred 3D sound is exactly as loud as a 2D one.
    let g = |x: f32| if x * s > 0.99999 { 1.0 } else { (x * s).max(0.0) };
    [g(theta.cos()), g(theta.sin())]
}

/// Left and right gains of a 3D source at `position` facing `facing`, before volumes.
pub(crate) fn spatial_gains(
    listener: &Listener,
    position: Vec3,
    facing: Vec3,
    desc: &crate::Description,
) -> [f32; 2] {
    let d = sub(position, listener.position);
    let distance = len(d);
    let att = attenuation(distance, desc.reference_distance, desc.max_distance);
    if att == 0.0 {
        return [0.0; 2];
    }
    let cone = cone_gain(
        facing,
        sub(listener.position, position),
        desc.cone_inside_angle,
        desc.cone_outside_angle,
        desc.cone_outside_volume,
    );
    let pan = normalized(d).map(|dir| dot(dir, listener.right())).unwrap_or(0.0);
    let g = pan_gains(pan);
    [g[0] * att * cone, g[1] * att * cone]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attenuation_is_full_inside_reference_and_silent_at_max() {
        assert_eq!(attenuation(0.5, 1.0, 10.0), 1.0);
        assert_eq!(attenuation(10.0, 1.0, 10.0), 0.0);
        assert_eq!(attenuation(50.0, 1.0, 10.0), 0.0);
        assert!((attenuation(5.5, 1.0, 10.0) - 0.5).abs() < 1e-6);
        assert_eq!(attenuation(f32::NAN, 1.0, 10.0), 0.0);
    }

    #[test]
    fn pan_is_centred_and_hard() {
        assert_eq!(pan_gains(0.0), [1.0, 1.0]);
        let r = pan_gains(1.0);
        assert!(r[0] < 1e-6 && r[1] == 1.0);
        let l = pan_gains(-1.0);
        assert!(l[1] < 1e-6 && l[0] == 1.0);
    }

    #[test]
    fn cone_fades_from_inside_to_outside() {
        let f = [0.0, 1.0, 0.0];
        assert_eq!(cone_gain(f, [0.0, 1.0, 0.0], 90.0, 180.0, 0.25), 1.0);
        assert_eq!(cone_gain(f, [0.0, -1.0, 0.0], 90.0, 180.0, 0.25), 0.25);
        let mid = cone_gain(f, [1.0, 1.0 / (67.5f32).to_radians().tan(), 0.0], 90.0, 180.0, 0.25);
        assert!(mid < 1.0 && mid > 0.25, "{mid}");
        assert_eq!(cone_gain(f, [0.0, -1.0, 0.0], 360.0, 360.0, 0.0), 1.0);
    }
}
