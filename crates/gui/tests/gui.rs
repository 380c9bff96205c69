//! GUI logic with no GL: routing, focus, sizing, dirty rects, bindings, controls — asserted on
//! recorded draw lists and console state.

use v12_console_vm::{BufferSink, Console, Value};
use v12_gui::keys::*;
use v12_gui::{ConsoleLog, Consumer, GameView, GuiCanvas, InputHandler, screen_rect};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};
use v12_render_gl::{Camera, ColorI, DrawCommand, DrawList, Point2I, RectI, Scene, Shape};

struct Gui {
    con: Console,
    canvas: GuiCanvas,
    out: BufferSink,
    time: u64,
}

const PROFILES: &str = r#"
new GuiControlProfile(GuiDefaultProfile) { fontSize = 14; };
new GuiControlProfile(GuiTransparentProfile) { modal = 0; };
new GuiControlProfile(GuiButtonProfile) { opaque = 1; border = 1; canKeyFocus = 1; tab = 1; };
new GuiControlProfile(GuiEditProfile) { opaque = 1; border = 1; canKeyFocus = 1; tab = 1; };
new GuiControlProfile(GuiListProfile) { canKeyFocus = 1; fillColorHL = "0 0 200"; };
"#;

impl Gui {
    fn new(script: &str) -> Gui {
        let mut con = Console::new();
        let out = BufferSink::new();
        let log = ConsoleLog::new(100);
        log.forward_to(Box::new(out.clone()));
        con.set_output(log.sink());
        let canvas = GuiCanvas::new(&mut con, 640, 480, log).unwrap();
        con.eval(PROFILES).unwrap();
        con.eval(script).unwrap();
        Gui { con, canvas, out, time: 0 }
    }

    fn id(&self, name: &str) -> u32 {
        self.con.find_object_str(name).unwrap_or_else(|| panic!("no object {name}"))
    }

    fn frame(&mut self) -> (DrawList, RectI) {
        let mut list = DrawList::new();
        let info = self.canvas.render(&mut self.con, &mut list);
        (list, info.dirty)
    }

    fn advance(&mut self, ms: u64) {
        self.time += ms;
        self.canvas.set_time(&mut self.con, self.time);
    }

    fn move_to(&mut self, x: i32, y: i32) -> bool {
        self.canvas.process_mouse_move(
            &mut self.con,
            &MouseMoveEvent { x_pos: x, y_pos: y, modifiers: Modifiers::NONE },
        )
    }

    fn button(&mut self, make: bool) -> bool {
        let ev = mouse_button(0, make);
        self.canvas.process_input(&mut self.con, &ev)
    }

    fn click(&mut self, x: i32, y: i32) {
        self.move_to(x, y);
        self.button(true);
        self.button(false);
    }

    fn click_ctrl(&mut self, name: &str) {
        let r = screen_rect(&self.con, self.id(name));
        self.click(r.x + r.w / 2, r.y + r.h / 2);
    }

    fn key(&mut self, key: u16, ch: Option<char>, mods: Modifiers) -> bool {
        let ev = key_event(key, ch, mods, true);
        let used = self.canvas.process_input(&mut self.con, &ev);
        let up = key_event(key, ch, mods, false);
        self.canvas.process_input(&mut self.con, &up);
        used
    }

    fn typ(&mut self, s: &str) {
        for c in s.chars() {
            self.key(key_for_char(c).unwrap_or(0x50), Some(c), Modifiers::NONE);
        }
    }

    fn global(&self, name: &str) -> String {
        self.con.get_global(name).to_string()
    }

    fn focus(&self) -> Option<u32> {
        self.canvas.first_responder(&self.con)
    }
}

fn key_event(key: u16, ch: Option<char>, mods: Modifiers, make: bool) -> InputEvent {
    InputEvent {
        device_type: InputDeviceType::Keyboard,
        device_inst: 0,
        object_type: InputObjectType::Key,
        object_inst: key,
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers: mods,
        ascii: ch.map_or(0, |c| c as u16),
        value: if make { 1.0 } else { 0.0 },
    }
}

fn mouse_button(b: u16, make: bool) -> InputEvent {
    InputEvent {
        device_type: InputDeviceType::Mouse,
        device_inst: 0,
        object_type: InputObjectType::Button,
        object_inst: b,
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers: Modifiers::NONE,
        ascii: 0,
        value: if make { 1.0 } else { 0.0 },
    }
}

fn wheel(v: f32) -> InputEvent {
    InputEvent {
        device_type: InputDeviceType::Mouse,
        device_inst: 0,
        object_type: InputObjectType::ZAxis,
        object_inst: 0,
        action: InputAction::Move,
        modifiers: Modifiers::NONE,
        ascii: 0,
        value: v,
    }
}

