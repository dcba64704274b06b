//! Ranks joined the way launchers start them (`Job`, `Communicator::from_env`): processes of
//! this binary started with torchrun's variables exchange the NCCL id over TCP on localhost
//! (no GPU needed: rank 0 serves an id the parent chose, and every rank must print it); a
//! rank that never comes and a rank 0 that never listens end in the timeout with an error
//! naming them; a missing variable is named. With two or more GPUs and NCCL, the same
//! processes make a communicator each (with NCCL's blocking initialisation, and with a timeout
//! through `KERNEL_NCCL_INIT_TIMEOUT`), all-reduce random data against the CPU, replay the
//! step captured in a graph and time it on every rank (`Communicator::time`).
//!
//! Under a real launcher (`KERNEL_TEST_FROM_ENV=1 torchrun --no-python --nproc-per-node=N
//! <this binary> --exact joined_by_the_launcher`), each rank joins through
//! `Communicator::from_env` and checks an all-reduce.
//!
//! Needs `--features nccl`; the GPU parts skip (with the reason) without a driver, fewer than
//! two GPUs or libnccl, and fail with `KERNEL_REQUIRE_GPU=1` when a GPU is there and NCCL
//! is not.

use std::io::Write as _;
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use cuda_kernel_runtime::{
    Communicator, Error, Gpu, Job, Launch, ReduceOp, TrackedBuffer, UniqueId, cuda_module,
};
use kernel_test_support::{NonZeroData, Rng, assert_close, gpu_or_skip, gpu_required};

cuda_module! {
    mod step {
        source = r#"
            // y = s * x.
            extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = s * x[i];
            }
        "#;
    }
}

/// What a child process does: `id` (exchange an id, print it) or `gpu` (all-reduce).
const MODE_VAR: &str = "KERNEL_TEST_JOB_MODE";
/// The id rank 0 serves in `id` mode, as text.
const ID_VAR: &str = "KERNEL_TEST_JOB_ID";
const CHILD: &str = "rank_of_a_job";

/// Every launcher variable `Job::from_env` reads: children start without the parent's.
const LAUNCHER_VARS: [&str; 18] = [
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "MASTER_ADDR",
    "MASTER_PORT",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "SLURM_STEP_NODELIST",
    "SLURM_JOB_NODELIST",
    "SLURM_NODELIST",
    "KERNEL_RENDEZVOUS_PORT",
    "KERNEL_RENDEZVOUS_TIMEOUT",
    "KERNEL_NCCL_INIT_TIMEOUT",
];

/// A port nothing listens on now, below Linux's ephemeral range (32768 and up), where the
/// system hands out the ports of outgoing connections and of listeners bound to port 0:
/// NCCL's own sockets in the GPU tests beside this one, or another program's, would
/// otherwise take a port asked of the system between this check and the rank's listen
/// (seen on a 4-GPU machine: "Address already in use"). Each call of a process starts from
/// another port, and processes from other places.
fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = std::process::id() % 1_000 * 11;
    for _ in 0..12_000 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = 20_000 + ((start + n) % 12_000) as u16;
        // Rank 0 serves on `port`; a launcher's store would take MASTER_PORT, `port - 1`.
        if TcpListener::bind(("127.0.0.1", port)).is_ok()
            && TcpListener::bind(("127.0.0.1", port - 1)).is_ok()
        {
            return port;
        }
    }
    panic!("no free port between 20000 and 32000 on 127.0.0.1")
}

