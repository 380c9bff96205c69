//! The engine's tools in every mode (issue 36): a dedicated server (`v12 --dedicated`) reads
//! a script that declares GUI classes (profiles, cursors, message vectors, action maps) and
//! uses the inspector's script API and `save`, which refuses to write outside the mod folder.

#[allow(dead_code, reason = "this test uses a few of the shared helpers")]
#[path = "common/procs.rs"]
mod procs;

use std::time::Duration;

const MAIN: &str = r#"
new GuiControlProfile(HudProfile) { fontSize = 14; fillColor = "0 0 0 128"; justify = "center"; };
new GuiCursor(DefaultCursor) { hotSpot = "1 1"; bitmapName = "gui/cursor"; };
new MessageVector(HudMessageVector);
HudMessageVector.pushBackLine("hello", 1);
new ActionMap(MoveMap);
new GuiControl(HudGui) { profile = "HudProfile"; extent = "640 480";
   new GuiTextCtrl(HudText) { profile = "HudProfile"; position = "4 4"; extent = "100 20"; text = "hi"; };
};
function GuiControlProfile::onPreApply(%this) { $log = $log @ "pre" @ %this.fontSize; }
function GuiControlProfile::onPostApply(%this) { $log = $log @ "post" @ %this.fontSize; }
new GuiInspector(Insp) { extent = "300 10"; };
Insp.inspect(HudProfile);
echo("tools: inspecting " @ (Insp.getInspectObject() == HudProfile.getId()));
Insp.setEditValue(fontSize, "huge");
echo("tools: junk applied " @ Insp.apply() @ " size " @ HudProfile.fontSize);
Insp.setEditValue(fontSize, "18");
Insp.setEditValue(justify, "RIGHT");
echo("tools: applied " @ Insp.apply() @ " size " @ HudProfile.fontSize @ " " @ HudProfile.justify @ " " @ $log);
echo("tools: lines " @ HudMessageVector.getNumLines() @ " " @ HudMessageVector.getLineText(0));
echo("tools: save outside " @ HudGui.save("../escape.gui"));
echo("tools: save inside " @ HudGui.save("gui/hud.gui"));
HudGui.delete();
exec("gui/hud.gui");
echo("tools: loaded back " @ HudText.text @ " " @ HudText.getGroup().getName());
quit();
"#;

#[test]
fn a_dedicated_server_declares_gui_classes_inspects_and_saves() {
    let dir = procs::Scratch::new("tools");
    let mod_dir = dir.join("mod");
    std::fs::create_dir_all(&mod_dir).unwrap();
    std::fs::write(mod_dir.join("main.cs"), MAIN).unwrap();
    let (mut child, rx) = procs::start_mod(mod_dir.to_str().unwrap(), &["--dedicated"]);
    let lines = procs::collect(&mut child, &rx, Duration::from_secs(60));
    let _ = child.wait();
    let tools: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("tools: ")).collect();
    assert_eq!(
        tools,
        [
            "inspecting 1",
            "junk applied 0 size 14",
            "applied 1 size 18 right pre14post14pre14post18",
            "lines 1 hello",
            "save outside 0",
            "save inside 1",
            "loaded back hi HudGui",
        ],
        "{lines:#?}"
    );
    // (The refusals' messages go to standard error; the console and GUI tests read them.)
    assert!(!dir.join("escape.gui").exists());
    let saved = std::fs::read_to_string(mod_dir.join("gui/hud.gui")).unwrap();
    assert!(saved.contains("new GuiTextCtrl(HudText) {"), "{saved}");
}