fn texts(list: &DrawList) -> Vec<String> {
    list.commands
        .iter()
        .filter_map(|c| match c {
            DrawCommand::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn has_fill(list: &DrawList, rect: RectI, color: ColorI) -> bool {
    list.commands
        .iter()
        .any(|c| matches!(c, DrawCommand::FillRect { rect: r, color: k } if *r == rect && *k == color))
}

const MAIN_MENU: &str = r#"
new GuiControl(MainMenu) {
    profile = "GuiDefaultProfile"; horizSizing = "width"; vertSizing = "height";
    position = "0 0"; extent = "640 480";
    new GuiTextCtrl(Title) { profile = "GuiDefaultProfile"; position = "10 10"; extent = "200 20"; text = "V12"; };
    new GuiButtonCtrl(JoinButton) {
        profile = "GuiButtonProfile"; position = "10 50"; extent = "100 24"; text = "Join";
        command = "$joined = $joined + 1;";
    };
    new GuiButtonCtrl(MainMenuQuitButton) {
        profile = "GuiButtonProfile"; position = "10 80"; extent = "100 24"; text = "Quit";
        accelerator = "escape"; horizSizing = "left"; vertSizing = "top";
    };
    new GuiCheckBoxCtrl(FullCheck) {
        profile = "GuiButtonProfile"; position = "10 110"; extent = "120 20"; text = "Fullscreen";
        variable = "$pref::Video::fullScreen";
    };
    new GuiTextEditCtrl(NameEdit) {
        profile = "GuiEditProfile"; position = "10 140"; extent = "150 20"; maxLength = 8;
        variable = "$pref::Player::name"; altCommand = "$entered = NameEdit.getText();";
    };
};
function MainMenuQuitButton::onAction(%this) { $quitPressed = %this.getName(); }
function MainMenu::onWake(%this) { $woke = $woke @ "M"; }
function Title::onWake(%this) { $woke = $woke @ "T"; }
function MainMenu::onSleep(%this) { $slept = 1; }
Canvas.setContent(MainMenu);
"#;

#[test]
fn gui_script_builds_named_tree_with_namespace_callbacks() {
    let mut g = Gui::new(MAIN_MENU);
    let menu = g.id("MainMenu");
    assert_eq!(v12_gui::children(&g.con, menu).len(), 5);
    assert_eq!(v12_gui::kind_of(&g.con, g.id("JoinButton")), Some(v12_gui::Kind::Button));
    // onWake of children before the parent.
    assert_eq!(g.global("woke"), "TM");
    let (list, _) = g.frame();
    let t = texts(&list);
    for want in ["V12", "Join", "Quit", "Fullscreen"] {
        assert!(t.iter().any(|x| x == want), "{want} drawn: {t:?}");
    }
    g.click_ctrl("JoinButton");
    g.click_ctrl("JoinButton");
    assert_eq!(g.global("joined"), "2");
    g.click_ctrl("MainMenuQuitButton");
    assert_eq!(g.global("quitPressed"), "MainMenuQuitButton");
    // The name's namespace is linked under the class: Parent:: and class methods still work.
    g.con.eval("function GuiButtonCtrl::describe(%this) { return \"button\"; }").unwrap();
    assert_eq!(g.con.eval("return MainMenuQuitButton.describe();").unwrap().to_string(), "button");
    // Canvas functions from script.
    g.con.eval("new GuiControl(Other) { extent = \"10 10\"; }; Canvas.setContent(Other);").unwrap();
    assert_eq!(g.global("slept"), "1");
    assert_eq!(g.con.eval("return Canvas.getContent();").unwrap().to_string(), g.id("Other").to_string());
}

#[test]
fn mouse_lock_enter_leave_and_release_outside() {
    let mut g = Gui::new(MAIN_MENU);
    g.con.eval("function JoinButton::onMouseEnter(%this) { $ev = $ev @ \"E\"; } function JoinButton::onMouseLeave(%this) { $ev = $ev @ \"L\"; }").unwrap();
    let r = screen_rect(&g.con, g.id("JoinButton"));
    g.move_to(r.x + 5, r.y + 5);
    assert_eq!(g.global("ev"), "E");
    g.button(true);
    assert_eq!(g.canvas.mouse_lock(&g.con), Some(g.id("JoinButton")));
    let (pressed, _) = g.frame();
    // Dragging out keeps the lock: the other controls see nothing, the button un-depresses.
    g.move_to(400, 400);
    assert_eq!(g.canvas.mouse_lock(&g.con), Some(g.id("JoinButton")));
    let (out, _) = g.frame();
    assert_ne!(pressed, out);
    g.button(false);
    assert_eq!(g.global("joined"), "", "released outside: no action");
    assert_eq!(g.canvas.mouse_lock(&g.con), None);
    // Press, leave, come back, release: the action fires.
    g.move_to(r.x + 5, r.y + 5);
    g.button(true);
    g.move_to(300, 300);
    g.move_to(r.x + 6, r.y + 6);
    g.button(false);
    assert_eq!(g.global("joined"), "1");
    // Enter/leave script callbacks for hover without a lock.
    g.move_to(600, 5);
    assert!(g.global("ev").ends_with('L'));
}

#[test]
fn checkbox_and_pref_variable_stay_in_sync_both_ways() {
    let mut g = Gui::new(MAIN_MENU);
    g.con.set_global("pref::Video::fullScreen", 1);
    let (list, _) = g.frame();
    assert_eq!(g.con.eval("return FullCheck.getValue();").unwrap().to_string(), "1");
    let r = screen_rect(&g.con, g.id("FullCheck"));
    let mark = RectI::new(r.x + 3, r.y + 4 + 3, 6, 6);
    assert!(has_fill(&list, mark, ColorI::BLACK), "checked mark drawn");
    g.click_ctrl("FullCheck");
    assert_eq!(g.global("pref::Video::fullScreen"), "0");
    let (list, _) = g.frame();
    assert!(!has_fill(&list, mark, ColorI::BLACK));
    g.con.eval("FullCheck.setValue(1);").unwrap();
    assert_eq!(g.global("pref::Video::fullScreen"), "1");
}

#[test]
fn tab_order_focus_and_accelerators() {
    let mut g = Gui::new(MAIN_MENU);
    let order = ["JoinButton", "MainMenuQuitButton", "FullCheck", "NameEdit"];
    for name in order {
        assert!(g.key(KEY_TAB, None, Modifiers::NONE));
        assert_eq!(g.focus(), Some(g.id(name)), "tab to {name}");
    }
    assert!(g.key(KEY_TAB, None, Modifiers::NONE));
    assert_eq!(g.focus(), Some(g.id("JoinButton")), "wraps");
    assert!(g.key(KEY_TAB, None, Modifiers::LSHIFT));
    assert_eq!(g.focus(), Some(g.id("NameEdit")), "shift-tab goes back");
    // Space on a focused button presses it.
    g.key(KEY_TAB, None, Modifiers::NONE);
    g.key(KEY_SPACE, Some(' '), Modifiers::NONE);
    assert_eq!(g.global("joined"), "1");
    // Escape is Quit's accelerator wherever the focus is.
    assert!(g.key(KEY_ESCAPE, None, Modifiers::NONE));
    assert_eq!(g.global("quitPressed"), "MainMenuQuitButton");
    // A key nobody wants is not consumed, so the game's action maps get it.
    assert!(!g.key(KEY_F1, None, Modifiers::NONE));
    // Hidden and inactive controls leave the tab order and lose their accelerators.
    g.con.eval("MainMenuQuitButton.setVisible(0); FullCheck.setActive(0); $quitPressed = \"\";").unwrap();
    assert!(!g.key(KEY_ESCAPE, None, Modifiers::NONE));
    assert_eq!(g.global("quitPressed"), "");
    g.canvas.set_first_responder(&mut g.con, None);
    g.key(KEY_TAB, None, Modifiers::NONE);
    g.key(KEY_TAB, None, Modifiers::NONE);
    assert_eq!(g.focus(), Some(g.id("NameEdit")));
}

#[test]
fn text_edit_typing_selection_max_length_and_binding() {
    let mut g = Gui::new(MAIN_MENU);
    g.click_ctrl("NameEdit");
    assert_eq!(g.focus(), Some(g.id("NameEdit")));
    g.typ("hello");
    assert_eq!(g.global("pref::Player::name"), "hello");
    g.key(KEY_LEFT, None, Modifiers::NONE);
    g.key(KEY_LEFT, None, Modifiers::LSHIFT);
    g.key(KEY_BACKSPACE, None, Modifiers::NONE);
    assert_eq!(g.con.eval("return NameEdit.getText();").unwrap().to_string(), "helo");
    g.typ("wxyz12");
    assert_eq!(g.con.get_field(g.id("NameEdit"), "text").to_string(), "helwxyzo", "max length 8");
    g.key(KEY_HOME, None, Modifiers::NONE);
    g.key(KEY_DELETE, None, Modifiers::NONE);
    g.key(KEY_RETURN, None, Modifiers::NONE);
    assert_eq!(g.global("entered"), "elwxyzo");
    // Ctrl-A then typing replaces everything.
    g.key(KEY_A, Some('a'), Modifiers::LCTRL);
    g.typ("Z");
    assert_eq!(g.global("pref::Player::name"), "Z");
    // Drawn with its text and a cursor while focused (cursor blinks with the canvas time).
    let (list, _) = g.frame();
    assert!(texts(&list).contains(&"Z".to_string()));
    let r = screen_rect(&g.con, g.id("NameEdit"));
    let cursor = |l: &DrawList| {
        l.commands.iter().any(|c| matches!(c, DrawCommand::FillRect { rect, .. } if rect.w == 1 && r.contains(Point2I::new(rect.x, rect.y))))
    };
    assert!(cursor(&list));
    g.advance(500);
    let (list, dirty) = g.frame();
    assert!(!cursor(&list));
    assert!(!dirty.is_empty() && r.intersect(&dirty) == dirty, "only the edit is dirty: {dirty:?}");
    // The variable drives the field when it is not being edited.
    g.canvas.set_first_responder(&mut g.con, None);
    g.con.set_global("pref::Player::name", "Bob");
    let (list, _) = g.frame();
    assert!(texts(&list).contains(&"Bob".to_string()));
    // Double click selects all.
    g.advance(2000);
    g.click_ctrl("NameEdit");
    g.click_ctrl("NameEdit");
    g.typ("Q");
    assert_eq!(g.global("pref::Player::name"), "Q");
}

#[test]
fn sizing_rules_apply_on_canvas_resize() {
    let mut g = Gui::new(MAIN_MENU);
    g.con
        .eval(
            r#"new GuiControl(Sz) { horizSizing = "width"; vertSizing = "height"; extent = "640 480";
        new GuiControl(R) { position = "10 10"; extent = "50 50"; };
        new GuiControl(L) { horizSizing = "left"; vertSizing = "top"; position = "580 420"; extent = "50 50"; };
        new GuiControl(W) { horizSizing = "width"; vertSizing = "height"; position = "10 10"; extent = "620 460"; };
        new GuiControl(C) { horizSizing = "center"; vertSizing = "center"; position = "270 190"; extent = "100 100"; };
        new GuiControl(Rel) { horizSizing = "relative"; vertSizing = "relative"; position = "320 240"; extent = "160 120"; };
        new GuiControl(Min) { horizSizing = "width"; position = "0 0"; extent = "600 10"; minExtent = "500 5"; };
    }; Canvas.setContent(Sz);"#,
        )
        .unwrap();
    g.canvas.set_size(&mut g.con, 800, 600);
    let b = |g: &Gui, n: &str| screen_rect(&g.con, g.id(n));
    assert_eq!(b(&g, "Sz"), RectI::new(0, 0, 800, 600));
    assert_eq!(b(&g, "R"), RectI::new(10, 10, 50, 50));
    assert_eq!(b(&g, "L"), RectI::new(740, 540, 50, 50));
    assert_eq!(b(&g, "W"), RectI::new(10, 10, 780, 580));
    assert_eq!(b(&g, "C"), RectI::new(350, 250, 100, 100));
    assert_eq!(b(&g, "Rel"), RectI::new(400, 300, 200, 150));
    g.canvas.set_size(&mut g.con, 320, 240);
    assert_eq!(b(&g, "Min").w, 500, "min extent holds");
    assert_eq!(g.con.eval("return L.getPosition();").unwrap().to_string(), "260 180");
}

const DIALOGS: &str = r#"
new GuiControl(Content) { extent = "640 480";
    new GuiButtonCtrl(UnderButton) { profile = "GuiButtonProfile"; position = "10 10"; extent = "100 30"; command = "$under++;"; accelerator = "enter"; };
};
new GuiControl(ModalDlg) { extent = "640 480";
    new GuiButtonCtrl(OkButton) { profile = "GuiButtonProfile"; position = "300 300"; extent = "80 24"; command = "Canvas.popDialog(ModalDlg);"; accelerator = "ctrl enter"; };
};
new GuiControl(Hud) { profile = "GuiTransparentProfile"; extent = "640 480";
    new GuiButtonCtrl(HudButton) { profile = "GuiButtonProfile"; position = "500 10"; extent = "50 20"; command = "$hud++;"; };
};
Canvas.setContent(Content);
"#;

#[test]
fn modal_layers_block_input_below_and_non_modal_layers_pass_it() {
    let mut g = Gui::new(DIALOGS);
    g.con.eval("Canvas.pushDialog(Hud);").unwrap();
    g.click_ctrl("UnderButton");
    g.click_ctrl("HudButton");
    assert_eq!(
        (g.global("under"), g.global("hud")),
        ("1".into(), "1".into()),
        "a transparent layer passes clicks"
    );
    g.con.eval("Canvas.pushDialog(ModalDlg);").unwrap();
    g.click_ctrl("UnderButton");
    assert_eq!(g.global("under"), "1", "the modal dialog blocks the content");
    assert!(!g.key(KEY_RETURN, None, Modifiers::NONE), "accelerators below a modal layer are hidden");
    assert_eq!(g.global("under"), "1");
    g.key(KEY_RETURN, None, Modifiers::LCTRL);
    assert_eq!(g.con.eval("return Canvas.isDialogOpen(ModalDlg);").unwrap().to_string(), "0");
    g.key(KEY_RETURN, None, Modifiers::NONE);
    assert_eq!(g.global("under"), "2");
    // Popping a dialog drops focus and lock inside it.
    g.con.eval("Canvas.pushDialog(ModalDlg);").unwrap();
    g.key(KEY_TAB, None, Modifiers::NONE);
    assert_eq!(g.focus(), Some(g.id("OkButton")));
    g.con.eval("Canvas.popDialog();").unwrap();
    assert_eq!(g.focus(), None);
    // The draw list paints layers bottom to top.
    g.con.eval("Canvas.pushDialog(ModalDlg);").unwrap();
    let (list, _) = g.frame();
    let pos = |t: &str| {
        let r = screen_rect(&g.con, g.id(t));
        list.commands
            .iter()
            .position(|c| matches!(c, DrawCommand::FillRect { rect, .. } if *rect == r))
            .unwrap()
    };
    assert!(pos("UnderButton") < pos("HudButton") && pos("HudButton") < pos("OkButton"));
}

#[test]
fn dirty_rects_track_changes_even_when_every_frame_repaints() {
    let mut g = Gui::new(MAIN_MENU);
    let (_, first) = g.frame();
    assert_eq!(first, RectI::new(0, 0, 640, 480));
    let (_, idle) = g.frame();
    assert!(idle.is_empty(), "nothing changed: {idle:?}");
    let join = screen_rect(&g.con, g.id("JoinButton"));
    g.move_to(join.x + 1, join.y + 1);
    let (_, hover) = g.frame();
    assert_eq!(hover, join, "hover repaints only the button");
    // Moving a control dirties where it was and where it is.
    g.con.eval("Title.setPosition(300, 300);").unwrap();
    let (_, moved) = g.frame();
    assert_eq!(moved, RectI::new(10, 10, 490, 310));
    // A script-driven variable change shows up too.
    g.con.set_global("pref::Video::fullScreen", 1);
    let (_, var) = g.frame();
    assert_eq!(var, screen_rect(&g.con, g.id("FullCheck")));
    // With two buffers each change is reported to both.
    g.canvas.set_buffer_count(2);
    g.con.eval("FullCheck.setValue(0);").unwrap();
    let (_, a) = g.frame();
    let (_, b) = g.frame();
    let (_, c) = g.frame();
    assert_eq!(a, screen_rect(&g.con, g.id("FullCheck")));
    assert_eq!(b, a, "the other buffer still shows the old picture");
    assert!(c.is_empty());
    // Hiding a control repaints where it was.
    g.con.eval("JoinButton.setVisible(0);").unwrap();
    g.canvas.set_buffer_count(1);
    let (_, gone) = g.frame();
    assert_eq!(gone, join);
}

#[test]
fn double_click_counts_with_the_canvas_clock() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiTextListCtrl(List) { profile = "GuiListProfile"; position = "0 0"; extent = "200 10"; altCommand = "$opened = List.getSelectedId();"; };
    }; Canvas.setContent(Top);
    List.addRow(7, "alpha"); List.addRow(9, "beta");
    function List::onSelect(%this, %id, %text) { $sel = %id SPC %text; }"#,
    );
    assert_eq!(g.con.eval("return List.getExtent();").unwrap().to_string(), "200 36", "list grows with rows");
    g.click(10, 25);
    assert_eq!(g.global("sel"), "9 beta");
    assert_eq!(g.global("opened"), "");
    g.advance(200);
    g.click(10, 25);
    assert_eq!(g.global("opened"), "9", "double click runs altCommand");
    g.con.set_global("opened", "");
    g.advance(600);
    g.click(10, 25);
    assert_eq!(g.global("opened"), "", "too slow for a double click");
    g.key(KEY_UP, None, Modifiers::NONE);
    assert_eq!(g.global("sel"), "7 alpha");
    let (list, _) = g.frame();
    assert!(has_fill(&list, RectI::new(0, 0, 200, 18), ColorI::rgb(0, 0, 200)), "selected row highlighted");
    g.con.eval("List.removeRowById(7);").unwrap();
    assert_eq!(g.con.eval("return List.rowCount() SPC List.getSelectedId();").unwrap().to_string(), "1 -1");
}

