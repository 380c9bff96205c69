//! Interior lightmaps (V12's InteriorLMManager and map2dif's light pass): the `.map` file's
//! `light` entities baked, with shadows, into one texture atlas per interior at load.
//!
//! The atlas lives in the shared [`crate::Interior`], so every instance of an interior draws
//! from the same lightmap (V12 shared lightmaps among instances the same way). Lights are in
//! the interior's own space, so an instance turned or moved keeps its light.
//!
//! A light entity as Quake-era map tools wrote it: `"classname" "light"`, `"origin" "x y z"`
//! (map units), `"light" "300"` (brightness: it reaches that many map units, linearly
//! fading), `"_color" "r g b"` (0..1, or 0..255). Each face gets a grid of luxels of
//! [`LUXEL`] metres (coarser for a big face: at most [`MAX_FACE_LUXELS`] a side), projected
//! on the axis plane the face is most turned to (as its texture is); a luxel adds each light
//! that reaches it, fading with distance and the angle to the face, unless a solid brush
//! lies between them (the shadow). The atlas is packed in shelves, at most
//! [`MAX_ATLAS`] texels a side; faces that do not fit get no lightmap (drawn unlit by the
//! lights), which is a problem the interior reports.

use glam::{DVec3, Vec3};

/// A luxel's side (m).
pub const LUXEL: f64 = 0.5;
/// Most luxels along one side of a face's map.
pub const MAX_FACE_LUXELS: usize = 64;
/// Most texels a side of the atlas.
pub const MAX_ATLAS: usize = 1024;
/// Most lights an interior bakes.
pub const MAX_LIGHTS: usize = 64;

/// A point light of the map (in the interior's metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InteriorLight {
    pub position: DVec3,
    /// Metres it reaches (falling linearly to nothing there).
    pub radius: f64,
    /// Colour, 0..=1 channels.
    pub color: Vec3,
}

impl InteriorLight {
    /// The light of a `light` entity's fields (`get(key)`), map units divided by `scale`;
    /// a junk field keeps the default (origin 0, brightness 300, white) and says so.
    pub fn from_entity(get: impl Fn(&str) -> Option<String>, scale: f64) -> (InteriorLight, Vec<String>) {
        let mut problems = Vec::new();
        let nums = |s: &str| -> Option<Vec<f64>> {
            let v: Vec<f64> = s.split_whitespace().map(|w| w.parse::<f64>().ok()).collect::<Option<_>>()?;
            v.iter().all(|x| x.is_finite() && x.abs() < 1e7).then_some(v)
        };
        let origin = match get("origin").map(|s| (nums(&s), s)) {
            Some((Some(v), _)) if v.len() == 3 => DVec3::new(v[0], v[1], v[2]) / scale,
            Some((_, s)) => {
                problems.push(format!("light origin \"{s}\" is not \"x y z\""));
                DVec3::ZERO
            }
            None => DVec3::ZERO,
        };
        let brightness = match get("light").map(|s| (nums(&s), s)) {
            Some((Some(v), _)) if v.len() == 1 && v[0] > 0.0 => v[0],
            Some((_, s)) => {
                problems.push(format!("light brightness \"{s}\" is not a positive number"));
                300.0
            }
            None => 300.0,
        };
        let color = match get("_color").map(|s| (nums(&s), s)) {
            Some((Some(v), _)) if v.len() >= 3 && v.iter().all(|c| *c >= 0.0) => {
                let max = v[0].max(v[1]).max(v[2]);
                let k = if max > 1.0 { 255.0 } else { 1.0 };
                Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32) / k as f32
            }
            Some((_, s)) => {
                problems.push(format!("light _color \"{s}\" is not \"r g b\""));
                Vec3::ONE
            }
            None => Vec3::ONE,
        };
        let light = InteriorLight {
            position: origin,
            radius: (brightness / scale).min(1000.0),
            color: color.clamp(Vec3::ZERO, Vec3::ONE),
        };
        (light, problems)
    }
}

