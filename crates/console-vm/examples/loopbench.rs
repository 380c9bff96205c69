//! Runs the 1M-iteration loop once (for profiling).
fn main() {
    let mut con = v12_console_vm::Console::new();
    con.set_instruction_budget(u64::MAX);
    con.eval("function loop1m() { %s = 0; for (%i = 0; %i < 1000000; %i++) %s = %s + %i * 2; return %s; }")
        .unwrap();
    let t = std::time::Instant::now();
    for _ in 0..5 {
        std::hint::black_box(con.call_function("loop1m", &[]));
    }
    println!("{:?} per run", t.elapsed() / 5);
}
