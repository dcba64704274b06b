//! What each door compiles (Cargo's resolution, read with `cargo tree`): the runtime without
//! its `macros` feature has no procedural macro of ours, nothing of the build library and no
//! derive of bytemuck, and the macro crate builds the build library without what only build
//! scripts use (`Build`'s host-code builder `cc`, Cargo's jobserver, the generated files'
//! layout by prettyplease); and the runtime's code (`cuda-kernel-runtime-core`) depends on no
//! macro of ours even with every feature on, so that a build compiles it beside the macros'
//! build library, and the runtime crate itself is only the re-exports.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

/// The packages (`name vX`) `cargo tree` lists for `args`, normal and build edges; `None`
/// (after printing why) where cargo cannot be started, as on a machine that runs built tests
/// only.
fn tree(args: &[&str]) -> Option<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}"])
        .args(args)
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let _ = writeln!(std::io::stderr(), "skipped: cargo cannot be run here");
            return None;
        }
        Err(e) => panic!("cargo could not be run: {e}"),
    };
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect(),
    )
}

#[test]
fn the_runtime_without_macros_builds_no_macro_and_no_build_library() {
    let Some(without) = tree(&[
        "-p",
        "cuda-kernel-runtime",
        "--no-default-features",
        "--features",
        "cuda-13000",
    ]) else {
        return;
    };
    assert!(without.iter().any(|p| p == "cudarc"), "{without:?}");
    for absent in [
        "cuda-kernel-macros",
        "cuda-kernel-build",
        "proc-macro-crate",
        "serde",
        // Its vector types implement bytemuck's traits by hand (and `half` without its
        // `bytemuck` feature, which would turn on the derive).
        "bytemuck_derive",
    ] {
        assert!(
            !without.iter().any(|p| p == absent),
            "{absent} is built without the macros feature: {without:?}"
        );
    }
    let Some(with) = tree(&["-p", "cuda-kernel-runtime"]) else {
        return;
    };
    for present in ["cuda-kernel-macros", "cuda-kernel-build"] {
        assert!(with.iter().any(|p| p == present), "{present}: {with:?}");
    }
}

#[test]
fn the_runtime_code_compiles_beside_the_macros() {
    let Some(core) = tree(&["-p", "cuda-kernel-runtime-core", "--all-features"]) else {
        return;
    };
    assert!(core.iter().any(|p| p == "cudarc"), "{core:?}");
    for absent in [
        "cuda-kernel-macros",
        "cuda-kernel-build",
        "proc-macro-crate",
    ] {
        assert!(
            !core.iter().any(|p| p == absent),
            "the runtime's code waits for {absent}: {core:?}"
        );
    }
    // The runtime crate is its `lib.rs` of re-exports: no module of code that would compile
    // after the macros.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernel-runtime/src");
    let files: Vec<_> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["lib.rs"], "{}", src.display());
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let code: Vec<&str> = lib
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect();
    let tests_at = code
        .iter()
        .position(|l| *l == "#[cfg(test)]")
        .unwrap_or(code.len());
    assert!(
        code[..tests_at].iter().all(|l| l.starts_with("#![doc(")
            || l.starts_with("pub use ")
            || l.starts_with("#[cfg(feature")
            || !l.contains(['{', '(', '='])
            || l.ends_with("};")
            || l.ends_with(',')),
        "kernel-runtime/src/lib.rs holds more than re-exports:\n{}",
        code[..tests_at].join("\n")
    );
}

#[test]
fn the_macro_builds_the_build_library_without_what_build_scripts_use() {
    let Some(macros) = tree(&["-p", "cuda-kernel-macros"]) else {
        return;
    };
    assert!(
        macros.iter().any(|p| p == "cuda-kernel-build"),
        "{macros:?}"
    );
    for absent in ["jobserver", "prettyplease"] {
        assert!(
            !macros.iter().any(|p| p == absent),
            "the macro builds {absent}: {macros:?}"
        );
    }
    // cc is a build-dependency of blake3 (assembly); the build library must not need it.
    let Some(build_lib) = tree(&[
        "-p",
        "cuda-kernel-build",
        "--no-default-features",
        "--depth",
        "1",
    ]) else {
        return;
    };
    assert!(!build_lib.iter().any(|p| p == "cc"), "{build_lib:?}");
    let Some(full) = tree(&["-p", "cuda-kernel-build", "--depth", "1"]) else {
        return;
    };
    assert!(full.iter().any(|p| p == "cc"), "{full:?}");
}
