//! How each control draws itself into the draw list (Torque's onRender). Children are drawn
//! by the canvas after this, clipped to the control (or to a scroll control's view).

use crate::control::{ControlData, ControlFields, Kind};
use crate::fonts::Fonts;
use crate::geom::parse_color;
use crate::layout::*;
use crate::log::ConsoleLog;
use crate::profile::{Justify, Profile};
use std::sync::Arc;
use v12_console_vm::{Console, Level};
use v12_render_gl::{ColorI, DrawList, Point2I, RectI, Scene};

/// The game's 3D view, called by GuiTSCtrl (V12's processCameraQuery / renderWorld).
pub trait GameView {
    /// Reads what the view needs from the console before a frame is drawn (V12's
    /// onPreRender); the game's view needs nothing.
    fn sync(&self, con: &Console) {
        let _ = con;
    }
    /// The camera to draw from; `None` draws nothing (no control object yet).
    fn camera_query(&self) -> Option<v12_render_gl::Camera>;
    /// Adds the visible world to the scene.
    fn render_world(&self, scene: &mut Scene);
}

/// Everything a control's drawing may read.
#[derive(Debug)]
pub struct RenderContext<'a> {
    pub con: &'a Console,
    pub fonts: &'a mut Fonts,
    pub profile: &'a Profile,
    pub ctl: ControlFields,
    pub rect: RectI,
    pub focused: bool,
    pub time_ms: u64,
    pub log: &'a ConsoleLog,
    pub canvas_size: Point2I,
}

/// Text placed in `r` with the profile's justification, vertically centred.
fn draw_text_in(rx: &mut RenderContext<'_>, list: &mut DrawList, r: RectI, text: &str, color: ColorI) {
    let j = rx.profile.justify;
    draw_text_just(rx, list, r, text, color, j);
}

fn draw_text_just(
    rx: &mut RenderContext<'_>,
    list: &mut DrawList,
    r: RectI,
    text: &str,
    color: ColorI,
    justify: Justify,
) {
    if text.is_empty() {
        return;
    }
    let size = rx.profile.font_size;
    let w = rx.fonts.width(size, text);
    let h = rx.fonts.height(size);
    let x = match justify {
        Justify::Left => r.x,
        Justify::Center => r.x + (r.w - w) / 2,
        Justify::Right => r.right() - w,
    };
    let y = r.y + (r.h - h) / 2;
    let o = rx.profile.text_offset;
    list.draw_text(size, Point2I::new(x + o.x, y + o.y), text, color);
}

fn frame(rx: &RenderContext<'_>, list: &mut DrawList, fill: ColorI, border: ColorI) {
    if rx.profile.opaque {
        list.fill_rect(rx.rect, fill);
    }
    if rx.profile.border > 0 {
        list.draw_rect(rx.rect, border);
    }
}

fn text_color(rx: &RenderContext<'_>, hover: bool) -> ColorI {
    if !rx.ctl.active {
        rx.profile.font_color_na
    } else if hover {
        rx.profile.font_color_hl
    } else {
        rx.profile.font_color
    }
}

