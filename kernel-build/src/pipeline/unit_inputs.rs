//! What every translation unit of one module is given (`Shared`): the request, the toolkit,
//! the targets and flags, the build's choices (debug output, line tables, PTX text, the
//! cache, the link mode, splitting) and the nvFatbin the units share, with the flags the
//! nvcc runs take from them. It names no step of a unit's build: the steps (`job`,
//! `pending`, `layouts`, `opaque`, `constants`) all read it, and it reads none of them.

use crate::cache::Cache;
use crate::compile;
use crate::link::NvFatbin;
use crate::model::options::{DeviceDebug, LinkMode};
use crate::model::request::ModuleRequest;
use crate::toolkit::{Target, Toolkit};
use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

/// What every unit of one module shares.
pub(crate) struct Shared<'a> {
    pub req: &'a ModuleRequest,
    pub toolkit: &'a Toolkit,
    pub targets: &'a [Target],
    pub flags: &'a [String],
    pub debug: bool,
    /// What the device code records of its source (its flag is among `flags`; a device
    /// link asks nvJitLink to keep it).
    pub debug_info: DeviceDebug,
    /// Whether the PTX text embedded with the line tables is left out of every cubin
    /// before the images are joined ([`crate::link::ptx_text`]).
    pub leave_out_ptx_text: bool,
    /// Whether environment reads print `cargo:rerun-if-env-changed`.
    pub reporting: crate::env::Reporting,
    /// Print a line per finished nvcc run (a build script: Cargo shows them with `-vv`).
    pub progress: bool,
    /// The program nvcc's compilations run through, if any.
    pub wrapper: Option<&'a Path>,
    pub cache: Option<&'a Cache>,
    pub mode: LinkMode,
    /// The module's only file: its images are the module's, so it is verified here and
    /// must declare a kernel.
    pub alone: bool,
    /// The module's tuned kernels: the instantiations each unit adds.
    pub tuned: &'a super::tuned::Resolved,
    /// Whether the largest runs may be split over idle cores (`compile::split::allowed`).
    pub split: bool,
    /// nvFatbin with the module's compression, loaded by the first run whose image leaves
    /// the PTX text out (once for the build), or why it could not be.
    pub assembler: OnceLock<Result<NvFatbin, String>>,
}

impl Shared<'_> {
    /// nvFatbin for reassembling images without the PTX text (see `assembler`).
    pub(crate) fn assembler(&self) -> &Result<NvFatbin, String> {
        self.assembler.get_or_init(|| {
            NvFatbin::load(
                self.toolkit.nvcc(),
                "leaving the PTX text out",
                self.reporting,
            )
            .map(|lib| lib.with_nvcc_flags(self.flags))
            .map_err(|e| e.to_string())
        })
    }

    /// Whether the nvcc runs store their entries uncompressed for nvFatbin to compress:
    /// each run's image is reassembled without the PTX text (a whole program, the text left
    /// out, nvFatbin at hand) and every entry is to be compressed by the build's default
    /// (`--compress-mode=size`, no compression flag of the user's). nvcc compressing first
    /// would make every entry compressed twice, nvcc's Zstandard thrown away: at that level
    /// compression is the slowest step after the compiler itself.
    pub(crate) fn stores_plain(&self) -> bool {
        self.leave_out_ptx_text
            && self.mode == LinkMode::Whole
            && self
                .flags
                .iter()
                .any(|f| f == compile::compress::COMPRESS_FLAG)
            && self.assembler().is_ok()
    }

    /// The flags of the nvcc runs: the module's, with `--compress-mode=none` in place of the
    /// build's compression where nvFatbin compresses instead (`stores_plain`).
    pub(crate) fn nvcc_flags(&self) -> Cow<'_, [String]> {
        if !self.stores_plain() {
            return Cow::Borrowed(self.flags);
        }
        self.flags
            .iter()
            .map(|f| {
                if f == compile::compress::COMPRESS_FLAG {
                    "--compress-mode=none".to_owned()
                } else {
                    f.clone()
                }
            })
            .collect()
    }
}
