//! The tuner's choices with fake variants and a fake clock: no GPU.

use std::cell::Cell;
use std::time::Duration;

use super::*;

fn h100() -> GpuModel {
    GpuModel::new("NVIDIA H100 80GB HBM3", (9, 0), (13, 0))
}

/// A clock where variant `i` takes `per_launch[i]` ns a launch; counts the calls.
fn clock<'a>(
    per_launch: &'a [u64],
    calls: &'a Cell<usize>,
) -> impl FnMut(usize, u32) -> Result<Duration, Error> + 'a {
    move |i, n| {
        calls.set(calls.get() + 1);
        Ok(Duration::from_nanos(per_launch[i] * u64::from(n)))
    }
}

const NAMES: [&str; 4] = ["b128", "b256", "b512", "b1024"];

#[test]
fn the_first_call_times_and_later_calls_only_look_up() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(5);
    let calls = Cell::new(0);
    let per = [4_000, 2_500, 3_000, 9_000];
    assert_eq!(
        t.choose(&h100(), &1024, &NAMES, clock(&per, &calls))
            .unwrap(),
        1
    );
    let timed = calls.get();
    assert_eq!(timed, 4 + 5 * 4, "warm-up and 5 rounds of each variant");
    for _ in 0..3 {
        assert_eq!(
            t.choose(&h100(), &1024, &NAMES, clock(&per, &calls))
                .unwrap(),
            1
        );
    }
    assert_eq!(calls.get(), timed, "a known key times nothing");
    assert_eq!(t.tunings(), 1);
    // Another key, another timing run, another choice.
    let per_small = [1_000, 2_500, 3_000, 9_000];
    assert_eq!(
        t.choose(&h100(), &64, &NAMES, clock(&per_small, &calls))
            .unwrap(),
        0
    );
    assert_eq!(t.tunings(), 2);
    let rows = t.choices();
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .any(|r| r.key == "1024" && r.variant == "b256" && r.nanos == 2_500)
    );
}

#[test]
fn models_keep_their_own_choices() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(3);
    let calls = Cell::new(0);
    let a100 = GpuModel::new("NVIDIA A100-SXM4-80GB", (8, 0), (13, 0));
    assert_eq!(
        t.choose(&h100(), &1, &NAMES, clock(&[5, 1, 5, 5], &calls))
            .unwrap(),
        1
    );
    assert_eq!(
        t.choose(&a100, &1, &NAMES, clock(&[5, 5, 1, 5], &calls))
            .unwrap(),
        2
    );
    assert_eq!(
        t.choose(&h100(), &1, &NAMES, clock(&[1, 5, 5, 5], &calls))
            .unwrap(),
        1
    );
    assert_eq!(t.tunings(), 2);
}

#[test]
fn a_failing_variant_is_left_out_with_a_note() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(3);
    let pick = t
        .choose(&h100(), &7, &NAMES, |i, n| match i {
            1 => Err(Error::Tuning {
                kernel: "sum".into(),
                problem: "needs 96 KiB of shared memory, the device has 48".into(),
            }),
            _ => Ok(Duration::from_nanos([3, 1, 2, 4][i] * u64::from(n))),
        })
        .unwrap();
    assert_eq!(pick, 2);
    let notes = t.notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("`b256`") && notes[0].contains("96 KiB"),
        "{notes:?}"
    );
}

#[test]
fn every_variant_failing_is_an_error_naming_each() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(3);
    let err = t
        .choose(&h100(), &7, &NAMES[..2], |i, _| {
            Err(Error::Tuning {
                kernel: "sum".into(),
                problem: format!("reason {i}"),
            })
        })
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("`b128`") && text.contains("reason 1"),
        "{text}"
    );
    assert!(
        t.choose(&h100(), &7, &[], |_, _| Ok(Duration::ZERO))
            .is_err()
    );
}

#[test]
fn a_second_tuner_on_the_same_cache_times_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let first = Tuner::<u64>::new("sum").cache_dir(dir.path()).rounds(3);
    let calls = Cell::new(0);
    let per = [4, 3, 2, 9];
    assert_eq!(
        first
            .choose(&h100(), &1, &NAMES, clock(&per, &calls))
            .unwrap(),
        2
    );
    // A new process: a fresh tuner. Even a clock that now says otherwise is not asked.
    let second = Tuner::<u64>::new("sum").cache_dir(dir.path());
    let calls2 = Cell::new(0);
    let pick = second
        .choose(&h100(), &1, &NAMES, clock(&[1, 9, 9, 9], &calls2))
        .unwrap();
    assert_eq!((pick, second.tunings(), calls2.get()), (2, 0, 0));
    // Another driver (a later process), another module: timed again.
    let newer = GpuModel::new("NVIDIA H100 80GB HBM3", (9, 0), (13, 1));
    let updated = Tuner::<u64>::new("sum").cache_dir(dir.path()).rounds(3);
    updated
        .choose(&newer, &1, &NAMES, clock(&per, &calls2))
        .unwrap();
    assert_eq!(updated.tunings(), 1);
    let rebuilt = Tuner::<u64>::new("sum")
        .cache_dir(dir.path())
        .module_hash("v2")
        .rounds(3);
    rebuilt
        .choose(&h100(), &1, &NAMES, clock(&per, &calls2))
        .unwrap();
    assert_eq!(rebuilt.tunings(), 1);
    assert_eq!(read_cache(Some(dir.path())).unwrap().len(), 3);
}

