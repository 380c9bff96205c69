//! The remote debugger driven by a scripted protocol client (in memory, deterministic): the
//! Torque telnet debugger protocol as its front-ends speak it.

use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::debugger::{DebugTransport, TransportEvent};
use v12_console_vm::{BufferSink, Console};

/// A client that sends each line once the server has sent the text it waits for.
#[derive(Default)]
struct Client {
    /// `(wait for this in what the server sent, then send this line)`.
    steps: Vec<(String, String)>,
    next: usize,
    /// Everything the server sent.
    heard: String,
    /// Where in `heard` the next wait starts.
    cursor: usize,
    connected: bool,
    closed_by_server: bool,
    /// The client hangs up once its steps are done.
    hang_up_at_end: bool,
    polls: u32,
}

#[derive(Clone)]
struct Scripted(Rc<RefCell<Client>>);

impl DebugTransport for Scripted {
    fn poll(&mut self, out: &mut Vec<TransportEvent>) {
        let mut c = self.0.borrow_mut();
        c.polls += 1;
        assert!(c.polls < 100_000, "the debugger never got what it waited for; heard:\n{}", c.heard);
        if c.closed_by_server {
            return;
        }
        if !c.connected {
            c.connected = true;
            out.push(TransportEvent::Connected("scripted".into()));
            return;
        }
        if c.next >= c.steps.len() {
            if c.hang_up_at_end {
                c.closed_by_server = true;
                out.push(TransportEvent::Closed);
            }
            return;
        }
        let (wait, send) = c.steps[c.next].clone();
        let at = c.cursor;
        if let Some(p) = c.heard[at..].find(&wait) {
            c.cursor = at + p + wait.len();
            c.next += 1;
            out.push(TransportEvent::Data(format!("{send}\r\n").into_bytes()));
        }
    }

    fn send(&mut self, data: &[u8]) -> bool {
        let mut c = self.0.borrow_mut();
        c.heard.push_str(&String::from_utf8_lossy(data));
        true
    }

    fn disconnect(&mut self) {
        self.0.borrow_mut().closed_by_server = true;
    }

    fn wait(&mut self) {}
}

fn client(steps: &[(&str, &str)]) -> Scripted {
    Scripted(Rc::new(RefCell::new(Client {
        steps: steps.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        ..Default::default()
    })))
}

