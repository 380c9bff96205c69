#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| v12_fuzz::voice(data));
