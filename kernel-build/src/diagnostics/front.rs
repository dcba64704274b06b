//! The words of every front-end and verification message, in one place.
//!
//! Each function returns a [`Diagnostic`] without a location; callers add it with
//! [`Diagnostic::at`]. Messages are lowercase with no trailing period and name the
//! kernel, parameter, types and layouts involved.

use super::Diagnostic;

/// Formats an `(offset, size)` list as `[(0, 4), (8, 8)]`.
pub fn layout_list(slots: &[(u64, u64)]) -> String {
    let items: Vec<String> = slots.iter().map(|(o, s)| format!("({o}, {s})")).collect();
    format!("[{}]", items.join(", "))
}

/// A comment that never ends.
pub fn unterminated(what: &str) -> Diagnostic {
    Diagnostic::error(format!("unterminated {what}"))
}

/// The parser expected something else.
pub fn expected(what: &str, found: &str) -> Diagnostic {
    Diagnostic::error(format!("expected {what}, found {found}"))
}

/// A type name the front end does not know.
pub fn unknown_type(name: &str) -> Diagnostic {
    Diagnostic::error(format!("unknown type `{name}`"))
        .note("kernel parameters, struct fields and globals need types whose layout is known: builtin and stdint types, `size_t`, `__half`, `__nv_bfloat16`, the FP8/FP6/FP4 types, CUDA vector and complex types, texture and surface objects, pointers, and structs and enums defined in the user's files")
}

/// A type the front end recognises but cannot lay out or pass.
pub fn unsupported_type(ty: &str, why: &str) -> Diagnostic {
    Diagnostic::error(format!("unsupported type `{ty}`: {why}"))
}

/// Why `long` is refused on a host where it has 32 bits (Windows): no Rust integer is the
/// `long` of every host, and taking it for `i64` would be wrong here.
pub const WHY_LONG_32: &str = "`long` has 32 bits on this host (64 on Linux), so no stub can \
     type it for every host; write `int` or `int32_t` for 32 bits, `long long` or `int64_t` for 64";

/// An array extent that is not an integer constant the front end can evaluate.
pub fn bad_array_extent(name: &str, extent: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "array extent `{extent}` of `{name}` is not an integer constant"
    ))
}

/// A bit-field in a struct (its layout is compiler-specific).
pub fn bitfield(strukt: &str, field: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "bit-field `{field}` in struct `{strukt}` is not supported"
    ))
}

/// A kernel whose return type is not `void`.
pub fn kernel_not_void(kernel: &str, ty: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` returns `{ty}`; a `__global__` function must return `void`"
    ))
}

/// An explicit instantiation of a template kernel that is not declared.
pub fn no_such_template(name: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "explicit instantiation of `{name}` names no template kernel declared before it"
    ))
}

/// Template arguments that do not fit the template's parameter list.
pub fn template_args(name: &str, why: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "cannot instantiate template kernel `{name}`: {why}"
    ))
}

/// A kernel declared twice with different parameter types under C linkage.
pub fn conflicting_kernel(kernel: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "`extern \"C\"` kernel `{kernel}` is declared twice with different parameters"
    ))
}

/// A function-like macro met while parsing without nvcc.
pub fn raw_macro(name: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "macro `{name}` takes arguments and cannot be expanded without nvcc"
    ))
    .note("install the CUDA toolkit (or set NVCC) so the source is preprocessed by nvcc")
}

/// Note recorded when a source is read without preprocessing.
pub fn note_raw() -> String {
    "declarations were read without nvcc: only object-like macros defined in the file were expanded and headers were not read".to_string()
}

/// Note for an `#include` not followed without nvcc.
pub fn note_raw_include(line: u32, what: &str) -> String {
    format!("line {line}: `#include {what}` was not read without nvcc")
}

/// Note for a conditional evaluated with names the raw reader cannot know.
pub fn note_raw_condition(line: u32, expr: &str, taken: bool) -> String {
    let verdict = if taken { "read" } else { "skipped" };
    format!(
        "line {line}: `#if {expr}` depends on names defined outside the file (assumed undefined without nvcc); its branch was {verdict}"
    )
}

