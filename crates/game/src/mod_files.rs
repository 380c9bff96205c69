//! The game's files through the resource manager: the `--mod` folder with its volumes
//! (`.vl2` / `.zip` archives), so a mod shipped as one volume runs unchanged.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use v12_console_vm::Console;
use v12_console_vm::files::FileSource;
use v12_resource::ResourceManager;

/// A resource manager as the console's file source, and the mod folder where `save` and
/// `fileWrite` put files: a file written after the mods were mounted (a mission or a GUI an
/// editor saved) is read from there, so `exec` loads it back.
#[derive(Debug)]
pub struct ModFiles(pub Rc<ResourceManager>, pub PathBuf);

impl ModFiles {
    /// `path` in the mod folder when it is a plain relative path to a file there.
    fn written(&self, path: &str) -> Option<PathBuf> {
        let p = Path::new(path);
        let plain = p
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
        let full = self.1.join(p);
        (plain && full.is_file()).then_some(full)
    }
}

impl FileSource for ModFiles {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        match self.0.search().read(path) {
            Ok(b) => Ok(b),
            Err(e) => match self.written(path) {
                Some(full) => std::fs::read(full).map_err(|e| e.to_string()),
                None => Err(e.to_string()),
            },
        }
    }
    fn is_file(&self, path: &str) -> bool {
        self.0.search().is_file(path) || self.written(path).is_some()
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
    con.set_file_source(Rc::new(ModFiles(res.clone(), mod_dir.to_path_buf())));
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
