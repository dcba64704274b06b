//! The section of a unit's wrapper that instantiates its tuned kernels' variants, after the
//! user's text and the layout table, and which of them nvcc refused.
//!
//! ```text
//! #line 1 "kernel-build-tuned"
//!                                                        instance 0: lines 1-3
//! template __global__ decltype(sum<128, 4>) sum<128, 4>;
//!
//! #if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ != 800)  instance 1, left out of compute_80
//! template __global__ decltype(sum<1024, 16>) sum<1024, 16>;
//! #endif
//! ```
//!
//! Each instance has three lines whatever its guard, so a message's line in the section
//! names the instance. A variant the front end of nvcc refuses (a `static_assert`) is
//! reported "at line N of kernel-build-tuned"; one ptxas refuses (too much shared memory)
//! by its symbol, which demangles to the template and its arguments.

use crate::front::demangle::demangle;
use crate::front::linemap::TUNED_SECTION_FILE;
use crate::front::tuned::Instance;

/// A unit's instances, and the virtual architectures each is left out of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Section {
    pub instances: Vec<Instance>,
    /// Per instance, the `__CUDA_ARCH__` values it is left out of, and whether it is left
    /// out of every one (then it is not instantiated at all).
    pub left_out: Vec<(Vec<u32>, bool)>,
}

impl Section {
    /// The section of `instances`, none left out.
    pub(crate) fn new(instances: Vec<Instance>) -> Section {
        let left_out = instances.iter().map(|_| (Vec::new(), false)).collect();
        Section {
            instances,
            left_out,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.instances.is_empty()
    }

    /// The section as a compile for `__CUDA_ARCH__` `number` alone sees it: what is left
    /// out of it not instantiated at all.
    pub(crate) fn only_for(&self, number: u32) -> Section {
        Section {
            instances: self.instances.clone(),
            left_out: self
                .left_out
                .iter()
                .map(|(archs, everywhere)| (Vec::new(), *everywhere || archs.contains(&number)))
                .collect(),
        }
    }

    /// Leaves instance `i` out of `number`; false when it already was.
    pub(crate) fn leave_out(&mut self, i: usize, number: u32) -> bool {
        match self.left_out.get_mut(i) {
            Some((archs, everywhere)) if !*everywhere && !archs.contains(&number) => {
                archs.push(number);
                archs.sort_unstable();
                true
            }
            _ => false,
        }
    }

    /// Marks every instance left out of each of `all` (the module's virtual architectures)
    /// as left out everywhere: it is then not instantiated at all.
    pub(crate) fn settle_everywhere(&mut self, all: &[u32]) {
        for (archs, everywhere) in &mut self.left_out {
            if !all.is_empty() && all.iter().all(|a| archs.contains(a)) {
                *everywhere = true;
            }
        }
    }

    /// The text after the user's (empty without instances).
    pub(crate) fn text(&self) -> String {
        if self.instances.is_empty() {
            return String::new();
        }
        let mut s = format!("\n#line 1 \"{TUNED_SECTION_FILE}\"\n");
        for (inst, (archs, everywhere)) in self.instances.iter().zip(&self.left_out) {
            let (open, close) = match (archs.is_empty(), everywhere) {
                (_, true) => {
                    s.push_str("\n\n\n");
                    continue;
                }
                (true, false) => (String::new(), ""),
                (false, false) => {
                    let tests: Vec<String> = archs
                        .iter()
                        .map(|a| format!("__CUDA_ARCH__ != {a}"))
                        .collect();
                    (
                        format!("#if !defined(__CUDA_ARCH__) || ({})", tests.join(" && ")),
                        "#endif",
                    )
                }
            };
            s.push_str(&format!("{open}\n{}\n{close}\n", inst.line()));
        }
        s
    }

    /// The instances nvcc's `output` blames, each with the compiler's words (the first
    /// message about it).
    pub(crate) fn blamed(&self, output: &str) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String)> = Vec::new();
        let mut push = |i: usize, why: &str| {
            if i < self.instances.len() && !out.iter().any(|(j, _)| *j == i) {
                out.push((i, why.trim().to_owned()));
            }
        };
        let mut last_error = String::new();
        for line in output.lines() {
            let trimmed = line.trim();
            if let Some(n) = section_line(trimmed) {
                // An error in the section itself, or one in the user's text "detected
                // during instantiation ... at line N" of it.
                let why = error_text(trimmed).unwrap_or_else(|| last_error.clone());
                push(n.saturating_sub(1) / 3, &why);
                continue;
            }
            if let Some(text) = error_text(trimmed) {
                last_error = text;
            }
            if trimmed.starts_with("ptxas") && trimmed.contains("error") {
                for symbol in quoted_symbols(trimmed) {
                    if let Some(i) = self.by_symbol(symbol) {
                        let why = error_text(trimmed).unwrap_or_else(|| trimmed.to_owned());
                        push(i, &why.replace(symbol, &self.instances[i].name()));
                    }
                }
            }
        }
        out
    }

    /// The instance a compiled symbol is.
    fn by_symbol(&self, symbol: &str) -> Option<usize> {
        let d = demangle(symbol)?;
        let squeeze = |s: &str| -> String {
            let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
            s.trim_end_matches(['u', 'U', 'l', 'L']).to_owned()
        };
        self.instances.iter().position(|inst| {
            d.name == inst.template.trim_start_matches("::")
                && d.template_args.len() == inst.args.len()
                && d.template_args
                    .iter()
                    .zip(&inst.args)
                    .all(|(a, b)| squeeze(a) == squeeze(b))
        })
    }
}

