//! Files for editors and language servers, under one folder of the target directory
//! (`target/cuda-kernel-build/`, see [`folder`]):
//!
//! ```text
//! target/cuda-kernel-build/
//! ├── compile_commands.json        one entry per `.cu` file a build compiled: the nvcc
//! │                                command (targets, -I, -D, flags) it was compiled with
//! └── <package>/include/src/particles.rs.cuh
//!                                  the headers written from the package's shared Rust types
//! ```
//!
//! clangd and IDEs that read a compilation database see the includes, definitions and
//! generated headers nvcc saw. Every build of a module rewrites its files' entries (the
//! other entries are kept), before nvcc runs, so that an editor can help with a file that
//! does not compile yet. Writing is best effort: a folder that cannot be written is
//! skipped without failing the build.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::request::{Context, Source};
use crate::compile::NvccJob;
use crate::env::{self, Var};
use crate::toolkit::Target;

/// The name of the folder under the target directory.
const FOLDER: &str = "cuda-kernel-build";

/// Where the files go: [`Context::editor_dir`], else `KERNEL_BUILD_EDITOR_DIR` (an off
/// word: nowhere), else `cuda-kernel-build/` in the target folder of the Cargo build this runs
/// in; `None` outside Cargo.
pub(super) fn folder(cx: &Context) -> Option<PathBuf> {
    if let Some(dir) = &cx.editor_dir {
        return Some(dir.clone());
    }
    let manifest = PathBuf::from(env::cargo_var("CARGO_MANIFEST_DIR")?);
    let out = env::cargo_var("OUT_DIR").map(PathBuf::from);
    folder_from(&manifest, out.as_deref(), cx.reporting)
}

/// The folder of editor files of the crate in `crate_dir` (or a folder inside it), as its
/// builds choose it: `KERNEL_BUILD_EDITOR_DIR`, else `cuda-kernel-build/` in the target
/// folder (`CARGO_TARGET_DIR`, else the nearest `target/` that Cargo tagged with
/// `CACHEDIR.TAG`). For `cuda-kernel-inspect editor`.
///
/// ```no_run
/// let here = std::env::current_dir()?;
/// match cuda_kernel_build::__private::editor_folder(&here) {
///     Some(dir) => println!("compile_commands.json: {}", dir.join("compile_commands.json").display()),
///     None => println!("no Cargo target folder above {}", here.display()),
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn editor_folder(crate_dir: &Path) -> Option<PathBuf> {
    folder_from(crate_dir, None, crate::env::Reporting::Silent)
}

fn folder_from(
    manifest: &Path,
    out_dir: Option<&Path>,
    reporting: crate::env::Reporting,
) -> Option<PathBuf> {
    if let Some(dir) = env::var(Var::EDITOR_DIR, reporting) {
        return env::flag(Var::EDITOR_DIR, reporting).then(|| PathBuf::from(dir));
    }
    if let Some(dir) = env::cargo_var("CARGO_TARGET_DIR").map(PathBuf::from) {
        let dir = if dir.is_absolute() {
            dir
        } else {
            manifest.join(dir)
        };
        return Some(dir.join(FOLDER));
    }
    let tagged = |dir: &Path| dir.join("CACHEDIR.TAG").is_file();
    if let Some(dir) = out_dir.and_then(|out| out.ancestors().find(|d| tagged(d))) {
        return Some(dir.join(FOLDER));
    }
    manifest
        .ancestors()
        .map(|d| d.join("target"))
        .find(|d| tagged(d))
        .map(|d| d.join(FOLDER))
}

/// Copies the headers written from shared Rust types (`staged`, holding `names`) to
/// `<folder>/<package>/include/`, and returns the folder's path where it could.
pub(super) fn copy_headers(cx: &Context, staged: &Path, names: &[String]) -> Option<PathBuf> {
    let package = env::cargo_var("CARGO_PKG_NAME")
        .map_or_else(|| "module".to_owned(), |p| p.to_string_lossy().into_owned());
    let dir = folder(cx)?.join(package).join("include");
    for name in names {
        let (from, to) = (staged.join(name), dir.join(name));
        let same = std::fs::read(&from).ok() == std::fs::read(&to).ok();
        if !same {
            let copied = to
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::copy(&from, &to).map(drop));
            copied.ok()?;
        }
    }
    Some(dir)
}

