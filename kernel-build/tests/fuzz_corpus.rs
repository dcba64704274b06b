//! The parser's fuzz corpus (`fuzz/corpus/parser`: the seeds and every input fuzzing kept for
//! the coverage it adds) replayed by `cargo test` on stable Rust, with the fuzz target's two
//! readings of each input: as raw text, and as nvcc's preprocessed output with the same text
//! as its host stub.
//!
//! The property on every input: no panic, and an error only with a location. A front-end
//! error the user cannot find in their file is as bad as a crash, so every diagnostic of a
//! failed reading must start with the file it is about.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use cuda_kernel_build::__private::{FrontInput, analyze};

/// The corpus files, or `None` in a packaged crate (the corpus lives beside the workspace).
fn corpus() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/parser");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    Some(files)
}

/// The problems of one reading: a panic, or a diagnostic without a location.
fn check(name: &str, input: &FrontInput<'_>) -> Option<String> {
    let result = catch_unwind(AssertUnwindSafe(|| analyze(input)));
    match result {
        Err(_) => Some(format!("{name}: the front end panicked")),
        Ok(Ok(_)) => None,
        Ok(Err(diags)) => {
            let text = diags.to_string();
            let unplaced: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with("  "))
                .filter(|l| !l.starts_with("fuzz.cu:"))
                .collect();
            (!unplaced.is_empty())
                .then(|| format!("{name}: errors without a location: {unplaced:?}"))
        }
    }
}

#[test]
fn every_corpus_input_reads_without_panic_and_errors_have_locations() {
    let Some(files) = corpus() else {
        println!("skipped: no fuzz/corpus/parser beside this crate (a packaged crate)");
        return;
    };
    assert!(files.len() > 100, "the corpus holds {} files", files.len());
    // Panics are caught and counted, not printed once each.
    std::panic::set_hook(Box::new(|_| {}));
    let mut problems = Vec::new();
    let mut failed_readings = 0;
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        let raw = FrontInput::raw_only("fuzz.cu", &text);
        let marked = format!("# 1 \"fuzz.cu\"\n{text}");
        let preprocessed = FrontInput {
            preprocessed: Some(&marked),
            host_stub: Some(&text),
            ..FrontInput::raw_only("fuzz.cu", &text)
        };
        for (how, input) in [("raw", &raw), ("preprocessed", &preprocessed)] {
            if analyze(input).is_err() {
                failed_readings += 1;
            }
            problems.extend(check(&format!("{name} ({how})"), input));
        }
    }
    let _ = std::panic::take_hook();
    println!(
        "{} inputs, {} readings, {} of them errors (each located)",
        files.len(),
        2 * files.len(),
        failed_readings
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The property is checked, not assumed: a diagnostic without a location is caught.
#[test]
fn an_unplaced_error_would_be_caught() {
    let input = FrontInput::raw_only("other.cu", "struct {");
    assert!(check("made up", &input).is_some());
}
