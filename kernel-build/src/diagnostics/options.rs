//! Messages about the options of a module, the same for `Build`'s setters and the keys of
//! `cuda_module!`.

/// The keys of `cuda_module!`, each with what it does: the macro's "unknown option" message
/// lists them, and its documentation's table is checked against them.
pub const MACRO_KEYS: &[(&str, &str)] = &[
    (
        "source",
        "the CUDA text (a raw string is convenient); it may `#include` headers relative to the crate root",
    ),
    (
        "file",
        "a CUDA file, relative to the crate root (the folder of `Cargo.toml`)",
    ),
    (
        "files",
        "several CUDA files forming one module, each its own translation unit",
    ),
    (
        "arch",
        "targets: SASS for `sm_*`, PTX for `compute_*`; default: SASS for every major arch the toolkit supports plus PTX for the newest (or `KERNEL_BUILD_ARCHS`)",
    ),
    ("include", "`-I` folders, relative to the crate root"),
    ("define", "`-D` definitions, `NAME` or `NAME=VALUE`"),
    ("flags", "extra nvcc flags"),
    (
        "require_every_target",
        "`true`: a kernel missing from one target's image is an error, not a warning",
    ),
    (
        "line_info",
        "`false`: kernels carry no line tables (by default they do, so compute-sanitizer, cuda-gdb and Nsight Compute name the source line, the `.rs` line for inline text; or `KERNEL_BUILD_LINE_INFO`)",
    ),
    (
        "compress",
        "`false`: fatbin entries stored as nvcc stores them by default (SASS as is) instead of every entry compressed (`--compress-mode=size`; or `KERNEL_BUILD_COMPRESS`)",
    ),
    (
        "ptx_text",
        "`true`: cubins with line tables keep the PTX text ptxas embeds with them (left out by default: about half of a compressed image; or `KERNEL_BUILD_PTX_TEXT`)",
    ),
    (
        "device_debug",
        "`true`: a debug build of the device code (`-G`: variables and stepping in cuda-gdb; kernels run many times slower; or `KERNEL_BUILD_DEVICE_DEBUG`)",
    ),
    (
        "rdc",
        "`true`: the files are device-linked, so kernels may call device functions of other files",
    ),
    (
        "lto",
        "`true`: as `rdc`, with link-time optimisation across files",
    ),
    (
        "compile",
        "`\"runtime\"`: compiled by NVRTC at run time only (no nvcc at build time); `\"build\"`: the default",
    ),
    (
        "fallback",
        "`\"runtime\"`: built by nvcc, and compiled by NVRTC at run time on a GPU the fatbin has no image for",
    ),
    (
        "kernels",
        "stubs only for these kernels (Rust names), for a crate that uses a few kernels of a large library",
    ),
    (
        "constants",
        "integer constants of the CUDA code (`#define`, `constexpr`, enumerators) as Rust `const`s in the module, `\"NAME\"` (an `i64`) or `\"NAME: u32\"`; evaluated by the compiler, checked to fit",
    ),
    (
        "types",
        "Rust files (relative to the crate root) whose `#[derive(CudaType)]` types the CUDA code shares: their declarations are a header the source includes as `\"<file>.cuh\"`, and a kernel taking one takes the Rust type",
    ),
    (
        "derive",
        "more derives for the structs and enums the CUDA code declares (`[\"serde::Serialize\"]`), beside the `Clone`, `Copy`, `Debug`, `Default`, `PartialEq` and bytemuck traits they get where they hold",
    ),
    (
        "crate",
        "the path generated code names the runtime by, for a crate that reaches it through a crate of its own re-exporting it (`\"my_gpu::runtime\"`); default: the name this crate's `Cargo.toml` gives `cuda-kernel-runtime`",
    ),
];

/// A `crate = "..."` (or `Build::runtime_crate`) value that is not a Rust path.
pub fn bad_runtime_path(text: &str) -> String {
    format!(
        "`{text}` is not a Rust path; the runtime's path is written as in a `use`, e.g. `\"my_gpu::runtime\"`"
    )
}