/// What an entry of the database is made from.
pub(super) struct Commands<'a> {
    pub nvcc: &'a Path,
    pub targets: &'a [Target],
    pub defines: &'a [(String, Option<String>)],
    pub flags: &'a [String],
}

/// Writes (or rewrites) the entries of `sources`' files in `<folder>/compile_commands.json`
/// and returns the database's path where it could. Inline sources get no entry: their text
/// lives in a Rust file.
pub(super) fn write_commands(
    cx: &Context,
    commands: &Commands<'_>,
    sources: &[Source],
) -> Option<PathBuf> {
    let files: Vec<&Source> = sources.iter().filter(|s| s.is_file).collect();
    if files.is_empty() {
        return None;
    }
    let dir = folder(cx)?;
    let path = dir.join("compile_commands.json");
    let mut entries: Vec<serde_json::Value> = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    for source in files {
        let file = source.path.to_string_lossy().into_owned();
        entries.retain(|e| e.get("file").and_then(|f| f.as_str()) != Some(file.as_str()));
        entries.push(entry(commands, source));
    }
    let text = serde_json::to_string_pretty(&entries).ok()?;
    std::fs::create_dir_all(&dir).ok()?;
    // Written beside, under a name of its own, and renamed: an editor never reads half a
    // file, and builds writing at once (threads of one process too) each rename their own.
    // Of two such builds, the entries of the one that renames first may be lost; each of its
    // files gets its entry back when it is built again.
    let mut builder = tempfile::Builder::new();
    builder.prefix("compile_commands.json.");
    // As a file written plainly would be (a temporary file is the owner's alone).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let mut partial = builder.tempfile_in(&dir).ok()?;
    std::io::Write::write_all(&mut partial, text.as_bytes()).ok()?;
    partial.persist(&path).ok()?;
    Some(path)
}

