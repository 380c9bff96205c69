//! Key codes (what `InputEvent::object_inst` carries for keyboard events) and accelerator
//! strings like `"ctrl s"` or `"escape"`. The codes are the platform's one key-code table
//! (`v12_platform::key_code`: upper-case ASCII for printable keys, 0x100 and up for the
//! others), so one keyboard event means the same key to the GUI and to the action maps; a
//! test checks every constant against that function.

use v12_platform::Modifiers;

pub const KEY_BACKSPACE: u16 = 0x08;
pub const KEY_TAB: u16 = 0x09;
pub const KEY_RETURN: u16 = 0x0D;
pub const KEY_CONTROL: u16 = 0x112;
pub const KEY_ALT: u16 = 0x114;
pub const KEY_SHIFT: u16 = 0x110;
pub const KEY_ESCAPE: u16 = 0x1B;
pub const KEY_SPACE: u16 = 0x20;
pub const KEY_PAGE_DOWN: u16 = 0x109;
pub const KEY_PAGE_UP: u16 = 0x108;
pub const KEY_END: u16 = 0x107;
pub const KEY_HOME: u16 = 0x106;
pub const KEY_LEFT: u16 = 0x102;
pub const KEY_UP: u16 = 0x100;
pub const KEY_RIGHT: u16 = 0x103;
pub const KEY_DOWN: u16 = 0x101;
pub const KEY_INSERT: u16 = 0x104;
pub const KEY_DELETE: u16 = 0x105;
pub const KEY_0: u16 = 0x30;
pub const KEY_A: u16 = 0x41;
pub const KEY_TILDE: u16 = 0x60;
pub const KEY_F1: u16 = 0x121;
pub const KEY_F10: u16 = KEY_F1 + 9;

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
    fn codes_are_the_platform_key_codes() {
        let code = |n: &str| v12_platform::key_code(n).unwrap();
        let pairs = [
            (KEY_BACKSPACE, "backspace"),
            (KEY_TAB, "tab"),
            (KEY_RETURN, "enter"),
            (KEY_CONTROL, "lcontrol"),
            (KEY_ALT, "lalt"),
            (KEY_SHIFT, "lshift"),
            (KEY_ESCAPE, "escape"),
            (KEY_SPACE, "space"),
            (KEY_PAGE_DOWN, "pagedown"),
            (KEY_PAGE_UP, "pageup"),
            (KEY_END, "end"),
            (KEY_HOME, "home"),
            (KEY_LEFT, "left"),
            (KEY_UP, "up"),
            (KEY_RIGHT, "right"),
            (KEY_DOWN, "down"),
            (KEY_INSERT, "insert"),
            (KEY_DELETE, "delete"),
            (KEY_0, "0"),
            (KEY_A, "a"),
            (KEY_TILDE, "tilde"),
            (KEY_F1, "f1"),
        ];
        for (k, name) in pairs {
            assert_eq!(k, code(name), "{name}");
        }
        for c in ('a'..='z').chain('0'..='9') {
            assert_eq!(key_for_char(c), Some(code(&c.to_string())), "{c}");
        }
        assert_eq!(KeyChord::parse("f12").unwrap().key, code("f12"));
    }

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
