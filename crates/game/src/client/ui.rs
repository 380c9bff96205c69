//! The client's GUI: a canvas whose screens come from the mod's `client/ui` scripts, the HUD
//! values pushed into the `$` variables those scripts bind, and one frame as a draw list.

pub use crate::client::snapshot::HudState;
use crate::client::view::{SharedView, WorldView};
use std::fmt;
use v12_console_vm::Console;
use v12_gui::{ConsoleLog, GuiCanvas, GuiError};
use v12_render_gl::DrawList;

/// Why the UI could not be built.
#[derive(Debug)]
pub enum UiError {
    Gui(GuiError),
    Script(String),
}

impl fmt::Display for UiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UiError::Gui(e) => write!(f, "gui: {e}"),
            UiError::Script(e) => write!(f, "client ui script: {e}"),
        }
    }
}

impl std::error::Error for UiError {}

/// The canvas, the world snapshot GuiTSCtrl draws, and the screens.
pub struct ClientUi {
    pub canvas: GuiCanvas,
    pub view: SharedView,
}

impl fmt::Debug for ClientUi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientUi").finish_non_exhaustive()
    }
}

/// Scales a value into a progress bar's 0..=1, saturating at `full`.
fn bar(v: f32, full: f32) -> f64 {
    f64::from((v / full).clamp(0.0, 1.0))
}

impl ClientUi {
    /// Builds the canvas and runs `client/ui/client.cs` (profiles, PlayGui, MainMenuGui) from
    /// the console's file root (the mod folder). `~` toggles the console.
    pub fn new(con: &mut Console, width: i32, height: i32) -> Result<Self, UiError> {
        // client.cs builds MoveMap: the ActionMap class and GlobalActionMap must exist.
        v12_sim::action_map::register_action_maps(con).map_err(|e| UiError::Script(e.to_string()))?;
        let mut canvas = GuiCanvas::new(con, width, height, ConsoleLog::new(256)).map_err(UiError::Gui)?;
        canvas.bind_console_toggle();
        // F10: the GUI Editor over whatever screen is up (v12_gui's GuiEditCtrl).
        canvas.bind_gui_editor_toggle();
        let view = SharedView::default();
        canvas.set_game_view(Some(Box::new(view.clone())));
        con.exec_file("client/ui/client.cs").map_err(|e| UiError::Script(e.to_string()))?;
        Ok(ClientUi { canvas, view })
    }

    /// The World Editor (F11, `v12_editor`): its class and `toggleEditor`, and the 3D view
    /// that shows the editor's world while it is open and the game's otherwise.
    pub fn install_editor(
        &mut self,
        con: &mut Console,
        resources: std::rc::Rc<v12_resource::ResourceManager>,
    ) {
        let ed = v12_editor::install(con, resources);
        v12_editor::bind_toggle(&mut self.canvas);
        let game: Box<dyn v12_gui::GameView> = Box::new(self.view.clone());
        self.canvas.set_game_view(Some(Box::new(v12_editor::EditorView::new(ed, Some(game)))));
    }

    /// Shows a screen by its control name (`PlayGui`, `MainMenuGui`).
    pub fn show(&mut self, con: &mut Console, screen: &str) -> Result<(), UiError> {
        let id =
            con.find_object_str(screen).ok_or_else(|| UiError::Script(format!("no control {screen}")))?;
        self.canvas.set_content(con, id);
        Ok(())
    }

    /// Moves the effects on to `now_ms` with the projectile ghosts now in view (see
    /// `client::effects`) and the players and vehicles (`client::movers`), and plays the
    /// sounds of the explosions that spawned.
    pub fn update_effects(
        &self,
        con: &mut Console,
        shots: &[(u32, glam::Vec3, glam::Vec3, v12_console_vm::ObjectId)],
        movers: &[crate::client::movers::Mover],
        dippers: &[crate::client::effects::Dipper],
        now_ms: u64,
    ) {
        let (sounds, warnings) = {
            let mut fx = self.view.effects.borrow_mut();
            fx.update_movers(con, movers, now_ms);
            fx.update_splashes(con, dippers);
            fx.update(con, shots, now_ms);
            (fx.take_sounds(), fx.movers.vehicles.take_warnings())
        };
        for w in warnings {
            con.warn(&w);
        }
        for (profile, pos) in sounds {
            crate::audio::play_at(con, profile, pos.to_array(), "explosion");
        }
    }

    /// Replaces the world snapshot the game view draws.
    pub fn set_world(&self, world: WorldView) {
        *self.view.world.borrow_mut() = world;
    }

    /// Draws players and items with the game's shapes from `res` (`shapes/*.glb`), when
    /// it has them; boxes otherwise.
    pub fn load_shapes(&self, res: &v12_resource::ResourceManager) {
        *self.view.shapes.borrow_mut() = crate::client::view::ViewShapes::load(res);
    }

    /// Writes the HUD's `$` variables (the .gui controls are bound to them).
    pub fn set_hud(&self, con: &mut Console, hud: &HudState) {
        con.set_global("Hud::Score", hud.score);
        con.set_global("Hud::Health", i64::from(hud.health));
        con.set_global("Hud::HealthFraction", bar(hud.health as f32, hud.max_health.max(1) as f32));
        con.set_global("Hud::Energy", hud.energy.round() as i64);
        con.set_global("Hud::EnergyFraction", bar(hud.energy, hud.max_energy.max(1.0)));
        con.set_global("NetGraph::PingText", format!("ping {:.0} ms", hud.ping_ms));
        con.set_global("NetGraph::Ping", bar(hud.ping_ms, 300.0));
        con.set_global("NetGraph::LossText", format!("loss {:.1} %", hud.packet_loss * 100.0));
        con.set_global("NetGraph::Loss", bar(hud.packet_loss, 0.25));
        con.set_global("NetGraph::RateText", format!("{:.1} kbit/s", hud.kbps_in));
        con.set_global("NetGraph::Rate", bar(hud.kbps_in, 64.0));
    }

    /// One frame of the whole canvas (the game view and the HUD on top) as a draw list.
    pub fn render(&mut self, con: &mut Console, list: &mut DrawList) {
        list.clear();
        self.canvas.render(con, list);
    }
}
