//! What a context can still do after a kernel wrote an illegal address: every operation is tried
//! once, under `catch_unwind`, and its outcome printed as `after-fault OP: OUTCOME` for the parent
//! test to read.

use std::panic::{AssertUnwindSafe, catch_unwind};

use cuda_kernel_runtime::__private::load_module;
use cuda_kernel_runtime::{Error, Gpu, Launch, RawDevicePtr};

use super::{SPEC, idx};

/// `ok`, `ok DETAIL`, `VARIANT CODE_NAME`, or `panicked: MESSAGE`.
fn report<T>(op: &str, f: impl FnOnce() -> Result<T, Error>, detail: impl Fn(&T) -> String) {
    let outcome = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => format!("ok {}", detail(&v)).trim_end().to_string(),
        Ok(Err(Error::KernelFault { name, .. })) => format!("KernelFault {name}"),
        Ok(Err(Error::Driver { name, .. })) => format!("Driver {name}"),
        Ok(Err(e)) => format!("error {e}"),
        Err(p) => format!(
            "panicked: {}",
            p.downcast_ref::<String>().map_or("", String::as_str)
        ),
    };
    println!("after-fault {op}: {outcome}");
}

/// Faults the context of `gpu`, then tries each operation once.
pub fn fault_and_report(gpu: &Gpu) {
    let m = load_module(gpu, &SPEC).unwrap();
    let add = m.kernel(idx::ADD_U32).unwrap();
    let mut keep = gpu.upload(&[1u32, 2, 3]).unwrap();
    gpu.synchronize().unwrap();
    let cfg = Launch::new(1, 1);
    // SAFETY: deliberately not: add_u32 writes through an address no allocation can have.
    report(
        "faulting launch",
        || unsafe { add.launch(&cfg, (RawDevicePtr::from_addr(0x10), 1i32, 1u32)) },
        |_| String::new(),
    );
    report("synchronize", || gpu.synchronize(), |_| String::new());
    report("synchronize again", || gpu.synchronize(), |_| String::new());
    report("alloc", || gpu.zeros::<u32>(16), |_| String::new());
    report("upload", || gpu.upload(&[7u32; 4]), |_| String::new());
    report(
        "download an earlier buffer",
        || gpu.download(&keep),
        |v| format!("{v:?}"),
    );
    report(
        "load another module",
        || load_module(gpu, &crate::common::SPEC),
        |_| String::new(),
    );
    // SAFETY: add_u32 on a 3-element buffer.
    report(
        "launch",
        || unsafe { add.launch(&cfg, (&mut keep, 3i32, 1u32)) },
        |_| String::new(),
    );
    report("free memory", || gpu.free_memory(), |v| v.to_string());
    report("total memory", || gpu.total_memory(), |v| v.to_string());
    report("new stream", || gpu.new_stream(), |_| String::new());
    report(
        "Gpu::new(0) again",
        || Gpu::new(0),
        |g| g.name().to_string(),
    );
    // Dropping every handle must not panic either (the parent checks the exit status).
    drop((keep, add, m));
    println!("after-fault handles dropped");
}
