//! Key codes (Torque's KeyCodes, which `InputEvent::object_inst` carries for keyboard
//! events) and accelerator strings like `"ctrl s"` or `"escape"`.

use v12_platform::Modifiers;

pub const KEY_BACKSPACE: u16 = 0x01;
pub const KEY_TAB: u16 = 0x02;
pub const KEY_RETURN: u16 = 0x03;
pub const KEY_CONTROL: u16 = 0x04;
pub const KEY_ALT: u16 = 0x05;
pub const KEY_SHIFT: u16 = 0x06;
pub const KEY_ESCAPE: u16 = 0x09;
pub const KEY_SPACE: u16 = 0x0A;
pub const KEY_PAGE_DOWN: u16 = 0x0B;
pub const KEY_PAGE_UP: u16 = 0x0C;
pub const KEY_END: u16 = 0x0D;
pub const KEY_HOME: u16 = 0x0E;
pub const KEY_LEFT: u16 = 0x0F;
pub const KEY_UP: u16 = 0x10;
pub const KEY_RIGHT: u16 = 0x11;
pub const KEY_DOWN: u16 = 0x12;
pub const KEY_INSERT: u16 = 0x14;
pub const KEY_DELETE: u16 = 0x15;
pub const KEY_0: u16 = 0x17;
pub const KEY_A: u16 = 0x21;
pub const KEY_TILDE: u16 = 0x3B;
pub const KEY_F1: u16 = 0x5C;

/// The key code for a letter or digit, so hosts and tests can build events.
pub fn key_for_char(c: char) -> Option<u16> {
    match c.to_ascii_lowercase() {
        d @ '0'..='9' => Some(KEY_0 + (d as u16 - '0' as u16)),
        l @ 'a'..='z' => Some(KEY_A + (l as u16 - 'a' as u16)),
        '`' | '~' => Some(KEY_TILDE),
        ' ' => Some(KEY_SPACE),
        _ => None,
    }
}

/// Modifier groups that matter for accelerators (left and right count the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ModSet {
    pub shift: bool,
    pub ctrl: bool,
    pub alt: bool,
}

impl ModSet {
    pub fn of(m: Modifiers) -> ModSet {
        ModSet {
            shift: m.intersects(Modifiers::SHIFT),
            ctrl: m.intersects(Modifiers::CTRL),
            alt: m.intersects(Modifiers::ALT),
        }
    }
}

/// A key with its modifiers, as an accelerator or a global bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    pub key: u16,
    pub mods: ModSet,
}

impl KeyChord {
    /// Parses `"[shift] [ctrl] [alt] key"`: key names are letters, digits, `enter`/`return`,
    /// `escape`, `space`, `tab`, `tilde`, `backspace`, `delete`, arrows and `f1`..`f12`.
    pub fn parse(s: &str) -> Option<KeyChord> {
        let mut mods = ModSet::default();
        let mut key = None;
        for w in s.split_whitespace() {
            match w.to_ascii_lowercase().as_str() {
                "shift" => mods.shift = true,
                "ctrl" => mods.ctrl = true,
                "alt" => mods.alt = true,
                k => key = Some(key_by_name(k)?),
            }
        }
        Some(KeyChord { key: key?, mods })
    }
}

fn key_by_name(k: &str) -> Option<u16> {
    Some(match k {
        "enter" | "return" => KEY_RETURN,
        "escape" => KEY_ESCAPE,
        "space" => KEY_SPACE,
        "tab" => KEY_TAB,
        "tilde" => KEY_TILDE,
        "backspace" => KEY_BACKSPACE,
        "delete" => KEY_DELETE,
        "left" => KEY_LEFT,
        "right" => KEY_RIGHT,
        "up" => KEY_UP,
        "down" => KEY_DOWN,
        "home" => KEY_HOME,
        "end" => KEY_END,
        "pageup" => KEY_PAGE_UP,
        "pagedown" => KEY_PAGE_DOWN,
        _ if k.len() > 1 && k.starts_with('f') => {
            let n: u16 = k[1..].parse().ok()?;
            if !(1..=12).contains(&n) {
                return None;
            }
            KEY_F1 + n - 1
        }
        _ => {
            let mut cs = k.chars();
            let c = cs.next()?;
            if cs.next().is_some() {
                return None;
            }
            key_for_char(c)?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_accelerators() {
        assert_eq!(KeyChord::parse("enter"), Some(KeyChord { key: KEY_RETURN, mods: ModSet::default() }));
        let c = KeyChord::parse("ctrl S").unwrap();
        assert_eq!(c.key, KEY_A + 18);
        assert!(c.mods.ctrl && !c.mods.shift);
        assert_eq!(KeyChord::parse("f3").unwrap().key, KEY_F1 + 2);
        assert_eq!(KeyChord::parse("f13"), None);
        assert_eq!(KeyChord::parse("ctrl"), None);
        assert_eq!(KeyChord::parse("bogus"), None);
        assert_eq!(
            ModSet::of(Modifiers::RSHIFT | Modifiers::LALT),
            ModSet { shift: true, ctrl: false, alt: true }
        );
    }
}
