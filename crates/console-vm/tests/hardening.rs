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

#[test]
fn a_loop_that_warns_every_pass_is_stopped_quickly() {
    let (mut con, out) = console();
    let _ = con.eval("function spin(){ while (1) %x = Nope.foo(); } spin(); echo(\"after\");");
    let text = out.all();
    assert!(text.contains("instruction budget exhausted"), "the loop must be stopped");
    assert!(text.lines().any(|l| l == "after"), "the next statement runs");
    let cap = v12_console_vm::ConsoleConfig::default().instruction_budget / v12_console_vm::ERROR_BUDGET_COST;
    let warnings = text.matches("Nope").count() as u64;
    assert!(warnings <= cap + 2, "{warnings} warnings before the stop (cap {cap})");
}

#[test]
fn a_runaway_scheduled_event_is_stopped_within_the_callback_budget_and_named() {
    let (mut con, out) = console();
    let _ = con.eval(
        "$passes = 0; function spin(){ while (1) $passes++; } function fine(){ echo(\"FINE RAN\"); } \
         schedule(10, 0, spin); schedule(20, 0, fine);",
    );
    con.advance_time(32);
    let text = out.all();
    assert!(text.contains("callback spin stopped"), "{text}");
    assert!(text.contains("FINE RAN"), "the other events of the frame still run:\n{text}");
    let passes = con.eval("return $passes;").unwrap().to_f64() as u64;
    let budget = v12_console_vm::ConsoleConfig::default().callback_budget;
    assert!(passes > 0 && passes <= budget, "{passes} passes for a budget of {budget} instructions");
    // A callback within its budget is untouched, and top-level calls keep the full budget.
    let _ = con.eval("function count(){ for (%i = 0; %i < 100000; %i++) {} return %i; }");
    assert_eq!(con.call_callback("count", &[]).to_i32(), 100_000);
}

#[test]
fn no_call_makes_a_string_past_the_maximum() {
    let (mut con, out) = console();
    for call in ["setWord", "setField", "setRecord"] {
        for index in [100_000_000i64, 2_000_000_000] {
            let v = con.eval(&format!("return {call}(\"a\", {index}, \"x\");")).unwrap();
            assert_eq!(v.as_text(), "a", "{call} {index} leaves the text unchanged");
        }
    }
    assert_eq!(out.all().matches("would make a string over").count(), 6, "{}", out.all());
    // Doubling a string 40 times stops the script at the maximum, with an error.
    let _ = con.eval(
        "function grow(){ %s = \"xxxxxxxx\"; for (%i = 0; %i < 40; %i++) %s = %s @ %s; return strlen(%s); } \
         $len = grow(); echo(\"after\");",
    );
    let text = out.all();
    assert!(text.contains("concatenation would make a string over"), "{text}");
    assert!(text.lines().any(|l| l == "after"));
    assert!(con.eval("return $len;").unwrap().to_f64() <= v12_console_vm::MAX_STRING_LEN as f64);
    // strreplace that would blow a long string up is refused.
    let _ = con.eval(
        "function big(){ %s = \"aaaaaaaaaaaaaaaa\"; for (%i = 0; %i < 16; %i++) %s = %s @ %s; return %s; } \
         $b = big(); $r = strreplace($b, \"a\", \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\");",
    );
    assert!(out.all().contains("strreplace: the result would be over"), "{}", out.all());
    assert_eq!(con.eval("return strlen($r) == strlen($b);").unwrap().to_i32(), 1);
}

#[test]
fn long_left_associative_chains_are_refused_with_an_error_not_a_stack_overflow() {
    // The test thread's stack is the default 2 MiB; debug frames are large: this would abort
    // the process before the fix.
    let (mut con, out) = console();
    let terms = 200_000;
    for (sep, first) in [(" + ", "1"), (" @ ", "\"a\""), (" && ", "1"), (" == ", "1")] {
        let src = format!("$r = {};", vec![first; terms].join(sep));
        let err = con.eval(&src).expect_err("refused");
        assert!(err.to_string().contains("at most 1000"), "{sep}: {err}");
    }
    let src = format!("$r = %o{};", ".a".repeat(terms));
    assert!(con.eval(&src).is_err());
    // Chains well inside the limit still work, and so does the console.
    let src = format!("return {};", vec!["1"; 500].join(" + "));
    assert_eq!(con.eval(&src).unwrap().to_i32(), 500);
    assert_eq!(con.eval("return 2 * 3;").unwrap().to_i32(), 6);
    let _ = out;
}

#[test]
fn sets_hold_each_member_once_and_many_objects_are_cheap_to_add() {
    let (mut con, _out) = console();
    // 100,000 objects into one set (adding scanned the members before: quadratic).
    let n = con
        .eval(
            "function make(%n){ %s = new SimSet(Many); for (%i = 0; %i < %n; %i++) %s.add(new ScriptObject()); \
             %s.add(%s.getObject(0)); return %s.getCount(); } return make(100000);",
        )
        .unwrap();
    assert_eq!(n.to_i32(), 100_000, "a second add of a member changes nothing");
    let left =
        con.eval("$o = Many.getObject(99999); Many.remove($o); Many.remove($o); return Many.getCount();");
    assert_eq!(left.unwrap().to_i32(), 99_999);
}

