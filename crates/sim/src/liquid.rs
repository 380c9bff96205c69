//! Bodies in a liquid (V12's LiquidProfile physics on a walking object): how much of a body's
//! box is under the surface, what lifts it (the liquid's density against the body's), what
//! slows it (the liquid's viscosity), and how fast it swims.
//!
//! The water itself is the game's (its WaterBlocks, seed-filled over the terrain): it answers
//! through [`Liquids`], which [`crate::scene::Motion::liquid`] holds. The server and the
//! controlling client build it from the same blocks and the same terrain, so the walk in
//! water is part of the predicted move like the rest of it.
//!
//! A leaf module (it uses nothing of the crate); `scene.rs`'s walk calls [`Immersion::gravity`],
//! [`Immersion::drag`] and [`swim_speed`]; a hover vehicle's stabiliser rides the surface as it
//! rides the ground ([`Liquids::surface`], `vehicle_motion.rs`).

use glam::Vec3;

/// Per unit of `viscosity`, the share of its speed a body keeps losing a second (at full
/// coverage): water's 15 takes 1.5 / s.
pub const VISCOUS_DRAG: f32 = 0.1;

/// The same for the vertical speed, stronger, so a floating body settles at its waterline
/// within a second or two instead of bobbing out of the water: water's 15 takes 7.5 / s.
pub const HEAVE_DRAG: f32 = 0.5;

/// A body this much under water (share of its height) swims: its moves push it though it
/// stands on nothing.
pub const SWIM_COVERAGE: f32 = 0.25;

/// What a body's box is in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Immersion {
    /// The share (0..=1) of the box's height under the surface.
    pub coverage: f32,
    /// The liquid's density (water 1; 0.1..=10).
    pub density: f32,
    /// The liquid's viscosity (water 15; 0..=100).
    pub viscosity: f32,
}

/// The water a moving body may be in: answered by the game (its WaterBlocks) on the server
/// and on the controlling client alike.
pub trait Liquids: std::fmt::Debug {
    /// What the box with its bottom centre at `feet` and half extents `half` is in, or `None`
    /// when it is dry. Must be cheap for a box far from any water (the walk asks every tick).
    fn immersion(&self, feet: Vec3, half: Vec3) -> Option<Immersion>;

    /// The height of the surface over (x, y) where there is water there, else `None`: what a
    /// hover vehicle floats on (`crate::vehicle_motion`).
    fn surface(&self, x: f32, y: f32) -> Option<f32>;
}

impl Immersion {
    /// The body's gravity (m/s², downward) less the liquid's lift: `gravity × (1 − coverage ×
    /// liquid density / body density)`; negative when it floats up. V12's buoyancy.
    pub fn gravity(&self, gravity: f32, body_density: f32) -> f32 {
        let lift = self.coverage.clamp(0.0, 1.0) * self.density / body_density.max(0.01);
        gravity * (1.0 - lift)
    }

    /// The velocity after `dt` seconds of the liquid's drag (by its viscosity, times the
    /// coverage): [`VISCOUS_DRAG`] across, [`HEAVE_DRAG`] up and down.
    pub fn drag(&self, vel: Vec3, dt: f32) -> Vec3 {
        let k = -self.viscosity.max(0.0) * self.coverage.clamp(0.0, 1.0) * dt;
        let (across, heave) = ((k * VISCOUS_DRAG).exp(), (k * HEAVE_DRAG).exp());
        Vec3::new(vel.x * across, vel.y * across, vel.z * heave)
    }

    /// Whether the body swims (enough of it under the surface to push off the liquid).
    pub fn swims(&self) -> bool {
        self.coverage >= SWIM_COVERAGE
    }
}

/// The running speed wanted in the liquid: from `max_speed` dry to `swim` (V12's
/// `maxUnderwaterForwardSpeed`) half under, and `swim` deeper.
pub fn swim_speed(max_speed: f32, swim: f32, coverage: f32) -> f32 {
    let k = (coverage * 2.0).clamp(0.0, 1.0);
    max_speed + (swim.min(max_speed) - max_speed) * k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_light_body_floats_a_dense_one_sinks_slower_and_both_slow() {
        let water = |coverage| Immersion { coverage, density: 1.0, viscosity: 15.0 };
        assert_eq!(water(0.0).gravity(20.0, 1.0), 20.0, "dry: all the gravity");
        assert!(water(1.0).gravity(20.0, 0.5) < 0.0, "under water, half as dense: it rises");
        assert!(water(0.5).gravity(20.0, 0.5).abs() < 1e-6, "half under: it floats there");
        let heavy = water(1.0).gravity(20.0, 10.0);
        assert!(heavy > 0.0 && heavy < 20.0, "ten times as dense: it sinks, slower ({heavy})");
        let v = Vec3::new(8.0, 0.0, -4.0);
        let slowed = water(1.0).drag(v, 0.032);
        assert!(slowed.x < 8.0 && slowed.z > -4.0 && slowed.x > 7.0, "{slowed}");
        assert_eq!(water(0.0).drag(v, 0.032), v);
        assert_eq!(swim_speed(8.0, 4.0, 0.0), 8.0);
        assert_eq!(swim_speed(8.0, 4.0, 0.25), 6.0);
        assert_eq!(swim_speed(8.0, 4.0, 0.9), 4.0);
        assert!(!water(0.2).swims() && water(0.3).swims());
        // Junk densities neither divide by zero nor turn the sign.
        assert!(water(1.0).gravity(20.0, 0.0).is_finite());
    }
}
