//! The fixed Huffman table must actually pay off on the text it was built for.

use v12_bitstream::{BitReader, BitWriter, STRING_LEN_BITS};

fn saving(text: &str) -> f64 {
    let lines: Vec<&str> = text.lines().collect();
    let raw: usize = lines.iter().map(|l| 1 + STRING_LEN_BITS as usize + 8 * l.len()).sum();
    let mut w = BitWriter::new();
    for l in &lines {
        w.write_string(l).unwrap();
    }
    let coded = w.bit_position();
    let bytes = w.into_bytes();
    let mut r = BitReader::new(&bytes);
    for l in &lines {
        assert_eq!(r.read_string().unwrap(), *l);
    }
    1.0 - coded as f64 / raw as f64
}

#[test]
fn chat_and_names_are_smaller_than_raw() {
    let chat = saving(include_str!("data/chat.txt"));
    let names = saving(include_str!("data/names.txt"));
    assert!(chat > 0.35, "chat saves {chat:.3}");
    assert!(names > 0.15, "names save {names:.3}");
}
