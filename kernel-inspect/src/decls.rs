//! `cuda-kernel-inspect decls FILE.cu [--json] [-I DIR] [-D NAME[=VALUE]]`: what the
//! front end reads from a CUDA source.
//!
//! With nvcc, the file is preprocessed first and C++ kernels get their symbols from a
//! quick `sm_80` compile; without nvcc the raw text is read and the output says so.
//!
//! A kernel whose signature the front end cannot type (an unknown type, a closure) is listed
//! with the reason, as the build lists it: it is a warning, not an error, so the exit status
//! stays 0, as for `build`. Only a source that cannot be read ends with status 1.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_build::__private::{FrontInput, analyze, c_spelling, passing, preprocess};
use cuda_kernel_build::model::{GlobalSpace, Linkage, ModuleInfo, TemplateArg};
use serde::Serialize;

/// The options of `cuda-kernel-inspect decls`.
#[derive(clap::Args)]
pub(crate) struct DeclArgs {
    /// The CUDA source.
    #[arg(value_name = "FILE.cu")]
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// An include folder, as for nvcc.
    #[arg(short = 'I', value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// A definition, as for nvcc.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = crate::args::parse_define)]
    defines: Vec<(String, Option<String>)>,
}

#[derive(Serialize)]
struct Report {
    file: String,
    preprocessed: bool,
    notes: Vec<String>,
    kernels: Vec<KernelOut>,
    untyped: Vec<UntypedOut>,
    skipped: Vec<String>,
    structs: Vec<StructOut>,
    globals: Vec<GlobalOut>,
}

#[derive(Serialize)]
struct KernelOut {
    name: String,
    symbol: Option<String>,
    linkage: &'static str,
    line: Option<u32>,
    is_static: bool,
    template_args: Vec<String>,
    launch_bounds: Option<Vec<u32>>,
    cluster_dims: Option<[u32; 3]>,
    maxnreg: Option<u32>,
    params: Vec<ParamOut>,
}

/// A kernel the front end read but could not type.
#[derive(Serialize)]
struct UntypedOut {
    name: String,
    symbol: Option<String>,
    line: Option<u32>,
    why: String,
    param_names: Vec<Option<String>>,
}

#[derive(Serialize)]
struct ParamOut {
    name: Option<String>,
    c_type: String,
    written: String,
    rust_type: String,
    size: u64,
    align: u64,
    offset: u64,
    grid_constant: bool,
}

#[derive(Serialize)]
struct StructOut {
    name: String,
    size: u64,
    align: u64,
    line: Option<u32>,
    fields: Vec<FieldOut>,
}

#[derive(Serialize)]
struct FieldOut {
    name: String,
    c_type: String,
    offset: u64,
    size: u64,
    align: u64,
}

#[derive(Serialize)]
struct GlobalOut {
    name: String,
    symbol: String,
    space: &'static str,
    c_type: String,
    size: u64,
    line: Option<u32>,
}

/// Runs the subcommand.
pub(crate) fn run(a: &DeclArgs) -> Result<String, String> {
    let raw = std::fs::read_to_string(&a.file)
        .map_err(|e| format!("cannot read `{}`: {e}", a.file.display()))?;
    let display = a.file.display().to_string();
    let nvcc = cuda_kernel_build::__private::Toolkit::discover()
        .ok()
        .map(|t| t.nvcc().to_path_buf());
    let pre = match &nvcc {
        Some(nvcc) => Some(
            preprocess(nvcc, &a.file, &a.includes, &a.defines, &[]).map_err(|d| d.to_string())?,
        ),
        None => None,
    };
    let mut dirs = a.includes.clone();
    dirs.extend(a.file.parent().map(Path::to_path_buf));
    let input = FrontInput {
        display_name: &display,
        raw: &raw,
        preprocessed: pre.as_deref(),
        main_file: &a.file,
        user_dirs: &dirs,
        host_stub: None,
        headers: &[],
        tuned: &[],
    };
    let mut info = analyze(&input).map_err(|d| d.to_string())?;
    if let Some(nvcc) = &nvcc
        && info.kernels.iter().any(|k| k.linkage == Linkage::Cxx)
    {
        resolve_with_nvcc(nvcc, a, &mut info)?;
    }
    let report = build_report(&display, &info);
    if a.json {
        crate::args::to_json(&report)
    } else {
        Ok(text(&report))
    }
}

/// Compiles for sm_80 and fills the C++ symbols (and checks the layouts) from it.
fn resolve_with_nvcc(nvcc: &Path, a: &DeclArgs, info: &mut ModuleInfo) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = dir.path().join("decls.fatbin");
    let mut cmd = Command::new(nvcc);
    cmd.arg("-fatbin")
        .arg("-gencode=arch=compute_80,code=sm_80")
        .arg("-o")
        .arg(&out);
    for i in &a.includes {
        cmd.arg("-I").arg(i);
    }
    for (n, v) in &a.defines {
        cmd.arg(
            v.as_ref()
                .map_or_else(|| format!("-D{n}"), |v| format!("-D{n}={v}")),
        );
    }
    let status = cmd
        .arg(&a.file)
        .status()
        .map_err(|e| format!("cannot run nvcc: {e}"))?;
    if !status.success() {
        return Err(format!(
            "nvcc failed to compile `{}` ({status})",
            a.file.display()
        ));
    }
    let bytes = std::fs::read(&out).map_err(|e| e.to_string())?;
    let fatbin = cuda_kernel_objects::parse(&bytes).map_err(|e| e.to_string())?;
    cuda_kernel_build::__private::verify(info, &fatbin).map_err(|d| d.to_string())
}