/// Where one face's luxels are: a grid on the axis plane the face is most turned to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceLightmap {
    /// Which axes of the local point give the grid's (a, b) (0 x, 1 y, 2 z).
    pub axes: (usize, usize),
    /// The grid's corner (a, b) at luxel (0, 0)'s corner, and the luxel's side (m).
    pub min: (f64, f64),
    pub luxel: f64,
    /// The face's place in the atlas (texels) and its size.
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

/// An interior's baked lightmaps: the atlas (RGBA, the light each luxel gets from the map's
/// lights) and each face's place in it.
#[derive(Clone, Debug, PartialEq)]
pub struct Lightmaps {
    pub width: usize,
    pub height: usize,
    pub texels: Vec<[u8; 4]>,
    /// By face index, `None` where a face has none.
    pub faces: Vec<Option<FaceLightmap>>,
}

impl Lightmaps {
    /// The atlas coordinate (0..1) of local point `p` on face `face`, if it has a lightmap.
    pub fn uv(&self, face: usize, p: DVec3) -> Option<[f32; 2]> {
        let f = self.faces.get(face).copied().flatten()?;
        let (a, b) = (p[f.axes.0], p[f.axes.1]);
        let u = f.x as f64 + 1.0 + (a - f.min.0) / f.luxel;
        let v = f.y as f64 + 1.0 + (b - f.min.1) / f.luxel;
        Some([(u / self.width as f64) as f32, (v / self.height as f64) as f32])
    }
}

/// The two axes the face with normal `n` is projected on.
fn axes_for(n: DVec3) -> (usize, usize) {
    let a = n.abs();
    if a.x >= a.y && a.x >= a.z {
        (1, 2)
    } else if a.y >= a.z {
        (0, 2)
    } else {
        (0, 1)
    }
}

/// The point of the plane (normal `n`, through `on`) over grid point (a, b) of `axes`.
fn unproject(axes: (usize, usize), a: f64, b: f64, n: DVec3, on: DVec3) -> DVec3 {
    let k = 3 - axes.0 - axes.1;
    let mut p = DVec3::ZERO;
    p[axes.0] = a;
    p[axes.1] = b;
    // n·p = n·on, solved for the third coordinate (its normal part is the largest).
    let rest = n.dot(on) - n[axes.0] * a - n[axes.1] * b;
    p[k] = if n[k].abs() > 1e-9 { rest / n[k] } else { on[k] };
    p
}

