//! `cuda-kernel-inspect tune export`: the tuned choices of a tuning cache folder as one table,
//! printed or merged into the file a program embeds (`include_str!`, then
//! `cuda_kernel_runtime::tune::Table::new`), so that the deployed program times nothing.
//! `cuda-kernel-inspect tune variants`: the variants a module declares, from the
//! `<name>.kernels.json` its build script wrote: their names (what the cache, the table and
//! `KERNEL_TUNE_PIN` record), their kernels, and what the compiler left out where.
//!
//! ```text
//! $ cuda-kernel-inspect tune export --into src/tuned.tsv
//! 3 choices from ~/.cache/kernel-runtime/tune merged into src/tuned.tsv (5 rows)
//! $ cuda-kernel-inspect tune variants target/debug/build/app-*/out/sums.kernels.json
//! sums::block_sum: kernel block_sum, axes BLOCK, ITEMS; grid n.div_ceil(BLOCK * ITEMS), block BLOCK
//!   block128_items4    block_sum<128, 4>
//!   block128_items8    block_sum<128, 8>, left out of compute_80: static assertion failed ...
//! ```
//!
//! The folder is `--cache-dir`, else where the runtime puts it: `KERNEL_TUNE_CACHE_DIR`, else
//! `tune/` in `KERNEL_RUNTIME_CACHE_DIR`, `$XDG_CACHE_HOME/kernel-runtime` or
//! `~/.cache/kernel-runtime`. The rows' form is `cuda_kernel_objects::tuning`, which the
//! runtime reads.

use std::path::{Path, PathBuf};

use cuda_kernel_objects::tuning::{Choice, decode_entry, merge, parse_table, render_table};

/// The options of `cuda-kernel-inspect tune`.
#[derive(clap::Args)]
pub(crate) struct TuneArgs {
    #[command(subcommand)]
    command: TuneCommand,
}

#[derive(clap::Subcommand)]
enum TuneCommand {
    /// The choices of a tuning cache folder as a table: printed, or merged into a file (a row
    /// of the folder replaces the file's row for the same kernel, GPU model, module and key).
    Export(ExportArgs),
    /// The variants of a module's tuned kernels, from the `<name>.kernels.json` its build
    /// script wrote: names, kernels, and the targets each was left out of.
    Variants(VariantsArgs),
}

#[derive(clap::Args)]
struct VariantsArgs {
    /// The module's `<name>.kernels.json` (in the crate's `OUT_DIR`).
    #[arg(value_name = "FILE.kernels.json")]
    metadata: PathBuf,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// The tuning cache folder (default: the runtime's).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Merge into this table file (created if missing) instead of printing.
    #[arg(long, value_name = "FILE")]
    into: Option<PathBuf>,
    /// Only the choices of this kernel (repeatable).
    #[arg(long = "kernel", value_name = "NAME")]
    kernels: Vec<String>,
}

/// Runs the subcommand: the table or a summary, or why there is none.
pub(crate) fn run(args: &TuneArgs) -> Result<String, String> {
    match &args.command {
        TuneCommand::Export(e) => export(e),
        TuneCommand::Variants(v) => variants(&v.metadata),
    }
}

