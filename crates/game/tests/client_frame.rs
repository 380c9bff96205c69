//! The client's frame: a fixed, deterministic scene with the HUD rendered headless and
//! compared with `tests/golden/client_hud.png` (per-channel tolerance 2, as render-gl's
//! goldens; `V12_BLESS=1` rewrites it; a mismatch writes the actual and diff images). No EGL
//! context is a failure, never a skip.

use std::path::{Path, PathBuf};
use v12_console_vm::Console;
use v12_game::client::frame::HeadlessFrame;
use v12_game::client::ui::{ClientUi, HudState};
use v12_game::client::view::{ObjectKind, ViewObject, WorldView, team_color};
use v12_render_gl::glam::Vec3;
use v12_render_gl::{DrawList, Image};

const W: u32 = 400;
const H: u32 = 300;

fn mod_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"))
}

fn obj(id: u32, kind: ObjectKind, x: f32, y: f32, yaw: f32, team: u32, is_me: bool) -> ViewObject {
    ViewObject {
        id,
        kind,
        pos: Vec3::new(x, y, 0.0),
        yaw,
        vel: Vec3::ZERO,
        shape_file: None,
        // Items turn (as the example's coins say); the flag below does not.
        rotate: kind == ObjectKind::Item,
        threads: Vec::new(),
        team,
        is_me,
        half_extents: Vec3::splat(0.5),
    }
}

fn world() -> WorldView {
    WorldView {
        objects: vec![
            obj(1, ObjectKind::Player, 0.0, 0.0, 0.0, 0, true),
            obj(2, ObjectKind::Player, -6.0, 14.0, 2.0, 1, false),
            // Running (its run cycle at 500 ms), the others idle.
            ViewObject {
                vel: Vec3::new(4.0, -3.0, 0.0),
                ..obj(3, ObjectKind::Player, 7.0, 18.0, -2.5, 0, false)
            },
            obj(4, ObjectKind::Item, 3.0, 8.0, 0.0, 0, false),
            // An item whose datablock names the flag's shape (as the CTF mod's flags do).
            ViewObject {
                shape_file: Some("shapes/flag.glb".into()),
                rotate: false,
                ..obj(5, ObjectKind::Item, -9.0, 24.0, 0.0, 0, false)
            },
            // A shot flies at chest height (drawn where it is).
            ViewObject {
                pos: Vec3::new(1.0, 6.0, 1.2),
                ..obj(6, ObjectKind::Projectile, 1.0, 6.0, 0.1, 0, false)
            },
        ],
        walls: Vec::new(),
        interiors: None,
        terrain: None,
        // A close fog, so the frame shows it fading the far objects and the grid.
        sky: Some(v12_world::SkyParams {
            visible_distance: 120.0,
            fog_distance: 15.0,
            fog_color: Vec3::new(0.62, 0.7, 0.8),
            ..v12_world::SkyParams::default()
        }),
        first_person: false,
        time_ms: 500,
        ..WorldView::default()
    }
}

fn hud() -> HudState {
    HudState {
        score: 12,
        health: 66,
        max_health: 100,
        energy: 42.0,
        max_energy: 60.0,
        ping_ms: 64.0,
        packet_loss: 0.05,
        kbps_in: 18.5,
    }
}

/// The console, the UI on PlayGui with the fixed world, HUD values and chat.
fn ui(w: u32, h: u32) -> (Console, ClientUi) {
    let mut con = Console::new();
    con.set_file_root(mod_dir());
    let mut ui = ClientUi::new(&mut con, w as i32, h as i32).expect("client ui scripts");
    // Players and items as the game's animated shapes (`game/shapes/*.glb`).
    let mut res = v12_resource::ResourceManager::new();
    res.add_mod(&mod_dir()).expect("the example mod");
    ui.load_shapes(&res);
    ui.show(&mut con, "PlayGui").expect("PlayGui");
    ui.set_world(world());
    ui.set_hud(&mut con, &hud());
    con.set_global("Scoreboard", "Player=12 Bot1=4 Bot2=7");
    con.eval(r#"clientCmdChatMessage("Bot1", "nice shot"); clientCmdChatMessage("Player", "gg");"#).unwrap();
    (con, ui)
}

fn render(w: u32, h: u32) -> Image {
    let (mut con, mut ui) = ui(w, h);
    let mut list = DrawList::new();
    ui.render(&mut con, &mut list);
    let mut f = HeadlessFrame::new(w, h).expect("a headless EGL context is required for rendering tests");
    f.capture(&list).expect("read back").0
}

fn check_golden(name: &str, actual: &Image) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.png"));
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, actual, &artefacts) {
        panic!("{msg}");
    }
}

#[test]
fn game_view_with_hud_matches_golden() {
    let img = render(W, H);
    check_golden("client_hud", &img);
}

