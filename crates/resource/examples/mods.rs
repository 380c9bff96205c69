//! Mods on the search path: a base folder and a mod that overrides one of its files, loaded
//! through one `ResourceManager` (one instance per path, paths compared without case).
//!
//! `cargo run -p v12-resource --example mods`

use v12_resource::{Resource, ResourceManager};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::temp_dir().join(format!("v12-resource-example-{}", std::process::id()));
    let (base, ctf) = (root.join("base"), root.join("ctf"));
    std::fs::create_dir_all(base.join("scripts"))?;
    std::fs::create_dir_all(ctf.join("scripts"))?;
    std::fs::write(base.join("scripts/game.txt"), "deathmatch rules")?;
    std::fs::write(base.join("scripts/hud.txt"), "the base HUD")?;
    std::fs::write(ctf.join("scripts/game.txt"), "capture the flag rules")?;

    let mut res = ResourceManager::new();
    res.add_mod(&base)?;
    res.add_mod(&ctf)?; // a later mod overrides an earlier one
    res.register_loader::<String>("txt", |bytes, _path| Ok(String::from_utf8_lossy(bytes).into_owned()));

    let game = res.load::<String>("scripts/game.txt")?;
    let hud = res.load::<String>("Scripts/HUD.txt")?;
    println!("scripts/game.txt: {game:?} (from the ctf mod)");
    println!("scripts/hud.txt:  {hud:?} (from base: the mod does not have it)");
    let again = res.load::<String>("SCRIPTS/game.TXT")?;
    println!("loaded again under another case: the same instance? {}", Resource::ptr_eq(&game, &again));
    match res.load::<String>("../outside.txt") {
        Ok(_) => println!("read outside the mods (a bug)"),
        Err(e) => println!("a path that climbs out is refused: {e}"),
    }
    std::fs::remove_dir_all(&root)?;
    Ok(())
}
