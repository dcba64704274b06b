//! Forms found in real kernel libraries, each as a minimal source of our own
//! (`tests/real_world_forms/`), built through the whole pipeline with the real nvcc for
//! sm_80 and sm_90: every kernel of every compiled image must be declared with the layout
//! the image records (the pipeline verifies that), and each test checks the kernels, their
//! targets and their types.

mod support;

use cuda_kernel_build::BuiltModule;
use cuda_kernel_build::model::{CType, Kernel, ModuleInfo, Scalar};

/// Builds `tests/real_world_forms/<file>` for sm_80 and sm_90.
fn build(file: &str) -> Option<BuiltModule> {
    build_with(file, &[])
}

/// [`build`] with nvcc flags.
fn build_with(file: &str, flags: &[&str]) -> Option<BuiltModule> {
    let (built, _cache) = support::build_form(file, cuda_kernel_build::LinkMode::Whole, flags)?;
    assert_every_image_kernel_declared(&built);
    Some(built)
}

/// Every kernel symbol of every image is in the module: a typed kernel's symbol, or one
/// launched by name only.
fn assert_every_image_kernel_declared(built: &BuiltModule) {
    let bytes = std::fs::read(built.fatbin_path.as_ref().unwrap()).unwrap();
    let fatbin = cuda_kernel_objects::parse(&bytes).unwrap();
    for entry in &fatbin.entries {
        let image = entry.image().unwrap();
        // The layout table's kernels (`kernel_build_layout_<…>`) are the build's own.
        for k in image
            .kernels()
            .iter()
            .filter(|k| !k.symbol.starts_with("_Z20kernel_build_layout_"))
        {
            let info = &built.info;
            assert!(
                info.kernels.iter().any(|d| d.symbol == k.symbol)
                    || info.untyped.iter().any(|u| u.symbol == k.symbol),
                "{}: `{}` of the {} image is not declared",
                built.name,
                k.symbol,
                entry.target()
            );
        }
    }
}

fn kernel<'a>(info: &'a ModuleInfo, name: &str) -> &'a Kernel {
    info.kernels
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("no kernel `{name}` in {:?}", names(info)))
}

fn names(info: &ModuleInfo) -> Vec<&str> {
    info.kernels.iter().map(|k| k.name.as_str()).collect()
}

#[test]
fn arch_gated_kernels_generated_by_macros() {
    let Some(built) = build("arch_gated_macros.cu") else {
        return;
    };
    let info = &built.info;
    assert_eq!(
        names(info),
        [
            "affine_f32",
            "affine_f64",
            "affine_f16",
            "affine_bf16",
            "affine_f8_e4m3",
            "hopper_copy"
        ]
    );
    for k in &info.kernels[..5] {
        assert_eq!(k.targets(), ["sm_80", "sm_90"], "{}", k.name);
    }
    assert_eq!(kernel(info, "hopper_copy").targets(), ["sm_90"]);
    let mul = &kernel(info, "affine_f8_e4m3").params[4];
    assert_eq!(mul.ty, CType::Scalar(Scalar::Fp8E4M3));
    let summary: Vec<&String> = built
        .warnings
        .iter()
        .filter(|w| w.contains("not in every image"))
        .collect();
    assert_eq!(summary.len(), 1, "{:?}", built.warnings);
    assert!(summary[0].contains("1 of 6 kernels"), "{}", summary[0]);
}

#[test]
fn every_cuda_type_by_value() {
    let Some(built) = build("cuda_types.cu") else {
        return;
    };
    let info = &built.info;
    let fp8 = kernel(info, "fp8s");
    let tys: Vec<&CType> = fp8.params.iter().map(|p| &p.ty).collect();
    assert_eq!(tys[0], &CType::Scalar(Scalar::Fp8E4M3));
    assert_eq!(
        tys[4],
        &CType::Vector {
            elem: Scalar::Fp8E5M2,
            lanes: 4
        }
    );
    let enums = kernel(info, "complex_enum_dims");
    let slots: Vec<(u64, u64)> = enums
        .params
        .iter()
        .map(|p| (p.layout.offset, p.layout.size))
        .collect();
    // cuComplex (8, align 8), cuDoubleComplex (16, align 16), three enums (int, uint8_t,
    // int), dim3 and uint3 (12, align 4), a pointer.
    assert_eq!(
        slots,
        [
            (0, 8),
            (16, 16),
            (32, 4),
            (36, 1),
            (40, 4),
            (44, 12),
            (56, 12),
            (72, 8)
        ]
    );
    assert_eq!(enums.params[3].ty, CType::Scalar(Scalar::U8));
    // Texture and surface handles keep their identity (stubs take the runtime's objects).
    assert_eq!(
        kernel(info, "objects").params[0].ty,
        CType::Scalar(Scalar::TexObject)
    );
    assert_eq!(
        kernel(info, "objects").params[1].ty,
        CType::Scalar(Scalar::SurfObject)
    );
    assert_eq!(info.kernels.len(), 6);
}

