//! What the subcommands share: a file to read as text or JSON (`FileArgs`), nvcc's `-D`
//! argument (`parse_define`) and the JSON a report prints (`to_json`).

use std::path::PathBuf;

/// One file to read, as text or JSON.
#[derive(clap::Args)]
pub(crate) struct FileArgs {
    /// The file to read.
    pub(crate) path: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

impl FileArgs {
    /// The whole file.
    pub(crate) fn read(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.path).map_err(|e| format!("cannot read `{}`: {e}", self.path.display()))
    }
}

/// A `-D` argument: `NAME` or `NAME=VALUE`, as nvcc takes it.
pub(crate) fn parse_define(d: &str) -> Result<(String, Option<String>), String> {
    Ok(match d.split_once('=') {
        Some((n, v)) => (n.to_string(), Some(v.to_string())),
        None => (d.to_string(), None),
    })
}

/// A report as pretty JSON, newline-terminated.
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}
