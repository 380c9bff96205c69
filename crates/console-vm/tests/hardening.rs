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

#[test]
fn an_event_scheduled_while_events_fire_waits_for_the_next_frame() {
    let (mut con, out) = console();
    let _ = con.eval("$n = 0; function t(){ $n++; schedule(0, 0, t); } t();");
    // Each frame fires what was queued before it: one `t` a frame, and the frame ends.
    for frame in 1..=5 {
        assert_eq!(con.advance_time(32), 1, "frame {frame}");
    }
    assert_eq!(con.eval("return $n;").unwrap().to_i32(), 6);
    assert!(!out.all().contains("error"), "{}", out.all());
}

#[test]
fn queued_events_are_capped_with_an_error() {
    let (mut con, out) = console();
    let cap = v12_console_vm::MAX_SCHEDULED_EVENTS;
    let _ = con.eval(&format!(
        "function nop(){{}} function fill(%n){{ for (%i = 0; %i < %n; %i++) schedule(1000, 0, nop); }} fill({});",
        cap + 10
    ));
    let text = out.all();
    assert!(text.contains("events are already queued"), "{}", &text[..text.len().min(400)]);
    assert_eq!(con.advance_time(2000), cap, "the cap held; every queued event ran");
}