#[test]
fn the_embedded_table_comes_before_the_cache_and_timing() {
    static TABLE: Table = Table::new(
        "# cuda-kernel tuning table 1\n\
         sum\tNVIDIA H100 80GB HBM3\t9.0\t12.8\tnone\t1\tb1024\t9000\n\
         sum\tNVIDIA H100 80GB HBM3\t9.0\t12.8\tnone\t2\tgone\t9000\n",
    );
    let dir = tempfile::tempdir().unwrap();
    // The cache says b512 for key 1 ...
    let seed = Tuner::<u64>::new("sum").cache_dir(dir.path()).rounds(3);
    let calls = Cell::new(0);
    seed.choose(&h100(), &1, &NAMES, clock(&[4, 3, 2, 9], &calls))
        .unwrap();
    // ... the table says b1024 (timed under another driver: the table does not compare it).
    let t = Tuner::<u64>::new("sum")
        .cache_dir(dir.path())
        .table(&TABLE)
        .rounds(3);
    let calls = Cell::new(0);
    assert_eq!(
        t.choose(&h100(), &1, &NAMES, clock(&[4, 3, 2, 9], &calls))
            .unwrap(),
        3
    );
    assert_eq!((t.tunings(), calls.get()), (0, 0));
    // A row naming no variant of the set is noted, and the key is timed.
    assert_eq!(
        t.choose(&h100(), &2, &NAMES, clock(&[4, 3, 2, 9], &calls))
            .unwrap(),
        2
    );
    assert_eq!(t.tunings(), 1);
    assert!(t.notes()[0].contains("`gone`"), "{:?}", t.notes());
    // Another GPU model is not in the table.
    let a100 = GpuModel::new("NVIDIA A100-SXM4-80GB", (8, 0), (13, 0));
    t.choose(&a100, &1, &NAMES, clock(&[4, 3, 2, 9], &calls))
        .unwrap();
    assert_eq!(t.tunings(), 2);
}

#[test]
fn an_unreadable_table_is_an_error_naming_its_line() {
    static BAD: Table = Table::new("# cuda-kernel tuning table 1\nsum\tH100\n");
    let t = Tuner::<u64>::new("sum").no_cache().table(&BAD);
    let err = t
        .choose(&h100(), &1, &NAMES, |_, _| Ok(Duration::ZERO))
        .unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
}

#[test]
fn choices_render_into_a_table_that_a_tuner_then_uses() {
    let t = Tuner::<String>::new("gemm").no_cache().rounds(3);
    let calls = Cell::new(0);
    let key = "m=4096 n=4096 k=4096".to_owned();
    t.choose(&h100(), &key, &NAMES, clock(&[4, 3, 2, 1], &calls))
        .unwrap();
    let text: &'static str = Box::leak(Table::render(&t.choices()).into_boxed_str());
    let table: &'static Table = Box::leak(Box::new(Table::new(text)));
    let deployed = Tuner::<String>::new("gemm").no_cache().table(table);
    let pick = deployed
        .choose(&h100(), &key, &NAMES, |_, _| {
            panic!("a deployed program times nothing")
        })
        .unwrap();
    assert_eq!((pick, deployed.tunings()), (3, 0));
}

#[test]
fn a_changed_variant_set_is_settled_again() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(3);
    let calls = Cell::new(0);
    assert_eq!(
        t.choose(&h100(), &1, &NAMES, clock(&[4, 3, 2, 1], &calls))
            .unwrap(),
        3
    );
    // The remembered index no longer names the same variant: time the new set.
    let fewer = ["b128", "b256"];
    assert_eq!(
        t.choose(&h100(), &1, &fewer, clock(&[4, 3], &calls))
            .unwrap(),
        1
    );
    assert_eq!(t.tunings(), 2);
}

#[test]
fn threads_settle_one_key_once() {
    let t = Tuner::<u64>::new("sum").no_cache().rounds(3);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let pick = t
                    .choose(&h100(), &1, &NAMES, |i, n| {
                        std::thread::sleep(Duration::from_micros(50));
                        Ok(Duration::from_nanos([4, 3, 2, 9][i] * u64::from(n)))
                    })
                    .unwrap();
                assert_eq!(pick, 2);
            });
        }
    });
    assert_eq!(t.tunings(), 1);
}
