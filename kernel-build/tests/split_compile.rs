//! The largest runs of a build split over idle cores (nvcc's `--split-compile`) when the
//! build asks for it, with the real nvcc: a file large enough is split and a small one is
//! not, the split file's images hold the same kernels with the same parameter layouts as
//! unsplit ones, a one-file module is split too, a `--split-compile` of the user's is
//! respected, nothing is split unless asked, and a file's per-architecture images are one
//! container, the one nvcc writes when it compiles every target in one run.

mod support;

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::BuiltModule;
use cuda_kernel_build::LinkMode;
use cuda_kernel_objects as fatbin;
use std::collections::BTreeMap;
use std::path::Path;
use support::{FakeNvcc, project, real_nvcc};

/// 300 kernels written through macros (about 20,000 tokens once expanded), each taking a
/// struct by value, so that the file outweighs the threshold below which runs stay whole.
const BIG: &str = "struct Coeffs { float a; double b; int count; };\n\
#define K(id) extern \"C\" __global__ void k##id(float* x, const float* y, Coeffs c, int m) { \\\n\
  int i = blockIdx.x * blockDim.x + threadIdx.x; \\\n\
  if (i < m) { float v = y[i]; for (int j = 0; j < c.count; ++j) v = v * c.a + (float)c.b; x[i] = v; } }\n\
#define K10(id) K(id##0) K(id##1) K(id##2) K(id##3) K(id##4) K(id##5) K(id##6) K(id##7) K(id##8) K(id##9)\n\
#define K100(id) K10(id##0) K10(id##1) K10(id##2) K10(id##3) K10(id##4) K10(id##5) K10(id##6) K10(id##7) K10(id##8) K10(id##9)\n\
K100(1) K100(2) K100(3)\n";

const SMALL: &str = "extern \"C\" __global__ void small(int* x) { x[0] = 1; }\n";

fn request(dir: &Path, files: &[&str], flags: &[&str]) -> ModuleRequest {
    let source = match files {
        [one] => SourceInput::File {
            path: (*one).into(),
        },
        _ => SourceInput::Files {
            paths: files.iter().map(Into::into).collect(),
        },
    };
    let mut req = ModuleRequest::new("split", source);
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into(), "compute_90".into()]);
    req.link = LinkMode::Whole;
    req.flags = flags.iter().map(|f| (*f).to_owned()).collect();
    req
}

/// The module of `files` built on `jobs` cores, asked to split its largest runs.
fn build(fake: &FakeNvcc, dir: &Path, files: &[&str], flags: &[&str], jobs: usize) -> BuiltModule {
    build_asked(fake, dir, files, flags, jobs, Some(true))
}

fn build_asked(
    fake: &FakeNvcc,
    dir: &Path,
    files: &[&str],
    flags: &[&str],
    jobs: usize,
    split_compile: Option<bool>,
) -> BuiltModule {
    let cache = tempfile::tempdir().unwrap();
    let cx = Context {
        nvcc: Some(fake.path.clone()),
        cache_dir: Some(cache.path().to_path_buf()),
        jobs: Some(jobs),
        split_compile,
        ..Context::default()
    };
    let m = build_module(&request(dir, files, flags), &cx).unwrap();
    // The cache folder goes with this function: keep the fatbin.
    let kept = fake
        .dir
        .path()
        .join(format!("{}.fatbin", fake.runs().len()));
    std::fs::copy(m.fatbin_path.as_ref().unwrap(), &kept).unwrap();
    BuiltModule {
        fatbin_path: Some(kept),
        ..m
    }
}

/// The nvcc compiles of `file` in the log from line `from` on.
fn compiles_of(fake: &FakeNvcc, from: usize, file: &str) -> Vec<String> {
    fake.runs()[from..]
        .iter()
        .filter(|l| l.contains("-fatbin") && l.ends_with(file))
        .cloned()
        .collect()
}

/// Every image's kernels with their parameter slots, by target and symbol.
type Images = BTreeMap<(String, String), Vec<(u32, u32, u32)>>;

fn images(m: &BuiltModule) -> Images {
    let bytes = std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap();
    let mut out = Images::new();
    for e in fatbin::parse(&bytes).unwrap().entries {
        let image = e.image().unwrap();
        // The layout table's kernels are the build's, not the user's.
        let user = image
            .kernels()
            .iter()
            .filter(|k| !k.symbol.contains("kernel_build_layout_"));
        for k in user {
            let slots = k
                .params
                .iter()
                .map(|p| (p.ordinal, p.offset, p.size))
                .collect();
            out.insert((e.target(), k.symbol.clone()), slots);
        }
    }
    out
}

/// The model without what a compile may change (registers): kernels, their parameters and
/// layouts, the targets of their images, structs.
fn model(m: &BuiltModule) -> String {
    let mut info = m.info.clone();
    for k in &mut info.kernels {
        for i in &mut k.images {
            i.registers = None;
        }
        k.images.sort_by(|a, b| a.target.cmp(&b.target));
    }
    serde_json::to_string(&info).unwrap()
}

