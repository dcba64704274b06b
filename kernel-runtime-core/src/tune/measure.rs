//! Timing a set of variants: warm-up, batches long enough to time, rounds that visit every
//! variant in turn (so that a clock that drifts, or a GPU that warms up, biases none), and
//! the median of each variant's samples. Pure: the device is reached only through the
//! closure that times a batch, so the logic is tested with a fake clock.

use std::time::Duration;

use crate::error::Error;

/// How variants are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Launches of each variant before any is timed.
    pub warmup: u32,
    /// Samples of each variant; its time is their median.
    pub rounds: u32,
    /// A sample lasts at least this long: the launches of a short kernel are batched so that
    /// an event pair's resolution (about half a microsecond) is small beside it.
    pub min_sample: Duration,
    /// The most launches in one sample.
    pub max_batch: u32,
}

impl Plan {
    pub(crate) const DEFAULT: Plan = Plan {
        warmup: 3,
        rounds: 15,
        min_sample: Duration::from_micros(200),
        max_batch: 256,
    };
}

/// One variant's outcome: its median time per launch, or why it was left out.
#[derive(Debug)]
pub(crate) enum Outcome {
    Timed(Duration),
    Failed(Error),
}

/// Times `n` variants. `time(i, launches)` queues variant `i` `launches` times and returns the
/// device time they took together; an error leaves variant `i` out.
pub(crate) fn measure(
    n: usize,
    plan: &Plan,
    mut time: impl FnMut(usize, u32) -> Result<Duration, Error>,
) -> Vec<Outcome> {
    let mut failed: Vec<Option<Error>> = (0..n).map(|_| None).collect();
    let mut batch = vec![1u32; n];
    for i in 0..n {
        let warm = plan.warmup.max(1);
        match time(i, warm) {
            Ok(took) => {
                let each = took / warm;
                batch[i] = batch_for(each, plan);
            }
            Err(e) => failed[i] = Some(e),
        }
    }
    let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(plan.rounds as usize); n];
    for _ in 0..plan.rounds.max(1) {
        for i in 0..n {
            if failed[i].is_some() {
                continue;
            }
            match time(i, batch[i]) {
                Ok(took) => samples[i].push(took / batch[i]),
                Err(e) => failed[i] = Some(e),
            }
        }
    }
    failed
        .into_iter()
        .zip(samples)
        .map(|(f, s)| match f {
            Some(e) => Outcome::Failed(e),
            None => Outcome::Timed(median(s)),
        })
        .collect()
}

/// The fastest timed variant (the first of equals), if any was timed.
pub(crate) fn fastest(outcomes: &[Outcome]) -> Option<(usize, Duration)> {
    outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, o)| match o {
            Outcome::Timed(d) => Some((i, *d)),
            Outcome::Failed(_) => None,
        })
        .min_by_key(|&(i, d)| (d, i))
}

/// Launches per sample for a kernel taking `each`.
fn batch_for(each: Duration, plan: &Plan) -> u32 {
    if each.is_zero() {
        return plan.max_batch.max(1);
    }
    let need = plan.min_sample.as_nanos().div_ceil(each.as_nanos());
    u32::try_from(need)
        .unwrap_or(u32::MAX)
        .clamp(1, plan.max_batch.max(1))
}

fn median(mut s: Vec<Duration>) -> Duration {
    s.sort_unstable();
    match s.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: Plan = Plan {
        warmup: 2,
        rounds: 7,
        min_sample: Duration::from_micros(100),
        max_batch: 64,
    };

    /// A fake clock: variant `i` takes `base[i]` per launch, plus a spike every fifth sample.
    fn fake(base: &'static [u64]) -> impl FnMut(usize, u32) -> Result<Duration, Error> {
        let mut calls = 0u64;
        move |i, launches| {
            calls += 1;
            let spike = if calls.is_multiple_of(5) { 50_000 } else { 0 };
            Ok(Duration::from_nanos(base[i] * u64::from(launches) + spike))
        }
    }

    #[test]
    fn the_fastest_median_wins_despite_outliers() {
        let out = measure(3, &PLAN, fake(&[9_000, 4_000, 4_100]));
        assert_eq!(fastest(&out).map(|(i, _)| i), Some(1));
        let Outcome::Timed(d) = out[1] else { panic!() };
        assert!(
            d >= Duration::from_nanos(4_000) && d < Duration::from_nanos(4_100),
            "{d:?}"
        );
    }

    #[test]
    fn short_kernels_are_batched_up_to_the_limit() {
        let mut seen = Vec::new();
        let _ = measure(2, &PLAN, |i, launches| {
            seen.push((i, launches));
            Ok(Duration::from_nanos([1_000, 10][i] * u64::from(launches)))
        });
        // 1 µs per launch: 100 launches fill 100 µs, capped at 64; 10 ns: capped at 64.
        assert!(
            seen.contains(&(0, 64)) && seen.contains(&(1, 64)),
            "{seen:?}"
        );
        let long = batch_for(Duration::from_micros(300), &PLAN);
        assert_eq!(long, 1);
        assert_eq!(batch_for(Duration::from_micros(30), &PLAN), 4);
    }

    #[test]
    fn rounds_visit_every_variant_in_turn() {
        let mut order = Vec::new();
        let _ = measure(3, &PLAN, |i, _| {
            order.push(i);
            Ok(Duration::from_micros(500))
        });
        // warm-up 0,1,2 then 7 rounds of 0,1,2
        assert_eq!(order.len(), 3 + 7 * 3);
        assert!(order.chunks(3).all(|c| c == [0, 1, 2]), "{order:?}");
    }

    #[test]
    fn a_failing_variant_is_left_out_and_the_rest_still_choose() {
        let out = measure(3, &PLAN, |i, launches| match i {
            0 => Err(Error::Tuning {
                kernel: "k".into(),
                problem: "too much shared memory".into(),
            }),
            _ => Ok(Duration::from_nanos(
                [0, 7_000, 6_000][i] * u64::from(launches),
            )),
        });
        assert!(matches!(out[0], Outcome::Failed(_)));
        assert_eq!(fastest(&out).map(|(i, _)| i), Some(2));
        let all_fail = measure(2, &PLAN, |_, _| {
            Err(Error::Tuning {
                kernel: "k".into(),
                problem: "no".into(),
            })
        });
        assert_eq!(fastest(&all_fail), None);
    }

    #[test]
    fn equal_times_choose_the_first() {
        let out = measure(3, &PLAN, |_, l| Ok(Duration::from_micros(u64::from(l))));
        assert_eq!(fastest(&out).map(|(i, _)| i), Some(0));
    }
}