pub fn render(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList, game: Option<&dyn GameView>) {
    let p = rx.profile;
    let r = rx.rect;
    let text = || rx.con.get_field(rx.ctl.id, "text").to_string();
    match d.kind {
        Kind::Plain => frame(rx, list, p.fill_color, p.border_color),
        Kind::Text => {
            let t = text();
            frame(rx, list, p.fill_color, p.border_color);
            let c = text_color(rx, false);
            draw_text_in(rx, list, r, &t, c);
        }
        Kind::Bitmap => {
            let b = rx.con.get_field(rx.ctl.id, "bitmap").to_string();
            if !b.is_empty() {
                list.draw_bitmap_stretch(&b, r);
            }
        }
        Kind::Button => render_button(rx, d, list),
        Kind::CheckBox | Kind::Radio => render_check(rx, d, list),
        Kind::TextEdit => render_edit(rx, d, list, r, true),
        Kind::Progress => {
            list.fill_rect(r, p.fill_color);
            let v = rx.con.get_field(rx.ctl.id, "value").to_f64().clamp(0.0, 1.0);
            let w = (f64::from(r.w) * v).round() as i32;
            if w > 0 {
                list.fill_rect(RectI::new(r.x, r.y, w, r.h), p.fill_color_hl);
            }
            list.draw_rect(r, p.border_color);
        }
        Kind::Scroll => {
            frame(rx, list, p.fill_color, p.border_color);
            let lay = scroll_layout(rx.con, &rx.ctl, p, d.scroll);
            for (bar, thumb) in [(lay.vbar, lay.vthumb), (lay.hbar, lay.hthumb)] {
                if let (Some(b), Some(t)) = (bar, thumb) {
                    let o = |q: RectI| RectI::new(q.x + r.x, q.y + r.y, q.w, q.h);
                    list.fill_rect(o(b), p.fill_color_na);
                    list.fill_rect(o(t), p.fill_color_hl);
                    list.draw_rect(o(t), p.border_color);
                }
            }
        }
        Kind::Window => {
            list.fill_rect(r, p.fill_color);
            let title = RectI::new(r.x, r.y, r.w, TITLE_H.min(r.h));
            list.fill_rect(title, p.fill_color_hl);
            let t = text();
            let c = p.font_color;
            draw_text_in(rx, list, RectI::new(r.x + 4, r.y, r.w - 8, title.h), &t, c);
            list.draw_rect(r, p.border_color);
            list.draw_line(
                Point2I::new(r.x, r.y + title.h),
                Point2I::new(r.right() - 1, r.y + title.h),
                p.border_color,
            );
        }
        Kind::TextList => render_text_list(rx, d, list),
        Kind::Slider => render_slider(rx, d, list),
        Kind::Popup => render_popup(rx, d, list),
        Kind::Console => render_console(rx, d, list),
        Kind::Edit => render_gui_edit(rx, d, list),
        Kind::Swatch => {
            let c = parse_color(&rx.con.get_field(rx.ctl.id, "color").as_text()).unwrap_or(ColorI::BLACK);
            list.fill_rect(r, c);
            list.draw_rect(r, p.border_color);
        }
        Kind::Ts | Kind::EditTs => match game.and_then(|g| {
            g.sync(rx.con);
            g.camera_query().map(|c| (g, c))
        }) {
            Some((g, cam)) => {
                let mut scene = Scene::default();
                g.render_world(&mut scene);
                list.view_3d(r, cam, Arc::new(scene));
            }
            None => list.fill_rect(r, ColorI::BLACK),
        },
    }
}

/// A button: its fill says inactive, pressed, under the mouse or plain; its text is pushed a pixel
/// while pressed.
fn render_button(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    let t = rx.con.get_field(rx.ctl.id, "text").to_string();
    // Inactive and pressed buttons share the darker fill; the text colour and the
    // one-pixel push tell them apart.
    let fill = if !rx.ctl.active || d.depressed {
        p.fill_color_na
    } else if d.mouse_over {
        p.fill_color_hl
    } else {
        p.fill_color
    };
    list.fill_rect(r, fill);
    let bc = if d.mouse_over || rx.focused { p.border_color_hl } else { p.border_color };
    list.draw_rect(r, bc);
    let push = i32::from(d.depressed);
    let c = text_color(rx, d.mouse_over);
    let tr = RectI::new(r.x + push, r.y + push, r.w, r.h);
    draw_text_just(rx, list, tr, &t, c, Justify::Center);
}

