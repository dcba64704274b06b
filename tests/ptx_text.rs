//! Modules whose cubins leave out the PTX text ptxas embeds with line tables (the default)
//! or keep it (`ptx_text = true`): the line tables stay either way, the kernels and their
//! parameter layouts read back the same, `METADATA.ptx_text()` says which, the image is
//! smaller without the text, and the stripped module loads and computes on the GPU as the
//! CPU does, as one file and as two files (each run's image reassembled by nvFatbin without
//! the text, the runs' containers then joined).
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, ObjectCode, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// The shapes module as built by default: line tables, no PTX text.
    mod stripped {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
    }
}

cuda_module! {
    /// The shapes module keeping the PTX text.
    mod kept {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
        ptx_text = true;
    }
}

cuda_module! {
    /// The shapes module without line tables: nothing to leave out.
    mod no_lines {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
        line_info = false;
    }
}

cuda_module! {
    /// Two files side by side, each run's image reassembled by nvFatbin without the text.
    mod several {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
    }
}

/// Each kernel's symbol and parameter layout, sorted.
type Layouts = Vec<(String, Vec<(u32, u32)>)>;

fn layouts(bytes: &[u8]) -> Result<Layouts, Error> {
    let mut k: Vec<_> = ObjectCode::from_bytes(bytes)?
        .kernels()?
        .into_iter()
        .map(|k| (k.symbol, k.params))
        .collect();
    k.sort();
    Ok(k)
}

#[test]
fn ptx_text_is_left_out_by_default_and_kept_on_request() -> Result<(), Error> {
    assert_eq!(stripped::METADATA.ptx_text(), Some((0, 2)));
    assert_eq!(kept::METADATA.ptx_text(), Some((2, 2)));
    assert_eq!(no_lines::METADATA.ptx_text(), Some((0, 0)));
    assert_eq!(several::METADATA.ptx_text(), Some((0, 4)));
    let (small, large) = (
        stripped::METADATA.image.expect("built with nvcc"),
        kept::METADATA.image.expect("built with nvcc"),
    );
    assert!(
        small.len() < large.len(),
        "without the text {} bytes, with it {} bytes",
        small.len(),
        large.len()
    );
    let a = layouts(small)?;
    assert!(!a.is_empty());
    assert_eq!(a, layouts(large)?);
    Ok(())
}

#[test]
fn stripped_modules_launch_and_match_the_cpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let n = 4099usize;
    let mut r = Rng::with_seed(51);
    let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let a = r.nonzero_f32();
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
    let cfg = Launch::for_num_elems(n as u32);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let k = stripped::load(&gpu)?;
    // SAFETY: `axpy` touches x[i] and y[i] for i < n only; both hold n elements.
    unsafe { k.axpy::<f32>(&cfg, a, &x, &mut y, n as i32)? };
    assert_close(&gpu.download(&y)?, &want, 1e-6);

    let t = several::Affine { a: 1.5, b: -0.25 };
    let want: Vec<f32> = xs.iter().map(|x| t.a * x + t.b).collect();
    let mut x = gpu.upload(&xs)?;
    let m = several::load(&gpu)?;
    // SAFETY: `affine` touches x[i] for i < n only; x holds n elements.
    unsafe { m.affine(&cfg, &mut x, t, n as i32)? };
    assert_close(&gpu.download(&x)?, &want, 1e-6);
    Ok(())
}
