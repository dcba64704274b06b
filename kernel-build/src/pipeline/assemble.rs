//! Joining the files of a module: their models united and their device code joined,
//! either side by side (each file its own image, as nvcc's whole-program compiles are) or
//! device-linked per target with nvJitLink (`rdc`, `lto`) and assembled with nvFatbin,
//! then verified. The joined result is cached, keyed by the units' keys, so a build where
//! nothing changed runs neither nvcc nor the linker.

use super::cached::{self, Entry, Fresh, ObjectMeta, Staging};
use super::combine::{self, Part};
use super::job::UnitBuilt;
use super::request::Source;
use super::unit_inputs::Shared;
use crate::cache::{KeyHasher, hash_bytes};
use crate::diagnostics::Diagnostics;
use crate::env::Reporting;
use crate::error::Error;
use crate::link::{DeviceLink, UnitCode};
use crate::model::built::Unit;
use crate::model::options::LinkMode;
use crate::toolkit::Target;
use std::path::PathBuf;

/// The joined module of the files `built` (in the order of `sources`): from the cache, or
/// assembled and stored.
pub(super) fn joined(
    shared: &Shared<'_>,
    sources: &[Source],
    built: &[UnitBuilt],
    reporting: Reporting,
) -> Result<Entry, Error> {
    let key = assembly_key(shared, sources, built);
    match shared.cache.and_then(|c| cached::lookup_object(c, &key)) {
        Some(hit) => Ok(hit),
        None => {
            let fresh = assemble(shared, sources, built, reporting)?;
            cached::store(shared.cache, &key, None, fresh)
        }
    }
}

/// The key of the joined module: how it is joined and every unit's object.
fn assembly_key(shared: &Shared<'_>, sources: &[Source], built: &[UnitBuilt]) -> String {
    let mut k = KeyHasher::new("assembly");
    k.field(shared.mode.name().as_bytes());
    k.field(shared.toolkit.version().to_string().as_bytes());
    for t in shared.targets {
        k.field(t.to_string().as_bytes());
    }
    if shared.req.require_every_target {
        k.field(b"--require-every-target");
    }
    if shared.leave_out_ptx_text {
        k.field(b"--no-ptx-text");
    }
    for (s, b) in sources.iter().zip(built) {
        k.field(s.display_name.as_bytes()).field(b.key.as_bytes());
    }
    k.finish()
}

/// Unites the models, joins the device code, verifies a linked result.
fn assemble(
    shared: &Shared<'_>,
    sources: &[Source],
    built: &[UnitBuilt],
    reporting: Reporting,
) -> Result<Fresh, Error> {
    let parts: Vec<Part<'_>> = sources
        .iter()
        .zip(built)
        .map(|(s, b)| Part {
            file: &s.display_name,
            info: &b.entry.meta.info,
        })
        .collect();
    let whole = shared.mode == LinkMode::Whole;
    let (mut info, mut units) =
        combine::combine(&parts, shared.mode, whole).map_err(Error::Diagnostics)?;
    let fatbins: Vec<Vec<u8>> = built
        .iter()
        .map(|b| {
            let path = b.entry.dir.join("module.fatbin");
            std::fs::read(&path).map_err(|e| Error::io("failed to read", &path, e))
        })
        .collect::<Result<_, _>>()?;
    let mut warnings: Vec<String> = Vec::new();
    let bytes = if whole {
        side_by_side(&fatbins, &mut units)
    } else {
        let code: Vec<UnitCode<'_>> = sources
            .iter()
            .zip(&fatbins)
            .zip(built)
            .map(|((s, f), b)| UnitCode {
                name: &s.display_name,
                fatbin: f,
                groups: &b.entry.meta.groups,
            })
            .collect();
        let (linked, notes) = DeviceLink {
            nvcc: shared.toolkit.nvcc(),
            nvcc_version: (
                shared.toolkit.version().major,
                shared.toolkit.version().minor,
            ),
            mode: shared.mode,
            debug: shared.debug_info,
            targets: shared.targets,
            units: &code,
            flags: shared.flags,
            leave_out_ptx_text: shared.leave_out_ptx_text,
            reporting,
        }
        .run()?;
        let fatbin = cuda_kernel_objects::parse(&linked).map_err(|source| Error::Fatbin {
            path: PathBuf::from(format!("<{} linked by nvJitLink>", shared.req.name)),
            source,
        })?;
        let opts = crate::verify::VerifyOptions {
            require_every_target: shared.req.require_every_target,
            ..crate::verify::VerifyOptions::default()
        };
        crate::verify::verify_with(&mut info, &fatbin, &opts).map_err(Error::Diagnostics)?;
        let files: Vec<&Source> = sources.iter().collect();
        super::opaque::type_opaque(shared, &files, &mut info, None);
        crate::verify::layouts::untype(&mut info);
        warnings.extend(notes);
        linked
    };
    if info.kernels.is_empty() && info.untyped.is_empty() {
        let names: Vec<&str> = sources.iter().map(|s| s.display_name.as_str()).collect();
        return Err(Error::Diagnostics(Diagnostics::from(
            crate::diagnostics::front::no_kernels(&names.join(", ")),
        )));
    }
    let mut deps: Vec<PathBuf> = Vec::new();
    for b in built {
        for w in &b.entry.meta.warnings {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
        for d in &b.entry.meta.deps {
            if !deps.contains(d) {
                deps.push(d.clone());
            }
        }
    }
    let staging = Staging::new(shared.cache)?;
    let path = staging.path().join("module.fatbin");
    std::fs::write(&path, &bytes).map_err(|e| Error::io("failed to write", &path, e))?;
    Ok(Fresh {
        staging,
        fatbin_hash: hash_bytes(&bytes),
        meta: ObjectMeta {
            info,
            targets: shared.targets.iter().map(Target::to_string).collect(),
            toolkit_version: shared.toolkit.version().to_string(),
            fatbin_hash: String::new(),
            deps,
            warnings,
            units,
            groups: Vec::new(),
        },
    })
}

/// Whole-program files: their fatbins one after another (each 8-byte aligned, as the
/// driver wants), each file loaded as a module of its own at run time.
fn side_by_side(fatbins: &[Vec<u8>], units: &mut [Unit]) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, u) in fatbins.iter().zip(units.iter_mut()) {
        u.image = Some((out.len() as u64, f.len() as u64));
        out.extend_from_slice(f);
        out.resize(out.len().next_multiple_of(8), 0);
    }
    out
}
