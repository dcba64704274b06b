//! Tuned choices across processes, with a fake clock (no GPU): a second process reuses the
//! first one's choice with zero timing runs, two processes tuning one key at once leave one
//! whole entry, and `KERNEL_TUNE_PIN` / `KERNEL_TUNE_RETUNE` do what they say. Each case
//! runs this test binary again as the child (`child`, which does nothing unless
//! `TUNE_TEST_DIR` is set).

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use cuda_kernel_runtime::tune::{GpuModel, Tuner, read_cache};

const NAMES: [&str; 4] = ["b128", "b256", "b512", "b1024"];

#[allow(
    clippy::disallowed_methods,
    reason = "the child's instructions, set by the parent"
)]
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// In a child: one tuner on the folder it is given, choosing for key 1 with a clock where
/// `TUNE_TEST_FASTEST` is the fastest variant; prints the pick and the timing runs.
#[test]
fn child() {
    let Some(dir) = var("TUNE_TEST_DIR") else {
        return;
    };
    let fastest: usize = var("TUNE_TEST_FASTEST").map_or(2, |v| v.parse().unwrap());
    let tuner = Tuner::<u64>::new("sum").cache_dir(dir).rounds(5);
    let model = GpuModel::new("NVIDIA H100 80GB HBM3", (9, 0), (13, 0));
    let result = tuner.choose(&model, &1, &NAMES, |i, n| {
        std::thread::sleep(Duration::from_micros(200));
        let ns = if i == fastest { 1_000 } else { 3_000 };
        Ok(Duration::from_nanos(ns * u64::from(n)))
    });
    match result {
        Ok(pick) => println!("RESULT pick={pick} tunings={}", tuner.tunings()),
        Err(e) => println!("RESULT error={e}"),
    }
}

fn spawn(dir: &Path, envs: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("TUNE_TEST_DIR", dir)
        .env_remove("KERNEL_TUNE_PIN")
        .env_remove("KERNEL_TUNE_RETUNE")
        .stdout(std::process::Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// The child's `RESULT` line, after `RESULT `.
fn result(out: Output) -> String {
    assert!(out.status.success(), "child failed: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.split_once("RESULT ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no result in {text}"))
        .to_owned()
}

fn run(dir: &Path, envs: &[(&str, &str)]) -> String {
    result(spawn(dir, envs).wait_with_output().unwrap())
}

#[test]
fn a_second_process_reuses_the_choice_with_no_timing_run() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run(dir.path(), &[]), "pick=2 tunings=1");
    // The second process's clock would pick another variant: it is never asked.
    assert_eq!(
        run(dir.path(), &[("TUNE_TEST_FASTEST", "0")]),
        "pick=2 tunings=0"
    );
}

#[test]
fn two_processes_tuning_at_once_leave_one_whole_entry() {
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..4).map(|_| spawn(dir.path(), &[])).collect();
    for c in children {
        let r = result(c.wait_with_output().unwrap());
        assert!(r.starts_with("pick=2 "), "{r}");
    }
    let rows = read_cache(Some(dir.path())).unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].variant, "b512");
    assert_eq!(run(dir.path(), &[]), "pick=2 tunings=0");
}

#[test]
fn a_pin_is_launched_without_timing_and_a_wrong_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let pin = [("KERNEL_TUNE_PIN", "gemm=t64, sum=b1024")];
    assert_eq!(run(dir.path(), &pin), "pick=3 tunings=0");
    assert!(
        read_cache(Some(dir.path())).unwrap().is_empty(),
        "a pin is not cached"
    );
    let wrong = run(dir.path(), &[("KERNEL_TUNE_PIN", "sum=b2048")]);
    assert!(
        wrong.contains("`b2048`") && wrong.contains("b1024"),
        "{wrong}"
    );
    let malformed = run(dir.path(), &[("KERNEL_TUNE_PIN", "sum")]);
    assert!(malformed.contains("kernel=variant"), "{malformed}");
}

#[test]
fn retune_times_again_and_replaces_the_cached_choice() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(run(dir.path(), &[]), "pick=2 tunings=1");
    let retune = [("KERNEL_TUNE_RETUNE", "1"), ("TUNE_TEST_FASTEST", "1")];
    assert_eq!(run(dir.path(), &retune), "pick=1 tunings=1");
    assert_eq!(
        run(dir.path(), &[("TUNE_TEST_FASTEST", "3")]),
        "pick=1 tunings=0"
    );
}
