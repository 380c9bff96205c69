//! Runs the ghost-update mix of `benches/bitstream.rs` a fixed number of times, so that
//! `perf stat -e cycles:u` gives cycles per write+read independent of machine load:
//!
//! `perf stat -e cycles:u,instructions:u target/release/examples/ghost_cycles v12 2000`
//! (or `io` for the plain bitstream-io baseline).

#[path = "../benches/ghost_mix/mod.rs"]
mod ghost_mix;

use std::hint::black_box;

use ghost_mix::{UPDATES, field_count, read_io, read_v12, updates, write_io, write_v12};
use glam::Vec3;
use v12_bitstream::{BitWriter, CompressionPoint};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "v12".into());
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let us = updates();
    let cp = CompressionPoint::new(Vec3::new(10.0, -20.0, 5.0));
    let mut w = BitWriter::new();
    let mut io_buf = Vec::new();
    let mut acc = 0.0f32;
    for _ in 0..iters {
        match which.as_str() {
            "io" => {
                io_buf = write_io(black_box(&us), &cp, std::mem::take(&mut io_buf));
                acc += read_io(black_box(&io_buf), UPDATES, &cp);
                io_buf.clear();
            }
            _ => {
                w.clear();
                write_v12(&mut w, black_box(&us), &cp);
                acc += read_v12(black_box(w.as_bytes()), UPDATES, &cp);
            }
        }
    }
    println!(
        "{which}: {iters} x ({UPDATES} updates, {} fields, {} bits) checksum {acc}",
        field_count(&us),
        {
            w.clear();
            write_v12(&mut w, &us, &cp);
            w.bit_position()
        }
    );
}
