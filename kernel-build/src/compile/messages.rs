//! Reading nvcc's diagnostics: which are errors or warnings, and at which file:line.
//!
//! nvcc's stages print in different shapes:
//!
//! ```text
//! k.cu(3): error: identifier "x" is undefined            (the CUDA front end)
//! k.cu(3): warning #177-D: variable "x" was declared ... (the CUDA front end)
//! k.cu:1:10: fatal error: nope.h: No such file or directory  (the host preprocessor)
//! nvcc fatal   : Unsupported gpu architecture 'compute_91'   (the driver)
//! ptxas warning : Registers are spilled to local memory      (the assembler)
//! ```

/// How serious a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The build failed because of it.
    Error,
    /// Worth showing; the build goes on.
    Warning,
}

/// One diagnostic line of nvcc, with the lines of context that follow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvccMessage {
    /// Error or warning.
    pub severity: Severity,
    /// The file named, as nvcc printed it.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u32>,
    /// The message text after `error:` / `warning:`.
    pub text: String,
    /// The full line as printed.
    pub raw: String,
}

impl NvccMessage {
    /// `file:line`, when both are known.
    pub fn location(&self) -> Option<String> {
        Some(format!("{}:{}", self.file.as_ref()?, self.line?))
    }
}

/// Finds the error and warning lines in nvcc's combined output.
///
/// A message printed without a location (`At end of source: error: expected a "}"`) takes
/// the location of the `note` that follows it, where nvcc names the construct at fault
/// (`k.cu(2): note #3196-D: to match this "{"`).
pub fn parse(output: &str) -> Vec<NvccMessage> {
    let mut messages: Vec<NvccMessage> = Vec::new();
    // Whether the last message may still adopt a note's location.
    let mut open = false;
    for raw in output.lines() {
        if let Some(message) = parse_line(raw) {
            open = message.line.is_none();
            messages.push(message);
        } else if let Some((file, line)) = note_location(raw) {
            if open && let Some(last) = messages.last_mut() {
                last.file = Some(file);
                last.line = Some(line);
            }
            open = false;
        }
    }
    messages
}

/// The location of a located `note` line: `k.cu(2): note #3196-D: ...`.
fn note_location(raw: &str) -> Option<(String, u32)> {
    let pos = raw.find(": note")?;
    match location(raw[..pos].trim_end()) {
        (Some(file), Some(line)) => Some((file, line)),
        _ => None,
    }
}

fn parse_line(raw: &str) -> Option<NvccMessage> {
    let line = raw.trim_end();
    let (head, severity, text) = split_severity(line)?;
    let (file, line_no) = location(head.trim_end());
    Some(NvccMessage {
        severity,
        file,
        line: line_no,
        text: text.trim().to_string(),
        raw: line.to_string(),
    })
}

/// Splits `HEAD: error: TEXT` (or `warning`, `fatal error`, `warning #N-D`).
fn split_severity(line: &str) -> Option<(&str, Severity, &str)> {
    for (marker, severity) in [
        (": fatal error", Severity::Error),
        (": error", Severity::Error),
        (": warning", Severity::Warning),
        (" fatal   :", Severity::Error),
        (" error   :", Severity::Error),
        (" warning :", Severity::Warning),
        // The back end (cicc) capitalises: `k.cu(3): Error: Formal parameter space overflowed`.
        (": Error", Severity::Error),
    ] {
        if let Some(pos) = line.find(marker) {
            let after = &line[pos + marker.len()..];
            // `warning #177-D: text` / `error: text` / `fatal   : text`
            let text = after.split_once(':').map(|(_, t)| t).unwrap_or(after);
            return Some((&line[..pos], severity, text));
        }
    }
    None
}

/// `file(12)`, `file:12:5`, `file:12` or something without a location.
fn location(head: &str) -> (Option<String>, Option<u32>) {
    if let Some(open) = head.rfind('(')
        && let Some(num) = head[open + 1..].strip_suffix(')')
        && let Ok(n) = num.parse()
    {
        return (Some(head[..open].to_string()), Some(n));
    }
    let mut parts = head.rsplitn(3, ':');
    let last = parts.next();
    let mid = parts.next();
    let first = parts.next();
    match (first, mid, last) {
        (Some(f), Some(l), Some(c)) if l.parse::<u32>().is_ok() && c.parse::<u32>().is_ok() => {
            (Some(f.to_string()), l.parse().ok())
        }
        (_, Some(f), Some(l)) if l.parse::<u32>().is_ok() => {
            let file = match first {
                Some(pre) => format!("{pre}:{f}"),
                None => f.to_string(),
            };
            (Some(file), l.parse().ok())
        }
        _ => (None, None),
    }
}