/// Starts `ranks` children in `mode` with torchrun's variables (rank 0 serving on `port`)
/// plus `extra`, and waits for them (180 s at most); their outputs, by rank.
fn run_job(mode: &str, ranks: usize, port: u16, extra: &[(&str, String)]) -> Vec<Output> {
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..ranks)
        .map(|rank| {
            let mut command = Command::new(&exe);
            command.args([CHILD, "--exact", "--nocapture", "--test-threads=1"]);
            for var in LAUNCHER_VARS {
                command.env_remove(var);
            }
            command
                .env(MODE_VAR, mode)
                .env("RANK", rank.to_string())
                .env("WORLD_SIZE", ranks.to_string())
                .env("LOCAL_RANK", rank.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                // Rank 0 serves on MASTER_PORT + 1.
                .env("MASTER_PORT", (port - 1).to_string())
                .env("KERNEL_RENDEZVOUS_TIMEOUT", "60");
            for (name, value) in extra {
                command.env(name, value);
            }
            command
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("starting a rank")
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut children: Vec<_> = children.into_iter().map(Some).collect();
    while children
        .iter_mut()
        .flatten()
        .any(|c| c.try_wait().expect("a rank").is_none())
    {
        if Instant::now() > deadline {
            for c in children.iter_mut().flatten() {
                let _ = c.kill();
            }
            panic!("the {ranks} ranks did not finish in 180 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .iter_mut()
        .map(|c| {
            c.take()
                .expect("a rank")
                .wait_with_output()
                .expect("a rank's output")
        })
        .collect()
}

/// What follows `tag` on the first line of `output` that holds it (the harness may print
/// the test's name before it on the same line).
fn line<'a>(output: &'a str, tag: &str) -> Option<&'a str> {
    output
        .lines()
        .find_map(|l| l.find(tag).map(|at| &l[at + tag.len()..]))
}

#[test]
fn processes_started_with_torchruns_variables_share_rank_0s_id_over_tcp() {
    let ranks = 4;
    let port = free_port();
    let mut rng = Rng::with_seed(3);
    let bytes: Vec<u8> = (0..UniqueId::BYTES).map(|_| rng.u8(..)).collect();
    let id = UniqueId::from_bytes(&bytes).expect("128 bytes");
    let outputs = run_job("id", ranks, port, &[(ID_VAR, id.to_string())]);
    for (rank, out) in outputs.iter().enumerate() {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "rank {rank}: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let got = line(&stdout, "=id ").unwrap_or_else(|| panic!("rank {rank}: {stdout}"));
        assert_eq!(got, id.to_string(), "rank {rank}");
        assert_eq!(
            line(&stdout, "=job "),
            Some(format!("{rank} of {ranks}, local {rank}, 127.0.0.1:{port}, torchrun").as_str()),
            "rank {rank}"
        );
    }
    println!("{ranks} processes on 127.0.0.1:{port}: rank 0's id on every rank");
}

#[test]
fn a_rank_that_never_comes_ends_rank_0s_wait_naming_it() {
    let port = free_port();
    let job = Job::new(0, 3, 0, "127.0.0.1", port)
        .expect("a job")
        .with_timeout(Duration::from_millis(400));
    let other = std::thread::spawn(move || {
        Job::new(2, 3, 2, "127.0.0.1", port)
            .expect("a job")
            .with_timeout(Duration::from_secs(20))
            .exchange_id(|| unreachable!("only rank 0 makes the id"))
    });
    let started = Instant::now();
    let e = job
        .exchange_id(|| Ok(UniqueId::from_bytes(&[1; 128]).expect("128 bytes")))
        .expect_err("rank 1 never came");
    let waited = started.elapsed();
    let text = e.to_string();
    assert!(matches!(e, Error::Rendezvous { .. }), "{e:?}");
    assert!(text.contains("rank(s) 1 of 3 never came"), "{text}");
    assert!(text.contains(&port.to_string()), "{text}");
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    // Rank 2 did come, and got the id.
    let got = other.join().expect("rank 2").expect("rank 2's id");
    assert_eq!(got.to_bytes(), [1; 128]);
}

#[test]
fn a_rank_0_that_never_listens_ends_the_wait_naming_its_address() {
    let port = free_port();
    let job = Job::new(1, 2, 1, "127.0.0.1", port)
        .expect("a job")
        .with_timeout(Duration::from_millis(500));
    let started = Instant::now();
    let e = job
        .exchange_id(|| unreachable!("only rank 0 makes the id"))
        .expect_err("nobody serves");
    let waited = started.elapsed();
    let text = e.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(text.contains("rank 1 could not get the NCCL id"), "{text}");
    assert!(
        waited >= Duration::from_millis(500) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
}

#[test]
fn a_missing_launcher_variable_is_named() {
    let exe = std::env::current_exe().expect("the test binary");
    let mut command = Command::new(exe);
    command.args([CHILD, "--exact", "--nocapture", "--test-threads=1"]);
    for var in LAUNCHER_VARS {
        command.env_remove(var);
    }
    let out = command
        .env(MODE_VAR, "missing")
        .env("RANK", "0")
        .env("WORLD_SIZE", "2")
        .env("MASTER_ADDR", "127.0.0.1")
        .env("MASTER_PORT", "29500")
        .output()
        .expect("a child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let e = line(&stdout, "=error ").unwrap_or_else(|| panic!("{stdout}"));
    assert!(e.contains("LOCAL_RANK is not set"), "{e}");
}

#[test]
fn ranks_of_a_job_on_every_gpu_all_reduce_against_the_cpu() {
    job_on_every_gpu(&[], "NCCL's blocking initialisation");
}

/// The same with `KERNEL_NCCL_INIT_TIMEOUT`: every rank joins NCCL with a timeout
/// (non-blocking), and the all-reduce, the captured step and the timing work as before.
#[test]
fn ranks_of_a_job_joined_with_an_nccl_timeout_all_reduce_against_the_cpu() {
    job_on_every_gpu(
        &[("KERNEL_NCCL_INIT_TIMEOUT", "60".to_owned())],
        "a timeout of 60s",
    );
}

/// Runs a job of one rank per GPU (up to 4) with `extra` variables; every rank must report
/// its checked all-reduce, and how it joined NCCL (`joined`).
fn job_on_every_gpu(extra: &[(&str, String)], joined: &str) {
    let Some(ranks) = gpus_with_nccl() else {
        return;
    };
    let port = free_port();
    let outputs = run_job("gpu", ranks, port, extra);
    for (rank, out) in outputs.iter().enumerate() {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "rank {rank}: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!(
                "rank {rank} of {ranks} on device {rank}: all-reduce checked"
            )),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("joined NCCL with {joined}")),
            "{stdout}"
        );
    }
}

/// One rank of the tests above, as its parent's `KERNEL_TEST_JOB_MODE` says; nothing when not
/// started as one.
#[test]
fn rank_of_a_job() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods)] // set by the parent test, not a build input
    let Ok(mode) = std::env::var(MODE_VAR) else {
        return Ok(());
    };
    match mode.as_str() {
        "id" => {
            let job = Job::from_env()?;
            let (host, port) = job.address();
            println!(
                "=job {} of {}, local {}, {host}:{port}, {}",
                job.rank(),
                job.ranks(),
                job.local_rank(),
                job.launcher()
            );
            let id = job.exchange_id(|| {
                #[allow(clippy::disallowed_methods)] // set by the parent test
                let text = std::env::var(ID_VAR).expect("the id to serve");
                text.parse()
            })?;
            println!("=id {id}");
        }
        "missing" => {
            let e = Job::from_env().expect_err("LOCAL_RANK is missing");
            println!("=error {e}");
        }
        "gpu" => all_reduce_as_a_rank()?,
        other => panic!("unknown mode {other}"),
    }
    Ok(())
}

