//! The disk cache of run-time compilations, without a GPU: a hit runs no NVRTC compilation,
//! a damaged entry is evicted and compiled again, a define or an included file makes a new
//! entry, and two processes compiling the same program at once share one whole entry.
//!
//! One test counts compilations (`Nvrtc::compilations` is per process), so this file holds
//! it alone; the child processes are this binary again, running the ignored `child` test.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_runtime::{Error, Nvrtc, Program};

/// Fifteen kernels, so that a compilation takes long enough for two processes to overlap.
fn source() -> String {
    (0..15)
        .map(|i| {
            format!(
                "extern \"C\" __global__ void k{i}(float* x, int n) {{\n\
                 int j = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 if (j < n) x[j] = x[j] * {i}.5f + sinf(x[j]) * TILE;\n}}\n"
            )
        })
        .collect()
}

fn program(dir: &Path) -> Program {
    Program::new(source())
        .name("fifteen.cu")
        .define("TILE", 16)
        .cache_dir(dir)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(shards) = std::fs::read_dir(dir.join("nvrtc")) else {
        return out;
    };
    for shard in shards.flatten() {
        out.extend(
            std::fs::read_dir(shard.path())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path()),
        );
    }
    out.sort();
    out
}

#[test]
fn hits_misses_damage_and_two_processes() -> Result<(), Error> {
    Nvrtc::load()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let compiles = Nvrtc::compilations;

    // Miss, then hit: the hit compiles nothing and gives the same bytes.
    let before = compiles();
    let first = program(dir.path()).compile("sm_90")?;
    assert_eq!(compiles(), before + 1);
    let files = entries(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let again = program(dir.path()).compile("sm_90")?;
    assert_eq!(compiles(), before + 1, "a cache hit runs no compilation");
    assert_eq!(again.bytes(), first.bytes());
    assert_eq!(again.kernels()?, first.kernels()?);

    // Another define, another target: other entries.
    program(dir.path()).define("EXTRA", 1).compile("sm_90")?;
    program(dir.path()).compile("compute_90")?;
    assert_eq!(compiles(), before + 3);
    assert_eq!(entries(dir.path()).len(), 3);

    // A truncated entry and a flipped byte are detected, evicted and compiled again.
    let entry = &files[0];
    let len = std::fs::metadata(entry).expect("entry").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(entry)
        .and_then(|f| f.set_len(len / 2))
        .expect("truncate");
    let healed = program(dir.path()).compile("sm_90")?;
    assert_eq!(
        compiles(),
        before + 4,
        "a truncated entry is compiled again"
    );
    assert_eq!(healed.bytes(), first.bytes());
    let mut bytes = std::fs::read(entry).expect("rewritten entry");
    assert_eq!(bytes.len() as u64, len, "the entry was written whole again");
    let at = bytes.len() - 100;
    bytes[at] ^= 1;
    std::fs::write(entry, &bytes).expect("flip");
    program(dir.path()).compile("sm_90")?;
    assert_eq!(compiles(), before + 5, "an altered entry is compiled again");
    program(dir.path()).compile("sm_90")?;
    assert_eq!(compiles(), before + 5, "and then served from the cache");

    // Two processes compile one new program into one folder at the same time.
    let shared = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(&exe)
                .args(["child", "--exact", "--ignored", "--nocapture"])
                .env("NVRTC_CACHE_CHILD_DIR", shared.path())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("child").success(), "a child process failed");
    }
    let files = entries(shared.path());
    assert_eq!(
        files.len(),
        1,
        "one whole entry, no staged files: {files:?}"
    );
    let shared_before = compiles();
    let code = program(shared.path()).compile("sm_90")?;
    assert_eq!(
        compiles(),
        shared_before,
        "the entry the children left is whole"
    );
    assert_eq!(code.kernels()?.len(), 15);
    Ok(())
}

/// Run by the test above in two processes at once.
#[test]
#[ignore = "a child process of hits_misses_damage_and_two_processes"]
fn child() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods, reason = "set by the parent test")]
    let dir = std::env::var_os("NVRTC_CACHE_CHILD_DIR").expect("run by the parent test");
    let code = program(Path::new(&dir)).compile("sm_90")?;
    assert_eq!(code.kernels()?.len(), 15);
    Ok(())
}