#[test]
fn hud_shows_bound_variables_and_world_where_projected() {
    let (mut con, mut ui) = ui(W, H);
    // The GuiTextCtrl variable bindings pull the values the client set.
    let mut list = DrawList::new();
    ui.render(&mut con, &mut list);
    assert_eq!(con.get_field(con.find_object_str("HudScore").unwrap(), "text").to_string(), "12");
    assert_eq!(con.get_field(con.find_object_str("HudHealth").unwrap(), "text").to_string(), "66");
    assert_eq!(con.get_global("Chat::Line4").to_string(), "Player: gg");
    assert_eq!(con.get_global("Chat::Line3").to_string(), "Bot1: nice shot");
    let texts: Vec<String> = list
        .commands
        .iter()
        .filter_map(|c| match c {
            v12_render_gl::DrawCommand::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    for want in ["ping 64 ms", "loss 5.0 %", "18.5 kbit/s", "Player=12 Bot1=4 Bot2=7", "Player: gg"] {
        assert!(texts.iter().any(|t| t == want), "HUD text {want:?} missing from {texts:?}");
    }
    // The local player's body is drawn in its team colour where the camera projects it.
    let w = world();
    let cam = w.camera();
    let vp = v12_render_gl::RectI::new(0, 0, W as i32, H as i32);
    let p = cam.point_to_screen(Vec3::new(0.0, 0.0, 0.9), vp).expect("player in view");
    let img = render(W, H);
    let px = img.get(p.x as u32, p.y as u32).unwrap();
    let me = team_color(0, true);
    assert!(px[1] > px[0] && px[1] > px[2], "local player green at {p}: {px:?} (colour {me:?})");
}

/// Tab toggles the first-person view (`toggleFirstPerson` on MoveMap, as Tribes 2's).
#[test]
fn tab_toggles_first_person() {
    let (mut con, _ui) = ui(W, H);
    assert!(!con.get_global("firstPerson").truthy());
    con.eval("toggleFirstPerson(1); toggleFirstPerson(0);").unwrap();
    assert!(con.get_global("firstPerson").truthy());
    con.eval("toggleFirstPerson(1);").unwrap();
    assert!(!con.get_global("firstPerson").truthy());
    // The real key through the action maps (MoveMap pushed, as in play).
    con.eval("MoveMap.push();").unwrap();
    let tab = |action| v12_platform::InputEvent {
        device_type: v12_platform::InputDeviceType::Keyboard,
        device_inst: 0,
        object_type: v12_platform::InputObjectType::Key,
        object_inst: v12_sim::action_map::key_code("tab").unwrap(),
        action,
        modifiers: v12_platform::Modifiers::NONE,
        ascii: 0,
        value: if action == v12_platform::InputAction::Make { 1.0 } else { 0.0 },
    };
    v12_sim::action_map::handle_event(&mut con, &tab(v12_platform::InputAction::Make));
    v12_sim::action_map::handle_event(&mut con, &tab(v12_platform::InputAction::Break));
    assert!(con.get_global("firstPerson").truthy(), "tab pressed and released: first person");
}

/// F11 in the window client's engine side (the same `ClientFront` the window drives, fed the
/// key as the window posts it): the World Editor opens on the mod's mission with its objects
/// in the tree and its view drawn; F11 again goes back to the main menu.
#[test]
fn f11_in_the_window_client_opens_the_world_editor_on_the_mission() {
    use v12_game::client::front::{ClientFront, WindowConfig};
    use v12_platform::{Event, InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers};
    let cfg = WindowConfig {
        connect: None,
        mod_dir: mod_dir(),
        mods: Vec::new(),
        exec: Vec::new(),
        v12: "v12".into(),
        name: "Editor".into(),
        journal: None,
        report: |_| {},
        audio_capture: None,
    };
    let mut front = ClientFront::new(cfg).expect("the client starts");
    let f11 = |make: bool| {
        Event::Input(InputEvent {
            device_type: InputDeviceType::Keyboard,
            device_inst: 0,
            object_type: InputObjectType::Key,
            object_inst: v12_platform::key_code("f11").unwrap(),
            action: if make { InputAction::Make } else { InputAction::Break },
            modifiers: Modifiers::NONE,
            ascii: 0,
            value: if make { 1.0 } else { 0.0 },
        })
    };
    let eval = |front: &mut ClientFront, s: &str| front.con.eval(s).unwrap().to_string();
    front.post(f11(true));
    front.post(f11(false));
    front.frame().unwrap();
    assert_eq!(eval(&mut front, "return Canvas.getContent() == EditorGui.getId();"), "1");
    assert_eq!(
        eval(&mut front, "return isObject(Barracks) && isObject(Terrain);"),
        "1",
        "the mission is loaded"
    );
    let rows: usize = eval(&mut front, "return EWorldEditorTree.rowCount();").parse().unwrap();
    assert!(rows >= 5, "MissionGroup, its terrain, building, sky and area: {rows}");
    assert_eq!(
        eval(&mut front, "EWorldEditor.select(Barracks); return EWorldEditor.getSelected();"),
        eval(&mut front, "return Barracks.getId();")
    );
    assert!(!front.render().is_empty(), "the editor's frame");
    front.post(f11(true));
    front.post(f11(false));
    front.frame().unwrap();
    assert_eq!(eval(&mut front, "return Canvas.getContent() == MainMenuGui.getId();"), "1");
}
