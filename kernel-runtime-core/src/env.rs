//! The environment variables the runtime reads, read in one place.
//!
//! | variable | effect |
//! |---|---|
//! | `KERNEL_NCCL_LIBRARY` | the NCCL library (`libnccl.so.2`) collectives use, instead of the one the system's loader finds (the `nccl` feature) |
//! | `KERNEL_RENDEZVOUS_PORT` | the port rank 0 of a job serves the NCCL id on (`Job::from_env`; default `MASTER_PORT` + 1) |
//! | `KERNEL_RENDEZVOUS_TIMEOUT` | how many seconds the ranks of a job wait for each other (`Job::from_env`; default 300) |
//! | `KERNEL_NCCL_INIT_TIMEOUT` | how many seconds NCCL's initialisation of a job's communicator waits for the ranks, made non-blocking (`Job::from_env`; default: NCCL's blocking initialisation, unbounded) |
//! | `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT` | torchrun's: this process's rank, the number of ranks, its rank on its host, rank 0's host and port (`Job::from_env`; `MASTER_ADDR` and `MASTER_PORT` serve the other launchers too) |
//! | `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_SIZE`, `OMPI_COMM_WORLD_LOCAL_RANK`, `OMPI_COMM_WORLD_LOCAL_SIZE` | Open MPI's `mpirun`: the same (`Job::from_env`) |
//! | `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`, `SLURM_STEP_NODELIST`, `SLURM_JOB_NODELIST`, `SLURM_NODELIST` | Slurm's `srun`: the same, and the hosts, whose first is rank 0's when `MASTER_ADDR` is not set (`Job::from_env`) |
//! | `KERNEL_NVRTC_LIBRARY` | the NVRTC library (`libnvrtc.so.13`) to use when the system's loader finds none |
//! | `KERNEL_RUNTIME_CACHE_DIR` | where run-time compilations are cached (default `$XDG_CACHE_HOME/kernel-runtime`, else `~/.cache/kernel-runtime`) |
//! | `KERNEL_RUNTIME_NO_CACHE` | `1`: compile at run time without the disk cache |
//! | `KERNEL_TUNE_CACHE_DIR` | where tuned choices are cached (`tune::Tuner`; default `tune/` in the run-time compilation cache's folder) |
//! | `KERNEL_TUNE_RETUNE` | `1`: tuners time their variants again, ignoring the embedded table and the cache (and write the new choices to the cache) |
//! | `KERNEL_TUNE_PIN` | `kernel=variant[,kernel=variant...]`: the tuner of each kernel named launches that variant and times nothing |
//! | `XDG_CACHE_HOME`, `HOME` | the default cache location, and the per-user wheels of `cuda-kernel-inspect toolkit install` |

use std::ffi::OsString;

/// The value of `name`, if set and not empty.
#[allow(
    clippy::disallowed_methods,
    reason = "the runtime's documented variables are read here, and only here"
)]
pub(crate) fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Whether `name` is set to a true value (`1`, `true`, `yes`, `on`).
pub(crate) fn flag(name: &str) -> bool {
    var_os(name).is_some_and(|v| {
        matches!(
            v.to_string_lossy().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}