#[test]
fn scroll_wheel_bars_and_clipping() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiScrollCtrl(Scroller) { position = "100 100"; extent = "200 100";
            new GuiControl(Big) { position = "0 0"; extent = "188 400";
                new GuiButtonCtrl(Deep) { profile = "GuiButtonProfile"; position = "0 300"; extent = "50 20"; command = "$deep++;"; };
            };
        };
    }; Canvas.setContent(Top);"#,
    );
    let (list, _) = g.frame();
    // The content is clipped to the view (200 - 12 wide: a vertical bar only).
    assert!(list.commands.contains(&DrawCommand::PushClip(RectI::new(100, 100, 188, 100))));
    assert!(has_fill(&list, RectI::new(288, 100, 12, 100), v12_gui::Profile::default().fill_color_na));
    g.click(110, 110);
    assert_eq!(g.global("deep"), "");
    g.move_to(150, 150);
    for _ in 0..3 {
        assert!(g.canvas.process_input(&mut g.con, &wheel(-1.0)));
    }
    assert_eq!(g.con.eval("return Scroller.getScrollPosition();").unwrap().to_string(), "0 60");
    assert_eq!(screen_rect(&g.con, g.id("Deep")).y, 100 + 300 - 60);
    g.con.eval("Scroller.scrollToBottom();").unwrap();
    assert_eq!(g.con.eval("return Scroller.getScrollPosition();").unwrap().to_string(), "0 300");
    g.click(110, 105);
    assert_eq!(g.global("deep"), "1", "the scrolled-in button is clickable");
    // Dragging the thumb back to the top.
    let thumb_y = 100 + 75 + 5;
    g.move_to(294, thumb_y);
    g.button(true);
    g.move_to(294, thumb_y - 200);
    g.button(false);
    assert_eq!(g.con.eval("return Scroller.getScrollPosition();").unwrap().to_string(), "0 0");
    // Paging by clicking the track below the thumb.
    g.click(294, 195);
    assert_eq!(g.con.eval("return Scroller.getScrollPosition();").unwrap().to_string(), "0 100");
}

