//! Device linking of a module's files: per target, the relocatable code (`rdc`) or LTO-IR
//! (`lto`) of every file is linked by nvJitLink into one image, and the images of all
//! targets are assembled by nvFatbin into the module's fatbin.

use super::nvfatbin::{FatbinPart, NvFatbin};
use super::nvjitlink::{InputKind, LinkInput, NvJitLink};
use super::symbols::{self, SymbolProblem};
use crate::env::Reporting;
use crate::error::Error;
use crate::model::options::{DeviceDebug, LinkMode};
use crate::toolkit::{Target, TargetKind};
use cuda_kernel_objects::EntryKind;
use std::path::Path;

impl LinkMode {
    /// What the libraries are needed for, in messages.
    pub(crate) fn purpose(self) -> &'static str {
        match self {
            LinkMode::Whole => "building",
            LinkMode::Rdc => "device linking (`rdc`)",
            LinkMode::Lto => "link-time optimisation (`lto`)",
        }
    }

    /// The `-gencode` values (and `-rdc=true`) one file is compiled with, split into one
    /// group per virtual architecture (one nvcc run each when files compile target by
    /// target): `(compute_XY, arguments)`.
    pub(crate) fn unit_groups(self, targets: &[Target]) -> Vec<(String, Vec<String>)> {
        let mut groups: Vec<(String, Vec<Target>)> = Vec::new();
        for t in targets {
            match groups.iter_mut().find(|(v, _)| *v == t.virtual_arch()) {
                Some((_, ts)) => ts.push(*t),
                None => groups.push((t.virtual_arch(), vec![*t])),
            }
        }
        groups
            .into_iter()
            .map(|(v, ts)| (v, self.unit_args(&ts)))
            .collect()
    }

    /// The `-gencode` values (and `-rdc=true`) one file is compiled with.
    pub(crate) fn unit_args(self, targets: &[Target]) -> Vec<String> {
        let mut codes: Vec<String> = Vec::new();
        let mut push = |c: String| {
            if !codes.contains(&c) {
                codes.push(c);
            }
        };
        for t in targets {
            let lto = format!("arch={},code=lto_{}", t.virtual_arch(), arch_name(t));
            match (self, t.kind) {
                (LinkMode::Whole, _) | (LinkMode::Rdc, TargetKind::Sass) => push(t.gencode()),
                // Linked PTX comes out of nvJitLink only from LTO-IR.
                (LinkMode::Rdc, TargetKind::Ptx) | (LinkMode::Lto, _) => push(lto),
            }
        }
        let mut args = Vec::new();
        if self != LinkMode::Whole {
            args.push("-rdc=true".to_owned());
        }
        for c in codes {
            args.push("-gencode".to_owned());
            args.push(c);
        }
        args
    }
}

/// `90a` for `sm_90a` and `compute_90a`.
fn arch_name(t: &Target) -> String {
    format!(
        "{}{}",
        t.number,
        t.suffix.map(String::from).unwrap_or_default()
    )
}

/// One file's compiled device code: its display name, the fatbins nvcc wrote for it (one
/// after another), and where each virtual architecture's container lies among them.
pub(crate) struct UnitCode<'a> {
    pub name: &'a str,
    pub fatbin: &'a [u8],
    /// `(compute_XY, offset, length)`; empty when `fatbin` is one container.
    pub groups: &'a [(String, u64, u64)],
}

impl UnitCode<'_> {
    /// The container that holds the code for `t` (each container holds one virtual
    /// architecture's images).
    fn code_for(&self, t: &Target) -> &[u8] {
        let arch = t.virtual_arch();
        self.groups
            .iter()
            .find(|(a, _, _)| *a == arch)
            .and_then(|&(_, off, len)| self.fatbin.get(off as usize..(off + len) as usize))
            .unwrap_or(self.fatbin)
    }
}

/// A device link of one module.
pub(crate) struct DeviceLink<'a> {
    pub nvcc: &'a Path,
    pub nvcc_version: (u32, u32),
    pub mode: LinkMode,
    /// What the linked code keeps of the objects' line tables or debug information.
    pub debug: DeviceDebug,
    pub targets: &'a [Target],
    pub units: &'a [UnitCode<'a>],
    /// The module's nvcc flags: the linked fatbin is compressed as they ask.
    pub flags: &'a [String],
    /// Leave the PTX text embedded with the line tables out of each linked cubin.
    pub leave_out_ptx_text: bool,
    pub reporting: Reporting,
}

