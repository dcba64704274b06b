//! Opaque parameter types: the second level of typing.
//!
//! A kernel left untyped by the front end (a parameter type it cannot lay out: bit-fields,
//! `typename Op::Params` of a library's operator class, a class it does not follow) still
//! has a symbol that names every parameter type. When each of those types is either one
//! the front end reads (`float*`, a struct of the module) or one C++ can name at the end
//! of the file, the kernel becomes typed all the same: every named type it cannot lay
//! out is measured by the compiler (`sizeof`/`alignof`, [`crate::compile::probe`]) and
//! becomes an opaque struct of that many bytes and that alignment, and the parameter
//! list is verified against the image again before the kernel is promoted. Closures and
//! unnamed types stay untyped (the third level: launched by name).
//!
//! Most of those types are passed by value, and nvcc has laid them out already: every image
//! gives a parameter's size, and the PTX of the unit's compile (kept with its other
//! intermediate files) its alignment (`.param .align 16 .b8 p[48]`), so they are read
//! there ([`measure_from_images`]) with no further compile. A type the kernels are only
//! instantiated with (`cutlass::Kernel<Op>(Op::Params)`'s `Op`) has no bytes any kernel
//! holds: it is named only ([`Wanted::held`]). What is left, a type behind a pointer (or by
//! value where no PTX was kept), is measured by a probe compile ([`crate::compile::probe`]).
//!
//! ```text
//! untyped (symbol + image layout) ──wanted──▶ types to measure
//!     ──▶ by value: size from the images, alignment from the kept PTX
//!     ──▶ template arguments only: named, no bytes
//!     ──▶ behind pointers: probe (sizeof, alignof)
//!     ──promote──▶ Kernel with Struct(opaque) params, checked against the image layout
//! ```

use crate::compile::probe::Measured;
use crate::front::demangle::{Demangled, demangle};
use crate::front::names::read_type;
use crate::front::types::{TypeEnv, size_align};
use crate::model::{
    CType, Kernel, KernelAttrs, Layout, Linkage, ModuleInfo, Param, Qualifiers, StructDef,
    TemplateArg, UntypedKernel,
};
use cuda_kernel_objects::KernelImage;

/// One parameter or template argument of an untyped kernel, as it would be typed.
#[derive(Clone, Debug, PartialEq)]
enum Plan {
    /// The front end types it.
    Typed(CType),
    /// A named type (`base`), behind `levels` pointers (each with its pointee's
    /// qualifiers, innermost first), that the compiler must measure.
    Opaque {
        base: String,
        levels: Vec<Qualifiers>,
    },
    /// Nothing C++ can name at the end of the file (a closure, an unnamed type).
    Unnameable,
}

/// A type the module's untyped kernels name but the front end cannot lay out, and how they
/// use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wanted {
    /// Its C++ spelling, as the symbols' demangling prints it.
    pub name: String,
    /// A parameter holds it, by value or behind a pointer. When none does, only template
    /// arguments name it: it is named without bytes and never measured.
    pub held: bool,
    /// A kernel that is not one of CUDA's own C++ libraries' ([`of_cccl`]) needs it.
    pub outside_cccl: bool,
}

/// The types the module's untyped kernels need, each once, in order of first use: for an
/// untyped kernel `k(Flags, float*)` whose `Flags` has bit-fields, `Flags`, held by a
/// parameter (the unit test `measured_types_promote_a_kernel_whose_layout_then_agrees`
/// shows it).
pub(crate) fn wanted(info: &ModuleInfo) -> Vec<Wanted> {
    let env = TypeEnv::with_structs(info.structs.clone());
    let mut out: Vec<Wanted> = Vec::new();
    for u in info.untyped.iter().filter(|u| promotable(u)) {
        let Some(plans) = param_plans(u, &env, info) else {
            continue;
        };
        let args = demangle(&u.symbol)
            .map(|d| d.template_args)
            .unwrap_or_default();
        let arg_types = args
            .iter()
            .filter(|a| !is_value(a))
            .map(|a| (plan(a, &env, info), false));
        let outside_cccl = !of_cccl(u);
        for (p, held) in plans.into_iter().map(|p| (p, true)).chain(arg_types) {
            let Plan::Opaque { base, .. } = p else {
                continue;
            };
            match out.iter_mut().find(|w| w.name == base) {
                Some(w) => {
                    w.held |= held;
                    w.outside_cccl |= outside_cccl;
                }
                None => out.push(Wanted {
                    name: base,
                    held,
                    outside_cccl,
                }),
            }
        }
    }
    out
}

