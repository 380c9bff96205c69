//! A loop that raises a console error on every pass must be stopped quickly: each error costs
//! instruction budget, so the budget (which otherwise counts loop instructions only) runs out
//! after a bounded number of errors and the rest of the file still runs.

use v12_console_vm::{BufferSink, Console};

#[test]
fn a_top_level_loop_over_a_local_is_stopped_and_the_file_goes_on() {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    let _ = con.eval("for (%i = 0; %i < 30; %i++) { echo(\"pass\"); }\necho(\"after\");");
    let text = out.all();
    assert!(text.contains("instruction budget exhausted"), "the loop must be stopped");
    assert!(text.lines().any(|l| l == "after"), "the next statement runs");
    let errors = text.matches("used outside a function").count();
    let cap = usize::try_from(
        v12_console_vm::ConsoleConfig::default().instruction_budget / v12_console_vm::ERROR_BUDGET_COST,
    )
    .unwrap();
    assert!(errors <= cap + 2, "{errors} errors printed before the stop (cap {cap})");
}