/// A check box or radio button: the box, its mark when on, the label beside it.
fn render_check(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    let t = rx.con.get_field(rx.ctl.id, "text").to_string();
    frame(rx, list, p.fill_color, p.border_color);
    let by = r.y + (r.h - CHECK_BOX) / 2;
    let b = RectI::new(r.x, by, CHECK_BOX, CHECK_BOX);
    list.fill_rect(b, if d.mouse_over { p.fill_color_hl } else { p.fill_color });
    list.draw_rect(b, if rx.focused { p.border_color_hl } else { p.border_color });
    if d.state_on {
        let inset = if d.kind == Kind::Radio { 4 } else { 3 };
        let mark = RectI::new(b.x + inset, b.y + inset, CHECK_BOX - 2 * inset, CHECK_BOX - 2 * inset);
        list.fill_rect(mark, text_color(rx, false));
    }
    let c = text_color(rx, d.mouse_over);
    draw_text_in(rx, list, RectI::new(r.x + CHECK_BOX + 4, r.y, r.w - CHECK_BOX - 4, r.h), &t, c);
}

/// A text list: its rows, the selected one highlighted.
fn render_text_list(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    frame(rx, list, p.fill_color, p.border_color);
    let rh = row_height(p);
    for (i, (_, t)) in d.rows.iter().enumerate() {
        let row = RectI::new(r.x, r.y + i as i32 * rh, r.w, rh);
        if row.y >= rx.canvas_size.y.max(r.bottom()) {
            break;
        }
        let sel = d.selected == Some(i);
        if sel {
            list.fill_rect(row, p.fill_color_hl);
        }
        let c = if sel { p.font_color_sel } else { text_color(rx, false) };
        let t = t.clone();
        draw_text_in(rx, list, RectI::new(row.x + 2, row.y, row.w - 2, row.h), &t, c);
    }
}

/// A slider: the track, its ticks and the thumb.
fn render_slider(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    let range = slider_range(rx.con, rx.ctl.id);
    let ticks = rx.con.get_field(rx.ctl.id, "ticks").to_i32().clamp(0, 200);
    let v = rx.con.get_field(rx.ctl.id, "value").to_f64() as f32;
    let mid = r.y + r.h / 2;
    let half = SLIDER_THUMB_W / 2;
    list.draw_line(Point2I::new(r.x + half, mid), Point2I::new(r.right() - half - 1, mid), p.border_color);
    let track = (r.w - SLIDER_THUMB_W).max(0);
    for t in 0..=ticks + 1 {
        let x = r.x + half + track * t / (ticks + 1);
        list.draw_line(Point2I::new(x, mid + 2), Point2I::new(x, mid + 4), p.border_color);
    }
    let tx = r.x + slider_thumb_x(v, r.w, range);
    let thumb = RectI::new(tx, r.y, SLIDER_THUMB_W, r.h);
    list.fill_rect(thumb, if d.mouse_down { p.fill_color_hl } else { p.fill_color });
    list.draw_rect(thumb, if rx.focused { p.border_color_hl } else { p.border_color });
}

/// A popup menu's closed face: the current text and a down arrow.
fn render_popup(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    list.fill_rect(r, if d.mouse_over { p.fill_color_hl } else { p.fill_color });
    list.draw_rect(r, p.border_color);
    let t = rx.con.get_field(rx.ctl.id, "text").to_string();
    let c = text_color(rx, false);
    draw_text_in(rx, list, RectI::new(r.x + 3, r.y, r.w - 16, r.h), &t, c);
    // A small down arrow.
    let ax = r.right() - 10;
    let ay = r.y + r.h / 2 - 2;
    for i in 0..4 {
        list.draw_line(Point2I::new(ax - 3 + i, ay + i), Point2I::new(ax + 3 - i, ay + i), p.border_color);
    }
}

