//! PTX declarations: `.entry` headers (parameters, performance directives) and module
//! variables (`.const`, `.global`).

use super::error::Error;
use super::image::{GlobalImage, KernelImage, ParamSlot};
use super::ptx::{Parser, lanes, type_size};
use super::ptx_lex::Tok;

/// Opaque `.global` types that occupy no sized storage.
const OPAQUE: &[&str] = &[".texref", ".samplerref", ".surfref"];

/// Size and alignment of one declared object.
struct Shape {
    elem: u32,
    align: Option<u32>,
}

impl Parser<'_, '_> {
    /// After `.entry`: name, parameters, performance directives, then the body (skipped).
    pub(super) fn entry(&mut self, is_local: bool) -> Result<KernelImage, Error> {
        let mut kernel = KernelImage {
            symbol: self.word()?.to_owned(),
            is_local,
            ..KernelImage::default()
        };
        if self.eat(Tok::Punct('(')) {
            self.params(&mut kernel)?;
        }
        loop {
            match self.peek() {
                Some(Tok::Punct('{')) => return self.skip_statement().map(|()| kernel),
                Some(Tok::Punct(';')) => {
                    self.pos += 1;
                    return Ok(kernel);
                }
                Some(Tok::Word(directive)) => {
                    self.pos += 1;
                    match directive {
                        ".maxntid" => kernel.max_threads = Some(self.dims()?),
                        ".reqntid" => kernel.reqntid = Some(self.dims()?),
                        ".reqnctapercluster" => kernel.cluster_dims = Some(self.dims()?),
                        ".maxnreg" => kernel.maxreg_count = Some(self.number()?),
                        _ => {} // .minnctapersm N, .explicitcluster, .noreturn …
                    }
                }
                Some(Tok::Punct(',') | Tok::Str(_)) => self.pos += 1,
                _ => {
                    return Err(self.error(format!(
                        "unexpected token in the header of `{}`",
                        kernel.symbol
                    )));
                }
            }
        }
    }

    /// After `(`: the `.param` list and its closing `)`.
    fn params(&mut self, kernel: &mut KernelImage) -> Result<(), Error> {
        let mut cursor = 0u32;
        let mut ordinal = 0u32;
        while !self.eat(Tok::Punct(')')) {
            if ordinal > 0 {
                self.expect(',')?;
            }
            if self.word()? != ".param" {
                return Err(self.error("expected `.param`"));
            }
            let shape = self
                .shape()?
                .ok_or_else(|| self.error("parameter without a type"))?;
            self.word()?; // name
            let count = if self.eat(Tok::Punct('[')) {
                let n = self.number()?;
                self.expect(']')?;
                n
            } else {
                1
            };
            let size = shape
                .elem
                .checked_mul(count)
                .ok_or_else(|| self.error("parameter size overflows"))?;
            let align = shape.align.unwrap_or(shape.elem);
            if !align.is_power_of_two() {
                return Err(self.error(format!("alignment {align} is not a power of two")));
            }
            let offset = cursor
                .checked_next_multiple_of(align)
                .ok_or_else(|| self.error("parameter offset overflows"))?;
            cursor = offset
                .checked_add(size)
                .ok_or_else(|| self.error("parameter offset overflows"))?;
            kernel.params.push(ParamSlot {
                ordinal,
                offset,
                size,
                align: Some(align),
            });
            ordinal += 1;
        }
        kernel.param_size = (ordinal > 0).then_some(cursor);
        Ok(())
    }

