//! Reading the fatbin back from a host object. When nvcc runs through a wrapper (sccache),
//! the build compiles with `-c`: sccache caches that invocation whole, while it passes a
//! `-fatbin` run through uncached. The object's fatbin section (`.nv_fatbin`, or
//! `__nv_relfatbin` for relocatable device code) holds the same bytes `-fatbin` writes.

use crate::error::Error;
use std::path::Path;

/// Writes the one fatbin container embedded in the host object `object` to `fatbin`.
pub(crate) fn fatbin_from_object(object: &Path, fatbin: &Path) -> Result<(), Error> {
    let bytes = std::fs::read(object)
        .map_err(|e| Error::io("failed to read the object nvcc wrote", object, e))?;
    let found = cuda_kernel_objects::find_containers(&bytes);
    let [(at, len)] = found[..] else {
        return Err(Error::FatbinNotInObject {
            path: object.to_path_buf(),
            found: found.len(),
        });
    };
    std::fs::write(fatbin, &bytes[at..at + len])
        .map_err(|e| Error::io("failed to write the fatbin", fatbin, e))?;
    let _ = std::fs::remove_file(object);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_without_a_container_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let object = dir.path().join("k.o");
        std::fs::write(&object, b"\x7fELF and nothing embedded").unwrap();
        let err = fatbin_from_object(&object, &dir.path().join("k.fatbin")).unwrap_err();
        assert!(
            err.to_string().contains("holds 0 fatbin containers"),
            "{err}"
        );
    }
}