/// The console: the log's last lines over the entry field.
fn render_console(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let r = rx.rect;
    list.fill_rect(r, p.fill_color);
    let lh = rx.fonts.height(p.font_size);
    let entry = RectI::new(r.x, r.bottom() - lh - 4, r.w, lh + 4);
    let rows = ((entry.y - r.y) / lh.max(1)).max(0) as usize;
    let lines = rx.log.tail(rows, d.log_back);
    let mut y = entry.y - lines.len() as i32 * lh;
    for (lvl, t) in lines {
        let c = match lvl {
            Level::Normal => p.font_color,
            Level::Warning => p.font_color_hl,
            Level::Error => ColorI::rgb(255, 80, 80),
        };
        list.draw_text(p.font_size, Point2I::new(r.x + 3, y), &t, c);
        y += lh;
    }
    list.draw_line(Point2I::new(r.x, entry.y), Point2I::new(r.right() - 1, entry.y), p.border_color);
    render_edit(rx, d, list, RectI::new(entry.x, entry.y + 1, entry.w, entry.h - 1), false);
}

/// The entry field: text scrolled to keep the cursor visible, selection, blinking cursor.
fn render_edit(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList, r: RectI, framed: bool) {
    let p = rx.profile;
    if framed {
        list.fill_rect(r, p.fill_color);
        list.draw_rect(r, if rx.focused { p.border_color_hl } else { p.border_color });
    }
    let size = p.font_size;
    let h = rx.fonts.height(size);
    let text = d.edit.text();
    let x0 = r.x + 3 - d.text_scroll;
    let y = r.y + (r.h - h) / 2;
    if let Some((s, e)) = d.edit.selection() {
        let a = rx.fonts.width(size, &d.edit.prefix(s));
        let b = rx.fonts.width(size, &d.edit.prefix(e));
        list.fill_rect(RectI::new(x0 + a, y, b - a, h), p.fill_color_hl);
    }
    list.draw_text(size, Point2I::new(x0, y), &text, text_color(rx, false));
    if rx.focused && (rx.time_ms / 500).is_multiple_of(2) {
        let cx = x0 + rx.fonts.width(size, &d.edit.prefix(d.edit.cursor()));
        list.fill_rect(RectI::new(cx, y, 1, h), p.cursor_color);
    }
}

/// The open list of a popup menu, drawn above everything.
pub fn render_popup_list(rx: &mut RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let p = rx.profile;
    let lr = popup_list_rect(rx.rect, d.rows.len(), p, rx.canvas_size);
    list.push_clip(lr);
    list.fill_rect(lr, p.fill_color);
    let rh = row_height(p);
    for (i, (_, t)) in d.rows.iter().enumerate() {
        let row = RectI::new(lr.x + 1, lr.y + 1 + i as i32 * rh, lr.w - 2, rh);
        if d.hover_row == Some(i) {
            list.fill_rect(row, p.fill_color_hl);
        }
        let t = t.clone();
        let c = p.font_color;
        draw_text_in(rx, list, RectI::new(row.x + 3, row.y, row.w - 3, row.h), &t, c);
    }
    list.draw_rect(lr, p.border_color);
    list.pop_clip();
}

/// Text edit horizontal scroll that keeps the cursor in view.
pub fn edit_scroll_for(fonts: &mut Fonts, size: u32, d: &ControlData, width: i32) -> i32 {
    let cx = fonts.width(size, &d.edit.prefix(d.edit.cursor()));
    let room = (width - 6).max(1);
    let mut s = d.text_scroll;
    if cx - s > room {
        s = cx - room;
    }
    if cx < s {
        s = cx;
    }
    s.max(0)
}

/// The selection's frame and its resize handle.
fn render_gui_edit(rx: &RenderContext<'_>, d: &ControlData, list: &mut DrawList) {
    let Some(s) = d.edit_sel.filter(|&s| rx.con.object(s).is_some()) else { return };
    let r = crate::control::global_rect(rx.con, s);
    let c = rx.profile.border_color;
    list.draw_rect(r, c);
    list.draw_rect(RectI::new(r.x - 1, r.y - 1, r.w + 2, r.h + 2), c);
    list.fill_rect(crate::control::edit_handle_rect(r), rx.profile.fill_color_hl);
    list.draw_rect(crate::control::edit_handle_rect(r), ColorI::BLACK);
}
