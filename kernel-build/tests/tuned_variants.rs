//! Kernels tuned over declared variants, with the real nvcc: every variant instantiated and
//! typed like any instantiation; a variant the compiler refuses for one architecture (a
//! `static_assert` on `__CUDA_ARCH__`) left out of that target's image with a warning, one it
//! refuses everywhere (too much shared memory) left out of the module with a warning, the
//! build still succeeding; the same model read without nvcc; and the warm build from the
//! cache keeping what was left out.

mod support;

use cuda_kernel_build::__private::{
    Context, ModuleRequest, SourceInput, TuneRequest, build_module,
};
use cuda_kernel_build::BuiltModule;
use std::path::Path;
use support::real_nvcc;

const SOURCE: &str = r#"
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) block_sum(const float* x, float* total, int n) {
    __shared__ float s[BLOCK * ITEMS];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    static_assert(ITEMS <= 4, "more than 4 items a thread needs sm_90");
#endif
    float v = 0.0f;
    for (int k = 0; k < ITEMS; ++k) {
        int i = (blockIdx.x * ITEMS + k) * BLOCK + threadIdx.x;
        if (i < n) v += x[i];
    }
    s[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int j = 0; j < BLOCK; ++j) t += s[j];
        atomicAdd(total, t);
    }
}

extern "C" __global__ void scale(float* y, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= a;
}
"#;

fn request(dir: &Path) -> ModuleRequest {
    let mut req = ModuleRequest::new(
        "sums",
        SourceInput::Inline {
            text: SOURCE.into(),
        },
    );
    req.base_dir = dir.to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into()]);
    req.tune(TuneRequest {
        kernel: "block_sum".into(),
        axes: vec![
            ("BLOCK".into(), vec!["128".into(), "1024".into()]),
            ("ITEMS".into(), vec!["4".into(), "8".into(), "16".into()]),
        ],
        grid: Some("n.div_ceil(BLOCK * ITEMS)".into()),
        block: Some("BLOCK".into()),
        ..TuneRequest::default()
    })
    .unwrap();
    req.tune(TuneRequest {
        kernel: "scale".into(),
        axes: vec![("THREADS".into(), vec!["128".into(), "256".into()])],
        grid: Some("n.div_ceil(THREADS)".into()),
        block: Some("THREADS".into()),
        ..TuneRequest::default()
    })
    .unwrap();
    req
}

fn build(req: &ModuleRequest, cx: Context) -> BuiltModule {
    build_module(req, &cx).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn variants_refused_for_a_target_are_left_out_of_it_and_the_build_succeeds() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cx = || Context {
        nvcc: Some(nvcc.clone()),
        cache_dir: Some(cache.clone()),
        ..Context::default()
    };
    let built = build(&request(dir.path()), cx());
    let sum = &built.tuned[0];
    assert_eq!(sum.name, "sums::block_sum");
    assert_eq!(sum.variants.len(), 6);
    let by_name = |n: &str| sum.variants.iter().find(|v| v.name == n).unwrap();
    // Compiles everywhere.
    let ok = by_name("block128_items4");
    assert!(ok.left_out.is_empty());
    let kernel = built
        .info
        .kernels
        .iter()
        .find(|k| Some(&k.name) == ok.kernel.as_ref())
        .expect("typed like any instantiation");
    assert_eq!(kernel.images.len(), 2, "{:?}", kernel.images);
    // 128 x 8 floats fit, but the static_assert refuses 8 items before sm_90.
    let one_arch = by_name("block128_items8");
    assert_eq!(one_arch.left_out.len(), 1, "{:?}", one_arch.left_out);
    assert_eq!(one_arch.left_out[0].0, "compute_80");
    assert!(
        one_arch.left_out[0].1.contains("needs sm_90"),
        "{:?}",
        one_arch.left_out
    );
    let k = built
        .info
        .kernels
        .iter()
        .find(|k| Some(&k.name) == one_arch.kernel.as_ref())
        .expect("kept for sm_90");
    let targets: Vec<&str> = k.images.iter().map(|i| i.target.as_str()).collect();
    assert_eq!(targets, ["sm_90"]);
    // 1024 x 16 floats are 64 KiB of static shared memory: refused for every target.
    let nowhere = by_name("block1024_items16");
    assert!(nowhere.kernel.is_none(), "{nowhere:?}");
    assert_eq!(nowhere.left_out.len(), 2, "{:?}", nowhere.left_out);
    assert!(
        nowhere
            .left_out
            .iter()
            .any(|(_, why)| why.contains("shared")),
        "{:?}",
        nowhere.left_out
    );
    let warned: Vec<&String> = built
        .warnings
        .iter()
        .filter(|w| w.contains("tuned kernel `sums::block_sum`"))
        .collect();
    assert_eq!(warned.len(), 4, "{:#?}", built.warnings);
    assert!(
        !built
            .warnings
            .iter()
            .any(|w| w.contains("block_sum<128, 8>") && !w.contains("tuned")),
        "no second warning of the kernel on some targets: {:#?}",
        built.warnings
    );
    // The plain kernel's launch shapes share its one kernel.
    let scale = &built.tuned[1];
    assert_eq!(scale.method, "scale");
    assert!(
        scale
            .variants
            .iter()
            .all(|v| v.kernel.as_deref() == Some("scale"))
    );

    // Warm: nothing compiled again, the same outcome.
    let warm = build(&request(dir.path()), cx());
    assert_eq!(warm.tuned, built.tuned);
    assert_eq!(warm.info.left_out, built.info.left_out);
}

