//! A file that must be compiled: its staging folder and its nvcc runs (one, or one per
//! virtual architecture), and how the runs' images become the file's fatbin.

use super::cached::{self, Entry};
use super::job::{Job, Measured, UnitBuilt};
use super::layouts;
use super::request::Source;
use super::tuned::Section;
use super::unit_inputs::Shared;
use crate::compile;
use crate::compile::layouts::{Plan, Refused};
use crate::diagnostics::Diagnostics;
use crate::error::Error;
use crate::front;
use crate::link::{FatbinPart, NvFatbin, ptx_text};
use crate::model::options::LinkMode;
use crate::toolkit::Target;
use cuda_kernel_objects::EntryKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// A unit that must be compiled: its staging folder and its nvcc runs.
pub(crate) struct Pending<'a> {
    job: Job<'a>,
    direct_key: String,
    /// The staging folder's path, and the folder itself until `finish` stores it.
    dir: PathBuf,
    staging: std::sync::Mutex<Option<cached::Staging>>,
    /// One nvcc run per entry: `(virtual arch or "all", nvcc arguments for the targets)`.
    groups: Vec<(String, Vec<String>)>,
    started: Instant,
    /// The file's estimated work (`super::estimate`): its tokens, macros expanded.
    estimate: u64,
    /// The layout table the compile measures, and the wrapper that compiles it after the
    /// user's file (`None`: nothing to measure, the file is compiled as it is).
    plan: Plan,
    wrapper: Option<PathBuf>,
    /// Items of the table nvcc refused (in any run), with its reason; and the wrappers
    /// written without them.
    rejected: std::sync::Mutex<(Refused, Vec<PathBuf>)>,
    /// The tuned kernels' instantiations this file adds, with what nvcc refused for which
    /// target, shared by the groups' runs.
    tuned: std::sync::Mutex<(Section, Vec<Refusal>)>,
    /// Why the PTX text was kept where it was (nvFatbin could not be loaded).
    kept_text: Mutex<Option<String>>,
}

/// A variant nvcc refused for a target: the instance, the virtual architecture, its words.
type Refusal = (usize, String, String);

