//! nvcc's `--split-compile N`: one nvcc run's optimizer (cicc) and assembler (ptxas) spread
//! the unit's functions over N threads. A build gives it to the runs that would otherwise
//! keep the build waiting while cores idle: the largest files' per-architecture runs of a
//! library whose other files finish early, or a one-file module with fewer targets than
//! cores.
//!
//! The policy ([`plan`]) sees each run's estimated work (the queue's weight: the file's
//! expanded tokens, `pipeline::estimate`, times the images the run makes) and the build's
//! job count. The work divided evenly over the jobs is each core's fair share; a run gets as
//! many threads as fair shares it holds, rounded up, at most the job count. Among runs of
//! several files the estimate can misjudge one file against another by up to four times
//! (between candle's larger files the compile time per estimated token differed that
//! much), so there a
//! run's shares are counted four times: a run that turns out longer than estimated still
//! ends near the others, and one that turns out shorter has only oversubscribed the cores
//! for a while (a split adds a few percent of CPU time). Runs below [`MIN_WEIGHT`] stay
//! whole: they take a few seconds at most, and splitting them costs more than it gains
//! (a 5,000-token file of candle's took about 15 % longer split eight ways). The split runs start first
//! (the queue is longest first), so their extra threads overlap the smaller runs rather
//! than leaving cores idle at the end.
//!
//! The images carry the same kernels with the same parameter layouts (each is verified as
//! any other); their bytes differ, since the functions are optimised and assembled in
//! parts, which NVIDIA documents as having "minimal (if any) impact on performance". They
//! also differ from one split build to the next: two builds of candle's four largest files
//! with the same split gave 67.7 MB and 77.1 MB of images, 590 of their per-kernel register
//! counts different, where two unsplit builds were byte for byte the same. So the split is
//! off unless asked for (`KERNEL_BUILD_SPLIT_COMPILE=1`, or the build context's
//! `split_compile`): a build's output is a function of its inputs by default. Asked for,
//! it shortens a cold build that waits on one large file (`quantized.cu` for `sm_90` alone:
//! 21.7 s whole, 12.9 s in two parts); a split build's cache entries are kept apart from
//! unsplit ones (the key says whether the build may split, not into how many parts, so
//! that machines with different core counts share entries), and runs through a wrapper
//! (sccache, whose key hashes the arguments) are not split. A `--split-compile` among the
//! module's or `KERNEL_BUILD_NVCC_FLAGS`' flags is the user's choice and is left alone.

use crate::env::{self, Reporting, Var};

/// Below this weight (estimated tokens times images) a run is never split.
pub(crate) const MIN_WEIGHT: u64 = 16_000;

/// How many times a run's fair shares are counted among runs of several files.
const MARGIN: u64 = 4;

/// Whether the build may split runs: it was asked to (`asked`, else
/// `KERNEL_BUILD_SPLIT_COMPILE` is an on word; off by default), and no flag of the user's
/// already sets nvcc's split.
pub(crate) fn allowed(flags: &[String], asked: Option<bool>, reporting: Reporting) -> bool {
    let chosen = flags.iter().any(|f| is_split_flag(f));
    let asked = asked.or_else(|| env::switch(Var::SPLIT_COMPILE, reporting));
    !chosen && asked.unwrap_or(false)
}

/// Whether `flag` is one of nvcc's split flags (`--split-compile N`, `-split-compile=N`,
/// `--split-compile-extended N`).
fn is_split_flag(flag: &str) -> bool {
    flag.trim_start_matches('-').starts_with("split-compile")
}

/// How many threads each run's `--split-compile` gets (1: not split), for runs of
/// estimated work `weights` sharing `jobs` cores; `several_files`: the runs compile more
/// than one file, whose estimates may be off against each other.
pub(crate) fn plan(weights: &[u64], jobs: usize, several_files: bool) -> Vec<usize> {
    let jobs = jobs.max(1) as u64;
    let total = weights.iter().fold(0u64, |a, w| a.saturating_add(*w));
    let fair = total.div_ceil(jobs).max(1);
    let margin = if several_files { MARGIN } else { 1 };
    weights
        .iter()
        .map(|&w| {
            if w < MIN_WEIGHT || jobs == 1 {
                1
            } else {
                w.saturating_mul(margin).div_ceil(fair).clamp(1, jobs) as usize
            }
        })
        .collect()
}

