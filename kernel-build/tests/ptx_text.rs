//! The PTX text ptxas embeds with line tables (`.nv_debug_ptx_txt`), left out of nvcc's own
//! cubins: the section emptied, every other section byte for byte as nvcc wrote it (the
//! line tables, the kernels' code, their parameter records), the kernels and their
//! parameters read back the same; and a module built by default, with `ptx_text` kept, and
//! without line tables.

mod support;

use cuda_kernel_build::__private::{
    Context, ModuleRequest, SourceInput, build_module, ptx_text_left_out,
};
use cuda_kernel_build::{BuiltModule, LinkMode};
use object::{Object, ObjectSection};
use std::path::Path;
use std::process::Command;
use support::{FakeNvcc, project, real_nvcc};

const KERNELS: &str = "struct Pair { float a; int b; };\n\
extern \"C\" __global__ void axpb(const float* x, float* y, int n, Pair p) {\n\
    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) y[i] = x[i] * p.a + p.b;\n\
}\n\
__constant__ float scale[4];\n\
template <typename T> __global__ void mul(T* y, int n) {\n\
    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) y[i] *= scale[i & 3];\n\
}\n\
template __global__ void mul<float>(float*, int);\n\
template __global__ void mul<double>(double*, int);\n";

/// A second file for the modules of two.
const NEG: &str = "extern \"C\" __global__ void neg(float* y, int n) {\n\
    int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) y[i] = -y[i];\n\
}\n";

/// Each section: name, size, bytes (none for `SHT_NOBITS`).
fn sections(cubin: &[u8]) -> Vec<(String, u64, Vec<u8>)> {
    let elf = object::File::parse(cubin).unwrap();
    elf.sections()
        .map(|s| {
            (
                s.name().unwrap().to_owned(),
                s.size(),
                s.data().unwrap_or_default().to_vec(),
            )
        })
        .collect()
}

fn size_of(list: &[(String, u64, Vec<u8>)], name: &str) -> Option<u64> {
    list.iter().find(|(n, ..)| n == name).map(|(_, s, _)| *s)
}

#[test]
fn nvcc_cubin_loses_only_its_ptx_text() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNELS)]);
    let cubin_path = dir.path().join("k.cubin");
    let out = Command::new(&nvcc)
        .current_dir(dir.path())
        .args(["-cubin", "-arch=sm_90", "-O3", "-lineinfo", "k.cu", "-o"])
        .arg(&cubin_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cubin = std::fs::read(&cubin_path).unwrap();
    let before = sections(&cubin);
    assert!(
        size_of(&before, ".nv_debug_ptx_txt").unwrap() > 0,
        "{before:?}"
    );

    let stripped = ptx_text_left_out(&cubin).expect("a cubin with PTX text");
    assert_eq!(stripped.len(), cubin.len(), "nothing moves");
    let after = sections(&stripped);
    assert_eq!(after.len(), before.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a.0, b.0);
        if a.0 == ".nv_debug_ptx_txt" {
            assert_eq!(a.1, 0, "the section is emptied");
        } else {
            assert_eq!(a, b, "section {} is unchanged", a.0);
        }
    }
    for kept in [
        ".debug_line",
        ".nv_debug_line_sass",
        ".text.axpb",
        ".nv.info.axpb",
    ] {
        assert!(size_of(&after, kept).unwrap() > 0, "{kept}: {after:?}");
    }
    // The PTX text's bytes are gone from the file (zeroed in place).
    let ptx = &before
        .iter()
        .find(|(n, ..)| n == ".nv_debug_ptx_txt")
        .unwrap()
        .2;
    assert!(ptx.windows(8).any(|w| w == b".version"));
    assert!(
        !stripped
            .windows(ptx.len().min(64))
            .any(|w| w == &ptx[..w.len()])
    );
    // The workspace's reader sees the same kernels, parameters and globals.
    let (a, b) = (
        cuda_kernel_objects::parse_cubin(&cubin).unwrap(),
        cuda_kernel_objects::parse_cubin(&stripped).unwrap(),
    );
    assert_eq!(a.kernels.len(), 3);
    assert_eq!(a.kernels, b.kernels);
    assert_eq!(a.globals, b.globals);
    assert!(a.line_tables && b.line_tables);
    assert!(a.ptx_text > 0);
    assert_eq!(b.ptx_text, 0);
    // Nothing left to strip.
    assert!(ptx_text_left_out(&stripped).is_none());
}

#[test]
fn a_cubin_without_line_tables_has_nothing_to_strip() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNELS)]);
    let cubin_path = dir.path().join("k.cubin");
    let out = Command::new(&nvcc)
        .current_dir(dir.path())
        .args(["-cubin", "-arch=sm_80", "k.cu", "-o"])
        .arg(&cubin_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cubin = std::fs::read(&cubin_path).unwrap();
    assert!(ptx_text_left_out(&cubin).is_none());
    let c = cuda_kernel_objects::parse_cubin(&cubin).unwrap();
    assert!(!c.line_tables);
    assert_eq!(c.ptx_text, 0);
}

fn build(
    dir: &Path,
    nvcc: &Path,
    files: &[&str],
    setup: impl Fn(&mut ModuleRequest),
) -> BuiltModule {
    let source = match files {
        [one] => SourceInput::File {
            path: (*one).into(),
        },
        many => SourceInput::Files {
            paths: many.iter().map(Into::into).collect(),
        },
    };
    let mut req = ModuleRequest::new("strip", source);
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into()]);
    setup(&mut req);
    let cx = Context {
        nvcc: Some(nvcc.to_path_buf()),
        cache_dir: Some(dir.join("cache")),
        ..Context::default()
    };
    build_module(&req, &cx).unwrap()
}

