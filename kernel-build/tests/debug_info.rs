//! What device code records of its source, with the real nvcc: line tables by default (the
//! cubins' `.debug_line` and `.nv_debug_line_sass`), none when turned off, a debug build
//! (`.debug_info`) with a note on request, an `lto` module linked as `rdc` under `-G`, and
//! inline text whose line tables name the Rust file while the model and the messages still
//! count the value's lines.

mod support;

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::{BuiltModule, LinkMode};
use object::{Object, ObjectSection};
use std::path::Path;
use support::{project, real_nvcc};

const KERNEL: &str = "extern \"C\" __global__ void twice(float* x, int n) {\n\
    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) x[i] *= 2.0f;\n\
}\n";

fn request(dir: &Path, source: SourceInput) -> ModuleRequest {
    let mut req = ModuleRequest::new("dbg", source);
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into()]);
    req
}

fn file(dir: &Path) -> ModuleRequest {
    request(
        dir,
        SourceInput::File {
            path: "k.cu".into(),
        },
    )
}

fn build(req: &ModuleRequest, nvcc: &Path, cache: &Path) -> BuiltModule {
    let cx = Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(cache.to_path_buf()),
        ..Context::default()
    };
    build_module(req, &cx).unwrap()
}

/// For every cubin of the module: its section names and its `.debug_line` bytes.
fn cubins(m: &BuiltModule) -> Vec<(Vec<String>, Vec<u8>)> {
    let bytes = std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap();
    let fatbin = cuda_kernel_objects::parse(&bytes).unwrap();
    let cubins: Vec<_> = fatbin
        .entries
        .iter()
        .filter(|e| e.kind == cuda_kernel_objects::EntryKind::Elf)
        .map(|e| {
            let elf = object::File::parse(&e.payload[..]).unwrap();
            let names = elf
                .sections()
                .map(|s| s.name().unwrap_or_default().to_owned())
                .collect();
            let line = elf
                .section_by_name(".debug_line")
                .map(|s| s.data().unwrap().to_vec())
                .unwrap_or_default();
            (names, line)
        })
        .collect();
    assert_eq!(cubins.len(), 2, "one cubin per target");
    cubins
}

fn has(names: &[String], section: &str) -> bool {
    names.iter().any(|n| n == section)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn kernels_carry_line_tables_by_default_and_none_when_turned_off() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNEL)]);
    let cache = tempfile::tempdir().unwrap();
    let on = build(&file(dir.path()), &nvcc, cache.path());
    for (names, line) in cubins(&on) {
        assert!(has(&names, ".nv_debug_line_sass"), "{names:?}");
        assert!(contains(&line, "k.cu"), "the line table names the file");
        assert!(!has(&names, ".debug_info"), "{names:?}");
    }
    assert!(on.warnings.iter().all(|w| !w.contains("debug build")));

    let mut off = file(dir.path());
    off.line_info = Some(false);
    for (names, _) in cubins(&build(&off, &nvcc, cache.path())) {
        assert!(!has(&names, ".nv_debug_line_sass"), "{names:?}");
        assert!(!has(&names, ".debug_line"), "{names:?}");
    }
}

#[test]
fn a_debug_build_is_asked_for_and_says_its_kernels_run_slowly() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNEL)]);
    let cache = tempfile::tempdir().unwrap();
    let mut req = file(dir.path());
    req.device_debug = Some(true);
    let built = build(&req, &nvcc, cache.path());
    for (names, _) in cubins(&built) {
        assert!(has(&names, ".debug_info"), "{names:?}");
    }
    let note = built.warnings.iter().find(|w| w.contains("debug build"));
    assert!(
        note.is_some_and(|n| n.contains("module `dbg`") && n.contains("slower")),
        "{:?}",
        built.warnings
    );
}

#[test]
fn an_lto_module_under_g_is_linked_as_rdc_and_keeps_its_debug_information() {
    let Some(nvcc) = real_nvcc() else { return };
    let other = "__device__ float half_of(float v) { return 0.5f * v; }\n";
    let user = "__device__ float half_of(float v);\n\
                extern \"C\" __global__ void halve(float* x, int n) {\n\
                    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                    if (i < n) x[i] = half_of(x[i]);\n\
                }\n";
    let dir = project(&[("a.cu", user), ("b.cu", other)]);
    let cache = tempfile::tempdir().unwrap();
    let mut req = request(
        dir.path(),
        SourceInput::Files {
            paths: vec!["a.cu".into(), "b.cu".into()],
        },
    );
    req.link = LinkMode::Lto;
    req.device_debug = Some(true);
    let built = build(&req, &nvcc, cache.path());
    assert!(
        built
            .warnings
            .iter()
            .any(|w| w.contains("device-linked as `rdc`")),
        "{:?}",
        built.warnings
    );
    for (names, line) in cubins(&built) {
        assert!(has(&names, ".debug_info"), "{names:?}");
        assert!(contains(&line, "a.cu") && contains(&line, "b.cu"));
    }
}

