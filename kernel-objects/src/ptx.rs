//! PTX modules: `.version`, `.target`, each `.entry` with its `.param` list (offsets by the
//! alignment rule: each parameter starts at the running offset rounded up to its
//! alignment) and performance directives, and the `.const` / `.global` variables.

use super::error::Error;
use super::image::{GlobalImage, KernelImage};
use super::ptx_lex::{Tok, Token, tokenize};

/// What a PTX module holds.
///
/// ```
/// let ptx = cuda_kernel_objects::parse_ptx(".version 9.0\n.target sm_120\n.address_size 64\n")?;
/// assert_eq!((ptx.version, ptx.target.as_str()), ((9, 0), "sm_120"));
/// # Ok::<(), cuda_kernel_objects::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PtxModule {
    /// PTX ISA version `(major, minor)`.
    pub version: (u32, u32),
    /// The first `.target` (`sm_120`, `sm_90a`).
    pub target: String,
    /// `.entry` functions in file order (`.extern` declarations excluded).
    pub kernels: Vec<KernelImage>,
    /// `.const` and `.global` variables defined in the module.
    pub globals: Vec<GlobalImage>,
}

/// Parses PTX text.
///
/// ```
/// let ptx = cuda_kernel_objects::parse_ptx(r#"
///     .version 9.0
///     .target sm_90
///     .visible .entry withstruct(
///         .param .align 8 .b8 withstruct_param_0[24],
///         .param .u64 .ptr .align 1 withstruct_param_1
///     ) { ret; }
/// "#)?;
/// let k = &ptx.kernels[0];
/// assert_eq!(k.params.iter().map(|p| (p.offset, p.size)).collect::<Vec<_>>(), [(0, 24), (24, 8)]);
/// assert_eq!(k.param_size, Some(32));
/// // The struct's alignment; a pointer's own (`.ptr .align 1` is its pointee's).
/// assert_eq!(k.params.iter().map(|p| p.align).collect::<Vec<_>>(), [Some(8), Some(8)]);
/// # Ok::<(), cuda_kernel_objects::Error>(())
/// ```
pub fn parse_ptx(text: &str) -> Result<PtxModule, Error> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
    };
    let mut module = PtxModule {
        version: (0, 0),
        target: String::new(),
        kernels: vec![],
        globals: vec![],
    };
    let mut version = None;
    let (mut visible, mut external) = (false, false);
    while let Some(t) = p.next() {
        match t.tok {
            Tok::Word(".visible" | ".weak" | ".common") => visible = true,
            Tok::Word(".extern") => external = true,
            Tok::Word(".version") => version = Some(parse_version(p.word()?, t.line)?),
            Tok::Word(".target") => {
                module.target = p.word()?.to_owned();
                while p.eat(Tok::Punct(',')) {
                    p.word()?;
                }
            }
            Tok::Word(".address_size") => drop(p.word()?),
            Tok::Word(".file") => p.skip_line(t.line),
            Tok::Word(".entry") => {
                let kernel = p.entry(!visible)?;
                if !external {
                    module.kernels.push(kernel);
                }
            }
            Tok::Word(space @ (".const" | ".global")) => {
                let globals = p.globals(space == ".const")?;
                if !external {
                    module.globals.extend(globals);
                }
            }
            _ => {
                p.pos -= 1;
                p.skip_statement()?;
            }
        }
        if !matches!(
            t.tok,
            Tok::Word(".visible" | ".weak" | ".common" | ".extern")
        ) {
            (visible, external) = (false, false);
        }
    }
    module.version = version.ok_or(Error::BadPtx {
        line: 1,
        detail: "no .version directive".into(),
    })?;
    if module.target.is_empty() {
        return Err(Error::BadPtx {
            line: 1,
            detail: "no .target directive".into(),
        });
    }
    Ok(module)
}

fn parse_version(word: &str, line: usize) -> Result<(u32, u32), Error> {
    word.split_once('.')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| Error::BadPtx {
            line,
            detail: format!("bad .version `{word}`"),
        })
}

/// Size in bytes of a PTX fundamental type (`.u32` → 4).
pub(super) fn type_size(ty: &str) -> Option<u32> {
    Some(match ty {
        ".b8" | ".u8" | ".s8" | ".e4m3" | ".e5m2" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" | ".f16x2" | ".bf16x2" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

/// Vector lane count of `.v2`, `.v4`, `.v8`.
pub(super) fn lanes(word: &str) -> Option<u32> {
    match word {
        ".v2" => Some(2),
        ".v4" => Some(4),
        ".v8" => Some(8),
        _ => None,
    }
}

/// A cursor over the tokens of a module.
pub(super) struct Parser<'t, 'a> {
    pub(super) tokens: &'t [Token<'a>],
    pub(super) pos: usize,
}

/// `.maxntid`-style directive values: one to three numbers, missing ones are 1.
pub(super) type Dims = [u32; 3];

impl<'a> Parser<'_, 'a> {
    pub(super) fn next(&mut self) -> Option<Token<'a>> {
        let t = self.tokens.get(self.pos).copied();
        self.pos += usize::from(t.is_some());
        t
    }

    pub(super) fn peek(&self) -> Option<Tok<'a>> {
        self.tokens.get(self.pos).map(|t| t.tok)
    }

    pub(super) fn line(&self) -> usize {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(1, |t| t.line)
    }

    pub(super) fn error(&self, detail: impl Into<String>) -> Error {
        Error::BadPtx {
            line: self.line(),
            detail: detail.into(),
        }
    }

    pub(super) fn eat(&mut self, tok: Tok<'_>) -> bool {
        let hit = self.peek() == Some(tok);
        self.pos += usize::from(hit);
        hit
    }

    pub(super) fn expect(&mut self, c: char) -> Result<(), Error> {
        if self.eat(Tok::Punct(c)) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`")))
        }
    }

    pub(super) fn word(&mut self) -> Result<&'a str, Error> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.error("expected a name or number")),
        }
    }

    pub(super) fn number(&mut self) -> Result<u32, Error> {
        let w = self.word()?;
        let digits = w.strip_suffix(['U', 'u']).unwrap_or(w);
        let parsed = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => digits.parse().ok(),
        };
        parsed.ok_or_else(|| Error::BadPtx {
            line: self.line(),
            detail: format!("expected a number, found `{w}`"),
        })
    }

    /// Skips the rest of a directive written on one line (`.file 1 "k.cu"`).
    fn skip_line(&mut self, line: usize) {
        while self.tokens.get(self.pos).is_some_and(|t| t.line == line) {
            self.pos += 1;
        }
    }

    /// Skips one statement: up to a `;` outside braces, or to the end of its `{ … }` block.
    pub(super) fn skip_statement(&mut self) -> Result<(), Error> {
        let start = self.line();
        let mut depth = 0usize;
        while let Some(t) = self.next() {
            match t.tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => return Err(self.error("unbalanced `}`")),
                Tok::Punct('}') if depth == 1 => return Ok(()),
                Tok::Punct('}') => depth -= 1,
                Tok::Punct(';') if depth == 0 => return Ok(()),
                _ => {}
            }
        }
        Err(Error::BadPtx {
            line: start,
            detail: "statement or block not terminated".into(),
        })
    }

    pub(super) fn dims(&mut self) -> Result<Dims, Error> {
        let mut dims = [1; 3];
        dims[0] = self.number()?;
        for d in &mut dims[1..] {
            if !self.eat(Tok::Punct(',')) {
                break;
            }
            *d = self.number()?;
        }
        Ok(dims)
    }
}