/// One entry: the file, its folder, and nvcc's arguments as a compile of it to an object.
fn entry(commands: &Commands<'_>, source: &Source) -> serde_json::Value {
    let code_args: Vec<String> = commands
        .targets
        .iter()
        .flat_map(|t| ["-gencode".to_owned(), t.gencode()])
        .collect();
    let output = source.path.with_extension("o");
    let job = NvccJob {
        nvcc: commands.nvcc,
        source: &source.path,
        output: &output,
        code_args,
        threads: 1,
        split: 1,
        includes: &source.includes,
        defines: commands.defines,
        flags: commands.flags,
        keep_dir: None,
        host_object: true,
    };
    let arguments: Vec<String> = std::iter::once(commands.nvcc.as_os_str().to_owned())
        .chain(job.args())
        .map(|a: OsString| a.to_string_lossy().into_owned())
        .collect();
    let directory = source
        .path
        .parent()
        .map_or_else(String::new, |d| d.to_string_lossy().into_owned());
    serde_json::json!({
        "directory": directory,
        "file": source.path.to_string_lossy(),
        "arguments": arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &Path, includes: Vec<PathBuf>, is_file: bool) -> Source {
        Source {
            path: path.to_owned(),
            display_name: path.display().to_string(),
            text: String::new(),
            user_dirs: Vec::new(),
            includes,
            is_file,
            line_origin: None,
        }
    }

    /// Builds of one process writing at once (the threads of a test harness, a program
    /// building several modules) each write and rename a file of their own: every write
    /// lands, and the database reads whole.
    #[test]
    fn builds_writing_at_once_each_land() {
        let dir = tempfile::tempdir().unwrap();
        let cx = Context {
            editor_dir: Some(dir.path().to_owned()),
            ..Context::default()
        };
        let targets = ["sm_90".parse::<Target>().unwrap()];
        let commands = Commands {
            nvcc: Path::new("/opt/cuda/bin/nvcc"),
            targets: &targets,
            defines: &[],
            flags: &[],
        };
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (cx, commands) = (&cx, &commands);
                scope.spawn(move || {
                    for i in 0..25 {
                        let file = PathBuf::from(format!("/src/t{t}_{i}.cu"));
                        let written = write_commands(cx, commands, &[source(&file, vec![], true)]);
                        assert!(written.is_some(), "thread {t}, write {i}");
                    }
                });
            }
        });
        let path = dir.path().join("compile_commands.json");
        let entries: Vec<serde_json::Value> =
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        assert!(!entries.is_empty());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no partial file left: {left:?}");
    }

    #[test]
    fn entries_are_written_kept_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let cx = Context {
            editor_dir: Some(dir.path().to_owned()),
            ..Context::default()
        };
        let targets = ["sm_90".parse::<Target>().unwrap()];
        let flags = vec!["-std=c++17".to_owned()];
        let defines = vec![("TILE".to_owned(), Some("16".to_owned()))];
        let commands = Commands {
            nvcc: Path::new("/opt/cuda/bin/nvcc"),
            targets: &targets,
            defines: &defines,
            flags: &flags,
        };
        let a = source(Path::new("/src/a.cu"), vec!["/inc".into()], true);
        let b = source(Path::new("/src/b.cu"), vec![], true);
        let inline = source(Path::new("/cache/x.cu"), vec![], false);
        let path = write_commands(&cx, &commands, &[a.clone(), b, inline]).unwrap();
        let read = |p: &Path| -> Vec<serde_json::Value> {
            serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
        };
        let entries = read(&path);
        assert_eq!(entries.len(), 2, "{entries:?}");
        let args: Vec<&str> = entries[0]["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(args[0], "/opt/cuda/bin/nvcc");
        for wanted in [
            "-c",
            "arch=compute_90,code=sm_90",
            "-I/inc",
            "-DTILE=16",
            "-std=c++17",
        ] {
            assert!(args.contains(&wanted), "{wanted} in {args:?}");
        }
        assert_eq!(args.last(), Some(&"/src/a.cu"));
        assert_eq!(entries[0]["directory"], "/src");
        // A later build of `a.cu` alone replaces its entry and keeps `b.cu`'s.
        let flags = vec!["-std=c++20".to_owned()];
        let commands = Commands {
            flags: &flags,
            ..commands
        };
        write_commands(&cx, &commands, &[a]).unwrap();
        let entries = read(&path);
        assert_eq!(entries.len(), 2);
        let a_entry = entries.iter().find(|e| e["file"] == "/src/a.cu").unwrap();
        assert!(a_entry["arguments"].to_string().contains("-std=c++20"));
        assert!(!a_entry["arguments"].to_string().contains("-std=c++17"));
    }

    #[test]
    fn headers_are_copied_under_the_package() {
        let staged = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(staged.path().join("src")).unwrap();
        std::fs::write(staged.path().join("src/p.rs.cuh"), "struct P { float x; };").unwrap();
        let cx = Context {
            editor_dir: Some(out.path().to_owned()),
            ..Context::default()
        };
        let dir = copy_headers(&cx, staged.path(), &["src/p.rs.cuh".to_owned()]).unwrap();
        assert!(
            dir.starts_with(out.path()) && dir.ends_with("include"),
            "{dir:?}"
        );
        let copied = std::fs::read_to_string(dir.join("src/p.rs.cuh")).unwrap();
        assert_eq!(copied, "struct P { float x; };");
    }

    #[test]
    fn the_target_folder_is_the_one_cargo_tagged() {
        let named = env::var(Var::EDITOR_DIR, crate::env::Reporting::Silent).is_some()
            || env::cargo_var("CARGO_TARGET_DIR").is_some();
        if named {
            return; // the environment names the folder itself
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("target")).unwrap();
        let krate = dir.path().join("member");
        assert_eq!(
            folder_from(&krate, None, crate::env::Reporting::Silent),
            None
        );
        std::fs::write(dir.path().join("target/CACHEDIR.TAG"), "Signature").unwrap();
        assert_eq!(
            editor_folder(&krate),
            Some(dir.path().join("target").join(FOLDER))
        );
    }

    #[test]
    fn no_folder_outside_cargo_unless_named() {
        // The unit tests run under Cargo, so only an explicit folder is checked here: it wins.
        let cx = Context {
            editor_dir: Some(PathBuf::from("/somewhere")),
            ..Context::default()
        };
        assert_eq!(folder(&cx), Some(PathBuf::from("/somewhere")));
    }
}
