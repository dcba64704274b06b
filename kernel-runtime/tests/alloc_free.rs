//! GPU test: the launch path allocates nothing on the heap. A counting global allocator wraps the
//! system one in this binary; 10,000 launches after warm-up must not allocate.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{TestKernels, idx};
use cuda_kernel_runtime::Launch;
use kernel_test_support::gpu_or_skip;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged, counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn launches_do_not_allocate() {
    let Some(gpu) = gpu_or_skip() else { return };
    let k = TestKernels::load(&gpu).unwrap();
    let by_name = k.0.kernel(idx::EMPTY4).unwrap();
    let a = gpu.zeros::<f32>(1024).unwrap();
    let mut b = gpu.zeros::<f32>(1024).unwrap();
    let cfg = Launch::new(1, 32);
    for _ in 0..100 {
        // SAFETY: empty4 does nothing with its arguments.
        unsafe {
            k.empty4(&cfg, &a, &mut b, 0, 1.0).unwrap();
            by_name.launch(&cfg, (&a, &mut b, 0i32, 1.0f32)).unwrap();
        }
    }
    gpu.synchronize().unwrap();

    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..10_000 {
        // SAFETY: as above.
        unsafe { k.empty4(&cfg, &a, &mut b, 0, 1.0).unwrap() };
    }
    let stub = ALLOCATIONS.load(Ordering::SeqCst) - before;
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for _ in 0..10_000 {
        // SAFETY: as above.
        unsafe { by_name.launch(&cfg, (&a, &mut b, 0i32, 1.0f32)).unwrap() };
    }
    let named = ALLOCATIONS.load(Ordering::SeqCst) - before;
    gpu.synchronize().unwrap();
    assert_eq!(
        (stub, named),
        (0, 0),
        "heap allocations in 10,000 launches (stub, by name)"
    );
}
