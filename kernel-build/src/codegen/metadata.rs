//! The metadata of a generated module: the `METADATA` spec the runtime loads from,
//! and the per-image register counts.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::built::BuiltModule;
use crate::model::{Kernel, UntypedKernel};

/// `METADATA` and `REGISTERS`.
pub(crate) fn items(parts: &BuiltModule, rt: &TokenStream) -> TokenStream {
    let name = &parts.name;
    let archs = &parts.targets;
    let toolkit = parts.toolkit_version.clone().unwrap_or_default();
    let kernels = parts
        .info
        .kernels
        .iter()
        .map(|k| kernel_spec(k, &parts.targets))
        .chain(
            parts
                .info
                .untyped
                .iter()
                .map(|k| untyped_spec(k, &parts.targets)),
        );
    let globals = parts.info.globals.iter().map(|g| {
        let (name, symbol, size) = (&g.name, &g.symbol, g.size as usize);
        quote!(#rt::spec::GlobalSpec { name: #name, symbol: #symbol, size: #size })
    });
    let registers = parts
        .info
        .kernels
        .iter()
        .map(|k| (&k.name, &k.images))
        .chain(parts.info.untyped.iter().map(|k| (&k.name, &k.images)))
        .flat_map(|(kernel, images)| {
            images.iter().filter_map(move |img| {
                let target = &img.target;
                img.registers.map(|r| quote!((#kernel, #target, #r)))
            })
        });
    let units = unit_specs(parts, rt);
    let source = source_spec(parts, rt);
    let tuned = super::tuned::specs(&super::tuned::entries(parts), rt);
    quote! {
        /// What this module holds: kernels with their parameter layouts, compiled
        /// targets, the toolkit that compiled them, and the embedded image.
        pub static METADATA: #rt::spec::ModuleSpec = {
            use #rt::spec::{KernelSpec as K, ParamSpec as P};
            #rt::spec::ModuleSpec {
                name: #name,
                image: IMAGE,
                archs: &[#(#archs),*],
                toolkit: #toolkit,
                kernels: &[#(#kernels),*],
                globals: &[#(#globals),*],
                units: &[#(#units),*],
                source: #source,
                tuned: #tuned,
            }
        };

        /// Registers per thread of each kernel in each SASS image, as
        /// `(kernel, target, registers)`.
        pub const REGISTERS: &[(&str, &str, u32)] = &[#(#registers),*];
    }
}

/// The images of a module whose files are not device-linked: one per file, each with
/// the indices (in spec order) of its kernels and globals.
fn unit_specs<'a>(
    parts: &'a BuiltModule,
    rt: &'a TokenStream,
) -> impl Iterator<Item = TokenStream> + 'a {
    let kernels: Vec<&str> = parts
        .info
        .kernels
        .iter()
        .map(|k| k.symbol.as_str())
        .chain(parts.info.untyped.iter().map(|k| k.symbol.as_str()))
        .collect();
    let globals: Vec<&str> = parts
        .info
        .globals
        .iter()
        .map(|g| g.symbol.as_str())
        .collect();
    parts.units.iter().filter_map(move |u| {
        let (offset, len) = u.image?;
        let (offset, len) = (offset as usize, len as usize);
        let file = &u.file;
        let index = |list: &[&str], symbols: &[String]| -> Vec<u16> {
            list.iter()
                .enumerate()
                .filter(|(_, s)| symbols.iter().any(|x| x == *s))
                .map(|(i, _)| i as u16)
                .collect()
        };
        let k = index(&kernels, &u.kernels);
        let g = index(&globals, &u.globals);
        Some(quote! {
            #rt::spec::UnitSpec { file: #file, offset: #offset, len: #len,
                kernels: &[#(#k),*], globals: &[#(#g),*] }
        })
    })
}

/// The carried source, for a module compiled at run time.
fn source_spec(parts: &BuiltModule, rt: &TokenStream) -> TokenStream {
    let Some(src) = &parts.runtime_source else {
        return quote!(::core::option::Option::None);
    };
    let (name, text, fallback) = (&src.name, &src.text, src.fallback);
    let headers = src.headers.iter().map(|(n, t)| quote!((#n, #t)));
    let defines = src.defines.iter().map(|(n, v)| {
        let v = v.clone().unwrap_or_default();
        quote!((#n, #v))
    });
    let options = &src.options;
    quote! {
        ::core::option::Option::Some(&#rt::spec::SourceSpec {
            name: #name,
            text: #text,
            headers: &[#(#headers),*],
            defines: &[#(#defines),*],
            options: &[#(#options),*],
            fallback: #fallback,
        })
    }
}

/// One parameter's spec, one line: `P::new(name, c_type, offset, size)`.
fn param_spec(name: &str, c_type: &str, layout: &crate::model::Layout) -> TokenStream {
    let offset = proc_macro2::Literal::u32_unsuffixed(layout.offset as u32);
    let size = proc_macro2::Literal::u32_unsuffixed(layout.size as u32);
    if layout.align > 16 {
        // Where the target puts it depends on its bank: the check at load allows for it.
        let align = proc_macro2::Literal::u32_unsuffixed(layout.align as u32);
        return quote!(P::new(#name, #c_type, #offset, #size).with_align(#align));
    }
    quote!(P::new(#name, #c_type, #offset, #size))
}

/// The spec of a kernel without a typed declaration: its parameters as the image lays them
/// out, each typed as the symbol spells it (or not at all).
fn untyped_spec(k: &UntypedKernel, targets: &[String]) -> TokenStream {
    let (name, symbol) = (&k.name, &k.symbol);
    let params = k.params.iter().enumerate().map(|(i, l)| {
        let c_type = k.param_types.get(i).map_or("", String::as_str);
        param_spec(&format!("arg{i}"), c_type, l)
    });
    let on: Vec<&str> = k.images.iter().map(|i| i.target.as_str()).collect();
    let available = (on.len() < targets.len()).then(|| quote!(.with_available(&[#(#on),*])));
    quote!(K::new(#name, #symbol, &[#(#params),*]) #available)
}

fn kernel_spec(k: &Kernel, targets: &[String]) -> TokenStream {
    let (name, symbol) = (&k.name, &k.symbol);
    let params = k.params.iter().enumerate().map(|(i, p)| {
        let pname = p.name.clone().unwrap_or_else(|| format!("arg{i}"));
        param_spec(&pname, &p.written, &p.layout)
    });
    let max_threads = k
        .attrs
        .launch_bounds
        .as_ref()
        .and_then(|b| b.first().copied())
        .or_else(|| k.images.iter().find_map(|i| i.max_threads))
        .filter(|&n| n > 0)
        .map(|n| {
            let n = proc_macro2::Literal::u32_unsuffixed(n);
            quote!(.with_max_threads(#n))
        });
    let cluster = k.attrs.cluster_dims.map(|[x, y, z]| {
        let [x, y, z] = [x, y, z].map(proc_macro2::Literal::u32_unsuffixed);
        quote!(.with_cluster_dims([#x, #y, #z]))
    });
    let available = k
        .on_some_targets(targets)
        .map(|on| quote!(.with_available(&[#(#on),*])));
    let spec = if name == symbol {
        quote!(K::extern_c(#name, &[#(#params),*]))
    } else {
        quote!(K::new(#name, #symbol, &[#(#params),*]))
    };
    quote!(#spec #max_threads #cluster #available)
}
