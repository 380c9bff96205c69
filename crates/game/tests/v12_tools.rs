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

/// A mod over the example game, as a server operator's hidden mod would be: its `mod.cs`
/// defines inspector callbacks and a function that edits a datablock through a GuiInspector;
/// the operator drives it from the dedicated server's standard input while the match runs.
const MOD_CS: &str = r#"
function PlayerData::onPreApply(%this) { echo("mod: pre " @ %this.getName() @ " " @ %this.maxForwardSpeed); }
function PlayerData::onPostApply(%this) { echo("mod: post " @ %this.getName() @ " " @ %this.maxForwardSpeed); }
function modInspect()
{
   if (!isObject(ModInsp))
      new GuiInspector(ModInsp) { extent = "320 10"; };
   ModInsp.inspect(LightMale);
   echo("mod: inspecting " @ (ModInsp.getInspectObject() == LightMale.getId()) @ " " @ ModInsp.getEditValue(maxForwardSpeed));
   ModInsp.setEditValue(maxForwardSpeed, "fast");
   echo("mod: junk " @ ModInsp.apply() @ " kept " @ LightMale.maxForwardSpeed);
   ModInsp.setEditValue(maxForwardSpeed, "9.5");
   echo("mod: applied " @ ModInsp.apply() @ " now " @ LightMale.maxForwardSpeed);
}
function modProfile() { echo("mod: profiling"); }
"#;

#[test]
fn a_hidden_mod_drives_the_inspector_and_profiler_from_the_server_console() {
    use std::io::Write;
    use std::process::Command;
    // The mod folder sits one level inside the scratch folder, so the `..` the mod tries to
    // write through lands in a folder this test owns (not the shared temporary folder, where
    // any other program may have left a `tree.txt`).
    let scratch = procs::Scratch::new("tools-mod");
    let dir = scratch.join("mod");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mod.cs"), MOD_CS).unwrap();
    // The mod folder is --mod (where files are written); the game's scripts come from over it.
    let (mut child, mut stdin, rx) = procs::spawn_piped(
        Command::new(procs::V12)
            .arg("--dedicated")
            .arg("--mod")
            .arg(&*dir)
            .arg("--add-mod")
            .arg(procs::GAME)
            .args(["--", "-port", "0", "-seconds", "120"]),
    );
    let mut seen = Vec::new();
    let mut wait = |what: &str| procs::wait_containing(&rx, what, &mut seen, Duration::from_secs(120));
    wait("LISTENING");
    writeln!(stdin, "modInspect();").unwrap();
    let lines = wait("mod: applied");
    let mod_lines: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("mod: ")).collect();
    assert_eq!(
        mod_lines,
        [
            // A refused edit: apply() says so (false) and keeps the old value; the callbacks
            // still frame it, as V12's apply always called both (other fields may change).
            "inspecting 1 8",
            "pre LightMale 8",
            "post LightMale 8",
            "junk 0 kept 8",
            "pre LightMale 8",
            "post LightMale 9.5",
            "applied 1 now 9.5",
        ],
        "{lines:#?}"
    );
    // The refused edit said why. The reason is a warning on stderr, read by another thread
    // than stdout's echoes, so it may come in after "mod: applied": wait for it if so.
    let said_why = |l: &String| l.contains("maxForwardSpeed") && l.contains("\"fast\" is not a number");
    let lines = if lines.iter().any(said_why) { lines } else { wait("\"fast\" is not a number") };
    assert!(lines.iter().any(said_why), "{lines:#?}");
    // A line over the console's limit is refused with a message; the next one runs.
    writeln!(stdin, "echo(\"{}\");", "y".repeat(5000)).unwrap();
    wait("over the limit of 1024; refused");
    // The profiler: on, a script function timed, the tree printed and written in the mod
    // folder (and not outside it), then reset.
    writeln!(stdin, "profilerEnable(true); schedule(300, 0, modProfile);").unwrap();
    wait("mod: profiling");
    writeln!(stdin, "profilerDump();").unwrap();
    let lines = wait("ServerTick");
    assert!(lines.iter().any(|l| l.contains("total%")), "{lines:#?}");
    writeln!(
        stdin,
        "echo(\"mod: dumped \" @ profilerDumpToFile(\"prof/tree.txt\") @ profilerDumpToFile(\"../tree.txt\"));"
    )
    .unwrap();
    wait("mod: dumped 10");
    let tree = std::fs::read_to_string(dir.join("prof/tree.txt")).expect("the dump in the mod folder");
    for zone in ["Frame", "ServerProcess", "ServerTick", "modProfile"] {
        assert!(tree.contains(zone), "{zone} not in\n{tree}");
    }
    assert!(!scratch.join("tree.txt").exists());
    writeln!(stdin, "profilerReset(); profilerEnable(false); profilerDump();").unwrap();
    let lines = wait("Profiler:");
    assert!(lines.last().unwrap().contains("(off)"), "{lines:#?}");
    writeln!(stdin, "quit();").unwrap();
    let status = child.wait().expect("v12 exits");
    assert!(status.success(), "{status:?}");
}
