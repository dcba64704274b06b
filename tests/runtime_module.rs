//! Typed modules compiled at run time (`compile = "runtime"`): the declarations are read at
//! build time without nvcc, the source is compiled by NVRTC for the GPU at `load`, and the
//! compiled parameter layouts are checked against the stubs. Without a GPU: the module
//! compiles for sm_90 and a define that changes a parameter's struct is caught by that check.
//! On the GPU: the default variant and two tile sizes against a CPU reference, and the
//! fallback of a module whose fatbin has no image for the GPU.
//!
//! GPU tests skip (with the reason) without a GPU; fail when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Gpu, Launch, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// A shared-memory transpose whose tile is a define, and a kernel whose by-value struct
    /// depends on another.
    mod tiled {
        compile = "runtime";
        define = ["LANES=4"];
        source = r#"
            #ifndef TILE
            #define TILE 16
            #endif
            #ifndef LANES
            #define LANES 4
            #endif
            struct Lanes { float v[LANES]; };

            extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
                __shared__ float tile[TILE][TILE + 1];
                int x = blockIdx.x * TILE + threadIdx.x;
                int y = blockIdx.y * TILE + threadIdx.y;
                if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
                __syncthreads();
                x = blockIdx.y * TILE + threadIdx.x;
                y = blockIdx.x * TILE + threadIdx.y;
                if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
            }

            extern "C" __global__ void tile_size(int* out) { *out = TILE; }

            // C++ linkage: found through the symbol the build predicts.
            namespace ops {
            template <typename T>
            __global__ void fill(T* x, T v, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = v;
            }
            template __global__ void fill<float>(float*, float, int);
            }

            extern "C" __global__ void dot_lanes(Lanes w, const float* x, float* out, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i >= n) return;
                float s = 0.0f;
                for (int l = 0; l < LANES; ++l) s += w.v[l] * x[i * LANES + l];
                out[i] = s;
            }
        "#;
    }
}

cuda_module! {
    /// From a file whose kernel takes a struct declared in the user's header.
    mod from_file {
        compile = "runtime";
        file = "cuda/runtime/blend.cu";
    }
}

cuda_module! {
    /// SASS for sm_80 only, no PTX: no image for a Hopper GPU, so `load` compiles the
    /// carried source there.
    mod fallback_only_ampere {
        arch = ["sm_80"];
        fallback = "runtime";
        source = r#"
            extern "C" __global__ void scale(float* x, float a, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= a;
            }
        "#;
    }
}

#[test]
fn the_module_compiles_without_a_gpu_and_checks_layouts() -> Result<(), Error> {
    let code = tiled::compile("sm_90", &tiled::Options::default())?;
    assert_eq!(code.kind(), cuda_kernel_runtime::CodeKind::Cubin);
    assert_eq!(code.kernels()?.len(), 4);
    tiled::compile(
        "sm_90",
        &tiled::Options {
            defines: &[("TILE", "32")],
            ..Default::default()
        },
    )?;
    let err = tiled::compile(
        "sm_90",
        &tiled::Options {
            defines: &[("LANES", "8")],
            ..Default::default()
        },
    )
    .unwrap_err();
    match &err {
        Error::LayoutMismatch {
            module,
            kernel,
            variant,
            declared,
            compiled,
        } => {
            assert_eq!((module.as_str(), kernel.as_str()), ("tiled", "dot_lanes"));
            assert_eq!(variant, "sm_90, LANES=8");
            assert_eq!(declared[0], (0, 16));
            assert_eq!(compiled[0], (0, 32));
        }
        other => panic!("expected a layout mismatch, got {other:?}"),
    }
    Ok(())
}

#[test]
fn a_header_of_the_user_is_carried_and_read() -> Result<(), Error> {
    let source = from_file::METADATA.source.expect("carried");
    assert_eq!(source.name, "blend.cu");
    assert_eq!(source.headers.len(), 1);
    assert_eq!(source.headers[0].0, "weights.cuh");
    assert_eq!(std::mem::size_of::<from_file::Weights>(), 20);
    from_file::compile("sm_90", &Default::default())?;
    let err = from_file::compile(
        "sm_90",
        &from_file::Options {
            defines: &[("WIDTH", "8")],
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&err, Error::LayoutMismatch { declared, compiled, .. }
            if declared[0] == (0, 20) && compiled[0] == (0, 36)),
        "{err:?}"
    );
    Ok(())
}

#[test]
fn the_fallback_module_carries_its_source() -> Result<(), Error> {
    assert!(
        fallback_only_ampere::METADATA
            .source
            .is_some_and(|s| s.fallback)
    );
    assert_eq!(fallback_only_ampere::METADATA.archs, ["sm_80"]);
    let code = fallback_only_ampere::compile("sm_90", &Default::default())?;
    assert_eq!(code.kernels()?[0].params, [(0, 8), (8, 4), (12, 4)]);
    Ok(())
}

