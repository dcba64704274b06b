//! Messages about a build that failed outside the CUDA declarations: nvcc's own errors,
//! calls between files without device linking, source files that cannot be read. The
//! build script prints them through [`crate::Error`]'s `Display`; the macro words them
//! for its own syntax with the same functions.

/// How a door names the option that turns device linking on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// `Build` in a build script (and `cuda-kernel-inspect build`).
    Build,
    /// The `cuda_module!` macro.
    Macro,
}

/// nvcc failed on `what` (`the inline CUDA source`, `` `k.cu` ``).
pub fn nvcc_failed_on(what: &str, status: &str, output: &str, hint: Option<&str>) -> String {
    let hint = hint.map(|h| format!("\nhint: {h}")).unwrap_or_default();
    format!(
        "nvcc failed to compile {what} ({status}):{hint}\n{}",
        output.trim_end()
    )
}

/// nvcc failed; the build script's message, with the command line.
pub fn nvcc_failed(
    location: Option<&str>,
    status: &str,
    command: &str,
    output: &str,
    hint: Option<&str>,
) -> String {
    let at = location.map(|l| format!(" at {l}")).unwrap_or_default();
    let hint = hint.map(|h| format!("\nhint: {h}")).unwrap_or_default();
    format!(
        "nvcc failed{at} ({status}){hint}\ncommand: {command}\n{}",
        output.trim_end()
    )
}

/// A file calls a device function it does not define, in a module whose files are not
/// device-linked.
pub fn needs_rdc(file: &str, symbol: &str, door: Door) -> String {
    let fix = match door {
        Door::Build => {
            "`Build::link(LinkMode::Rdc)` (macro: `rdc = true;`, cuda-kernel-inspect: `--rdc`)"
        }
        Door::Macro => "add `rdc = true;`",
    };
    format!(
        "`{file}` calls the device function `{symbol}`, which it does not define; calling into \
         another file needs device linking: {fix}"
    )
}

/// A file launches kernels from device code (`<<<...>>>` in a kernel: dynamic
/// parallelism), which needs device linking with the CUDA device runtime.
pub fn needs_device_runtime(at: &str, door: Door) -> String {
    let fix = match door {
        Door::Build => {
            "`Build::link(LinkMode::Rdc)` (macro: `rdc = true;`, cuda-kernel-inspect: `--rdc`)"
        }
        Door::Macro => "add `rdc = true;`",
    };
    format!(
        "`{at}` launches a kernel from device code (dynamic parallelism), which needs \
         relocatable device code linked with the CUDA device runtime (libcudadevrt, linked \
         by the build when a file uses it): {fix}"
    )
}

/// A source file named by the user cannot be read.
pub fn unreadable_source(written: &str, io: &std::io::Error) -> String {
    let kind = match io.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        _ => io.to_string(),
    };
    format!(
        "cannot read CUDA source `{written}`: {kind} (paths are relative to the crate root, the folder of Cargo.toml)"
    )
}

/// An error and its causes, one per line, as anyhow prints them: for reports that show an
/// error once, whatever it wraps.
pub fn report(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        text.push_str(&format!("\n\nCaused by:\n    {c}"));
        cause = c.source();
    }
    text
}

/// The device link of a module's files failed for one target.
pub fn device_link_failed(mode: &str, target: &str, problems: &[String], log: &str) -> String {
    let mut s = format!("device link ({mode}) for {target} failed");
    for p in problems {
        s.push_str("\n  - ");
        s.push_str(p);
    }
    if !log.is_empty() {
        s.push('\n');
        s.push_str(log.trim_end());
    }
    s
}

