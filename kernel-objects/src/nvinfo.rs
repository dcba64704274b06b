//! `.nv.info` records: the per-kernel attributes (parameter layout, launch bounds) and the
//! module-wide register counts a cubin carries.

use super::bytes::{u16_at, u32_at};
use super::error::Error;
use super::image::{KernelImage, ParamSlot};

/// `EIATTR_MAX_THREADS`: u32 x, y, z.
const MAX_THREADS: u8 = 0x05;
/// `EIATTR_PARAM_CBANK`: u32 symbol, u16 offset in bank 0, u16 size.
const PARAM_CBANK: u8 = 0x0a;
/// `EIATTR_REQNTID`: u32 x, y, z.
const REQNTID: u8 = 0x10;
/// `EIATTR_KPARAM_INFO`: one record per parameter, size in bits 18..32.
const KPARAM_INFO: u8 = 0x17;
/// `EIATTR_CBANK_PARAM_SIZE` (inline value): total parameter bytes.
const CBANK_PARAM_SIZE: u8 = 0x19;
/// `EIATTR_MAXREG_COUNT` (inline value).
const MAXREG_COUNT: u8 = 0x1b;
/// `EIATTR_REGCOUNT` (module-wide): u32 symbol index, u32 registers.
const REGCOUNT: u8 = 0x2f;
/// `EIATTR_CTA_PER_CLUSTER`: u32 x, y, z.
const CTA_PER_CLUSTER: u8 = 0x3d;
/// `EIATTR_KPARAM_INFO_V2`: like KPARAM_INFO for large parameter blocks, size in bits 0..24.
const KPARAM_INFO_V2: u8 = 0x45;

/// The value of one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value<'a> {
    /// `EIFMT_NVAL`, `EIFMT_BVAL`, `EIFMT_HVAL`: the u16 in the record header.
    Inline(u16),
    /// `EIFMT_SVAL`: a payload.
    Bytes(&'a [u8]),
}

/// One record: `{u8 format, u8 attribute, u16 value-or-length, payload}`.
#[derive(Clone, Copy, Debug)]
struct Record<'a> {
    offset: usize,
    attr: u8,
    value: Value<'a>,
}

/// Splits a `.nv.info` section into records.
fn records<'a>(section: &str, data: &'a [u8]) -> Result<Vec<Record<'a>>, Error> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let bad = |detail: String| Error::BadNvInfo {
            section: section.to_owned(),
            offset: at,
            detail,
        };
        let (Some(&format), Some(&attr), Some(x)) =
            (data.get(at), data.get(at + 1), u16_at(data, at + 2))
        else {
            return Err(bad(format!(
                "{} bytes left, a record header needs 4",
                data.len() - at
            )));
        };
        let value = match format {
            1..=3 => Value::Inline(x),
            4 => Value::Bytes(data.get(at + 4..at + 4 + usize::from(x)).ok_or_else(|| {
                bad(format!(
                    "attribute {attr:#04x} declares {x} payload bytes past the end"
                ))
            })?),
            _ => return Err(bad(format!("unknown record format {format}"))),
        };
        out.push(Record {
            offset: at,
            attr,
            value,
        });
        at += 4 + if format == 4 { usize::from(x) } else { 0 };
    }
    Ok(out)
}

/// Module-wide `REGCOUNT` records of the `.nv.info` section: `(symbol index, registers)`.
pub(crate) fn register_counts(data: &[u8]) -> Result<Vec<(u32, u32)>, Error> {
    let mut out = Vec::new();
    for r in records(".nv.info", data)? {
        if let (REGCOUNT, Value::Bytes(b)) = (r.attr, r.value)
            && let (8, Some(sym), Some(regs)) = (b.len(), u32_at(b, 0), u32_at(b, 4))
        {
            out.push((sym, regs));
        }
    }
    Ok(out)
}

