//! A module whose fatbin entries are compressed (`-Xfatbin=-compress-all`, what large
//! libraries want: a fifth of the bytes to embed and link): the image is smaller than the
//! same module's uncompressed one, is read back kernel for kernel (the build verified it
//! through the same reader), and launches on the GPU, the driver decompressing it.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, ObjectCode, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// The shapes module, entries stored as they are.
    mod plain {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
    }
}

cuda_module! {
    /// The shapes module, every entry compressed.
    mod packed {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
        flags = ["-Xfatbin=-compress-all"];
    }
}

/// Each kernel's symbol and parameter layout, sorted.
type Layouts = Vec<(String, Vec<(u32, u32)>)>;

fn image(spec: &cuda_kernel_runtime::spec::ModuleSpec) -> &'static [u8] {
    spec.image.expect("built with nvcc")
}

#[test]
fn compressed_image_is_smaller_and_holds_the_same_kernels() -> Result<(), Error> {
    let (plain, packed) = (image(&plain::METADATA), image(&packed::METADATA));
    assert!(
        packed.len() < plain.len(),
        "compressed {} bytes, plain {} bytes",
        packed.len(),
        plain.len()
    );
    let names = |bytes: &[u8]| -> Result<Layouts, Error> {
        let mut k: Vec<_> = ObjectCode::from_bytes(bytes)?
            .kernels()?
            .into_iter()
            .map(|k| (k.symbol, k.params))
            .collect();
        k.sort();
        Ok(k)
    };
    let (a, b) = (names(plain)?, names(packed)?);
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_eq!(
        ObjectCode::from_bytes(packed)?.targets()?,
        ObjectCode::from_bytes(plain)?.targets()?
    );
    Ok(())
}

#[test]
fn compressed_module_launches() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let k = packed::load(&gpu)?;
    let n = 5003usize;
    let mut r = Rng::with_seed(41);
    let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let a = r.nonzero_f32();
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    // SAFETY: `axpy` touches x[i] and y[i] for i < n only; both hold n elements.
    unsafe { k.axpy::<f32>(&Launch::for_num_elems(n as u32), a, &x, &mut y, n as i32)? };
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
    assert_close(&gpu.download(&y)?, &want, 1e-6);
    Ok(())
}