#[test]
fn cxx_the_front_end_does_not_need_is_skipped() {
    let Some(built) = build("unknown_cxx.cu") else {
        return;
    };
    let info = &built.info;
    assert_eq!(
        names(info),
        [
            "scale_params",
            "ops::in_namespace",
            "ops::(anonymous namespace)::in_anonymous",
            "file_local",
            "big_param",
            "flags"
        ]
    );
    let big = kernel(info, "big_param");
    assert_eq!(
        (big.params[0].layout.size, big.params[1].layout.offset),
        (1024, 1024)
    );
    // `__launch_bounds__(BLOCK, 2 * 2)` with a constexpr BLOCK: taken from the image.
    let p = kernel(info, "scale_params");
    assert!(
        p.images.iter().all(|i| i.max_threads == Some(128)),
        "{:?}",
        p.images
    );
    assert!(kernel(info, "file_local").is_static);
    // Everything else is read (the function-pointer typedef and alias are types now)
    // or skipped without a word (functions, asserts, operators).
    assert!(info.skipped.is_empty(), "{:?}", info.skipped);
}

#[test]
fn library_types_class_templates_and_declarators() {
    let Some(built) = build("library_types.cu") else {
        return;
    };
    let info = &built.info;
    let mut got = names(info);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "apply_op",
            "apply_unary",
            "bias_add<float, false>",
            "bias_add<float, true>",
            "containers",
            "integrate<double>",
            "integrate<float>",
            "price<double>",
            "price<float>",
            "records",
            "rows",
            "volume",
            "widen<double>",
            "widen<float>",
        ]
    );
    let size = |name: &str| info.struct_def(name).map(|s| (s.size, s.align));
    // Library structs come with their header's layout; the ones no kernel uses stay out.
    assert_eq!(size("cudaExtent"), Some((24, 8)));
    assert_eq!(size("cudaPitchedPtr"), Some((32, 8)));
    assert_eq!(size("cudaPos"), Some((24, 8)));
    assert!(size("cudaDeviceProp").is_none());
    // Class templates under their canonical names, laid out per argument list.
    assert_eq!(size("interval<float>"), Some((8, 4)));
    assert_eq!(size("interval<double>"), Some((16, 8)));
    assert_eq!(size("small_vec<double, 3>"), Some((32, 8)));
    assert_eq!(size("Container<int>"), Some((16, 8)));
    assert_eq!(size("std::integral_constant<bool, true>"), Some((1, 1)));
    // Its own enumeration is an `int` field.
    assert_eq!(size("option<double>"), Some((24, 8)));
    // Base classes first, the empty one in no room.
    assert_eq!(size("record"), Some((16, 8)));
    assert_eq!(size("small_record"), Some((4, 2)));
    let fields = |name: &str| -> Vec<(String, u64)> {
        let s = info.struct_def(name).unwrap();
        s.fields
            .iter()
            .map(|f| (f.name.clone(), f.layout.offset))
            .collect()
    };
    assert_eq!(fields("record"), [("base0".into(), 0), ("score".into(), 8)]);
    assert_eq!(
        fields("small_record"),
        [("base".into(), 0), ("flag".into(), 2)]
    );
    let w = kernel(info, "widen<double>");
    assert_eq!(
        w.params.iter().map(|p| p.layout.offset).collect::<Vec<_>>(),
        [0, 8, 24]
    );
    // `vec4<float>::Type` is the specialization's `float4`.
    let ptr_to = |k: &str, i: usize| match &kernel(info, k).params[i].ty {
        CType::Pointer { pointee, .. } => (**pointee).clone(),
        other => panic!("{k}: {other:?}"),
    };
    assert_eq!(
        ptr_to("integrate<float>", 0),
        CType::Vector {
            elem: Scalar::F32,
            lanes: 4
        }
    );
    assert_eq!(
        kernel(info, "apply_op").params[0].ty,
        CType::Scalar(Scalar::DeviceFn)
    );
    assert_eq!(
        kernel(info, "apply_unary").params[0].ty,
        CType::Scalar(Scalar::DeviceFn)
    );
    let g = info.globals.iter().find(|g| g.name == "ops").unwrap();
    assert_eq!(g.size, 16);
    assert_eq!(
        ptr_to("rows", 1),
        CType::Array {
            elem: Box::new(CType::Array {
                elem: Box::new(CType::Scalar(Scalar::F32)),
                len: 2
            }),
            len: 4
        }
    );
    assert!(info.skipped.is_empty(), "{:?}", info.skipped);
}