/// Fills `kernel` from its `.nv.info.<symbol>` section and checks the layout is consistent:
/// ordinals 0..n, and the total size (`CBANK_PARAM_SIZE`, `PARAM_CBANK`) equal to the end
/// of the last parameter.
pub(crate) fn apply_kernel_info(
    section: &str,
    data: &[u8],
    kernel: &mut KernelImage,
) -> Result<(), Error> {
    let bad = |offset: usize, detail: String| Error::BadNvInfo {
        section: section.to_owned(),
        offset,
        detail,
    };
    let mut params = Vec::new();
    let mut cbank_size = None;
    let mut total = None;
    for r in records(section, data)? {
        match (r.attr, r.value) {
            (KPARAM_INFO | KPARAM_INFO_V2, Value::Bytes(b)) => {
                let (12, Some(ordinal), Some(offset), Some(w)) =
                    (b.len(), u16_at(b, 4), u16_at(b, 6), u32_at(b, 8))
                else {
                    return Err(bad(
                        r.offset,
                        format!("parameter record of {} bytes, expected 12", b.len()),
                    ));
                };
                let size = if r.attr == KPARAM_INFO {
                    w >> 18
                } else {
                    w & 0xFF_FFFF
                };
                params.push(ParamSlot {
                    ordinal: ordinal.into(),
                    offset: offset.into(),
                    size,
                    align: None,
                });
            }
            (PARAM_CBANK, Value::Bytes(b)) => {
                cbank_size = Some((
                    r.offset,
                    u16_at(b, 6).ok_or_else(|| bad(r.offset, "short PARAM_CBANK record".into()))?,
                ));
            }
            (CBANK_PARAM_SIZE, Value::Inline(v)) => total = Some((r.offset, u32::from(v))),
            (MAXREG_COUNT, Value::Inline(v)) => kernel.maxreg_count = Some(v.into()),
            (MAX_THREADS, Value::Bytes(b)) => {
                kernel.max_threads = Some(
                    dims(b).ok_or_else(|| bad(r.offset, "MAX_THREADS is not 3 × u32".into()))?,
                )
            }
            (REQNTID, Value::Bytes(b)) => {
                kernel.reqntid =
                    Some(dims(b).ok_or_else(|| bad(r.offset, "REQNTID is not 3 × u32".into()))?)
            }
            (CTA_PER_CLUSTER, Value::Bytes(b)) => {
                kernel.cluster_dims = Some(
                    dims(b)
                        .ok_or_else(|| bad(r.offset, "CTA_PER_CLUSTER is not 3 × u32".into()))?,
                )
            }
            _ => {}
        }
    }
    params.sort_by_key(|p| p.ordinal);
    if let Some(i) = params.iter().zip(0u32..).position(|(p, i)| p.ordinal != i) {
        return Err(bad(
            0,
            format!(
                "parameter ordinals are not 0..{}: missing or repeated {i}",
                params.len()
            ),
        ));
    }
    let end = params
        .iter()
        .map(|p| u64::from(p.offset) + u64::from(p.size))
        .max();
    let end = end.map(|e| u32::try_from(e).unwrap_or(u32::MAX));
    match (total, end) {
        (None, None) => {}
        (Some((at, t)), e) if Some(t) != e => {
            return Err(bad(
                at,
                format!(
                    "CBANK_PARAM_SIZE {t} but the parameters end at {}",
                    e.unwrap_or(0)
                ),
            ));
        }
        (None, Some(e)) => {
            return Err(bad(
                0,
                format!("parameters end at {e} but CBANK_PARAM_SIZE is missing"),
            ));
        }
        _ => {}
    }
    if let Some((at, size)) = cbank_size
        && Some(u32::from(size)) != end
    {
        return Err(bad(
            at,
            format!(
                "PARAM_CBANK size {size} but the parameters end at {}",
                end.unwrap_or(0)
            ),
        ));
    }
    kernel.param_size = end;
    kernel.params = params;
    Ok(())
}

