//! One CUDA template, three instantiations, one generic Rust function: `k.axpby::<T>(...)`
//! launches `axpby<float>`, `axpby<double>` or `axpby<int>` by the Rust type alone.

use std::process::ExitCode;

use cuda_kernel_runtime::{DeviceRepr, Error, Gpu, Launch, ValidAsZeroBits, cuda_module};
use kernel_examples::{Comparison, NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// Generic vector kernels.
    mod generic {
        source = r#"
            // y = a*x + b*y for the first n elements.
            template <typename T>
            __global__ void axpby(T a, const T* x, T b, T* y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + b * y[i];
            }
            template __global__ void axpby<float>(float, const float*, float, float*, int);
            template __global__ void axpby<double>(double, const double*, double, double*, int);
            template __global__ void axpby<int>(int, const int*, int, int*, int);
        "#;
        // Checked against every instantiation.
        fn axpby<T>(a: T, x: &[T], b: T, y: &mut [T], n: i32);
    }
}

/// The instantiation trait the generated module defines for `axpby`
/// (`generic::templates::Axpby`), with every parameter that varies between instantiations
/// (`a`, `x`, `b`, `y`, named after the CUDA parameters) tied to `Self`.
trait Axpby: generic::templates::Axpby<A = Self, X = Self, B = Self, Y = Self> {}
impl<T: generic::templates::Axpby<A = T, X = T, B = T, Y = T>> Axpby for T {}

/// What the example needs of an element type besides its instantiation.
trait Element: Axpby + DeviceRepr + ValidAsZeroBits + Copy + Into<f64> {
    /// The CUDA spelling, for the report.
    const C_NAME: &'static str;
    /// How close the device result must be to the double-precision reference.
    const TOLERANCE: Tolerance;
    /// A random non-zero value.
    fn sample(rng: &mut Rng) -> Self;
    /// Back from the reference's double (exact for the values used here).
    fn from_f64(v: f64) -> Self;
}

impl Element for f32 {
    const C_NAME: &'static str = "float";
    const TOLERANCE: Tolerance = Tolerance::new(4e-6, 1e-6);
    fn sample(rng: &mut Rng) -> f32 {
        rng.nonzero_f32()
    }
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl Element for f64 {
    const C_NAME: &'static str = "double";
    const TOLERANCE: Tolerance = Tolerance::new(1e-14, 1e-14);
    fn sample(rng: &mut Rng) -> f64 {
        rng.nonzero_f64()
    }
    fn from_f64(v: f64) -> f64 {
        v
    }
}

impl Element for i32 {
    const C_NAME: &'static str = "int";
    const TOLERANCE: Tolerance = Tolerance::EXACT;
    fn sample(rng: &mut Rng) -> i32 {
        // Non-zero, small enough that a*x + b*y cannot overflow.
        let v = rng.i32(1..1000);
        if rng.bool() { v } else { -v }
    }
    fn from_f64(v: f64) -> i32 {
        v as i32
    }
}

const N: usize = 100_003;

fn main() -> ExitCode {
    kernel_examples::run("generics", &[embedded!(generic)], generics)
}

fn generics(gpu: &Gpu) -> Result<Report, Error> {
    let k = generic::load(gpu)?;
    let mut rng = Rng::with_seed(5);
    let mut report = Report::new("generics", gpu);
    report.fact("elements", N);
    for (name, result) in [
        check::<f32>(gpu, &k, &mut rng)?,
        check::<f64>(gpu, &k, &mut rng)?,
        check::<i32>(gpu, &k, &mut rng)?,
    ] {
        report.check(&name, result);
    }
    Ok(report)
}

/// Runs `axpby<T>` on random data and compares with the CPU.
fn check<T: Element>(
    gpu: &Gpu,
    k: &generic::Module,
    rng: &mut Rng,
) -> Result<(String, Comparison), Error> {
    let (a, b) = (T::sample(rng), T::sample(rng));
    let xs: Vec<T> = (0..N).map(|_| T::sample(rng)).collect();
    let ys: Vec<T> = (0..N).map(|_| T::sample(rng)).collect();
    let x = gpu.upload(&xs)?;
    let mut y = gpu.upload(&ys)?;
    // SAFETY: axpby touches x[i] and y[i] for i < n only; both buffers hold n elements.
    unsafe { k.axpby::<T>(&Launch::for_num_elems(N as u32), a, &x, b, &mut y, N as i32)? };
    let got = gpu.download(&y)?;
    let (af, bf) = (a.into(), b.into());
    let want: Vec<T> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| T::from_f64(af * x.into() + bf * y.into()))
        .collect();
    Ok((
        format!("axpby<{}>", T::C_NAME),
        compare(&got, &want, T::TOLERANCE),
    ))
}