/// The nvcc arguments for `threads` split threads: none for one.
pub(crate) fn args(threads: usize) -> Vec<String> {
    if threads > 1 {
        vec!["--split-compile".to_owned(), threads.to_string()]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: u64 = 8 * MIN_WEIGHT;

    #[test]
    fn small_runs_are_never_split() {
        assert_eq!(plan(&[MIN_WEIGHT - 1], 16, false), [1]);
        assert_eq!(plan(&[1, 2, 3], 16, true), [1, 1, 1]);
        assert!(args(1).is_empty());
    }

    #[test]
    fn one_core_splits_nothing() {
        assert_eq!(plan(&[BIG, BIG, 10], 1, true), [1, 1, 1]);
        assert_eq!(plan(&[BIG], 0, false), [1], "no jobs counts as one");
    }

    #[test]
    fn a_lone_large_run_takes_every_core() {
        assert_eq!(plan(&[BIG], 16, false), [16]);
        assert_eq!(args(16), ["--split-compile", "16"]);
    }

    #[test]
    fn runs_of_one_file_share_the_cores() {
        // A one-file module of 7 targets on 16 cores: 3 threads each (16/7 rounded up).
        assert_eq!(plan(&[BIG; 7], 16, false), [3; 7]);
        // One file's 6 groups, the last making two images (SASS and PTX).
        let mut groups = [BIG; 6];
        groups[5] = 2 * BIG;
        assert_eq!(plan(&groups, 16, false), [3, 3, 3, 3, 3, 5]);
        // As many runs as cores: each has its core, none is split.
        assert_eq!(plan(&[BIG; 16], 16, false), [1; 16]);
        assert_eq!(plan(&[BIG; 40], 16, false), [1; 40]);
        // Two cores, 7 targets: the cores are busy, nothing to split.
        assert_eq!(plan(&[BIG; 7], 2, false), [1; 7]);
    }

    #[test]
    fn among_several_files_the_large_runs_get_a_margin() {
        // Three large files' 6 runs each among 60 small runs on 16 cores: each large run
        // holds under a fair share of the estimate, but four times that is over one, so
        // it is split; the small runs keep one thread.
        let mut weights = vec![3 * MIN_WEIGHT; 18];
        weights.extend([MIN_WEIGHT / 2; 60]);
        let total: u64 = weights.iter().sum();
        let fair = total.div_ceil(16);
        assert!(3 * MIN_WEIGHT < fair, "under one share");
        let several = plan(&weights, 16, true);
        let expected = (4 * 3 * MIN_WEIGHT).div_ceil(fair) as usize;
        assert!(expected > 1);
        assert!(several[..18].iter().all(|&s| s == expected), "{several:?}");
        assert!(several[18..].iter().all(|&s| s == 1), "{several:?}");
        // The same weights from one file: no margin, no split.
        assert!(plan(&weights, 16, false).iter().all(|&s| s == 1));
        // A larger run gets more threads than a smaller one: 26 weights of work over 16
        // cores, a share of 1.625; 4 x 4 / 1.625 and 4 x 2 / 1.625 rounded up.
        let mut weights = vec![4 * MIN_WEIGHT, 2 * MIN_WEIGHT];
        weights.extend([MIN_WEIGHT / 2; 40]);
        let p = plan(&weights, 16, true);
        assert_eq!(p[..2], [10, 5], "{p:?}");
    }

    #[test]
    fn threads_never_exceed_the_jobs() {
        for jobs in 1..40 {
            for n in 1..10 {
                let w: Vec<u64> = (0..n).map(|i| BIG << i).collect();
                for several in [false, true] {
                    let p = plan(&w, jobs, several);
                    assert!(p.iter().all(|&s| s >= 1 && s <= jobs), "{p:?}");
                }
            }
        }
        let huge = plan(&[u64::MAX, u64::MAX], 8, true);
        assert!(
            huge.iter().all(|&s| (1..=8).contains(&s)),
            "no overflow: {huge:?}"
        );
    }

    #[test]
    fn off_unless_asked_and_never_over_the_users_own_split() {
        let own = |f: &str| allowed(&[f.to_owned()], Some(true), Reporting::Silent);
        for flag in [
            "--split-compile",
            "-split-compile=4",
            "--split-compile-extended",
        ] {
            assert!(!own(flag), "{flag}");
        }
        assert!(own("-O3"));
        assert!(!allowed(
            &["-O3".to_owned()],
            Some(false),
            Reporting::Silent
        ));
        assert_eq!(
            allowed(&["-O3".to_owned()], None, Reporting::Silent),
            env::switch(Var::SPLIT_COMPILE, Reporting::Silent) == Some(true)
        );
    }
}
