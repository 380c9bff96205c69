//! Key codes: what a keyboard [`crate::InputEvent`]'s `object_inst` carries. One table for
//! every layer (the action maps in sim, the GUI's accelerators): the upper-case ASCII code for
//! printable keys (`'W'` for "w") and codes from 0x100 for the others.

/// Named keys and their codes.
const NAMED_KEYS: &[(&str, u16)] = &[
    ("space", 0x20),
    ("enter", 0x0D),
    ("return", 0x0D),
    ("tab", 0x09),
    ("escape", 0x1B),
    ("backspace", 0x08),
    ("tilde", 0x60),
    ("minus", 0x2D),
    ("equals", 0x3D),
    ("lbracket", 0x5B),
    ("rbracket", 0x5D),
    ("backslash", 0x5C),
    ("semicolon", 0x3B),
    ("apostrophe", 0x27),
    ("comma", 0x2C),
    ("period", 0x2E),
    ("slash", 0x2F),
    ("up", 0x100),
    ("down", 0x101),
    ("left", 0x102),
    ("right", 0x103),
    ("insert", 0x104),
    ("delete", 0x105),
    ("home", 0x106),
    ("end", 0x107),
    ("pageup", 0x108),
    ("pagedown", 0x109),
    ("lshift", 0x110),
    ("rshift", 0x111),
    ("lcontrol", 0x112),
    ("rcontrol", 0x113),
    ("lalt", 0x114),
    ("ralt", 0x115),
];

/// The key code of a key name (`"w"`, `"enter"`, `"f5"`, `"numpad3"`, `"-"`), case-insensitive.
pub fn key_code(name: &str) -> Option<u16> {
    let lower = name.to_ascii_lowercase();
    if let Some(&(_, c)) = NAMED_KEYS.iter().find(|(n, _)| *n == lower) {
        return Some(c);
    }
    let mut chars = lower.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_ascii_graphic()
    {
        return Some(c.to_ascii_uppercase() as u16);
    }
    if let Some(n) = lower.strip_prefix("numpad").and_then(|d| d.parse::<u16>().ok()).filter(|n| *n <= 9) {
        return Some(0x140 + n);
    }
    if let Some(n) =
        lower.strip_prefix('f').and_then(|d| d.parse::<u16>().ok()).filter(|n| (1..=24).contains(n))
    {
        return Some(0x120 + n);
    }
    None
}