fn build_report(display: &str, info: &ModuleInfo) -> Report {
    let kernels = info
        .kernels
        .iter()
        .map(|k| KernelOut {
            name: k.name.clone(),
            symbol: (!k.symbol.is_empty()).then(|| k.symbol.clone()),
            linkage: if k.linkage == Linkage::C { "C" } else { "C++" },
            line: k.loc.as_ref().map(|l| l.line),
            is_static: k.is_static,
            template_args: k
                .template_args
                .iter()
                .map(|a| match a {
                    TemplateArg::Type(t) => c_spelling(t),
                    TemplateArg::Value(v) => v.clone(),
                })
                .collect(),
            launch_bounds: k.attrs.launch_bounds.clone(),
            cluster_dims: k.attrs.cluster_dims,
            maxnreg: k.attrs.maxnreg,
            params: k
                .params
                .iter()
                .map(|p| ParamOut {
                    name: p.name.clone(),
                    c_type: c_spelling(&p.ty),
                    written: p.written.clone(),
                    rust_type: passing(&p.ty).to_string(),
                    size: p.layout.size,
                    align: p.layout.align,
                    offset: p.layout.offset,
                    grid_constant: p.grid_constant,
                })
                .collect(),
        })
        .collect();
    let untyped = info
        .untyped
        .iter()
        .map(|k| UntypedOut {
            name: k.name.clone(),
            symbol: (!k.symbol.is_empty()).then(|| k.symbol.clone()),
            line: k.loc.as_ref().map(|l| l.line),
            why: k.why.clone(),
            param_names: k.param_names.clone(),
        })
        .collect();
    let structs = info
        .structs
        .iter()
        .map(|s| StructOut {
            name: s.name.clone(),
            size: s.size,
            align: s.align,
            line: s.loc.as_ref().map(|l| l.line),
            fields: s
                .fields
                .iter()
                .map(|f| FieldOut {
                    name: f.name.clone(),
                    c_type: c_spelling(&f.ty),
                    offset: f.layout.offset,
                    size: f.layout.size,
                    align: f.layout.align,
                })
                .collect(),
        })
        .collect();
    let globals = info
        .globals
        .iter()
        .map(|g| GlobalOut {
            name: g.name.clone(),
            symbol: g.symbol.clone(),
            space: if g.space == GlobalSpace::Constant {
                "constant"
            } else {
                "device"
            },
            c_type: c_spelling(&g.ty),
            size: g.size,
            line: g.loc.as_ref().map(|l| l.line),
        })
        .collect();
    Report {
        file: display.to_string(),
        preprocessed: info.preprocessed,
        notes: info.notes.clone(),
        kernels,
        untyped,
        skipped: info.skipped.clone(),
        structs,
        globals,
    }
}

fn text(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let how = if r.preprocessed {
        "preprocessed by nvcc"
    } else {
        "read without nvcc"
    };
    let _ = writeln!(s, "{} ({how})", r.file);
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    for k in &r.kernels {
        let line = k.line.map_or_else(String::new, |l| format!(" line {l}"));
        let sym = k.symbol.as_deref().unwrap_or("(unresolved)");
        let _ = writeln!(s, "kernel {} [{}] symbol {sym}{line}", k.name, k.linkage);
        for p in &k.params {
            let _ = writeln!(
                s,
                "  {:<16} {:<28} {:<28} offset {:>4} size {:>4} align {:>2}",
                p.name.as_deref().unwrap_or("_"),
                p.c_type,
                p.rust_type,
                p.offset,
                p.size,
                p.align
            );
        }
    }
    for k in &r.untyped {
        let line = k.line.map_or_else(String::new, |l| format!(" line {l}"));
        let mut why = k.why.lines();
        let _ = writeln!(
            s,
            "kernel {} [untyped]{line}: {}",
            k.name,
            why.next().unwrap_or_default()
        );
        for more in why {
            let _ = writeln!(s, "  {more}");
        }
    }
    for skipped in &r.skipped {
        let mut lines = skipped.lines();
        let _ = writeln!(s, "skipped: {}", lines.next().unwrap_or_default());
        for more in lines {
            let _ = writeln!(s, "  {more}");
        }
    }
    for st in &r.structs {
        let _ = writeln!(s, "struct {} size {} align {}", st.name, st.size, st.align);
        for f in &st.fields {
            let _ = writeln!(
                s,
                "  {:<16} {:<28} offset {:>4} size {:>4} align {:>2}",
                f.name, f.c_type, f.offset, f.size, f.align
            );
        }
    }
    for g in &r.globals {
        let _ = writeln!(
            s,
            "global {} ({}) {} size {} symbol {}",
            g.name, g.space, g.c_type, g.size, g.symbol
        );
    }
    s
}
