//! [`gpu_or_skip`]: device 0, or a printed reason to skip, or a failure when a GPU is required.

use std::fmt::Display;
use std::io::Write as _;

use cuda_kernel_runtime_core::{Error, Gpu};

/// The environment variable that turns a skip into a failure: on a machine that must have a
/// GPU, set it to `1` so that a test which cannot reach the GPU fails instead of passing.
///
/// ```
/// assert_eq!(kernel_test_support::REQUIRE_GPU, "KERNEL_REQUIRE_GPU");
/// ```
pub const REQUIRE_GPU: &str = "KERNEL_REQUIRE_GPU";

/// Whether [`REQUIRE_GPU`] is set to `1`.
///
/// ```
/// let required = kernel_test_support::gpu_required();
/// # let _ = required;
/// ```
pub fn gpu_required() -> bool {
    #[allow(clippy::disallowed_methods)] // a test switch, not a build input Cargo must track
    std::env::var_os(REQUIRE_GPU).is_some_and(|v| v == "1")
}

/// Device 0, or `None` after writing `skipped: <reason>` to stderr when there is no usable
/// driver or device.
///
/// The line goes to the process's stderr, not the test harness's captured output, so the
/// reason shows in every log; it names the test (the harness's name for the current thread)
/// when there is one.
///
/// # Panics
///
/// When [`REQUIRE_GPU`] is `1` and no GPU is usable, and when a driver and a device are
/// present but opening device 0 fails anyway: both are failures, never skips. The panic is
/// located at the caller.
///
/// ```
/// if let Some(gpu) = kernel_test_support::gpu_or_skip() {
///     assert!(!gpu.name().is_empty());
/// }
/// ```
#[track_caller]
pub fn gpu_or_skip() -> Option<Gpu> {
    let test = std::thread::current().name().map(str::to_owned);
    match outcome(Gpu::new(0), gpu_required(), test.as_deref()) {
        Outcome::Run(gpu) => Some(gpu),
        Outcome::Skip(line) => {
            let _ = writeln!(std::io::stderr(), "{line}");
            None
        }
        Outcome::Fail(message) => panic!("{message}"),
    }
}

/// Device 0 if its compute capability is at least `major`.0, or `None` after printing
/// `skipped: <what> needs compute capability <major>.0 ...` (and, as for [`gpu_or_skip`],
/// when no GPU is usable).
///
/// ```
/// if let Some(gpu) = kernel_test_support::gpu_at_least_or_skip(9, "TMA") {
///     assert!(gpu.limits().compute_capability.0 >= 9);
/// }
/// ```
#[track_caller]
pub fn gpu_at_least_or_skip(major: u32, what: &str) -> Option<Gpu> {
    let gpu = gpu_or_skip()?;
    if gpu.limits().compute_capability.0 >= major {
        return Some(gpu);
    }
    let test = std::thread::current().name().map(str::to_owned);
    let reason = format!(
        "{what} needs compute capability {major}.0 or later (device is {})",
        gpu.arch()
    );
    let _ = writeln!(std::io::stderr(), "{}", skip_line(test.as_deref(), &reason));
    None
}

/// The environment variable that makes a two-GPU test fail instead of skipping on a machine
/// with fewer than two GPUs: set it to `2` where two are present.
///
/// ```
/// assert_eq!(kernel_test_support::REQUIRE_GPUS, "KERNEL_REQUIRE_GPUS");
/// ```
pub const REQUIRE_GPUS: &str = "KERNEL_REQUIRE_GPUS";

/// Devices 0 and 1, or `None` after printing `skipped: <reason>` when there are fewer than two
/// (a failure when [`REQUIRE_GPUS`] is `2`, and, as for [`gpu_or_skip`], when no GPU is usable
/// under [`REQUIRE_GPU`]).
///
/// ```
/// if let Some((a, b)) = kernel_test_support::two_gpus_or_skip() {
///     assert_ne!(a.ordinal(), b.ordinal());
/// }
/// ```
#[track_caller]
pub fn two_gpus_or_skip() -> Option<(Gpu, Gpu)> {
    let first = gpu_or_skip()?;
    #[allow(clippy::disallowed_methods)] // a test switch, not a build input Cargo must track
    let required = std::env::var_os(REQUIRE_GPUS).is_some_and(|v| v == "2");
    match Gpu::new(1) {
        Ok(second) => Some((first, second)),
        Err(e @ Error::NoDevice { .. }) if !required => {
            let test = std::thread::current().name().map(str::to_owned);
            let reason = format!("needs two GPUs ({e})");
            let _ = writeln!(std::io::stderr(), "{}", skip_line(test.as_deref(), &reason));
            None
        }
        Err(e) => panic!("opening device 1 failed: {e}"),
    }
}

/// What to do with the result of opening device 0.
#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Run(T),
    /// The line to print.
    Skip(String),
    /// The panic message.
    Fail(String),
}

fn outcome<T>(opened: Result<T, Error>, required: bool, test: Option<&str>) -> Outcome<T> {
    match opened {
        Ok(gpu) => Outcome::Run(gpu),
        Err(e @ (Error::NoDriver { .. } | Error::NoDevice { .. })) => {
            if required {
                Outcome::Fail(format!("{REQUIRE_GPU}=1 but no GPU is usable: {e}"))
            } else {
                Outcome::Skip(skip_line(test, &e))
            }
        }
        Err(e) => Outcome::Fail(format!("opening device 0 failed: {e}")),
    }
}

/// `skipped: <reason>`, with the test's name before the reason when there is one.
fn skip_line(test: Option<&str>, reason: &dyn Display) -> String {
    match test {
        Some(test) if test != "main" => format!("skipped: {test}: {reason}"),
        _ => format!("skipped: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_driver() -> Error {
        Error::NoDriver {
            reason: "libcuda.so was not found".to_owned(),
        }
    }

    #[test]
    fn a_missing_driver_or_device_skips_with_the_reason() {
        let line = match outcome::<()>(Err(no_driver()), false, Some("saxpy")) {
            Outcome::Skip(line) => line,
            other => panic!("{other:?}"),
        };
        assert!(line.starts_with("skipped: saxpy: "), "{line}");
        assert!(line.contains("libcuda.so was not found"), "{line}");
        let no_device = Error::NoDevice {
            ordinal: 0,
            count: 0,
        };
        assert!(matches!(
            outcome::<()>(Err(no_device), false, None),
            Outcome::Skip(line) if line.starts_with("skipped: ") && !line.starts_with("skipped: :")
        ));
    }

    #[test]
    fn a_required_gpu_that_is_missing_fails() {
        let fail = outcome::<()>(Err(no_driver()), true, Some("saxpy"));
        assert!(
            matches!(&fail, Outcome::Fail(m) if m.starts_with("KERNEL_REQUIRE_GPU=1 but no GPU is usable: ")),
            "{fail:?}"
        );
    }

    #[test]
    fn other_errors_fail_even_when_not_required() {
        let e = Error::LengthMismatch {
            what: "copy",
            src: 1,
            dst: 2,
        };
        assert!(
            matches!(outcome::<()>(Err(e), false, None), Outcome::Fail(m) if m.starts_with("opening device 0 failed: "))
        );
    }

    #[test]
    fn an_open_gpu_runs_and_the_main_thread_is_not_named() {
        assert_eq!(outcome(Ok(7), true, None), Outcome::Run(7));
        assert_eq!(skip_line(Some("main"), &"no device"), "skipped: no device");
    }
}
