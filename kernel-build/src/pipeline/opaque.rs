//! The second level of typing in the build: after verification, the types that the
//! untyped kernels' symbols name but the front end cannot lay out are measured by nvcc
//! (`compile::probe`) and those kernels are promoted to typed stubs with opaque
//! parameters (`front::opaque`). Runs only when there is something to measure, before
//! the result is cached, so a warm build runs no probe.

use super::request::Source;
use super::unit::Shared;
use crate::compile::probe::{Measurements, Probe};
use crate::model::ModuleInfo;
use crate::model::options::LinkMode;
use crate::verify::opaque;

/// Measures what `info`'s untyped kernels need, in `sources` in turn (the first file
/// whose text names a type measures it), and promotes the kernels it can.
pub(crate) fn type_opaque(shared: &Shared<'_>, sources: &[&Source], info: &mut ModuleInfo) {
    let mut wanted = opaque::wanted(info);
    if wanted.is_empty() {
        return;
    }
    let mut archs: Vec<String> = shared.targets.iter().map(|t| t.virtual_arch()).collect();
    archs.dedup();
    if archs.is_empty() {
        return;
    }
    let mut all = Measurements::default();
    for source in sources {
        let probe = Probe {
            nvcc: shared.toolkit.nvcc(),
            source: &source.path,
            includes: &source.includes,
            defines: &shared.req.defines,
            flags: shared.flags,
            archs: archs.clone(),
            rdc: shared.mode != LinkMode::Whole,
            debug: shared.debug,
        };
        let got = probe.measure(&wanted);
        wanted.retain(|w| !got.measured.iter().any(|m| &m.name == w));
        all.measured.extend(got.measured);
        all.failed = got.failed;
        if wanted.is_empty() {
            break;
        }
    }
    if shared.debug {
        eprintln!(
            "cuda-kernel-build: measured {} opaque type(s) with nvcc, {} not measured",
            all.measured.len(),
            all.failed.len()
        );
    }
    opaque::promote(info, &all.measured, &all.failed);
}