/// The compiled crate's manifest lists no `cuda-kernel-runtime`, and no path was given.
pub fn runtime_not_a_dependency(manifest: &std::path::Path) -> String {
    let shown = match (
        manifest.parent().and_then(|d| d.file_name()),
        manifest.file_name(),
    ) {
        (Some(dir), Some(file)) => format!("{}/{}", dir.to_string_lossy(), file.to_string_lossy()),
        _ => "Cargo.toml".to_owned(),
    };
    format!(
        "generated code needs the runtime crate, but `{shown}` lists no `cuda-kernel-runtime` \
         among its dependencies.\n\
         To fix: add `cuda-kernel-runtime` to `[dependencies]` (under any name), or, when a crate \
         of yours re-exports it, name that path: `crate = \"my_gpu::runtime\";` in the macro, \
         `Build::runtime_crate(\"my_gpu::runtime\")` in build.rs."
    )
}

/// An unknown key of `cuda_module!`.
pub fn unknown_key(key: &str) -> String {
    let keys: Vec<String> = MACRO_KEYS.iter().map(|(k, _)| format!("`{k}`")).collect();
    format!(
        "unknown option `{key}`; expected one of {}, a kernel declaration `fn name(...);`, or a tuned kernel `tune name {{ ... }}`",
        keys.join(", ")
    )
}

/// A module name that cannot name the generated Rust module.
pub fn bad_module_name(name: &str) -> String {
    format!("module name `{name}` is not a Rust identifier (it names the generated module)")
}

/// A definition whose name is not a preprocessor identifier.
pub fn bad_define(text: &str) -> String {
    format!("`{text}` is not a definition: expected `NAME` or `NAME=VALUE`")
}

/// A constant to export written neither `NAME` nor `NAME: TYPE` with an integer type.
pub fn bad_constant(text: &str) -> String {
    format!(
        "`{text}` is not a constant to export: expected `NAME` (an `i64`) or `NAME: TYPE` with \
         TYPE one of i8, i16, i32, i64, isize, u8, u16, u32, u64, usize"
    )
}

/// A constant to export that the module's code does not define (or not as an integer).
pub fn constant_unknown(module: &str, name: &str, why: &str) -> String {
    format!("module `{module}`: constant `{name}` cannot be exported: {why}")
}

/// A constant whose value does not fit the Rust type asked for.
pub fn constant_out_of_range(module: &str, name: &str, value: i128, ty: &str) -> String {
    format!("module `{module}`: constant `{name}` is {value}, which does not fit `{ty}`")
}

/// A constant the targets' compilations see with different values (`#if __CUDA_ARCH__`).
pub fn constant_differs(module: &str, name: &str) -> String {
    format!(
        "module `{module}`: constant `{name}` differs between the targets (it depends on \
         `__CUDA_ARCH__`), so no one Rust value is right"
    )
}

/// A `Build` given no file.
pub fn no_files(module: &str) -> String {
    format!("module `{module}` has no files: call `Build::file`")
}

/// The same file listed twice.
pub fn file_twice(module: &str, file: &str) -> String {
    format!("module `{module}` lists `{file}` twice")
}

/// A module compiled at run time given several files.
pub fn runtime_many_files(module: &str, files: usize) -> String {
    format!(
        "module `{module}` is compiled at run time, which takes one source; it has {files} files"
    )
}

/// No `OUT_DIR` and no explicit output folder.
#[cfg(feature = "build")]
pub fn no_out_dir() -> String {
    "OUT_DIR is not set: run from build.rs or call `out_dir`".to_owned()
}

/// A kernel named by an option (`safe_kernel`, `kernels`) that the module does not have.
pub fn unknown_kernel(option: &str, name: &str, module: &str, kernels: &[String]) -> String {
    let mut text = format!("`{option}` names `{name}`, which is not a kernel of module `{module}`");
    match closest(name, kernels) {
        Some(near) => text.push_str(&format!("; did you mean `{near}`?")),
        None if kernels.is_empty() => {}
        None => text.push_str(&format!("; its kernels are: {}", kernels.join(", "))),
    }
    text
}

