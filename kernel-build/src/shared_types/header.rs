//! The CUDA header of the shared types of one Rust file: each struct and enum declared as
//! nvcc lays it out the way Rust's `#[repr(C)]` does, after the types it holds, with its
//! doc comment; a type of another listed file comes from that file's header.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::{SharedKind, SharedType};
use crate::diagnostics::shared as msg;
use crate::model::spelling::{c_spelling, scalar_spelling};
use crate::model::{CType, Scalar};

/// One header: the name sources include it by, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderFile {
    /// The include name: the Rust file's path with `.cuh` added (`src/particles.rs.cuh`).
    pub name: String,
    /// The CUDA text.
    pub text: String,
}

/// The headers of Rust files' shared types (`(file, its types)`, the file as the crate
/// names it); an error names the field whose type no listed file shares, or a name shared
/// twice.
pub fn headers(files: &[(String, Vec<SharedType>)]) -> Result<Vec<HeaderFile>, Vec<String>> {
    let mut home: HashMap<&str, usize> = HashMap::new();
    let mut errors = Vec::new();
    for (i, (file, types)) in files.iter().enumerate() {
        for t in types {
            if let Some(&first) = home.get(t.name.as_str()) {
                errors.push(msg::defined_twice(&t.name, &files[first].0, file));
            } else {
                home.insert(&t.name, i);
            }
        }
    }
    let listed = files
        .iter()
        .map(|(f, _)| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    for (_, types) in files {
        for t in types {
            if let SharedKind::Struct { fields, .. } = &t.kind {
                for f in fields {
                    if let Some(held) = f.ty.struct_name()
                        && !home.contains_key(held)
                    {
                        errors.push(msg::not_shared_here(&t.name, &f.name, held, &listed));
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(files
        .iter()
        .enumerate()
        .map(|(i, (file, types))| {
            let others: Vec<&str> = {
                let mut seen = HashSet::new();
                types
                    .iter()
                    .flat_map(SharedType::uses)
                    .filter_map(|u| home.get(u).copied())
                    .filter(|&j| j != i && seen.insert(j))
                    .map(|j| files[j].0.as_str())
                    .collect()
            };
            HeaderFile {
                name: include_name(file),
                text: text(file, types, &others),
            }
        })
        .collect())
}

/// The include name of a Rust file's header.
pub(super) fn include_name(file: &str) -> String {
    format!("{}.cuh", file.replace('\\', "/"))
}

/// The header text of one file's types.
fn text(file: &str, types: &[SharedType], others: &[&str]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// The CUDA declarations of the types `{file}` shares with CUDA (`#[derive(CudaType)]`),\n\
         // written by cuda-kernel-build from the Rust definitions: edit those, not this file.\n\
         #pragma once"
    );
    // The toolkit headers that declare the fields' scalars, as the table names them.
    let scalars: Vec<Scalar> = types.iter().flat_map(scalars_of).collect();
    let mut included: Vec<&str> = Vec::new();
    for s in Scalar::ALL.into_iter().filter(|s| scalars.contains(s)) {
        if let Some(h) = s.info().header.filter(|h| !included.contains(h)) {
            included.push(h);
            let _ = writeln!(out, "#include <{h}>");
        }
    }
    for other in others {
        let _ = writeln!(out, "#include \"{}\"", include_name(other));
    }
    for t in in_order(types) {
        out.push('\n');
        comment(&mut out, "", &t.doc);
        match &t.kind {
            SharedKind::Enum { repr, variants } => {
                let _ = writeln!(out, "enum class {} : {} {{", t.name, scalar_spelling(*repr));
                for (name, value) in variants {
                    let _ = writeln!(out, "    {name} = {value},");
                }
                out.push_str("};\n");
            }
            SharedKind::Struct { align, fields } => {
                match align {
                    Some(n) => {
                        let _ = writeln!(out, "struct alignas({n}) {} {{", t.name);
                    }
                    None => {
                        let _ = writeln!(out, "struct {} {{", t.name);
                    }
                }
                for f in fields {
                    comment(&mut out, "    ", &f.doc);
                    let decl = match &f.c_type {
                        Some(c) => format!("{c} {}", f.name),
                        None => declaration(&f.ty, &f.name),
                    };
                    let _ = writeln!(out, "    {decl};");
                }
                out.push_str("};\n");
            }
        }
    }
    out
}

/// `// line` for each doc line, indented.
fn comment(out: &mut String, indent: &str, doc: &[String]) {
    for line in doc {
        let _ = writeln!(out, "{indent}// {line}");
    }
}

/// The types in an order C accepts: each after the types of this file it holds.
fn in_order(types: &[SharedType]) -> Vec<&SharedType> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    fn visit<'a>(
        t: &'a SharedType,
        all: &'a [SharedType],
        done: &mut HashSet<&'a str>,
        out: &mut Vec<&'a SharedType>,
    ) {
        if !done.insert(&t.name) {
            return;
        }
        for used in t.uses() {
            if let Some(u) = all.iter().find(|o| o.name == used) {
                visit(u, all, done, out);
            }
        }
        out.push(t);
    }
    for t in types {
        visit(t, types, &mut done, &mut out);
    }
    out
}

/// A field's declaration: its C type around its name (`float pos[3]`).
fn declaration(ty: &CType, name: &str) -> String {
    match ty {
        CType::Array { .. } => {
            let mut dims = String::new();
            let mut t = ty;
            while let CType::Array { elem, len } = t {
                let _ = write!(dims, "[{len}]");
                t = elem;
            }
            format!("{} {name}{dims}", spelling(t))
        }
        _ => format!("{} {name}", spelling(ty)),
    }
}

/// A C spelling nvcc 13 accepts without a deprecation warning and with Rust's meaning:
/// the table's (`signed char` for `i8`: plain `char` is unsigned on Arm hosts), and the
/// 16-byte aligned names of four 64-bit lanes (`double4_16a`).
fn spelling(ty: &CType) -> String {
    match ty {
        CType::Vector { elem, lanes: 4 } if elem.size() == 8 => format!("{}_16a", c_spelling(ty)),
        _ => c_spelling(ty),
    }
}

/// The scalars a type's fields hold (for the headers they need).
fn scalars_of(t: &SharedType) -> Vec<Scalar> {
    fn of(ty: &CType, out: &mut Vec<Scalar>) {
        match ty {
            CType::Scalar(s) | CType::Vector { elem: s, .. } => out.push(*s),
            CType::Array { elem, .. } => of(elem, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let SharedKind::Struct { fields, .. } = &t.kind {
        for f in fields {
            of(&f.ty, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared_types::read_file;

    #[test]
    fn a_header_declares_each_type_after_what_it_holds() {
        let src = "/// A particle.\n#[derive(CudaType)]\n#[repr(C)]\npub struct Particle {\n\
                   /// Where it is.\n pos: [f32; 3],\n kind: Kind,\n h: half::f16,\n \
                   v: vector::Double4,\n #[cuda(c_type = \"float*\")] data: RawDevicePtr,\n b: i8 }\n\
                   #[derive(CudaType)]\n#[repr(u8)]\npub enum Kind { Gas, Dust = 3 }\n";
        let types = read_file("src/particles.rs", src).unwrap();
        let h = headers(&[("src/particles.rs".into(), types)]).unwrap();
        assert_eq!(h[0].name, "src/particles.rs.cuh");
        let text = &h[0].text;
        assert!(text.contains("#include <cuda_fp16.h>"), "{text}");
        let kind = text.find("enum class Kind : unsigned char {").expect(text);
        let particle = text.find("struct Particle {").expect(text);
        assert!(kind < particle, "{text}");
        for line in [
            "// A particle.",
            "    // Where it is.",
            "    float pos[3];",
            "    Kind kind;",
            "    __half h;",
            "    double4_16a v;",
            "    float* data;",
            "    signed char b;",
            "    Dust = 3,",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
    }

    #[test]
    fn a_type_of_another_file_is_included_and_an_unlisted_one_is_an_error() {
        let a = read_file(
            "src/a.rs",
            "#[derive(CudaType)] #[repr(C)] struct A { b: B }",
        )
        .unwrap();
        let b = read_file(
            "src/b.rs",
            "#[derive(CudaType)] #[repr(C)] struct B { x: f32 }",
        )
        .unwrap();
        let h = headers(&[("src/a.rs".into(), a.clone()), ("src/b.rs".into(), b)]).unwrap();
        assert!(
            h[0].text.contains("#include \"src/b.rs.cuh\""),
            "{}",
            h[0].text
        );
        let e = headers(&[("src/a.rs".into(), a)]).unwrap_err();
        assert!(e[0].contains("holds `B`, which is no `#[derive(CudaType)]` type of `src/a.rs`"));
    }
}
