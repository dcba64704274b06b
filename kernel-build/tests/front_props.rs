//! Property tests: the front end never panics, and every error it reports on
//! malformed input carries a location.

use std::path::{Path, PathBuf};

use cuda_kernel_build::__private::{FrontInput, analyze};
use proptest::prelude::*;

const VOCAB: &[&str] = &[
    "extern",
    "\"C\"",
    "__global__",
    "__device__",
    "__constant__",
    "void",
    "float",
    "int",
    "unsigned",
    "long",
    "const",
    "struct",
    "typedef",
    "template",
    "typename",
    "namespace",
    "static",
    "P",
    "T",
    "k",
    "x",
    "n",
    "size_t",
    "float4",
    "__half",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "*",
    "&",
    ",",
    ";",
    "::",
    "=",
    "16",
    "-1",
    "#if 0\n",
    "#endif\n",
    "#define K __global__\n",
    "K",
    "__attribute__((global))",
    "__launch_bounds__(",
    "\n",
    "/*",
    "*/",
    "//",
    "\"",
    "'",
    "\\\n",
    "...",
    "union",
    "using",
    "enum",
    "operator",
    "~",
];

fn check(text: &str) {
    let marked = format!("# 1 \"p.cu\"\n{text}");
    let inputs = [
        FrontInput::raw_only("p.cu", text),
        FrontInput {
            display_name: "p.cu",
            raw: text,
            preprocessed: Some(&marked),
            main_file: Path::new("p.cu"),
            user_dirs: &[],
            host_stub: None,
            headers: &[],
            tuned: &[],
        },
    ];
    for input in &inputs {
        if let Err(diags) = analyze(input) {
            assert!(!diags.is_empty());
            for d in &diags {
                let loc = d
                    .loc
                    .as_ref()
                    .unwrap_or_else(|| panic!("no location: {d}\ninput: {text:?}"));
                assert!(loc.line >= 1, "{d}");
            }
        }
    }
}

fn corpus_files() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/front_corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn token_soups_never_panic(words in prop::collection::vec(prop::sample::select(VOCAB), 0..80)) {
        check(&words.join(" "));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn truncated_corpus_files_never_panic(file in 0usize..6, cut in 0.0f64..1.0) {
        let files = corpus_files();
        let text = &files[file % files.len()];
        let mut at = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        check(&text[..at]);
    }
}

#[test]
fn malformed_declarations_report_their_line() {
    let cases = [
        ("extern \"C\" __global__ void k(int n", 1),
        ("\n\n__global__ void k(float* x,, int n) {}", 3),
        ("struct S { int a : 3; };\n", 1),
        ("\n\n\n/* never closed", 4),
        ("#if 1\n__global__ void k();\n", 2),
        ("__constant__ float c[N];", 1),
    ];
    for (src, line) in cases {
        let err = analyze(&FrontInput::raw_only("m.cu", src)).expect_err(src);
        let first = err.iter().next().unwrap();
        assert_eq!(
            first.loc.as_ref().map(|l| l.line),
            Some(line),
            "{src:?}: {err}"
        );
    }
    // A kernel whose signature cannot be typed is not an error: it stays untyped, with
    // where and why.
    let untyped = [
        (
            "\n__global__ void k(unknown_t u);",
            2,
            "unknown type `unknown_t`",
        ),
        ("__global__ int k(int* p) {}", 1, "must return `void`"),
    ];
    for (src, line, why) in untyped {
        let info = analyze(&FrontInput::raw_only("m.cu", src)).expect(src);
        let k = &info.untyped[0];
        assert_eq!(k.loc.as_ref().map(|l| l.line), Some(line), "{src:?}: {k:?}");
        assert!(k.why.contains(why), "{src:?}: {k:?}");
    }
}