/// Per cubin of the module's fatbin: (line tables, bytes of PTX text); and the fatbin's size.
fn cubins(m: &BuiltModule) -> (Vec<(bool, u64)>, usize) {
    let bytes = std::fs::read(m.fatbin_path.as_ref().unwrap()).unwrap();
    // Whole-program files lie side by side, one container each: `parse` reads them all.
    let fatbin = cuda_kernel_objects::parse(&bytes).unwrap();
    let out = fatbin
        .entries
        .iter()
        .filter(|e| e.kind == cuda_kernel_objects::EntryKind::Elf)
        .map(|e| {
            let c = cuda_kernel_objects::parse_cubin(&e.payload).unwrap();
            (c.line_tables, c.ptx_text)
        })
        .collect();
    (out, bytes.len())
}

fn kernels(m: &BuiltModule) -> Vec<(String, Vec<(u64, u64)>)> {
    let mut k: Vec<_> = m
        .info
        .kernels
        .iter()
        .map(|k| {
            (
                k.symbol.clone(),
                k.params
                    .iter()
                    .map(|p| (p.layout.offset, p.layout.size))
                    .collect(),
            )
        })
        .collect();
    k.sort();
    k
}

#[test]
fn modules_leave_the_ptx_text_out_by_default_and_keep_it_on_request() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNELS), ("n.cu", NEG)]);
    let cases: [(&[&str], LinkMode); 3] = [
        (&["k.cu"], LinkMode::Whole),
        (&["k.cu", "n.cu"], LinkMode::Whole),
        (&["k.cu", "n.cu"], LinkMode::Rdc),
    ];
    for (files, mode) in cases {
        let stripped = build(dir.path(), &nvcc, files, |r| r.link = mode);
        let kept = build(dir.path(), &nvcc, files, |r| {
            r.link = mode;
            r.ptx_text = Some(true);
        });
        let none = build(dir.path(), &nvcc, files, |r| {
            r.link = mode;
            r.line_info = Some(false);
        });
        let (s, s_len) = cubins(&stripped);
        let (k, k_len) = cubins(&kept);
        let (n, _) = cubins(&none);
        let what = format!("{files:?} {mode:?}");
        assert!(!s.is_empty(), "{what}");
        assert!(
            s.iter().all(|&(lines, text)| lines && text == 0),
            "{what}: {s:?}"
        );
        // nvJitLink's linked cubins (rdc) carry no PTX text of their own: nothing to strip.
        let embeds = mode == LinkMode::Whole;
        assert!(
            k.iter().all(|&(lines, text)| lines && (text > 0) == embeds),
            "{what}: {k:?}"
        );
        assert!(
            n.iter().all(|&(lines, text)| !lines && text == 0),
            "{what}: {n:?}"
        );
        if embeds {
            assert!(
                s_len < k_len,
                "{what}: stripped {s_len} bytes, kept {k_len}"
            );
        }
        assert_eq!(kernels(&stripped), kernels(&kept), "{what}");
        assert!(!kernels(&stripped).is_empty());
    }
}

/// Leaving the text out reassembles each run's image with nvFatbin, which compresses its
/// entries: nvcc then stores them plain (`--compress-mode=none` in place of the build's
/// `--compress-mode=size`), so that no entry is compressed twice, and every entry of the
/// module still ends compressed. With the text kept, nvcc compresses them itself.
#[test]
fn each_entry_is_compressed_once_and_every_entry_ends_compressed() {
    let Some(real) = real_nvcc() else { return };
    let dir = project(&[("k.cu", KERNELS), ("n.cu", NEG)]);
    for files in [&["k.cu"][..], &["k.cu", "n.cu"]] {
        for keep in [false, true] {
            let fake = FakeNvcc::with_libraries("real", &real);
            let built = build(dir.path(), &fake.path, files, |r| {
                r.ptx_text = Some(keep);
                // Nothing from an earlier case's cache: every file compiles here.
                r.defines
                    .push((format!("CASE_{}_{keep}", files.len()), None));
            });
            let what = format!("{files:?}, text kept: {keep}");
            let compiles: Vec<String> = fake
                .runs()
                .into_iter()
                .filter(|l| l.contains("-fatbin"))
                .collect();
            assert!(!compiles.is_empty(), "{what}: no nvcc run logged");
            let (plain, packed) = if keep {
                ("--compress-mode=size", "--compress-mode=none")
            } else {
                ("--compress-mode=none", "--compress-mode=size")
            };
            assert!(
                compiles
                    .iter()
                    .all(|l| l.contains(plain) && !l.contains(packed)),
                "{what}: {compiles:#?}"
            );
            let bytes = std::fs::read(built.fatbin_path.as_ref().unwrap()).unwrap();
            let stored = cuda_kernel_objects::entry_compression(&bytes).unwrap();
            assert!(
                !stored.is_empty()
                    && stored
                        .iter()
                        .all(|c| *c != cuda_kernel_objects::Compression::None),
                "{what}: {stored:?}"
            );
            let (cubins, _) = cubins(&built);
            assert!(
                cubins
                    .iter()
                    .all(|&(lines, text)| lines && (text > 0) == keep),
                "{what}: {cubins:?}"
            );
        }
    }
}