#[test]
fn slider_range_ticks_drag_and_keys() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiSliderCtrl(Vol) { profile = "GuiButtonProfile"; position = "100 100"; extent = "108 20"; range = "0 100"; ticks = 3; variable = "$pref::volume"; command = "$changed++;"; };
    }; Canvas.setContent(Top);"#,
    );
    g.move_to(100 + 4 + 30, 110);
    g.button(true);
    assert_eq!(g.global("pref::volume"), "25", "snapped to ticks");
    g.move_to(100 + 4 + 80, 110);
    assert_eq!(g.global("pref::volume"), "75");
    g.move_to(500, 110);
    assert_eq!(g.global("pref::volume"), "100", "clamped while locked");
    assert_eq!(g.global("changed"), "");
    g.button(false);
    assert_eq!(g.global("changed"), "1");
    assert_eq!(g.focus(), Some(g.id("Vol")));
    g.key(KEY_LEFT, None, Modifiers::NONE);
    assert_eq!(g.global("pref::volume"), "75");
    g.con.set_global("pref::volume", 50);
    let (list, _) = g.frame();
    assert!(
        list.commands
            .iter()
            .any(|c| matches!(c, DrawCommand::FillRect { rect, .. } if *rect == RectI::new(150, 100, 8, 20)))
    );
}

