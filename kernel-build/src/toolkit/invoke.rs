//! Running nvcc: its command line as a shell would show it, and everything it printed.
//! Compiling reads nvcc's messages out of that text; discovery reads its answers.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitStatus};

use crate::error::Error;

/// One run of nvcc.
pub(crate) struct Invoked {
    /// How it exited.
    pub status: ExitStatus,
    /// Everything it printed (stdout, then stderr).
    pub text: String,
    /// The command line, for messages.
    pub command: String,
}

/// Runs `nvcc args...`, through `wrapper` when there is one (`sccache nvcc args...`); an
/// nvcc that does not start is [`Error::NvccSpawn`].
pub(crate) fn invoke(
    wrapper: Option<&Path>,
    nvcc: &Path,
    args: &[OsString],
    debug: bool,
) -> Result<Invoked, Error> {
    let mut command = shell_words(nvcc, args);
    if let Some(w) = wrapper {
        command = format!("{} {command}", w.display());
    }
    if debug {
        eprintln!("cuda-kernel-build: running {command}");
    }
    let mut cmd = match wrapper {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(nvcc);
            c
        }
        None => Command::new(nvcc),
    };
    let out = cmd.args(args).output().map_err(|source| Error::NvccSpawn {
        nvcc: nvcc.to_path_buf(),
        source,
    })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(Invoked {
        status: out.status,
        text,
        command,
    })
}

/// The command line quoted for a POSIX shell, for messages only (never executed).
pub(crate) fn shell_words(program: &Path, args: &[OsString]) -> String {
    std::iter::once(program.as_os_str())
        .chain(args.iter().map(OsString::as_os_str))
        .map(|w| {
            let s = w.to_string_lossy();
            if !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=,:+@%".contains(&b))
            {
                s.into_owned()
            } else {
                format!("'{}'", s.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_for_messages() {
        let s = shell_words(
            Path::new("/bin/nvcc"),
            &["a b".into(), "it's".into(), "-O3".into()],
        );
        assert_eq!(s, r"/bin/nvcc 'a b' 'it'\''s' -O3");
    }
}
