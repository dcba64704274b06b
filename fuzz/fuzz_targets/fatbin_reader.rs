//! Fuzz target: the fatbin reader on arbitrary bytes, read as a fatbin (every entry's image
//! and kernels), as a file with embedded fatbins, as a cubin and as PTX text. Any panic,
//! overflow or runaway allocation is a bug.
#![no_main]

use kernel_build::fatbin;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = fatbin::parse(data) {
        for entry in &parsed.entries {
            let _ = entry.target();
            let _ = entry.flag_names();
            if let Ok(image) = entry.image() {
                for kernel in image.kernels() {
                    let _ = kernel
                        .params
                        .iter()
                        .map(|p| u64::from(p.offset) + u64::from(p.size))
                        .max();
                }
                let _ = image.globals().len();
            }
        }
    }
    for (offset, len) in fatbin::find_containers(data) {
        assert!(offset + len <= data.len(), "container range out of bounds");
    }
    let _ = fatbin::parse_cubin(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = fatbin::parse_ptx(text);
    }
});