/// Bakes `interior`'s `lights` into lightmaps (see the module's notes); the second value
/// lists the faces left without one.
pub fn bake(interior: &crate::Interior, lights: &[InteriorLight]) -> (Lightmaps, Vec<String>) {
    let mut problems = Vec::new();
    // Each face's grid: its axes, corner, luxel and size (a one-luxel border around it, so
    // filtering at the face's edge reads its own light).
    let mut grids = Vec::with_capacity(interior.faces.len());
    for face in &interior.faces {
        if face.points.len() < 3 {
            grids.push(None);
            continue;
        }
        let axes = axes_for(face.normal);
        let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
        for p in &face.points {
            lo = (lo.0.min(p[axes.0]), lo.1.min(p[axes.1]));
            hi = (hi.0.max(p[axes.0]), hi.1.max(p[axes.1]));
        }
        let span = (hi.0 - lo.0).max(hi.1 - lo.1).max(1e-3);
        let luxel = LUXEL.max(span / (MAX_FACE_LUXELS - 2) as f64);
        let w = (((hi.0 - lo.0) / luxel).ceil() as usize).max(1) + 2;
        let h = (((hi.1 - lo.1) / luxel).ceil() as usize).max(1) + 2;
        grids.push(Some((axes, lo, luxel, w, h)));
    }
    // Shelf packing, tallest first.
    let mut order: Vec<usize> = (0..grids.len()).filter(|&i| grids[i].is_some()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(grids[i].map_or(0, |g| g.4)));
    let mut faces = vec![None; grids.len()];
    let (mut x, mut y, mut shelf, mut width) = (0usize, 0usize, 0usize, 0usize);
    for i in order {
        let Some((axes, min, luxel, w, h)) = grids[i] else { continue };
        if x + w > MAX_ATLAS {
            y += shelf;
            x = 0;
            shelf = 0;
        }
        if y + h > MAX_ATLAS {
            problems.push(format!("face {i} has no room in the lightmap atlas"));
            continue;
        }
        faces[i] = Some(FaceLightmap { axes, min, luxel, x, y, w, h });
        x += w;
        shelf = shelf.max(h);
        width = width.max(x);
    }
    let (width, height) = (width.max(1).next_power_of_two(), (y + shelf).max(1).next_power_of_two());
    let mut texels = vec![[0, 0, 0, 255]; width * height];
    let lights = &lights[..lights.len().min(MAX_LIGHTS)];
    for (i, f) in faces.iter().enumerate() {
        let Some(f) = f else { continue };
        let face = &interior.faces[i];
        for ty in 0..f.h {
            for tx in 0..f.w {
                // Luxel centres; the border repeats the nearest inside luxel's place.
                let a = f.min.0 + ((tx.clamp(1, f.w - 2) as f64) - 0.5) * f.luxel;
                let b = f.min.1 + ((ty.clamp(1, f.h - 2) as f64) - 0.5) * f.luxel;
                let p = unproject(f.axes, a, b, face.normal, face.points[0]);
                let c = luxel_light(interior, lights, p, face.normal);
                let u = |v: f32| (v * 255.0).round().clamp(0.0, 255.0) as u8;
                texels[(f.y + ty) * width + f.x + tx] = [u(c.x), u(c.y), u(c.z), 255];
            }
        }
    }
    (Lightmaps { width, height, texels, faces }, problems)
}

/// The light at local point `p` on a face with normal `n`: each light that reaches it
/// unblocked, fading with distance and angle.
fn luxel_light(interior: &crate::Interior, lights: &[InteriorLight], p: DVec3, n: DVec3) -> Vec3 {
    let mut sum = Vec3::ZERO;
    let from = p + n * 0.02;
    for l in lights {
        let to = l.position - from;
        let d = to.length();
        if d >= l.radius || d < 1e-6 {
            continue;
        }
        let cos = n.dot(to / d);
        if cos <= 0.0 {
            continue;
        }
        // Shadow: a solid brush between the luxel and the light (hits right at the light's
        // end do not count: a light set into a wall still lights it).
        if interior.cast_ray(from.as_vec3(), l.position.as_vec3()).is_some_and(|h| h.t < 0.999) {
            continue;
        }
        let k = (1.0 - d / l.radius) * (0.35 + 0.65 * cos);
        sum += l.color * k as f32;
    }
    sum.min(Vec3::ONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_light_fields_are_defaults_with_a_word() {
        let fields = [("origin", "1 two 3"), ("light", "-5"), ("_color", "255 128 0")];
        let get = |k: &str| fields.iter().find(|(f, _)| *f == k).map(|(_, v)| v.to_string());
        let (l, problems) = InteriorLight::from_entity(get, 32.0);
        assert_eq!(l.position, DVec3::ZERO);
        assert_eq!(l.radius, 300.0 / 32.0);
        assert!((l.color.y - 128.0 / 255.0).abs() < 1e-6);
        assert_eq!(problems.len(), 2, "{problems:?}");
        let (l, p) = InteriorLight::from_entity(|_| Some("NaN inf 1e999".into()), 32.0);
        assert!(l.position.is_finite() && l.radius.is_finite() && l.color.is_finite());
        assert_eq!(p.len(), 3);
    }
}
