//! The fatbin reader on fatbins compiled by the real nvcc: layouts, registers, targets,
//! compression modes and module globals.

mod fatbin_support;

use std::collections::BTreeMap;

use cuda_kernel_objects::{
    self as fatbin, ArchVariant, Compression, Entry, EntryKind, Image, KernelImage,
};
use fatbin_support::{ALL_ARCHS, SM90_UP, compile, nvcc, source};

/// The layouts of the format reference's verified-layout table (plus this test's own
/// kernels), written out by hand.
fn expected_layouts() -> BTreeMap<&'static str, Vec<(u32, u32)>> {
    BTreeMap::from([
        ("saxpy", vec![(0, 4), (8, 8), (16, 8), (24, 4)]),
        ("_Z5scaleIfEvPT_S0_j", vec![(0, 8), (8, 4), (12, 4)]),
        ("_Z5scaleIdEvPT_S0_j", vec![(0, 8), (8, 8), (16, 4)]),
        ("withstruct", vec![(0, 24), (24, 8)]),
        (
            "mixed",
            vec![
                (0, 1),
                (2, 2),
                (4, 4),
                (8, 8),
                (16, 8),
                (24, 4),
                (32, 8),
                (40, 1),
            ],
        ),
        ("bigarr", vec![(0, 16), (16, 8), (32, 16)]),
        ("bigstruct", vec![(0, 160), (160, 8)]),
        (
            "_ZN5outer5inner1kINS0_1VEEEvT_PKS3_PPS3_ybachstjlmd6__half",
            vec![
                (0, 8),
                (8, 8),
                (16, 8),
                (24, 8),
                (32, 1),
                (33, 1),
                (34, 1),
                (35, 1),
                (36, 2),
                (38, 2),
                (40, 4),
                (48, 8),
                (56, 8),
                (64, 8),
                (72, 2),
            ],
        ),
        ("hugeparam", vec![(0, 8000), (8000, 8)]),
        (
            "hv2",
            vec![(0, 8000), (8000, 8), (8008, 8), (8016, 1), (8018, 2)],
        ),
        ("_Z8noparamsv", vec![]),
        ("bounded", vec![(0, 8), (8, 4)]),
        ("maxnreg_k", vec![(0, 8)]),
        ("use_globals", vec![(0, 8)]),
    ])
}

fn layout(k: &KernelImage) -> Vec<(u32, u32)> {
    k.params.iter().map(|p| (p.offset, p.size)).collect()
}

fn kernel<'a>(image: &'a Image, symbol: &str) -> &'a KernelImage {
    image
        .kernels()
        .iter()
        .find(|k| k.symbol == symbol)
        .unwrap_or_else(|| panic!("{symbol} missing"))
}

fn targets(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(Entry::target).collect()
}

#[test]
fn layouts_registers_and_targets_in_every_image() {
    let Some(nvcc) = nvcc() else { return };
    let bytes = compile(&nvcc, "-fatbin", &source("layouts.cu"), ALL_ARCHS, &[]);
    let fatbin = fatbin::parse(&bytes).unwrap();
    assert_eq!(
        targets(&fatbin.entries),
        [
            "sm_75",
            "sm_80",
            "sm_90",
            "sm_90a",
            "sm_100",
            "sm_120",
            "compute_120"
        ]
    );
    let expected = expected_layouts();
    for entry in &fatbin.entries {
        let image = entry.image().unwrap();
        let found: BTreeMap<&str, Vec<(u32, u32)>> = image
            .kernels()
            .iter()
            .map(|k| (k.symbol.as_str(), layout(k)))
            .collect();
        assert_eq!(found, expected, "{}", entry.target());
        for k in image.kernels() {
            let end = k.params.last().map(|p| p.offset + p.size);
            assert_eq!(k.param_size, end, "{} {}", entry.target(), k.symbol);
            assert!(!k.is_local);
        }
        let bounded = kernel(&image, "bounded");
        assert_eq!(bounded.max_threads, Some([256, 1, 1]), "{}", entry.target());
        match &image {
            Image::Cubin(cubin) => {
                assert_eq!(entry.kind, EntryKind::Elf);
                assert_eq!(cubin.sm, entry.arch);
                assert_eq!((cubin.e_type, cubin.abi_version), (2, 8));
                assert_eq!(entry.version, (1, 8));
                assert_eq!(entry.header_size, if entry.arch >= 100 { 112 } else { 64 });
                for k in &cubin.kernels {
                    let regs = k.registers.unwrap_or(0);
                    assert!(
                        (1..=255).contains(&regs),
                        "{} {}: {regs}",
                        entry.target(),
                        k.symbol
                    );
                }
                assert_eq!(kernel(&image, "maxnreg_k").maxreg_count, Some(40));
                assert_eq!(kernel(&image, "bounded").maxreg_count, Some(128));
                assert_eq!(kernel(&image, "saxpy").maxreg_count, Some(255));
            }
            Image::Ptx(ptx) => {
                assert_eq!(entry.kind, EntryKind::Ptx);
                assert_eq!(ptx.target, "sm_120");
                assert_eq!(
                    ptx.version,
                    (u32::from(entry.version.0), u32::from(entry.version.1))
                );
                assert_eq!(kernel(&image, "maxnreg_k").maxreg_count, Some(40));
            }
        }
        let mut globals: Vec<_> = image
            .globals()
            .iter()
            .map(|g| (g.symbol.as_str(), g.size, g.constant))
            .collect();
        globals.sort();
        assert_eq!(
            globals,
            [
                ("coeffs", 64, true),
                ("counter", 4, false),
                ("table", 32, false)
            ],
            "{}",
            entry.target()
        );
    }
    let variants: Vec<_> = fatbin.entries.iter().map(|e| e.variant).collect();
    assert_eq!(variants[3], ArchVariant::ArchSpecific);
    assert!(
        variants
            .iter()
            .enumerate()
            .all(|(i, v)| i == 3 || *v == ArchVariant::Generic)
    );
}

