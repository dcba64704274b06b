//! `KERNEL_BUILD_ARCHS=native`: the compute capabilities of the GPUs in this machine, asked
//! of the driver (`libcuda.so.1`, opened with `cuda_kernel_objects::native` for the question and closed
//! again), for a build that compiles only what the developer's GPUs run.

use cuda_kernel_objects::native::Library;

/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR` and `..._MINOR`.
const MAJOR: i32 = 75;
const MINOR: i32 = 76;

/// The distinct compute capabilities of this machine's GPUs as target numbers (`90` for
/// 9.0), in device order; or why there are none (no driver, no device).
pub(crate) fn native_capabilities() -> Result<Vec<u32>, String> {
    let lib = Library::open("the NVIDIA driver", &["libcuda.so.1", "libcuda.so"])
        .map_err(|e| format!("the NVIDIA driver could not be opened ({})", e.detail()))?;
    // SAFETY: every symbol below is called with the driver API's documented types, while
    // `lib` is open.
    unsafe {
        let init: unsafe extern "C" fn(u32) -> i32 =
            lib.function("cuInit").map_err(|e| e.detail().to_owned())?;
        let count: unsafe extern "C" fn(*mut i32) -> i32 = lib
            .function("cuDeviceGetCount")
            .map_err(|e| e.detail().to_owned())?;
        let device: unsafe extern "C" fn(*mut i32, i32) -> i32 = lib
            .function("cuDeviceGet")
            .map_err(|e| e.detail().to_owned())?;
        let attribute: unsafe extern "C" fn(*mut i32, i32, i32) -> i32 = lib
            .function("cuDeviceGetAttribute")
            .map_err(|e| e.detail().to_owned())?;
        let status = init(0);
        if status != 0 {
            return Err(format!(
                "the NVIDIA driver did not start (CUresult {status})"
            ));
        }
        let mut n = 0;
        if count(&mut n) != 0 || n == 0 {
            return Err("the NVIDIA driver sees no GPU".into());
        }
        let mut out = Vec::new();
        for ordinal in 0..n {
            let (mut dev, mut major, mut minor) = (0, 0, 0);
            if device(&mut dev, ordinal) != 0
                || attribute(&mut major, MAJOR, dev) != 0
                || attribute(&mut minor, MINOR, dev) != 0
            {
                return Err(format!("the driver could not describe GPU {ordinal}"));
            }
            let cc = (major * 10 + minor) as u32;
            if !out.contains(&cc) {
                out.push(cc);
            }
        }
        Ok(out)
    }
}

/// The targets for `capabilities`: SASS for each (`sm_90`), nothing else.
pub(crate) fn native_targets(capabilities: &[u32]) -> Vec<String> {
    capabilities.iter().map(|cc| format!("sm_{cc}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_targets_are_sass_of_each_capability() {
        assert_eq!(native_targets(&[90, 86]), ["sm_90", "sm_86"]);
        // Whatever this machine has, the answer is a list or a reason, never a panic.
        match native_capabilities() {
            Ok(ccs) => assert!(!ccs.is_empty()),
            Err(why) => assert!(!why.is_empty()),
        }
    }
}