    /// State-space attributes before a name: `[.align A] [.vN] .type [.ptr [.space] [.align P]]`.
    /// `None` for opaque types (`.texref`).
    fn shape(&mut self) -> Result<Option<Shape>, Error> {
        let (mut align, mut lane_count, mut elem) = (None, 1u32, None);
        while let Some(Tok::Word(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            self.pos += 1;
            match w {
                // After the type, `.align` describes a pointee (`.ptr .align 1`).
                ".align" if elem.is_none() => align = Some(self.number()?),
                ".align" => drop(self.number()?),
                ".ptr" | ".global" | ".const" | ".local" | ".shared" => {}
                ".attribute" => {
                    self.expect('(')?;
                    while !self.eat(Tok::Punct(')')) {
                        self.next()
                            .ok_or_else(|| self.error("unterminated .attribute"))?;
                    }
                }
                _ if OPAQUE.contains(&w) => return Ok(None),
                _ => match (lanes(w), type_size(w)) {
                    (Some(n), _) => lane_count = n,
                    (_, Some(size)) => elem = Some(size * lane_count),
                    _ => return Err(self.error(format!("unknown type or attribute `{w}`"))),
                },
            }
        }
        let elem = elem.ok_or_else(|| self.error("declaration without a type"))?;
        Ok(Some(Shape { elem, align }))
    }

    /// After `.const` / `.global`: one or more declarators up to `;`.
    pub(super) fn globals(&mut self, constant: bool) -> Result<Vec<GlobalImage>, Error> {
        let Some(shape) = self.shape()? else {
            self.skip_statement()?;
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        loop {
            let name = self.word()?;
            let mut count = 1u64;
            let mut open_ended = false;
            while self.eat(Tok::Punct('[')) {
                if self.eat(Tok::Punct(']')) {
                    open_ended = true;
                    continue;
                }
                count = count
                    .checked_mul(self.number()?.into())
                    .ok_or_else(|| self.error("array size overflows"))?;
                self.expect(']')?;
            }
            if self.eat(Tok::Punct('=')) {
                let leaves = self.initializer()?;
                if open_ended {
                    count = count.saturating_mul(leaves);
                }
            }
            if !name.starts_with(['$', '%']) && !name.starts_with("__local_depot") {
                let size = count
                    .checked_mul(shape.elem.into())
                    .ok_or_else(|| self.error("variable size overflows"))?;
                out.push(GlobalImage {
                    symbol: name.to_owned(),
                    size,
                    constant,
                });
            }
            if !self.eat(Tok::Punct(',')) {
                self.expect(';')?;
                return Ok(out);
            }
        }
    }

    /// Skips an initializer up to (not including) the `,` or `;` that ends it; returns the
    /// number of scalar values in it.
    fn initializer(&mut self) -> Result<u64, Error> {
        let (mut braces, mut parens, mut leaves, mut expect_value) = (0usize, 0usize, 0u64, true);
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated initializer")),
                Some(Tok::Punct(',' | ';')) if braces == 0 && parens == 0 => return Ok(leaves),
                Some(tok) => {
                    self.pos += 1;
                    match tok {
                        Tok::Punct('{') => (braces, expect_value) = (braces + 1, true),
                        Tok::Punct('}') => {
                            braces = braces
                                .checked_sub(1)
                                .ok_or_else(|| self.error("unbalanced `}`"))?
                        }
                        Tok::Punct('(') => parens += 1,
                        Tok::Punct(')') => {
                            parens = parens
                                .checked_sub(1)
                                .ok_or_else(|| self.error("unbalanced `)`"))?
                        }
                        Tok::Punct(',') if parens == 0 => expect_value = true,
                        _ if expect_value && parens == 0 => {
                            (leaves, expect_value) = (leaves + 1, false)
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Error, parse_ptx};

    const MODULE: &str = r#"
        //
        // Generated by a compiler
        //
        .version 8.7
        .target sm_90a, texmode_independent
        .address_size 64
        .file 1 "k.cu"
        .extern .func (.param .b32 retval) vprintf(.param .b64 a, .param .b64 b);
        .global .align 1 .b8 $str[4] = {104, 105, 10, 0};
        .visible .const .align 4 .f32 c0, c1[3];
        .global .align 8 .u64 tbl[] = {1, 2, 3};
        .global .texref tex;
        .func helper(.param .b32 x) { ret; }
        .entry local_k(.param .u8 a, .param .align 16 .b8 b[32])
        .reqntid 64, 2
        .reqnctapercluster 2, 1, 1
        { { ret; } }
        .extern .entry ext_k(.param .u32 a);
        .visible .entry noargs { ret; }
    "#;

    #[test]
    fn entries_directives_and_globals() {
        let m = parse_ptx(MODULE).unwrap();
        assert_eq!((m.version, m.target.as_str()), ((8, 7), "sm_90a"));
        let names: Vec<_> = m
            .kernels
            .iter()
            .map(|k| (k.symbol.as_str(), k.is_local))
            .collect();
        assert_eq!(names, [("local_k", true), ("noargs", false)]);
        let k = &m.kernels[0];
        let layout: Vec<_> = k
            .params
            .iter()
            .map(|p| (p.ordinal, p.offset, p.size))
            .collect();
        assert_eq!(layout, [(0, 0, 1), (1, 16, 32)]);
        assert_eq!(
            (k.param_size, k.reqntid, k.cluster_dims),
            (Some(48), Some([64, 2, 1]), Some([2, 1, 1]))
        );
        assert_eq!(m.kernels[1].param_size, None);
        let globals: Vec<_> = m
            .globals
            .iter()
            .map(|g| (g.symbol.as_str(), g.size, g.constant))
            .collect();
        assert_eq!(
            globals,
            [("c0", 4, true), ("c1", 12, true), ("tbl", 24, false)]
        );
    }

    #[test]
    fn malformed_modules_are_errors_with_lines() {
        let bad_align = ".version 9.0\n.target sm_90\n.entry k(.param .align 3 .b8 p[3]) {}";
        let err = parse_ptx(bad_align).unwrap_err();
        assert_eq!(
            err,
            Error::BadPtx {
                line: 3,
                detail: "alignment 3 is not a power of two".into()
            }
        );
        assert!(
            parse_ptx(".target sm_90")
                .unwrap_err()
                .to_string()
                .contains(".version")
        );
        assert!(parse_ptx(".version 9.0\n.target sm_90\n.entry k(.param .q32 a) {}").is_err());
        assert!(parse_ptx(".version 9.0\n.target sm_90\n.entry k(.param .u32 a) { ret;").is_err());
        assert!(parse_ptx(".version 9.0\n.target sm_90\n}").is_err());
        let huge = ".version 9.0\n.target sm_90\n.entry k(.param .b64 a[4294967295]) {}";
        assert!(
            parse_ptx(huge)
                .unwrap_err()
                .to_string()
                .contains("overflows")
        );
    }
}
