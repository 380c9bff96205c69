#![no_main]
//! Any program runs under a small instruction budget: it may error, it must not panic or hang.
use libfuzzer_sys::fuzz_target;
use v12_console_vm::{BufferSink, Console};

fuzz_target!(|data: &[u8]| {
    let src = v12_console_vm::decode_source(data);
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(100_000);
    let _ = con.eval(&src);
    con.advance_time(10_000);
});
