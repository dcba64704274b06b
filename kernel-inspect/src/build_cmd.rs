//! `cuda-kernel-inspect build FILE.cu...`: runs the whole build pipeline outside Cargo
//! (discover nvcc, preprocess, parse, compile through the cache, verify every image)
//! and reports what it produced. Several files form one module, built the way
//! `Build::files` builds them.
//!
//! ```text
//! cuda-kernel-inspect build FILE.cu... [--arch TARGET]... [-I DIR]... [-D NAME[=VALUE]]...
//!                                 [--flag NVCC_FLAG]... [--cache-dir DIR | --no-cache]
//!                                 [--rdc | --lto] [-j N] [--name NAME]
//!                                 [--out FILE.fatbin | --out DIR] [--require-every-target]
//!                                 [--no-line-info | --device-debug] [--editor-dir DIR]
//!                                 [-v] [--json]
//! ```
//!
//! The module is named after its first file unless `--name` says otherwise: its stem made an
//! identifier (`2d-stencil.cu`: `_2d_stencil`). A name given with `--name` must be one the
//! build accepts for a module (a Rust identifier). It heads the report and names the fatbin
//! written into a folder given to `--out`.

use cuda_kernel_build::__private::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::LinkMode;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The options of `cuda-kernel-inspect build`.
#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    /// The CUDA files of the module.
    #[arg(required = true, value_name = "FILE.cu")]
    files: Vec<PathBuf>,
    /// A target (sm_90, compute_120); repeat for several (default: the toolkit's default
    /// list, or KERNEL_BUILD_ARCHS).
    #[arg(long = "arch", value_name = "TARGET")]
    archs: Vec<String>,
    /// An include folder, as for nvcc.
    #[arg(short = 'I', value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// A definition, as for nvcc.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = crate::args::parse_define)]
    defines: Vec<(String, Option<String>)>,
    /// An extra nvcc flag; repeat for several.
    #[arg(long = "flag", value_name = "NVCC_FLAG", allow_hyphen_values = true)]
    flags: Vec<String>,
    /// Device-link the files (relocatable device code).
    #[arg(long, conflicts_with = "lto")]
    rdc: bool,
    /// Device-link the files with link-time optimisation.
    #[arg(long)]
    lto: bool,
    /// The module's name, a Rust identifier as the build requires (default: the first
    /// file's stem).
    #[arg(long)]
    name: Option<String>,
    /// Where to copy the fatbin: a file, or an existing folder to write NAME.fatbin into.
    #[arg(long, value_name = "FILE.fatbin|DIR")]
    out: Option<PathBuf>,
    /// The build cache (default: the per-user one).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache_dir: Option<PathBuf>,
    /// Neither read nor write the build cache.
    #[arg(long)]
    no_cache: bool,
    /// At most N nvcc runs at once.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// A kernel missing from an image is an error.
    #[arg(long)]
    require_every_target: bool,
    /// Kernels without line tables (by default they carry them, as nvcc's `-lineinfo`).
    #[arg(long, conflicts_with = "device_debug")]
    no_line_info: bool,
    /// A debug build of the device code (nvcc's `-G`): kernels run many times slower.
    #[arg(long)]
    device_debug: bool,
    /// Fatbin entries stored as nvcc stores them by default (SASS as is) instead of every
    /// entry compressed.
    #[arg(long)]
    no_compress: bool,
    /// Cubins with line tables keep the PTX text ptxas embeds with them (left out by
    /// default).
    #[arg(long)]
    ptx_text: bool,
    /// Print a line on stderr per finished nvcc run (the targets it built and how long it
    /// took), as a build script does under `cargo build -vv`.
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count)]
    verbose: u8,
    /// Also write the files for editors into DIR: `compile_commands.json` (the nvcc command
    /// of every file compiled) and the headers written from shared Rust types.
    #[arg(long, value_name = "DIR")]
    editor_dir: Option<PathBuf>,
    /// The built module as JSON (model, fatbin path, warnings).
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand: the report to print, or the message of what failed.
pub(crate) fn run(args: &BuildArgs) -> Result<String, String> {
    let mut files = args.files.clone();
    let name = module_name(args.name.as_deref(), &files[0])?;
    let source = match files.len() {
        1 => SourceInput::File {
            path: files.remove(0),
        },
        _ => SourceInput::Files { paths: files },
    };
    let mut req = ModuleRequest::new(name, source);
    req.link = match (args.rdc, args.lto) {
        (_, true) => LinkMode::Lto,
        (true, _) => LinkMode::Rdc,
        _ => LinkMode::Whole,
    };
    req.base_dir = std::env::current_dir().map_err(|e| e.to_string())?;
    req.archs = (!args.archs.is_empty()).then(|| args.archs.clone());
    req.includes = args.includes.clone();
    req.defines = args.defines.clone();
    req.flags = args.flags.clone();
    let cx = Context {
        cache_dir: args.cache_dir.clone(),
        use_cache: !args.no_cache,
        jobs: args.jobs,
        progress: args.verbose > 0,
        editor_dir: args.editor_dir.clone(),
        ..Context::default()
    };
    let (out, json, every_target) = (&args.out, args.json, args.require_every_target);
    req.require_every_target = every_target;
    req.line_info = args.no_line_info.then_some(false);
    req.device_debug = args.device_debug.then_some(true);
    req.compress = args.no_compress.then_some(false);
    req.ptx_text = args.ptx_text.then_some(true);
    let start = std::time::Instant::now();
    let mut built = build_module(&req, &cx).map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    if let (Some(out), Some(src)) = (out, built.fatbin_path.clone()) {
        let dest = if out.is_dir() {
            out.join(format!("{}.fatbin", built.name))
        } else {
            out.clone()
        };
        std::fs::copy(&src, &dest)
            .map_err(|e| format!("cannot write `{}`: {e}", dest.display()))?;
        built.fatbin_path = Some(dest);
    }
    if json {
        return serde_json::to_string_pretty(&built)
            .map(|t| t + "\n")
            .map_err(|e| e.to_string());
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "module `{}`: {} kernels ({} typed{}, {} by name only), targets {}, nvcc {}, {:.1} ms",
        built.name,
        built.info.kernels.len() + built.info.untyped.len(),
        built.info.kernels.len(),
        match built
            .info
            .kernels
            .iter()
            .filter(|k| !opaque_params(&built.info, k).is_empty())
            .count()
        {
            0 => String::new(),
            n => format!(", {n} with opaque parameters"),
        },
        built.info.untyped.len(),
        built.targets.join(" "),
        built.toolkit_version.as_deref().unwrap_or("-"),
        elapsed.as_secs_f64() * 1e3
    );
    for k in &built.info.kernels {
        let regs: Vec<String> = k
            .images
            .iter()
            .filter_map(|i| i.registers.map(|r| format!("{}:{r}", i.target)))
            .collect();
        let from = built
            .units
            .iter()
            .find(|u| u.kernels.contains(&k.symbol))
            .map(|u| format!(" from {}", u.file))
            .unwrap_or_default();
        let opaque = opaque_params(&built.info, k);
        let opaque = if opaque.is_empty() {
            String::new()
        } else {
            format!(" opaque: {}", opaque.join(", "))
        };
        let _ = writeln!(
            text,
            "  {} ({} params) registers {}{from}{opaque}",
            k.name,
            k.params.len(),
            regs.join(" ")
        );
    }
    for k in &built.info.untyped {
        let _ = writeln!(
            text,
            "  {} ({} params) by name only: {}",
            k.name,
            k.params.len(),
            k.why.lines().next().unwrap_or_default()
        );
    }
    if let Some(p) = &built.fatbin_path {
        let _ = writeln!(text, "fatbin: {}", p.display());
    }
    for p in &built.editor_files {
        let _ = writeln!(text, "for editors: {}", p.display());
    }
    for w in &built.warnings {
        let _ = writeln!(text, "warning: {w}");
    }
    if !built.info.skipped.is_empty() {
        let _ = writeln!(
            text,
            "skipped {} declaration(s) outside kernel signatures:",
            built.info.skipped.len()
        );
        for s in &built.info.skipped {
            let first = s.lines().next().unwrap_or_default();
            let _ = writeln!(text, "  {first}");
        }
    }
    Ok(text)
}