#[test]
fn the_same_variants_are_typed_without_nvcc() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let with = build(
        &request(dir.path()),
        Context {
            nvcc: Some(nvcc),
            cache_dir: Some(dir.path().join("cache")),
            ..Context::default()
        },
    );
    let without = build(
        &request(dir.path()),
        Context {
            no_device_code: true,
            use_cache: false,
            ..Context::default()
        },
    );
    let names = |m: &BuiltModule| -> Vec<(String, Option<String>)> {
        m.tuned[0]
            .variants
            .iter()
            .map(|v| (v.name.clone(), v.kernel.clone()))
            .collect()
    };
    let raw = names(&without);
    // Without nvcc nothing is left out; every variant nvcc kept has the same kernel.
    assert!(raw.iter().all(|(_, k)| k.is_some()), "{raw:?}");
    for (name, kernel) in names(&with) {
        if kernel.is_some() {
            assert!(raw.contains(&(name, kernel)));
        }
    }
    let params = |m: &BuiltModule, name: &str| {
        m.info.kernels.iter().find(|k| k.name == name).map(|k| {
            // Locations aside: nvcc's views place them after its own expansions.
            k.params
                .iter()
                .map(|p| (p.name.clone(), p.ty.clone(), p.layout))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(
        params(&with, "block_sum<128, 4>"),
        params(&without, "block_sum<128, 4>")
    );
}

#[test]
fn a_kernel_the_source_does_not_declare_is_an_error_naming_the_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let mut req = ModuleRequest::new(
        "sums",
        SourceInput::Inline {
            text: SOURCE.into(),
        },
    );
    req.base_dir = dir.path().to_path_buf();
    req.tune(TuneRequest {
        kernel: "blocksum".into(),
        axes: vec![("BLOCK".into(), vec!["128".into()])],
        grid: Some("n / BLOCK".into()),
        block: Some("BLOCK".into()),
        ..TuneRequest::default()
    })
    .unwrap();
    let err = build_module(
        &req,
        &Context {
            no_device_code: true,
            use_cache: false,
            ..Context::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("tuned kernel `blocksum` is not a kernel of module `sums`")
            && err.contains("`block_sum`, `scale`"),
        "{err}"
    );
}

#[test]
fn a_tuned_template_of_one_file_of_several_is_instantiated_in_that_file() {
    let Some(nvcc) = real_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plain.cu"),
        "extern \"C\" __global__ void fill(float* x, float v, int n) {\n\
             int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             if (i < n) x[i] = v;\n\
         }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("sum.cu"), SOURCE).unwrap();
    let mut req = ModuleRequest::new(
        "two",
        SourceInput::Files {
            paths: vec!["plain.cu".into(), "sum.cu".into()],
        },
    );
    req.base_dir = dir.path().to_path_buf();
    req.archs = Some(vec!["sm_80".into(), "sm_90".into()]);
    req.tune(TuneRequest {
        kernel: "block_sum".into(),
        axes: vec![
            ("BLOCK".into(), vec!["128".into()]),
            ("ITEMS".into(), vec!["4".into(), "8".into()]),
        ],
        grid: Some("n.div_ceil(BLOCK * ITEMS)".into()),
        block: Some("BLOCK".into()),
        ..TuneRequest::default()
    })
    .unwrap();
    let built = build(
        &req,
        Context {
            nvcc: Some(nvcc),
            cache_dir: Some(dir.path().join("cache")),
            ..Context::default()
        },
    );
    let sum = &built.tuned[0];
    let left: Vec<(&str, usize)> = sum
        .variants
        .iter()
        .map(|v| (v.name.as_str(), v.left_out.len()))
        .collect();
    assert_eq!(left, [("block128_items4", 0), ("block128_items8", 1)]);
    let unit = built
        .units
        .iter()
        .find(|u| u.file == "sum.cu")
        .expect("the file of the template");
    assert_eq!(unit.kernels.len(), 3, "{:?}", unit.kernels);
}
