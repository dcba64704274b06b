//! Running nvcc: argument vectors (never a shell), all targets of a file in one
//! invocation compiled in parallel (`--threads N`, N given by the build's job budget; the
//! largest runs' optimizer and assembler split over idle cores, `split`), its
//! intermediate files kept (the device views the front end reads, whose line markers also
//! name every file the unit depends on), and nvcc's messages read back into errors and
//! warnings that name the `.cu` file and line.

pub(crate) mod compress;
pub(crate) mod container;
pub(crate) mod layouts;
pub mod messages;
mod object;
pub(crate) mod probe;
pub(crate) mod split;

pub(crate) use object::fatbin_from_object;

use crate::error::Error;
use crate::toolkit::{Invoked, invoke};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How many threads one nvcc run uses: `--threads` (targets compiled at once) and
/// `--split-compile` (threads of each target's optimizer and assembler, see [`split`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Threads {
    pub targets: usize,
    pub split: usize,
}

/// One nvcc run: `-fatbin`, or `-c` when a wrapper compiles (see [`NvccJob::host_object`]).
#[derive(Clone, Debug)]
pub(crate) struct NvccJob<'a> {
    pub nvcc: &'a Path,
    pub source: &'a Path,
    pub output: &'a Path,
    /// `-gencode` pairs (and `-rdc=true`) for the targets, see [`crate::model::options::LinkMode`].
    pub code_args: Vec<String>,
    /// nvcc's `--threads`: how many targets compile at once.
    pub threads: usize,
    /// nvcc's `--split-compile`: how many threads each target's optimizer and assembler
    /// use (1: none), see [`split`].
    pub split: usize,
    pub includes: &'a [PathBuf],
    pub defines: &'a [(String, Option<String>)],
    pub flags: &'a [String],
    /// Where nvcc leaves its intermediate files (`--keep`), among them the device-side
    /// preprocessed source of every virtual architecture (`<stem>.compute_90.cpp1.ii`).
    pub keep_dir: Option<&'a Path>,
    /// Compile to a host object (`-c`) whose embedded fatbin [`fatbin_from_object`] reads
    /// back, instead of `-fatbin`: sccache caches a `-c` run whole (every step, the host
    /// object included) but treats a `-fatbin` run as not cacheable.
    pub host_object: bool,
}

impl NvccJob<'_> {
    /// The argument vector after the program name.
    pub(crate) fn args(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![
            if self.host_object { "-c" } else { "-fatbin" }.into(),
            "--threads".into(),
            self.threads.max(1).to_string().into(),
        ];
        a.extend(split::args(self.split).into_iter().map(OsString::from));
        a.extend(self.code_args.iter().map(OsString::from));
        a.extend(include_and_define_args(self.includes, self.defines));
        a.extend(self.flags.iter().map(OsString::from));
        if let Some(dir) = self.keep_dir {
            a.extend([
                "--keep".into(),
                "--keep-dir".into(),
                dir.as_os_str().to_owned(),
            ]);
        }
        a.extend(["-o".into(), self.output.as_os_str().to_owned()]);
        a.extend(["-x".into(), "cu".into(), self.source.as_os_str().to_owned()]);
        a
    }
}

/// `-I dir` and `-D name[=value]` arguments, shared by compiling and preprocessing.
pub(crate) fn include_and_define_args(
    includes: &[PathBuf],
    defines: &[(String, Option<String>)],
) -> Vec<OsString> {
    let mut a = Vec::new();
    for dir in includes {
        let mut arg = OsString::from("-I");
        arg.push(dir);
        a.push(arg);
    }
    for (name, value) in defines {
        a.push(match value {
            Some(v) => format!("-D{name}={v}").into(),
            None => format!("-D{name}").into(),
        });
    }
    a
}

/// What a successful run printed that is worth passing on.
#[derive(Debug, Default)]
pub(crate) struct Ran {
    pub warnings: Vec<messages::NvccMessage>,
}

/// Runs nvcc; a non-zero exit becomes [`Error::NvccFailed`] carrying the command line,
/// the status, everything nvcc printed and the location of its first error.
pub(crate) fn run(nvcc: &Path, args: &[OsString], debug: bool) -> Result<Ran, Error> {
    run_through(None, nvcc, args, debug)
}

