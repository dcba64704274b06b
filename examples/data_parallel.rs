//! A data-parallel SGD step on every GPU of the machine: each rank holds a shard of the rows of
//! a linear regression, typed kernels compute its local gradient, an NCCL all-reduce (through
//! the runtime, ordered with the kernels) sums the gradients, and a typed kernel updates the
//! weights, which stay equal on every rank. Checked against the same steps on the CPU.
//!
//! Started by a launcher, each process is one rank, joined through `Communicator::from_env`
//! (rank 0 serves the NCCL id over TCP; the local rank picks the GPU):
//!
//! ```text
//! torchrun --no-python --nproc-per-node=4 target/release/examples/data_parallel
//! ```
//!
//! (or under `srun`, or `mpirun` with `MASTER_ADDR`/`MASTER_PORT` set). `--every-gpu` keeps the
//! one-process mode under a launcher's variables.
//!
//! `--processes 2` runs the same steps as two processes (this binary started twice, ranks 0
//! and 1 on devices 0 and 1), joined by an NCCL unique id that rank 0 writes to a file the
//! other reads. Needs `--features nccl` and `libnccl.so.2` at run time.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use cuda_kernel_runtime::{
    Communicator, Error, Gpu, Group, Job, Launch, ReduceOp, TrackedBuffer, UniqueId, cuda_module,
};
use kernel_examples::{NonZeroData, Report, Rng, Tolerance, compare, embedded};

cuda_module! {
    /// The model's kernels: residuals, the local gradient, the update.
    mod sgd {
        source = r#"
            // r[i] = x[i, :] . w - y[i] for the rows of this shard.
            extern "C" __global__ void residual(
                const float* x, const float* w, const float* y, float* r, int rows, int d) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i >= rows) return;
                float s = 0.0f;
                for (int j = 0; j < d; ++j) s += x[i * d + j] * w[j];
                r[i] = s - y[i];
            }

            // g[j] = sum_i x[i, j] r[i] / total: this shard's part of the mean gradient.
            extern "C" __global__ void gradient(
                const float* x, const float* r, float* g, int rows, int d, float total) {
                int j = blockIdx.x * blockDim.x + threadIdx.x;
                if (j >= d) return;
                float s = 0.0f;
                for (int i = 0; i < rows; ++i) s += x[i * d + j] * r[i];
                g[j] = s / total;
            }

            // w -= lr * g.
            extern "C" __global__ void update(float* w, const float* g, float lr, int d) {
                int j = blockIdx.x * blockDim.x + threadIdx.x;
                if (j < d) w[j] -= lr * g[j];
            }
        "#;
    }
}

const ROWS: usize = 2048;
const D: usize = 16;
const STEPS: usize = 5;
const LR: f32 = 0.05;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    // Started by torchrun, srun or mpirun: one rank per process.
    let launched = !args.iter().any(|a| a == "--every-gpu") && Job::from_env().is_ok();
    match (flag("--rank"), flag("--id-file"), flag("--processes")) {
        _ if launched => kernel_examples::run(
            "data_parallel (a launcher's rank)",
            &[embedded!(sgd)],
            |_| {
                let comm = Communicator::from_env()?;
                rank_steps(&comm)
            },
        ),
        (Some(rank), Some(file), _) => {
            let rank: usize = rank.parse().expect("--rank N");
            kernel_examples::run("data_parallel (one rank)", &[embedded!(sgd)], |_| {
                one_rank(rank, &file)
            })
        }
        (_, _, Some(n)) => processes(n.parse().expect("--processes N")),
        _ => kernel_examples::run("data_parallel", &[embedded!(sgd)], |_| every_gpu()),
    }
}

/// Rank `r`'s shard: rows and targets from a seeded generator, so every process can make
/// every shard.
fn shard(r: usize) -> (Vec<f32>, Vec<f32>) {
    let mut rng = Rng::with_seed(100 + r as u64);
    (rng.nonzero_f32s(ROWS * D), rng.nonzero_f32s(ROWS))
}

