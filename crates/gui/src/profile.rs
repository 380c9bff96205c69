//! GuiControlProfile: look and behaviour shared by many controls (V12 reference page GUI).
//!
//! Profiles are console objects of class `GuiControlProfile`; their fields are the one copy
//! of the data. [`Profile::read`] parses them, and the canvas caches the parsed profile for
//! the length of one frame or one input event, so a script that edits a profile sees the
//! change on the next frame.

use crate::geom::{parse_color, parse_point};
use std::collections::HashMap;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId};
use v12_render_gl::{ColorI, Point2I};

/// Horizontal text placement in a control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Justify {
    #[default]
    Left,
    Center,
    Right,
}

/// A parsed GuiControlProfile.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub font_size: u32,
    pub font_color: ColorI,
    /// Highlighted (hover) text.
    pub font_color_hl: ColorI,
    /// Inactive text.
    pub font_color_na: ColorI,
    /// Selected text.
    pub font_color_sel: ColorI,
    pub fill_color: ColorI,
    pub fill_color_hl: ColorI,
    pub fill_color_na: ColorI,
    pub border_color: ColorI,
    pub border_color_hl: ColorI,
    /// Border thickness; 0 draws none.
    pub border: i32,
    /// Fill the background.
    pub opaque: bool,
    /// Catches the mouse; non-modal controls let clicks through to their parent / lower layers.
    pub modal: bool,
    pub can_key_focus: bool,
    /// In the Tab order.
    pub tab: bool,
    pub justify: Justify,
    pub text_offset: Point2I,
    pub bitmap: String,
    pub cursor_color: ColorI,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            font_size: 14,
            font_color: ColorI::BLACK,
            font_color_hl: ColorI::rgb(32, 100, 100),
            font_color_na: ColorI::rgb(128, 128, 128),
            font_color_sel: ColorI::rgb(10, 10, 10),
            fill_color: ColorI::rgb(200, 200, 200),
            fill_color_hl: ColorI::rgb(220, 220, 220),
            fill_color_na: ColorI::rgb(180, 180, 180),
            border_color: ColorI::BLACK,
            border_color_hl: ColorI::rgb(60, 60, 160),
            border: 0,
            opaque: false,
            modal: true,
            can_key_focus: false,
            tab: false,
            justify: Justify::Left,
            text_offset: Point2I::new(0, 0),
            bitmap: String::new(),
            cursor_color: ColorI::BLACK,
        }
    }
}

pub use crate::classes::PROFILE_CLASS;

impl Profile {
    /// Parses the fields of a profile object (bad colours keep the default).
    pub fn read(con: &Console, id: ObjectId) -> Profile {
        let d = Profile::default();
        let f = |name: &str| con.get_field(id, name);
        let c = |name: &str, dflt: ColorI| parse_color(&f(name).as_text()).unwrap_or(dflt);
        Profile {
            font_size: f("fontSize").to_i32().clamp(4, 128) as u32,
            font_color: c("fontColor", d.font_color),
            font_color_hl: c("fontColorHL", d.font_color_hl),
            font_color_na: c("fontColorNA", d.font_color_na),
            font_color_sel: c("fontColorSEL", d.font_color_sel),
            fill_color: c("fillColor", d.fill_color),
            fill_color_hl: c("fillColorHL", d.fill_color_hl),
            fill_color_na: c("fillColorNA", d.fill_color_na),
            border_color: c("borderColor", d.border_color),
            border_color_hl: c("borderColorHL", d.border_color_hl),
            border: f("border").to_i32().clamp(0, 16),
            opaque: f("opaque").truthy(),
            modal: f("modal").truthy(),
            can_key_focus: f("canKeyFocus").truthy(),
            tab: f("tab").truthy(),
            justify: match f("justify").as_text().to_ascii_lowercase().as_str() {
                "center" => Justify::Center,
                "right" => Justify::Right,
                _ => Justify::Left,
            },
            text_offset: parse_point(&f("textOffset").as_text()),
            bitmap: f("bitmap").to_string(),
            cursor_color: c("cursorColor", d.cursor_color),
        }
    }
}

/// Parsed profiles by object id, valid for one frame or one event.
#[derive(Debug, Default)]
pub struct ProfileCache {
    by_id: HashMap<ObjectId, Rc<Profile>>,
    default: Option<Rc<Profile>>,
}

impl ProfileCache {
    pub fn clear(&mut self) {
        self.by_id.clear();
        self.default = None;
    }

    /// The profile named by a control's `profile` field; `GuiDefaultProfile` (or the built-in
    /// default) when the field is empty or names no profile.
    pub fn of_control(&mut self, con: &Console, ctrl: ObjectId) -> Rc<Profile> {
        let v = con.get_field(ctrl, "profile");
        match con.find_object(&v).filter(|&p| is_profile(con, p)) {
            Some(p) => self.get(con, p),
            None => self.default_profile(con),
        }
    }

    pub fn get(&mut self, con: &Console, id: ObjectId) -> Rc<Profile> {
        self.by_id.entry(id).or_insert_with(|| Rc::new(Profile::read(con, id))).clone()
    }

    fn default_profile(&mut self, con: &Console) -> Rc<Profile> {
        if let Some(p) = &self.default {
            return p.clone();
        }
        let p = match con.find_object_str("GuiDefaultProfile").filter(|&p| is_profile(con, p)) {
            Some(id) => self.get(con, id),
            None => Rc::new(Profile::default()),
        };
        self.default = Some(p.clone());
        p
    }
}

fn is_profile(con: &Console, id: ObjectId) -> bool {
    con.object(id).is_some_and(|o| con.class_is(o.class, PROFILE_CLASS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_profile_reads_as_the_default() {
        let mut con = Console::new();
        crate::classes::register_classes(&mut con).expect("classes");
        let id = con.create_object(PROFILE_CLASS, None).expect("profile");
        assert_eq!(Profile::read(&con, id), Profile::default(), "classes.rs's text defaults match");
    }
}
