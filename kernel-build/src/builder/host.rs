//! Host code in a module (`Build::host_code`): the host side of the module's `.cu` files —
//! host functions next to the kernels, launchers calling `kernel<<<...>>>`, CUB and Thrust
//! calls — compiled by nvcc through `cc` (its jobserver, flags and archive conventions) into
//! `lib<name>_host.a`, linked into the crate with the static CUDA runtime and the C++ runtime,
//! so the binary still needs only the driver. The CUDA runtime uses the device's primary
//! context, the one `kernel_runtime::Gpu` opens: buffers and streams cross freely.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::pipeline::ModuleRequest;

/// What the host compile needs.
pub(crate) struct HostCode<'a> {
    pub nvcc: &'a Path,
    pub files: &'a [PathBuf],
    pub req: &'a ModuleRequest,
    /// The module's targets (`sm_90`, `compute_120`): the host objects embed the same code.
    pub targets: &'a [String],
    pub out_dir: &'a Path,
    pub name: &'a str,
    pub cargo_metadata: bool,
}

impl HostCode<'_> {
    /// Compiles and archives the host code; prints Cargo's link lines (under Cargo).
    pub(crate) fn compile(&self) -> Result<(), Error> {
        let mut b = cc::Build::new();
        // cc runs the nvcc it finds in `NVCC`: the one toolkit discovery found, whatever the
        // process environment says (cc reads the rest of the environment as usual).
        let nvcc = std::ffi::OsString::from(self.nvcc.as_os_str());
        let env = std::env::vars_os()
            .filter(|(k, _)| k != "NVCC")
            .chain(std::iter::once(("NVCC".into(), nvcc)));
        b.set_envs_snapshot(env);
        b.cuda(true)
            .out_dir(self.out_dir)
            .cargo_metadata(self.cargo_metadata)
            .warnings(false);
        for t in self.targets {
            let (kind, number) = t.split_at(t.find('_').map_or(0, |i| i + 1));
            let virt = format!("compute_{number}");
            let code = if kind == "compute_" {
                virt.clone()
            } else {
                format!("sm_{number}")
            };
            b.flag(format!("-gencode=arch={virt},code={code}"));
        }
        for dir in &self.req.includes {
            b.include(self.req.base_dir.join(dir));
        }
        for (name, value) in &self.req.defines {
            b.define(name, value.as_deref());
        }
        for f in &self.req.flags {
            b.flag(f);
        }
        b.files(self.files);
        b.try_compile(&format!("{}_host", self.name))
            .map_err(|e| Error::HostCode {
                module: self.name.to_owned(),
                message: e.to_string(),
            })?;
        if self.cargo_metadata {
            // The toolkit's own library folders (the wheels keep `libcudart_static.a` in
            // `<root>/lib`, where cc does not look), and what the static runtime needs.
            for dir in crate::link::library_dirs(self.nvcc) {
                if dir.join("libcudart_static.a").is_file() {
                    println!("cargo:rustc-link-search=native={}", dir.display());
                }
            }
            for lib in ["dl", "rt", "pthread"] {
                println!("cargo:rustc-link-lib=dylib={lib}");
            }
        }
        Ok(())
    }
}
