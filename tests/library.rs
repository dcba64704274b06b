//! `RawLibrary`: code loaded once for the process and used from every GPU's context (each GPU
//! the machine has: two on a two-GPU machine), against a CPU reference on random data; a
//! `__device__` global per context; the name expressions of an `ObjectCode`; the code one
//! context's `Module` resolves stays valid after another's is dropped.
//!
//! Skips (with the reason) without a GPU; fails when `KERNEL_REQUIRE_GPU=1`.

use cuda_kernel_runtime::{Error, Gpu, Launch, ObjectCode, RawLibrary, cuda_module};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip};

cuda_module! {
    /// One kernel and one global, for loading through a `RawLibrary`.
    mod counted {
        source = r#"
            __device__ int calls;
            extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] += a * x[i];
                if (i == 0) atomicAdd(&calls, 1);
            }
        "#;
    }
}

const PTX: &str = include_str!("cuda/objects/scale_float.ptx");

/// Every GPU of the machine.
fn gpus(first: Gpu) -> Result<Vec<Gpu>, Error> {
    let mut all = vec![first];
    for ordinal in 1..Gpu::count()? {
        all.push(Gpu::new(ordinal)?);
    }
    Ok(all)
}

#[test]
fn one_library_serves_every_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let image = counted::METADATA.image.expect("built with device code");
    let lib = RawLibrary::load_bytes(image)?;
    let all = gpus(gpu)?;
    println!("{} GPU(s)", all.len());
    let modules: Vec<_> = all
        .iter()
        .map(|g| lib.module(g))
        .collect::<Result<_, _>>()?;
    for (i, (gpu, module)) in all.iter().zip(&modules).enumerate() {
        assert!(module.load_eager()? >= 1);
        let calls = module.global::<i32>("calls")?;
        calls.write(&(100 * i as i32))?;
        let n = 3000usize;
        let mut r = Rng::with_seed(50 + i as u64);
        let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
        let a = r.nonzero_f32();
        let x = gpu.upload(&xs)?;
        let mut y = gpu.upload(&ys)?;
        let axpy = module.kernel("axpy")?;
        // SAFETY: axpy(float a, const float* x, float* y, int n) touches x[i], y[i] for i < n.
        unsafe { axpy.launch(&Launch::for_num_elems(n as u32), (a, &x, &mut y, n as i32))? };
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a.mul_add(*x, *y)).collect();
        assert_close(&gpu.download(&y)?, &want, 1e-6);
        // Each context has its own copy of the global.
        assert_eq!(calls.read()?, 100 * i as i32 + 1);
    }
    // Dropping one context's module leaves the library and the others usable.
    let mut modules = modules;
    let last = modules.pop().expect("one module per GPU");
    drop(modules);
    assert!(last.kernel("axpy").is_ok());
    assert_eq!(lib.module(&all[0])?.global::<i32>("calls")?.read()?, 1);
    Ok(())
}

#[test]
fn object_code_loads_as_a_library_with_its_name_expressions() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let lib = ObjectCode::from_bytes(PTX)?
        .with_name("scale_float.ptx")
        .with_symbol("scale<float>", "_Z5scaleIfEvPT_S0_i")
        .load_library()?;
    assert_eq!(lib.name(), "scale_float.ptx");
    for gpu in gpus(gpu)? {
        let scale = lib.module(&gpu)?.kernel("scale<float>")?;
        let n = 1000usize;
        let xs = Rng::with_seed(60).nonzero_f32s(n);
        let mut x = gpu.upload(&xs)?;
        // SAFETY: scale<float>(float* x, float s, int n) touches x[i] for i < n.
        unsafe { scale.launch(&Launch::for_num_elems(n as u32), (&mut x, 3.0f32, n as i32))? };
        let want: Vec<f32> = xs.iter().map(|v| v * 3.0).collect();
        assert_close(&gpu.download(&x)?, &want, 0.0);
    }
    Ok(())
}

#[test]
fn a_generated_module_loads_once_for_every_gpu() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let lib = counted::library()?;
    for (i, gpu) in gpus(gpu)?.into_iter().enumerate() {
        let k = lib.module(&gpu)?;
        let n = 2000usize;
        let mut r = Rng::with_seed(70 + i as u64);
        let (xs, ys) = (r.nonzero_f32s(n), r.nonzero_f32s(n));
        let a = r.nonzero_f32();
        let x = gpu.upload(&xs)?;
        let mut y = gpu.upload(&ys)?;
        // The typed global accessor reaches this context's copy.
        k.calls()?.write(&(10 * i as i32))?;
        // SAFETY: axpy touches x[i] and y[i] for i < n; both hold n floats.
        unsafe { k.axpy(&Launch::for_num_elems(n as u32), a, &x, &mut y, n as i32)? };
        assert_eq!(k.calls()?.read()?, 10 * i as i32 + 1);
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| a.mul_add(*x, *y)).collect();
        assert_close(&gpu.download(&y)?, &want, 1e-6);
        assert!(k.has_kernel("axpy"));
    }
    Ok(())
}

#[test]
fn a_kernel_the_library_lacks_is_named() -> Result<(), Error> {
    let Some(gpu) = gpu_or_skip() else {
        return Ok(());
    };
    let lib = RawLibrary::load_bytes(counted::METADATA.image.expect("device code"))?;
    let module = lib.module(&gpu)?;
    assert!(!module.has_kernel("no_such_kernel"));
    match module.kernel("no_such_kernel") {
        Err(Error::KernelNotFound { kernel, .. }) => assert_eq!(kernel, "no_such_kernel"),
        Err(e) => panic!("expected KernelNotFound, got {e}"),
        Ok(_) => panic!("found a kernel the library lacks"),
    }
    Ok(())
}