/// The header a failed compile could not find: the host preprocessor's
/// `k.cu:1:10: fatal error: curand_kernel.h: No such file or directory`, or the CUDA front
/// end's `catastrophic error: cannot open source file "curand_kernel.h"`.
pub(crate) fn missing_header(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        if let Some((_, rest)) = line.split_once("fatal error: ") {
            return rest
                .strip_suffix(": No such file or directory")
                .map(str::to_owned);
        }
        let (_, rest) = line.split_once("cannot open source file \"")?;
        Some(rest.split('"').next()?.to_owned())
    })
}

/// nvcc's output as a user reads it: each diagnostic once (nvcc compiles a file once per
/// virtual architecture, and each run prints the same errors), without the follow-on
/// complaint of a later stage about an intermediate file an earlier failure never wrote
/// (`fatal : Could not open input file …/k.compute_80.cpp1.ii`).
///
/// A diagnostic is its message line and the lines after it up to the next message or a
/// blank line (the quoted source, the caret, `compilation terminated.`).
pub fn tidy(output: &str) -> String {
    let messages = parse(output);
    let failed_before = messages
        .iter()
        .any(|m| m.severity == Severity::Error && !is_missing_intermediate(&m.raw));
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| !(failed_before && is_missing_intermediate(l)))
        .collect();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut seen: Vec<&[&str]> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let starts = |l: &str| parse_line(l).is_some() || note_location(l).is_some();
        if !starts(lines[i]) {
            out.push(lines[i]);
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < lines.len() && !lines[end].trim().is_empty() && !starts(lines[end]) {
            end += 1;
        }
        let block = &lines[i..end];
        if seen.contains(&block) {
            // The repeat's blank separator goes with it.
            if end < lines.len() && lines[end].trim().is_empty() {
                end += 1;
            }
        } else {
            seen.push(block);
            out.extend_from_slice(block);
        }
        i = end;
    }
    let mut text = out.join("\n");
    if output.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A later stage's complaint that an intermediate file of nvcc's is missing.
fn is_missing_intermediate(line: &str) -> bool {
    line.contains("Could not open input file") && line.trim_end().ends_with(".ii")
}

/// nvcc's CUDA front end writes `k.cu(3): error: ...`; every other tool (and this crate's
/// messages) write `k.cu:3: ...`. Rewrites each located line of `output` to the colon form,
/// leaving everything else as it is.
///
/// (`k.cu(3): error: x` becomes `k.cu:3: error: x`; tested below).
pub fn colon_locations(output: &str) -> String {
    let mut out = String::with_capacity(output.len());
    for (i, line) in output.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&colon_location(line));
    }
    out
}

