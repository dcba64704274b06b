//! Tests of the generators' text (compiling it is tested with nvcc by cuda-kernel-build and
//! on the GPU by the runtime's tests).

use super::*;

fn axpy(body: &str, dtype: Dtype) -> Module {
    Module {
        preamble: None,
        kernels: vec![Kernel::Elementwise(Elementwise {
            name: format!("axpy_{dtype}"),
            label: "axpy".into(),
            params: vec![
                Param::new("a", dtype, Access::Scalar),
                Param::new("x", dtype, Access::In),
                Param::new("y", dtype, Access::Out),
            ],
            body: body.into(),
        })],
    }
}

#[test]
fn elementwise_vector_width_follows_the_widest_slice() {
    for (dtype, width) in [
        (Dtype::F32, 4),
        (Dtype::F64, 2),
        (Dtype::F16, 8),
        (Dtype::U8, 16),
    ] {
        let g = axpy("y[i] = a * x[i] + y[i]", dtype).source().unwrap();
        assert_eq!(g.kernels[0].width, width, "{dtype}");
        assert!(
            g.source
                .contains(&format!("kg_vec<{}, {width}>", dtype.c_name()))
        );
    }
}

#[test]
fn an_unsafe_body_has_no_vector_path_and_says_why() {
    let g = axpy("y[i] = x[i + 1]", Dtype::F32).source().unwrap();
    assert_eq!(g.kernels[0].width, 1);
    assert!(!g.source.contains("kg_chunks"));
    let reason = g.kernels[0].unsafe_reason.as_deref().unwrap();
    assert!(reason.contains("`x` other than as `x[i]`"), "{reason}");
}

#[test]
fn half_types_include_their_header() {
    let g = axpy("y[i] = x[i]", Dtype::F16).source().unwrap();
    assert!(g.source.contains("#include <cuda_fp16.h>"));
    assert!(!g.source.contains("cuda_bf16.h"));
}

#[test]
fn every_user_text_is_a_region_that_locates_back() {
    let g = axpy("y[i] = a * x[i] + y[i]", Dtype::F32).source().unwrap();
    // The scalar path (first, as written) and the vector path (substituted) hold the body.
    assert_eq!(g.regions.len(), 2);
    let lines: Vec<&str> = g.source.lines().collect();
    for r in &g.regions {
        assert_eq!((r.kernel.as_str(), r.part.as_str()), ("axpy", "body"));
        assert!(
            lines[r.first - 1].contains("a * "),
            "{}",
            lines[r.first - 1]
        );
    }
    let scalar = g.regions[0].first;
    assert_eq!(lines[scalar - 1], "y[i] = a * x[i] + y[i];");
    let log = format!("/tmp/m.cu:{scalar}:5: error: bad\nnvcc note");
    assert_eq!(
        g.explain(&log),
        "in the body of `axpy`: error: bad\nnvcc note"
    );
}

#[test]
fn an_output_assigned_first_is_not_loaded_by_the_vector_path() {
    let g = axpy("y[i] = a * x[i]", Dtype::F32).source().unwrap();
    assert!(g.source.contains("kg_vec<float, 4> kg_y;"));
    let g = axpy("if (x[i] > 0) y[i] = a", Dtype::F32).source().unwrap();
    assert!(
        g.source.contains("kg_y = reinterpret_cast"),
        "a conditional write keeps the old values"
    );
}

#[test]
fn mistakes_are_collected_for_every_kernel() {
    let mut m = axpy("x[i] = 1", Dtype::F32);
    m.kernels.push(Kernel::Reduction(Reduction {
        name: "s".into(),
        label: "total".into(),
        params: vec![Param::new("n", Dtype::F32, Access::In)],
        output: Dtype::F32,
        map: "n[i]".into(),
        reduce: "a + (b".into(),
        identity: "0".into(),
        post: None,
    }));
    let errors = m.source().unwrap_err();
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        texts[0].starts_with("in the body of `axpy`: `x` is an input"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("in the parameters of `total`: a parameter cannot be named `n`: the expressions use it for the element count")), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains("in the reduce of `total`: a `(` is not closed")),
        "{texts:?}"
    );
}

#[test]
fn reduction_kernels_and_width() {
    let m = Module {
        preamble: None,
        kernels: vec![Kernel::Reduction(Reduction {
            name: "dot_f32".into(),
            label: "dot".into(),
            params: vec![
                Param::new("x", Dtype::F32, Access::In),
                Param::new("y", Dtype::F16, Access::In),
                Param::new("scale", Dtype::F64, Access::Scalar),
            ],
            output: Dtype::F64,
            map: "scale * x[i] * (double)__half2float(y[i])".into(),
            reduce: "a + b".into(),
            identity: "0".into(),
            post: Some("r / n".into()),
        })],
    };
    let g = m.source().unwrap();
    assert_eq!(
        g.kernels[0].entry_points,
        ["dot_f32_partial", "dot_f32_final"]
    );
    assert_eq!(g.kernels[0].width, 4);
    assert_eq!(g.kernels[0].unsafe_reason, None);
    assert!(
        g.source
            .contains("double scale, const double* __restrict__ kg_partials")
    );
}

#[test]
fn scan_kernel_names_and_exclusive_store() {
    let scan = |exclusive| Module {
        preamble: None,
        kernels: vec![Kernel::Scan(Scan {
            name: "cumsum_i32".into(),
            label: "cumsum".into(),
            dtype: Dtype::I32,
            input: "x".into(),
            output: "y".into(),
            op: "a + b".into(),
            identity: "0".into(),
            exclusive,
        })],
    };
    let inc = scan(false).source().unwrap();
    let exc = scan(true).source().unwrap();
    assert!(inc.source.contains("kg_op(kg_prefix, kg_v[k])"));
    assert!(exc.source.contains("k == 0 ? kg_prefix"));
    assert_eq!(inc.kernels[0].width, geometry::scan_items(Dtype::I32));
}

#[test]
fn a_reduce_operator_may_not_name_slices() {
    let m = Module {
        preamble: None,
        kernels: vec![Kernel::Reduction(Reduction {
            name: "m".into(),
            label: "m".into(),
            params: vec![Param::new("x", Dtype::F32, Access::In)],
            output: Dtype::F32,
            map: "x[i]".into(),
            reduce: "a + x[0]".into(),
            identity: "0".into(),
            post: None,
        })],
    };
    let g = m.source().unwrap();
    assert!(
        g.kernels[0]
            .unsafe_reason
            .as_deref()
            .unwrap()
            .contains("`x`")
    );
}
