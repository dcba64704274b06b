//! Every kind of compiled code nvcc writes is told from its bytes (`CodeKind::detect`), and
//! the readers find the kernel in each kind that carries parameter records.

mod support;

use std::path::Path;
use std::process::Command;

use cuda_kernel_objects::{self as fatbin, CodeKind, is_relocatable_cubin};
use support::real_nvcc;

const SRC: &str = "extern \"C\" __global__ void axpy(float a, const float* x, float* y, int n) {\n\
                   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                   if (i < n) y[i] += a * x[i];\n}\n";

/// Runs nvcc with `args` on the source in `dir`; returns the output's bytes.
fn nvcc(nvcc: &Path, dir: &Path, out: &str, args: &[&str]) -> Vec<u8> {
    let status = Command::new(nvcc)
        .current_dir(dir)
        .args(args)
        .args(["-o", out, "k.cu"])
        .status()
        .unwrap();
    assert!(status.success(), "nvcc {args:?}");
    std::fs::read(dir.join(out)).unwrap()
}

#[test]
fn every_kind_nvcc_writes_is_detected() {
    let Some(nvcc_path) = real_nvcc() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.cu"), SRC).unwrap();
    let d = dir.path();
    let cubin = nvcc(&nvcc_path, d, "k.cubin", &["-cubin", "-arch=sm_90"]);
    let rdc = nvcc(
        &nvcc_path,
        d,
        "k.rdc.cubin",
        &["-cubin", "-rdc=true", "-arch=sm_90"],
    );
    let fat = nvcc(&nvcc_path, d, "k.fatbin", &["-fatbin", "-arch=sm_90"]);
    let ptx = nvcc(&nvcc_path, d, "k.ptx", &["-ptx", "-arch=sm_90"]);
    let lto = nvcc(
        &nvcc_path,
        d,
        "k.ltoir",
        &["-dlto", "-ltoir", "-arch=lto_90"],
    );
    let obj = nvcc(&nvcc_path, d, "k.o", &["-dc", "-arch=sm_90"]);
    let kinds = [
        (&cubin, CodeKind::Cubin),
        (&rdc, CodeKind::Cubin),
        (&fat, CodeKind::Fatbin),
        (&ptx, CodeKind::Ptx),
        (&lto, CodeKind::LtoIr),
        (&obj, CodeKind::Object),
    ];
    for (bytes, kind) in kinds {
        assert_eq!(CodeKind::detect(bytes), Some(kind));
    }
    assert!(is_relocatable_cubin(&rdc) && !is_relocatable_cubin(&cubin));
    assert!(CodeKind::Cubin.is_loadable() && !CodeKind::Object.is_loadable());

    // The kernel's parameter records, read from every kind that carries them.
    let want = [(0, 4), (8, 8), (16, 8), (24, 4)];
    let slots = |image: &fatbin::Image| -> Vec<(u32, u32)> {
        let k = image.kernels().iter().find(|k| k.symbol == "axpy").unwrap();
        let mut p = k.params.clone();
        p.sort_by_key(|s| s.ordinal);
        p.iter().map(|s| (s.offset, s.size)).collect()
    };
    let cubin_image = fatbin::Image::Cubin(fatbin::parse_cubin(&cubin).unwrap());
    assert_eq!(slots(&cubin_image), want);
    let ptx_image =
        fatbin::Image::Ptx(fatbin::parse_ptx(std::str::from_utf8(&ptx).unwrap()).unwrap());
    assert_eq!(slots(&ptx_image), want);
    for entry in fatbin::parse(&fat).unwrap().entries {
        assert_eq!(slots(&entry.image().unwrap()), want, "{}", entry.target());
    }
    // The host object holds its device code as an embedded fatbin.
    let found = fatbin::find_containers(&obj);
    assert_eq!(found.len(), 1, "{found:?}");

    // An archive of that object is a library.
    let lib = d.join("libk.a");
    let ar = Command::new("ar")
        .current_dir(d)
        .args(["rcs", "libk.a", "k.o"])
        .status();
    if ar.is_ok_and(|s| s.success()) {
        assert_eq!(
            CodeKind::detect(&std::fs::read(lib).unwrap()),
            Some(CodeKind::Library)
        );
    }
}