#[test]
fn popup_menu_opens_over_everything_and_selects() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiPopUpMenuCtrl(Team) { profile = "GuiButtonProfile"; position = "100 100"; extent = "120 20"; command = "$picked = Team.getSelected();"; };
        new GuiButtonCtrl(Below) { profile = "GuiButtonProfile"; position = "100 125"; extent = "120 20"; command = "$below++;"; };
    }; Canvas.setContent(Top);
    Team.add("Storm", 1); Team.add("Inferno", 2); Team.add("Observer", 3); Team.setSelected(1);
    function Team::onSelect(%this, %id, %text) { $team = %text; }"#,
    );
    let (closed, _) = g.frame();
    assert!(texts(&closed).contains(&"Storm".to_string()));
    assert!(!texts(&closed).contains(&"Inferno".to_string()));
    g.click(150, 110);
    let (open, _) = g.frame();
    let t = texts(&open);
    assert_eq!(&t[t.len() - 3..], ["Storm", "Inferno", "Observer"], "the list is drawn last");
    // Row 2 is y = 121 + 18..; it overlaps Below, but the open list has the mouse.
    g.move_to(150, 121 + 18 + 5);
    g.button(true);
    g.button(false);
    assert_eq!(g.global("team"), "Inferno");
    assert_eq!(g.global("picked"), "2");
    assert_eq!(g.global("below"), "", "the button under the list saw nothing");
    assert_eq!(g.con.eval("return Team.getText();").unwrap().to_string(), "Inferno");
    // Clicking outside an open list closes it without choosing.
    g.click(150, 110);
    g.click(600, 400);
    assert_eq!(g.global("team"), "Inferno");
    let (list, _) = g.frame();
    assert!(!texts(&list).contains(&"Observer".to_string()));
}