impl DeviceLink<'_> {
    /// Links every target (concurrently) and assembles the fatbin; returns it with what
    /// the linker said (its info log per target, when not empty).
    pub(crate) fn run(&self) -> Result<(Vec<u8>, Vec<String>), Error> {
        let purpose = self.mode.purpose();
        let jit = NvJitLink::load(self.nvcc, self.nvcc_version, purpose, self.reporting)?;
        let fatbin =
            NvFatbin::load(self.nvcc, purpose, self.reporting)?.with_nvcc_flags(self.flags);
        if self.mode == LinkMode::Rdc {
            self.check_duplicates()?;
        }
        // Kernels launching kernels: the device runtime joins the SASS links.
        let devrt = if self.units.iter().any(|u| super::devrt::used_by(u.fatbin)) {
            Some(super::devrt::read(self.nvcc, self.reporting)?)
        } else {
            None
        };
        let devrt = devrt.as_deref();
        let images: Vec<Result<(Vec<u8>, String), Error>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .targets
                .iter()
                .map(|t| s.spawn(|| self.link_target(&jit, t, devrt)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let (images, logs): (Vec<Vec<u8>>, Vec<String>) = images
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let images: Vec<Vec<u8>> = if self.leave_out_ptx_text {
            images
                .into_iter()
                .zip(self.targets)
                .map(|(image, t)| match t.kind {
                    TargetKind::Sass => super::ptx_text::left_out(&image).unwrap_or(image),
                    TargetKind::Ptx => image,
                })
                .collect()
        } else {
            images
        };
        let names: Vec<String> = self.targets.iter().map(Target::to_string).collect();
        let parts: Vec<FatbinPart<'_>> = self
            .targets
            .iter()
            .zip(&images)
            .zip(&names)
            .map(|((t, image), name)| match t.kind {
                TargetKind::Sass => FatbinPart::Cubin {
                    arch: arch_name(t),
                    name,
                    bytes: image,
                },
                TargetKind::Ptx => FatbinPart::Ptx {
                    arch: arch_name(t),
                    name,
                    text: image,
                },
            })
            .collect();
        let notes = names
            .iter()
            .zip(logs)
            .filter(|(_, log)| !log.is_empty())
            .map(|(t, log)| format!("nvJitLink ({t}): {log}"))
            .collect();
        Ok((fatbin.assemble(&parts)?, notes))
    }

    fn link_target(
        &self,
        jit: &NvJitLink,
        t: &Target,
        devrt: Option<&[u8]>,
    ) -> Result<(Vec<u8>, String), Error> {
        let ptx = t.kind == TargetKind::Ptx;
        let mut options = vec![format!(
            "-arch={}",
            if ptx { t.virtual_arch() } else { t.to_string() }
        )];
        if self.mode == LinkMode::Lto || ptx {
            options.push("-lto".to_owned());
        }
        if ptx {
            options.push("-ptx".to_owned());
        }
        options.extend(self.debug.link_option().map(str::to_owned));
        let mut inputs: Vec<LinkInput<'_>> = self
            .units
            .iter()
            .map(|u| LinkInput {
                name: u.name,
                kind: InputKind::Fatbin,
                bytes: u.code_for(t),
            })
            .collect();
        // The device runtime holds SASS: the PTX target's calls stay external (a driver
        // that JIT-compiles it needs the runtime's `Linker` to add the library).
        if let Some(bytes) = devrt.filter(|_| !ptx) {
            inputs.push(LinkInput {
                name: "libcudadevrt.a",
                kind: InputKind::Library,
                bytes,
            });
        }
        match jit.link(&options, &inputs, ptx) {
            Ok(linked) => Ok((linked.image, linked.info_log)),
            Err(failure) => Err(Error::DeviceLink {
                mode: self.mode.name(),
                target: t.to_string(),
                problems: symbols::from_log(&failure.log)
                    .iter()
                    .map(SymbolProblem::describe)
                    .collect(),
                log: format!(
                    "nvJitLink {}.{} {}: {} failed (code {}):\n{}",
                    jit.version().0,
                    jit.version().1,
                    options.join(" "),
                    failure.call,
                    failure.code,
                    failure.log
                ),
            }),
        }
    }

    /// Strong definitions of one symbol in two files (nvJitLink prints these and goes on).
    fn check_duplicates(&self) -> Result<(), Error> {
        for t in self.targets.iter().filter(|t| t.kind == TargetKind::Sass) {
            let wanted = t.to_string();
            let mut objects: Vec<(&str, Vec<u8>)> = Vec::new();
            for u in self.units {
                let Ok(fatbin) = cuda_kernel_objects::parse(u.fatbin) else {
                    continue;
                };
                for e in fatbin.entries {
                    if e.kind == EntryKind::Elf && e.target() == wanted {
                        objects.push((u.name, e.payload));
                    }
                }
            }
            let views: Vec<(&str, &[u8])> =
                objects.iter().map(|(n, b)| (*n, b.as_slice())).collect();
            let problems = symbols::duplicates(&views);
            if !problems.is_empty() {
                return Err(Error::DeviceLink {
                    mode: self.mode.name(),
                    target: wanted,
                    problems: problems.iter().map(SymbolProblem::describe).collect(),
                    log: String::new(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(mode: LinkMode, targets: &str) -> String {
        let ts = crate::toolkit::parse_target_list(targets).unwrap();
        mode.unit_args(&ts).join(" ")
    }

    #[test]
    fn groups_per_virtual_architecture() {
        let ts = crate::toolkit::parse_target_list("sm_80,sm_120,compute_120").unwrap();
        let groups = LinkMode::Rdc.unit_groups(&ts);
        let shown: Vec<(String, String)> =
            groups.into_iter().map(|(v, a)| (v, a.join(" "))).collect();
        assert_eq!(
            shown,
            [
                (
                    "compute_80".to_owned(),
                    "-rdc=true -gencode arch=compute_80,code=sm_80".to_owned()
                ),
                (
                    "compute_120".to_owned(),
                    "-rdc=true -gencode arch=compute_120,code=sm_120 \
                     -gencode arch=compute_120,code=lto_120"
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn unit_arguments_per_mode() {
        assert_eq!(
            args(LinkMode::Whole, "sm_80,compute_90"),
            "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90"
        );
        assert_eq!(
            args(LinkMode::Rdc, "sm_80,sm_90,compute_90"),
            "-rdc=true -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=lto_90"
        );
        assert_eq!(
            args(LinkMode::Lto, "sm_80,sm_90a,sm_90,compute_90"),
            "-rdc=true -gencode arch=compute_80,code=lto_80 -gencode arch=compute_90a,code=lto_90a \
             -gencode arch=compute_90,code=lto_90"
        );
    }
}
