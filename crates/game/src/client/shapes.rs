//! Tribes 2's shape names mapped onto this engine's glTF shapes. A V12 datablock names a
//! `.dts` (`shapeFile = "light_male.dts";`) and a `TSShapeConstructor` datablock declares
//! the shape's sequences from `.dsq` files:
//!
//! ```text
//! datablock TSShapeConstructor(LightMaleDts) {
//!    baseShape = "light_male.dts";
//!    sequence0 = "light_male_root.dsq root";
//!    sequence1 = "light_male_forward.dsq run";
//! };
//! ```
//!
//! Here a `.dts` is the glTF of the same name under `shapes/` (`shapes/light_male.glb`), and
//! a sequence a script plays by its V12 name (`run`) is the glTF animation named after the
//! `.dsq` file its constructor declares (`light_male_forward`: a converted `.dsq` becomes an
//! animation of its file's name); a sequence no constructor declares plays the animation of
//! its own name.

use std::collections::HashMap;
use v12_console_vm::Console;

/// The most `sequenceN` fields read from one constructor (Tribes 2's player has about 60).
pub const MAX_SEQUENCES: usize = 128;

/// The glTF path that stands for a datablock's `shapeFile`: a `.dts` (or `.DTS`) becomes
/// `shapes/<name>.glb` (its folder kept when it has one); anything else is unchanged.
pub fn gltf_path(shape_file: &str) -> String {
    let file = shape_file.trim().replace('\\', "/");
    let Some(stem) = file.strip_suffix(".dts").or_else(|| file.strip_suffix(".DTS")) else { return file };
    if stem.contains('/') { format!("{stem}.glb") } else { format!("shapes/{stem}.glb") }
}

/// Every `TSShapeConstructor` datablock's sequence names, by the glTF path of its base shape
/// (lower case): V12 sequence name (lower case) → the `.dsq` file's stem.
#[derive(Debug, Default, Clone)]
pub struct ShapeConstructors {
    by_shape: HashMap<String, HashMap<String, String>>,
}

impl ShapeConstructors {
    /// Reads the constructors among the console's datablocks. A `sequenceN` that is not
    /// "file.dsq name" is skipped with a console warning naming the constructor and the field.
    pub fn from_console(con: &mut Console) -> Self {
        let mut by_shape: HashMap<String, HashMap<String, String>> = HashMap::new();
        for id in v12_sim::datablock::datablock_ids(con) {
            if !crate::classes::is_a(con, id, "TSShapeConstructor") {
                continue;
            }
            let base = con.get_field(id, "baseShape").as_text().trim().to_string();
            if base.is_empty() {
                continue;
            }
            let names = by_shape.entry(gltf_path(&base).to_ascii_lowercase()).or_default();
            for n in 0..MAX_SEQUENCES {
                let field = format!("sequence{n}");
                let text = con.get_field(id, &field).as_text().trim().to_string();
                if text.is_empty() {
                    continue;
                }
                let mut words = text.split_whitespace();
                let (Some(file), Some(name), None) = (words.next(), words.next(), words.next()) else {
                    let name = con.object_name(id);
                    let who = if name.is_empty() { id.to_string() } else { name };
                    let msg = format!(
                        "TSShapeConstructor {who}: {field} = \"{text}\" is not \"file.dsq name\"; skipped"
                    );
                    con.warn(&msg);
                    continue;
                };
                let file = file.replace('\\', "/");
                let stem = file.rsplit('/').next().unwrap_or(&file);
                let stem = stem.strip_suffix(".dsq").or_else(|| stem.strip_suffix(".DSQ")).unwrap_or(stem);
                names.insert(name.to_ascii_lowercase(), stem.to_string());
            }
        }
        Self { by_shape }
    }

    /// The glTF animation that plays sequence `name` of the shape at glTF path `shape`: the
    /// `.dsq` stem its constructor gave it, else `name`.
    pub fn animation<'a>(&'a self, shape: &str, name: &'a str) -> &'a str {
        self.by_shape
            .get(&shape.to_ascii_lowercase())
            .and_then(|m| m.get(&name.to_ascii_lowercase()))
            .map_or(name, String::as_str)
    }

    /// How many shapes have a constructor.
    pub fn len(&self) -> usize {
        self.by_shape.len()
    }

    /// True when no constructor was declared.
    pub fn is_empty(&self) -> bool {
        self.by_shape.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dts_names_map_to_gltf_and_sequences_to_their_dsq_animations() {
        assert_eq!(gltf_path("light_male.dts"), "shapes/light_male.glb");
        assert_eq!(gltf_path("vehicles\\skimmer.DTS"), "vehicles/skimmer.glb");
        assert_eq!(gltf_path("shapes/player.glb"), "shapes/player.glb");
        let mut con = Console::new();
        con.set_output(Box::new(v12_console_vm::BufferSink::new()));
        crate::classes::register(&mut con);
        con.eval(
            "datablock TSShapeConstructor(LightMaleDts) { baseShape = \"light_male.dts\";\n\
               sequence0 = \"light_male_root.dsq root\"; sequence1 = \"light_male_forward.dsq Run\";\n\
               sequence2 = \"junk\"; };",
        )
        .unwrap();
        let out = v12_console_vm::BufferSink::new();
        con.set_output(Box::new(out.clone()));
        let c = ShapeConstructors::from_console(&mut con);
        assert!(out.stderr().contains("LightMaleDts: sequence2 = \"junk\""), "{}", out.stderr());
        assert_eq!(c.len(), 1);
        assert_eq!(c.animation("shapes/Light_Male.glb", "run"), "light_male_forward");
        assert_eq!(c.animation("shapes/light_male.glb", "root"), "light_male_root");
        assert_eq!(c.animation("shapes/light_male.glb", "fire"), "fire");
        assert_eq!(c.animation("shapes/other.glb", "run"), "run");
    }
}
