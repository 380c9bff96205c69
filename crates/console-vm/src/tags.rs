//! The tagged-string table (V12: `addTaggedString`, `removeTaggedString`): texts known by a
//! small number, so the network can send the number instead of the text.

use hashbrown::HashMap;

/// Tag ids start at 1; id `n` is `texts[n - 1]`.
#[derive(Debug, Default)]
pub(crate) struct TagTable {
    texts: Vec<String>,
    by_text: HashMap<String, u32>,
    /// Ids freed by `removeTaggedString`, reused first.
    free: Vec<u32>,
}

impl TagTable {
    /// The tag of `text`, made when new (then also returned as the second value).
    pub(crate) fn add(&mut self, text: &str) -> (u32, bool) {
        if let Some(&id) = self.by_text.get(text) {
            return (id, false);
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.texts[id as usize - 1] = text.to_string();
                id
            }
            None => {
                self.texts.push(text.to_string());
                self.texts.len() as u32
            }
        };
        self.by_text.insert(text.to_string(), id);
        (id, true)
    }

    /// Frees a tag; its id may be reused. False when the id is not in use.
    pub(crate) fn remove(&mut self, id: u32) -> bool {
        let Some(slot) =
            usize::try_from(id).ok().and_then(|i| i.checked_sub(1)).and_then(|i| self.texts.get_mut(i))
        else {
            return false;
        };
        if self.by_text.get(slot.as_str()) != Some(&id) {
            return false;
        }
        self.by_text.remove(slot.as_str());
        *slot = String::new();
        self.free.push(id);
        true
    }

    /// Tags in use.
    pub(crate) fn len(&self) -> usize {
        self.by_text.len()
    }

    /// The text of tag `id` (`""` when it is not in use).
    pub(crate) fn text(&self, id: i64) -> &str {
        usize::try_from(id - 1).ok().and_then(|i| self.texts.get(i)).map_or("", String::as_str)
    }
}
