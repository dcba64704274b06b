//! [`run`]: open the GPU, run an example's body, and end with the right exit status, or explain
//! what the binary embeds and what is missing when no GPU can be opened.

use std::fmt::Display;
use std::process::ExitCode;

use cuda_kernel_runtime::Gpu;

use crate::embedded::Embedded;
use crate::report::Report;

/// Exit status when no GPU could be opened (no driver, or no device).
///
/// ```
/// assert_eq!(kernel_examples::NO_GPU, 2);
/// ```
pub const NO_GPU: u8 = 2;

/// Opens device 0 and runs `body` on it, printing the [`Report`] it returns.
///
/// Returns success when every check of the report passed; failure (1) when one did not or
/// `body` returned an error (printed); [`NO_GPU`] (2) when `Gpu::new(0)` fails, after printing
/// what the binary embeds (`modules`) and one sentence naming what is missing.
///
/// ```no_run
/// let status = kernel_examples::run("nothing", &[], |gpu| {
///     let mut r = kernel_examples::Report::new("nothing", gpu);
///     r.check("empty", kernel_examples::compare::<f32>(&[], &[], kernel_examples::Tolerance::EXACT));
///     Ok::<_, cuda_kernel_runtime::Error>(r)
/// });
/// ```
pub fn run<E: Display>(
    title: &str,
    modules: &[Embedded],
    body: impl FnOnce(&Gpu) -> Result<Report, E>,
) -> ExitCode {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => return explain_no_gpu(title, modules, &e),
    };
    match body(&gpu) {
        Ok(report) => report.finish(),
        Err(e) => {
            println!("== {title} ==");
            println!("error: {e}");
            println!("FAIL");
            ExitCode::FAILURE
        }
    }
}

/// Prints what the binary embeds and the reason it cannot run; returns [`NO_GPU`].
pub(crate) fn explain_no_gpu(title: &str, modules: &[Embedded], why: &dyn Display) -> ExitCode {
    println!("== {title} ==");
    println!("this binary embeds:");
    for m in modules {
        println!("  {m}");
    }
    println!("{}", no_gpu_sentence(why));
    ExitCode::from(NO_GPU)
}

/// The one sentence naming what is missing.
fn no_gpu_sentence(why: &dyn Display) -> String {
    let why = why.to_string();
    format!("not run, no GPU is usable: {}.", why.trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::no_gpu_sentence;

    #[test]
    fn the_reason_is_one_sentence() {
        let s = no_gpu_sentence(&"no usable CUDA driver: libcuda.so was not found.");
        assert_eq!(
            s,
            "not run, no GPU is usable: no usable CUDA driver: libcuda.so was not found."
        );
        assert!(no_gpu_sentence(&"no device").ends_with("no device."));
    }
}