impl<'a> Pending<'a> {
    /// A unit to compile in one nvcc run, or (`per_arch`) one run per virtual architecture
    /// whose images are joined into one container (a whole program) or kept side by side
    /// (for a device link).
    pub(crate) fn new(
        shared: &'a Shared<'a>,
        source: &'a Source,
        direct_key: String,
        per_arch: bool,
    ) -> Result<Pending<'a>, Error> {
        let groups = if per_arch {
            shared.mode.unit_groups(shared.targets)
        } else {
            vec![("all".to_owned(), shared.mode.unit_args(shared.targets))]
        };
        let staging = cached::Staging::new(shared.cache)?;
        let headers = layouts::headers_of(source);
        let estimate = super::estimate::tokens(&source.text, &headers);
        let plan = layouts::plan_for(shared, source, &headers);
        let section = shared.tuned.section(source);
        let wrapper = if plan.is_empty() && section.is_empty() {
            None
        } else {
            Some(layouts::write_wrapper(
                staging.path(),
                "",
                source,
                &plan,
                &[],
                &section.text(),
            )?)
        };
        Ok(Pending {
            job: Job { shared, source },
            direct_key,
            dir: staging.path().to_path_buf(),
            staging: std::sync::Mutex::new(Some(staging)),
            groups,
            started: Instant::now(),
            estimate,
            plan,
            wrapper,
            rejected: std::sync::Mutex::new((Vec::new(), Vec::new())),
            tuned: std::sync::Mutex::new((section, Vec::new())),
            kept_text: Mutex::new(None),
        })
    }

    /// How many nvcc runs this unit takes.
    pub(crate) fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The file's estimated work: its tokens, each macro use counted as its expansion (a
    /// rough measure of how long it compiles).
    pub(crate) fn estimate(&self) -> u64 {
        self.estimate
    }

    /// The file's name in messages.
    pub(crate) fn display_name(&self) -> &str {
        &self.job.source.display_name
    }

    /// Group `g`'s virtual architecture (`all` for a single run).
    pub(crate) fn group_name(&self, g: usize) -> &str {
        &self.groups[g].0
    }

    /// How many images group `g` makes (each a pass of nvcc's back end).
    pub(crate) fn group_weight(&self, g: usize) -> usize {
        self.groups[g]
            .1
            .iter()
            .filter(|a| a.starts_with("arch="))
            .count()
            .max(1)
    }

    /// The source's host-side preprocessing (for the object key).
    pub(crate) fn preprocess(&self) -> Result<String, Diagnostics> {
        let s = self.job.shared;
        front::preprocess(
            s.toolkit.nvcc(),
            &self.job.source.path,
            &self.job.source.includes,
            &s.req.defines,
            s.flags,
        )
    }

    /// Runs nvcc for group `g` with `threads` threads.
    pub(crate) fn run_group(
        &self,
        g: usize,
        threads: compile::Threads,
    ) -> Result<compile::Ran, Error> {
        let (name, args) = &self.groups[g];
        let one = self.groups.len() == 1;
        let output = if one {
            self.dir.join("module.fatbin")
        } else {
            self.dir.join(format!("{name}.fatbin"))
        };
        let keep = self.dir.join("keep").join(if one { "" } else { name });
        std::fs::create_dir_all(&keep)
            .map_err(|e| Error::io("failed to create the build folder", &keep, e))?;
        let started = Instant::now();
        let flags = self.job.shared.nvcc_flags();
        let input = self.wrapper.as_deref().unwrap_or(&self.job.source.path);
        let run = Run {
            args,
            threads,
            flags: &flags,
            output: &output,
            keep: &keep,
        };
        let mut ran = self
            .job
            .run_nvcc(input, args.clone(), threads, &flags, &output, &keep);
        // Tuned variants nvcc refuses: each is left out of the targets that refuse it (found
        // by compiling for each virtual architecture alone), and the group runs again.
        if let Err(Error::NvccFailed { output: text, .. }) = &ran
            && !self.tuned_text(|s| s.blamed(text).is_empty())
        {
            let archs = if one {
                self.job.shared.mode.unit_groups(self.job.shared.targets)
            } else {
                vec![(name.clone(), args.clone())]
            };
            for (arch, arch_args) in archs {
                self.settle_variants(&arch, arch_args, threads)?;
            }
            let sub = format!("tuned-{name}");
            ran = self.run_again(&sub, &[], &run)?;
        }
        // A type of the table nvcc refuses: compiled once more without it, and it stays
        // unmeasured with nvcc's reason; where the table still fails (nvcc stops after a
        // number of errors), once more without any of it.
        let mut left_out: Vec<usize> = Vec::new();
        let mut refused_all: Vec<(usize, String)> = Vec::new();
        for attempt in 0..2 {
            let Err(Error::NvccFailed { output: text, .. }) = &ran else {
                break;
            };
            let refused = self.plan.rejected(text);
            if self.wrapper.is_none() || refused.is_empty() {
                break;
            }
            if attempt == 0 {
                left_out.extend(refused.iter().map(|(i, _)| *i));
                refused_all.extend(refused);
            } else {
                let why = refused[0].1.clone();
                for i in 0..self.plan.items.len() {
                    if !left_out.contains(&i) {
                        left_out.push(i);
                        refused_all.push((i, why.clone()));
                    }
                }
            }
            let sub = format!("{}{attempt}", if name == "all" { "again" } else { name });
            ran = self.run_again(&sub, &left_out, &run)?;
        }
        if let Ok(mut r) = self.rejected.lock() {
            for one in refused_all {
                if !r.0.iter().any(|(i, _)| *i == one.0) {
                    r.0.push(one);
                }
            }
        }
        if ran.is_ok() {
            self.leave_out_ptx_text(&output)?;
        }
        if self.job.shared.progress {
            // The targets this run built, as the module names them (`sm_75` SASS,
            // `compute_90` PTX), not the group's virtual architecture.
            let targets: Vec<String> = self
                .job
                .shared
                .targets
                .iter()
                .filter(|t| one || t.virtual_arch() == *name)
                .map(ToString::to_string)
                .collect();
            eprintln!(
                "{}",
                crate::diagnostics::build::compiled_progress(
                    &self.job.source.display_name,
                    &targets,
                    started.elapsed().as_secs_f64(),
                    ran.is_ok()
                )
            );
        }
        ran
    }

    /// Reads the device views, parses them, puts the images together, verifies (a whole
    /// program), and stores the unit. `compiled` is in group order. The object key hashes
    /// the device views (every header the device code sees) and the file's own text (its
    /// comments and host-only code, which the views lack); the dependencies are the files
    /// the views' line markers name. Only where nvcc kept no views (a wrapper that drops
    /// `--keep`) is the file preprocessed again, for both.
    pub(crate) fn finish(
        &self,
        compiled: Vec<Result<compile::Ran, Error>>,
    ) -> Result<UnitBuilt, Error> {
        let (job, direct_key, groups, started) =
            (&self.job, &self.direct_key, &self.groups, self.started);
        let staging = self
            .staging
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .ok_or_else(|| Error::InvalidOption("a unit was finished twice".into()))?;
        let s = job.shared;
        let finishing = Instant::now();
        let (rejected, mut wrappers) = self.rejected.lock().map(|r| r.clone()).unwrap_or_default();
        wrappers.extend(self.wrapper.clone());
        let (mut views, ptx) = if groups.len() == 1 {
            let mut archs: Vec<String> = s.targets.iter().map(Target::virtual_arch).collect();
            archs.sort();
            archs.dedup();
            staging.take_kept(&[("", &archs)])
        } else {
            let runs: Vec<(&str, &[String])> = groups
                .iter()
                .map(|(arch, _)| (arch.as_str(), std::slice::from_ref(arch)))
                .collect();
            staging.take_kept(&runs)
        };
        for v in &mut views {
            for w in &wrappers {
                v.text = layouts::unwrapped(&v.text, w);
            }
            v.included
                .retain(|d| !layouts::is_wrapper_file(d, &wrappers));
        }
        // nvcc's own errors come first: they are the authority on what is valid CUDA.
        let mut ran = compile::Ran::default();
        let mut runs = Vec::with_capacity(compiled.len());
        for (g, r) in compiled.into_iter().enumerate() {
            let archs = match groups.get(g) {
                Some((arch, _)) if groups.len() > 1 => vec![arch.clone()],
                _ => {
                    let mut all: Vec<String> = s.targets.iter().map(Target::virtual_arch).collect();
                    all.sort();
                    all.dedup();
                    all
                }
            };
            runs.push((archs, r?.warnings));
        }
        ran.warnings = compile::messages::collapse_warnings(runs);
        let preprocessed = if views.is_empty() {
            self.preprocess().map_err(Error::Diagnostics)?
        } else {
            String::new()
        };
        let (object_key, mut deps) = if views.is_empty() {
            (
                job.object_key(&preprocessed),
                front::included_files(preprocessed.as_bytes()),
            )
        } else {
            let mut text = String::new();
            let mut deps: Vec<PathBuf> = Vec::new();
            for v in &views {
                text.push_str(&v.arch);
                text.push('\0');
                text.push_str(&v.text);
                text.push('\0');
                // Not the stub's line markers: one names the stub's own path in the
                // build's staging folder, which differs from build to build.
                for line in v.host_stub.lines().filter(|l| !l.starts_with('#')) {
                    text.push_str(line);
                    text.push('\n');
                }
                text.push('\0');
                for d in &v.included {
                    if !deps.contains(d) {
                        deps.push(d.clone());
                    }
                }
            }
            text.push_str(&job.source.text);
            (job.object_key(&text), deps)
        };
        // The Rust file an inline source's `#line` directive names is no dependency.
        deps.retain(|d| !job.source.is_line_origin(d));
        let done = |entry: Entry, key: String, from_cache: bool| UnitBuilt {
            entry,
            key,
            from_cache,
            elapsed: started.elapsed(),
        };
        if let Some(cache) = s.cache
            && let Some(hit) = cached::lookup_object(cache, &object_key)
        {
            cached::record_manifest(cache, direct_key, &object_key, &hit.deps);
            return Ok(done(hit, object_key, true));
        }
        let group_index = if groups.len() > 1 {
            join_groups(&staging, groups, s.mode == LinkMode::Whole)?
        } else {
            Vec::new()
        };
        let kept_text = self.kept_text.lock().ok().and_then(|mut k| k.take());
        let (instances, left_out) = self.tuned_outcome();
        let everywhere = self.tuned_text(|s| s.left_out.iter().any(|(_, e)| *e));
        let mut info = job
            .analyse(&views, &preprocessed, &instances, everywhere)
            .map_err(Error::Diagnostics)?;
        info.left_out = left_out;
        let measured = Measured {
            plan: &self.plan,
            rejected: &rejected,
        };
        let mut fresh = job.finish(info, ran, staging, &ptx, deps, &measured)?;
        fresh.meta.groups = group_index;
        if let Some(why) = kept_text {
            let warning = crate::diagnostics::build::ptx_text_kept(&job.source.display_name, &why);
            fresh.meta.warnings.push(warning);
        }
        let entry = cached::store(s.cache, &object_key, Some(direct_key), fresh)?;
        if s.debug {
            eprintln!(
                "cuda-kernel-build: `{}`: read, verified and stored in {:.0} ms after nvcc",
                job.source.display_name,
                finishing.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(done(entry, object_key, false))
    }
}

/// One nvcc run of a group: its arguments, threads, flags, output and kept-files folder.
struct Run<'r> {
    args: &'r [String],
    threads: compile::Threads,
    flags: &'r [String],
    output: &'r Path,
    keep: &'r Path,
}