/// The steps on the CPU, in f64: the weights after [`STEPS`] steps over `ranks` shards.
fn cpu_reference(ranks: usize) -> Vec<f32> {
    let shards: Vec<_> = (0..ranks).map(shard).collect();
    let total = (ROWS * ranks) as f64;
    let mut w = vec![0.0f64; D];
    for _ in 0..STEPS {
        let mut g = [0.0f64; D];
        for (x, y) in &shards {
            for i in 0..ROWS {
                let r: f64 =
                    (0..D).map(|j| f64::from(x[i * D + j]) * w[j]).sum::<f64>() - f64::from(y[i]);
                for j in 0..D {
                    g[j] += f64::from(x[i * D + j]) * r / total;
                }
            }
        }
        for j in 0..D {
            w[j] -= f64::from(LR) * g[j];
        }
    }
    w.into_iter().map(|v| v as f32).collect()
}

/// One rank's state: its shard and model on its device.
struct Rank {
    gpu: Gpu,
    k: sgd::Module,
    x: TrackedBuffer<f32>,
    y: TrackedBuffer<f32>,
    w: TrackedBuffer<f32>,
    r: TrackedBuffer<f32>,
    g: TrackedBuffer<f32>,
}

impl Rank {
    fn new(gpu: &Gpu, rank: usize) -> Result<Rank, Error> {
        let (xs, ys) = shard(rank);
        Ok(Rank {
            k: sgd::load(gpu)?,
            x: gpu.upload(&xs)?,
            y: gpu.upload(&ys)?,
            w: gpu.zeros(D)?,
            r: gpu.zeros(ROWS)?,
            g: gpu.zeros(D)?,
            gpu: gpu.clone(),
        })
    }

    /// Residuals and this shard's gradient (queued).
    fn local_gradient(&mut self, total: usize) -> Result<(), Error> {
        let (rows, d) = (ROWS as i32, D as i32);
        // SAFETY: residual reads rows*d of x, d of w, rows of y and writes rows of r.
        unsafe {
            self.k.residual(
                &Launch::for_num_elems(ROWS as u32),
                &self.x,
                &self.w,
                &self.y,
                &mut self.r,
                rows,
                d,
            )?
        };
        // SAFETY: gradient reads rows*d of x and rows of r and writes d of g.
        unsafe {
            self.k.gradient(
                &Launch::for_num_elems(D as u32),
                &self.x,
                &self.r,
                &mut self.g,
                rows,
                d,
                total as f32,
            )?
        };
        Ok(())
    }

    /// The update with the summed gradient (queued).
    fn update(&mut self) -> Result<(), Error> {
        // SAFETY: update reads d of g and writes d of w.
        unsafe {
            self.k.update(
                &Launch::for_num_elems(D as u32),
                &mut self.w,
                &self.g,
                LR,
                D as i32,
            )
        }
    }
}

/// Every GPU of this process, one thread: the all-reduces go in one group.
fn every_gpu() -> Result<Report, Error> {
    let gpus = (0..Gpu::count()?)
        .map(Gpu::new)
        .collect::<Result<Vec<_>, _>>()?;
    let comms = Communicator::for_gpus(&gpus)?;
    let mut ranks = gpus
        .iter()
        .enumerate()
        .map(|(r, g)| Rank::new(g, r))
        .collect::<Result<Vec<_>, _>>()?;
    let total = ROWS * gpus.len();
    let start = Instant::now();
    // The steps on every GPU, timed on each device from a common start.
    let ((), times) = Gpu::time_all(comms.iter().map(Communicator::gpu), || {
        for _ in 0..STEPS {
            for rank in &mut ranks {
                rank.local_gradient(total)?;
            }
            let mut group = Group::start()?;
            for (comm, rank) in comms.iter().zip(&mut ranks) {
                group.all_reduce_in_place(comm, &mut rank.g, &ReduceOp::Sum)?;
            }
            group.end()?;
            for rank in &mut ranks {
                rank.update()?;
            }
        }
        Ok(())
    })?;
    let want = cpu_reference(gpus.len());
    let mut report = Report::titled("data_parallel");
    report.fact("ranks", format!("{} (one process)", gpus.len()));
    report.fact(
        "rows per rank × features",
        format!("{ROWS} × {D}, {STEPS} steps"),
    );
    for rank in &ranks {
        let got = rank.w.download(&rank.gpu)?;
        report.check(
            &format!("weights on device {}", rank.gpu.ordinal()),
            compare(&got, &want, Tolerance::new(1e-4, 1e-3)),
        );
    }
    report.time("steps", start.elapsed(), None);
    report.time("steps on the slowest device", times.span(), None);
    report.fact("steps on each device", format!("{:?}", times.per_device()));
    Ok(report)
}

