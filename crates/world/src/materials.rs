//! The materials of terrains and interiors (V12: MaterialList): each name finds its bitmap
//! beside the terrain's or interior's file, through the resource manager (so in any mod or
//! volume, with Torque's extension search), and a bitmap with see-through texels makes its
//! faces translucent (drawn after what is behind them, back to front).

use std::rc::Rc;
use v12_resource::{Bitmap, MaterialList, ResourceManager};

/// One material of a terrain or an interior.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldMaterial {
    /// The name in the file (`Grass`, `WALL`).
    pub name: String,
    /// The bitmap's path when found, else where it was looked for (drawn white).
    pub texture: String,
    pub found: bool,
    /// Some texel of the bitmap is not opaque (a window's glass).
    pub translucent: bool,
}

/// The materials `names` of the terrain or interior read from `file`.
pub fn find_materials(res: &ResourceManager, names: &[String], file: &str) -> Rc<[WorldMaterial]> {
    let dir = file.replace('\\', "/");
    let dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
    let list = MaterialList { names: names.to_vec() };
    list.names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let path = list.bitmap_path(i, dir, |p| res.search().is_file(p));
            let bitmap = path.as_deref().and_then(|p| res.load::<Bitmap>(p).ok());
            if path.is_none() {
                tracing::warn!(file, material = %name, "no bitmap for this material; drawn white");
            }
            WorldMaterial {
                name: name.clone(),
                found: path.is_some(),
                texture: path
                    .unwrap_or_else(|| if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") }),
                translucent: bitmap.is_some_and(|b| has_see_through_texels(&b)),
            }
        })
        .collect()
}

fn has_see_through_texels(b: &Bitmap) -> bool {
    let rgba = b.to_rgba();
    rgba.level(0).is_some_and(|px| px.chunks_exact(4).any(|p| p[3] < 255))
}
