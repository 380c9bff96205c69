//! The GUI's console classes, their typed fields and the GUI field types, without drawing:
//! V12 registered every class in one executable that ran as a client or a dedicated server,
//! so a dedicated server reads scripts that declare profiles, cursors, controls, message
//! vectors and inspectors. This module builds with or without the `render` feature; the
//! canvas, events and drawing (the rest of the crate) need it.

use v12_console_vm::{Console, Editor, FieldLookup, FieldType, FieldTypeDef, ObjectId, Value};

/// The base control class.
pub const CONTROL_CLASS: &str = "GuiControl";
/// The profile class.
pub const PROFILE_CLASS: &str = "GuiControlProfile";

/// What kind of control an object is, from its console class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Text,
    Bitmap,
    Button,
    CheckBox,
    Radio,
    TextEdit,
    Progress,
    Scroll,
    Window,
    TextList,
    Slider,
    Popup,
    Console,
    Ts,
    /// A filled rectangle of its `color` (the inspector's colour swatch).
    Swatch,
    /// The GUI Editor's overlay (GuiEditCtrl).
    Edit,
    /// A 3D view that hands its mouse and keys to script callbacks (V12's EditTSCtrl, the
    /// base of the World Editor): `onMouseDown`, `onMouseDragged`, `onMouseUp`, ...
    EditTs,
}

/// Console classes (most derived first, as `kind_of` tests them; registered in reverse, so
/// parents first) with their parent class.
pub const CLASSES: [(&str, &str, Kind); 19] = [
    ("GuiPopUpMenuCtrl", "GuiTextCtrl", Kind::Popup),
    ("GuiRadioCtrl", "GuiCheckBoxCtrl", Kind::Radio),
    ("GuiCheckBoxCtrl", "GuiButtonCtrl", Kind::CheckBox),
    ("GuiButtonCtrl", "GuiControl", Kind::Button),
    ("GuiTextEditCtrl", "GuiTextCtrl", Kind::TextEdit),
    ("GuiTextCtrl", "GuiControl", Kind::Text),
    ("GuiBitmapCtrl", "GuiControl", Kind::Bitmap),
    ("GuiProgressCtrl", "GuiControl", Kind::Progress),
    ("GuiScrollCtrl", "GuiControl", Kind::Scroll),
    ("GuiWindowCtrl", "GuiControl", Kind::Window),
    ("GuiTextListCtrl", "GuiControl", Kind::TextList),
    ("GuiSliderCtrl", "GuiControl", Kind::Slider),
    ("GuiConsoleCtrl", "GuiControl", Kind::Console),
    ("EditTSCtrl", "GuiTSCtrl", Kind::EditTs),
    ("GuiTSCtrl", "GuiControl", Kind::Ts),
    ("GuiSwatchCtrl", "GuiControl", Kind::Swatch),
    ("GuiInspector", "GuiControl", Kind::Plain),
    ("GuiEditCtrl", "GuiControl", Kind::Edit),
    ("GuiControl", "SimGroup", Kind::Plain),
];

/// The GUI's field types (registered by [`register_classes`]).
#[derive(Debug, Clone, Copy)]
pub struct GuiTypes {
    /// TypePoint2I: two whole numbers (`position`, `extent`).
    pub point2i: FieldType,
    /// A control's horizontal sizing.
    pub h_sizing: FieldType,
    /// A control's vertical sizing.
    pub v_sizing: FieldType,
    /// A profile's text placement.
    pub justify: FieldType,
    /// A reference to a GuiControlProfile.
    pub profile: FieldType,
}

fn parse_point2i(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let parts: Vec<&str> = t.split_whitespace().collect();
    let nums: Option<Vec<i32>> = parts.iter().map(|p| p.parse::<i32>().ok()).collect();
    match nums {
        Some(n) if n.len() == 2 => Ok(Value::from(format!("{} {}", n[0], n[1]))),
        _ => Err(format!("\"{}\" is not two whole numbers", t.trim())),
    }
}

/// Registers the GUI's field types (idempotent: a type registered again keeps its index).
pub fn register_types(con: &mut Console) -> Result<GuiTypes, crate::GuiError> {
    let full = || crate::GuiError::Console("the field type registry is full".into());
    let mut reg = |d: FieldTypeDef| con.register_field_type(d).ok_or_else(full);
    Ok(GuiTypes {
        point2i: reg(FieldTypeDef::new("TypePoint2I", Editor::Point, parse_point2i))?,
        h_sizing: reg(FieldTypeDef::enumeration(
            "TypeGuiHorizSizing",
            &["right", "width", "left", "center", "relative"],
        ))?,
        v_sizing: reg(FieldTypeDef::enumeration(
            "TypeGuiVertSizing",
            &["bottom", "height", "top", "center", "relative"],
        ))?,
        justify: reg(FieldTypeDef::enumeration("TypeGuiJustify", &["left", "center", "right"]))?,
        profile: reg(FieldTypeDef::datablock("TypeGuiProfile", PROFILE_CLASS))?,
    })
}

fn console_err(e: impl std::fmt::Display) -> crate::GuiError {
    crate::GuiError::Console(e.to_string())
}