/// Under a launcher (`KERNEL_TEST_FROM_ENV=1`): joins through `Communicator::from_env` and
/// all-reduces. Nothing otherwise (a Slurm allocation's variables around `cargo test` are not
/// a job of these processes).
#[test]
fn joined_by_the_launcher() -> Result<(), Error> {
    #[allow(clippy::disallowed_methods)] // a test switch
    if std::env::var("KERNEL_TEST_FROM_ENV").as_deref() != Ok("1") {
        return Ok(());
    }
    let job = Job::from_env()?;
    if job.rank() == 0 {
        // Whether the launcher itself listens on MASTER_PORT (torchrun's store does).
        #[allow(clippy::disallowed_methods)] // reported, not a build input
        let master = std::env::var("MASTER_PORT").unwrap_or_default();
        let taken = master
            .parse::<u16>()
            .is_ok_and(|p| TcpListener::bind(("0.0.0.0", p)).is_err());
        println!(
            "{} job of {} ranks; MASTER_PORT {master} {}; the id on port {}",
            job.launcher(),
            job.ranks(),
            if taken { "is taken" } else { "is free" },
            job.address().1
        );
    }
    all_reduce_as_a_rank()
}

/// `Communicator::from_env`, then an all-reduce of every rank's random data, checked against
/// the CPU's sum.
fn all_reduce_as_a_rank() -> Result<(), Error> {
    let started = Instant::now();
    let comm = Communicator::from_env()?;
    let joined = started.elapsed();
    match Job::from_env()?.nccl_timeout() {
        Some(timeout) => println!("joined NCCL with a timeout of {timeout:?}"),
        None => println!("joined NCCL with NCCL's blocking initialisation"),
    }
    let (rank, ranks) = (comm.rank(), comm.ranks());
    let gpu = comm.gpu().clone();
    let len = 1 << 18;
    let parts: Vec<Vec<f32>> = (0..ranks)
        .map(|r| Rng::with_seed(40 + r as u64).nonzero_f32s(len))
        .collect();
    let x = gpu.upload(&parts[rank])?;
    let mut total = gpu.zeros::<f32>(len)?;
    comm.all_reduce(&x, &mut total, &ReduceOp::Sum)?;
    comm.wait(Duration::from_secs(60))?;
    let want: Vec<f32> = (0..len)
        .map(|i| parts.iter().map(|p| f64::from(p[i])).sum::<f64>() as f32)
        .collect();
    assert_close(&total.download(&gpu)?, &want, 1e-5 * ranks as f32);
    println!(
        "rank {rank} of {ranks} on device {}: all-reduce checked (joined in {joined:?})",
        gpu.ordinal()
    );

    // A data-parallel step (scale, all-reduce, scale) eagerly, then captured into a graph and
    // replayed: equal, and against the CPU; then each timed.
    const TIMES: u32 = 50;
    let m = step::load(&gpu)?;
    let launch = Launch::for_num_elems(len as u32);
    let (mut y, mut z) = (gpu.zeros::<f32>(len)?, gpu.zeros::<f32>(len)?);
    let run = |on: &Gpu, y: &mut TrackedBuffer<f32>, z: &mut TrackedBuffer<f32>| {
        let k = m.with_stream(on.stream());
        // SAFETY: scale reads its input and writes its output, len floats each.
        unsafe { k.scale(&launch, &x, &mut *y, 0.5, len as i32)? };
        comm.on_stream(on.stream())?
            .all_reduce_in_place(&mut *y, &ReduceOp::Sum)?;
        // SAFETY: as above.
        unsafe { k.scale(&launch, &*y, z, 3.0, len as i32) }
    };
    run(&gpu, &mut y, &mut z)?;
    let eager = z.download(&gpu)?;
    let step_want: Vec<f32> = want.iter().map(|v| 1.5 * v).collect();
    assert_close(&eager, &step_want, 1e-5 * ranks as f32);
    z.memset_zeros(&gpu)?;
    let graph = gpu.capture(|g| run(g, &mut y, &mut z))?;
    graph.launch()?;
    let replayed = z.download(&gpu)?;
    assert_close(&replayed, &eager, 1e-6);
    comm.wait(Duration::from_secs(60))?;
    let started = Instant::now();
    for _ in 0..TIMES {
        run(&gpu, &mut y, &mut z)?;
    }
    comm.wait(Duration::from_secs(60))?;
    let eager_time = started.elapsed() / TIMES;
    let started = Instant::now();
    for _ in 0..TIMES {
        graph.launch()?;
    }
    comm.wait(Duration::from_secs(60))?;
    let replay_time = started.elapsed() / TIMES;
    assert_eq!(z.download(&gpu)?, replayed, "the last replay");
    println!(
        "rank {rank} of {ranks}: captured step equals the eager step; eager {eager_time:?}, \
         graph replay {replay_time:?} (mean of {TIMES}, {len} f32)"
    );

    // The eager step timed by every rank together: each rank gets every rank's time.
    let ((), times) = comm.time([], || run(&gpu, &mut y, &mut z))?;
    assert_eq!(times.per_device().len(), ranks);
    assert!(times.per_device().iter().all(|&t| t > Duration::ZERO));
    assert!(times.per_device().iter().all(|&t| t <= times.span()));
    assert_close(&z.download(&gpu)?, &step_want, 1e-5 * ranks as f32);
    println!(
        "rank {rank} of {ranks}: the step timed on every rank: {:?}, span {:?}",
        times.per_device(),
        times.span()
    );
    Ok(())
}

/// How many GPUs to run ranks on (up to 4), or `None` after printing why not.
#[track_caller]
fn gpus_with_nccl() -> Option<usize> {
    let first = gpu_or_skip()?;
    drop(first);
    let test = std::thread::current()
        .name()
        .unwrap_or("launchers")
        .to_owned();
    let count = Gpu::count().expect("counting devices");
    if count < 2 {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {test}: needs two GPUs (the driver reports {count})"
        );
        return None;
    }
    if let Err(e) = Communicator::nccl_version() {
        assert!(
            !gpu_required(),
            "KERNEL_REQUIRE_GPU=1 and a GPU is there, but: {e}"
        );
        let _ = writeln!(std::io::stderr(), "skipped: {test}: {e}");
        return None;
    }
    Some(count.min(4))
}
