//! Running `nvcc -E` on a user's file (argument vectors, never a shell).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::diagnostics::{Diagnostics, front as msg};

/// Preprocesses `file` with `nvcc -E -x cu` as the host pass sees it and returns the text
/// with its line markers. `defines` are `(NAME, Some(VALUE))` for `-DNAME=VALUE` or
/// `(NAME, None)` for `-DNAME`.
///
/// ```no_run
/// use std::path::Path;
/// let text = cuda_kernel_build::__private::front::preprocess(
///     Path::new("nvcc"), Path::new("kernels/k.cu"), &[], &[("N".into(), Some("4".into()))], &[],
/// ).unwrap();
/// assert!(text.contains("k.cu"));
/// ```
pub fn preprocess(
    nvcc: &Path,
    file: &Path,
    includes: &[PathBuf],
    defines: &[(String, Option<String>)],
    extra_flags: &[String],
) -> Result<String, Diagnostics> {
    let mut cmd = Command::new(nvcc);
    // `nvcc -E` preprocesses like the device pass of the first architecture
    // (`__CUDA_ARCH__` defined); undefining it gives the host view, where every
    // kernel is declared whatever `#if __CUDA_ARCH__` says.
    cmd.arg("-E")
        .arg("-x")
        .arg("cu")
        .arg("-Xcompiler")
        .arg("-U__CUDA_ARCH__");
    for dir in includes {
        cmd.arg("-I").arg(dir);
    }
    for (name, value) in defines {
        cmd.arg(match value {
            Some(v) => format!("-D{name}={v}"),
            None => format!("-D{name}"),
        });
    }
    cmd.args(extra_flags).arg(file);
    let out = cmd
        .output()
        .map_err(|e| msg::spawn_failed(&nvcc.display().to_string(), &e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(msg::preprocess_failed(
            &file.display().to_string(),
            &out.status.to_string(),
            &stderr,
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
