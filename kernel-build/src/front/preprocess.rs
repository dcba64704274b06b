//! Running `nvcc -E` on a user's file (argument vectors, never a shell).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::diagnostics::{Diagnostics, front as msg};

/// Preprocesses `file` with `nvcc -E -x cu` as the host pass sees it and returns the text
/// with its line markers. `defines` are `(NAME, Some(VALUE))` for `-DNAME=VALUE` or
/// `(NAME, None)` for `-DNAME`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocess_passes_the_host_view_includes_defines_and_file() {
        use std::os::unix::fs::PermissionsExt;
        // An nvcc that prints its arguments, one a line.
        let dir = tempfile::tempdir().unwrap();
        let nvcc = dir.path().join("nvcc");
        std::fs::write(&nvcc, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n").unwrap();
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        let text = preprocess(
            &nvcc,
            Path::new("kernels/k.cu"),
            &["inc".into()],
            &[("N".into(), Some("4".into())), ("FAST".into(), None)],
            &["-std=c++17".into()],
        )
        .unwrap();
        assert!(text.contains("k.cu"));
        let args: Vec<&str> = text.lines().collect();
        assert_eq!(
            args,
            [
                "-E",
                "-x",
                "cu",
                "-Xcompiler",
                "-U__CUDA_ARCH__",
                "-I",
                "inc",
                "-DN=4",
                "-DFAST",
                "-std=c++17",
                "kernels/k.cu"
            ]
        );
    }
}