#[test]
fn save_refuses_what_exec_could_not_read_back() {
    let dir = std::env::temp_dir().join(format!("v12-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut con, out) = console();
    con.set_file_root(&dir);
    let nest = "function nest(%n){ %top = new SimGroup(); %g = %top; \
                for (%i = 0; %i < %n; %i++) { %c = new SimGroup(); %g.add(%c); %g = %c; } return %top; }";
    let _ = con.eval(nest);
    for (depth, ok) in [(100, true), (101, false)] {
        let saved = con.eval(&format!("$t = nest({depth}); return $t.save(\"n{depth}.cs\");")).unwrap();
        assert_eq!(saved.truthy(), ok, "depth {depth}: {}", out.all());
        if ok {
            let _ = con.eval("$t.delete();");
            let before = con.eval("return RootGroup.getCount();").unwrap().to_i32();
            con.exec_file(&format!("n{depth}.cs")).expect("exec reads back what save wrote");
            assert_eq!(con.eval("return RootGroup.getCount();").unwrap().to_i32(), before + 1);
        }
    }
    assert!(out.all().contains("save: groups nested 101 deep"), "{}", out.all());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn save_outside_the_folder_is_refused_and_saved_objects_load_back_the_same() {
    let dir = std::env::temp_dir().join(format!("v12-save-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut con, out) = console();
    con.set_file_root(&dir);
    let build = "new SimGroup(MissionGroup) { new ScriptObject(A) { class = \"Door\"; hp = 3; note = \"say \\\"hi\\\"\"; }; \
                 new SimGroup(Inner) { new ScriptObject() { x = \"1 2 3\"; }; }; };";
    con.eval(build).unwrap();
    for bad in ["../escape.mis", "/tmp/escape.mis"] {
        let r = con.eval(&format!("return MissionGroup.save(\"{bad}\");")).unwrap();
        assert!(!r.truthy(), "{bad} is refused");
    }
    assert!(out.all().contains("outside the mod's folder"), "{}", out.all());
    assert!(!dir.parent().unwrap().join("escape.mis").exists());
    assert!(con.eval("return MissionGroup.save(\"missions/t.mis\");").unwrap().truthy());
    let first = std::fs::read_to_string(dir.join("missions/t.mis")).unwrap();
    con.eval("MissionGroup.delete();").unwrap();
    con.exec_file("missions/t.mis").expect("exec reads back what save wrote");
    assert_eq!(
        con.eval("return A.hp @ \"|\" @ A.note @ \"|\" @ A.class;").unwrap().as_text(),
        "3|say \"hi\"|Door"
    );
    assert!(con.eval("return MissionGroup.save(\"missions/t2.mis\");").unwrap().truthy());
    let second = std::fs::read_to_string(dir.join("missions/t2.mis")).unwrap();
    assert_eq!(first, second, "saved, loaded and saved again: the same text");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn remove_tagged_string_frees_the_tag() {
    let (mut con, _out) = console();
    let before = con.tagged_string_count();
    let r = con
        .eval("$t = addTaggedString(\"hello\"); $ok = removeTaggedString($t); return getTaggedString($t) @ \"|\" @ $ok;")
        .unwrap();
    assert_eq!(r.as_text(), "|1");
    assert_eq!(con.tagged_string_count(), before);
    assert_eq!(con.eval("return removeTaggedString($t);").unwrap().to_i32(), 0, "a freed tag is gone");
    // The freed id is reused for the next new text.
    assert_eq!(con.eval("return addTaggedString(\"again\") $= $t;").unwrap().to_i32(), 1);
}

#[test]
fn a_script_objects_name_is_a_namespace_in_its_chain() {
    // Issue 16: name -> class -> superClass -> ScriptObject -> SimObject, as V12 links it.
    let (mut con, out) = console();
    let r = con
        .eval(
            "new ScriptObject(Timer); function Timer::ring(%this) { return \"rang\"; } \
             new ScriptObject(Bell) { class = Chime; superClass = Sound; }; \
             function Sound::volume(%this) { return 3; } function Chime::tone(%this) { return \"c\"; } \
             function Bell::tone(%this) { return \"b\" @ Parent::tone(%this); } \
             return Timer.ring() SPC Bell.tone() SPC Bell.volume() SPC Bell.getName();",
        )
        .unwrap();
    assert_eq!(r.as_text(), "rang bc 3 Bell", "{}", out.all());
}

#[test]
fn an_assignment_is_an_expression_after_unary_and_binary_operators() {
    // Issue 16: V12's grammar lets an assignment stand wherever an expression may.
    let (mut con, out) = console();
    let r = con
        .eval(
            "function count() { return 0; } \
             function t() { %s = \"x =\" SPC %a = 5; if (!%n = count()) %z = \"none\"; \
             %m = -%k = 3; %b = ~%c = 0; return %s @ \"|\" @ %a @ \"|\" @ %n @ \"|\" @ %z @ \"|\" @ %m @ \"|\" @ %b; } \
             return t();",
        )
        .unwrap();
    assert_eq!(r.as_text(), "x = 5|5|0|none|-3|-1", "{}", out.all());
}

#[test]
fn blanks_around_the_scope_operator_are_allowed() {
    // Issue 16: `Parent:: onAdd(%this)` and `Foo :: bar` parse as V12 parses them.
    let (mut con, out) = console();
    let r = con
        .eval(
            "function Base::hello(%this) { return \"base\"; } \
             new ScriptObject(Kid) { superClass = Base; }; \
             function Kid :: hello(%this) { return \"kid+\" @ Parent:: hello(%this); } \
             return Kid.hello() SPC Base :: hello(0);",
        )
        .unwrap();
    assert_eq!(r.as_text(), "kid+base base", "{}", out.all());
}

#[test]
fn script_calls_run_in_the_fast_loop_keep_every_limit_and_the_trace() {
    let (mut con, out) = console();
    // Unbounded recursion stops at the call-depth limit with an error; the console goes on.
    let _ = con.eval("function down(%n) { return down(%n + 1) + 1; } down(0);");
    assert!(out.stderr().contains("call depth exceeds"), "{}", out.stderr());
    let fib = "function fib(%n) { if (%n < 2) return %n; return fib(%n - 1) + fib(%n - 2); }";
    con.eval(fib).unwrap();
    assert_eq!(con.eval("return fib(15);").unwrap().to_i32(), 610);
    // Wide recursion within the depth limit runs out of instructions instead.
    con.set_instruction_budget(10_000);
    let _ = con
        .eval("function spin(%n) { if (%n <= 0) return 0; return spin(%n - 1) + spin(%n - 1); } spin(30);");
    assert!(out.stderr().contains("instruction budget exhausted"), "{}", out.stderr());
    // A callee with locals named at run time (its table dropped as it returns), mid-chain.
    con.set_instruction_budget(1_000_000);
    let dy = "function dy(%k) { %a[%k] = 5; return %a[%k] + 1; } function outer() { return dy(2) + dy(3) + fib(5); }";
    con.eval(dy).unwrap();
    assert_eq!(con.eval("return outer();").unwrap().to_i32(), 17);
    // With the trace on, every script-to-script call and return is echoed.
    con.eval("trace(true);").unwrap();
    assert_eq!(con.eval("return fib(2);").unwrap().to_i32(), 1);
    // A runaway loop with the trace on (its budget checked on the loop's slow path) still stops.
    con.set_instruction_budget(10_000);
    let before = out.stderr().matches("instruction budget exhausted").count();
    let _ = con.eval("function forever() { for (%i = 0; %i >= 0; %i++) %s = %s + %i * 2; } forever();");
    assert_eq!(out.stderr().matches("instruction budget exhausted").count(), before + 1, "{}", out.stderr());
    con.eval("trace(false);").unwrap();
    // And a bounded loop runs every pass either way.
    con.set_instruction_budget(1_000_000);
    let count = "function count() { %n = 0; for (%i = 0; %i < 1000; %i++) %n = %n + %i * 2; return %n; }";
    con.eval(count).unwrap();
    assert_eq!(con.eval("return count();").unwrap().to_f64(), 999_000.0);
    con.eval("trace(true);").unwrap();
    assert_eq!(con.eval("return count();").unwrap().to_f64(), 999_000.0);
    con.eval("trace(false);").unwrap();
    let text = out.all();
    for line in [
        "Entering fib(2)",
        "Entering fib(1)",
        "Leaving fib() - return 1",
        "Entering fib(0)",
        "Leaving fib() - return 0",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
}

#[test]
fn method_calls_in_the_fast_loop_follow_the_object_and_its_namespace() {
    let (mut con, out) = console();
    con.eval("function ScriptObject::twice(%this, %x) { return %x * 2; }").unwrap();
    con.eval("function run(%o, %n) { %v = 1; for (%i = 0; %i < %n; %i++) %v = %o.twice(%v); return %v; }")
        .unwrap();
    let id = con.eval("return new ScriptObject(Named);").unwrap();
    // By id (the fast loop) and by name (the interpreter) alike.
    assert_eq!(con.call_function("run", &[id.clone(), 4.into()]).to_i32(), 16);
    assert_eq!(con.eval("return run(Named, 3);").unwrap().to_i32(), 8);
    // A Rust method on the same call site, through the interpreter.
    assert_eq!(
        con.eval("function getit(%o) { return %o.getId(); } return getit(Named);").unwrap().to_string(),
        id.to_string()
    );
    // A redefinition is seen at once (the call-site cache is dropped with the generation).
    con.eval("function ScriptObject::twice(%this, %x) { return %x * 3; }").unwrap();
    assert_eq!(con.call_function("run", &[id.clone(), 2.into()]).to_i32(), 9);
    // A deleted object: the call fails with V12's warning and the loop goes on.
    con.eval("Named.delete();").unwrap();
    assert_eq!(con.call_function("run", &[id.clone(), 2.into()]).to_string(), "");
    assert!(out.all().contains("Unable to find object"), "{}", out.all());
}