/// Three u32 values.
fn dims(b: &[u8]) -> Option<[u32; 3]> {
    (b.len() == 12).then_some([u32_at(b, 0)?, u32_at(b, 4)?, u32_at(b, 8)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kparam(ordinal: u16, offset: u16, size: u32) -> Vec<u8> {
        let mut r = vec![4, KPARAM_INFO, 12, 0, 0, 0, 0, 0];
        r.extend_from_slice(&ordinal.to_le_bytes());
        r.extend_from_slice(&offset.to_le_bytes());
        r.extend_from_slice(&((size << 18) | 0x1f000).to_le_bytes());
        r
    }

    fn saxpy_info() -> Vec<u8> {
        let mut d = vec![4, 0x37, 4, 0, 0x82, 0, 0, 0]; // CUDA_API_VERSION 130
        d.extend_from_slice(&[4, PARAM_CBANK, 8, 0, 0x0a, 0, 0, 0, 0x60, 0x01, 28, 0]);
        d.extend_from_slice(&[3, CBANK_PARAM_SIZE, 28, 0]);
        for (ordinal, offset, size) in [(3, 24, 4), (2, 16, 8), (1, 8, 8), (0, 0, 4)] {
            d.extend(kparam(ordinal, offset, size));
        }
        d.extend_from_slice(&[3, MAXREG_COUNT, 255, 0]);
        d.extend_from_slice(&[4, MAX_THREADS, 12, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
        d
    }

    #[test]
    fn reads_a_kernel_layout_written_in_reverse_order() {
        let mut k = KernelImage::default();
        apply_kernel_info(".nv.info.saxpy", &saxpy_info(), &mut k).unwrap();
        let layout: Vec<_> = k
            .params
            .iter()
            .map(|p| (p.ordinal, p.offset, p.size))
            .collect();
        assert_eq!(layout, [(0, 0, 4), (1, 8, 8), (2, 16, 8), (3, 24, 4)]);
        assert_eq!(
            (k.param_size, k.maxreg_count, k.max_threads),
            (Some(28), Some(255), Some([256, 1, 1]))
        );
    }

    #[test]
    fn v2_records_take_the_low_24_bits() {
        let mut d = vec![4, KPARAM_INFO_V2, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        d.extend_from_slice(&8000u32.to_le_bytes());
        d.extend_from_slice(&[3, CBANK_PARAM_SIZE]);
        d.extend_from_slice(&8000u16.to_le_bytes());
        let mut k = KernelImage::default();
        apply_kernel_info("s", &d, &mut k).unwrap();
        assert_eq!(
            k.params,
            [ParamSlot {
                ordinal: 0,
                offset: 0,
                size: 8000,
                align: None,
            }]
        );
    }

    #[test]
    fn inconsistent_or_truncated_records_are_errors() {
        let mut k = KernelImage::default();
        let mut d = saxpy_info();
        d[8 + 12 + 2] = 30; // CBANK_PARAM_SIZE 30 != 28
        let err = apply_kernel_info("s", &d, &mut k).unwrap_err();
        assert!(err.to_string().contains("CBANK_PARAM_SIZE 30"), "{err}");
        let mut d = saxpy_info();
        d.truncate(d.len() - 3);
        assert!(apply_kernel_info("s", &d, &mut k).is_err());
        let d = [kparam(0, 0, 4), kparam(0, 4, 4)].concat();
        assert!(
            apply_kernel_info("s", &d, &mut k)
                .unwrap_err()
                .to_string()
                .contains("ordinals")
        );
        assert!(apply_kernel_info("s", &[9, 1, 0, 0], &mut k).is_err());
    }

    #[test]
    fn module_register_counts() {
        let d = [4, REGCOUNT, 8, 0, 0x11, 0, 0, 0, 10, 0, 0, 0];
        assert_eq!(register_counts(&d).unwrap(), [(0x11, 10)]);
    }
}
