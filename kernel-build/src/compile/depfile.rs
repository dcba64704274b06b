//! Reading the Makefile-style dependency file nvcc writes with `-MD -MF`.

use std::path::PathBuf;

/// The prerequisites listed in a dependency file (every rule, deduplicated, in order).
///
/// Handles line continuations (`\` at the end of a line) and escaped spaces (`\ `).
pub fn parse(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out: Vec<PathBuf> = Vec::new();
    for rule in joined.lines() {
        let Some((_, prereqs)) = split_rule(rule) else {
            continue;
        };
        for word in words(prereqs) {
            let p = PathBuf::from(word);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Splits `target : prereqs` at the first `:` that is followed by whitespace.
fn split_rule(rule: &str) -> Option<(&str, &str)> {
    let bytes = rule.as_bytes();
    (0..bytes.len()).find_map(|i| {
        let next_is_space = bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        (bytes[i] == b':' && next_is_space).then(|| (&rule[..i], &rule[i + 1..]))
    })
}

/// Whitespace-separated words, with `\ ` kept as a space inside a word.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                cur.push(' ');
                chars.next();
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_and_two_rules() {
        let text =
            "k.fatbin : k.cu \\\n    /usr/include/stdio.h \\\n    h.h\nk.o : k.cu \\\n    h.h\n";
        let deps = parse(text);
        let names: Vec<_> = deps
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["k.cu", "/usr/include/stdio.h", "h.h"]);
    }

    #[test]
    fn escaped_spaces() {
        let deps = parse("out : my\\ dir/k.cu other.h\n");
        assert_eq!(
            deps,
            [PathBuf::from("my dir/k.cu"), PathBuf::from("other.h")]
        );
    }

    #[test]
    fn garbage_gives_nothing() {
        assert!(parse("no rule here\n\\\n").is_empty());
    }
}
