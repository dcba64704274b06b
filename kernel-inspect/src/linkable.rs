//! `toolkit install --linkable`: the wheels' folder laid out for crates that link the CUDA
//! libraries when the program is linked (candle, cudarc's `dynamic-linking`), as a system
//! toolkit is: the unversioned names the linker looks for (`lib/libcublas.so` →
//! `libcublas.so.13`, ...) and `lib/stubs/libcuda.so`, a driver stub for linking only, with
//! `link-env.sh` beside the wheels to point such a build at them.
//!
//! The stub exports every `cu*` entry point `cuda.h` names, each returning
//! `CUDA_ERROR_STUB_LIBRARY`, and records the driver's name, `libcuda.so.1`, as its soname: a
//! program linked against it asks for `libcuda.so.1`, which only the driver provides. The stub
//! itself is only ever named `libcuda.so`, so the loader never picks it up. It is compiled with
//! the C compiler (`CC`, else `cc`). `scripts/install-cuda-toolkit.sh --linkable` does the same.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::install::InstallError;

/// The stamp's line for a linkable install.
pub(crate) const STAMP_LINE: &str = "linkable";

/// What [`make_linkable`] made.
#[derive(Clone, Debug)]
pub(crate) struct Linkable {
    /// The wheels' folder (`bin/`, `include/`, `lib/`): what `CUDA_HOME` names.
    pub home: PathBuf,
    /// The unversioned names made in `lib/`.
    pub names: Vec<String>,
    /// The file to source (`link-env.sh` in the install folder).
    pub env_file: PathBuf,
}

/// Lays out the install in `dir` for linking: link names, the driver stub, `link-env.sh`.
///
/// # Errors
///
/// [`InstallError`] naming the step: no wheels' folder with `cuda.h`, a file that cannot be
/// written, or a C compiler that is missing or fails.
pub(crate) fn make_linkable(dir: &Path) -> Result<Linkable, InstallError> {
    let home = ["nvidia/cu13", "nvidia/cu12"]
        .iter()
        .map(|sub| dir.join(sub))
        .find(|h| h.join("include/cuda.h").is_file())
        .ok_or_else(|| {
            InstallError::new(
                "making the toolkit linkable",
                format!("no nvidia/cu13/include/cuda.h under {}", dir.display()),
            )
        })?;
    let lib = home.join("lib");
    let io = |step: &str| {
        let step = step.to_owned();
        move |e: std::io::Error| InstallError::new(&step, e.to_string())
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&lib).map_err(io("reading lib/"))? {
        let file = entry.map_err(io("reading lib/"))?.file_name();
        let Some(link) = file.to_str().and_then(link_name) else {
            continue;
        };
        let path = lib.join(&link);
        if path.symlink_metadata().is_ok() {
            std::fs::remove_file(&path).map_err(io("replacing a link name"))?;
        }
        std::os::unix::fs::symlink(&file, &path).map_err(io("making a link name"))?;
        names.push(link);
    }
    names.sort();

    let header =
        std::fs::read_to_string(home.join("include/cuda.h")).map_err(io("reading cuda.h"))?;
    let stubs = lib.join("stubs");
    std::fs::create_dir_all(&stubs).map_err(io("creating lib/stubs"))?;
    let source = tempfile::Builder::new()
        .prefix(".libcuda-stub.")
        .suffix(".c")
        .tempfile_in(&stubs)
        .map_err(io("writing the driver stub's source"))?;
    std::fs::write(source.path(), stub_source(&header))
        .map_err(io("writing the driver stub's source"))?;
    let staged = stubs.join(".libcuda.so.tmp");
    let cc = c_compiler();
    let out = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-Wl,-soname,libcuda.so.1", "-o"])
        .arg(&staged)
        .arg(source.path())
        .output()
        .map_err(|e| {
            InstallError::new(
                "compiling the driver stub",
                format!(
                    "{} could not be run ({e}); set CC to a C compiler",
                    cc.to_string_lossy()
                ),
            )
        })?;
    if !out.status.success() {
        return Err(InstallError::new(
            "compiling the driver stub",
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        ));
    }
    std::fs::rename(&staged, stubs.join("libcuda.so")).map_err(io("placing the driver stub"))?;

    let env_file = dir.join("link-env.sh");
    std::fs::write(&env_file, env_script(&home, &env_file)).map_err(io("writing link-env.sh"))?;
    Ok(Linkable {
        home,
        names,
        env_file,
    })
}

/// The C compiler: `CC`, else `cc`.
#[allow(
    clippy::disallowed_methods,
    reason = "a command, not a build script: nothing for Cargo to track"
)]
fn c_compiler() -> std::ffi::OsString {
    std::env::var_os("CC").unwrap_or_else(|| "cc".into())
}

/// The unversioned name of a library with one version number (`libcublas.so.13` →
/// `libcublas.so`); `None` for anything else (`libnvrtc-builtins.so.13.0`, `libcudart_static.a`).
fn link_name(file: &str) -> Option<String> {
    let (stem, version) = file.split_once(".so.")?;
    let ok = stem.starts_with("lib")
        && !version.is_empty()
        && version.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| format!("{stem}.so"))
}

