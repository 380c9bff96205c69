//! What the benches share: the example game's files (its material bitmaps read through the
//! resource manager, as the game does) and a painted, textured terrain.
#![allow(dead_code)]

use std::rc::Rc;

use v12_resource::ResourceManager;
use v12_world::{BLOCK_SIZE, TerrainBlock, WorldMaterial};

pub const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game");

/// The example game as a mod, with the bitmap loaders.
pub fn example_resources() -> Rc<ResourceManager> {
    let mut res = ResourceManager::new();
    res.add_mod(std::path::Path::new(EXAMPLE)).expect("the example game");
    res.register_bitmap_loaders();
    Rc::new(res)
}

/// Paints `t`'s squares by height (grass low, dirt between, rock high: `low`, `high` metres)
/// and returns its materials, found beside the example's terrain.
pub fn paint(t: &mut TerrainBlock, res: &ResourceManager, low: f32, high: f32) -> Rc<[WorldMaterial]> {
    t.material_names = vec!["Grass".into(), "Dirt".into(), "Rock".into()];
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let h = t.point_height(i, j);
            t.set_material(
                i,
                j,
                if h > high {
                    2
                } else if h > low {
                    1
                } else {
                    0
                },
            );
        }
    }
    let found = v12_world::materials::find_materials(res, &t.material_names, "terrains/arena.ter");
    assert!(found.iter().all(|m| m.found), "{found:?}");
    found
}
