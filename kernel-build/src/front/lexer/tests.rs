//! Unit tests of the lexer: positions, comments, directives, literals and recovery.

use super::*;

fn texts(src: &str) -> Vec<String> {
    lex(src)
        .tokens
        .iter()
        .map(|t| t.text(src).to_string())
        .collect()
}

#[test]
fn positions_are_one_based() {
    let src = "int a;\n  float* b;";
    let l = lex(src);
    let b = l.tokens.iter().find(|t| t.text(src) == "b").unwrap();
    assert_eq!((b.line, b.col), (2, 10));
}

#[test]
fn comments_and_strings_hide_keywords() {
    let src =
        "// __global__ void a();\n/* __global__ */ const char* s = \"__global__\"; char c = '\\'';";
    let t = texts(src);
    assert!(!t.iter().any(|x| x == "__global__"));
    assert_eq!(lex(src).comments.len(), 2);
}

#[test]
fn directives_are_single_tokens_with_continuations() {
    let src = "#define K \\\n  extern \"C\"\nint x;\n  # 12 \"a.cu\" 2\n";
    let l = lex(src);
    assert_eq!(l.tokens[0].kind, TokKind::Directive);
    assert_eq!(l.tokens[0].text(src), "#define K \\\n  extern \"C\"");
    assert_eq!(texts(src)[1..4], ["int", "x", ";"]);
    assert_eq!(l.tokens[4].kind, TokKind::Directive);
    assert_eq!(l.tokens[4].line, 4);
}

#[test]
fn hash_inside_a_line_is_punctuation() {
    let l = lex("a # b");
    assert!(l.tokens.iter().all(|t| t.kind != TokKind::Directive));
}

#[test]
fn scope_and_ellipsis_are_one_token() {
    assert_eq!(
        texts("a::b(...)>>"),
        ["a", "::", "b", "(", "...", ")", ">", ">"]
    );
}

#[test]
fn numbers_with_suffixes_and_exponents() {
    assert_eq!(texts("0x1Fu 1.5e-3f 2"), ["0x1Fu", "1.5e-3f", "2"]);
    assert_eq!(
        texts("t * 1'000 / n 0xFF'FF"),
        ["t", "*", "1'000", "/", "n", "0xFF'FF"]
    );
}

#[test]
fn unterminated_things_are_reported_with_lines() {
    let l = lex("int a;\n/* open");
    assert_eq!(
        l.errors,
        [LexError {
            what: "comment",
            line: 2,
            col: 1
        }]
    );
    let l = lex("\n\n \"abc\nint");
    assert_eq!(l.errors[0].what, "string literal");
    assert_eq!((l.errors[0].line, l.errors[0].col), (3, 2));
}

#[test]
fn raw_strings_and_non_ascii() {
    let src = "R\"x(a)\" )x\" é int";
    assert_eq!(texts(src), ["R\"x(a)\" )x\"", "é", "int"]);
}

#[test]
fn comments_are_kept_apart_from_tokens() {
    let src = "/* doc */ extern \"C\" __global__ void k(float* x);";
    let lexed = lex(src);
    assert_eq!(lexed.comments[0].text.trim(), "doc");
    let texts: Vec<&str> = lexed.tokens.iter().map(|t| t.text(src)).collect();
    assert_eq!(texts[..4], ["extern", "\"C\"", "__global__", "void"]);
    assert_eq!(lexed.tokens[1].kind, TokKind::Str);
}