/// No nvcc anywhere: every place looked at, and how to get one.
pub fn nvcc_not_found(tried: &[String]) -> String {
    let mut s = String::from("nvcc (the CUDA compiler) was not found. Looked in:\n");
    for t in tried {
        s.push_str("  - ");
        s.push_str(t);
        s.push('\n');
    }
    match tried {
        // A setting made on purpose is not second-guessed: the fix is the setting.
        [one] if one.starts_with("NVCC=") => s.push_str(
            "To fix: set `NVCC` to the path of an nvcc executable, or unset it so that nvcc is \
             looked for in the usual places (`CUDA_PATH`, `PATH`, `/usr/local/cuda`, the wheels \
             of `cuda-kernel-inspect toolkit install`)",
        ),
        [one] if one.starts_with("builder setting:") => s.push_str(
            "To fix: give `Build::nvcc` the path of an nvcc executable, or remove the call so \
             that nvcc is looked for in the usual places",
        ),
        _ => s.push_str(&format!(
            "To fix: install NVIDIA's nvcc 13.0 pip wheels into the per-user folder, where they \
             are found with no configuration:\n    {}\n\
             (the same as `cuda-kernel-inspect toolkit install`, which a checkout of this \
             project installs with `cargo install --locked --path kernel-inspect`; inside the \
             checkout `scripts/install-cuda-toolkit.sh` installs them into `.cuda-toolkit/`); \
             or install the CUDA toolkit and set `NVCC` or `CUDA_PATH`; to build without device \
             code set `KERNEL_BUILD_NO_DEVICE_CODE=1`",
            pip_install_command()
        )),
    }
    s
}

/// The pip command that installs the toolkit's wheels where discovery finds them on its own
/// (the per-user folder), for messages: it works wherever Python 3 with pip does.
pub fn pip_install_command() -> String {
    let wheels: Vec<String> = crate::wheels::WHEELS
        .iter()
        .map(|w| format!("'{w}=={}'", crate::wheels::WHEEL_VERSION))
        .collect();
    format!(
        "python3 -m pip install --target ~/.cache/kernel-build/cuda-toolkit {}",
        wheels.join(" ")
    )
}

/// A module built without device code (on purpose): its stubs exist, its kernels cannot be
/// launched. `why` says what asked for it.
pub fn no_device_code(module: &str, why: &str) -> String {
    format!(
        "module `{module}` was built without device code ({why}): its declarations were read \
         without nvcc and it embeds no fatbin, so loading it fails at run time; unset the \
         variable to build its kernels"
    )
}

/// A compile failed on a header that one of the toolkit installer's libraries provides.
pub fn library_header_missing(header: &str, library: &str) -> String {
    format!(
        "`{header}` is a header of NVIDIA's {library} library, which this toolkit does not \
         have; install it beside nvcc with `cuda-kernel-inspect toolkit install --with {library}` \
         (the tool installs from a checkout of this project with `cargo install --locked --path \
         kernel-inspect`; inside the checkout `scripts/install-cuda-toolkit.sh --with {library}` \
         does the same for `.cuda-toolkit/`), or use a CUDA toolkit that has it"
    )
}

/// `include_kernels!(name)` or `host_functions!(name {..})` for a module this crate's build
/// script does not build; `built` are the ones it builds, `leftover` says whether a file of
/// an earlier build is still there.
pub fn module_not_built(module: &str, built: &[String], leftover: bool) -> super::Diagnostic {
    let mut d = super::Diagnostic::error(format!(
        "no module `{module}` is built by this crate's build script"
    ));
    if leftover {
        d = d.note(format!(
            "`$OUT_DIR/kernel-build/{module}.rs` is left from an earlier build; build.rs no \
             longer builds `{module}`, and a clean build would not have it"
        ));
    }
    d.note(if built.is_empty() {
        format!(
            "build.rs builds no module; add `cuda_kernel_build::Build::new().file(\"kernels/{module}.cu\").compile(\"{module}\")` to it"
        )
    } else {
        let names: Vec<String> = built.iter().map(|b| format!("`{b}`")).collect();
        format!("it builds {}", names.join(", "))
    })
}

/// One finished nvcc run, as a build script prints it while a module builds (Cargo shows
/// these lines as they come with `cargo build -vv`).
pub fn compiled_progress(file: &str, targets: &[String], seconds: f64, ok: bool) -> String {
    let done = if ok { "compiled" } else { "failed to compile" };
    format!(
        "cuda-kernel-build: {done} `{file}` for {} in {seconds:.1} s",
        targets.join(", ")
    )
}

