//! Fuzz target: the CUDA declaration front end never panics, on raw text (raw
//! preprocessor pass included) or on text read as nvcc's preprocessed output with the
//! same text as its host stub (the reader of launched kernels).
#![no_main]

use std::path::Path;

use cuda_kernel_build::__private::{FrontInput, analyze};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = analyze(&FrontInput::raw_only("fuzz.cu", &text));
    let marked = format!("# 1 \"fuzz.cu\"\n{text}");
    let _ = analyze(&FrontInput {
        display_name: "fuzz.cu",
        raw: &text,
        preprocessed: Some(&marked),
        main_file: Path::new("fuzz.cu"),
        user_dirs: &[],
        host_stub: Some(&text),
        headers: &[],
        tuned: &[],
    });
});