/// One line of [`colon_locations`].
fn colon_location(line: &str) -> std::borrow::Cow<'_, str> {
    const KINDS: [&str; 6] = [
        "error",
        "warning",
        "note",
        "remark",
        "Error",
        "catastrophic error",
    ];
    let Some(close) = line.find("): ") else {
        return line.into();
    };
    let (head, rest) = (&line[..close], &line[close + 3..]);
    let Some(open) = head.rfind('(') else {
        return line.into();
    };
    let (file, number) = (&head[..open], &head[open + 1..]);
    let located = !file.is_empty()
        && !file.starts_with(char::is_whitespace)
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && KINDS.iter().any(|k| rest.starts_with(k));
    if located {
        format!("{file}:{number}: {rest}").into()
    } else {
        line.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_headers_are_found_in_both_forms() {
        assert_eq!(
            missing_header("k.cu:1:10: fatal error: curand_kernel.h: No such file or directory\n")
                .as_deref(),
            Some("curand_kernel.h")
        );
        assert_eq!(
            missing_header(
                "k.cu(2): catastrophic error: cannot open source file \"cute/tensor.hpp\""
            )
            .as_deref(),
            Some("cute/tensor.hpp")
        );
        assert_eq!(missing_header("k.cu(2): error: x"), None);
    }

    #[test]
    fn tidy_keeps_each_diagnostic_once_and_drops_follow_on_complaints() {
        let twice = "g.cu:1:10: fatal error: cutlass/cutlass.h: No such file or directory\n    1 | #include <cutlass/cutlass.h>\n      |          ^~~~\ncompilation terminated.\n";
        let output = format!(
            "{twice}{twice}nvcc fatal   : Could not open input file /tmp/k/g.compute_80.cpp1.ii\n"
        );
        assert_eq!(tidy(&output), twice);
        // Different messages at the same place both stay; a lone missing file is kept.
        let two = "k.cu(3): error: a\n  x\n  ^\n\nk.cu(3): error: b\n  x\n  ^\n";
        assert_eq!(tidy(two), two);
        let alone = "nvcc fatal   : Could not open input file /tmp/k/g.compute_80.cpp1.ii";
        assert_eq!(tidy(alone), alone);
    }

    #[test]
    fn colon_locations_only_touch_located_diagnostics() {
        assert_eq!(
            colon_locations("<inline k>(4): error: expected a \";\""),
            "<inline k>:4: error: expected a \";\""
        );
        assert_eq!(
            colon_locations("big.cu(3): Error: Formal parameter space overflowed"),
            "big.cu:3: Error: Formal parameter space overflowed"
        );
        // Source lines quoted under a message, and text that merely has parentheses, stay.
        for same in [
            "    f(1): error",
            "call(x): error",
            "x(12): text",
            "k.cu:1:10: fatal error: y",
        ] {
            assert_eq!(colon_locations(same), same);
        }
    }

    #[test]
    fn cuda_front_end_error() {
        let m =
            parse("bad.cu(1): error: identifier \"undefined_thing\" is undefined\n  code\n   ^\n");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].severity, Severity::Error);
        assert_eq!(m[0].location().as_deref(), Some("bad.cu:1"));
        assert_eq!(m[0].text, "identifier \"undefined_thing\" is undefined");
    }

    #[test]
    fn numbered_warning() {
        let m = parse("w.cu(7): warning #177-D: variable \"x\" was declared but never referenced");
        assert_eq!(m[0].severity, Severity::Warning);
        assert_eq!(m[0].location().as_deref(), Some("w.cu:7"));
        assert_eq!(
            m[0].text,
            "variable \"x\" was declared but never referenced"
        );
    }

    #[test]
    fn back_end_capitalised_error() {
        let m = parse(
            "big.cu(3): Error: Formal parameter space overflowed (40008 bytes required, max 32764 bytes allowed) in function take",
        );
        assert_eq!(m[0].severity, Severity::Error);
        assert_eq!(m[0].location().as_deref(), Some("big.cu:3"));
        assert!(
            m[0].text.starts_with("Formal parameter space"),
            "{}",
            m[0].text
        );
    }

    #[test]
    fn preprocessor_fatal_error() {
        let m = parse("dir/mh.cu:1:10: fatal error: nope.h: No such file or directory");
        assert_eq!(m[0].severity, Severity::Error);
        assert_eq!(m[0].location().as_deref(), Some("dir/mh.cu:1"));
        assert_eq!(m[0].text, "nope.h: No such file or directory");
    }

    #[test]
    fn driver_and_assembler_lines() {
        let m = parse(
            "nvcc fatal   : Unsupported gpu architecture 'compute_91'\nptxas warning : Registers are spilled",
        );
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].severity, Severity::Error);
        assert_eq!(m[0].location(), None);
        assert_eq!(m[1].severity, Severity::Warning);
    }

    #[test]
    fn unlocated_error_takes_the_following_note_location() {
        let m = parse(concat!(
            "At end of source: error: expected a \"}\"\n",
            "k.cu(2): note #3196-D: to match this \"{\"\n",
            "  extern \"C\" void f() {\n",
            "                        ^\n",
        ));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].location().as_deref(), Some("k.cu:2"));
        assert_eq!(m[0].text, "expected a \"}\"");
    }

    #[test]
    fn notes_never_move_a_located_message_or_a_later_one() {
        let m = parse(concat!(
            "a.cu(5): error: first\n",
            "a.cu(9): note #1-D: context\n",
            "nvcc fatal   : no location\n",
            "plain text\n",
        ));
        assert_eq!(m[0].location().as_deref(), Some("a.cu:5"));
        assert_eq!(m[1].location(), None);
        // A note after plain lines still belongs to the unlocated message before it.
        let m = parse("At end of source: error: x\n\nb.cu(3): note: y\nb.cu(4): note: z\n");
        assert_eq!(m[0].location().as_deref(), Some("b.cu:3"));
    }

    #[test]
    fn plain_lines_are_not_messages() {
        assert!(parse("1 error detected in the compilation of \"bad.cu\".\n").is_empty());
        assert!(parse("").is_empty());
    }
}