#[test]
fn cluster_dims_on_sm90_and_newer() {
    let Some(nvcc) = nvcc() else { return };
    let bytes = compile(&nvcc, "-fatbin", &source("cluster.cu"), SM90_UP, &[]);
    let fatbin = fatbin::parse(&bytes).unwrap();
    assert_eq!(
        targets(&fatbin.entries),
        ["sm_90", "sm_100", "sm_120", "compute_120"]
    );
    for entry in &fatbin.entries {
        let image = entry.image().unwrap();
        let k = kernel(&image, "clustered");
        assert_eq!(k.cluster_dims, Some([2, 1, 1]), "{}", entry.target());
        assert_eq!(layout(k), [(0, 8)]);
    }
}

#[test]
fn every_compression_mode_decodes_to_the_uncompressed_payloads() {
    let Some(nvcc) = nvcc() else { return };
    let src = source("layouts.cu");
    let plain = fatbin::parse(&compile(
        &nvcc,
        "-fatbin",
        &src,
        ALL_ARCHS,
        &["--no-compress"],
    ))
    .unwrap();
    assert!(
        plain
            .entries
            .iter()
            .all(|e| e.compression == Compression::None)
    );
    let modes: [(&[&str], Compression, Compression); 5] = [
        (&[], Compression::None, Compression::Zstd),
        // What the build passes by default: every entry, Zstandard.
        (
            &["--compress-mode=size"],
            Compression::Zstd,
            Compression::Zstd,
        ),
        (
            &["--compress-mode=balance"],
            Compression::None,
            Compression::Zstd,
        ),
        (
            &["-Xfatbin", "-compress-all"],
            Compression::Zstd,
            Compression::Zstd,
        ),
        (
            &["-Xfatbin", "-compress-all", "--compress-mode=speed"],
            Compression::Lz4,
            Compression::Lz4,
        ),
    ];
    for (flags, sass, ptx) in modes {
        let bytes = compile(&nvcc, "-fatbin", &src, ALL_ARCHS, flags);
        let fatbin = fatbin::parse(&bytes).unwrap();
        assert_eq!(targets(&fatbin.entries), targets(&plain.entries));
        // The header-only reading agrees with the whole parse.
        assert_eq!(
            fatbin::entry_compression(&bytes).unwrap(),
            fatbin
                .entries
                .iter()
                .map(|e| e.compression)
                .collect::<Vec<_>>()
        );
        for (entry, reference) in fatbin.entries.iter().zip(&plain.entries) {
            let want = if entry.kind == EntryKind::Ptx {
                ptx
            } else {
                sass
            };
            assert_eq!(entry.compression, want, "{flags:?} {}", entry.target());
            let trim = |p: &[u8]| p.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            let (a, b) = (&entry.payload, &reference.payload);
            assert_eq!(a[..trim(a)], b[..trim(b)], "{flags:?} {}", entry.target());
            assert_eq!(entry.image().unwrap(), reference.image().unwrap());
        }
    }
}

#[test]
fn bare_cubin_and_ptx_files() {
    let Some(nvcc) = nvcc() else { return };
    let src = source("layouts.cu");
    let cubin = compile(&nvcc, "-cubin", &src, &["arch=compute_80,code=sm_80"], &[]);
    let cubin = fatbin::parse_cubin(&cubin).unwrap();
    assert_eq!(cubin.sm, 80);
    let ptx = compile(
        &nvcc,
        "-ptx",
        &src,
        &["arch=compute_90,code=compute_90"],
        &[],
    );
    let ptx = fatbin::parse_ptx(std::str::from_utf8(&ptx).unwrap()).unwrap();
    assert_eq!(ptx.target, "sm_90");
    for image in [Image::Cubin(cubin), Image::Ptx(ptx)] {
        let found: BTreeMap<&str, Vec<(u32, u32)>> = image
            .kernels()
            .iter()
            .map(|k| (k.symbol.as_str(), layout(k)))
            .collect();
        assert_eq!(found, expected_layouts());
    }
}

#[test]
fn concatenated_containers_and_embedded_ones() {
    let Some(nvcc) = nvcc() else { return };
    let one = compile(&nvcc, "-fatbin", &source("cluster.cu"), SM90_UP, &[]);
    assert_eq!(one.len() % 8, 0);
    let two = [one.as_slice(), &one, &[0; 8]].concat();
    let parsed = fatbin::parse(&two).unwrap();
    assert_eq!(parsed.entries.len(), 8);
    assert_eq!(parsed.entries[4].offset, one.len() + 16);
    let object = compile(&nvcc, "-c", &source("cluster.cu"), SM90_UP, &[]);
    let found = fatbin::find_containers(&object);
    assert_eq!(found.len(), 1, "{found:?}");
    let (at, len) = found[0];
    assert_eq!(
        fatbin::parse(&object[at..at + len]).unwrap().entries.len(),
        4
    );
}
