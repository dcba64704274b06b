//! `cuda-kernel-inspect build FILE.cu...`: runs the whole build pipeline outside Cargo
//! (discover nvcc, preprocess, parse, compile through the cache, verify every image)
//! and reports what it produced. Several files form one module, built the way
//! `Build::files` builds them.
//!
//! ```text
//! cuda-kernel-inspect build FILE.cu... [--arch TARGET]... [-I DIR]... [-D NAME[=VALUE]]...
//!                                 [--flag NVCC_FLAG]... [--cache-dir DIR | --no-cache]
//!                                 [--rdc | --lto] [-j N] [--name NAME]
//!                                 [--out FILE.fatbin] [--require-every-target] [--json]
//! ```

use cuda_kernel_build::__private::pipeline::{Context, ModuleRequest, SourceInput, build_module};
use cuda_kernel_build::LinkMode;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

/// What `cuda-kernel-inspect build --help` prints.
const HELP: &str = "\
usage: cuda-kernel-inspect build FILE.cu... [options]
builds and verifies a module outside Cargo (several files form one module) and reports its
kernels (typed, with opaque parameters, by name only), targets and warnings

  --arch TARGET           a target (sm_90, compute_120); repeat for several (default: the
                          toolkit's default list, or KERNEL_BUILD_ARCHS)
  -I DIR, -D NAME[=VALUE] include folders and definitions, as for nvcc
  --flag NVCC_FLAG        an extra nvcc flag; repeat for several
  --rdc | --lto           device-link the files (relocatable code, or link-time optimisation)
  --name NAME             the module's name (default: the first file's stem)
  --out FILE.fatbin       where to copy the fatbin
  --cache-dir DIR         the build cache (default: the per-user one), or --no-cache
  -j N                    at most N nvcc runs at once
  --require-every-target  a kernel missing from an image is an error
  --json                  the built module as JSON (model, fatbin path, warnings)
";

/// Runs the subcommand: the report to print, or the message of what failed.
pub fn run(args: &[OsString]) -> Result<String, String> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut link = LinkMode::Whole;
    let mut name = None;
    let mut archs = Vec::new();
    let mut req_includes = Vec::new();
    let mut defines = Vec::new();
    let mut flags = Vec::new();
    let mut cx = Context::default();
    let mut out = None;
    let mut json = false;
    let mut every_target = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--arch" => archs.push(value("--arch")?),
            "-I" => req_includes.push(PathBuf::from(value("-I")?)),
            "-D" => defines.push(split_define(&value("-D")?)),
            "--flag" => flags.push(value("--flag")?),
            "--cache-dir" => cx.cache_dir = Some(PathBuf::from(value("--cache-dir")?)),
            "--no-cache" => cx.use_cache = false,
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--json" => json = true,
            "--require-every-target" => every_target = true,
            "--rdc" => link = LinkMode::Rdc,
            "--lto" => link = LinkMode::Lto,
            "--name" => name = Some(value("--name")?),
            "-h" | "--help" => return Ok(HELP.to_owned()),
            "-j" | "--jobs" => {
                let n = value("-j")?;
                cx.jobs = Some(
                    n.parse()
                        .map_err(|_| format!("-j needs a number, not `{n}`"))?,
                );
            }
            s if s.starts_with("-I") => req_includes.push(PathBuf::from(&s[2..])),
            s if s.starts_with("-D") => defines.push(split_define(&s[2..])),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            s => files.push(PathBuf::from(s)),
        }
    }
    let first = files
        .first()
        .ok_or("usage: cuda-kernel-inspect build FILE.cu... [options]")?;
    let name = name.unwrap_or_else(|| {
        first
            .file_stem()
            .map(|s| {
                s.to_string_lossy()
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
            })
            .unwrap_or_else(|| "module".into())
    });
    let source = match files.len() {
        1 => SourceInput::File {
            path: files.remove(0),
        },
        _ => SourceInput::Files { paths: files },
    };
    let mut req = ModuleRequest::new(name, source);
    req.link = link;
    req.base_dir = std::env::current_dir().map_err(|e| e.to_string())?;
    req.archs = (!archs.is_empty()).then_some(archs);
    req.includes = req_includes;
    req.defines = defines;
    req.flags = flags;
    req.require_every_target = every_target;
    let start = std::time::Instant::now();
    let built = build_module(&req, &cx).map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    if let (Some(dest), Some(src)) = (&out, &built.fatbin_path) {
        std::fs::copy(src, dest).map_err(|e| format!("cannot write `{}`: {e}", dest.display()))?;
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
        let _ = writeln!(text, "fatbin: {}", out.as_ref().unwrap_or(p).display());
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

fn split_define(s: &str) -> (String, Option<String>) {
    match s.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (s.to_string(), None),
    }
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