/// The stub's C source: every `cu[A-Z]...` name in `header` (the declared entry points, the
/// versioned names its `#define`s point at, and the older names they replace), each a function
/// returning `CUDA_ERROR_STUB_LIBRARY` (34).
fn stub_source(header: &str) -> String {
    let mut names = BTreeSet::new();
    let bytes = header.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let word = &header[start..i];
        if word.len() > 2 && word.starts_with("cu") && word.as_bytes()[2].is_ascii_uppercase() {
            names.insert(word);
        }
    }
    let mut c = String::from(
        "/* Driver stub for linking only (cuda-kernel-inspect toolkit install --linkable). */\n",
    );
    for n in names {
        c.push_str(&format!("int {n}(void) {{ return 34; }}\n"));
    }
    c
}

/// `link-env.sh`: `CUDA_HOME` (where cudarc's and candle's build scripts look for `lib/` and
/// `lib/stubs/`), `PATH` (the nvcc whose version cudarc reads) and `LD_LIBRARY_PATH` (the
/// libraries, for running what such a build makes).
fn env_script(home: &Path, env_file: &Path) -> String {
    let h = home.display();
    format!(
        "# Written by `cuda-kernel-inspect toolkit install --linkable`. Source it: . {}\n\
         export CUDA_HOME=\"{h}\"\n\
         export PATH=\"{h}/bin${{PATH:+:$PATH}}\"\n\
         export LD_LIBRARY_PATH=\"{h}/lib${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\"\n",
        env_file.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_names_take_one_version_number() {
        assert_eq!(
            link_name("libcublas.so.13").as_deref(),
            Some("libcublas.so")
        );
        assert_eq!(
            link_name("libcurand.so.10").as_deref(),
            Some("libcurand.so")
        );
        assert_eq!(link_name("libnvrtc-builtins.so.13.0"), None);
        assert_eq!(link_name("libcudart_static.a"), None);
        assert_eq!(link_name("libcuda.so"), None);
    }

    #[test]
    fn the_stub_defines_each_entry_point_once() {
        let c = stub_source(
            "#define cuCtxCreate cuCtxCreate_v4\n\
             CUresult CUDAAPI cuInit(unsigned int Flags);\n\
             CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);\n\
             /* see ::cuInit */ typedef struct CUctx_st *CUcontext; int cuuint32;\n",
        );
        for name in ["cuInit", "cuCtxCreate", "cuCtxCreate_v4"] {
            assert_eq!(c.matches(&format!("int {name}(void)")).count(), 1, "{c}");
        }
        assert!(!c.contains("CUctx_st") && !c.contains("cuuint32"), "{c}");
    }

    #[test]
    fn a_wheels_folder_gets_link_names_a_stub_and_an_env_file() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("nvidia/cu13");
        std::fs::create_dir_all(home.join("include")).unwrap();
        std::fs::create_dir_all(home.join("lib")).unwrap();
        std::fs::write(
            home.join("include/cuda.h"),
            "CUresult CUDAAPI cuInit(unsigned int Flags);\n#define cuMemAlloc cuMemAlloc_v2\n",
        )
        .unwrap();
        std::fs::write(home.join("lib/libcudart.so.13"), b"").unwrap();
        std::fs::write(home.join("lib/libnvrtc-builtins.so.13.0"), b"").unwrap();
        let made = match make_linkable(dir.path()) {
            Ok(made) => made,
            Err(e) if which::which(c_compiler()).is_err() => {
                println!("skipped: no C compiler ({e})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(made.home, home);
        assert_eq!(made.names, ["libcudart.so"]);
        assert_eq!(
            std::fs::read_link(home.join("lib/libcudart.so")).unwrap(),
            Path::new("libcudart.so.13")
        );
        assert!(!home.join("lib/libnvrtc-builtins.so").exists());
        // The stub: a shared object that names the driver's soname and exports the entry
        // points; there is no `libcuda.so.1` for a loader to find.
        let stub = std::fs::read(home.join("lib/stubs/libcuda.so")).unwrap();
        assert!(stub.starts_with(b"\x7fELF"));
        for needle in [&b"libcuda.so.1"[..], b"cuInit", b"cuMemAlloc_v2"] {
            assert!(
                stub.windows(needle.len()).any(|w| w == needle),
                "{needle:?}"
            );
        }
        let stubs: Vec<_> = std::fs::read_dir(home.join("lib/stubs"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(stubs, ["libcuda.so"]);
        let env = std::fs::read_to_string(&made.env_file).unwrap();
        assert!(
            env.contains(&format!("export CUDA_HOME=\"{}\"", home.display())),
            "{env}"
        );
        // Made again (a second run): the same result, no error.
        assert_eq!(make_linkable(dir.path()).unwrap().names, ["libcudart.so"]);
    }
}