/// The kernel name nearest to `name` by edit distance, when it is near enough to be a typo.
fn closest<'a>(name: &str, kernels: &'a [String]) -> Option<&'a str> {
    kernels
        .iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A derive that is not a path.
pub fn bad_derive(text: &str) -> String {
    format!("`{text}` is no derive path: give one such as `serde::Serialize`")
}

#[cfg(test)]
mod tests {
    #[test]
    fn far_names_list_the_kernels() {
        let m = super::unknown_kernel("kernels", "zzz", "m", &["scale".into()]);
        assert!(m.ends_with("its kernels are: scale"), "{m}");
    }

    #[test]
    fn bad_runtime_path_says_it_is_not_a_path() {
        let m = super::bad_runtime_path("a b");
        assert!(m.contains("`a b` is not a Rust path"));
    }

    #[test]
    fn runtime_not_a_dependency_names_the_manifest() {
        let m = super::runtime_not_a_dependency(std::path::Path::new("/x/app/Cargo.toml"));
        assert!(m.starts_with("generated code needs the runtime crate, but `app/Cargo.toml` lists no `cuda-kernel-runtime`"));
    }

    #[test]
    fn unknown_key_lists_the_expected_keys() {
        let m = super::unknown_key("archs");
        assert!(m.starts_with("unknown option `archs`; expected one of `source`, `file`"));
    }

    #[test]
    fn bad_module_name_says_it_is_not_an_identifier() {
        let m = super::bad_module_name("my-mod");
        assert!(m.contains("`my-mod` is not a Rust identifier"));
    }

    #[test]
    fn bad_define_gives_the_expected_forms() {
        let m = super::bad_define("4N=2");
        assert_eq!(
            m,
            "`4N=2` is not a definition: expected `NAME` or `NAME=VALUE`"
        );
    }

    #[test]
    fn bad_constant_names_the_text() {
        let m = super::bad_constant("TILE: f32");
        assert!(
            m.starts_with("`TILE: f32` is not a constant to export"),
            "{m}"
        );
    }

    #[test]
    fn constant_unknown_names_module_and_constant() {
        let m = super::constant_unknown("m", "TILE", "identifier \"TILE\" is undefined");
        assert!(
            m.starts_with("module `m`: constant `TILE` cannot be exported"),
            "{m}"
        );
    }

    #[test]
    fn constant_out_of_range_gives_value_and_type() {
        let m = super::constant_out_of_range("m", "N", -1, "u32");
        assert_eq!(
            m,
            "module `m`: constant `N` is -1, which does not fit `u32`"
        );
    }

    #[test]
    fn constant_differs_says_between_targets() {
        let m = super::constant_differs("m", "TILE");
        assert!(m.contains("differs between the targets"), "{m}");
    }

    #[test]
    fn no_files_says_there_are_none() {
        let m = super::no_files("m");
        assert!(m.contains("no files"));
    }

    #[test]
    fn file_twice_names_the_file() {
        let m = super::file_twice("m", "a.cu");
        assert_eq!(m, "module `m` lists `a.cu` twice");
    }

    #[test]
    fn runtime_many_files_counts_the_files() {
        let m = super::runtime_many_files("m", 2);
        assert!(m.contains("2 files"));
    }

    #[test]
    fn no_out_dir_names_out_dir() {
        assert!(super::no_out_dir().contains("OUT_DIR"));
    }

    #[test]
    fn unknown_kernel_suggests_a_near_name() {
        let m = super::unknown_kernel(
            "safe_kernel",
            "transpos",
            "m",
            &["transpose".into(), "scale".into()],
        );
        assert!(m.contains("did you mean `transpose`"), "{m}");
    }
}
