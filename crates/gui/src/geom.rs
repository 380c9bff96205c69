//! Field text <-> geometry: "x y" points, "r g b a" colours, and V12's sizing rules that
//! move a control when its parent is resized (Torque's horizSizing / vertSizing).

use v12_render_gl::{ColorI, Point2I, RectI};

/// Parses "x y" (missing or bad words read as 0, like the console's atoi).
pub fn parse_point(s: &str) -> Point2I {
    let mut w = s.split_whitespace().map(|t| v12_console_vm::value::atoi(t).clamp(-1 << 24, 1 << 24) as i32);
    Point2I::new(w.next().unwrap_or(0), w.next().unwrap_or(0))
}

pub fn format_point(p: Point2I) -> String {
    format!("{} {}", p.x, p.y)
}

/// Parses "r g b \[a\]" (alpha defaults to 255), each clamped to 0..=255.
pub fn parse_color(s: &str) -> Option<ColorI> {
    let v: Vec<u8> =
        s.split_whitespace().map(|t| v12_console_vm::value::atoi(t).clamp(0, 255) as u8).take(4).collect();
    match v.len() {
        3 => Some(ColorI::rgb(v[0], v[1], v[2])),
        4 => Some(ColorI::rgba(v[0], v[1], v[2], v[3])),
        _ => None,
    }
}

/// What a control does along one axis when its parent's extent changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sizing {
    /// Keep position and size (horizontal "right" / vertical "bottom": the far margin grows).
    #[default]
    Fixed,
    /// Move with the far edge (horizontal "left" / vertical "top").
    Move,
    /// Grow with the parent ("width" / "height").
    Stretch,
    /// Stay centred ("center").
    Center,
    /// Scale position and size with the parent ("relative").
    Relative,
}

impl Sizing {
    pub fn parse_horiz(s: &str) -> Sizing {
        match s.to_ascii_lowercase().as_str() {
            "left" => Sizing::Move,
            "width" => Sizing::Stretch,
            "center" => Sizing::Center,
            "relative" => Sizing::Relative,
            _ => Sizing::Fixed,
        }
    }

    pub fn parse_vert(s: &str) -> Sizing {
        match s.to_ascii_lowercase().as_str() {
            "top" => Sizing::Move,
            "height" => Sizing::Stretch,
            "center" => Sizing::Center,
            "relative" => Sizing::Relative,
            _ => Sizing::Fixed,
        }
    }

    /// New (position, extent) on one axis after the parent went from `old_parent` to
    /// `new_parent`, exactly as GuiControl::parentResized.
    pub fn apply(self, pos: i32, ext: i32, old_parent: i32, new_parent: i32) -> (i32, i32) {
        let delta = new_parent - old_parent;
        match self {
            Sizing::Fixed => (pos, ext),
            Sizing::Move => (pos + delta, ext),
            Sizing::Stretch => (pos, ext + delta),
            Sizing::Center => ((new_parent - ext) >> 1, ext),
            Sizing::Relative if old_parent != 0 => {
                let l = (i64::from(pos) * i64::from(new_parent) / i64::from(old_parent)) as i32;
                let r = (i64::from(pos + ext) * i64::from(new_parent) / i64::from(old_parent)) as i32;
                (l, r - l)
            }
            Sizing::Relative => (pos, ext),
        }
    }
}

/// The smallest rect holding both (an empty rect is ignored).
pub fn union(a: RectI, b: RectI) -> RectI {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let x0 = a.x.min(b.x);
    let y0 = a.y.min(b.y);
    let x1 = a.right().max(b.right());
    let y1 = a.bottom().max(b.bottom());
    RectI::new(x0, y0, x1 - x0, y1 - y0)
}

pub fn offset(r: RectI, p: Point2I) -> RectI {
    RectI::new(r.x + p.x, r.y + p.y, r.w, r.h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_rules_follow_torque() {
        assert_eq!(Sizing::Fixed.apply(10, 50, 100, 200), (10, 50));
        assert_eq!(Sizing::Move.apply(10, 50, 100, 200), (110, 50));
        assert_eq!(Sizing::Stretch.apply(10, 50, 100, 200), (10, 150));
        assert_eq!(Sizing::Center.apply(25, 50, 100, 200), (75, 50));
        assert_eq!(Sizing::Relative.apply(10, 50, 100, 200), (20, 100));
        assert_eq!(Sizing::Relative.apply(10, 50, 0, 200), (10, 50));
        assert_eq!(Sizing::parse_horiz("WIDTH"), Sizing::Stretch);
        assert_eq!(Sizing::parse_vert("top"), Sizing::Move);
        assert_eq!(Sizing::parse_vert("bogus"), Sizing::Fixed);
    }

    #[test]
    fn parses_points_and_colours() {
        assert_eq!(parse_point(" 3  -4 "), Point2I::new(3, -4));
        assert_eq!(parse_point("7"), Point2I::new(7, 0));
        assert_eq!(parse_color("1 2 3"), Some(ColorI::rgb(1, 2, 3)));
        assert_eq!(parse_color("1 2 300 9"), Some(ColorI::rgba(1, 2, 255, 9)));
        assert_eq!(parse_color("1 2"), None);
        assert_eq!(union(RectI::new(0, 0, 2, 2), RectI::new(5, 5, 1, 1)), RectI::new(0, 0, 6, 6));
        assert_eq!(union(RectI::default(), RectI::new(5, 5, 1, 1)), RectI::new(5, 5, 1, 1));
    }
}
