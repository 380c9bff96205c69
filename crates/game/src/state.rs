//! The server's game state that script functions and the loop share: the scene, who controls
//! what, the script-created game objects, and the match's end. Script functions hold it in an
//! `Rc<RefCell<..>>` and borrow it only between script calls.

use std::collections::BTreeMap;
use v12_console_vm::ObjectId;
use v12_sim::scene::SceneWorld;

/// Shared between script functions and the loop.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) world: Option<SceneWorld>,
    /// Scene object → the client (console object) controlling it (`setControlObject`).
    pub(crate) control: BTreeMap<u32, u32>,
    /// `setControlObject` or a removal changed who controls what: the host hands it to the
    /// connections.
    pub(crate) control_dirty: bool,
    /// Script-created game objects by scene id (`crate::objects`).
    pub(crate) objects: BTreeMap<u32, GameObject>,
    /// Console id → scene id of each game object.
    pub(crate) by_console: BTreeMap<u32, u32>,
    /// Control objects the script moved (their client needs the full state).
    pub(crate) moved: Vec<u32>,
    /// The match is over and the world settled (`freezeWorld()`).
    pub(crate) frozen: bool,
    /// `ghostCheck()` waits for every client to hold the settled world, until this time.
    pub(crate) ghost_check_by: Option<u64>,
    /// Since when no ghost change has been in flight (while a check waits).
    pub(crate) ghost_settled_since: Option<u64>,
}

/// Which engine class an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameClass {
    Player,
    Item,
    StaticShape,
}

/// What the engine keeps for one script-created object, beside its scene object.
#[derive(Debug, Clone, PartialEq)]
pub struct GameObject {
    /// The console object.
    pub console: ObjectId,
    pub class: GameClass,
    /// The datablock's console id.
    pub datablock: ObjectId,
    /// `getDamageLevel()`: 0 is unhurt; at `max_damage` the object is disabled.
    pub damage: f32,
    /// The datablock's `maxDamage` (default 100).
    pub max_damage: f32,
    /// The datablock's `mass` (default 9), for `applyImpulse`.
    pub mass: f32,
}

impl GameObject {
    /// `getState()`: `Enabled`, or `Disabled` once the damage reached the maximum.
    pub fn state(&self) -> &'static str {
        if self.damage >= self.max_damage { "Disabled" } else { "Enabled" }
    }

    /// The health the clients see (0..=100, the HUD's bar).
    pub(crate) fn health(&self) -> u8 {
        if self.max_damage <= 0.0 {
            return 100;
        }
        (100.0 * (1.0 - self.damage / self.max_damage)).clamp(0.0, 100.0).round() as u8
    }
}
