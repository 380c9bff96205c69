//! Prints how much the Huffman string encoding saves over raw bytes on the sample chat
//! lines and player names in `tests/data/` (the table in the performance notes).
//!
//! `cargo run -p v12-bitstream --example huffman_sizes`

use v12_bitstream::{BitWriter, STRING_LEN_BITS, huffman_bits};

fn main() {
    println!(
        "| corpus | strings | text bytes | raw strings (bits) | v12 strings (bits) | saved | Huffman bits/char |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, text) in [
        ("English chat", include_str!("../tests/data/chat.txt")),
        ("player names", include_str!("../tests/data/names.txt")),
    ] {
        let lines: Vec<&str> = text.lines().collect();
        let bytes: usize = lines.iter().map(|l| l.len()).sum();
        // Raw: the same flag and length prefix, then 8 bits a byte.
        let raw_bits: usize = lines.iter().map(|l| 1 + STRING_LEN_BITS as usize + 8 * l.len()).sum();
        let mut w = BitWriter::new();
        for l in &lines {
            w.write_string(l).expect("sample lines are short");
        }
        let v12_bits = w.bit_position();
        let huff: usize = lines.iter().map(|l| huffman_bits(l.as_bytes())).sum();
        println!(
            "| {name} | {} | {bytes} | {raw_bits} | {v12_bits} | {:.1}% | {:.2} |",
            lines.len(),
            100.0 * (raw_bits - v12_bits) as f64 / raw_bits as f64,
            huff as f64 / bytes as f64
        );
    }
}