/// nvcc could not be started.
pub fn spawn_failed(tool: &str, err: &str) -> Diagnostic {
    Diagnostic::error(format!("failed to run `{tool}`: {err}"))
}

/// `nvcc -E` failed.
pub fn preprocess_failed(file: &str, status: &str, stderr: &str) -> Diagnostic {
    let d = Diagnostic::error(format!("nvcc could not preprocess `{file}` ({status})"));
    stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .fold(d, |d, l| d.note(l.to_string()))
}

/// A kernel absent from one compiled image when every target must hold every kernel
/// (`require_every_target`), or absent from every image.
pub fn kernel_missing(kernel: &str, symbol: &str, target: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` (symbol `{symbol}`) is missing from the {target} image"
    ))
    .note("every target is required to hold every kernel (`require_every_target`); is the kernel inside `#if __CUDA_ARCH__ ...`?")
}

/// A declared kernel that no compiled image contains.
pub fn kernel_in_no_image(kernel: &str, symbol: &str, targets: &[String]) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` (symbol `{symbol}`) is declared but no compiled image contains it (targets: {})",
        targets.join(", ")
    ))
    .note("a kernel that is declared but never defined is not compiled; define it in this module")
}

/// One kernel declared with different parameters by the device passes of two targets.
pub fn kernel_differs_between_targets(
    kernel: &str,
    arch_a: &str,
    sig_a: &str,
    arch_b: &str,
    sig_b: &str,
) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` has different parameters for {arch_a} and {arch_b}"
    ))
    .note(format!("{arch_a}: {sig_a}"))
    .note(format!("{arch_b}: {sig_b}"))
    .note("one Rust stub serves every target: declare the kernel with the same parameter types under every `__CUDA_ARCH__`, or give the variants different names")
}

/// One struct defined differently by the device passes of two targets.
pub fn struct_differs_between_targets(name: &str, arch_a: &str, arch_b: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "struct `{name}` is defined differently for {arch_a} and {arch_b}"
    ))
    .note(
        "one Rust struct serves every target: keep the fields the same under every `__CUDA_ARCH__`",
    )
}

/// One global declared with different types by the device passes of two targets.
pub fn global_differs_between_targets(
    name: &str,
    arch_a: &str,
    size_a: u64,
    arch_b: &str,
    size_b: u64,
) -> Diagnostic {
    Diagnostic::error(format!(
        "global `{name}` is {size_a} bytes for {arch_a} but {size_b} bytes for {arch_b}"
    ))
}

/// The one warning of a module some of whose kernels are compiled for some targets only.
/// `missing` lists each such kernel with the targets that hold it.
pub fn kernels_on_some_targets(
    module: &str,
    total: usize,
    missing: &[(String, Vec<String>)],
    targets: &[String],
) -> String {
    const SHOWN: usize = 8;
    let mut items: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|(k, t)| format!("{k} (only {})", t.join(", ")))
        .collect();
    if missing.len() > SHOWN {
        items.push(format!("and {} more", missing.len() - SHOWN));
    }
    format!(
        "module `{module}`: {} of {total} kernels are not in every image (targets {}): {}; \
         calling one on a GPU whose image lacks it returns Error::KernelNotInImage \
         (set require_every_target to make this an error)",
        missing.len(),
        targets.join(", "),
        items.join(", ")
    )
}

/// The warnings of a module some of whose kernels have no typed stub (each with why),
/// the first few one by one, the rest counted.
pub fn kernels_untyped(module: &str, kernels: &[(String, String, Option<String>)]) -> Vec<String> {
    const SHOWN: usize = 16;
    let mut out: Vec<String> = kernels
        .iter()
        .take(SHOWN)
        .map(|(name, why, at)| {
            let at = at
                .as_ref()
                .map(|l| format!(" (at {l})"))
                .unwrap_or_default();
            format!(
                "module `{module}`: kernel `{name}` has no typed stub{at}: {why}; it is in the \
                 module: launch it by name with `Module::by_name(\"{name}\")`"
            )
        })
        .collect();
    if kernels.len() > SHOWN {
        out.push(format!(
            "module `{module}`: {} more kernels have no typed stub (`cuda-kernel-inspect build` lists \
             them, and the module's documentation says why for each)",
            kernels.len() - SHOWN
        ));
    }
    out
}