/// Registers every GUI class and its fields (Torque's names and defaults): the controls,
/// `GuiControlProfile`, `GuiCursor`, `MessageVector` and `GuiInspector` with its methods.
/// Idempotent.
pub fn register_classes(con: &mut Console) -> Result<GuiTypes, crate::GuiError> {
    let t = register_types(con)?;
    register_profile(con, &t);
    if con.class_id(CONTROL_CLASS).is_some() {
        return Ok(t);
    }
    for (name, parent, _) in CLASSES.iter().rev() {
        con.register_class(name, parent).map_err(console_err)?;
        if *name == CONTROL_CLASS {
            let s = FieldType::String;
            for (f, ty, d) in [
                ("profile", t.profile, Value::Empty),
                ("horizSizing", t.h_sizing, Value::from("right")),
                ("vertSizing", t.v_sizing, Value::from("bottom")),
                ("position", t.point2i, Value::from("0 0")),
                ("extent", t.point2i, Value::from("64 64")),
                ("minExtent", t.point2i, Value::from("8 2")),
                ("visible", FieldType::Bool, Value::from(true)),
                ("active", FieldType::Bool, Value::from(true)),
                ("variable", s, Value::Empty),
                ("command", s, Value::Empty),
                ("altCommand", s, Value::Empty),
                ("accelerator", s, Value::Empty),
                ("text", s, Value::Empty),
            ] {
                con.add_field(CONTROL_CLASS, f, ty, d);
            }
        }
    }
    con.add_field("GuiTextCtrl", "maxLength", FieldType::Int, Value::from(255));
    con.add_field("GuiRadioCtrl", "groupNum", FieldType::Int, Value::from(-1));
    con.add_field("GuiBitmapCtrl", "bitmap", FieldType::String, Value::Empty);
    con.add_field("GuiScrollCtrl", "hScrollBar", FieldType::String, Value::from("dynamic"));
    con.add_field("GuiScrollCtrl", "vScrollBar", FieldType::String, Value::from("dynamic"));
    con.add_field("GuiWindowCtrl", "canMove", FieldType::Bool, Value::from(true));
    con.add_field("GuiSliderCtrl", "range", FieldType::String, Value::from("0 1"));
    con.add_field("GuiSliderCtrl", "ticks", FieldType::Int, Value::from(10));
    con.add_field("GuiSliderCtrl", "value", FieldType::Float, Value::from(0.0));
    con.add_field("GuiProgressCtrl", "value", FieldType::Float, Value::from(0.0));
    con.add_field("GuiSwatchCtrl", "color", FieldType::ColorI, Value::from("255 255 255 255"));
    con.add_field("GuiEditCtrl", "contentControl", FieldType::String, Value::Empty);
    con.add_field("GuiEditCtrl", "gridSize", FieldType::Int, Value::from(8));
    con.add_field("GuiEditCtrl", "saveFile", FieldType::String, Value::Empty);
    con.register_class("GuiCursor", "SimObject").map_err(console_err)?;
    con.add_field("GuiCursor", "hotSpot", t.point2i, Value::from("0 0"));
    con.add_field("GuiCursor", "bitmapName", FieldType::String, Value::Empty);
    crate::message_vector::register(con).map_err(console_err)?;
    crate::inspector::register(con);
    Ok(t)
}

/// The profile fields' defaults as text (the same as `Profile::default`, a test checks).
pub const PROFILE_COLORS: [(&str, &str); 11] = [
    ("fontColor", "0 0 0 255"),
    ("fontColorHL", "32 100 100 255"),
    ("fontColorNA", "128 128 128 255"),
    ("fontColorSEL", "10 10 10 255"),
    ("fillColor", "200 200 200 255"),
    ("fillColorHL", "220 220 220 255"),
    ("fillColorNA", "180 180 180 255"),
    ("borderColor", "0 0 0 255"),
    ("borderColorHL", "60 60 160 255"),
    ("cursorColor", "0 0 0 255"),
    // Not a colour: kept here so the table stays one list of text defaults.
    ("fontType", "DejaVuSans"),
];

/// Registers the `GuiControlProfile` class and its fields with their defaults.
fn register_profile(con: &mut Console, t: &GuiTypes) {
    if con.class_id(PROFILE_CLASS).is_some() {
        return;
    }
    let _ = con.register_class(PROFILE_CLASS, "SimObject");
    for (name, default) in PROFILE_COLORS {
        // The face: `fonts/<fontType>.ttf` through the resource manager.
        let ty = if name == "fontType" { FieldType::String } else { FieldType::ColorI };
        con.add_field(PROFILE_CLASS, name, ty, Value::from(default));
    }
    let fields: [(&str, FieldType, Value); 9] = [
        ("fontSize", FieldType::Int, Value::from(14)),
        ("border", FieldType::Int, Value::from(0)),
        ("opaque", FieldType::Bool, Value::from(false)),
        ("modal", FieldType::Bool, Value::from(true)),
        ("canKeyFocus", FieldType::Bool, Value::from(false)),
        ("tab", FieldType::Bool, Value::from(false)),
        ("justify", t.justify, Value::from("left")),
        ("textOffset", t.point2i, Value::from("0 0")),
        ("bitmap", FieldType::String, Value::Empty),
    ];
    for (name, ty, default) in fields {
        con.add_field(PROFILE_CLASS, name, ty, default);
    }
}

/// True when `id` is a GUI control.
pub fn is_control(con: &Console, id: ObjectId) -> bool {
    con.object(id).is_some_and(|o| con.class_is(o.class, CONTROL_CLASS))
}

/// The kind of a GUI control object; `None` for objects that are not controls.
pub fn kind_of(con: &Console, id: ObjectId) -> Option<Kind> {
    let o = con.object(id)?;
    CLASSES.iter().find(|(n, _, _)| con.class_is(o.class, n)).map(|c| c.2)
}