/// nvcc's warnings, each once, naming the targets it came from. The device front end runs
/// once per virtual architecture and prints the same warning each time; `runs` gives each
/// nvcc run's warnings with the virtual architectures it compiled. A warning a run printed as
/// often as it has architectures came from all of them; printed fewer times, from that many
/// of them (which ones, nvcc does not say).
pub(crate) fn collapse_warnings(runs: Vec<(Vec<String>, Vec<NvccMessage>)>) -> Vec<NvccMessage> {
    // (first message, known targets, "n of" hints)
    let mut out: Vec<(NvccMessage, Vec<String>, Vec<String>)> = Vec::new();
    for (archs, warnings) in runs {
        let mut counted: Vec<(NvccMessage, usize)> = Vec::new();
        for w in warnings {
            match counted.iter_mut().find(|(m, _)| m.raw == w.raw) {
                Some((_, n)) => *n += 1,
                None => counted.push((w, 1)),
            }
        }
        for (w, n) in counted {
            let at = match out.iter().position(|(m, _, _)| m.raw == w.raw) {
                Some(i) => i,
                None => {
                    out.push((w, Vec::new(), Vec::new()));
                    out.len() - 1
                }
            };
            let (_, known, some) = &mut out[at];
            if n >= archs.len() {
                known.extend(archs.iter().cloned());
            } else {
                some.push(format!("{n} of {}", archs.join(", ")));
            }
        }
    }
    out.into_iter()
        .map(|(mut m, mut known, some)| {
            known.sort();
            known.dedup();
            let mut parts = Vec::new();
            if !known.is_empty() {
                parts.push(known.join(", "));
            }
            parts.extend(some);
            if !parts.is_empty() {
                m.raw = format!("{} [{}]", m.raw, parts.join("; "));
            }
            m
        })
        .collect()
}

#[cfg(test)]
mod collapse_tests {
    use super::*;

    fn warning(text: &str) -> NvccMessage {
        NvccMessage {
            severity: Severity::Warning,
            file: Some("k.cu".into()),
            line: Some(3),
            text: text.into(),
            raw: format!("k.cu(3): warning #177-D: {text}"),
        }
    }

    #[test]
    fn a_warning_of_every_pass_is_printed_once_with_its_targets() {
        let archs: Vec<String> = ["compute_75", "compute_90", "compute_120"]
            .map(String::from)
            .to_vec();
        let w = warning("variable \"x\" was declared but never referenced");
        let other = warning("other");
        let out = collapse_warnings(vec![(
            archs,
            vec![w.clone(), other.clone(), w.clone(), w.clone()],
        )]);
        assert_eq!(out.len(), 2);
        assert!(
            out[0]
                .raw
                .ends_with("never referenced [compute_120, compute_75, compute_90]"),
            "{}",
            out[0].raw
        );
        assert!(
            out[1]
                .raw
                .ends_with("other [1 of compute_75, compute_90, compute_120]"),
            "{}",
            out[1].raw
        );
    }

    #[test]
    fn runs_of_one_architecture_each_are_named_exactly() {
        let w = warning("unused");
        let out = collapse_warnings(vec![
            (vec!["compute_80".into()], vec![w.clone()]),
            (vec!["compute_90".into()], vec![w.clone()]),
            (vec!["compute_100".into()], vec![]),
        ]);
        assert_eq!(out.len(), 1);
        assert!(
            out[0].raw.ends_with("unused [compute_80, compute_90]"),
            "{}",
            out[0].raw
        );
    }
}
