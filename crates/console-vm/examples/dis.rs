//! Prints the bytecode of every function in a script file (`cargo run --example dis FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: dis FILE");
    let src = std::fs::read_to_string(&path).expect("read");
    let mut names = v12_console_vm::intern::Interner::default();
    let main = v12_console_vm::compiler::compile_source(&src, &path, &mut names).expect("parse");
    for f in &main.decls {
        println!("function {}:", names.text(f.name));
        for (pc, op) in f.code.iter().enumerate() {
            println!("  {pc:4} {:?}", op.get());
        }
    }
}