/// Where reading stopped, from the parser's diagnostic (`k.cu:3:5: error: expected ...`):
/// its first line, without the word `error`, since nvcc compiled the file.
fn stopped_at(stopped: &str) -> String {
    stopped
        .lines()
        .next()
        .unwrap_or_default()
        .replacen(": error: ", ": ", 1)
}

/// Why a kernel of the images has no typed stub when the front end stopped reading before
/// its declaration.
pub fn stopped_before(stopped: &str) -> String {
    format!(
        "the front end stopped reading before its declaration ({})",
        stopped_at(stopped)
    )
}

/// The one warning of a module whose source the front end could not read to the end: where
/// it stopped, and the kernels that come from the images, launched by name.
pub fn reading_stopped(module: &str, stopped: &str, kernels: &[String]) -> String {
    const SHOWN: usize = 8;
    let place = stopped_at(stopped);
    let mut s = format!(
        "module `{module}`: nvcc compiled it, but the front end stopped reading at {place}; \
         the declarations before it are typed"
    );
    if kernels.is_empty() {
        s.push_str(", and every kernel of the images is among them");
    } else {
        let mut names: Vec<String> = kernels
            .iter()
            .take(SHOWN)
            .map(|k| format!("`{k}`"))
            .collect();
        if kernels.len() > SHOWN {
            names.push(format!("and {} more", kernels.len() - SHOWN));
        }
        s.push_str(&format!(
            "; {} kernel(s) after it come from the images and are launched by name \
             (`Module::by_name`): {}",
            kernels.len(),
            names.join(", ")
        ));
    }
    s
}

/// No compiled symbol matches a C++ kernel.
pub fn symbol_not_found(kernel: &str, signature: &str, candidates: &[String]) -> Diagnostic {
    let d = Diagnostic::error(format!(
        "no compiled kernel symbol matches C++ kernel `{kernel}` with signature `{signature}`"
    ));
    candidates
        .iter()
        .fold(d, |d, c| d.note(format!("compiled kernel: {c}")))
}

/// Several compiled symbols match one C++ kernel.
pub fn symbol_ambiguous(kernel: &str, symbols: &[String]) -> Diagnostic {
    let list: Vec<String> = symbols.iter().map(|s| format!("`{s}`")).collect();
    Diagnostic::error(format!(
        "C++ kernel `{kernel}` matches several compiled symbols: {}",
        list.join(", ")
    ))
}

/// A compiled image whose parameter list differs in length from the declaration.
pub fn param_count(
    kernel: &str,
    target: &str,
    predicted: &[(u64, u64)],
    image: &[(u64, u64)],
) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` has {} parameter(s) in its declaration but {} in the {target} image",
        predicted.len(),
        image.len()
    ))
    .note(format!(
        "declared layout (offset, size): {}",
        layout_list(predicted)
    ))
    .note(format!(
        "{target} layout (offset, size): {}",
        layout_list(image)
    ))
}

/// One parameter laid out differently in a compiled image than the declaration predicts.
#[allow(clippy::too_many_arguments)]
pub fn param_layout(
    kernel: &str,
    param: &str,
    ty: &str,
    target: &str,
    predicted: (u64, u64),
    found: (u64, u64),
    predicted_all: &[(u64, u64)],
    image_all: &[(u64, u64)],
) -> Diagnostic {
    Diagnostic::error(format!(
        "parameter `{param}` of kernel `{kernel}` (type `{ty}`) is at offset {} with size {} in the declaration but at offset {} with size {} in the {target} image",
        predicted.0, predicted.1, found.0, found.1
    ))
    .note(format!("declared layout (offset, size): {}", layout_list(predicted_all)))
    .note(format!("{target} layout (offset, size): {}", layout_list(image_all)))
    .note("the struct definitions the front end read differ from the ones the compiler used")
}

/// A type a kernel passes or points to that the compiler lays out otherwise than the front
/// end read it (`how`: the compile's target and both layouts): the kernel goes by name.
pub fn layout_differs(kernel: &str, ty: &str, how: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` uses `{ty}`, which the compiler lays out differently than the front end read it: {how}"
    ))
    .note("packing or alignment the front end does not follow gives this; the kernel has no typed stub rather than one over the wrong bytes")
}