#[test]
fn inline_text_names_its_rust_file_in_line_tables_and_its_own_lines_in_the_model() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("src/main.rs", "// the crate\n")]);
    let cache = tempfile::tempdir().unwrap();
    let text = format!("\n{KERNEL}");
    let mut req = request(dir.path(), SourceInput::Inline { text });
    let main_rs = dir.path().join("src/main.rs");
    req.inline_origin = Some((main_rs.clone(), 40));
    let built = build(&req, &nvcc, cache.path());
    for (_, line) in cubins(&built) {
        assert!(
            contains(&line, "main.rs"),
            "the line table names the Rust file"
        );
    }
    // The model counts the value's lines (the kernel is on its second), and the Rust file is
    // no dependency of the device code.
    let loc = built.info.kernels[0].loc.as_ref().unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("<inline dbg>", 2));
    assert!(
        !built.tracked_files.contains(&main_rs),
        "{:?}",
        built.tracked_files
    );

    // nvcc's messages too: the error on the value's fourth line is told there.
    let broken = format!("\n{}", KERNEL.replace("*= 2.0f", "*= undeclared"));
    let mut req = request(dir.path(), SourceInput::Inline { text: broken });
    req.inline_origin = Some((main_rs, 40));
    let cx = Context {
        nvcc: Some(nvcc.clone()),
        cache_dir: Some(cache.path().to_path_buf()),
        ..Context::default()
    };
    let err = build_module(&req, &cx).unwrap_err().to_string();
    assert!(err.contains("<inline dbg>:4"), "{err}");
    assert!(!err.contains("main.rs"), "{err}");
}

/// A cubin's target, its `.text.*` sections by name (the kernels' machine code), and its
/// decompressed size.
type MachineCode = (String, Vec<(String, Vec<u8>)>, usize);

/// Every ELF cubin of `fatbin`.
fn machine_code(fatbin: &[u8]) -> Vec<MachineCode> {
    let parsed = cuda_kernel_objects::parse(fatbin).unwrap();
    parsed
        .entries
        .iter()
        .filter(|e| e.kind == cuda_kernel_objects::EntryKind::Elf)
        .map(|e| {
            let elf = object::File::parse(&e.payload[..]).unwrap();
            let text = elf
                .sections()
                .filter(|s| s.name().is_ok_and(|n| n.starts_with(".text.")))
                .map(|s| (s.name().unwrap().to_owned(), s.data().unwrap().to_vec()))
                .collect();
            (e.target(), text, e.payload.len())
        })
        .collect()
}

/// Line tables change no machine code: each kernel's `.text` section is the same bytes with
/// and without them, for every CUDA file of a folder that builds alone (default: a few of
/// this repository's test kernels; `LINE_INFO_CORPUS=DIR` measures another folder, with
/// `LINE_INFO_ARCHS=sm_80,sm_90` for the targets). What they add to the images is printed:
/// the fatbin as written (nvcc compresses it) and its cubins decompressed.
#[test]
fn line_tables_leave_the_machine_code_unchanged() {
    let Some(nvcc) = real_nvcc() else { return };
    #[allow(clippy::disallowed_methods)] // a measurement's inputs, not a build's
    let (corpus, archs) = (
        std::env::var_os("LINE_INFO_CORPUS"),
        std::env::var("LINE_INFO_ARCHS").unwrap_or_else(|_| "sm_90".into()),
    );
    let measuring = corpus.is_some();
    let dir = corpus.map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cuda"),
        std::path::PathBuf::from,
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    if !measuring {
        let few = [
            "fifteen.cu",
            "out_of_bounds.cu",
            "shapes.cu",
            "launch_events.cu",
        ];
        files.retain(|p| few.iter().any(|f| p.ends_with(f)));
    }
    let cache = tempfile::tempdir().unwrap();
    let (mut sizes, mut kernels, mut built_files) = ([0usize; 4], 0usize, 0usize);
    for path in &files {
        let images: Vec<_> = [true, false]
            .into_iter()
            .map(|on| {
                let mut req = request(
                    &dir,
                    SourceInput::File {
                        path: path.file_name().unwrap().into(),
                    },
                );
                req.archs = Some(archs.split(',').map(str::to_owned).collect());
                req.line_info = Some(on);
                let cx = Context {
                    nvcc: Some(nvcc.clone()),
                    cache_dir: Some(cache.path().to_path_buf()),
                    ..Context::default()
                };
                let built = build_module(&req, &cx).ok()?;
                Some(std::fs::read(built.fatbin_path?).unwrap())
            })
            .collect();
        let [Some(with), Some(without)] = &images[..] else {
            assert!(measuring, "{} does not build", path.display());
            eprintln!("left out (does not build alone): {}", path.display());
            continue;
        };
        let (a, b) = (machine_code(with), machine_code(without));
        assert_eq!(a.len(), b.len());
        for ((target, text_a, size_a), (_, text_b, size_b)) in a.iter().zip(&b) {
            assert_eq!(
                text_a,
                text_b,
                "{} {target}: machine code differs",
                path.display()
            );
            kernels += text_a.len();
            sizes[2] += size_a;
            sizes[3] += size_b;
        }
        sizes[0] += with.len();
        sizes[1] += without.len();
        built_files += 1;
    }
    assert!(built_files > 0 && kernels > 0);
    let pct = |a: usize, b: usize| 100.0 * (a as f64 - b as f64) / b as f64;
    eprintln!(
        "{built_files} files, {kernels} kernel images ({archs}): machine code identical; \
         fatbins {} bytes with line tables, {} without (+{:.1}%); cubins decompressed {} \
         and {} (+{:.1}%)",
        sizes[0],
        sizes[1],
        pct(sizes[0], sizes[1]),
        sizes[2],
        sizes[3],
        pct(sizes[2], sizes[3])
    );
}
