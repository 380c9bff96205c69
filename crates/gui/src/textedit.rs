//! The editing model of a single-line text field: text, cursor, selection, maximum length.
//! Pure data (positions are char indices), so every rule is tested without a canvas.

/// Text with a cursor and an optional selection anchor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextBuffer {
    chars: Vec<char>,
    cursor: usize,
    /// The other end of the selection; `None` when nothing is selected.
    anchor: Option<usize>,
    /// 0 means unlimited.
    pub max_length: usize,
}

impl TextBuffer {
    pub fn new(text: &str, max_length: usize) -> Self {
        let mut b = TextBuffer { max_length, ..Default::default() };
        b.set_text(text);
        b
    }

    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    pub fn len(&self) -> usize {
        self.chars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replaces the text (cut to the maximum length); the cursor goes to the end.
    pub fn set_text(&mut self, text: &str) {
        self.chars = text.chars().filter(|c| !c.is_control()).collect();
        if self.max_length > 0 {
            self.chars.truncate(self.max_length);
        }
        self.cursor = self.chars.len();
        self.anchor = None;
    }

    /// The selected range, ordered, if it is non-empty.
    pub fn selection(&self) -> Option<(usize, usize)> {
        let a = self.anchor?;
        let (s, e) = (a.min(self.cursor), a.max(self.cursor));
        (s < e).then_some((s, e))
    }

    pub fn selected_text(&self) -> String {
        self.selection().map(|(s, e)| self.chars[s..e].iter().collect()).unwrap_or_default()
    }

    /// Moves the cursor; with `extend` the selection grows from where it was.
    pub fn move_to(&mut self, pos: usize, extend: bool) {
        let pos = pos.min(self.chars.len());
        if extend {
            self.anchor.get_or_insert(self.cursor);
        } else {
            self.anchor = None;
        }
        self.cursor = pos;
    }

    pub fn left(&mut self, extend: bool) {
        if !extend && let Some((s, _)) = self.selection() {
            return self.move_to(s, false);
        }
        self.move_to(self.cursor.saturating_sub(1), extend);
    }

    pub fn right(&mut self, extend: bool) {
        if !extend && let Some((_, e)) = self.selection() {
            return self.move_to(e, false);
        }
        self.move_to(self.cursor + 1, extend);
    }

    pub fn home(&mut self, extend: bool) {
        self.move_to(0, extend);
    }

    pub fn end(&mut self, extend: bool) {
        self.move_to(self.chars.len(), extend);
    }

    pub fn select_all(&mut self) {
        self.anchor = Some(0);
        self.cursor = self.chars.len();
    }

    fn delete_selection(&mut self) -> bool {
        let Some((s, e)) = self.selection() else {
            self.anchor = None;
            return false;
        };
        self.chars.drain(s..e);
        self.cursor = s;
        self.anchor = None;
        true
    }

    /// Types a character over the selection. False when it does not fit or is a control
    /// character.
    pub fn insert(&mut self, c: char) -> bool {
        if c.is_control() {
            return false;
        }
        let sel = self.selection().map_or(0, |(s, e)| e - s);
        if self.max_length > 0 && self.chars.len() - sel >= self.max_length {
            return false;
        }
        self.delete_selection();
        self.chars.insert(self.cursor, c);
        self.cursor += 1;
        true
    }

    /// Backspace: the selection, else the char before the cursor.
    pub fn backspace(&mut self) -> bool {
        if self.delete_selection() {
            return true;
        }
        if self.cursor == 0 {
            return false;
        }
        self.cursor -= 1;
        self.chars.remove(self.cursor);
        true
    }

    /// Delete: the selection, else the char after the cursor.
    pub fn delete(&mut self) -> bool {
        if self.delete_selection() {
            return true;
        }
        if self.cursor >= self.chars.len() {
            return false;
        }
        self.chars.remove(self.cursor);
        true
    }

    /// The text before char index `i` (for measuring where the cursor is drawn).
    pub fn prefix(&self, i: usize) -> String {
        self.chars[..i.min(self.chars.len())].iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn typing_selection_and_limits() {
        let mut b = TextBuffer::new("hello", 8);
        assert_eq!(b.cursor(), 5);
        b.left(false);
        b.left(true);
        b.left(true);
        assert_eq!(b.selection(), Some((2, 4)));
        assert_eq!(b.selected_text(), "ll");
        assert!(b.insert('X'));
        assert_eq!(b.text(), "heXo");
        assert_eq!(b.cursor(), 3);
        for c in "1234".chars() {
            assert!(b.insert(c));
        }
        assert_eq!(b.text(), "heX1234o");
        assert!(!b.insert('z'), "max length 8");
        b.select_all();
        assert!(b.insert('q'), "typing over a full selection fits");
        assert_eq!(b.text(), "q");
        assert!(b.backspace());
        assert!(!b.backspace());
        assert!(!b.delete());
        assert!(!b.insert('\n'));
        let mut b = TextBuffer::new("abc", 0);
        b.home(false);
        assert!(b.delete());
        assert_eq!(b.text(), "bc");
        b.end(true);
        assert_eq!(b.selection(), Some((0, 2)));
        b.right(false);
        assert_eq!((b.cursor(), b.selection()), (2, None));
        assert_eq!(b.prefix(1), "b");
        assert_eq!(TextBuffer::new("toolong", 3).text(), "too");
    }

    proptest! {
        #[test]
        fn cursor_and_length_stay_in_bounds(ops in proptest::collection::vec(0u8..9, 0..64), max in 0usize..6) {
            let mut b = TextBuffer::new("ab", max);
            for op in ops {
                match op {
                    0 => { b.insert('x'); }
                    1 => { b.backspace(); }
                    2 => { b.delete(); }
                    3 => b.left(false),
                    4 => b.right(true),
                    5 => b.home(true),
                    6 => b.end(false),
                    7 => b.select_all(),
                    _ => b.left(true),
                }
                prop_assert!(b.cursor() <= b.len());
                if max > 0 { prop_assert!(b.len() <= max.max(2)); }
                if let Some((s, e)) = b.selection() { prop_assert!(s < e && e <= b.len()); }
            }
        }
    }
}
