//! Mutated real fatbins, cubins and PTX (truncation, bit flips, overwritten size fields):
//! the reader must return, never panic, and must reject every truncated container.

use cuda_kernel_objects::{self as fatbin, Fatbin};
use proptest::prelude::*;

const FATBINS: [&[u8]; 3] = [
    include_bytes!("fixtures/small.fatbin"),
    include_bytes!("fixtures/small_zstd.fatbin"),
    include_bytes!("fixtures/small_lz4.fatbin"),
];
const CUBIN: &[u8] = include_bytes!("fixtures/small_sm90.cubin");
const PTX: &[u8] = include_bytes!("fixtures/small_sm120.ptx");

/// Everything a consumer would do with the bytes; the results themselves do not matter.
fn read_all(bytes: &[u8]) -> Option<Fatbin> {
    let fatbin = fatbin::parse(bytes).ok()?;
    for entry in &fatbin.entries {
        if let Ok(image) = entry.image() {
            for kernel in image.kernels() {
                let _ = kernel.params.iter().map(|p| p.offset + p.size).max();
            }
        }
    }
    let _ = fatbin::find_containers(bytes);
    Some(fatbin)
}

/// Offsets of the entry headers of an unmutated fixture.
fn entry_offsets(bytes: &[u8]) -> Vec<usize> {
    fatbin::parse(bytes)
        .unwrap()
        .entries
        .iter()
        .map(|e| e.offset)
        .collect()
}

#[test]
fn fixtures_are_valid() {
    for bytes in FATBINS {
        let fatbin = read_all(bytes).expect("fixture parses");
        assert_eq!(fatbin.entries.len(), 3);
        for entry in &fatbin.entries {
            assert_eq!(
                entry.image().unwrap().kernels().len(),
                3,
                "{}",
                entry.target()
            );
        }
    }
    assert_eq!(fatbin::parse_cubin(CUBIN).unwrap().kernels.len(), 3);
    assert_eq!(
        fatbin::parse_ptx(std::str::from_utf8(PTX).unwrap())
            .unwrap()
            .kernels
            .len(),
        3
    );
}

proptest! {
    #[test]
    fn every_truncation_is_an_error(which in 0..3usize, cut in any::<prop::sample::Index>()) {
        let bytes = FATBINS[which];
        let len = cut.index(bytes.len());
        prop_assert!(fatbin::parse(&bytes[..len]).is_err());
        prop_assert!(read_all(&bytes[..len]).is_none());
    }

    #[test]
    fn bit_flips_do_not_panic(
        which in 0..3usize,
        flips in prop::collection::vec((any::<prop::sample::Index>(), 0..8u8), 1..8),
    ) {
        let mut bytes = FATBINS[which].to_vec();
        for (at, bit) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        read_all(&bytes);
    }

    #[test]
    fn lying_size_fields_do_not_panic(
        which in 0..3usize,
        entry in any::<prop::sample::Index>(),
        field in prop::sample::select(vec![(4usize, 4usize), (8, 8), (0x10, 4), (0x14, 4), (0x38, 8)]),
        value in prop_oneof![any::<u64>(), 0..0x1_0000u64, Just(u64::MAX), Just(0)],
        container_size in prop::option::of(any::<u64>()),
    ) {
        let mut bytes = FATBINS[which].to_vec();
        let offsets = entry_offsets(&bytes);
        let at = offsets[entry.index(offsets.len())] + field.0;
        bytes[at..at + field.1].copy_from_slice(&value.to_le_bytes()[..field.1]);
        if let Some(size) = container_size {
            bytes[8..16].copy_from_slice(&size.to_le_bytes());
        }
        read_all(&bytes);
    }

    #[test]
    fn mutated_cubins_and_ptx_do_not_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut cubin = CUBIN.to_vec();
        let mut ptx = PTX.to_vec();
        for (at, byte) in &flips {
            let i = at.index(cubin.len());
            cubin[i] = *byte;
            let j = at.index(ptx.len());
            ptx[j] = *byte;
        }
        let _ = fatbin::parse_cubin(&cubin);
        let _ = fatbin::parse_cubin(&CUBIN[..cut.index(CUBIN.len())]);
        let _ = fatbin::parse_ptx(&String::from_utf8_lossy(&ptx));
        let _ = fatbin::parse_ptx(&String::from_utf8_lossy(&PTX[..cut.index(PTX.len())]));
    }
}
