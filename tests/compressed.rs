//! Modules whose fatbin entries are compressed (the default, nvcc's `--compress-mode=size`,
//! and `-Xfatbin=-compress-all` among the flags): each image is smaller than the same
//! module's built with `compress = false`, is read back kernel for kernel (the build
//! verified it through the same reader), says how its entries are stored
//! (`METADATA.compressed_entries()`), and launches on the GPU, the driver decompressing it.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Launch, ObjectCode, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// The shapes module, entries stored as nvcc stores them by default.
    mod plain {
        file = "cuda/shapes.cu";
        arch = ["sm_80", "sm_90"];
        compress = false;
    }
}

cuda_module! {
    /// The shapes module as built by default: every entry compressed.
    mod by_default {
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

cuda_module! {
    /// Two files side by side (each file's per-architecture images joined into one container).
    mod several {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
    }
}

cuda_module! {
    /// Four files device-linked (the linked images joined by nvFatbin).
    mod linked {
        files = ["cuda/multi/scale.cu", "cuda/multi/offset.cu", "cuda/multi/poly.cu", "cuda/multi/polydef.cu"];
        arch = ["sm_80", "sm_90", "compute_90"];
        rdc = true;
    }
}

/// Each kernel's symbol and parameter layout, sorted.
type Layouts = Vec<(String, Vec<(u32, u32)>)>;

fn image(spec: &cuda_kernel_runtime::spec::ModuleSpec) -> &'static [u8] {
    spec.image.expect("built with nvcc")
}

#[test]
fn entries_are_compressed_by_default_and_metadata_says_so() -> Result<(), Error> {
    // SASS for two targets: stored as is without compression.
    assert_eq!(plain::METADATA.compressed_entries(), Some((0, 2)));
    assert_eq!(by_default::METADATA.compressed_entries(), Some((2, 2)));
    assert_eq!(packed::METADATA.compressed_entries(), Some((2, 2)));
    let (plain, small) = (image(&plain::METADATA), image(&by_default::METADATA));
    assert!(
        small.len() * 2 < plain.len(),
        "by default {} bytes, uncompressed {} bytes",
        small.len(),
        plain.len()
    );
    let kernels = |bytes: &[u8]| -> Result<Layouts, Error> {
        let mut k: Vec<_> = ObjectCode::from_bytes(bytes)?
            .kernels()?
            .into_iter()
            .map(|k| (k.symbol, k.params))
            .collect();
        k.sort();
        Ok(k)
    };
    assert_eq!(kernels(small)?, kernels(plain)?);
    // Where a file's images are joined, and where nvFatbin joins linked ones, the module's
    // choice reaches every entry too.
    assert_eq!(several::METADATA.compressed_entries(), Some((6, 6)));
    assert_eq!(linked::METADATA.compressed_entries(), Some((3, 3)));
    Ok(())
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
    let n = 5003usize;
    let mut r = Rng::with_seed(41);
    let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
    let a = r.nonzero_f32();
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
    let cfg = Launch::for_num_elems(n as u32);
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    let k = by_default::load(&gpu)?;
    // SAFETY: `axpy` touches x[i] and y[i] for i < n only; both hold n elements.
    unsafe { k.axpy::<f32>(&cfg, a, &x, &mut y, n as i32)? };
    assert_close(&gpu.download(&y)?, &want, 1e-6);
    let mut y = gpu.upload(&ys)?;
    let k = packed::load(&gpu)?;
    // SAFETY: as above.
    unsafe { k.axpy::<f32>(&cfg, a, &x, &mut y, n as i32)? };
    assert_close(&gpu.download(&y)?, &want, 1e-6);
    Ok(())
}