/// A type a kernel passes or points to whose layout the compile could not measure: the
/// kernel goes by name.
pub fn layout_unmeasured(kernel: &str, ty: &str, why: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` uses `{ty}`, whose layout the compiler did not measure: {why}"
    ))
    .note("a typed stub is made only over layouts the compile that builds the images measured")
}

/// A compiled image the verifier could not read.
pub fn image_unreadable(target: &str, err: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "cannot read the {target} image of the fatbin: {err}"
    ))
}

/// A source that declares no kernel at all (empty, comments only, or kernels the host
/// pass cannot see).
pub fn no_kernels(file: &str) -> Diagnostic {
    Diagnostic::error(format!("`{file}` declares no `__global__` kernel"))
        .note("a module needs at least one kernel to launch")
        .note("template kernels count once explicitly instantiated (`template __global__ void k<float>(float*);`); a kernel inside `#if __CUDA_ARCH__ ...` counts when one of the module's targets satisfies the condition")
}

/// A fatbin with no image at all.
pub fn no_images() -> Diagnostic {
    Diagnostic::error("the fatbin holds no SASS or PTX image")
}

/// A global whose compiled size differs from the declaration.
pub fn global_size(name: &str, target: &str, predicted: u64, found: u64) -> Diagnostic {
    Diagnostic::error(format!(
        "global `{name}` is {predicted} bytes in its declaration but {found} bytes in the {target} image"
    ))
}

/// Class templates instantiated inside each other beyond the front end's depth limit.
pub fn templates_too_deep(name: &str) -> Diagnostic {
    Diagnostic::error(format!("templates nest too deeply at `{name}`"))
}

/// Structs or declarations nested beyond the parser's depth limit (`what`: `structs`,
/// `declarations`).
pub fn nested_too_deeply(what: &str) -> Diagnostic {
    Diagnostic::error(format!("{what} are nested too deeply"))
}

/// `#else`/`#elif` (`directive`) or `#endif` with no open `#if`, in the raw reading.
pub fn directive_without_if(directive: &str) -> Diagnostic {
    Diagnostic::error(format!("`#{directive}` without `#if`"))
}

/// An `#if` still open at the end of the file, in the raw reading.
pub fn unterminated_if() -> Diagnostic {
    Diagnostic::error("unterminated `#if`: missing `#endif`")
}

/// A kernel instantiation launched by host code that cannot be typed: left out of the
/// module, with why when the front end said.
pub fn launched_left_out(symbol: &str, why: Option<Diagnostic>) -> Diagnostic {
    let (reason, loc) = match why {
        Some(d) => (d.message, d.loc),
        None => ("its declaration could not be read".to_owned(), None),
    };
    Diagnostic::error(format!("launched kernel `{symbol}` left out: {reason}")).at(loc)
}

/// A `__device__`/`__constant__` variable whose type could not be laid out, when the
/// reason is not known more precisely.
pub fn global_unreadable(name: &str) -> Diagnostic {
    Diagnostic::error(format!("the type of global `{name}` could not be read"))
}

/// A template parameter without a name.
pub fn template_param_unnamed() -> Diagnostic {
    Diagnostic::error("template parameters need a name")
}

/// An attribute argument (`__launch_bounds__`, `__cluster_dims__`) that is not a constant.
pub fn attr_not_constant(text: &str, attr: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "argument `{text}` of `{attr}` is not a non-negative integer constant"
    ))
}

/// A declarator of function type where an object is declared.
pub fn function_type_not_object() -> Diagnostic {
    Diagnostic::error("a function type is not an object type")
}

/// Not a `using` alias (the parser's signal to read the item another way; never shown).
pub fn not_an_alias() -> Diagnostic {
    Diagnostic::error("not an alias")
}