#[test]
fn templates_instantiated_by_host_launches() {
    let Some(built) = build("launched_templates.cu") else {
        return;
    };
    let info = &built.info;
    let mut got = names(info);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "apply<neg>",
            "apply<sq>",
            "fill<float>",
            "fill<int>",
            "quant::dequant<32, __half>",
            "quant::dequant<32, float>",
            "reduce_rows<__half, 128, false>",
            "reduce_rows<float, 128, false>",
            "reduce_rows<float, 256, true>",
            "sum_all<float, const float*, const float*, const float*>",
            "sum_all<float, const float*, const float*>",
            "unary<neg, float>",
        ]
    );
    let three = kernel(
        info,
        "sum_all<float, const float*, const float*, const float*>",
    );
    let slots: Vec<(u64, u64)> = three
        .params
        .iter()
        .map(|p| (p.layout.offset, p.layout.size))
        .collect();
    assert_eq!(slots, [(0, 8), (8, 4), (16, 8), (24, 8), (32, 8)]);
    assert_eq!(three.params[1].name.as_deref(), Some("n"));
    let r = kernel(info, "reduce_rows<__half, 128, false>");
    assert!(
        r.symbol.starts_with("_Z11reduce_rowsI6__halfLi128ELb0EE"),
        "{}",
        r.symbol
    );
    assert_eq!(r.targets(), ["sm_80", "sm_90"]);
    // Located at the template's definition.
    assert_eq!(r.loc.as_ref().map(|l| l.line), Some(11));
}

/// Array extents and template arguments that name `constexpr` integers and enumerators
/// (scoped, unscoped, implicit values): the structs are laid out and the instantiations
/// found, named as the compiler's demangler shows them.
#[test]
fn named_constants_in_extents_and_template_arguments() {
    let Some(built) = build("named_constants.cu") else {
        return;
    };
    let info = &built.info;
    assert_eq!(
        names(info),
        [
            "fill<(Op)1>",
            "fill<(Op)2>",
            "wide<16, (cfg::Mode)4>",
            "tab",
            "blocks"
        ]
    );
    let table = info.structs.iter().find(|s| s.name == "Table").unwrap();
    assert_eq!((table.size, table.fields[1].layout.offset), (24, 20));
    let block = info.structs.iter().find(|s| s.name == "Block").unwrap();
    assert_eq!(
        block.fields[0].ty,
        CType::Array {
            elem: Box::new(CType::Scalar(Scalar::U8)),
            len: 32
        }
    );
    assert_eq!((block.size, block.fields[1].layout.offset), (36, 32));
}

/// A class template whose fields name its member types, launched from host code only: the
/// instances are laid out with those types bound, so the kernels are typed, not by name only.
#[test]
fn class_templates_with_member_types_are_typed() {
    let Some(built) = build("member_types.cu") else {
        return;
    };
    let info = &built.info;
    assert!(info.untyped.is_empty(), "{:?}", info.untyped);
    assert_eq!(
        names(info),
        [
            "Decode<4, Params<float, float, int>>",
            "Decode<4, Params<double, double, int>>"
        ]
    );
    let p = info
        .structs
        .iter()
        .find(|s| s.name == "Params<double, double, int>")
        .unwrap();
    let offsets: Vec<u64> = p.fields.iter().map(|f| f.layout.offset).collect();
    assert_eq!(offsets, [0, 8, 32, 36]);
    assert_eq!(p.size, 40);
}