#[test]
fn window_is_dragged_by_its_title_and_raised() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiWindowCtrl(WinA) { position = "10 10"; extent = "200 150"; text = "A"; };
        new GuiWindowCtrl(WinB) { position = "100 50"; extent = "200 150"; text = "B"; };
    }; Canvas.setContent(Top);"#,
    );
    g.move_to(20, 15);
    g.button(true);
    g.move_to(120, 65);
    g.button(false);
    assert_eq!(screen_rect(&g.con, g.id("WinA")), RectI::new(110, 60, 200, 150));
    let top = g.id("Top");
    assert_eq!(v12_gui::children(&g.con, top).last(), Some(&g.id("WinA")), "clicked window on top");
    // Dragging in the body does not move it; dragging past the edge is clamped.
    g.move_to(150, 150);
    g.button(true);
    g.move_to(170, 170);
    g.button(false);
    assert_eq!(screen_rect(&g.con, g.id("WinA")).x, 110);
    g.move_to(120, 65);
    g.button(true);
    g.move_to(2000, 2000);
    g.button(false);
    assert_eq!(screen_rect(&g.con, g.id("WinA")), RectI::new(440, 330, 200, 150));
}

#[test]
fn radio_buttons_in_a_group_exclude_each_other() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiRadioCtrl(R1) { profile = "GuiButtonProfile"; position = "0 0"; extent = "80 20"; groupNum = 1; variable = "$r1"; };
        new GuiRadioCtrl(R2) { profile = "GuiButtonProfile"; position = "0 20"; extent = "80 20"; groupNum = 1; variable = "$r2"; };
        new GuiRadioCtrl(R3) { profile = "GuiButtonProfile"; position = "0 40"; extent = "80 20"; groupNum = 2; };
    }; Canvas.setContent(Top);"#,
    );
    g.click_ctrl("R3");
    g.click_ctrl("R1");
    assert_eq!((g.global("r1"), g.global("r2")), ("1".into(), "".into()));
    g.click_ctrl("R2");
    assert_eq!((g.global("r1"), g.global("r2")), ("0".into(), "1".into()));
    g.click_ctrl("R2");
    assert_eq!(g.global("r2"), "1", "clicking an on radio keeps it on");
    assert_eq!(g.con.eval("return R3.getValue();").unwrap().to_string(), "1", "other groups untouched");
}

