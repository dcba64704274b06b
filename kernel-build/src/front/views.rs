//! Per-target views: the source as the device pass of each virtual architecture sees
//! it (`__CUDA_ARCH__` defined to that architecture), read from the intermediate files
//! nvcc keeps (`<stem>.compute_90.cpp1.ii`), parsed one by one and merged into one
//! model whose kernels are the union of every target's kernels.
//!
//! Libraries declare kernels only where the target supports their types
//! (`#if __CUDA_ARCH__ >= 800` around a bf16 kernel); the host pass never sees those,
//! the device passes do. What each image really contains is decided later, by
//! [`verify`](crate::verify), from the images themselves.

use std::path::Path;

use super::FrontInput;
use super::merge::merge;
use crate::diagnostics::Diagnostics;
use crate::model::ModuleInfo;

/// The preprocessed source one device pass compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceView {
    /// The virtual architecture (`compute_90`, `compute_90a`).
    pub arch: String,
    /// The preprocessed text with its line markers.
    pub text: String,
    /// nvcc's host stub file of this pass (`.cudafe1.stub.c`), empty when absent.
    pub host_stub: String,
    /// The files the text came from, as its line markers name them (read from its bytes).
    pub included: Vec<std::path::PathBuf>,
}

impl DeviceView {
    /// The compute capability number of the view (`90` for `compute_90a`).
    pub fn arch_number(&self) -> Option<u32> {
        let digits: String = self
            .arch
            .strip_prefix("compute_")?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    }
}

/// Reads every device-side preprocessed file nvcc left in `dir` (`--keep-dir`) with its
/// host stub, in ascending architecture order. `archs` are the virtual architectures
/// compiled: with only one, nvcc names the files without it (`<stem>.cpp1.ii`). Files that
/// cannot be read are left out.
pub fn read_kept_views(dir: &Path, archs: &[String]) -> Vec<DeviceView> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let read = |p: &Path| {
        std::fs::read(p)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let mut views: Vec<DeviceView> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".cpp1.ii")?;
            let (base, arch) = match stem.rsplit_once('.') {
                Some((base, arch)) if arch.starts_with("compute_") => (base, arch.to_string()),
                _ if archs.len() == 1 => (stem, archs[0].clone()),
                _ => return None,
            };
            let stub_name = if stem == base {
                format!("{base}.cudafe1.stub.c")
            } else {
                format!("{base}.{arch}.cudafe1.stub.c")
            };
            let bytes = std::fs::read(e.path()).ok()?;
            Some(DeviceView {
                included: super::linemap::included_files(&bytes),
                text: String::from_utf8_lossy(&bytes).into_owned(),
                host_stub: read(&dir.join(stub_name)).unwrap_or_default(),
                arch,
            })
        })
        .collect();
    views.sort_by(|a, b| (a.arch_number(), &a.arch).cmp(&(b.arch_number(), &b.arch)));
    views
}

/// Parses every view (concurrently) and merges them: kernels, structs and globals are
/// the union of the views'; a kernel, struct or global that two views define
/// differently is an error naming both architectures. Problems every view reports
/// are reported once. `base` gives the file names and raw text; its `preprocessed` field
/// is ignored. The module-wide checks are the caller's: this is the merged reading and its
/// errors, for one file of a module of several too (which may declare no kernel).
pub(crate) fn read_views(base: &FrontInput<'_>, views: &[DeviceView]) -> (ModuleInfo, Diagnostics) {
    let parsed: Vec<(String, ModuleInfo, Diagnostics)> = std::thread::scope(|s| {
        let handles: Vec<_> = views
            .iter()
            .map(|v| {
                s.spawn(move || {
                    let input = FrontInput {
                        preprocessed: Some(&v.text),
                        host_stub: Some(&v.host_stub),
                        ..*base
                    };
                    let (info, diags) = super::analyze_parts(&input);
                    (v.arch.clone(), info, diags)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut diags = Diagnostics::new();
    let mut seen: Vec<String> = Vec::new();
    let mut infos = Vec::with_capacity(parsed.len());
    for (arch, info, d) in parsed {
        for one in d {
            let text = one.to_string();
            if !seen.contains(&text) {
                seen.push(text);
                diags.push(one);
            }
        }
        infos.push((arch, info));
    }
    let mut info = merge(infos, &mut diags);
    info.preprocessed = true;
    (info, diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compute_view_has_its_arch_number() {
        let v = DeviceView {
            arch: "compute_90".into(),
            text: String::new(),
            host_stub: String::new(),
            included: Vec::new(),
        };
        assert_eq!(v.arch_number(), Some(90));
    }

    #[test]
    fn arch_number_drops_the_family_suffix() {
        let v = DeviceView {
            arch: "compute_100f".into(),
            text: String::new(),
            host_stub: String::new(),
            included: Vec::new(),
        };
        assert_eq!(v.arch_number(), Some(100));
    }

    #[test]
    fn kept_views_are_read_per_target_with_their_stubs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.compute_90.cpp1.ii"), "int a;").unwrap();
        std::fs::write(dir.path().join("k.compute_90.cudafe1.stub.c"), "// stub").unwrap();
        std::fs::write(dir.path().join("k.compute_75.cpp1.ii"), "int b;").unwrap();
        std::fs::write(dir.path().join("k.cpp4.ii"), "host").unwrap();
        let views = read_kept_views(dir.path(), &["compute_75".into(), "compute_90".into()]);
        let archs: Vec<_> = views.iter().map(|v| v.arch.as_str()).collect();
        assert_eq!(archs, ["compute_75", "compute_90"]);
        assert_eq!(views[1].host_stub, "// stub");

        let one = tempfile::tempdir().unwrap();
        std::fs::write(one.path().join("k.cpp1.ii"), "int a;").unwrap();
        let views = read_kept_views(one.path(), &["compute_90".into()]);
        assert_eq!(views[0].arch, "compute_90");
    }

    #[test]
    fn kernels_of_every_view_are_merged() {
        let base = FrontInput::raw_only("k.cu", "");
        // What `nvcc --keep` leaves: preprocessed text with line markers.
        let all = "# 1 \"k.cu\"\nextern \"C\" __global__ void all(float* x) {}\n";
        let v75 = DeviceView {
            arch: "compute_75".into(),
            text: all.into(),
            host_stub: String::new(),
            included: Vec::new(),
        };
        let v90 = DeviceView {
            arch: "compute_90".into(),
            text: format!("{all}extern \"C\" __global__ void only90(int n) {{}}\n"),
            host_stub: String::new(),
            included: Vec::new(),
        };
        let (info, diags) = read_views(&base, &[v75, v90]);
        let info = super::super::finish(base.display_name, info, diags, true).unwrap();
        let names: Vec<_> = info.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["all", "only90"]);
    }
}