/// The module's name: `--name`, else the first file's stem with every character that cannot
/// be in an identifier made `_`, and `_` before a leading digit (`48_gemm` → `_48_gemm`);
/// either must pass the build's own check of module names.
fn module_name(given: Option<&str>, first: &Path) -> Result<String, String> {
    let mut req = ModuleRequest::new(
        "module",
        SourceInput::Inline {
            text: String::new(),
        },
    );
    if let Some(name) = given {
        req.set_name(name)?;
        return Ok(req.name);
    }
    let stem = first
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        })
        .unwrap_or_default();
    let stem = if stem.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{stem}")
    } else {
        stem
    };
    req.set_name(&stem).map_err(|problem| {
        format!(
            "{problem}; it comes from `{}`, so name the module with `--name NAME`",
            first.display()
        )
    })?;
    Ok(req.name)
}

/// The parameters of `k` whose type is (or points to) an opaque struct, as `name: Type`.
fn opaque_params(
    info: &cuda_kernel_build::model::ModuleInfo,
    k: &cuda_kernel_build::model::Kernel,
) -> Vec<String> {
    k.params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let n = p.ty.struct_name()?;
            info.structs.iter().find(|s| s.name == n && s.opaque)?;
            let pname = p.name.clone().unwrap_or_else(|| format!("#{i}"));
            Some(format!("{pname}: {}", p.written))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::module_name;
    use std::path::Path;

    #[test]
    fn the_module_is_named_as_the_build_names_modules() {
        let first = Path::new("kernels/saxpy-f32.cu");
        assert_eq!(module_name(None, first).unwrap(), "saxpy_f32");
        assert_eq!(module_name(Some("vec_ops"), first).unwrap(), "vec_ops");
        // The build's own check: a name that is not a Rust identifier is refused, given or not.
        for bad in ["my-mod", "2d", "", "a b"] {
            let err = module_name(Some(bad), first).unwrap_err();
            assert!(err.contains("is not a Rust identifier"), "{bad}: {err}");
        }
        // A stem that is no identifier is made one.
        assert_eq!(
            module_name(None, Path::new("48_hopper-gemm.cu")).unwrap(),
            "_48_hopper_gemm"
        );
        // No stem at all: the error says where it came from and what to do.
        let err = module_name(None, Path::new("/")).unwrap_err();
        assert!(err.contains("--name NAME"), "{err}");
    }
}