/// A cold build of the default target list that took long, with the faster way to develop.
pub fn slow_build(module: &str, seconds: f64, targets: &[String]) -> String {
    format!(
        "module `{module}` took {seconds:.0} s to build for {} targets ({}); while developing, \
         `KERNEL_BUILD_ARCHS=native` builds for the GPUs of this machine only (a warm build \
         runs no nvcc either way)",
        targets.len(),
        targets.join(", ")
    )
}

/// Prints a note that depends on the machine (how long a build took), never as a compiler
/// warning: a build script's `cargo:warning` (which no lint level turns into an error), a
/// plain line on standard error elsewhere (the macro, which Cargo shows as rustc's output).
/// A user's `-D warnings` build cannot fail on it however slow the machine.
pub fn emit_note(note: &str, reporting: crate::env::Reporting) {
    match reporting {
        crate::env::Reporting::Cargo => println!("cargo:warning={note}"),
        crate::env::Reporting::Silent => eprintln!("note: cuda-kernel-build: {note}"),
    }
}

/// A module built with device debug information (`-G`).
pub fn device_debug(module: &str, lto_as_rdc: bool) -> String {
    format!(
        "module `{module}` is a debug build of device code (-G, asked by `device_debug` or \
         `KERNEL_BUILD_DEVICE_DEBUG`): its kernels run unoptimised, often many times slower; \
         build without it to measure or ship{}",
        if lto_as_rdc {
            "; its files are device-linked as `rdc`, since a -G build cannot be link-time optimised"
        } else {
            ""
        }
    )
}

/// `KERNEL_BUILD_ARCHS=native` on a machine where the driver reports no GPU.
pub fn no_native_gpu(module: &str, why: &str) -> String {
    format!(
        "module `{module}`: `KERNEL_BUILD_ARCHS=native` found no GPU here ({why}); building \
         the default targets instead"
    )
}

