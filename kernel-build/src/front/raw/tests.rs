//! Unit tests of the raw pass: conditionals, macros, notes and errors.

use super::*;

fn run(src: &str) -> (Vec<String>, Vec<String>) {
    let out = expand_for(src, &lex(src).tokens, "k.cu", None).unwrap();
    (
        out.tokens.iter().map(|t| t.text(src).to_string()).collect(),
        out.notes,
    )
}

#[test]
fn else_and_elif_branches() {
    let (t, notes) = run("#if 0\na\n#elif 1\nb\n#else\nc\n#endif\n#ifdef __CUDACC__\nd\n#endif");
    assert_eq!(t, ["b", "d"]);
    assert!(notes.is_empty());
}

#[test]
fn cuda_arch_is_undefined_on_the_host_pass() {
    let (t, notes) = run("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\nk\n#endif");
    assert_eq!(t, ["k"]);
    assert!(notes.is_empty());
}

#[test]
fn unknown_names_are_noted() {
    let (t, notes) = run("#if USE_FAST\nfast\n#else\nslow\n#endif");
    assert_eq!(t, ["slow"]);
    assert!(notes[0].starts_with("line 1: `#if USE_FAST`"));
}

#[test]
fn recursive_macros_stop() {
    let (t, _) = run("#define A B\n#define B A\nA");
    assert_eq!(t, ["A"]);
}

#[test]
fn function_macros_and_includes_are_noted() {
    let (_, notes) = run("#include \"u.h\"\n#include <cstdint>\n#define F(x) x\nF(1) F(2)");
    assert_eq!(notes.len(), 2);
    assert!(notes[1].contains("macro `F`"));
}

#[test]
fn unbalanced_conditionals_are_errors_with_lines() {
    let src = "#endif\n#if 1\n";
    let err = expand_for(src, &lex(src).tokens, "k.cu", None).unwrap_err();
    assert_eq!(err.len(), 2);
    assert_eq!(err.iter().next().unwrap().loc.as_ref().unwrap().line, 1);
}

#[test]
fn expansions_carry_the_use_site() {
    let src = "#define T float\n\n  T x;";
    let out = expand_for(src, &lex(src).tokens, "k.cu", None).unwrap();
    assert_eq!((out.tokens[0].line, out.tokens[0].col), (3, 3));
    assert_eq!(out.tokens[0].text(src), "float");
}

#[test]
fn object_macros_expand_and_false_branches_drop() {
    let src = "#define K extern \"C\" __global__\n#if 0\nK void no();\n#endif\nK void yes();";
    let out = expand_for(src, &lex(src).tokens, "k.cu", None).unwrap();
    let text: Vec<&str> = out.tokens.iter().map(|t| t.text(src)).collect();
    assert_eq!(
        text,
        [
            "extern",
            "\"C\"",
            "__global__",
            "void",
            "yes",
            "(",
            ")",
            ";"
        ]
    );
}

#[test]
fn cuda_arch_conditions_follow_the_target() {
    let src = "#if __CUDA_ARCH__ >= 800\n__global__ void bf16();\n#endif";
    let names = |arch| {
        let out = expand_for(src, &lex(src).tokens, "k.cu", arch).unwrap();
        out.tokens.iter().any(|t| t.text(src) == "bf16")
    };
    assert!(names(Some(900)) && !names(Some(750)) && !names(None));
}
