//! Geometry shared by drawing and input for the composite controls (scroll bars, window title,
//! slider thumb, list rows, the popup's open list), so what is drawn is what is hit.

use crate::control::{ControlFields, children};
use crate::geom::parse_point;
use crate::profile::Profile;
use v12_console_vm::{Console, ObjectId};
use v12_render_gl::{Point2I, RectI};

pub const SCROLL_BAR: i32 = 12;
pub const MIN_THUMB: i32 = 8;
pub const WHEEL_STEP: i32 = 20;
pub const TITLE_H: i32 = 20;
pub const SLIDER_THUMB_W: i32 = 8;
pub const CHECK_BOX: i32 = 12;

/// Height of a text list / popup row.
pub fn row_height(p: &Profile) -> i32 {
    p.font_size as i32 + 4
}

/// A scroll control's parts, in its own coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScrollLayout {
    pub content: Option<ObjectId>,
    pub content_ext: Point2I,
    /// Where the content shows (inside the border, minus the bars).
    pub view: RectI,
    pub vbar: Option<RectI>,
    pub hbar: Option<RectI>,
    pub vthumb: Option<RectI>,
    pub hthumb: Option<RectI>,
    /// Largest scroll offset on each axis.
    pub max: Point2I,
}

fn bar_mode(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "alwayson" => Some(true),
        "alwaysoff" => Some(false),
        _ => None,
    }
}

pub fn scroll_layout(con: &Console, ctl: &ControlFields, profile: &Profile, scroll: Point2I) -> ScrollLayout {
    let b = profile.border.min(2);
    let inner = RectI::new(b, b, (ctl.ext.x - 2 * b).max(0), (ctl.ext.y - 2 * b).max(0));
    let content = children(con, ctl.id).into_iter().next();
    let content_ext = content.map(|c| parse_point(&con.get_field(c, "extent").as_text())).unwrap_or_default();
    let vmode = bar_mode(&con.get_field(ctl.id, "vScrollBar").as_text());
    let hmode = bar_mode(&con.get_field(ctl.id, "hScrollBar").as_text());
    // Each bar takes room from the other axis, so decide twice.
    let mut v = vmode.unwrap_or(content_ext.y > inner.h);
    let mut h = hmode.unwrap_or(content_ext.x > inner.w - if v { SCROLL_BAR } else { 0 });
    if vmode.is_none() && !v {
        v = content_ext.y > inner.h - if h { SCROLL_BAR } else { 0 };
    }
    if hmode.is_none() && !h {
        h = content_ext.x > inner.w - if v { SCROLL_BAR } else { 0 };
    }
    let view = RectI::new(
        inner.x,
        inner.y,
        (inner.w - if v { SCROLL_BAR } else { 0 }).max(0),
        (inner.h - if h { SCROLL_BAR } else { 0 }).max(0),
    );
    let max = Point2I::new((content_ext.x - view.w).max(0), (content_ext.y - view.h).max(0));
    let vbar = v.then(|| RectI::new(view.right(), inner.y, SCROLL_BAR, view.h));
    let hbar = h.then(|| RectI::new(inner.x, view.bottom(), view.w, SCROLL_BAR));
    let thumb = |track: i32, view_len: i32, content_len: i32, off: i32, max: i32| -> (i32, i32) {
        if content_len <= 0 || max <= 0 {
            return (0, track);
        }
        let len = ((i64::from(track) * i64::from(view_len) / i64::from(content_len)) as i32)
            .clamp(MIN_THUMB, track);
        let pos = ((i64::from(track - len) * i64::from(off.clamp(0, max))) / i64::from(max)) as i32;
        (pos, len)
    };
    let vthumb = vbar.map(|r| {
        let (p, l) = thumb(r.h, view.h, content_ext.y, scroll.y, max.y);
        RectI::new(r.x, r.y + p, r.w, l)
    });
    let hthumb = hbar.map(|r| {
        let (p, l) = thumb(r.w, view.w, content_ext.x, scroll.x, max.x);
        RectI::new(r.x + p, r.y, l, r.h)
    });
    ScrollLayout { content, content_ext, view, vbar, hbar, vthumb, hthumb, max }
}

/// Slider range from its `range` field (ordered).
pub fn slider_range(con: &Console, id: ObjectId) -> (f32, f32) {
    let t = con.get_field(id, "range").to_string();
    let mut w = t.split_whitespace().map(v12_console_vm::value::atof);
    let a = w.next().unwrap_or(0.0) as f32;
    let b = w.next().unwrap_or(1.0) as f32;
    let (a, b) = (if a.is_finite() { a } else { 0.0 }, if b.is_finite() { b } else { 1.0 });
    if a <= b { (a, b) } else { (b, a) }
}

/// Slider value at local x, snapped to the ticks (`ticks` marks split the range into
/// `ticks + 1` steps).
pub fn slider_value_at(x: i32, width: i32, range: (f32, f32), ticks: i32) -> f32 {
    let track = (width - SLIDER_THUMB_W).max(1);
    let frac = ((x - SLIDER_THUMB_W / 2) as f32 / track as f32).clamp(0.0, 1.0);
    snap(range.0 + frac * (range.1 - range.0), range, ticks)
}

pub fn snap(v: f32, range: (f32, f32), ticks: i32) -> f32 {
    let v = if v.is_finite() { v.clamp(range.0, range.1) } else { range.0 };
    if ticks <= 0 || range.1 <= range.0 {
        return v;
    }
    let step = (range.1 - range.0) / (ticks + 1) as f32;
    (range.0 + ((v - range.0) / step).round() * step).clamp(range.0, range.1)
}

/// The slider thumb's local x for a value.
pub fn slider_thumb_x(v: f32, width: i32, range: (f32, f32)) -> i32 {
    let track = (width - SLIDER_THUMB_W).max(0);
    let frac = if range.1 > range.0 { ((v - range.0) / (range.1 - range.0)).clamp(0.0, 1.0) } else { 0.0 };
    (frac * track as f32).round() as i32
}

/// Where an open popup's list goes on screen: below the control, or above when it would
/// leave the canvas.
pub fn popup_list_rect(rect: RectI, rows: usize, profile: &Profile, canvas: Point2I) -> RectI {
    let h = (rows as i32).saturating_mul(row_height(profile)).saturating_add(2);
    let below = RectI::new(rect.x, rect.bottom(), rect.w, h);
    if below.bottom() > canvas.y && rect.y - h >= 0 {
        RectI::new(rect.x, rect.y - h, rect.w, h)
    } else {
        below
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slider_snaps_to_ticks() {
        assert_eq!(snap(0.26, (0.0, 1.0), 3), 0.25);
        assert_eq!(snap(7.0, (0.0, 1.0), 3), 1.0);
        assert_eq!(snap(f32::NAN, (2.0, 3.0), 0), 2.0);
        assert_eq!(slider_value_at(4, 108, (0.0, 100.0), 0), 0.0);
        assert_eq!(slider_value_at(104, 108, (0.0, 100.0), 0), 100.0);
        assert_eq!(slider_value_at(54, 108, (0.0, 100.0), 0), 50.0);
        assert_eq!(slider_thumb_x(50.0, 108, (0.0, 100.0)), 50);
    }
}
