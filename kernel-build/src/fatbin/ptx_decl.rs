//! PTX declarations: `.entry` headers (parameters, performance directives) and module
//! variables (`.const`, `.global`).

use super::FatbinError;
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
    pub(super) fn entry(&mut self, is_local: bool) -> Result<KernelImage, FatbinError> {
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
    fn params(&mut self, kernel: &mut KernelImage) -> Result<(), FatbinError> {
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
            });
            ordinal += 1;
        }
        kernel.param_size = (ordinal > 0).then_some(cursor);
        Ok(())
    }

    /// State-space attributes before a name: `[.align A] [.vN] .type [.ptr [.space] [.align P]]`.
    /// `None` for opaque types (`.texref`).
    fn shape(&mut self) -> Result<Option<Shape>, FatbinError> {
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
    pub(super) fn globals(&mut self, constant: bool) -> Result<Vec<GlobalImage>, FatbinError> {
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
    fn initializer(&mut self) -> Result<u64, FatbinError> {
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
