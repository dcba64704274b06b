//! What nvcc builds, we build: a file with one kernel that includes one header, for every
//! header of the C++ standard library the host compiler ships (libstdc++), the top-level
//! headers of CCCL (CUB, Thrust, libcu++) in the toolkit, of CUTLASS and CuTe when they are
//! installed beside nvcc, and of LLVM's ADT library (a large host-side C++ framework) when
//! its headers are installed. Where nvcc compiles the file, our
//! build must succeed with the kernel typed; where nvcc refuses it (a header of a later C++
//! standard than the one nvcc uses), the file says nothing about us and is counted apart.
//!
//! Every file is built for sm_90 alone, with a cache shared by the files of one run. Skipped
//! with a reason where there is no nvcc or no libstdc++.
//!
//! By default each set is sampled: [`SAMPLE`] headers evenly spread over its sorted list (the
//! first always among them), about a minute of nvcc on 2 cores instead of eight for every
//! header. `KERNEL_TEST_ALL_HEADERS=1` builds every header of every set; CI sets it.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::Error;
use support::real_nvcc;

const KERNEL: &str = "extern \"C\" __global__ void scale(float* x, float s, int n) {\n    \
                      int i = blockIdx.x * blockDim.x + threadIdx.x;\n    \
                      if (i < n) x[i] *= s;\n}\n";

/// The newest libstdc++ include folder (`/usr/include/c++/12`).
fn libstdcxx() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/include/c++")
        .ok()?
        .filter_map(|e| {
            let path = e.ok()?.path();
            let v = path.file_name()?.to_str()?.parse().ok()?;
            Some((v, path))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, p)| p)
}

/// The headers of `dir` (files only) whose names pass `keep`, as `prefix/name`.
fn headers(dir: &Path, prefix: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_str()?.to_owned();
            (e.file_type().ok()?.is_file() && keep(&name)).then(|| format!("{prefix}{name}"))
        })
        .collect();
    out.sort();
    out
}

/// The CCCL folder of the toolkit nvcc belongs to.
fn cccl(nvcc: &Path) -> Option<PathBuf> {
    let root = nvcc.parent()?.parent()?;
    [root.join("include/cccl"), root.join("include")]
        .into_iter()
        .find(|d| d.join("thrust").is_dir())
}

/// How one file fared.
enum Outcome {
    Typed,
    /// nvcc refused the file: nothing to compare.
    NvccRefused,
    /// Our build failed, or the kernel has no typed stub.
    Failed(String),
}

/// What every file of one run is built with besides its header.
#[derive(Clone, Copy, Default)]
struct Options<'a> {
    includes: &'a [&'a str],
    flags: &'a [&'a str],
}

fn build_one(
    nvcc: &Path,
    dir: &Path,
    cache: &Path,
    index: usize,
    header: &str,
    options: Options<'_>,
) -> Outcome {
    let file = dir.join(format!("h{index}.cu"));
    std::fs::write(&file, format!("#include <{header}>\n{KERNEL}")).unwrap();
    let mut req = ModuleRequest::new(format!("h{index}"), SourceInput::File { path: file });
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_90".into()]);
    req.includes = options.includes.iter().map(PathBuf::from).collect();
    req.flags = options.flags.iter().map(|f| (*f).to_owned()).collect();
    let cx = Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(cache.to_path_buf()),
        jobs: Some(1),
        ..Context::default()
    };
    match build_module(&req, &cx) {
        Err(Error::NvccFailed { .. }) => Outcome::NvccRefused,
        Err(e) => Outcome::Failed(format!("<{header}>: {e}")),
        Ok(built) if built.info.kernels.iter().any(|k| k.name == "scale") => Outcome::Typed,
        Ok(built) => Outcome::Failed(format!(
            "<{header}>: `scale` has no typed stub: {:?}",
            built
                .info
                .untyped
                .iter()
                .map(|u| &u.why)
                .collect::<Vec<_>>()
        )),
    }
}

/// Builds every header's file on two threads; returns (typed, refused by nvcc, failures).
fn run(nvcc: &Path, headers: &[String], options: Options<'_>) -> (usize, Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(header) = headers.get(i) else { break };
                    let outcome = build_one(nvcc, dir.path(), cache.path(), i, header, options);
                    results.lock().unwrap().push((header.clone(), outcome));
                }
            });
        }
    });
    let mut typed = 0;
    let mut refused = Vec::new();
    let mut failed = Vec::new();
    for (header, outcome) in results.into_inner().unwrap() {
        match outcome {
            Outcome::Typed => typed += 1,
            Outcome::NvccRefused => refused.push(header),
            Outcome::Failed(why) => failed.push(why),
        }
    }
    refused.sort();
    failed.sort();
    (typed, refused, failed)
}

/// How many headers of each set a default run builds.
const SAMPLE: usize = 16;

/// The variable that asks for every header of every set.
const ALL_HEADERS: &str = "KERNEL_TEST_ALL_HEADERS";

/// `count` of `list` evenly spread over it, the first among them; all of it when it is no
/// longer.
fn sample(list: &[String], count: usize) -> Vec<String> {
    if list.len() <= count {
        return list.to_vec();
    }
    (0..count)
        .map(|i| list[i * list.len() / count].clone())
        .collect()
}