impl Pending<'_> {
    /// Runs `run` again through a wrapper written in `sub` without the table's items
    /// `left_out` and with the tuned section as it stands now, in an emptied kept-files
    /// folder; the wrapper is remembered, so that the device views are read without it.
    fn run_again(
        &self,
        sub: &str,
        left_out: &[usize],
        run: &Run<'_>,
    ) -> Result<Result<compile::Ran, Error>, Error> {
        let again = layouts::write_wrapper(
            &self.dir,
            sub,
            self.job.source,
            &self.plan,
            left_out,
            &self.tuned_text(Section::text),
        )?;
        let _ = std::fs::remove_dir_all(run.keep);
        std::fs::create_dir_all(run.keep)
            .map_err(|e| Error::io("failed to create the build folder", run.keep, e))?;
        let ran = self.job.run_nvcc(
            &again,
            run.args.to_vec(),
            run.threads,
            run.flags,
            run.output,
            run.keep,
        );
        if let Ok(mut r) = self.rejected.lock() {
            r.1.push(again);
        }
        Ok(ran)
    }

    /// Leaves the PTX text out of each cubin of the image a run wrote (`path`), as the run
    /// ends, on its worker: the files and architectures of a build are reassembled side by
    /// side, not one after another at the end. Only for a whole program with the text left
    /// out (`ptx_text`); nvFatbin reassembles the entries, compressing them as the module's
    /// flags ask (entries nvcc stored plain for it, `Shared::stores_plain`, are reassembled
    /// even without text). Where nvFatbin cannot be loaded the text stays, and why is kept
    /// for the unit's warning.
    fn leave_out_ptx_text(&self, path: &Path) -> Result<(), Error> {
        let s = self.job.shared;
        if !s.leave_out_ptx_text || s.mode != LinkMode::Whole {
            return Ok(());
        }
        let bytes = std::fs::read(path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", path, e))?;
        let plain = s.stores_plain();
        let fatbin = match cuda_kernel_objects::parse(&bytes) {
            Ok(fatbin) => fatbin,
            // Not read: nothing found to leave out, unless nvcc stored it plain for us.
            Err(_) if !plain => return Ok(()),
            Err(source) => {
                return Err(Error::Fatbin {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let has_text = fatbin.entries.iter().any(|e| {
            e.kind == EntryKind::Elf
                && cuda_kernel_objects::parse_cubin(&e.payload).is_ok_and(|c| c.ptx_text > 0)
        });
        if !has_text && !plain {
            return Ok(());
        }
        match s.assembler() {
            Ok(nvfatbin) => {
                let joined = reassemble(&fatbin, nvfatbin)?;
                std::fs::write(path, &joined).map_err(|e| Error::io("failed to write", path, e))
            }
            Err(why) => {
                if let Ok(mut kept) = self.kept_text.lock() {
                    kept.get_or_insert_with(|| why.clone());
                }
                Ok(())
            }
        }
    }

    /// `f` of the current section.
    fn tuned_text<R>(&self, f: impl FnOnce(&Section) -> R) -> R {
        match self.tuned.lock() {
            Ok(t) => f(&t.0),
            Err(poisoned) => f(&poisoned.into_inner().0),
        }
    }

    /// Leaves out of `arch` (a virtual architecture, compiled with `args`) every variant it
    /// refuses: the file is compiled for `arch` alone with the section as it stands, what
    /// nvcc blames left out, until nvcc blames none (it compiles, or fails for a reason of
    /// the user's text, which the group's run then reports).
    fn settle_variants(
        &self,
        arch: &str,
        args: Vec<String>,
        threads: compile::Threads,
    ) -> Result<(), Error> {
        let Some(number) = arch_number(arch) else {
            return Ok(());
        };
        let count = self.tuned_text(|s| s.instances.len());
        for attempt in 0..=count {
            let probe = self.tuned_text(|s| s.only_for(number));
            let sub = format!("tuned-{arch}-{attempt}");
            let wrapper = layouts::write_wrapper(
                &self.dir,
                &sub,
                self.job.source,
                &self.plan,
                &[],
                &probe.text(),
            )?;
            let out = self
                .dir
                .join("tuned")
                .join(format!("{arch}-{attempt}.fatbin"));
            let keep = self
                .dir
                .join("tuned")
                .join(format!("keep-{arch}-{attempt}"));
            std::fs::create_dir_all(&keep)
                .map_err(|e| Error::io("failed to create the build folder", &keep, e))?;
            let ran = self.job.run_nvcc(
                &wrapper,
                args.clone(),
                threads,
                self.job.shared.flags,
                &out,
                &keep,
            );
            if let Ok(mut r) = self.rejected.lock() {
                r.1.push(wrapper);
            }
            let text = match ran {
                Ok(_) => return Ok(()),
                Err(Error::NvccFailed { output, .. }) => output,
                Err(other) => return Err(other),
            };
            let blamed = probe.blamed(&text);
            let Ok(mut t) = self.tuned.lock() else {
                return Ok(());
            };
            let (section, reasons) = &mut *t;
            let mut any = false;
            for (i, why) in blamed {
                if section.leave_out(i, number) {
                    reasons.push((i, arch.to_owned(), why));
                    any = true;
                }
            }
            if !any {
                return Ok(());
            }
            let mut all: Vec<u32> = self
                .job
                .shared
                .targets
                .iter()
                .filter_map(|t| arch_number(&t.virtual_arch()))
                .collect();
            all.sort_unstable();
            all.dedup();
            section.settle_everywhere(&all);
        }
        Ok(())
    }

    /// The instances the unit holds (those left out of every target are not), and what was
    /// left out where, for the model.
    fn tuned_outcome(&self) -> (Vec<front::tuned::Instance>, Vec<(String, String, String)>) {
        let Ok(t) = self.tuned.lock() else {
            return (Vec::new(), Vec::new());
        };
        let (section, reasons) = &*t;
        let instances = section
            .instances
            .iter()
            .zip(&section.left_out)
            .filter(|(_, (_, everywhere))| !everywhere)
            .map(|(i, _)| i.clone())
            .collect();
        let left_out = reasons
            .iter()
            .map(|(i, arch, why)| (section.instances[*i].name(), arch.clone(), why.clone()))
            .collect();
        (instances, left_out)
    }
}

/// `__CUDA_ARCH__` of a virtual architecture (`compute_80` → 800, `compute_90a` → 900).
fn arch_number(arch: &str) -> Option<u32> {
    let digits: String = arch
        .strip_prefix("compute_")?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<u32>().ok().map(|n| n * 10)
}

/// The groups' fatbins as the unit's `module.fatbin`: for a whole program (`one`), one
/// container holding every group's entries, in group order (what nvcc writes when it
/// compiles all the targets in one run, byte for byte: `compile::container::join`); for device
/// linking, the containers one after another with an index of where each group's lies.
fn join_groups(
    staging: &cached::Staging,
    groups: &[(String, Vec<String>)],
    one: bool,
) -> Result<Vec<(String, u64, u64)>, Error> {
    let mut parts = Vec::new();
    for (arch, _) in groups {
        let path = staging.path().join(format!("{arch}.fatbin"));
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::io("failed to read the fatbin nvcc wrote", &path, e))?;
        let _ = std::fs::remove_file(&path);
        parts.push((arch, path, bytes));
    }
    let out = staging.path().join("module.fatbin");
    let (bytes, index) = if one {
        let containers: Vec<(&Path, &[u8])> = parts
            .iter()
            .map(|(_, path, bytes)| (path.as_path(), bytes.as_slice()))
            .collect();
        (compile::container::join(&containers)?, Vec::new())
    } else {
        let mut bytes = Vec::new();
        let mut index = Vec::new();
        for (arch, _, one) in &parts {
            index.push(((*arch).clone(), bytes.len() as u64, one.len() as u64));
            bytes.extend_from_slice(one);
            bytes.resize(bytes.len().next_multiple_of(8), 0);
        }
        (bytes, index)
    };
    std::fs::write(&out, &bytes).map_err(|e| Error::io("failed to write", &out, e))?;
    Ok(index)
}

/// The entries of `fatbin` as one container assembled by `nvfatbin`, each cubin's embedded
/// PTX text left out.
fn reassemble(fatbin: &cuda_kernel_objects::Fatbin, nvfatbin: &NvFatbin) -> Result<Vec<u8>, Error> {
    let names: Vec<String> = fatbin.entries.iter().map(|e| e.target()).collect();
    let stripped: Vec<Option<Vec<u8>>> = fatbin
        .entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Elf => ptx_text::left_out(&e.payload),
            _ => None,
        })
        .collect();
    let parts: Vec<FatbinPart<'_>> = fatbin
        .entries
        .iter()
        .zip(&names)
        .zip(&stripped)
        .filter_map(|((e, name), stripped)| {
            let arch = format!("{}{}", e.arch, e.variant.suffix());
            match e.kind {
                EntryKind::Elf => Some(FatbinPart::Cubin {
                    arch,
                    name,
                    bytes: stripped.as_deref().unwrap_or(&e.payload),
                }),
                EntryKind::Ptx => Some(FatbinPart::Ptx {
                    arch,
                    name,
                    text: ptx_text(&e.payload),
                }),
                EntryKind::Other(_) => None,
            }
        })
        .collect();
    Ok(nvfatbin.assemble(&parts)?)
}

/// PTX text up to its first NUL, with one NUL (as nvFatbin takes it).
fn ptx_text(payload: &[u8]) -> &[u8] {
    match payload.iter().position(|&b| b == 0) {
        Some(i) => &payload[..=i],
        None => payload,
    }
}
