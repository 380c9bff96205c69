//! Runnable programs that show each V12 layer. Each program is a module here
//! so that `cargo xtask demo` and the `[[bin]]` wrappers share one copy.
