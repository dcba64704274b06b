//! A counting nvcc for the CLI tests: it logs every run, then runs the real one. Finding and
//! running nvcc is cuda-kernel-build's test helper (`fatbin_support`), included by path.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// An nvcc that appends its arguments to a log, one line per run, then runs the real one.
pub struct CountingNvcc {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
    pub log: PathBuf,
}

impl CountingNvcc {
    pub fn new(real: &Path) -> CountingNvcc {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs.log");
        let path = dir.path().join("nvcc");
        // `printf` writes the line at once; the log is opened for appending, so concurrent
        // runs keep their lines whole.
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display(),
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        CountingNvcc { dir, path, log }
    }

    /// Every run so far, one argument line each.
    pub fn runs(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }
}
