//! What a tuned call costs once its key is settled: `Tuner::choose` for a known key (the
//! lookup `Tuner::launch` makes before launching the choice), over a fake set of 8 variants
//! and 1,000 settled keys, beside a bare `HashMap::get` of the same key. No GPU: the keys are
//! settled with a fake clock. Each figure is the median of 31 rounds of 100,000 calls, in
//! nanoseconds per call; lines starting with `BENCH ` are JSON for machines.
#![allow(missing_docs)]

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use cuda_kernel_runtime::tune::{GpuModel, Tuner};
use kernel_test_support::bench::{median, report};

const NAMES: [&str; 8] = ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"];
const KEYS: u32 = 1_000;
const CALLS: u32 = 100_000;
const ROUNDS: usize = 31;

/// A GEMM's problem shape, the key of the tuned kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Shape(u32, u32, u32);

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "m={} n={} k={}", self.0, self.1, self.2)
    }
}

/// Nanoseconds per call of `f`, median over rounds.
fn per_call(mut f: impl FnMut(u32)) -> f64 {
    let mut samples = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for i in 0..CALLS {
            f(i % KEYS);
        }
        samples.push(start.elapsed().as_secs_f64() * 1e9 / f64::from(CALLS));
    }
    median(samples)
}

fn main() {
    let model = GpuModel::new("NVIDIA H100 80GB HBM3", (9, 0), (13, 0));
    let tuner = Tuner::<Shape>::new("gemm").no_cache().warmup(1).rounds(1);
    let scalar = Tuner::<u64>::new("sum").no_cache().warmup(1).rounds(1);
    let mut map = HashMap::new();
    for k in 0..KEYS {
        let fake = |i: usize, n: u32| Ok(Duration::from_nanos((i as u64 + 1) * u64::from(n)));
        tuner.choose(&model, &Shape(k, k, k), &NAMES, fake).unwrap();
        scalar.choose(&model, &u64::from(k), &NAMES, fake).unwrap();
        map.insert(Shape(k, k, k), 0usize);
    }
    let never = |_: usize, _: u32| -> Result<Duration, cuda_kernel_runtime::Error> {
        panic!("a settled key is never timed")
    };
    let shape = per_call(|k| {
        black_box(
            tuner
                .choose(&model, black_box(&Shape(k, k, k)), &NAMES, never)
                .unwrap(),
        );
    });
    let one = per_call(|k| {
        black_box(
            scalar
                .choose(&model, black_box(&u64::from(k)), &NAMES, never)
                .unwrap(),
        );
    });
    let bare = per_call(|k| {
        black_box(map.get(black_box(&Shape(k, k, k))));
    });
    report("tune_lookup_shape_key", shape, "ns");
    report("tune_lookup_u64_key", one, "ns");
    report("hashmap_get_shape_key", bare, "ns");
    assert_eq!(tuner.tunings(), u64::from(KEYS));
}
