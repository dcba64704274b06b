//! A build cache shared through sccache and Redis: "machine A" (its own cuda-kernel-build cache, its
//! own sccache server and folder) builds a module with nvcc running through sccache, whose
//! storage is a local `redis-server`; "machine B" (fresh cuda-kernel-build cache, another sccache
//! server and folder, the same Redis) builds the same module. B's sccache must serve every
//! compilation from Redis (no cache miss), nvcc — a counting nvcc that logs every run — must
//! compile nothing on B (sccache still runs it to preprocess, list dependencies and dry-run),
//! and B's fatbin must be A's, byte for byte. Our own cache stays the first level: each
//! machine's starts empty here.
//!
//! Needs `redis-server` on PATH and sccache (`scripts/install-test-tools.sh` installs both);
//! skips with the reason otherwise. Each "machine" is `cuda-kernel-inspect build` with its own
//! environment.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

#[path = "../../kernel-build/tests/fatbin_support/mod.rs"]
mod fatbin_support;
mod support;
use fatbin_support::nvcc as real_nvcc;
use support::CountingNvcc;

const SOURCE: &str = r#"
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template __global__ void axpy<float>(float, const float*, float*, int);
extern "C" __global__ void relu(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaxf(x[i], 0.0f);
}
"#;

/// Stops the child (Redis) when dropped.
struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One machine: its sccache server port and folders.
struct Machine {
    sccache: PathBuf,
    /// The counting nvcc both machines build with.
    nvcc: PathBuf,
    port: u16,
    dir: PathBuf,
    redis: String,
}

impl Machine {
    fn env(&self, c: &mut Command) {
        c.env("SCCACHE_SERVER_PORT", self.port.to_string())
            .env("SCCACHE_DIR", self.dir.join("sccache"))
            .env("SCCACHE_REDIS_ENDPOINT", &self.redis)
            .env("SCCACHE_IDLE_TIMEOUT", "0")
            .env("KERNEL_BUILD_CACHE_DIR", self.dir.join("kernel-build"))
            .env("KERNEL_BUILD_NVCC_WRAPPER", &self.sccache)
            .env("NVCC", &self.nvcc)
            .env_remove("RUSTC_WRAPPER");
    }

    fn sccache(&self, args: &[&str]) -> std::process::Output {
        let mut c = Command::new(&self.sccache);
        c.args(args);
        self.env(&mut c);
        c.output().expect("sccache runs")
    }

    /// Builds the module; returns the seconds it took.
    fn build(&self, file: &Path) -> f64 {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuda-kernel-inspect"));
        c.arg("build")
            .arg(file)
            .args(["--arch", "sm_90", "--arch", "compute_90"]);
        self.env(&mut c);
        let start = Instant::now();
        let out = c.output().expect("cuda-kernel-inspect runs");
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        start.elapsed().as_secs_f64()
    }

    /// (hits, misses) of the server's compile cache.
    fn hits_and_misses(&self) -> (u64, u64) {
        let out = self.sccache(&["--show-stats", "--stats-format", "json"]);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("sccache prints its stats as JSON");
        let sum = |key: &str| -> u64 {
            v["stats"][key]["counts"].as_object().map_or(0, |m| {
                m.values().filter_map(serde_json::Value::as_u64).sum()
            })
        };
        (sum("cache_hits"), sum("cache_misses"))
    }

    /// The fatbin the build stored in this machine's cuda-kernel-build cache.
    fn fatbin(&self) -> Vec<u8> {
        let mut found = Vec::new();
        let mut dirs = vec![self.dir.join("kernel-build")];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.file_name().is_some_and(|n| n == "module.fatbin") {
                    found.push(p);
                }
            }
        }
        assert_eq!(found.len(), 1, "one stored fatbin: {found:?}");
        std::fs::read(&found[0]).unwrap()
    }
}

/// nvcc runs of `runs` that compiled: `-c` or `-fatbin`, not to preprocess (`-E`), list
/// dependencies (`-M`) or print the steps (`--dryrun`).
fn compilations(runs: &[String]) -> Vec<&String> {
    runs.iter()
        .filter(|l| {
            let words: Vec<&str> = l.split(' ').collect();
            words.iter().any(|w| *w == "-c" || *w == "-fatbin")
                && !words.iter().any(|w| ["-E", "-M", "--dryrun"].contains(w))
        })
        .collect()
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = self.sccache(&["--stop-server"]);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn find_sccache() -> Option<PathBuf> {
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/bin/sccache");
    if project.exists() {
        return Some(project);
    }
    which::which("sccache").ok()
}

#[test]
fn a_second_machine_gets_every_cached_step_from_redis() {
    let Some(real) = real_nvcc() else { return };
    let Some(sccache) = find_sccache() else {
        println!("skipped: no sccache (scripts/install-test-tools.sh installs it)");
        return;
    };
    let Ok(redis_server) = which::which("redis-server") else {
        println!("skipped: no redis-server on PATH (scripts/install-test-tools.sh installs it)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let redis_port = free_port();
    let _redis = Stop(
        Command::new(redis_server)
            .args(["--port", &redis_port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(tmp.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", redis_port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let redis = format!("redis://127.0.0.1:{redis_port}");
    let file = tmp.path().join("shared.cu");
    std::fs::write(&file, SOURCE).unwrap();
    let counting = CountingNvcc::new(&real);
    let machine = |name: &str| Machine {
        sccache: sccache.clone(),
        nvcc: counting.path.clone(),
        port: free_port(),
        dir: tmp.path().join(name),
        redis: redis.clone(),
    };

    let a = machine("a");
    let cold = a.build(&file);
    let (a_hits, a_misses) = a.hits_and_misses();
    assert!(
        a_misses >= 4,
        "machine A compiled every step (hits {a_hits}, misses {a_misses})"
    );
    let a_runs = counting.runs();
    assert!(
        a_runs.iter().any(|l| l.contains("--dryrun")),
        "sccache split A's compilation into its steps: {a_runs:#?}"
    );

    let b = machine("b");
    let warm = b.build(&file);
    let (b_hits, b_misses) = b.hits_and_misses();
    assert_eq!(
        b_misses, 0,
        "machine B compiled something itself (hits {b_hits})"
    );
    assert!(b_hits >= 4, "machine B read from Redis (hits {b_hits})");
    let b_runs = counting.runs().split_off(a_runs.len());
    assert!(!b_runs.is_empty(), "B's build ran the counting nvcc");
    assert_eq!(
        compilations(&b_runs),
        Vec::<&String>::new(),
        "machine B's nvcc compiled"
    );
    assert!(a.fatbin() == b.fatbin(), "B's fatbin is A's");
    println!(
        "machine A (cold): {cold:.2} s, {a_misses} sccache misses; machine B: {warm:.2} s, \
         {b_hits} hits from Redis, 0 misses, {} nvcc runs, none compiling",
        b_runs.len()
    );
}
