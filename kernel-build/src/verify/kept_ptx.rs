//! The PTX nvcc leaves in its keep folder: one file per virtual architecture it compiled
//! (`<stem>.ptx`, or `<stem>.compute_90.ptx` with several), written before ptxas runs, so
//! it is there whatever the targets (SASS only included). Its `.entry` headers declare
//! each parameter's size and alignment as the compiler laid the type out
//! (`.param .align 128 .b8 k_param_0[2048]`), which a cubin's parameter table does not
//! record: [`super::opaque::measure_from_images`] reads opaque types from them.

use cuda_kernel_objects::{KernelImage, parse_ptx};
use std::path::Path;

/// The `.entry` functions of every PTX file in `dir`, in file-name order. A file that
/// cannot be read or parsed is left out (its types are then measured by the probe).
pub(crate) fn read_kept_ptx(dir: &Path) -> Vec<KernelImage> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter_map(|b| parse_ptx(&String::from_utf8_lossy(&b)).ok())
        .flat_map(|m| m.kernels)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_of_every_kept_ptx_file_with_its_alignments() {
        let dir = tempfile::tempdir().unwrap();
        let ptx = |target: &str, body: &str| {
            format!(".version 9.0\n.target {target}\n.address_size 64\n{body}\n")
        };
        std::fs::write(
            dir.path().join("k.compute_80.ptx"),
            ptx(
                "sm_80",
                ".visible .entry a(.param .align 16 .b8 a_param_0[48], .param .u32 a_param_1) { ret; }",
            ),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("k.compute_90.ptx"),
            ptx(
                "sm_90",
                ".entry b(.param .u64 .ptr .align 1 b_param_0) { ret; }",
            ),
        )
        .unwrap();
        // Not PTX, and PTX that does not parse: both left out.
        std::fs::write(dir.path().join("k.cpp1.ii"), "int x;").unwrap();
        std::fs::write(dir.path().join("z.ptx"), ".entry (").unwrap();
        type Slots = Vec<(u32, u32, Option<u32>)>;
        let got: Vec<(String, Slots)> = read_kept_ptx(dir.path())
            .into_iter()
            .map(|k| {
                let slots = k
                    .params
                    .iter()
                    .map(|p| (p.offset, p.size, p.align))
                    .collect();
                (k.symbol, slots)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_owned(), vec![(0, 48, Some(16)), (48, 4, Some(4))]),
                ("b".to_owned(), vec![(0, 8, Some(8))]),
            ]
        );
        assert!(read_kept_ptx(&dir.path().join("missing")).is_empty());
    }
}
