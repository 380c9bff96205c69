//! Quake-style `.map` brush files (V12's interiors were built from them by `map2dif`):
//! entities in braces, each with `"key" "value"` pairs and brushes; a brush is a list of
//! faces, each three points on its plane and a texture name.
//!
//! ```text
//! {
//! "classname" "worldspawn"
//! {
//! ( 0 0 0 ) ( 0 64 0 ) ( 64 0 0 ) STONE 0 0 0 1 1
//! ...
//! }
//! }
//! ```
//!
//! The points of a face are listed clockwise seen from outside the brush, as Quake editors
//! write them; a brush whose planes turn out to face inward is read with every plane flipped,
//! so either winding imports. Texture offsets, rotation and scale are read and ignored.

use glam::DVec3;

/// One face of a brush: its plane (through three points) and its texture.
#[derive(Clone, Debug, PartialEq)]
pub struct MapFace {
    pub points: [DVec3; 3],
    pub texture: String,
}

/// A convex brush: the intersection of the half-spaces behind its faces.
#[derive(Clone, Debug, PartialEq)]
pub struct MapBrush {
    pub faces: Vec<MapFace>,
    /// Line of the brush's opening brace, for messages.
    pub line: usize,
}

/// An entity: its key/value pairs and its brushes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapEntity {
    pub fields: Vec<(String, String)>,
    pub brushes: Vec<MapBrush>,
}

impl MapEntity {
    /// The value of `key` (case-insensitive), if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
    }
}

/// Most entities, brushes and faces a file may hold (a hostile file cannot take all memory).
pub const MAX_ENTITIES: usize = 10_000;
pub const MAX_BRUSHES: usize = 100_000;
pub const MAX_FACES_PER_BRUSH: usize = 64;

/// Largest coordinate accepted (a quarter of Quake's ±4096 grid times 16).
const MAX_COORD: f64 = 65_536.0;

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    fn skip_space(&mut self) {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                c if c.is_ascii_whitespace() => self.pos += 1,
                b'/' if b.get(self.pos + 1) == Some(&b'/') => {
                    while self.pos < b.len() && b[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// The next token: `{`, `}`, `(`, `)`, a quoted string (without its quotes) or a word.
    fn next(&mut self) -> Option<&'a str> {
        self.skip_space();
        let b = self.text.as_bytes();
        let start = self.pos;
        match *b.get(start)? {
            b'{' | b'}' | b'(' | b')' => {
                self.pos += 1;
                Some(&self.text[start..start + 1])
            }
            b'"' => {
                let end = self.text[start + 1..].find(['"', '\n']).map_or(b.len(), |i| start + 1 + i);
                self.pos = (end + 1).min(b.len());
                Some(&self.text[start + 1..end])
            }
            _ => {
                while self.pos < b.len()
                    && !b[self.pos].is_ascii_whitespace()
                    && !b"{}()\"".contains(&b[self.pos])
                {
                    self.pos += 1;
                }
                Some(&self.text[start..self.pos])
            }
        }
    }

    fn peek(&mut self) -> Option<&'a str> {
        let (pos, line) = (self.pos, self.line);
        let t = self.next();
        self.pos = pos;
        self.line = line;
        t
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("line {}: {what}", self.line))
    }

    fn expect(&mut self, want: &str) -> Result<(), String> {
        match self.next() {
            Some(t) if t == want => Ok(()),
            Some(t) => self.error(&format!("expected '{want}', found '{t}'")),
            None => self.error(&format!("expected '{want}', found the end of the file")),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        match self.next() {
            Some(t) => match t.parse::<f64>() {
                Ok(v) if v.is_finite() && v.abs() <= MAX_COORD => Ok(v),
                _ => self.error(&format!("'{t}' is not a coordinate (a number within ±{MAX_COORD})")),
            },
            None => self.error("a number was cut off by the end of the file"),
        }
    }
}

/// Parses a `.map` file. Errors name the line.
pub fn parse(text: &str) -> Result<Vec<MapEntity>, String> {
    let mut lx = Lexer { text, pos: 0, line: 1 };
    let mut entities = Vec::new();
    let mut brushes = 0usize;
    while lx.peek().is_some() {
        lx.expect("{")?;
        if entities.len() >= MAX_ENTITIES {
            return lx.error(&format!("more than {MAX_ENTITIES} entities"));
        }
        let mut ent = MapEntity::default();
        loop {
            match lx.peek() {
                Some("}") => {
                    lx.next();
                    break;
                }
                Some("{") => {
                    brushes += 1;
                    if brushes > MAX_BRUSHES {
                        return lx.error(&format!("more than {MAX_BRUSHES} brushes"));
                    }
                    ent.brushes.push(parse_brush(&mut lx)?);
                }
                Some(_) => {
                    let key = lx.next().unwrap_or_default().to_string();
                    let Some(value) = lx.next() else { return lx.error("a key without a value") };
                    ent.fields.push((key, value.to_string()));
                }
                None => return lx.error("an entity is not closed"),
            }
        }
        entities.push(ent);
    }
    Ok(entities)
}

fn parse_brush(lx: &mut Lexer<'_>) -> Result<MapBrush, String> {
    lx.expect("{")?;
    let line = lx.line;
    let mut faces = Vec::new();
    loop {
        match lx.peek() {
            Some("}") => {
                lx.next();
                break;
            }
            Some("(") => {
                if faces.len() >= MAX_FACES_PER_BRUSH {
                    return lx.error(&format!("a brush with more than {MAX_FACES_PER_BRUSH} faces"));
                }
                let mut points = [DVec3::ZERO; 3];
                for p in &mut points {
                    lx.expect("(")?;
                    *p = DVec3::new(lx.number()?, lx.number()?, lx.number()?);
                    lx.expect(")")?;
                }
                let Some(texture) = lx.next().filter(|t| !matches!(*t, "{" | "}" | "(" | ")")) else {
                    return lx.error("a face without a texture name");
                };
                // Texture offset, rotation and scale (five numbers; Valve 220 files put more
                // in brackets): skipped up to the next face or the brush's end.
                while let Some(t) = lx.peek() {
                    if t == "(" || t == "}" {
                        break;
                    }
                    lx.next();
                }
                faces.push(MapFace { points, texture: texture.to_string() });
            }
            Some(t) => return lx.error(&format!("expected a face or '}}' in a brush, found '{t}'")),
            None => return lx.error("a brush is not closed"),
        }
    }
    if faces.len() < 4 {
        return Err(format!("line {line}: a brush needs at least 4 faces, this one has {}", faces.len()));
    }
    Ok(MapBrush { faces, line })
}