/// Whether `u` is a kernel of CUDA's own C++ libraries (CUB, Thrust, libcu++), which their
/// algorithms instantiate and launch themselves: in a module because its file includes
/// them, not part of what the module declares.
fn of_cccl(u: &UntypedKernel) -> bool {
    ["cub::", "thrust::", "cuda::"]
        .iter()
        .any(|p| u.name.starts_with(p))
}

/// The opaque types the images lay out: those the module's untyped kernels take by value,
/// each with the size every image gives that parameter and the alignment the PTX entries of
/// the same symbol declare (`ptx`, from nvcc's kept intermediate files). A type whose
/// parameters disagree (two sizes, or a PTX size other than the image's) is left out, for
/// the probe to measure.
pub(crate) fn measure_from_images(info: &ModuleInfo, ptx: &[KernelImage]) -> Vec<Measured> {
    let env = TypeEnv::with_structs(info.structs.clone());
    // In order of first use; `None` once two parameters of the type disagree.
    let mut found: Vec<(String, Option<(u64, u64)>)> = Vec::new();
    for u in info.untyped.iter().filter(|u| promotable(u)) {
        let Some(plans) = param_plans(u, &env, info) else {
            continue;
        };
        let entries: Vec<&KernelImage> = ptx
            .iter()
            .filter(|k| k.symbol == u.symbol && k.params.len() == u.params.len())
            .collect();
        for (i, p) in plans.iter().enumerate() {
            let Plan::Opaque { base, levels } = p else {
                continue;
            };
            if !levels.is_empty() {
                continue;
            }
            let size = u.params[i].size;
            let aligns: Vec<Option<u64>> = entries
                .iter()
                .map(|k| {
                    let slot = &k.params[i];
                    (u64::from(slot.size) == size)
                        .then_some(slot.align.map(u64::from))
                        .flatten()
                })
                .collect();
            let agreed = match aligns.split_first() {
                Some((first, rest)) if rest.iter().all(|a| a == first) => *first,
                _ => None,
            };
            let this = agreed.map(|align| (size, align));
            match found.iter_mut().find(|(n, _)| n == base) {
                Some((_, known)) if *known != this => *known = None,
                Some(_) => {}
                None => found.push((base.clone(), this)),
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(name, m)| m.map(|(size, align)| Measured { name, size, align }))
        .collect()
}

/// Promotes every untyped kernel whose parameters are all typed or measured: its opaque
/// types join [`ModuleInfo::structs`] (marked [`StructDef::opaque`]), and the kernel
/// joins [`ModuleInfo::kernels`] when its parameter list, laid out with the measured
/// sizes and alignments, is the image's. `named` are the types its template arguments name
/// that need no layout (no parameter holds them, [`Wanted::held`]). `failed` holds the types the compiler could not
/// measure with why; the kernels that need them say so in their reason.
pub(crate) fn promote(
    info: &mut ModuleInfo,
    measured: &[Measured],
    named: &[String],
    failed: &[(String, String)],
) {
    let mut structs = info.structs.clone();
    for name in named {
        if !structs.iter().any(|s| s.name == *name) {
            structs.push(StructDef {
                name: name.clone(),
                fields: Vec::new(),
                size: 0,
                align: 1,
                is_union: false,
                opaque: true,
                name_only: true,
                rust_path: None,
                loc: None,
            });
        }
    }
    for m in measured {
        if !structs.iter().any(|s| s.name == m.name) {
            structs.push(StructDef {
                name: m.name.clone(),
                fields: Vec::new(),
                size: m.size,
                align: m.align,
                is_union: false,
                opaque: true,
                name_only: false,
                rust_path: None,
                loc: None,
            });
        }
    }
    let env = TypeEnv::with_structs(info.structs.clone());
    let mut used: Vec<String> = Vec::new();
    let mut kept: Vec<UntypedKernel> = Vec::new();
    let mut promoted: Vec<Kernel> = Vec::new();
    for mut u in std::mem::take(&mut info.untyped) {
        let plans = if promotable(&u) {
            param_plans(&u, &env, info)
        } else {
            None
        };
        let Some(plans) = plans else {
            kept.push(u);
            continue;
        };
        let mut types: Vec<CType> = Vec::new();
        let mut missing: Option<String> = None;
        for p in &plans {
            match p {
                Plan::Typed(t) => types.push(t.clone()),
                Plan::Opaque { base, levels } => {
                    if measured.iter().any(|m| m.name == *base) {
                        types.push(wrap(base, levels));
                    } else {
                        missing = Some(base.clone());
                        break;
                    }
                }
                // `param_plans` leaves out kernels with these.
                Plan::Unnameable => {
                    missing = Some(String::new());
                    break;
                }
            }
        }
        if let Some(base) = missing {
            if let Some((_, why)) = failed.iter().find(|(n, _)| *n == base) {
                u.why
                    .push_str(&format!("; the compiler could not measure `{base}`: {why}"));
            }
            kept.push(u);
            continue;
        }
        let image: Vec<(u64, u64)> = u.params.iter().map(|l| (l.offset, l.size)).collect();
        let layouts = match lay_out(&types, &structs) {
            Some(l)
                if cuda_kernel_objects::param_layout_agrees(
                    &l.iter().map(|l| (l.size, l.align)).collect::<Vec<_>>(),
                    &image,
                ) =>
            {
                // Where the image puts them (over-aligned ones depend on the target).
                l.into_iter()
                    .zip(&image)
                    .map(|(l, &(offset, _))| Layout { offset, ..l })
                    .collect::<Vec<_>>()
            }
            _ => {
                u.why.push_str(
                    "; laid out with the sizes the compiler measured, its parameters still differ from the image",
                );
                kept.push(u);
                continue;
            }
        };
        let kernel = kernel_of(&u, types, layouts, &env, info, measured, named);
        let arg_types = kernel.template_args.iter().filter_map(|a| match a {
            TemplateArg::Type(t) => Some(t),
            TemplateArg::Value(_) => None,
        });
        for name in kernel
            .params
            .iter()
            .map(|p| &p.ty)
            .chain(arg_types)
            .filter_map(CType::struct_name)
        {
            if !used.iter().any(|u| u == name) {
                used.push(name.to_owned());
            }
        }
        promoted.push(kernel);
    }
    // The opaque types a promoted kernel uses join the module's structs.
    for s in structs.into_iter().filter(|s| s.opaque) {
        if used.contains(&s.name) && !info.structs.iter().any(|x| x.name == s.name) {
            info.structs.push(s);
        }
    }
    info.untyped = kept;
    // What the front end noted about a kernel it left out is no longer true of one promoted.
    info.skipped.retain(|line| {
        !promoted
            .iter()
            .any(|k| line.contains(&format!("`{}`", k.symbol)))
    });
    info.kernels.extend(promoted);
}

/// An untyped kernel the images describe fully: a C++ symbol whose demangled parameter
/// list has one type per parameter slot of the image.
fn promotable(u: &UntypedKernel) -> bool {
    let named = u.symbol.starts_with("_Z") || !u.param_types.is_empty();
    named && !u.images.is_empty() && u.param_types.len() == u.params.len()
}

/// Every parameter's plan, or `None` when one is not nameable.
fn param_plans(u: &UntypedKernel, env: &TypeEnv, info: &ModuleInfo) -> Option<Vec<Plan>> {
    let plans: Vec<Plan> = u.param_types.iter().map(|t| plan(t, env, info)).collect();
    if plans.contains(&Plan::Unnameable) {
        None
    } else {
        Some(plans)
    }
}

/// How a type printed by the demangler would be typed.
fn plan(spelling: &str, env: &TypeEnv, info: &ModuleInfo) -> Plan {
    if let Some(t) = read_type(spelling, env) {
        return Plan::Typed(t);
    }
    let Some((base, levels)) = split_pointers(spelling) else {
        return Plan::Unnameable;
    };
    let unnameable = ["{lambda", "{unnamed", "{parm#", "[abi:", "'"]
        .iter()
        .any(|m| base.contains(m));
    // A struct the front end laid out but that the image contradicts is not re-typed
    // under the same name.
    let laid_out = info.structs.iter().any(|s| s.name == base && !s.opaque);
    if unnameable || laid_out || base.is_empty() || base == "void" {
        Plan::Unnameable
    } else {
        Plan::Opaque { base, levels }
    }
}

/// Splits `T const* volatile*` into `T` and its pointer levels: for each `*`, the
/// qualifiers of what it points to (innermost first). `None` for references and other
/// declarators a kernel parameter cannot have.
fn split_pointers(spelling: &str) -> Option<(String, Vec<Qualifiers>)> {
    let s = spelling.trim();
    let mut depth = 0i32;
    let mut end = s.len();
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            '*' | '&' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let (head, tail) = s.split_at(end);
    let (mut base, mut quals) = (head.trim(), Qualifiers::default());
    loop {
        // A declaration's spelling (`const struct Flags`) as well as the demangler's.
        if let Some(b) = base.strip_prefix("const ") {
            quals.is_const = true;
            base = b.trim_start();
        } else if let Some(b) = base.strip_prefix("volatile ") {
            quals.is_volatile = true;
            base = b.trim_start();
        } else if let Some(b) = ["struct ", "union ", "class ", "enum "]
            .iter()
            .find_map(|k| base.strip_prefix(k))
        {
            base = b.trim_start();
        } else if let Some(b) = base.strip_suffix(" const") {
            quals.is_const = true;
            base = b.trim_end();
        } else if let Some(b) = base.strip_suffix(" volatile") {
            quals.is_volatile = true;
            base = b.trim_end();
        } else {
            break;
        }
    }
    let mut levels = Vec::new();
    let mut rest = tail.trim();
    while let Some(r) = rest.strip_prefix('*') {
        levels.push(quals);
        quals = Qualifiers::default();
        rest = r.trim_start();
        loop {
            if let Some(r) = rest.strip_prefix("const") {
                quals.is_const = true;
                rest = r.trim_start();
            } else if let Some(r) = rest.strip_prefix("volatile") {
                quals.is_volatile = true;
                rest = r.trim_start();
            } else if let Some(r) = ["__restrict__", "__restrict"]
                .iter()
                .find_map(|k| rest.strip_prefix(k))
            {
                rest = r.trim_start();
            } else {
                break;
            }
        }
    }
    rest.is_empty().then(|| (base.to_owned(), levels))
}

/// The opaque struct `base` behind its pointer levels.
fn wrap(base: &str, levels: &[Qualifiers]) -> CType {
    let mut t = CType::Struct(base.to_owned());
    for q in levels {
        t = CType::Pointer {
            pointee: Box::new(t),
            pointee_quals: *q,
        };
    }
    t
}

/// Parameter layouts in the kernel parameter buffer (each at its alignment, in order).
fn lay_out(types: &[CType], structs: &[StructDef]) -> Option<Vec<Layout>> {
    let mut offset = 0u64;
    let mut out = Vec::new();
    for t in types {
        let (size, align) = size_align(t, structs)?;
        let at = offset.next_multiple_of(align.max(1));
        out.push(Layout {
            offset: at,
            size,
            align,
        });
        offset = at + size;
    }
    Some(out)
}

/// Whether a demangled template argument is a value (`4`, `8u`, `(Op)1`, `true`).
fn is_value(arg: &str) -> bool {
    let a = arg.trim();
    a == "true"
        || a == "false"
        || a.starts_with('(')
        || a.starts_with('-')
        || a.starts_with(|c: char| c.is_ascii_digit())
}

/// The typed kernel an untyped one becomes.
fn kernel_of(
    u: &UntypedKernel,
    types: Vec<CType>,
    layouts: Vec<Layout>,
    env: &TypeEnv,
    info: &ModuleInfo,
    measured: &[Measured],
    named: &[String],
) -> Kernel {
    let linkage = if u.symbol.starts_with("_Z") {
        Linkage::Cxx
    } else {
        Linkage::C
    };
    let d = demangle(&u.symbol).unwrap_or(Demangled {
        name: u.name.clone(),
        template_args: Vec::new(),
        params: Vec::new(),
    });
    let mut namespace: Vec<String> = d.name.split("::").map(str::to_owned).collect();
    let base_name = namespace.pop().unwrap_or_default();
    let template_args = d
        .template_args
        .iter()
        .map(|a| {
            if is_value(a) {
                return TemplateArg::Value(a.clone());
            }
            match plan(a, env, info) {
                Plan::Typed(t) => TemplateArg::Type(t),
                Plan::Opaque { base, levels }
                    if measured.iter().any(|m| m.name == base) || named.contains(&base) =>
                {
                    TemplateArg::Type(wrap(&base, &levels))
                }
                _ => TemplateArg::Value(a.clone()),
            }
        })
        .collect();
    let params = types
        .into_iter()
        .zip(layouts)
        .enumerate()
        .map(|(i, (ty, layout))| Param {
            name: u.param_names.get(i).cloned().flatten(),
            written: u.param_types[i].clone(),
            ty,
            grid_constant: false,
            layout,
            loc: None,
        })
        .collect();
    Kernel {
        name: u.name.clone(),
        base_name,
        namespace,
        template_args,
        symbol: u.symbol.clone(),
        linkage,
        is_static: false,
        params,
        attrs: KernelAttrs::default(),
        doc: None,
        loc: u.loc.clone(),
        images: u.images.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_levels_split_from_the_named_type() {
        let (b, l) = split_pointers("Axpy<float>::Params").unwrap();
        assert_eq!((b.as_str(), l.len()), ("Axpy<float>::Params", 0));
        let (b, l) = split_pointers("Flags const*").unwrap();
        assert_eq!(b, "Flags");
        assert!(l[0].is_const);
        let (b, l) = split_pointers("cfg<int (*)(int)> volatile* const*").unwrap();
        assert_eq!(b, "cfg<int (*)(int)>");
        assert!(l[0].is_volatile && l[1].is_const && !l[1].is_volatile);
        assert!(split_pointers("Flags&").is_none());
        let (b, l) = split_pointers("const struct Flags* __restrict__").unwrap();
        assert_eq!(b, "Flags");
        assert!(l[0].is_const && l.len() == 1);
    }

    #[test]
    fn closures_are_not_named_and_library_types_are() {
        let info = ModuleInfo::default();
        let env = TypeEnv::default();
        assert_eq!(
            plan("go(float*)::{lambda(unsigned int)#1}", &env, &info),
            Plan::Unnameable
        );
        assert_eq!(plan("float const*", &env, &info), {
            Plan::Typed(read_type("float const*", &env).unwrap())
        });
        assert!(matches!(
            plan("cutlass::gemm::kernel::Gemm<int, 2>::Params", &env, &info),
            Plan::Opaque { ref base, ref levels } if base == "cutlass::gemm::kernel::Gemm<int, 2>::Params" && levels.is_empty()
        ));
    }

    fn untyped(symbol: &str, types: &[&str], layouts: &[(u64, u64)]) -> UntypedKernel {
        UntypedKernel {
            name: demangle(symbol).unwrap().name,
            symbol: symbol.into(),
            params: layouts
                .iter()
                .map(|&(offset, size)| Layout {
                    offset,
                    size,
                    align: 1,
                })
                .collect(),
            param_types: types.iter().map(|t| (*t).to_owned()).collect(),
            param_names: vec![Some("f".into()), Some("out".into())],
            why: "unknown type `Flags`".into(),
            loc: None,
            images: vec![crate::model::ImageFacts {
                target: "sm_90".into(),
                registers: None,
                max_threads: None,
            }],
        }
    }

    #[test]
    fn measured_types_promote_a_kernel_whose_layout_then_agrees() {
        // with_bits(Flags, float*): Flags is 8 bytes aligned to 4.
        let mut info = ModuleInfo::default();
        info.untyped.push(untyped(
            "_Z9with_bits5FlagsPf",
            &["Flags", "float*"],
            &[(0, 8), (8, 8)],
        ));
        assert_eq!(names(&wanted(&info), |_| true), ["Flags"]);
        let m = Measured {
            name: "Flags".into(),
            size: 8,
            align: 4,
        };
        promote(&mut info, &[m], &[], &[]);
        assert!(info.untyped.is_empty());
        let k = &info.kernels[0];
        assert_eq!(k.base_name, "with_bits");
        assert_eq!(k.params[0].ty, CType::Struct("Flags".into()));
        assert_eq!(k.params[0].name.as_deref(), Some("f"));
        assert!(info.structs[0].opaque && info.structs[0].size == 8);
    }

    /// The names of the wanted types `pick` selects.
    fn names(wanted: &[Wanted], pick: impl Fn(&Wanted) -> bool) -> Vec<&str> {
        wanted
            .iter()
            .filter(|w| pick(w))
            .map(|w| w.name.as_str())
            .collect()
    }

    fn ptx_entry(symbol: &str, slots: &[(u32, u32, u32)]) -> KernelImage {
        KernelImage {
            symbol: symbol.into(),
            params: slots
                .iter()
                .enumerate()
                .map(
                    |(i, &(offset, size, align))| cuda_kernel_objects::ParamSlot {
                        ordinal: i as u32,
                        offset,
                        size,
                        align: Some(align),
                    },
                )
                .collect(),
            ..KernelImage::default()
        }
    }

    #[test]
    fn by_value_types_are_read_from_the_images_and_the_kept_ptx() {
        // with_bits(Flags, float*): the image gives Flags 12 bytes, the PTX aligns it to 4.
        let mut info = ModuleInfo::default();
        info.untyped.push(untyped(
            "_Z9with_bits5FlagsPf",
            &["Flags", "float*"],
            &[(0, 12), (16, 8)],
        ));
        let ptx = [ptx_entry("_Z9with_bits5FlagsPf", &[(0, 12, 4), (16, 8, 8)])];
        let got = measure_from_images(&info, &ptx);
        assert_eq!(
            got,
            [Measured {
                name: "Flags".into(),
                size: 12,
                align: 4
            }]
        );
        promote(&mut info, &got, &[], &[]);
        assert_eq!(info.kernels.len(), 1);
        // No PTX for the symbol, or PTX whose size is not the image's: not read.
        let mut info = ModuleInfo::default();
        info.untyped.push(untyped(
            "_Z9with_bits5FlagsPf",
            &["Flags", "float*"],
            &[(0, 12), (16, 8)],
        ));
        assert!(measure_from_images(&info, &[]).is_empty());
        let wrong = [ptx_entry("_Z9with_bits5FlagsPf", &[(0, 16, 4), (16, 8, 8)])];
        assert!(measure_from_images(&info, &wrong).is_empty());
        // Two architectures' PTX that disagree on the alignment: not read.
        let two = [
            ptx_entry("_Z9with_bits5FlagsPf", &[(0, 12, 4), (16, 8, 8)]),
            ptx_entry("_Z9with_bits5FlagsPf", &[(0, 12, 8), (16, 8, 8)]),
        ];
        assert!(measure_from_images(&info, &two).is_empty());
    }

    #[test]
    fn a_type_behind_a_pointer_is_left_for_the_probe() {
        // fill(Flags*): the image says nothing of what the pointer points at.
        let mut info = ModuleInfo::default();
        let mut u = untyped("_Z4fillP5Flags", &["Flags*"], &[(0, 8)]);
        u.param_names.truncate(1);
        info.untyped.push(u);
        let ptx = [ptx_entry("_Z4fillP5Flags", &[(0, 8, 8)])];
        assert_eq!(names(&wanted(&info), |_| true), ["Flags"]);
        assert!(measure_from_images(&info, &ptx).is_empty());
        assert!(names(&wanted(&info), |w| !w.held).is_empty());
    }

    #[test]
    fn what_only_cccl_kernels_point_to_is_not_wanted_outside_cccl() {
        let mut info = ModuleInfo::default();
        let mut u = untyped(
            "_ZN3cub4fillEPNS_8NullTypeE",
            &["cub::NullType*"],
            &[(0, 8)],
        );
        u.param_names.truncate(1);
        info.untyped.push(u);
        assert!(of_cccl(&info.untyped[0]));
        assert_eq!(names(&wanted(&info), |_| true), ["cub::NullType"]);
        assert!(names(&wanted(&info), |w| w.outside_cccl).is_empty());
        let mut mine = untyped("_Z4fillP5Flags", &["Flags*"], &[(0, 8)]);
        mine.param_names.truncate(1);
        info.untyped.push(mine);
        assert!(!of_cccl(&info.untyped[1]));
        assert_eq!(names(&wanted(&info), |w| w.outside_cccl), ["Flags"]);
    }

    #[test]
    fn a_type_only_template_arguments_name_is_named_only() {
        // run<Op>(Op::Params): `Op` is a template argument no parameter holds.
        let symbol = "_Z3runI2OpEvN2Op6ParamsE";
        let mut info = ModuleInfo::default();
        let mut u = untyped(symbol, &["Op::Params"], &[(0, 24)]);
        u.param_names.truncate(1);
        info.untyped.push(u);
        assert_eq!(names(&wanted(&info), |_| true), ["Op::Params", "Op"]);
        assert_eq!(names(&wanted(&info), |w| !w.held), ["Op"]);
        let measured = measure_from_images(&info, &[ptx_entry(symbol, &[(0, 24, 8)])]);
        assert_eq!(measured.len(), 1);
        let named: Vec<String> = names(&wanted(&info), |w| !w.held)
            .into_iter()
            .map(str::to_owned)
            .collect();
        promote(&mut info, &measured, &named, &[]);
        let k = &info.kernels[0];
        assert_eq!(
            k.template_args,
            [TemplateArg::Type(CType::Struct("Op".into()))]
        );
        let op = info.structs.iter().find(|s| s.name == "Op").unwrap();
        assert!(op.name_only && op.opaque && op.size == 0);
        let params = info
            .structs
            .iter()
            .find(|s| s.name == "Op::Params")
            .unwrap();
        assert!(!params.name_only && (params.size, params.align) == (24, 8));
    }

    #[test]
    fn a_measurement_the_image_contradicts_leaves_the_kernel_untyped() {
        let mut info = ModuleInfo::default();
        info.untyped.push(untyped(
            "_Z9with_bits5FlagsPf",
            &["Flags", "float*"],
            &[(0, 8), (16, 8)],
        ));
        let m = Measured {
            name: "Flags".into(),
            size: 12,
            align: 4,
        };
        promote(&mut info, &[m], &[], &[]);
        assert!(info.kernels.is_empty() && info.structs.is_empty());
        assert!(
            info.untyped[0].why.contains("still differ"),
            "{}",
            info.untyped[0].why
        );
        let mut info = ModuleInfo::default();
        info.untyped.push(untyped(
            "_Z9with_bits5FlagsPf",
            &["Flags", "float*"],
            &[(0, 8), (8, 8)],
        ));
        promote(
            &mut info,
            &[],
            &[],
            &[("Flags".into(), "incomplete type".into())],
        );
        let why = &info.untyped[0].why;
        assert!(
            why.ends_with("could not measure `Flags`: incomplete type"),
            "{why}"
        );
    }
}
