//! V12's MaterialPropertyMap: what a surface material is like to walk on and look at, keyed
//! by the material's texture name (`terrain/LushWorld.GrassDark`, `lush/be_ichute01`).
//! Tribes 2's `*PropMap.cs` scripts fill it with `addMaterialMapping(name, props...)`, each
//! property one of `"sound: n"` (the footstep sound class: 0 soft, 1 hard, 2 metal, 3 snow),
//! `"color: r g b startAlpha endAlpha"` (the dust puffs' colour), `"environment: texture
//! coef"` (an environment map and its strength) and `"detail: texture"`. A second call for the
//! same material adds to what the first set. As in V12 the map is the console object named
//! `MaterialPropertyMap`, made when the game classes are registered, so that client and
//! server code alike read it through their console.

use std::collections::HashMap;
use v12_console_vm::Console;

/// The map's console object (its class and its name).
pub const MAP_OBJECT: &str = "MaterialPropertyMap";

/// Materials held at most: every stock mapping of Tribes 2 is a few hundred.
pub const MAX_MATERIALS: usize = 4096;

/// One material's properties (each unset until a mapping names it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialProperty {
    /// `sound:` the footstep sound class.
    pub sound: Option<u32>,
    /// `color:` the puff colour (red, green, blue) and its alpha at start and end of life.
    pub puff_color: Option<[f32; 5]>,
    /// `environment:` the environment map's texture and how strongly it shows (0..=1).
    pub environment: Option<(String, f32)>,
    /// `detail:` the detail texture.
    pub detail: Option<String>,
}

/// The materials by lower-cased name.
pub type MaterialMap = HashMap<String, MaterialProperty>;

impl MaterialProperty {
    /// Sets what one `"key: value"` property says; `Err` names what is wrong with it, and
    /// changes nothing.
    pub fn apply(&mut self, prop: &str) -> Result<(), String> {
        let (key, rest) = prop.split_once(':').ok_or_else(|| format!("\"{prop}\" is not \"key: value\""))?;
        let words: Vec<&str> = rest.split_whitespace().collect();
        let num = |w: &str| w.parse::<f32>().ok().filter(|v| v.is_finite());
        match key.trim().to_ascii_lowercase().as_str() {
            "sound" => match words.as_slice() {
                [n] => {
                    self.sound = Some(n.parse().map_err(|_| format!("sound: \"{n}\" is not a sound class"))?)
                }
                _ => return Err(format!("sound: wants one number, got \"{}\"", rest.trim())),
            },
            "color" => {
                let v: Vec<f32> = words.iter().filter_map(|w| num(w)).collect();
                let [r, g, b, a0, a1] = v[..] else {
                    return Err(format!(
                        "color: wants \"r g b startAlpha endAlpha\", got \"{}\"",
                        rest.trim()
                    ));
                };
                self.puff_color = Some([r, g, b, a0, a1].map(|c| c.clamp(0.0, 1.0)));
            }
            "environment" => match words.as_slice() {
                [tex, coef] => {
                    let c = num(coef).ok_or_else(|| format!("environment: \"{coef}\" is not a number"))?;
                    self.environment = Some(((*tex).to_string(), c.clamp(0.0, 1.0)));
                }
                _ => return Err(format!("environment: wants \"texture coef\", got \"{}\"", rest.trim())),
            },
            "detail" => match words.as_slice() {
                [tex] => self.detail = Some((*tex).to_string()),
                _ => return Err(format!("detail: wants one texture, got \"{}\"", rest.trim())),
            },
            other => return Err(format!("unknown property \"{other}\"")),
        }
        Ok(())
    }
}

/// Adds (or adds to) material `name`'s mapping; every property is tried, and the first error
/// is returned (the good properties still count).
pub fn add_mapping(map: &mut MaterialMap, name: &str, props: &[&str]) -> Result<(), String> {
    let key = name.to_ascii_lowercase();
    if !map.contains_key(&key) && map.len() >= MAX_MATERIALS {
        return Err(format!("more than {MAX_MATERIALS} materials"));
    }
    let entry = map.entry(key).or_default();
    let mut first = Ok(());
    for p in props {
        if let Err(e) = entry.apply(p)
            && first.is_ok()
        {
            first = Err(e);
        }
    }
    first
}

/// The properties of material `name`, if a mapping named it (the name as any case).
pub fn material(con: &Console, name: &str) -> Option<MaterialProperty> {
    let map = con.object_data::<MaterialMap>(con.find_object_str(MAP_OBJECT)?)?;
    map.get(&name.to_ascii_lowercase()).cloned()
}

