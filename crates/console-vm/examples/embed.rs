//! Embedding the console: a Rust function scripts can call, a script that defines a
//! function and an object, and Rust calling back into script.
//!
//! `cargo run -p v12-console-vm --example embed`

use v12_console_vm::Console;

fn main() {
    let mut con = Console::new();
    // A Rust function: name, least and most arguments (0 = no limit), usage, body.
    con.register_function("addAll", 1, 0, "addAll(n, ...)", |_, a| {
        a.argv.iter().map(|v| v.to_f64()).sum::<f64>()
    });
    let script = r#"
        function Greeter::greet(%this, %who) {
            echo(%this.greeting @ ", " @ %who @ "! 1+2+3 = " @ addAll(1, 2, 3));
            return strlen(%who);
        }
        new ScriptObject(Hi) { class = Greeter; greeting = "Hello"; };
    "#;
    if let Err(e) = con.eval(script) {
        eprintln!("script error: {e}");
        return;
    }
    // From Rust into script: evaluate an expression and read the result.
    let n = con.eval("return Hi.greet(\"world\");").expect("the call runs");
    println!("Hi.greet returned {n}");
    println!("mFloor(3.7) + 0.14 = {}", con.eval("return mFloor(3.7) + 0.14;").expect("math"));
}