/// The headers of `list` this run builds: every one under `KERNEL_TEST_ALL_HEADERS=1`, else
/// a [`sample`].
fn chosen(list: &[String]) -> Vec<String> {
    #[allow(clippy::disallowed_methods)] // the test's scope, not a build's input
    if std::env::var_os(ALL_HEADERS).is_some_and(|v| v == "1") {
        list.to_vec()
    } else {
        sample(list, SAMPLE)
    }
}

#[test]
fn a_sample_is_spread_over_the_list_and_starts_with_its_first() {
    let list: Vec<String> = (0..100).map(|i| format!("h{i:03}")).collect();
    let s = sample(&list, SAMPLE);
    assert_eq!(s.len(), SAMPLE);
    assert_eq!(s[0], "h000");
    assert_eq!(s[1], "h006");
    assert_eq!(s[SAMPLE - 1], "h093");
    assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?}");
    assert_eq!(sample(&list[..5], SAMPLE), list[..5]);
}

/// Builds the chosen headers' files of one set and holds the outcome against nvcc's: no
/// file nvcc compiles may fail with us, and most of the set must build (a set nvcc refuses
/// whole says nothing). Prints the counts.
fn check_set(nvcc: &Path, label: &str, root: &Path, all: &[String], options: Options<'_>) {
    let list = &chosen(all);
    let (typed, refused, failed) = run(nvcc, list, options);
    let scope = if list.len() < all.len() {
        format!(
            "a sample of {} of {} headers ({ALL_HEADERS}=1: every one)",
            list.len(),
            all.len()
        )
    } else {
        format!("{} headers", list.len())
    };
    println!(
        "{label} ({}): {scope}, {typed} built with the kernel typed, {} refused by nvcc: {refused:?}",
        root.display(),
        refused.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        typed > list.len() / 2,
        "most headers build: {typed} of {}",
        list.len()
    );
}

#[test]
fn every_standard_library_header_builds_with_the_kernel_typed() {
    let Some(nvcc) = real_nvcc() else {
        return;
    };
    let Some(dir) = libstdcxx() else {
        println!("skipped: no libstdc++ headers under /usr/include/c++");
        return;
    };
    // The C++ headers (no extension), not the C compatibility `.h` files.
    let list = headers(&dir, "", |n| !n.contains('.'));
    assert!(
        list.len() > 50,
        "{} headers in {}",
        list.len(),
        dir.display()
    );
    check_set(&nvcc, "libstdc++", &dir, &list, Options::default());
}

#[test]
fn every_top_level_cccl_header_builds_with_the_kernel_typed() {
    let Some(nvcc) = real_nvcc() else {
        return;
    };
    let Some(root) = cccl(&nvcc) else {
        println!("skipped: no CCCL beside {}", nvcc.display());
        return;
    };
    let mut list = vec!["cub/cub.cuh".to_owned()];
    list.extend(headers(&root.join("thrust"), "thrust/", |n| {
        n.ends_with(".h")
    }));
    list.extend(headers(&root.join("cuda"), "cuda/", |n| !n.contains('.')));
    list.extend(headers(&root.join("cuda/std"), "cuda/std/", |n| {
        !n.contains('.')
    }));
    assert!(
        list.len() > 100,
        "{} CCCL headers in {}",
        list.len(),
        root.display()
    );
    check_set(&nvcc, "CCCL", &root, &list, Options::default());
}

#[test]
fn every_top_level_cutlass_and_cute_header_builds_with_the_kernel_typed() {
    let Some(nvcc) = real_nvcc() else {
        return;
    };
    let toolkit = nvcc.parent().and_then(Path::parent).and_then(Path::parent);
    let root = toolkit
        .and_then(|t| t.parent())
        .map(|t| t.join("cutlass_library/source/include"))
        .filter(|d| d.join("cutlass").is_dir());
    let Some(root) = root else {
        println!(
            "skipped: no CUTLASS beside {} (scripts/test.sh installs it)",
            nvcc.display()
        );
        return;
    };
    let mut list = headers(&root.join("cutlass"), "cutlass/", |n| n.ends_with(".h"));
    list.extend(headers(&root.join("cute"), "cute/", |n| {
        n.ends_with(".hpp")
    }));
    assert!(
        list.len() > 50,
        "{} CUTLASS headers in {}",
        list.len(),
        root.display()
    );
    // CUTLASS's own build flags; its folder comes from discovery (a library beside nvcc).
    let options = Options {
        includes: &[],
        flags: &["-std=c++17", "--expt-relaxed-constexpr"],
    };
    check_set(&nvcc, "CUTLASS and CuTe", &root, &list, options);
}

#[test]
fn every_llvm_adt_header_builds_with_the_kernel_typed() {
    let Some(nvcc) = real_nvcc() else {
        return;
    };
    let root = Path::new("/usr/include/llvm-14");
    if !root.join("llvm/ADT").is_dir() {
        println!("skipped: no LLVM headers at {}", root.display());
        return;
    }
    let list = headers(&root.join("llvm/ADT"), "llvm/ADT/", |n| n.ends_with(".h"));
    let options = Options {
        includes: &["/usr/include/llvm-14", "/usr/include/llvm-c-14"],
        flags: &["-std=c++17"],
    };
    check_set(&nvcc, "LLVM 14 ADT", root, &list, options);
}
