//! Messages about the files of a module built from several: one kernel name defined by
//! two files, kernels declared but defined in no file, variables with a copy per file,
//! and the per-file build summary.

use super::Diagnostic;
use crate::model::SourceLoc;

fn at(loc: &Option<SourceLoc>, file: &str) -> String {
    match loc {
        Some(l) => format!("{}:{}", l.file, l.line),
        None => format!("`{file}`"),
    }
}

/// One kernel name defined by two files (the Rust module can hold one).
pub fn kernel_in_two_files(
    kernel: &str,
    file_a: &str,
    loc_a: &Option<SourceLoc>,
    file_b: &str,
    loc_b: &Option<SourceLoc>,
) -> Diagnostic {
    Diagnostic::error(format!(
        "kernel `{kernel}` is defined in two files of the module: {} and {}",
        at(loc_a, file_a),
        at(loc_b, file_b)
    ))
    .at(loc_b.clone())
    .note(format!("compiled from `{file_a}` and from `{file_b}`"))
    .note("one module has one function per kernel name: rename one, or build the files as two modules")
}

/// One global name with two different types in two device-linked files.
pub fn global_in_two_files(
    name: &str,
    ty_a: &str,
    file_a: &str,
    ty_b: &str,
    file_b: &str,
) -> Diagnostic {
    Diagnostic::error(format!(
        "device variable `{name}` is `{ty_a}` in `{file_a}` but `{ty_b}` in `{file_b}`"
    ))
}

/// The note for a variable that every one of several whole-program files has its own
/// copy of: it is left out of the typed API.
pub fn global_per_file(name: &str, files: &[String]) -> String {
    let list = files
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "device variable `{name}` has one copy in each of {list} (the files are not \
         device-linked), so it has no typed accessor; reach one copy through \
         `Module::global`, or build with `rdc` to share one variable"
    )
}

/// A kernel the files declare and none defines.
pub fn kernel_defined_nowhere(kernel: &str, files: &[String]) -> Diagnostic {
    let list = files
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::error(format!(
        "kernel `{kernel}` is declared in {list} but no file of the module defines it"
    ))
    .note("add the file that defines it to the module, or remove the declaration")
}

/// The summary of a build of several files: time per file and cache hits.
pub fn progress(module: &str, total_s: f64, files: &[(String, f64, bool)]) -> String {
    let cached = files.iter().filter(|f| f.2).count();
    let mut s = format!(
        "module `{module}`: {} files in {total_s:.1} s, {cached} from the cache",
        files.len()
    );
    let mut slow: Vec<&(String, f64, bool)> = files.iter().filter(|f| !f.2).collect();
    slow.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (file, secs, _) in slow {
        s.push_str(&format!("\n  {secs:>7.1} s  {file}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_in_two_files_names_both_places() {
        let a = Some(SourceLoc {
            file: "a.cu".into(),
            line: 3,
            column: 1,
        });
        let b = Some(SourceLoc {
            file: "b.cu".into(),
            line: 9,
            column: 1,
        });
        let d = kernel_in_two_files("scale", "a.cu", &a, "b.cu", &b);
        assert_eq!(
            d.message,
            "kernel `scale` is defined in two files of the module: a.cu:3 and b.cu:9"
        );
    }

    #[test]
    fn global_in_two_files_gives_both_types() {
        let d = global_in_two_files("n", "int", "a.cu", "float", "b.cu");
        assert_eq!(
            d.message,
            "device variable `n` is `int` in `a.cu` but `float` in `b.cu`"
        );
    }

    #[test]
    fn global_per_file_lists_the_files() {
        let n = global_per_file("table", &["a.cu".into(), "b.cu".into()]);
        assert!(n.starts_with("device variable `table` has one copy in each of `a.cu`, `b.cu`"));
    }

    #[test]
    fn kernel_defined_nowhere_names_the_declaring_file() {
        let d = kernel_defined_nowhere("scale", &["a.cu".into()]);
        assert_eq!(
            d.message,
            "kernel `scale` is declared in `a.cu` but no file of the module defines it"
        );
    }

    #[test]
    fn progress_counts_files_time_and_cache_hits() {
        let s = progress(
            "m",
            2.5,
            &[("a.cu".into(), 2.0, false), ("b.cu".into(), 0.0, true)],
        );
        assert!(s.starts_with("module `m`: 2 files in 2.5 s, 1 from the cache"));
    }
}
