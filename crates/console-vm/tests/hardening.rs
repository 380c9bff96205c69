//! A careless script must not take the console down (issue 17): each case failed before.

use v12_console_vm::{BufferSink, Console};

fn console() -> (Console, BufferSink) {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    (con, out)
}

#[test]
fn a_runaway_eval_recursion_is_refused_and_the_console_goes_on() {
    let (mut con, out) = console();
    let _ = con.eval(
        "function f(){ eval(\"f();\"); } function later(){ echo(\"LATER RAN\"); } \
         function main(){ f(); } main(); schedule(10, 0, later);",
    );
    con.advance_time(50);
    let text = out.all();
    assert!(text.contains("LATER RAN"), "the scheduled call runs after the refused recursion:\n{text}");
    // And the console keeps working for the next call, again and again.
    for _ in 0..3 {
        assert_eq!(con.eval("return 1 + 2;").unwrap().to_i32(), 3);
        let _ = con.eval("main();");
    }
    assert_eq!(con.eval("return strlen(\"abc\");").unwrap().to_i32(), 3);
}