#[test]
fn a_large_file_is_split_and_keeps_its_kernels_and_layouts() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("big.cu", BIG), ("small.cu", SMALL)]);
    let files = ["big.cu", "small.cu"];

    let split = build(&fake, dir.path(), &files, &[], 8);
    let big = compiles_of(&fake, 0, "big.cu");
    assert_eq!(big.len(), 2, "one run per virtual architecture: {big:?}");
    assert!(
        big.iter().all(|l| l.contains("--split-compile 8")),
        "{big:?}"
    );
    let small = compiles_of(&fake, 0, "small.cu");
    assert!(
        small.iter().all(|l| !l.contains("split-compile")),
        "{small:?}"
    );

    // The user's own `--split-compile 1` (nvcc: no split) turns the policy off.
    let before = fake.runs().len();
    let whole = build(&fake, dir.path(), &files, &["--split-compile", "1"], 8);
    let big = compiles_of(&fake, before, "big.cu");
    assert!(
        big.iter().all(|l| l.matches("split-compile").count() == 1),
        "only the user's flag: {big:?}"
    );

    // Not asked (and `KERNEL_BUILD_SPLIT_COMPILE` not set on): nothing is split.
    #[allow(clippy::disallowed_methods)] // what the build will read, not a build input
    let unset = std::env::var_os("KERNEL_BUILD_SPLIT_COMPILE").is_none();
    if unset {
        let before = fake.runs().len();
        let plain = build_asked(&fake, dir.path(), &files, &[], 8, None);
        let big = compiles_of(&fake, before, "big.cu");
        assert!(big.iter().all(|l| !l.contains("split-compile")), "{big:?}");
        assert_eq!(images(&plain), images(&whole));
    }

    assert_eq!(split.info.kernels.len(), 301);
    assert_eq!(model(&split), model(&whole));
    let (a, b) = (images(&split), images(&whole));
    assert_eq!(a.len(), 3 * 301, "every kernel in every image");
    assert_eq!(a, b);
    let coeffs = &a[&("sm_90".to_owned(), "k123".to_owned())];
    assert_eq!(coeffs[2], (2, 16, 24), "the struct by value, as unsplit");
}

#[test]
fn a_one_file_module_splits_over_the_cores_its_targets_leave() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[("big.cu", BIG)]);
    let m = build(&fake, dir.path(), &["big.cu"], &[], 8);
    let runs = compiles_of(&fake, 0, "big.cu");
    // One run for the 3 targets (2 virtual architectures): 3 at once, 8 cores, 3 each.
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(
        runs[0].contains("--threads 3 --split-compile 3"),
        "{runs:?}"
    );
    assert_eq!(m.info.kernels.len(), 300);
    // Two cores: the targets keep them busy, nothing is split.
    let before = fake.runs().len();
    build(&fake, dir.path(), &["big.cu"], &[], 2);
    let runs = compiles_of(&fake, before, "big.cu");
    assert!(
        runs.iter().all(|l| !l.contains("split-compile")),
        "{runs:?}"
    );
}

#[test]
fn a_files_images_are_the_container_nvcc_writes_for_all_its_targets() {
    let Some(real) = real_nvcc() else { return };
    let fake = FakeNvcc::new("real", &real);
    let dir = project(&[
        ("small.cu", SMALL),
        ("other.cu", SMALL.replace("small", "other").as_str()),
    ]);
    let m = build(&fake, dir.path(), &["small.cu", "other.cu"], &[], 2);
    assert_eq!(
        compiles_of(&fake, 0, "small.cu").len(),
        2,
        "two runs joined"
    );
    let unit = &m.units[0];
    assert_eq!(unit.file, "small.cu");
    let (offset, len) = unit.image.unwrap();
    let bytes = std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap();
    let joined = &bytes[offset as usize..(offset + len) as usize];
    // nvcc's own container of the same targets in one run, with the module's flags (taken
    // from the log of the build's run, whose wrapper and layout table the file lacks).
    let run = &compiles_of(&fake, 0, "small.cu")[0];
    let flags: Vec<&str> = run
        .split(' ')
        .filter(|a| a.starts_with("--compress") || *a == "-lineinfo")
        .collect();
    let out = dir.path().join("nvcc.fatbin");
    let status = std::process::Command::new(&real)
        .args(["-fatbin", "-gencode", "arch=compute_80,code=sm_80"])
        .args(["-gencode", "arch=compute_90,code=sm_90"])
        .args(["-gencode", "arch=compute_90,code=compute_90"])
        .args(&flags)
        .arg("-o")
        .arg(&out)
        .arg(dir.path().join("small.cu"))
        .status()
        .unwrap();
    assert!(status.success());
    let theirs = fatbin::parse(&std::fs::read(&out).unwrap()).unwrap();
    let ours = fatbin::parse(joined).unwrap();
    let shape = |f: &fatbin::Fatbin| -> Vec<(String, Vec<String>)> {
        f.entries
            .iter()
            .map(|e| {
                let image = e.image().unwrap();
                let names = image.kernels().iter().map(|k| k.symbol.clone());
                (e.target(), names.filter(|s| s == "small").collect())
            })
            .collect()
    };
    assert_eq!(shape(&ours), shape(&theirs));
    assert_eq!(ours.entries.len(), 3);
}