/// Parameter types the front end can name but not lay out (a library operator's
/// `typename Op::Params` instantiated by an explicit instantiation and by a host launch, a
/// pointer to such a type) are measured by nvcc and typed as opaque structs; a bit-field
/// struct is laid out, its bit-fields as bytes; a closure stays launchable by name only, with
/// why.
#[test]
fn types_the_front_end_cannot_lay_out_are_measured_and_opaque() {
    let Some(built) = build_with("opaque_params.cu", &["--extended-lambda"]) else {
        return;
    };
    let info = &built.info;
    let mut got = names(info);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "count_on",
            "layout_of",
            "lib::Kernel<lib::Axpy<double>>",
            "lib::Kernel<lib::Axpy<float>>",
            "with_bits"
        ]
    );
    let opaque = |name: &str| {
        info.structs
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no struct `{name}` in {:?}", info.structs))
    };
    let flags = opaque("Flags");
    assert!(!flags.opaque);
    assert_eq!((flags.size, flags.align), (4, 4));
    let bits: Vec<(&str, u64, u64)> = flags
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.layout.offset, f.layout.size))
        .collect();
    assert_eq!(bits, [("__bits0", 0, 1)]);
    assert!(info.layouts_measured.iter().any(|m| m == "Flags"));
    let p = opaque("lib::Axpy<double>::Params");
    assert!(p.opaque);
    assert_eq!((p.size, p.align), (32, 8));
    assert_eq!(opaque("lib::Axpy<float>::Params").size, 32);
    // The operator itself only selects the instantiation: named, with no bytes.
    let op = opaque("lib::Axpy<float>");
    assert!(op.opaque && op.name_only && op.size == 0, "{op:?}");
    assert!(!p.name_only && !flags.name_only);
    let k = kernel(info, "lib::Kernel<lib::Axpy<double>>");
    assert_eq!(k.params[0].name.as_deref(), Some("params"));
    assert_eq!(
        k.params[0].ty,
        CType::Struct("lib::Axpy<double>::Params".into())
    );
    let with_bits = kernel(info, "with_bits");
    let slots: Vec<(u64, u64)> = with_bits
        .params
        .iter()
        .map(|p| (p.layout.offset, p.layout.size))
        .collect();
    assert_eq!(slots, [(0, 8), (8, 4), (12, 4)]);
    assert!(matches!(
        &kernel(info, "count_on").params[0].ty,
        CType::Pointer { pointee, pointee_quals } if **pointee == CType::Struct("Flags".into()) && pointee_quals.is_const
    ));
    // The toolkit's enumerations are read as integers, not measured.
    assert!(
        kernel(info, "layout_of")
            .params
            .iter()
            .all(|p| !matches!(p.ty, CType::Struct(_)))
    );
    assert_eq!(info.untyped.len(), 1, "{:?}", info.untyped);
    let closure = &info.untyped[0];
    assert!(
        closure.name.starts_with("each<twice(float*, int)::{lambda"),
        "{}",
        closure.name
    );
    assert!(closure.why.contains("closure"), "{}", closure.why);
    // Nothing left noted as skipped about the kernels now typed.
    assert!(
        !info.skipped.iter().any(|s| s.contains("lib6Kernel")),
        "{:?}",
        info.skipped
    );
}

/// Parameters aligned to 128 (`CUtensorMap`, and a struct holding two) sit where each target's
/// constant bank puts them: both images are verified, the kernels typed, the struct laid out
/// with the descriptor's size and alignment.
#[test]
fn tensor_maps_and_structs_holding_them_are_typed_on_every_target() {
    let Some(built) = build("tensor_maps.cu") else {
        return;
    };
    let info = &built.info;
    assert!(info.untyped.is_empty(), "{:?}", info.untyped);
    let loads = info.structs.iter().find(|s| s.name == "Loads").unwrap();
    assert_eq!((loads.size, loads.align), (384, 128));
    let after = kernel(info, "map_after");
    assert_eq!(after.params[1].ty, CType::Scalar(Scalar::TensorMap));
    assert_eq!(after.params[1].layout.size, 128);
    // Past the int, at the 128-byte boundary of the first image's bank (sm_80's).
    assert!(after.params[1].layout.offset >= 16, "{:?}", after.params);
    assert_eq!(after.targets(), ["sm_80", "sm_90"]);
    assert_eq!(kernel(info, "two_maps").targets(), ["sm_80", "sm_90"]);
}

/// A kernel file whose host side includes `<atomic>` (a using-declaration of an operator in
/// libstdc++) builds with its kernel typed.
#[test]
fn host_standard_headers_leave_the_kernel_typed() {
    let Some(built) = build("host_std_headers.cu") else {
        return;
    };
    let k = kernel(&built.info, "scale");
    assert_eq!(k.params.len(), 3);
    assert!(built.info.untyped.is_empty(), "{:?}", built.info.untyped);
}
