//! Unit tests of the type model: vector layouts and C spellings.

use super::{c_spelling, header_type, size_align};
use crate::model::{CType, Qualifiers, Scalar};

#[test]
fn vector_alignments_follow_cuda() {
    let cases = [
        ("char2", 2, 2),
        ("char3", 3, 1),
        ("short4", 8, 8),
        ("int4", 16, 16),
        ("float2", 8, 8),
        ("float3", 12, 4),
        ("double2", 16, 16),
        ("longlong4", 32, 16),
        ("double4_16a", 32, 16),
        ("__half2", 4, 4),
    ];
    for (name, size, align) in cases {
        assert_eq!(
            size_align(&header_type(name).unwrap(), &[]),
            Some((size, align)),
            "{name}"
        );
    }
    assert!(header_type("float5").is_none() && header_type("double4_32a").is_none());
}

#[test]
fn spelling_of_nested_pointers() {
    let f = CType::Scalar(Scalar::F32);
    let pcf = CType::Pointer {
        pointee: Box::new(f),
        pointee_quals: Qualifiers {
            is_const: true,
            is_volatile: false,
        },
    };
    let pp = CType::Pointer {
        pointee: Box::new(pcf),
        pointee_quals: Qualifiers {
            is_const: true,
            is_volatile: false,
        },
    };
    assert_eq!(c_spelling(&pp), "const float* const*");
    let nested = CType::Array {
        elem: Box::new(CType::Array {
            elem: Box::new(CType::Scalar(Scalar::I32)),
            len: 2,
        }),
        len: 3,
    };
    assert_eq!(c_spelling(&nested), "int[3][2]");
}
