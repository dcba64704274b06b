//! The second level of typing in the build: after verification, the types that the
//! untyped kernels' symbols name but the front end cannot lay out are read from the images
//! where nvcc laid them out (a type passed by value: its size in the images, its alignment
//! in the kept PTX), named without bytes where only template arguments name them, and
//! measured by a probe compile (`compile::probe`) for what is left (a type behind a
//! pointer); those kernels are promoted to typed stubs with opaque parameters
//! (`verify::opaque`). Runs only when there is something to measure, before the result is
//! cached, so a warm build runs nothing.

use super::request::Source;
use super::unit_inputs::Shared;
use crate::compile::probe::{Measurements, Probe};
use crate::model::ModuleInfo;
use crate::model::options::LinkMode;
use crate::verify::opaque;
use cuda_kernel_objects::KernelImage;

/// Why a type only library kernels point to has no size.
const CCCL_ONLY: &str = "only kernels of CUDA's own C++ libraries (CUB, Thrust, libcu++) point to it, and measuring it would take one more compile of the file";

/// Types what `info`'s untyped kernels need: from `ptx` (the `.entry` headers nvcc kept
/// for the unit; `None` for a device-linked module, whose units' are gone), then by a probe
/// in `sources` in turn (the first file whose text names a type measures it), and promotes
/// the kernels it can.
pub(crate) fn type_opaque(
    shared: &Shared<'_>,
    sources: &[&Source],
    info: &mut ModuleInfo,
    ptx: Option<&[KernelImage]>,
) {
    let wanted = opaque::wanted(info);
    if wanted.is_empty() {
        return;
    }
    let mut all = Measurements {
        measured: ptx
            .map(|ptx| opaque::measure_from_images(info, ptx))
            .unwrap_or_default(),
        failed: Vec::new(),
    };
    let from_images = all.measured.len();
    // Held by no parameter: named only. What only CUDA's own library kernels (CUB's,
    // Thrust's) point to is not worth another compile of the file: those kernels stay by
    // name only, with why. The rest is for the probe.
    let named: Vec<String> = wanted
        .iter()
        .filter(|w| !w.held)
        .map(|w| w.name.clone())
        .collect();
    let mut rest: Vec<String> = Vec::new();
    let mut unprobed: Vec<(String, String)> = Vec::new();
    for w in wanted {
        if !w.held || all.measured.iter().any(|m| m.name == w.name) {
            continue;
        }
        if w.outside_cccl {
            rest.push(w.name);
        } else {
            unprobed.push((w.name, CCCL_ONLY.to_owned()));
        }
    }
    let mut archs: Vec<String> = shared.targets.iter().map(|t| t.virtual_arch()).collect();
    archs.dedup();
    if !rest.is_empty() && !archs.is_empty() {
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
            let got = probe.measure(&rest);
            rest.retain(|w| !got.measured.iter().any(|m| &m.name == w));
            all.measured.extend(got.measured);
            all.failed = got.failed;
            if rest.is_empty() {
                break;
            }
        }
    }
    all.failed.extend(unprobed);
    if shared.debug {
        eprintln!(
            "cuda-kernel-build: opaque types: {from_images} read from the images, {} named only, {} measured with nvcc, {} not measured",
            named.len(),
            all.measured.len() - from_images,
            all.failed.len()
        );
    }
    opaque::promote(info, &all.measured, &named, &all.failed);
}