#[test]
fn console_toggles_on_tilde_and_evaluates_its_entry_line() {
    let mut g = Gui::new(MAIN_MENU);
    g.canvas.bind_console_toggle();
    assert!(g.key(KEY_TILDE, Some('`'), Modifiers::NONE));
    assert_eq!(g.con.eval("return Canvas.isDialogOpen(ConsoleDlg);").unwrap().to_string(), "1");
    assert_eq!(g.focus(), Some(g.id("ConsoleCtrl")));
    g.typ("echo(6*7);");
    g.key(KEY_RETURN, None, Modifiers::NONE);
    assert!(g.out.stdout().contains("==>echo(6*7);\n42\n"), "{}", g.out.stdout());
    let (list, _) = g.frame();
    let t = texts(&list);
    assert!(t.contains(&"42".to_string()) && t.contains(&"==>echo(6*7);".to_string()), "{t:?}");
    // History recall.
    g.key(KEY_UP, None, Modifiers::NONE);
    g.key(KEY_RETURN, None, Modifiers::NONE);
    assert_eq!(g.out.stdout().matches("42\n").count(), 2);
    // The console dialog is modal: the menu under it is blocked; ~ closes it again.
    g.click_ctrl("JoinButton");
    assert_eq!(g.global("joined"), "");
    g.key(KEY_TILDE, Some('`'), Modifiers::NONE);
    assert_eq!(g.con.eval("return Canvas.isDialogOpen(ConsoleDlg);").unwrap().to_string(), "0");
    g.click_ctrl("JoinButton");
    assert_eq!(g.global("joined"), "1");
}

struct Hook {
    key: u16,
    seen: usize,
}

impl InputHandler for Hook {
    fn handle_input(&mut self, _con: &mut Console, ev: &InputEvent) -> bool {
        self.seen += 1;
        ev.object_inst == self.key
    }
}

#[test]
fn input_order_global_map_then_canvas_then_game_maps() {
    let mut g = Gui::new(MAIN_MENU);
    let mut global = Hook { key: KEY_F1, seen: 0 };
    let mut game = Hook { key: KEY_A + 22, seen: 0 };
    let ev = |k| key_event(k, None, Modifiers::NONE, true);
    let mut run =
        |g: &mut Gui, k| g.canvas.process_event(&mut g.con, &ev(k), Some(&mut global), Some(&mut game));
    assert_eq!(run(&mut g, KEY_F1), Consumer::GlobalMap);
    assert_eq!(run(&mut g, KEY_ESCAPE), Consumer::Canvas);
    assert_eq!(run(&mut g, KEY_A + 22), Consumer::GameMaps);
    assert_eq!(run(&mut g, KEY_A + 1), Consumer::Nobody);
    assert_eq!((global.seen, game.seen), (4, 2));
}

struct World;

impl GameView for World {
    fn camera_query(&self) -> Option<Camera> {
        Some(Camera::default())
    }
    fn render_world(&self, scene: &mut Scene) {
        scene.shapes.push(Shape::Sphere {
            center: glam_vec(0.0, 5.0, 0.0),
            radius: 1.0,
            color: ColorI::WHITE,
        });
    }
}

fn glam_vec(x: f32, y: f32, z: f32) -> v12_render_gl::glam::Vec3 {
    v12_render_gl::glam::Vec3::new(x, y, z)
}

#[test]
fn ts_control_asks_the_game_for_camera_and_world() {
    let mut g = Gui::new(
        r#"new GuiTSCtrl(PlayView) { horizSizing = "width"; vertSizing = "height"; extent = "640 480";
        new GuiProgressCtrl(Health) { position = "10 450"; extent = "100 10"; variable = "$health"; };
    }; Canvas.setContent(PlayView);"#,
    );
    let (list, _) = g.frame();
    assert!(has_fill(&list, RectI::new(0, 0, 640, 480), ColorI::BLACK), "no game view: black");
    g.canvas.set_game_view(Some(Box::new(World)));
    g.con.set_global("health", 0.5);
    let (list, _) = g.frame();
    let view = list.commands.iter().find_map(|c| match c {
        DrawCommand::View3d { viewport, scene, .. } => Some((*viewport, scene.shapes.len())),
        _ => None,
    });
    assert_eq!(view, Some((RectI::new(0, 0, 640, 480), 1)));
    let bar = v12_gui::Profile::default().fill_color_hl;
    assert!(has_fill(&list, RectI::new(10, 450, 50, 10), bar), "health bar follows $health");
    // With the cursor on the GUI takes the mouse; with it off (playing) the game's action
    // maps get it.
    g.move_to(300, 300);
    assert!(g.button(true));
    g.button(false);
    g.con.eval("Canvas.cursorOff();").unwrap();
    assert!(!g.move_to(310, 300));
    assert!(!g.button(true));
}

#[test]
fn children_are_clipped_to_their_parent() {
    let mut g = Gui::new(
        r#"new GuiControl(Top) { extent = "640 480";
        new GuiControl(Box) { position = "10 10"; extent = "50 50";
            new GuiTextCtrl(Spill) { position = "40 40"; extent = "100 100"; text = "clipped"; };
        };
    }; Canvas.setContent(Top);"#,
    );
    let (list, _) = g.frame();
    let i = list.commands.iter().position(|c| matches!(c, DrawCommand::Text { .. })).unwrap();
    assert_eq!(list.commands[i - 1], DrawCommand::PushClip(RectI::new(50, 50, 10, 10)));
    let pushes = list.commands.iter().filter(|c| matches!(c, DrawCommand::PushClip(_))).count();
    let pops = list.commands.iter().filter(|c| matches!(c, DrawCommand::PopClip)).count();
    assert_eq!((pushes, pops), (3, 3));
    // Deleting a layer's control from script does not break the canvas.
    g.con.eval("Top.delete();").unwrap();
    let (list, _) = g.frame();
    assert!(list.is_empty());
    assert!(!g.move_to(5, 5));
    let _ = Value::Empty;
}

