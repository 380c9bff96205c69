#![no_main]
//! Any bytes: the parser returns a tree or a syntax error, never panics; a tree prints and
//! parses back to itself.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = v12_console_vm::decode_source(data);
    if let Ok(ast) = v12_console_vm::parse(&src, "fuzz.cs") {
        let text = v12_console_vm::ast::print_program(&ast);
        let back = v12_console_vm::parse(&text, "printed.cs").expect("printed program parses");
        assert_eq!(back, ast);
    }
});
