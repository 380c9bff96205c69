//! The game's files through the resource manager: the `--mod` folder with its volumes
//! (`.vl2` / `.zip` archives), so a mod shipped as one volume runs unchanged.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use v12_console_vm::Console;
use v12_console_vm::files::FileSource;
use v12_resource::ResourceManager;

/// A resource manager as the console's file source.
#[derive(Debug)]
pub struct ModFiles(pub Rc<ResourceManager>);

impl FileSource for ModFiles {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.0.search().read(path).map_err(|e| e.to_string())
    }
    fn is_file(&self, path: &str) -> bool {
        self.0.search().is_file(path)
    }
    fn find(&self, pattern: &str) -> Vec<String> {
        self.0.search().find(pattern)
    }
}

/// Mounts `mod_dir` and then `mods` over it (each with its volumes) and makes them where the
/// console reads scripts and answers `isFile`, `findFirstFile`, `getFileCRC`; a bad volume is
/// reported and skipped. Returns the manager (with the bitmap, world and, with `render`, font loaders), for the renderer's
/// textures to come from the same mods and instances.
pub fn install(con: &mut Console, mod_dir: &Path, mods: &[PathBuf]) -> std::io::Result<Rc<ResourceManager>> {
    let mut res = ResourceManager::new();
    res.register_bitmap_loaders();
    v12_world::register_loaders(&mut res);
    v12_audio::register_sound_loaders(&mut res);
    #[cfg(feature = "render")]
    v12_render_gl::register_font_loader(&mut res);
    for dir in std::iter::once(mod_dir).chain(mods.iter().map(PathBuf::as_path)) {
        let problems = res.add_mod(dir).map_err(std::io::Error::other)?;
        for p in problems {
            con.warn(&format!("mod: {p}"));
        }
    }
    let res = Rc::new(res);
    con.set_file_source(Rc::new(ModFiles(res.clone())));
    Ok(res)
}

/// The UI's face: `fonts/<fontType>.ttf` (or `.otf`) of the default GUI profile
/// (`GuiDefaultProfile.fontType`; without one, the built-in default's `DejaVuSans`), through
/// the resource manager. `None` (with a console
/// warning when a file was there but did not load) keeps the embedded face.
#[cfg(feature = "render")]
pub fn ui_font(con: &mut Console, res: &ResourceManager) -> Option<v12_render_gl::FontFace> {
    let name = con
        .find_object_str("GuiDefaultProfile")
        .map(|p| con.get_field(p, "fontType").to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "DejaVuSans".to_string());
    let path =
        ["ttf", "otf"].iter().map(|ext| format!("fonts/{name}.{ext}")).find(|p| res.search().is_file(p))?;
    match res.load::<v12_render_gl::FontFace>(&path) {
        Ok(face) => Some((*face).clone()),
        Err(e) => {
            con.warn(&format!("font: {e}; using the built-in face"));
            None
        }
    }
}