mod random_input {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Ev {
        Move(i32, i32),
        Button(bool),
        Wheel(bool),
        Key(u16, u8, bool),
        Frame,
    }

    fn ev() -> impl Strategy<Value = Ev> {
        prop_oneof![
            (-50i32..700, -50i32..520).prop_map(|(x, y)| Ev::Move(x, y)),
            any::<bool>().prop_map(Ev::Button),
            any::<bool>().prop_map(Ev::Wheel),
            (0u16..100, 0u8..128, any::<bool>()).prop_map(|(k, c, m)| Ev::Key(k, c, m)),
            Just(Ev::Frame),
        ]
    }

    const ALL: &str = r#"
    new GuiControl(Top) { extent = "640 480";
        new GuiScrollCtrl(S) { position = "0 0"; extent = "200 200";
            new GuiTextListCtrl(L) { profile = "GuiListProfile"; extent = "188 10"; };
        };
        new GuiWindowCtrl(W) { position = "220 10"; extent = "300 200"; text = "w";
            new GuiTextEditCtrl(E) { profile = "GuiEditProfile"; position = "10 30"; extent = "100 20"; maxLength = 5; };
            new GuiSliderCtrl(Sl) { profile = "GuiButtonProfile"; position = "10 60"; extent = "100 20"; };
            new GuiPopUpMenuCtrl(P) { profile = "GuiButtonProfile"; position = "10 90"; extent = "100 20"; };
            new GuiCheckBoxCtrl(C) { profile = "GuiButtonProfile"; position = "10 120"; extent = "100 20"; command = "Canvas.pushDialog(ConsoleDlg);"; };
            new GuiButtonCtrl(B) { profile = "GuiButtonProfile"; position = "10 150"; extent = "100 20"; command = "Canvas.popDialog();"; };
        };
    };
    Canvas.setContent(Top);
    for ($i = 0; $i < 30; $i++) L.addRow($i, "row" @ $i);
    P.add("a", 1); P.add("b", 2);
    "#;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn any_event_sequence_keeps_the_canvas_consistent(evs in proptest::collection::vec(ev(), 1..80)) {
            let mut g = Gui::new(ALL);
            for e in evs {
                match e {
                    Ev::Move(x, y) => { g.move_to(x, y); }
                    Ev::Button(m) => { g.button(m); }
                    Ev::Wheel(up) => { g.canvas.process_input(&mut g.con, &wheel(if up { 1.0 } else { -1.0 })); }
                    Ev::Key(k, c, m) => {
                        let ev = key_event(k, (c >= 32).then_some(c as char), Modifiers::NONE, m);
                        g.canvas.process_input(&mut g.con, &ev);
                    }
                    Ev::Frame => {
                        g.advance(100);
                        let (list, dirty) = g.frame();
                        let mut depth = 0i32;
                        for c in &list.commands {
                            match c {
                                DrawCommand::PushClip(_) => depth += 1,
                                DrawCommand::PopClip => { depth -= 1; prop_assert!(depth >= 0); }
                                _ => {}
                            }
                        }
                        prop_assert_eq!(depth, 0);
                        prop_assert!(dirty.is_empty() || RectI::new(-50, -50, 800, 700).intersect(&dirty) == dirty);
                    }
                }
                let e = g.con.get_field(g.id("E"), "text").to_string();
                prop_assert!(e.chars().count() <= 5);
            }
        }
    }
}

/// GuiControlProfile `soundButtonOver` / `soundButtonDown`: a button plays them through the
/// console's `alxPlay` (here a script stand-in) as the mouse enters it and presses it; a
/// profile without them, or a console without `alxPlay`, is silent.
#[test]
fn buttons_play_their_profiles_sounds_through_alx_play() {
    let mut g = Gui::new(
        r#"new GuiControlProfile(SoundyButtonProfile) { opaque = 1; border = 1;
               soundButtonOver = "ButtonOverSound"; soundButtonDown = "ButtonDownSound"; };
           new GuiControl(Menu) { profile = "GuiDefaultProfile"; position = "0 0"; extent = "640 480";
               new GuiButtonCtrl(Soundy) { profile = "SoundyButtonProfile"; position = "10 10"; extent = "100 24"; text = "A"; };
               new GuiButtonCtrl(Quiet) { profile = "GuiButtonProfile"; position = "10 50"; extent = "100 24"; text = "B"; };
           };
           Canvas.setContent(Menu);"#,
    );
    // No alxPlay yet: a click is silent and nothing fails.
    g.click_ctrl("Soundy");
    g.move_to(300, 300);
    g.con.eval("function alxPlay(%p) { $played = trim($played SPC %p); return 1; }").unwrap();
    g.click_ctrl("Soundy");
    assert_eq!(g.global("played"), "ButtonOverSound ButtonDownSound");
    g.con.eval("$played = \"\";").unwrap();
    g.click_ctrl("Quiet");
    assert_eq!(g.global("played"), "");
}