const SCRIPT: &str = "function add(%a, %b)
{
   %sum = %a + %b;
   echo(\"sum \" @ %sum);
   return %sum;
}
$r = add(2, 3);
echo(\"done \" @ $r);
";

fn console() -> (Console, BufferSink) {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    (con, out)
}

#[test]
fn breakpoint_eval_step_over_cout_clear_and_continue() {
    let (mut con, out) = console();
    let c = client(&[
        ("", "secret"),
        ("PASS Connected.", "BRKSET dbg.cs 3 0 0 true"),
        ("", "CONTINUE"),
        ("BREAK dbg.cs 3 add dbg.cs 7 <none>", "EVAL 7 0 %a"),
        ("EVALOUT 7 2", "STEPOVER"),
        ("BREAK dbg.cs 4 add", "STEPOVER"),
        ("BREAK dbg.cs 5 add", "EVAL 8 0 %sum * 10"),
        ("EVALOUT 8 50", "EVAL 9 1 $r"),
        ("EVALOUT 9 \"\"", "BRKCLR dbg.cs 3"),
        ("", "CONTINUE"),
    ]);
    con.open_debugger(Box::new(c.clone()), 1234, "secret", true);
    assert!(con.debugger_connected());
    con.eval_named(SCRIPT, "dbg.cs").unwrap();
    let heard = c.0.borrow().heard.clone();
    assert!(heard.contains("COUT sum 5\r\n"), "{heard}");
    assert!(heard.ends_with("RUNNING\r\nCOUT done 5\r\n"), "{heard}");
    assert!(out.stdout().ends_with("connection from scripted\nsum 5\ndone 5\n"), "{}", out.stdout());
    assert_eq!(c.0.borrow().next, 10, "every step was taken: {heard}");
    // Cleared: a second call runs straight through.
    con.eval("$r2 = add(1, 1);").unwrap();
    assert_eq!(con.get_global("r2").to_string(), "2");
    assert_eq!(heard.matches("BREAK ").count(), 3, "{heard}");
}

#[test]
fn wrong_password_is_refused_and_closed() {
    let (mut con, out) = console();
    let c = client(&[("", "guess")]);
    con.open_debugger(Box::new(c.clone()), 1, "secret", false);
    for _ in 0..3 {
        con.debugger_poll();
    }
    let heard = c.0.borrow().heard.clone();
    assert_eq!(heard, "PASS WrongPassword.\r\n");
    assert!(c.0.borrow().closed_by_server);
    assert!(!con.debugger_connected());
    assert!(out.stderr().contains("wrong password"), "{}", out.stderr());
}

#[test]
fn step_in_and_out_and_the_stack_from_the_top() {
    let (mut con, _out) = console();
    let c = client(&[
        ("", "pw"),
        ("PASS Connected.", "BRKSET dbg.cs 7 0 0 true"),
        ("", "CONTINUE"),
        ("BREAK dbg.cs 7 <none>", "STEPIN"),
        ("BREAK dbg.cs 3 add dbg.cs 7 <none>", "STEPOUT"),
        ("BREAK dbg.cs 8 <none>", "CONTINUE"),
    ]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", true);
    con.eval_named(SCRIPT, "dbg.cs").unwrap();
    let c = c.0.borrow();
    assert_eq!(c.next, 6, "{}", c.heard);
}

#[test]
fn condition_and_pass_count_decide_a_stop() {
    let (mut con, _out) = console();
    let src = "function f(%i) {\n  $seen = $seen + 1;\n}\nfor ($i = 0; $i < 10; $i++) f($i);\n";
    let c = client(&[
        ("", "pw"),
        ("PASS Connected.", "BRKSET loop.cs 2 0 3 %i > 4"),
        ("", "CONTINUE"),
        // %i > 4 holds from 5; the third time it holds is %i == 7.
        ("BREAK loop.cs 2 f", "EVAL 1 0 %i"),
        ("EVALOUT 1 7", "BRKCLRALL"),
        ("", "CONTINUE"),
    ]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", true);
    con.eval_named(src, "loop.cs").unwrap();
    assert_eq!(con.get_global("seen").to_string(), "10");
    assert_eq!(c.0.borrow().next, 6, "{}", c.0.borrow().heard);
}

#[test]
fn a_breakpoint_between_lines_moves_and_lists_answer() {
    let (mut con, _out) = console();
    con.eval_named(SCRIPT, "dbg.cs").unwrap();
    let c = client(&[
        ("", "pw"),
        ("PASS Connected.", "BRKSET dbg.cs 2 1 0 true"),
        ("BRKMOV dbg.cs 2 3", "BRKSET dbg.cs 99 0 0 true"),
        ("BRKCLR dbg.cs 99", "FILELIST"),
        ("FILELISTOUT dbg.cs", "BREAKLIST dbg.cs"),
        // Lines 3, 4, 5 (the function), then 7 and 8.
        ("BREAKLISTOUT dbg.cs 2 3 3 1 2", "BREAKLIST nothere.cs"),
        ("DBGERR No such file!", "NONSENSE 1 2"),
        ("DBGERR Invalid command(NONSENSE 1 2)!", "EVAL 1 0 1 + 2"),
        ("EVALOUT 1 3", "CEVAL $fromDebugger = 42;"),
    ]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", false);
    for _ in 0..20 {
        con.debugger_poll();
    }
    assert_eq!(c.0.borrow().next, 9, "{}", c.0.borrow().heard);
    assert_eq!(con.get_global("fromDebugger").to_string(), "42");
}

#[test]
fn the_client_hanging_up_at_a_stop_lets_the_script_finish() {
    let (mut con, out) = console();
    let c = client(&[("", "pw"), ("PASS Connected.", "BRKSET dbg.cs 4 0 0 true"), ("", "CONTINUE")]);
    c.0.borrow_mut().hang_up_at_end = true;
    con.open_debugger(Box::new(c.clone()), 1, "pw", true);
    con.eval_named(SCRIPT, "dbg.cs").unwrap();
    assert!(out.stdout().ends_with("connection from scripted\nsum 5\ndone 5\n"), "{}", out.stdout());
    assert!(c.0.borrow().heard.contains("BREAK dbg.cs 4 add"), "{}", c.0.borrow().heard);
    assert!(!con.debugger_connected());
}

#[test]
fn a_runaway_eval_at_a_stop_does_not_stop_the_script() {
    let (mut con, out) = console();
    let c = client(&[
        ("", "pw"),
        ("PASS Connected.", "BRKSET dbg.cs 4 0 0 true"),
        ("", "CONTINUE"),
        ("BREAK dbg.cs 4", "EVAL 1 0 spin()"),
        ("EVALOUT 1", "CONTINUE"),
    ]);
    con.eval("function spin() { while (1) {} }").unwrap();
    con.open_debugger(Box::new(c.clone()), 1, "pw", true);
    con.eval_named(SCRIPT, "dbg.cs").unwrap();
    assert!(out.stdout().ends_with("connection from scripted\nsum 5\ndone 5\n"), "{}", out.stdout());
    assert_eq!(c.0.borrow().next, 5, "{}", c.0.borrow().heard);
}

#[test]
fn a_long_command_line_closes_the_client() {
    let (mut con, out) = console();
    let long = "x".repeat(5000);
    let c = client(&[("", "pw"), ("PASS Connected.", long.as_str())]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", false);
    for _ in 0..5 {
        con.debugger_poll();
    }
    assert!(c.0.borrow().closed_by_server);
    assert!(!con.debugger_connected());
    assert!(out.stderr().contains("longer than 2048"), "{}", out.stderr());
}

#[test]
fn a_breakpoint_in_a_loop_body_stops_on_every_pass_it_counts() {
    let (mut con, _out) = console();
    // The body's statement runs again through the loop's backward jump, not a call.
    let src = "$seen = 0;\nfor ($i = 0; $i < 6; $i++)\n{\n   $seen++;\n}\n";
    let c = client(&[
        ("", "pw"),
        ("PASS Connected.", "BRKSET loop2.cs 4 0 0 true"),
        ("", "CONTINUE"),
        ("BREAK loop2.cs 4", "EVAL 1 0 $i"),
        ("EVALOUT 1 0", "CONTINUE"),
        ("BREAK loop2.cs 4", "EVAL 2 0 $i"),
        ("EVALOUT 2 1", "BRKCLR loop2.cs 4"),
        ("", "CONTINUE"),
    ]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", true);
    con.eval_named(src, "loop2.cs").unwrap();
    assert_eq!(con.get_global("seen").to_string(), "6");
    assert_eq!(c.0.borrow().next, 8, "{}", c.0.borrow().heard);
    assert_eq!(c.0.borrow().heard.matches("BREAK ").count(), 2);
}

#[test]
fn a_flood_of_commands_runs_a_bounded_batch_per_poll_and_a_backlog_drops_the_client() {
    let (mut con, out) = console();
    // 100 commands in one burst: 64 run in the first poll, the rest in the next.
    let burst: String = (0..100).map(|i| format!("CEVAL $n = {i} + 1;\r\n")).collect();
    let c = client(&[("", "pw"), ("PASS Connected.", burst.trim_end())]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", false);
    for _ in 0..3 {
        con.debugger_poll();
    }
    assert_eq!(con.get_global("n").to_string(), "64", "a bounded batch per poll");
    con.debugger_poll();
    assert_eq!(con.get_global("n").to_string(), "100");
    assert!(con.debugger_connected());
    // Over 16 KB waiting: dropped as flooding.
    let flood: String = (0..2000).map(|_| "BRKCLRALL\r\n").collect();
    let c = client(&[("", "pw"), ("PASS Connected.", flood.trim_end())]);
    con.open_debugger(Box::new(c.clone()), 1, "pw", false);
    for _ in 0..3 {
        con.debugger_poll();
    }
    assert!(!con.debugger_connected());
    assert!(out.stderr().contains("flooding"), "{}", out.stderr());
}