/// [`run`] through `wrapper` when there is one (`sccache nvcc args...`).
pub(crate) fn run_through(
    wrapper: Option<&Path>,
    nvcc: &Path,
    args: &[OsString],
    debug: bool,
) -> Result<Ran, Error> {
    let Invoked {
        status,
        text,
        command,
    } = invoke(wrapper, nvcc, args, debug)?;
    let msgs = messages::parse(&text);
    if !status.success() {
        let hint = messages::missing_header(&text).and_then(|h| {
            crate::diagnostics::shared::types_header_missing(&h).or_else(|| {
                let lib = crate::toolkit::library_for_header(&h)?;
                Some(crate::diagnostics::build::library_header_missing(&h, lib))
            })
        });
        let first_error = msgs
            .iter()
            .find(|m| m.severity == messages::Severity::Error);
        return Err(Error::NvccFailed {
            location: first_error.and_then(|m| m.location()),
            status: status.to_string(),
            command,
            output: messages::tidy(&text),
            hint,
        });
    }
    let warnings = msgs
        .into_iter()
        .filter(|m| m.severity == messages::Severity::Warning)
        .collect();
    Ok(Ran { warnings })
}

/// The extra nvcc flags of `KERNEL_BUILD_NVCC_FLAGS`, separated by spaces.
pub(crate) fn flags_from_env(reporting: crate::env::Reporting) -> Vec<String> {
    crate::env::var(crate::env::Var::NVCC_FLAGS, reporting)
        .map(|extra| {
            extra
                .to_string_lossy()
                .split_whitespace()
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The wrapper nvcc's compilations run through: `KERNEL_BUILD_NVCC_WRAPPER` (empty or `none`:
/// no wrapper), else `RUSTC_WRAPPER` when it names sccache (so a team's sccache storage serves
/// the kernels too).
pub(crate) fn wrapper_from_env(reporting: crate::env::Reporting) -> Option<std::path::PathBuf> {
    let own = crate::env::var(crate::env::Var::NVCC_WRAPPER, reporting);
    let rustc = crate::env::var(crate::env::Var::RUSTC_WRAPPER, reporting);
    choose_wrapper(own.as_deref(), rustc.as_deref())
}

/// [`wrapper_from_env`] on the two values.
fn choose_wrapper(
    own: Option<&std::ffi::OsStr>,
    rustc: Option<&std::ffi::OsStr>,
) -> Option<std::path::PathBuf> {
    if let Some(w) = own {
        let text = w.to_string_lossy();
        let text = text.trim();
        return (!text.is_empty() && text != "none").then(|| std::path::PathBuf::from(text));
    }
    let rustc = std::path::Path::new(rustc?);
    let name = rustc.file_stem()?.to_string_lossy();
    name.starts_with("sccache").then(|| rustc.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_vector_has_every_part() {
        let targets = [
            crate::toolkit::Target::sass(80),
            crate::toolkit::Target::ptx(90),
        ];
        let job = NvccJob {
            nvcc: Path::new("nvcc"),
            source: Path::new("dir with space/k.cu"),
            output: Path::new("out.fatbin"),
            code_args: crate::model::options::LinkMode::Whole.unit_args(&targets),
            threads: 2,
            split: 3,
            includes: &[PathBuf::from("inc")],
            defines: &[("N".into(), Some("4".into())), ("FAST".into(), None)],
            flags: &["-O3".into()],
            keep_dir: Some(Path::new("keep")),
            host_object: false,
        };
        let args: Vec<String> = job
            .args()
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let joined = args.join(" ");
        assert!(
            joined.starts_with("-fatbin --threads 2 --split-compile 3"),
            "{joined}"
        );
        assert!(
            joined.contains("-gencode arch=compute_80,code=sm_80"),
            "{joined}"
        );
        assert!(
            joined.contains("-gencode arch=compute_90,code=compute_90"),
            "{joined}"
        );
        assert!(joined.contains("--keep --keep-dir keep"), "{joined}");
        assert!(args.contains(&"-Iinc".to_string()));
        assert!(args.contains(&"-DN=4".to_string()) && args.contains(&"-DFAST".to_string()));
        assert!(joined.ends_with("-x cu dir with space/k.cu"), "{joined}");
        assert_eq!(args.last().unwrap(), "dir with space/k.cu");
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let err = run(Path::new("/nonexistent/nvcc"), &[], false).unwrap_err();
        assert!(matches!(err, Error::NvccSpawn { .. }), "{err}");
    }
}

#[cfg(test)]
mod wrapper_tests {
    use super::choose_wrapper;
    use std::ffi::OsStr;
    use std::path::PathBuf;

    #[test]
    fn the_wrapper_is_ours_else_an_sccache_rustc_wrapper() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert_eq!(
            choose_wrapper(os("ccache"), os("sccache")),
            Some(PathBuf::from("ccache"))
        );
        assert_eq!(choose_wrapper(os("none"), os("/usr/bin/sccache")), None);
        assert_eq!(choose_wrapper(os(""), os("sccache")), None);
        assert_eq!(
            choose_wrapper(None, os("/home/u/.cargo/bin/sccache")),
            Some(PathBuf::from("/home/u/.cargo/bin/sccache"))
        );
        assert_eq!(
            choose_wrapper(None, os("/usr/bin/some-other-wrapper")),
            None
        );
        assert_eq!(choose_wrapper(None, None), None);
    }
}
