//! Ghost scoping through the scene graph (V12's `SceneGraph::scopeScene`) against
//! distance-only scoping, on the same world in the same run: bits per client.
//!
//! The world: `data/two_rooms.map` with 8 players walking in each room and 8 outside (some in
//! front of the outer door, some behind the building). Each player's client gets a ghost
//! manager whose camera is the player. Distance scoping puts every player within 120 m in
//! scope; scene scoping only those in a zone the camera sees through the portals (and
//! within 120 m). Every 32 ms tick each player moves and each manager writes one packet
//! (at most 450 bytes, acknowledged at once). Run with `--nocapture` to see the figures.

use std::sync::Arc;

use glam::Vec3;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::{
    CameraScopeQuery, GhostClassRegistry, GhostClassRegistryBuilder, GhostConfig, GhostError, GhostManager,
    GhostPackContext, GhostUnpackContext, GhostWorld, NetObject, NetObjectClass, ObjectId, Point3, StateMask,
};
use v12_world::{Interior, InteriorInstance, SceneGraph};

const MOVE: u32 = 1;
const TICK_MS: u64 = 32;
const SECONDS: u64 = 10;
const VISIBLE_DISTANCE: f32 = 120.0;

#[derive(Default)]
struct Walker {
    pos: Vec3,
    mask: StateMask,
}

impl NetObject for Walker {
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, _: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
        if w.write_flag(mask & MOVE != 0) {
            for c in self.pos.to_array() {
                w.write_f32(c);
            }
        }
        0
    }
    fn unpack_update(
        &mut self,
        _: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        if r.read_flag()? {
            self.pos = Vec3::new(r.read_f32()?, r.read_f32()?, r.read_f32()?);
        }
        Ok(())
    }
    fn scope_position(&self) -> Option<Point3> {
        Some(self.pos.to_array())
    }
}

impl NetObjectClass for Walker {
    const NAME: &'static str = "Walker";
    fn create_ghost() -> Self {
        Walker::default()
    }
}

struct Players(Vec<Walker>);

impl GhostWorld for Players {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.0.get(id.0 as usize).map(|w| w as &dyn NetObject)
    }
}

/// Where the players walk: 8 in room 1, 8 in room 2, 8 outside.
fn homes() -> Vec<Vec3> {
    let mut v = Vec::new();
    for (x0, x1) in [(1.5, 8.5), (11.5, 18.5)] {
        for k in 0..8 {
            let (fx, fy) = ((k % 4) as f32 / 3.0, (k / 4) as f32);
            v.push(Vec3::new(x0 + (x1 - x0) * fx, 2.0 + 4.0 * fy, 1.5));
        }
    }
    for k in 0..8 {
        let a = k as f32 * std::f32::consts::TAU / 8.0;
        v.push(Vec3::new(10.0 + 35.0 * a.cos(), 4.0 + 35.0 * a.sin(), 1.5));
    }
    v
}

/// Bits sent to each client over the run, and the ghosts each held at the end.
fn run(scene: Option<&SceneGraph>, classes: &Arc<GhostClassRegistry>) -> (Vec<u64>, Vec<usize>) {
    let homes = homes();
    let mut players = Players(homes.iter().map(|&pos| Walker { pos, mask: StateMask::new() }).collect());
    let mut managers: Vec<GhostManager> = (0..homes.len())
        .map(|_| {
            let mut m = GhostManager::new(GhostConfig::default(), classes.clone());
            m.start_ghosting();
            m
        })
        .collect();
    let mut bits = vec![0u64; homes.len()];
    for tick in 0..SECONDS * 1000 / TICK_MS {
        for (i, p) in players.0.iter_mut().enumerate() {
            let a = tick as f32 * 0.05 + i as f32;
            p.pos = homes[i] + Vec3::new(a.cos(), a.sin(), 0.0) * 0.8;
            p.mask.set_mask_bits(MOVE);
        }
        for (c, m) in managers.iter_mut().enumerate() {
            let camera = players.0[c].pos;
            let visible = scene.map(|g| g.visible_zones(camera));
            m.begin_scope(CameraScopeQuery {
                scope_object: Some(ObjectId(c as u32)),
                position: camera.to_array(),
                visible_distance: VISIBLE_DISTANCE,
                ..CameraScopeQuery::default()
            });
            for (i, p) in players.0.iter().enumerate() {
                if p.pos.distance(camera) > VISIBLE_DISTANCE {
                    continue;
                }
                if let (Some(g), Some(v)) = (scene, &visible) {
                    let zones =
                        g.zones_of_box(p.pos - Vec3::new(0.4, 0.4, 0.9), p.pos + Vec3::new(0.4, 0.4, 0.9));
                    if !zones.iter().any(|z| v.contains(z)) {
                        continue;
                    }
                }
                m.object_in_scope(&players, ObjectId(i as u32));
            }
            m.end_scope();
            let mut w = BitWriter::with_budget_bytes(450);
            let record = m.write_packet(&players, &mut w);
            bits[c] += w.bit_position() as u64;
            m.packet_delivered(record);
        }
    }
    (bits, managers.iter().map(GhostManager::ghost_count).collect())
}

#[test]
fn scene_scoping_sends_fewer_bits_than_distance_scoping() {
    let classes = Arc::new(GhostClassRegistryBuilder::new().register::<Walker>().build().unwrap());
    let interior = Arc::new(Interior::from_map_text(include_str!("../data/two_rooms.map")).unwrap());
    let mut scene = SceneGraph::new();
    scene.add_interior(1, Arc::new(InteriorInstance::new(interior, Vec3::ZERO, glam::Quat::IDENTITY)));

    let (distance_bits, distance_ghosts) = run(None, &classes);
    let (scene_bits, scene_ghosts) = run(Some(&scene), &classes);
    let per_s = |b: &[u64]| b.iter().sum::<u64>() as f64 / b.len() as f64 / SECONDS as f64;
    let group = |b: &[u64], r: std::ops::Range<usize>| {
        b[r.clone()].iter().sum::<u64>() as f64 / r.len() as f64 / SECONDS as f64
    };
    println!(
        "bits/s per client, distance scoping: {:.0} (room 1 {:.0}, room 2 {:.0}, outside {:.0}); ghosts {distance_ghosts:?}",
        per_s(&distance_bits),
        group(&distance_bits, 0..8),
        group(&distance_bits, 8..16),
        group(&distance_bits, 16..24)
    );
    println!(
        "bits/s per client, scene scoping:    {:.0} (room 1 {:.0}, room 2 {:.0}, outside {:.0}); ghosts {scene_ghosts:?}",
        per_s(&scene_bits),
        group(&scene_bits, 0..8),
        group(&scene_bits, 8..16),
        group(&scene_bits, 16..24)
    );
    println!("scene / distance: {:.3}", per_s(&scene_bits) / per_s(&distance_bits));

    assert!(
        distance_ghosts.iter().all(|&g| g == 24),
        "distance scoping ghosts everyone: {distance_ghosts:?}"
    );
    // Everyone sees at least the players of their own zone.
    assert!(scene_ghosts[..16].iter().all(|&g| g >= 8), "{scene_ghosts:?}");
    // A player behind the building (the outside, no door on that side) sees no one inside.
    assert_eq!(scene_ghosts[16 + 4], 8, "player 20 stands at -x behind the building: {scene_ghosts:?}");
    assert!(per_s(&scene_bits) < 0.8 * per_s(&distance_bits));
}
