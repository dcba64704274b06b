//! `cuda-kernel-inspect fatbin`, `cuda-kernel-inspect binary` and `cuda-kernel-inspect build` of several
//! files, on files built by the real nvcc; `decls` of kernels the front end cannot type.

#[path = "../../kernel-build/tests/fatbin_support/mod.rs"]
mod fatbin_support;

use std::process::Command;

use cuda_kernel_objects::label;
use fatbin_support::{SM90_UP, compile, nvcc, source};
use serde_json::Value;

/// Runs `cuda-kernel-inspect ARGS…`, requires success and returns stdout.
fn inspect(args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn kernels(entry: &Value) -> Vec<(&str, Vec<(u64, u64)>)> {
    entry["image"]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let params = k["params"].as_array().unwrap();
            let layout = params
                .iter()
                .map(|p| (p["offset"].as_u64().unwrap(), p["size"].as_u64().unwrap()));
            (k["symbol"].as_str().unwrap(), layout.collect())
        })
        .collect()
}

#[test]
fn fatbin_json_lists_entries_and_kernels() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.fatbin");
    std::fs::write(
        &path,
        compile(&nvcc, "-fatbin", &source("cluster.cu"), SM90_UP, &[]),
    )
    .unwrap();
    let json: Value = serde_json::from_str(&inspect(&[
        "fatbin".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
    ]))
    .unwrap();
    let entries = json["entries"].as_array().unwrap();
    let targets: Vec<_> = entries
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["sm_90", "sm_100", "sm_120", "compute_120"]);
    for entry in entries {
        assert_eq!(kernels(entry), [("clustered", vec![(0, 8)])]);
        assert_eq!(
            entry["image"]["kernels"][0]["cluster_dims"],
            serde_json::json!([2, 1, 1])
        );
    }
    assert_eq!(entries[3]["compression"], "zstd");
    assert_eq!(entries[3]["image"]["format"], "ptx");
    let text = inspect(&["fatbin".as_ref(), path.as_os_str()]);
    assert!(text.contains("kernel clustered"), "{text}");
}

#[test]
fn binary_finds_the_fatbin_of_a_host_object() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.o");
    std::fs::write(
        &path,
        compile(&nvcc, "-c", &source("cluster.cu"), SM90_UP, &[]),
    )
    .unwrap();
    let json: Value = serde_json::from_str(&inspect(&[
        "binary".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
    ]))
    .unwrap();
    let modules = json["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 1);
    assert_eq!(modules[0]["section"], ".nv_fatbin");
    assert_eq!(
        modules[0]["targets"],
        serde_json::json!(["sm_90", "sm_100", "sm_120", "compute_120"])
    );
    assert_eq!(
        kernels(&modules[0]["entries"][0]),
        [("clustered", vec![(0, 8)])]
    );
    // nvcc's own default compresses the PTX only; the build's default, every entry.
    assert_eq!(modules[0]["compressed_entries"], 1);
    let packed = dir.path().join("packed.o");
    let object = compile(
        &nvcc,
        "-c",
        &source("cluster.cu"),
        SM90_UP,
        &["--compress-mode=size"],
    );
    std::fs::write(&packed, object).unwrap();
    let text = inspect(&["binary".as_ref(), packed.as_os_str()]);
    assert!(text.contains(", 4 of 4 entries compressed"), "{text}");
}

#[test]
fn errors_are_messages_not_panics() {
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .args(["fatbin", "/nonexistent/x.fatbin"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .arg("frobnicate")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand 'frobnicate'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each subcommand's help is help, not an unknown option, and lists its options.
    for (command, options) in [
        (&["fatbin"][..], &["--json"][..]),
        (&["binary"], &["--json"]),
        (
            &["build"],
            &[
                "--require-every-target",
                "--arch",
                "-I",
                "--rdc",
                "--cache-dir",
                "--name",
                "--verbose",
            ],
        ),
        (&["decls"], &["-D", "--json", "untyped", "exit status"]),
        (&["toolkit"], &["install"]),
        (&["toolkit", "install"], &["--with", "--dir", "curand"]),
    ] {
        let mut args: Vec<&std::ffi::OsStr> = command.iter().map(|c| c.as_ref()).collect();
        args.push("--help".as_ref());
        let help = inspect(&args);
        let usage = format!("Usage: cuda-kernel-inspect {}", command.join(" "));
        assert!(help.contains(&usage), "{help}");
        for option in options {
            assert!(help.contains(option), "{command:?}: no {option} in {help}");
        }
    }
    // A library the installer does not know is refused before anything is installed.
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .args([
            "toolkit",
            "install",
            "--dir",
            "/nonexistent/x",
            "--with",
            "cudnn",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'cudnn'") && err.contains("cutlass"),
        "{err}"
    );
}

/// A folder with `a.cu` and `b.cu`, one kernel each (`from_a`, `from_b`).
fn two_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.cu"),
        "extern \"C\" __global__ void from_a(float* x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.cu"),
        "extern \"C\" __global__ void from_b(int* x, int n) { x[0] = n; }\n",
    )
    .unwrap();
    dir
}