/// Transposes `rows × cols` on the GPU with `m` and checks it.
fn check_transpose(
    g: &Gpu,
    m: &tiled::Module,
    tile: u32,
    rows: usize,
    cols: usize,
) -> Result<(), Error> {
    let mut r = Rng::with_seed(rows as u64 * 31 + tile as u64);
    let input = r.nonzero_f32s(rows * cols);
    let x = g.upload(&input)?;
    let mut y = g.zeros::<f32>(rows * cols)?;
    let mut size = g.zeros::<i32>(1)?;
    let grid = (
        (cols as u32).div_ceil(tile),
        (rows as u32).div_ceil(tile),
        1,
    );
    let cfg = Launch::new(grid, (tile, tile, 1));
    let one = Launch::for_num_elems(1);
    // SAFETY: transpose reads rows*cols from x and writes rows*cols to y, with blocks of
    // TILE×TILE threads; tile_size writes one int.
    unsafe {
        m.transpose(&cfg, &x, &mut y, rows as i32, cols as i32)?;
        m.tile_size(&one, &mut size)?;
    }
    assert_eq!(g.download(&size)?, [tile as i32]);
    let got = g.download(&y)?;
    let mut want = vec![0.0f32; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            want[j * rows + i] = input[i * cols + j];
        }
    }
    assert_close(&got, &want, 0.0);
    Ok(())
}

#[test]
fn variants_compiled_at_run_time_launch_through_the_same_stubs() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let default = tiled::load(&gpu)?;
    check_transpose(&gpu, &default, 16, 300, 517)?;
    // A C++ template kernel, its symbol named by NVRTC.
    let n = 1000usize;
    let v = Rng::with_seed(2).nonzero_f32();
    let mut x = gpu.zeros::<f32>(n)?;
    // SAFETY: ops::fill<float>(float* x, float v, int n) writes x[i] for i < n; x holds n.
    unsafe { default.ops_fill::<f32>(&Launch::for_num_elems(n as u32), &mut x, v, n as i32)? };
    assert_eq!(gpu.download(&x)?, vec![v; n]);
    for tile in [8u32, 32] {
        let value = tile.to_string();
        let m = tiled::load_with(
            &gpu,
            &tiled::Options {
                defines: &[("TILE", &value)],
                ..Default::default()
            },
        )?;
        check_transpose(&gpu, &m, tile, 257, 129)?;
    }
    let err = tiled::load_with(
        &gpu,
        &tiled::Options {
            defines: &[("LANES", "2")],
            ..Default::default()
        },
    )
    .err()
    .expect("a layout mismatch");
    assert!(matches!(err, Error::LayoutMismatch { .. }), "{err:?}");
    Ok(())
}

#[test]
fn a_struct_from_a_header_passes_by_value() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let m = from_file::load(&gpu)?;
    let n = 3001usize;
    let mut r = Rng::with_seed(8);
    let xs = r.nonzero_f32s(n * 4);
    let p = from_file::Weights {
        w: [
            r.nonzero_f32(),
            r.nonzero_f32(),
            r.nonzero_f32(),
            r.nonzero_f32(),
        ],
        bias: r.nonzero_f32(),
    };
    let x = gpu.upload(&xs)?;
    let mut out = gpu.zeros::<f32>(n)?;
    // SAFETY: blend reads x[i*4..i*4+4] and writes out[i] for i < n; the buffers hold that.
    unsafe { m.blend(&Launch::for_num_elems(n as u32), p, &x, &mut out, n as i32)? };
    let want: Vec<f32> = (0..n)
        .map(|i| (0..4).fold(p.bias, |s, l| s + p.w[l] * xs[i * 4 + l]))
        .collect();
    assert_close(&gpu.download(&out)?, &want, 1e-5);
    Ok(())
}

#[test]
fn a_gpu_without_an_image_gets_the_fallback() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    if gpu.compute_capability().0 == 8 {
        println!("skipped: an sm_8x GPU runs the sm_80 image; the fallback is not needed");
        return Ok(());
    }
    let m = fallback_only_ampere::load(&gpu)?;
    let n = 4099usize;
    let mut r = Rng::with_seed(5);
    let (xs, a) = (r.nonzero_f32s(n), r.nonzero_f32());
    let mut x = gpu.upload(&xs)?;
    // SAFETY: scale(float* x, float a, int n) touches x[i] for i < n; x holds n.
    unsafe { m.scale(&Launch::for_num_elems(n as u32), &mut x, a, n as i32)? };
    let want: Vec<f32> = xs.iter().map(|v| v * a).collect();
    assert_close(&gpu.download(&x)?, &want, 0.0);
    Ok(())
}