/// Rank `rank` of a two-process run: the id passes through `file`.
fn one_rank(rank: usize, file: &str) -> Result<Report, Error> {
    let id = if rank == 0 {
        let id = UniqueId::new()?;
        let partial = format!("{file}.partial");
        std::fs::write(&partial, id.to_bytes()).expect("writing the id");
        std::fs::rename(&partial, file).expect("publishing the id");
        id
    } else {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(id) = std::fs::read(file)
                .ok()
                .and_then(|b| UniqueId::from_bytes(&b))
            {
                break id;
            }
            assert!(Instant::now() < deadline, "no id from rank 0 in 60 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let gpu = Gpu::new(rank)?;
    let comm = Communicator::for_rank(&gpu, &id, rank, 2)?;
    rank_steps(&comm)
}

/// The steps as one rank of `comm` (one process of several), checked against the CPU's.
fn rank_steps(comm: &Communicator) -> Result<Report, Error> {
    let (rank, ranks) = (comm.rank(), comm.ranks());
    let gpu = comm.gpu().clone();
    let mut me = Rank::new(&gpu, rank)?;
    let start = Instant::now();
    // Every rank times the steps together: each gets every rank's device time.
    let ((), times) = comm.time([], || {
        for _ in 0..STEPS {
            me.local_gradient(ROWS * ranks)?;
            comm.all_reduce_in_place(&mut me.g, &ReduceOp::Sum)?;
            me.update()?;
        }
        Ok(())
    })?;
    let got = me.w.download(&gpu)?;
    let elapsed = start.elapsed();
    let mut report = Report::titled(&format!("data_parallel rank {rank} of {ranks}"));
    report.fact(
        "rows per rank × features",
        format!("{ROWS} × {D}, {STEPS} steps"),
    );
    report.check(
        &format!("weights on device {}", gpu.ordinal()),
        compare(&got, &cpu_reference(ranks), Tolerance::new(1e-4, 1e-3)),
    );
    report.time("steps", elapsed, None);
    report.time("steps on the slowest rank", times.span(), None);
    report.fact("steps on each rank", format!("{:?}", times.per_device()));
    Ok(report)
}

/// Starts this binary as `n` ranks (only 2 is supported) and waits for them.
fn processes(n: usize) -> ExitCode {
    if n != 2 {
        eprintln!("--processes: only 2 is supported");
        return ExitCode::from(2);
    }
    let dir = std::env::temp_dir().join(format!("data_parallel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join("nccl-id");
    let exe = std::env::current_exe().expect("this binary");
    let children: Vec<_> = (0..n)
        .map(|r| {
            Command::new(&exe)
                .args(["--rank", &r.to_string(), "--id-file"])
                .arg(&file)
                .spawn()
                .expect("starting a rank")
        })
        .collect();
    let mut ok = true;
    for (r, mut child) in children.into_iter().enumerate() {
        let status = child.wait().expect("waiting for a rank");
        println!("rank {r}: {status}");
        ok &= status.success();
    }
    let _ = std::fs::remove_dir_all(&dir);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