/// A kernel parameter form CUDA kernels cannot take (`what`: `variadic kernels`,
/// `reference parameters`, `multi-dimensional array parameters`).
pub fn unsupported_param(what: &str) -> Diagnostic {
    Diagnostic::error(format!("{what} are not supported"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_list_formats_offset_size_pairs() {
        assert_eq!(layout_list(&[(0, 4), (8, 8)]), "[(0, 4), (8, 8)]");
    }

    #[test]
    fn unterminated_names_what_never_ends() {
        assert_eq!(unterminated("comment").message, "unterminated comment");
    }

    #[test]
    fn expected_names_what_was_expected_and_found() {
        let d = expected("`)`", "`;`");
        assert_eq!(d.message, "expected `)`, found `;`");
    }

    #[test]
    fn unknown_type_names_the_type() {
        let d = unknown_type("foo_t");
        assert_eq!(d.message, "unknown type `foo_t`");
    }

    #[test]
    fn unsupported_type_gives_the_reason() {
        let d = unsupported_type("void", "a parameter cannot have type `void`");
        assert_eq!(
            d.message,
            "unsupported type `void`: a parameter cannot have type `void`"
        );
    }

    #[test]
    fn bad_array_extent_names_extent_and_array() {
        let d = bad_array_extent("coeffs", "N");
        assert_eq!(
            d.message,
            "array extent `N` of `coeffs` is not an integer constant"
        );
    }

    #[test]
    fn bitfield_names_field_and_struct() {
        let d = bitfield("Flags", "on");
        assert_eq!(
            d.message,
            "bit-field `on` in struct `Flags` is not supported"
        );
    }

    #[test]
    fn kernel_not_void_names_the_return_type() {
        let d = kernel_not_void("k", "int");
        assert_eq!(
            d.message,
            "kernel `k` returns `int`; a `__global__` function must return `void`"
        );
    }

    #[test]
    fn no_such_template_names_the_instantiation() {
        let d = no_such_template("scale");
        assert_eq!(
            d.message,
            "explicit instantiation of `scale` names no template kernel declared before it"
        );
    }

    #[test]
    fn template_args_gives_the_reason() {
        let d = template_args("scale", "missing argument for `T`");
        assert_eq!(
            d.message,
            "cannot instantiate template kernel `scale`: missing argument for `T`"
        );
    }

    #[test]
    fn conflicting_kernel_names_the_extern_c_kernel() {
        let d = conflicting_kernel("k");
        assert_eq!(
            d.message,
            "`extern \"C\"` kernel `k` is declared twice with different parameters"
        );
    }

    #[test]
    fn raw_macro_names_the_macro() {
        let d = raw_macro("KERNEL");
        assert!(d.message.starts_with("macro `KERNEL`"));
    }

    #[test]
    fn note_raw_says_nvcc_was_not_used() {
        assert!(note_raw().contains("without nvcc"));
    }

    #[test]
    fn note_raw_include_names_line_and_header() {
        let n = note_raw_include(3, "\"util.h\"");
        assert_eq!(n, "line 3: `#include \"util.h\"` was not read without nvcc");
    }

    #[test]
    fn note_raw_condition_names_line_and_condition() {
        let n = note_raw_condition(5, "FAST", true);
        assert!(n.starts_with("line 5: `#if FAST`"));
    }

    #[test]
    fn spawn_failed_names_the_tool_and_error() {
        let d = spawn_failed("nvcc", "not found");
        assert_eq!(d.message, "failed to run `nvcc`: not found");
    }

    #[test]
    fn preprocess_failed_names_file_and_status() {
        let d = preprocess_failed("k.cu", "exit status: 1", "k.cu:1: error");
        assert_eq!(
            d.message,
            "nvcc could not preprocess `k.cu` (exit status: 1)"
        );
    }

    #[test]
    fn kernel_missing_names_kernel_symbol_and_target() {
        let d = kernel_missing("clustered", "clustered", "sm_80");
        assert_eq!(
            d.message,
            "kernel `clustered` (symbol `clustered`) is missing from the sm_80 image"
        );
    }

    #[test]
    fn kernel_in_no_image_lists_the_targets() {
        let d = kernel_in_no_image("k", "k", &["sm_80".into(), "sm_90".into()]);
        assert_eq!(
            d.message,
            "kernel `k` (symbol `k`) is declared but no compiled image contains it (targets: sm_80, sm_90)"
        );
    }

    #[test]
    fn kernel_differs_between_targets_shows_both_signatures() {
        let d = kernel_differs_between_targets(
            "k",
            "compute_80",
            "(float x @ 0+4)",
            "compute_90",
            "(double x @ 0+8)",
        );
        assert_eq!(
            d.message,
            "kernel `k` has different parameters for compute_80 and compute_90"
        );
        assert_eq!(d.notes[0], "compute_80: (float x @ 0+4)");
    }

    #[test]
    fn struct_differs_between_targets_names_both_targets() {
        let d = struct_differs_between_targets("P", "compute_80", "compute_90");
        assert_eq!(
            d.message,
            "struct `P` is defined differently for compute_80 and compute_90"
        );
    }

    #[test]
    fn global_differs_between_targets_gives_both_sizes() {
        let d = global_differs_between_targets("c", "compute_80", 16, "compute_90", 32);
        assert_eq!(
            d.message,
            "global `c` is 16 bytes for compute_80 but 32 bytes for compute_90"
        );
    }

    #[test]
    fn kernels_on_some_targets_lists_each_kernel_with_its_targets() {
        let w = kernels_on_some_targets(
            "ops",
            3,
            &[("affine_bf16".into(), vec!["sm_80".into(), "sm_90".into()])],
            &["sm_75".into(), "sm_80".into(), "sm_90".into()],
        );
        assert_eq!(
            w,
            "module `ops`: 1 of 3 kernels are not in every image (targets sm_75, sm_80, sm_90): \
            affine_bf16 (only sm_80, sm_90); calling one on a GPU whose image lacks it returns \
            Error::KernelNotInImage (set require_every_target to make this an error)"
        );
    }

    #[test]
    fn a_stopped_reading_is_one_warning_with_its_place() {
        let stopped = "k.cu:3:5: error: expected `}` to close a block, found end of input";
        assert_eq!(
            stopped_before(stopped),
            "the front end stopped reading before its declaration (k.cu:3:5: expected `}` to close a block, found end of input)"
        );
        let w = reading_stopped("ops", stopped, &["scale".into()]);
        assert!(w.starts_with("module `ops`: nvcc compiled it, but the front end stopped reading at k.cu:3:5: expected"), "{w}");
        assert!(w.ends_with("1 kernel(s) after it come from the images and are launched by name (`Module::by_name`): `scale`"), "{w}");
        let all = reading_stopped("ops", stopped, &[]);
        assert!(
            all.ends_with("every kernel of the images is among them"),
            "{all}"
        );
    }

    #[test]
    fn kernels_untyped_says_why_and_how_to_launch_by_name() {
        let w = kernels_untyped(
            "ops",
            &[(
                "tab".into(),
                "unknown type `Table`".into(),
                Some("k.cu:6:1".into()),
            )],
        );
        assert_eq!(
            w,
            [
                "module `ops`: kernel `tab` has no typed stub (at k.cu:6:1): unknown type `Table`; \
            it is in the module: launch it by name with `Module::by_name(\"tab\")`"
            ]
        );
    }

    #[test]
    fn symbol_not_found_names_kernel_and_signature() {
        let d = symbol_not_found("ns::k", "ns::k(float*)", &[]);
        assert_eq!(
            d.message,
            "no compiled kernel symbol matches C++ kernel `ns::k` with signature `ns::k(float*)`"
        );
    }

    #[test]
    fn symbol_ambiguous_lists_the_symbols() {
        let d = symbol_ambiguous("k", &["_Z1kl".into(), "_Z1kx".into()]);
        assert_eq!(
            d.message,
            "C++ kernel `k` matches several compiled symbols: `_Z1kl`, `_Z1kx`"
        );
    }

    #[test]
    fn param_count_compares_declaration_with_image() {
        let d = param_count("k", "sm_90", &[(0, 8)], &[(0, 8), (8, 4)]);
        assert_eq!(
            d.message,
            "kernel `k` has 1 parameter(s) in its declaration but 2 in the sm_90 image"
        );
    }

    #[test]
    fn param_layout_names_parameter_and_kernel() {
        let d = param_layout(
            "withstruct",
            "p",
            "P",
            "sm_80",
            (0, 20),
            (0, 24),
            &[(0, 20), (24, 8)],
            &[(0, 24), (24, 8)],
        );
        assert!(
            d.message
                .starts_with("parameter `p` of kernel `withstruct`")
        );
    }

    #[test]
    fn image_unreadable_names_target_and_error() {
        let d = image_unreadable("sm_90", "bad ELF");
        assert_eq!(
            d.message,
            "cannot read the sm_90 image of the fatbin: bad ELF"
        );
    }

    #[test]
    fn no_kernels_names_the_file() {
        let d = no_kernels("k.cu");
        assert_eq!(d.message, "`k.cu` declares no `__global__` kernel");
    }

    #[test]
    fn no_images_says_the_fatbin_is_empty() {
        assert_eq!(no_images().message, "the fatbin holds no SASS or PTX image");
    }

    #[test]
    fn global_size_compares_declaration_with_image() {
        let d = global_size("coeffs", "sm_80", 64, 32);
        assert_eq!(
            d.message,
            "global `coeffs` is 64 bytes in its declaration but 32 bytes in the sm_80 image"
        );
    }

    #[test]
    fn templates_too_deep_names_the_template() {
        let d = templates_too_deep("vec<vec<int>>");
        assert_eq!(d.message, "templates nest too deeply at `vec<vec<int>>`");
    }

    #[test]
    fn nested_too_deeply_names_what_nests() {
        let d = nested_too_deeply("structs");
        assert_eq!(d.message, "structs are nested too deeply");
    }

    #[test]
    fn directive_without_if_names_the_directive() {
        let d = directive_without_if("endif");
        assert_eq!(d.message, "`#endif` without `#if`");
    }

    #[test]
    fn unterminated_if_asks_for_endif() {
        let d = unterminated_if();
        assert_eq!(d.message, "unterminated `#if`: missing `#endif`");
    }

    #[test]
    fn launched_left_out_without_a_reason_says_unreadable() {
        let d = launched_left_out("_Z1kIiEvv", None);
        assert_eq!(
            d.message,
            "launched kernel `_Z1kIiEvv` left out: its declaration could not be read"
        );
    }

    #[test]
    fn global_unreadable_names_the_global() {
        let d = global_unreadable("table");
        assert_eq!(d.message, "the type of global `table` could not be read");
    }

    #[test]
    fn template_param_unnamed_asks_for_a_name() {
        let d = template_param_unnamed();
        assert_eq!(d.message, "template parameters need a name");
    }

    #[test]
    fn attr_not_constant_names_argument_and_attribute() {
        let d = attr_not_constant("n", "__launch_bounds__");
        assert_eq!(
            d.message,
            "argument `n` of `__launch_bounds__` is not a non-negative integer constant"
        );
    }

    #[test]
    fn function_type_not_object_says_so() {
        let d = function_type_not_object();
        assert_eq!(d.message, "a function type is not an object type");
    }

    #[test]
    fn not_an_alias_says_so() {
        assert_eq!(not_an_alias().message, "not an alias");
    }

    #[test]
    fn unsupported_param_names_the_form() {
        let d = unsupported_param("variadic kernels");
        assert_eq!(d.message, "variadic kernels are not supported");
    }
}

#[cfg(test)]
mod long_tests {
    #[test]
    fn a_32_bit_long_names_both_fixes() {
        let d = super::unsupported_type("unsigned long", super::WHY_LONG_32);
        let m = d.to_string();
        assert!(
            m.contains("`unsigned long`") && m.contains("32 bits"),
            "{m}"
        );
        assert!(m.contains("`int32_t`") && m.contains("`int64_t`"), "{m}");
    }
}