/// The PTX text embedded with `file`'s line tables was kept because nvFatbin, which
/// assembles the images again without it, could not be loaded.
pub fn ptx_text_kept(file: &str, why: &str) -> String {
    format!(
        "`{file}`: the PTX text embedded with the line tables was kept (about half of a \
         compressed image) because nvFatbin could not be loaded: {why}; install it beside \
         nvcc (`cuda-kernel-inspect toolkit install`), or keep the text on purpose with \
         `ptx_text = true` (`KERNEL_BUILD_PTX_TEXT=1`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvcc_failure_on_a_file_quotes_its_output() {
        let m = nvcc_failed_on("`k.cu`", "exit status: 1", "k.cu(3): error: x\n", None);
        assert_eq!(
            m,
            "nvcc failed to compile `k.cu` (exit status: 1):\nk.cu(3): error: x"
        );
    }

    #[test]
    fn nvcc_failure_names_location_command_and_hint_first() {
        let m = nvcc_failed(Some("k.cu:3"), "exit status: 1", "nvcc k.cu", "boom", None);
        assert!(m.starts_with("nvcc failed at k.cu:3 (exit status: 1)\ncommand: nvcc k.cu"));
        // A known cause's fix comes first, before the command and nvcc's output.
        let m = nvcc_failed(
            None,
            "exit status: 1",
            "nvcc k.cu",
            "boom",
            Some("install x"),
        );
        assert!(m.starts_with("nvcc failed (exit status: 1)\nhint: install x\ncommand:"));
    }

    #[test]
    fn needs_rdc_ends_with_the_macro_option() {
        let m = needs_rdc("b.cu", "helper(float)", Door::Macro);
        assert!(m.ends_with("add `rdc = true;`"), "{m}");
    }

    #[test]
    fn needs_device_runtime_names_the_launch_site() {
        let m = needs_device_runtime("tree.cu:8", Door::Macro);
        assert!(
            m.starts_with("`tree.cu:8` launches a kernel from device code"),
            "{m}"
        );
    }

    #[test]
    fn unreadable_source_names_the_file_and_the_io_error() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let m = unreadable_source("kernels/k.cu", &io);
        assert!(m.starts_with("cannot read CUDA source `kernels/k.cu`: no such file"));
    }

    #[test]
    fn report_of_an_invalid_option_is_its_text() {
        let e = crate::Error::InvalidOption("bad".into());
        assert_eq!(report(&e), "bad");
    }

    #[test]
    fn device_link_failure_lists_the_linker_errors() {
        let m = device_link_failed("rdc", "sm_90", &["`f` undefined".into()], "");
        assert_eq!(m, "device link (rdc) for sm_90 failed\n  - `f` undefined");
    }

    #[test]
    fn nvcc_not_found_says_how_to_install_or_fix_nvcc() {
        let m = nvcc_not_found(&["CUDA_PATH: not set".into(), "PATH: no nvcc".into()]);
        assert!(m.contains("python3 -m pip install --target ~/.cache/kernel-build/cuda-toolkit"));
        assert!(m.contains("cargo install --locked --path kernel-inspect"));
        let m = nvcc_not_found(&["NVCC=`/bad/nvcc`: not an executable file".into()]);
        assert!(
            m.contains("To fix: set `NVCC` to the path of an nvcc executable, or unset it"),
            "{m}"
        );
    }

    #[test]
    fn pip_install_command_installs_the_13_0_wheels() {
        let c = pip_install_command();
        assert!(
            c.starts_with("python3 -m pip install --target ~/.cache/kernel-build/cuda-toolkit ")
        );
        assert!(c.contains("'nvidia-cuda-nvcc==13.0.*'"));
    }

    #[test]
    fn no_device_code_names_the_module_and_why() {
        let m = no_device_code("hist", "`DOCS_RS` is set");
        assert!(
            m.starts_with("module `hist` was built without device code (`DOCS_RS` is set)"),
            "{m}"
        );
    }

    #[test]
    fn library_header_missing_says_how_to_install_the_library() {
        let m = library_header_missing("curand_kernel.h", "curand");
        assert!(
            m.contains("cuda-kernel-inspect toolkit install --with curand"),
            "{m}"
        );
    }

    #[test]
    fn module_not_built_lists_the_modules_built() {
        let d = module_not_built("signl", &["signal".into(), "hosted".into()], false);
        assert!(
            d.message
                .starts_with("no module `signl` is built by this crate's build script")
        );
        assert!(d.notes[0].contains("`signal`, `hosted`"), "{:?}", d.notes);
    }

    #[test]
    fn compiled_progress_names_file_targets_and_seconds() {
        let m = compiled_progress(
            "kernels/k.cu",
            &["sm_80".into(), "sm_90".into()],
            3.25,
            true,
        );
        assert_eq!(
            m,
            "cuda-kernel-build: compiled `kernels/k.cu` for sm_80, sm_90 in 3.2 s"
        );
    }

    #[test]
    fn slow_build_counts_targets_and_suggests_native() {
        let m = slow_build(
            "myk",
            46.0,
            &["sm_75".into(), "sm_90".into(), "compute_120".into()],
        );
        assert!(
            m.starts_with("module `myk` took 46 s to build for 3 targets"),
            "{m}"
        );
        assert!(m.contains("KERNEL_BUILD_ARCHS=native"), "{m}");
    }

    #[test]
    fn a_debug_build_says_its_kernels_run_slowly() {
        let m = device_debug("dbg", false);
        assert!(m.starts_with("module `dbg` is a debug build"), "{m}");
        assert!(m.contains("many times slower") && !m.contains("rdc"), "{m}");
        assert!(device_debug("dbg", true).contains("device-linked as `rdc`"));
    }

    #[test]
    fn no_native_gpu_falls_back_to_the_default_targets() {
        let m = no_native_gpu("myk", "the NVIDIA driver sees no GPU");
        assert!(m.contains("building the default targets"), "{m}");
    }
}