/// The tuned kernels of the module `path` describes, one line per variant.
fn variants(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let meta: cuda_kernel_build::Metadata = serde_json::from_str(&text)
        .map_err(|e| format!("`{}` is no module's metadata: {e}", path.display()))?;
    let tuned = &meta.module.tuned;
    if tuned.is_empty() {
        return Ok(format!(
            "module `{}` tunes no kernel over declared variants\n",
            meta.module.name
        ));
    }
    let texts = |rules: &[cuda_kernel_build::model::TunedRule]| -> String {
        let each: Vec<&str> = rules.iter().map(|r| r.text.as_str()).collect();
        match each.as_slice() {
            [one] => (*one).to_owned(),
            many => format!("({})", many.join(", ")),
        }
    };
    let mut out = String::new();
    for t in tuned {
        out.push_str(&format!(
            "{}: kernel {}, axes {}; grid {}, block {}{}\n",
            t.name,
            t.kernel,
            t.axes.join(", "),
            texts(&t.grid),
            texts(&t.block),
            t.shared
                .as_ref()
                .map(|r| format!(", shared {}", r.text))
                .unwrap_or_default()
        ));
        let width = t.variants.iter().map(|v| v.name.len()).max().unwrap_or(0);
        for v in &t.variants {
            let left: Vec<String> = v
                .left_out
                .iter()
                .map(|(arch, why)| format!("left out of {arch}: {why}"))
                .collect();
            let kernel = v.kernel.as_deref().unwrap_or("(in no image)");
            let mut line = format!("  {:<width$}  {kernel}", v.name);
            if !left.is_empty() {
                line.push_str(", ");
                line.push_str(&left.join("; "));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    Ok(out)
}

fn export(args: &ExportArgs) -> Result<String, String> {
    let dir = match &args.cache_dir {
        Some(d) => d.clone(),
        None => default_dir().ok_or(
            "no tuning cache folder: give --cache-dir, or set KERNEL_TUNE_CACHE_DIR or HOME",
        )?,
    };
    let (mut found, damaged) = read_folder(&dir)?;
    if !args.kernels.is_empty() {
        found.retain(|c| args.kernels.contains(&c.kernel));
    }
    let count = found.len();
    let note = match damaged {
        0 => String::new(),
        n => format!(" ({n} damaged entries skipped)"),
    };
    let Some(into) = &args.into else {
        if damaged > 0 {
            eprintln!("cuda-kernel-inspect: {damaged} damaged entries skipped");
        }
        return Ok(render_table(&merge(Vec::new(), found)));
    };
    let old = match std::fs::read_to_string(into) {
        Ok(text) => parse_table(&text).map_err(|e| format!("`{}`: {e}", into.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read `{}`: {e}", into.display())),
    };
    let table = merge(old, found);
    write_replacing(into, &render_table(&table))?;
    Ok(format!(
        "{count} choices from {} merged into {} ({} rows){note}\n",
        dir.display(),
        into.display(),
        table.len()
    ))
}

/// Every whole entry under `dir`, and how many files were damaged.
fn read_folder(dir: &Path) -> Result<(Vec<Choice>, usize), String> {
    let mut found = Vec::new();
    let mut damaged = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| format!("cannot read the tuning cache `{}`: {e}", d.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "entry") {
                match std::fs::read_to_string(&path)
                    .ok()
                    .as_deref()
                    .and_then(decode_entry)
                {
                    Some(c) => found.push(c),
                    None => damaged += 1,
                }
            }
        }
    }
    Ok((found, damaged))
}

/// Writes `text` beside `path` and renames it into place.
fn write_replacing(path: &Path, text: &str) -> Result<(), String> {
    let staged = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&staged, text)
        .and_then(|()| std::fs::rename(&staged, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&staged);
            format!("cannot write `{}`: {e}", path.display())
        })
}

/// The runtime's default folder (`cuda_kernel_runtime::tune`'s cache).
#[allow(
    clippy::disallowed_methods,
    reason = "the run-time variables that place the cache, read as the runtime reads them"
)]
fn default_dir() -> Option<PathBuf> {
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
    if let Some(d) = var("KERNEL_TUNE_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let runtime = if let Some(d) = var("KERNEL_RUNTIME_CACHE_DIR") {
        PathBuf::from(d)
    } else if let Some(x) = var("XDG_CACHE_HOME") {
        PathBuf::from(x).join("kernel-runtime")
    } else {
        PathBuf::from(var("HOME")?).join(".cache/kernel-runtime")
    };
    Some(runtime.join("tune"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuda_kernel_objects::tuning::encode_entry;

    fn choice(kernel: &str, key: &str, variant: &str) -> Choice {
        Choice {
            kernel: kernel.into(),
            gpu: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            driver: "13.0".into(),
            module: "0123456789abcdef".into(),
            key: key.into(),
            variant: variant.into(),
            nanos: 100,
        }
    }

    #[test]
    fn export_merges_a_folder_into_a_table_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let deep = cache.join("sum").join("abcd");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(
            deep.join("1.entry"),
            encode_entry(&choice("sum", "n=1", "b256")),
        )
        .unwrap();
        std::fs::write(
            deep.join("2.entry"),
            encode_entry(&choice("gemm", "m=1", "t64")),
        )
        .unwrap();
        std::fs::write(deep.join("3.entry"), "damaged").unwrap();
        let into = dir.path().join("tuned.tsv");
        std::fs::write(
            &into,
            render_table(&[choice("sum", "n=1", "b128"), choice("sum", "n=9", "b64")]),
        )
        .unwrap();
        let args = ExportArgs {
            cache_dir: Some(cache.clone()),
            into: Some(into.clone()),
            kernels: vec!["sum".into()],
        };
        let summary = export(&args).unwrap();
        assert!(
            summary.starts_with("1 choices") && summary.contains("(2 rows)"),
            "{summary}"
        );
        assert!(summary.contains("1 damaged"), "{summary}");
        let table = parse_table(&std::fs::read_to_string(&into).unwrap()).unwrap();
        let got: Vec<_> = table
            .iter()
            .map(|c| (c.key.as_str(), c.variant.as_str()))
            .collect();
        assert_eq!(got, [("n=1", "b256"), ("n=9", "b64")]);
        // Printed, every kernel.
        let printed = export(&ExportArgs {
            cache_dir: Some(cache),
            into: None,
            kernels: vec![],
        })
        .unwrap();
        assert_eq!(parse_table(&printed).unwrap().len(), 2);
    }

    #[test]
    fn variants_are_listed_from_a_modules_metadata() {
        let json = r#"{"format":1,"module":{"name":"sums","info":{"kernels":[],"structs":[],"globals":[],
            "preprocessed":true,"notes":[]},"fatbin_path":null,"targets":[],"toolkit_version":null,
            "tracked_files":[],"warnings":[],"tuned":[{"name":"sums::block_sum","kernel":"block_sum",
            "method":"block_sum","axes":["BLOCK"],"variants":[
              {"name":"block128","values":["128"],"ints":[128],"kernel":"block_sum<128>","left_out":[]},
              {"name":"block2048","values":["2048"],"ints":[2048],"kernel":null,
               "left_out":[["compute_90","too much shared data"]]}],
            "grid":[{"text":"n.div_ceil(BLOCK)","ops":[{"Arg":0},{"Axis":0},"DivCeil"]}],
            "block":[{"text":"BLOCK","ops":[{"Axis":0}]}],"shared":null,"ints":["n"]}]}}"#;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sums.kernels.json");
        std::fs::write(&path, json).unwrap();
        let out = variants(&path).unwrap();
        assert_eq!(
            out,
            "sums::block_sum: kernel block_sum, axes BLOCK; grid n.div_ceil(BLOCK), block BLOCK\n  \
             block128   block_sum<128>\n  \
             block2048  (in no image), left out of compute_90: too much shared data\n"
        );
        std::fs::write(&path, "{}").unwrap();
        assert!(
            variants(&path)
                .unwrap_err()
                .contains("no module's metadata")
        );
    }

    #[test]
    fn a_missing_folder_and_a_foreign_file_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = ExportArgs {
            cache_dir: Some(dir.path().join("none")),
            into: None,
            kernels: vec![],
        };
        assert!(
            export(&missing)
                .unwrap_err()
                .contains("cannot read the tuning cache")
        );
        let into = dir.path().join("notes.txt");
        std::fs::write(&into, "hello").unwrap();
        let foreign = ExportArgs {
            cache_dir: Some(dir.path().to_owned()),
            into: Some(into),
            kernels: vec![],
        };
        assert!(export(&foreign).unwrap_err().contains("line 1"));
    }
}