#[test]
fn build_of_several_files_names_the_file_of_each_kernel() {
    let Some(nvcc) = nvcc() else { return };
    let dir = two_files();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .current_dir(dir.path())
        .env("NVCC", &nvcc)
        .args([
            "build", "a.cu", "b.cu", "--arch", "sm_80", "-j", "2", "--name", "two",
        ])
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("module `two`: 2 kernels (2 typed, 0 by name only), targets sm_80"),
        "{text}"
    );
    assert!(
        text.contains("from_a (1 params) registers sm_80:"),
        "{text}"
    );
    assert!(text.contains(" from a.cu\n"), "{text}");
    assert!(text.contains(" from b.cu\n"), "{text}");
}

/// `KERNEL_BUILD_ARCHS=native`: SASS for the GPUs the driver reports, nothing else; on a
/// machine without one, the default list and a warning that says why (a failure under
/// `KERNEL_REQUIRE_GPU=1`, where a GPU must be there).
#[test]
fn native_targets_are_the_gpus_of_this_machine() {
    let Some(nvcc) = nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.cu"),
        "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .current_dir(dir.path())
        .env("NVCC", &nvcc)
        .env("KERNEL_BUILD_ARCHS", "native")
        .args(["build", "k.cu", "--cache-dir"])
        .arg(dir.path().join("cache"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}{err}");
    let line = text.lines().next().unwrap_or_default();
    // `module `k`: 1 kernels (...), targets sm_75 sm_80 ... compute_120, nvcc 13.0.88, 9 ms`
    let targets: Vec<&str> = line
        .split("targets ")
        .nth(1)
        .and_then(|rest| rest.split(", nvcc").next())
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    #[allow(clippy::disallowed_methods, reason = "the test's own switch")]
    let require_gpu = std::env::var("KERNEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if format!("{text}{err}").contains("`KERNEL_BUILD_ARCHS=native` found no GPU here") {
        assert!(!require_gpu, "KERNEL_REQUIRE_GPU=1 but: {text}{err}");
        assert!(targets.len() > 1, "{line}");
        println!("skipped: no GPU here; the default targets were built, with the warning");
    } else {
        assert!(
            !targets.is_empty() && targets.iter().all(|t| t.starts_with("sm_")),
            "{line}"
        );
        println!("native targets: {targets:?}");
    }
}

/// A file as a Rust executable holds a generated module: bytes, the module's label, its
/// fatbin; then a fatbin with no label (as nvcc's host objects embed them) and a label
/// whose image holds no fatbin.
#[test]
fn binary_names_the_module_of_each_labelled_fatbin() {
    let Some(nvcc) = nvcc() else { return };
    let fatbin = compile(&nvcc, "-fatbin", &source("cluster.cu"), SM90_UP, &[]);
    const OPS: usize = label::header_len("ops");
    const EMPTY: usize = label::header_len("empty");
    let mut file = vec![0x5Au8; 24];
    file.extend_from_slice(&label::header::<OPS>("ops", fatbin.len()));
    let labelled = file.len();
    file.extend_from_slice(&fatbin);
    file.resize(file.len().next_multiple_of(8) + 16, 0);
    let unlabelled = file.len();
    file.extend_from_slice(&fatbin);
    file.resize(file.len().next_multiple_of(8), 0);
    file.extend_from_slice(&label::header::<EMPTY>("empty", 64));
    file.extend_from_slice(&[0u8; 64]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.bin");
    std::fs::write(&path, &file).unwrap();

    let json: Value = serde_json::from_str(&inspect(&[
        "binary".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
    ]))
    .unwrap();
    let modules = json["modules"].as_array().unwrap();
    let found: Vec<(&Value, u64)> = modules
        .iter()
        .map(|m| (&m["name"], m["offset"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            (&Value::from("ops"), labelled as u64),
            (&Value::Null, unlabelled as u64)
        ]
    );
    assert_eq!(
        kernels(&modules[0]["entries"][0]),
        [("clustered", vec![(0, 8)])]
    );
    let labels: Vec<(&str, u64)> = json["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap(),
                l["containers"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(labels, [("ops", 1), ("empty", 0)]);

    let text = inspect(&["binary".as_ref(), path.as_os_str()]);
    assert!(
        text.contains(&format!("module `ops` @{labelled:#x} in no section: ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("module @{unlabelled:#x} in no section: ")),
        "{text}"
    );
    assert!(
        text.contains("module `empty` @") && text.contains("holding no fatbin container"),
        "{text}"
    );
}

/// A module of several files compiles each file once per virtual architecture; each run's
/// progress line names what it built (`sm_75` SASS; `sm_90` SASS with `compute_90` PTX).
#[test]
fn build_progress_names_the_targets_each_run_built() {
    let Some(nvcc) = nvcc() else { return };
    let dir = two_files();
    let out = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
        .current_dir(dir.path())
        .env("NVCC", &nvcc)
        .args(["build", "a.cu", "b.cu", "-vv"])
        .args(["--arch", "sm_75", "--arch", "sm_90", "--arch", "compute_90"])
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let mut runs: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("cuda-kernel-build: compiled "))
        .map(|l| l.split(" in ").next().unwrap_or_default())
        .collect();
    runs.sort();
    assert_eq!(
        runs,
        [
            "`a.cu` for sm_75",
            "`a.cu` for sm_90, compute_90",
            "`b.cu` for sm_75",
            "`b.cu` for sm_90, compute_90"
        ],
        "{err}"
    );
}

/// `--name` names the module in the report, its warnings, the JSON and the fatbin written
/// into a folder (also when the file comes from the cache, built under another name); a name
/// given that the build would refuse is refused before anything is compiled, and one taken
/// from a first file whose stem is no identifier is made one (`2d-stencil.cu`: `_2d_stencil`).
#[test]
fn build_names_the_module_as_the_build_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("2d-stencil.cu"),
        "extern \"C\" __global__ void stencil(float* x) { x[0] = 1.0f; }\n\
         extern \"C\" __global__ void by_name(struct Unknown* u) { }\n",
    )
    .unwrap();
    // Names are checked before anything is compiled: the refusals need no nvcc.
    let nvcc = nvcc();
    let build = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"))
            .current_dir(dir.path())
            .envs(nvcc.iter().map(|n| ("NVCC", n)))
            .args(["build", "2d-stencil.cu", "--arch", "sm_80"])
            .arg("--cache-dir")
            .arg(dir.path().join("cache"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = build(&["--name", "my-mod"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("module name `my-mod` is not a Rust identifier"),
        "{err}"
    );
    if nvcc.is_none() {
        return;
    }
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = build(&[
        "--name",
        "stencil2d",
        "--out",
        out_dir.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let written = out_dir.join("stencil2d.fatbin");
    assert_eq!(json["name"], "stencil2d");
    assert_eq!(json["fatbin_path"], written.to_str().unwrap());
    let fatbin = std::fs::read(&written).unwrap();
    assert_eq!(
        cuda_kernel_objects::parse(&fatbin).unwrap().entries.len(),
        1
    );
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("module `stencil2d`: kernel `by_name`"),
        "{warnings}"
    );

    // The same file again from the cache, under another name: no trace of the first one.
    let out = build(&["--name", "renamed"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("module `renamed`: 2 kernels"), "{text}");
    assert!(
        text.contains("warning: module `renamed`: kernel `by_name`") && !text.contains("stencil2d"),
        "{text}"
    );

    // No name given: the file's stem, made an identifier.
    let out = build(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("module `_2d_stencil`: 2 kernels"),
        "{text}"
    );
}

/// A kernel the front end cannot type is listed with the reason, in text and JSON, beside
/// the typed one; as for `build`, that is not an error.
#[test]
fn decls_lists_the_kernels_it_cannot_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cu");
    std::fs::write(
        &path,
        "extern \"C\" __global__ void scale(float* x, float a) { x[0] *= a; }\n\
         extern \"C\" __global__ void by_pointer(struct Unknown* u, int n) { }\n\
         extern \"C\" __global__ void by_value(Mystery m) { }\n",
    )
    .unwrap();
    let json: Value = serde_json::from_str(&inspect(&[
        "decls".as_ref(),
        path.as_os_str(),
        "--json".as_ref(),
    ]))
    .unwrap();
    let typed: Vec<&str> = json["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(typed, ["scale"]);
    let untyped = json["untyped"].as_array().unwrap();
    let found: Vec<(&str, u64, &str)> = untyped
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap(),
                k["line"].as_u64().unwrap(),
                k["why"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].0, found[0].1), ("by_pointer", 2));
    assert!(found[0].2.contains("unknown type `Unknown`"), "{found:?}");
    assert_eq!((found[1].0, found[1].1), ("by_value", 3));
    assert!(found[1].2.contains("unknown type `Mystery`"), "{found:?}");
    assert_eq!(untyped[0]["param_names"], serde_json::json!(["u", "n"]));

    let text = inspect(&["decls".as_ref(), path.as_os_str()]);
    assert!(text.contains("kernel scale [C]"), "{text}");
    assert!(
        text.contains("kernel by_pointer [untyped] line 2: unknown type `Unknown`"),
        "{text}"
    );
    assert!(
        text.contains("kernel by_value [untyped] line 3: unknown type `Mystery`"),
        "{text}"
    );
}