/// The `MaterialPropertyMap` object and `addMaterialMapping(name, property...)`.
pub(crate) fn register(con: &mut Console) {
    let _ = con.register_class(MAP_OBJECT, "SimObject");
    if con.find_object_str(MAP_OBJECT).is_none()
        && let Err(e) =
            con.create_object_with_data(MAP_OBJECT, Some(MAP_OBJECT), Box::new(MaterialMap::new()))
    {
        tracing::warn!("{MAP_OBJECT}: {e}");
    }
    con.register_function(
        "addMaterialMapping",
        3,
        99,
        "addMaterialMapping(material, \"sound: n\" | \"color: r g b a0 a1\" | \"environment: tex coef\" | \"detail: tex\", ...)",
        move |c, a| {
            let name = a.str(0);
            let props: Vec<String> = (1..a.len()).map(|i| a.str(i).to_string()).collect();
            let props: Vec<&str> = props.iter().map(String::as_str).collect();
            let map = c.find_object_str(MAP_OBJECT).and_then(|id| c.object_data_mut::<MaterialMap>(id));
            let Some(map) = map else {
                c.error("addMaterialMapping: cannot find the global material map object");
                return false;
            };
            match add_mapping(map, &name, &props) {
                Ok(()) => true,
                Err(e) => {
                    c.warn(&format!("addMaterialMapping: {name}: {e}"));
                    false
                }
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_add_up_and_bad_properties_are_refused_by_name() {
        let mut m = MaterialMap::new();
        add_mapping(&mut m, "terrain/IceWorld.Ice", &["color: 0.9 0.9 0.9 0.4 0.0"]).unwrap();
        add_mapping(&mut m, "terrain/iceworld.ICE", &["sound: 3"]).unwrap();
        add_mapping(&mut m, "ice/sw_ichute01", &["environment: special/chuteTexture 0.25"]).unwrap();
        let ice = &m["terrain/iceworld.ice"];
        assert_eq!(ice.sound, Some(3));
        assert_eq!(ice.puff_color, Some([0.9, 0.9, 0.9, 0.4, 0.0]));
        assert_eq!(m["ice/sw_ichute01"].environment, Some(("special/chuteTexture".into(), 0.25)));
        // Junk: the good property counts, the bad one is named and changes nothing.
        let e = add_mapping(&mut m, "terrain/IceWorld.Ice", &["detail: d/ice", "sound: loud"]).unwrap_err();
        assert!(e.contains("sound"), "{e}");
        assert_eq!(m["terrain/iceworld.ice"].sound, Some(3));
        assert_eq!(m["terrain/iceworld.ice"].detail.as_deref(), Some("d/ice"));
        assert!(add_mapping(&mut m, "x", &["color: 1 nan 1 1 1"]).is_err());
        assert!(add_mapping(&mut m, "x", &["glow: 1"]).unwrap_err().contains("glow"));
        assert!(add_mapping(&mut m, "x", &["no colon"]).is_err());
    }

    #[test]
    fn scripts_add_mappings_as_tribes_2_does() {
        let (mut con, _, out) = crate::objects::tests::game_console();
        let r = crate::objects::tests::eval(
            &mut con,
            "return addMaterialMapping(\"terrain/LushWorld.DirtMossy\", \"color: 0.46 0.36 0.26 0.4 0.0\", \"sound: 0\");",
        );
        assert_eq!(r, "1");
        let m = material(&con, "TERRAIN/lushworld.dirtmossy").unwrap();
        assert_eq!((m.sound, m.puff_color.map(|c| c[4])), (Some(0), Some(0.0)));
        assert_eq!(
            crate::objects::tests::eval(&mut con, "return addMaterialMapping(\"x\", \"sound: many\");"),
            "0"
        );
        assert!(out.all().contains("addMaterialMapping: x: sound"), "{}", out.all());
        assert_eq!(crate::objects::tests::eval(&mut con, "return isDemo();"), "0");
    }

    #[test]
    fn the_map_is_capped() {
        let mut m = MaterialMap::new();
        for i in 0..MAX_MATERIALS {
            add_mapping(&mut m, &format!("m{i}"), &["sound: 1"]).unwrap();
        }
        assert!(add_mapping(&mut m, "one/more", &["sound: 1"]).is_err());
        // An existing material still takes properties.
        add_mapping(&mut m, "m0", &["sound: 2"]).unwrap();
        assert_eq!(m.len(), MAX_MATERIALS);
    }
}