/// The section's line a message names: `kernel-build-tuned(N)`, `"kernel-build-tuned",
/// line N`, or `at line N of kernel-build-tuned`.
fn section_line(line: &str) -> Option<usize> {
    let at = line.find(TUNED_SECTION_FILE)?;
    let before = &line[..at];
    let after = &line[at + TUNED_SECTION_FILE.len()..];
    let digits = |s: &str| -> Option<usize> {
        let d: String = s.chars().take_while(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    if let Some(rest) = after.strip_prefix('(') {
        return digits(rest);
    }
    if let Some(rest) = after.strip_prefix("\", line ") {
        return digits(rest);
    }
    let of = before.rfind("at line ")?;
    digits(&before[of + "at line ".len()..])
}

/// The words of an error line (`k.cu(5): error: static assertion failed ...`,
/// `ptxas error   : Entry function ...`).
fn error_text(line: &str) -> Option<String> {
    for marker in [": error:", "error   :", ": fatal error:"] {
        if let Some(at) = line.find(marker) {
            return Some(line[at + marker.len()..].trim().to_owned());
        }
    }
    None
}

/// The `'_Z...'` symbols quoted in a line.
fn quoted_symbols(line: &str) -> Vec<&str> {
    line.split('\'')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("_Z"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section() -> Section {
        Section::new(vec![
            Instance {
                template: "k".into(),
                args: vec!["128".into(), "4".into()],
            },
            Instance {
                template: "k".into(),
                args: vec!["1024".into(), "16".into()],
            },
        ])
    }

    #[test]
    fn each_instance_takes_three_lines_guarded_where_left_out() {
        let mut s = section();
        s.left_out[1] = (vec![800, 860], false);
        let text = s.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "#line 1 \"kernel-build-tuned\"");
        assert_eq!(
            lines[3],
            "template __global__ decltype(k<128, 4>) k<128, 4>;"
        );
        assert_eq!(
            lines[5],
            "#if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ != 800 && __CUDA_ARCH__ != 860)"
        );
        assert_eq!(lines[7], "#endif");
        s.left_out[1].1 = true;
        assert!(!s.text().contains("1024"));
    }

    #[test]
    fn the_front_ends_and_ptxas_errors_name_their_instance() {
        // As nvcc 13.0 prints them.
        let output = "\
b.cu(5): error: static assertion failed with \"ITEMS too large\"
      static_assert(ITEMS <= 4, \"ITEMS too large\");
      ^
          detected during instantiation of \"void k<BLOCK,ITEMS>(const float *, float *, int) [with BLOCK=1024, ITEMS=16]\" at line 5 of kernel-build-tuned

1 error detected in the compilation of \"b.cu\".
ptxas error   : Entry function '_Z1kILi128ELi4EEvPKfPfi' uses too much shared data (0x10000 bytes, 0xc000 max)
";
        let blamed = section().blamed(output);
        assert_eq!(blamed.len(), 2, "{blamed:?}");
        assert_eq!(blamed[0].0, 1);
        assert_eq!(
            blamed[0].1,
            "static assertion failed with \"ITEMS too large\""
        );
        assert_eq!(blamed[1].0, 0);
        assert!(blamed[1].1.contains("k<128, 4>"), "{}", blamed[1].1);
        assert!(
            section()
                .blamed("k.cu(3): error: x is undefined\n")
                .is_empty()
        );
        assert_eq!(
            section()
                .blamed("kernel-build-tuned(2): error: no instance of function template \"k\"\n"),
            [(0, "no instance of function template \"k\"".to_owned())]
        );
    }
}
