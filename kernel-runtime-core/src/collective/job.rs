//! [`Job`]: where this process stands in a job a launcher started (torchrun, Slurm's `srun`,
//! Open MPI's `mpirun`), read from the variables the launcher sets; and the exchange of the
//! NCCL id over TCP that joins the job's ranks (rank 0 serves it, every other rank fetches it),
//! so that [`Communicator::from_env`] needs nothing passed around by the program.
//!
//! The exchange speaks a small protocol of its own over `std::net`: a rank connects to rank 0's
//! address (retrying until the job's timeout), sends a greeting with its rank and the job's size,
//! and reads the 128 bytes of the id back. Rank 0 answers every rank once (a rank that
//! connects again is answered again) and returns when all have been answered, or fails at the
//! timeout naming the ranks that never came.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::collective::communicator::Communicator;
use crate::collective::id::UniqueId;
use crate::device::gpu::Gpu;
use crate::env;
use crate::error::Error;

/// What a rank sends first, and rank 0 answers with before the id.
const GREETING: &[u8; 8] = b"KRNLID01";

/// How long the ranks wait for each other when `KERNEL_RENDEZVOUS_TIMEOUT` is not set.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// This process's place in a job of several processes (on one host or several): its rank,
/// the number of ranks, its rank among the processes of its host (which picks its GPU), and
/// where rank 0 serves the NCCL id.
///
/// [`Job::from_env`] reads what the launcher set (see there); [`Job::new`] takes the same
/// from the program. [`Communicator::for_job`] (or [`Communicator::from_env`], which does all
/// of it) then joins the ranks.
///
/// ```no_run
/// use cuda_kernel_runtime::{Communicator, Job};
/// let job = Job::from_env()?; // under torchrun, srun or mpirun
/// let gpu = job.gpu()?;
/// let comm = Communicator::for_job(&job, &gpu)?;
/// println!("rank {} of {} on device {}", comm.rank(), comm.ranks(), gpu.ordinal());
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    rank: usize,
    ranks: usize,
    local_rank: usize,
    host: String,
    port: u16,
    timeout: Duration,
    /// How long NCCL's initialisation may wait for the ranks: `None` for NCCL's blocking one.
    nccl_timeout: Option<Duration>,
    launcher: &'static str,
}

impl Job {
    /// Rank `rank` of `ranks`, the `local_rank`-th process of its host, with rank 0 serving the
    /// id at `host:port`; the ranks wait for each other 300 s at most
    /// ([`with_timeout`](Job::with_timeout) changes it).
    ///
    /// ```
    /// use cuda_kernel_runtime::Job;
    /// let job = Job::new(1, 4, 1, "127.0.0.1", 29501)?;
    /// assert_eq!((job.rank(), job.ranks(), job.local_rank()), (1, 4, 1));
    /// assert_eq!(job.address(), ("127.0.0.1", 29501));
    /// assert!(Job::new(4, 4, 0, "127.0.0.1", 29501).is_err());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rendezvous`] when `rank` is not below `ranks` or `ranks` is above `i32::MAX`.
    pub fn new(
        rank: usize,
        ranks: usize,
        local_rank: usize,
        host: impl Into<String>,
        port: u16,
    ) -> Result<Job, Error> {
        if rank >= ranks || i32::try_from(ranks).is_err() {
            return Err(rendezvous(format!(
                "rank {rank} of a job of {ranks} rank(s)"
            )));
        }
        Ok(Job {
            rank,
            ranks,
            local_rank,
            host: host.into(),
            port,
            timeout: DEFAULT_TIMEOUT,
            nccl_timeout: None,
            launcher: "the program",
        })
    }

    /// The job the launcher that started this process describes in its variables:
    ///
    /// | launcher | rank | ranks | local rank | rank 0's host |
    /// |---|---|---|---|---|
    /// | torchrun | `RANK` | `WORLD_SIZE` | `LOCAL_RANK` | `MASTER_ADDR` |
    /// | Open MPI's `mpirun` | `OMPI_COMM_WORLD_RANK` | `OMPI_COMM_WORLD_SIZE` | `OMPI_COMM_WORLD_LOCAL_RANK` | `MASTER_ADDR`, else `127.0.0.1` when every rank is on this host (`OMPI_COMM_WORLD_LOCAL_SIZE`) |
    /// | Slurm's `srun` | `SLURM_PROCID` | `SLURM_NTASKS` | `SLURM_LOCALID` | `MASTER_ADDR`, else the first host of `SLURM_STEP_NODELIST` (or `SLURM_JOB_NODELIST`, `SLURM_NODELIST`) |
    ///
    /// tried in this order (torchrun's when `RANK` or `WORLD_SIZE` is set, Open MPI's before
    /// Slurm's since `mpirun` inside a Slurm allocation leaves the allocation's `SLURM_PROCID`).
    /// Rank 0 serves the id on port `KERNEL_RENDEZVOUS_PORT`, else `MASTER_PORT` + 1: torchrun's
    /// own store already listens on `MASTER_PORT` itself. The ranks wait for each other
    /// `KERNEL_RENDEZVOUS_TIMEOUT` seconds (default 300), and NCCL's initialisation waits
    /// `KERNEL_NCCL_INIT_TIMEOUT` seconds at most when that is set
    /// ([`with_nccl_timeout`](Job::with_nccl_timeout)).
    ///
    /// ```no_run
    /// // torchrun --nproc-per-node=4 ./train
    /// let job = cuda_kernel_runtime::Job::from_env()?;
    /// assert!(job.rank() < job.ranks());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rendezvous`] naming the missing variable, or the one whose value is not a
    /// number (or not a port).
    pub fn from_env() -> Result<Job, Error> {
        Job::from_vars(|name| env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
    }

    /// [`from_env`](Job::from_env) with the variables `lookup` gives (a name to its value, or
    /// `None` when unset): for a program that keeps them elsewhere, and for tests.
    ///
    /// ```
    /// use cuda_kernel_runtime::{Error, Job};
    /// let vars = [("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "1"),
    ///             ("MASTER_ADDR", "10.0.0.1"), ("MASTER_PORT", "29500")];
    /// let get = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string());
    /// let job = Job::from_vars(get)?;
    /// assert_eq!((job.rank(), job.launcher()), (1, "torchrun"));
    /// assert_eq!(job.address(), ("10.0.0.1", 29501));
    /// let e = Job::from_vars(|name| (name != "MASTER_ADDR").then(|| get(name)).flatten());
    /// assert!(e.unwrap_err().to_string().contains("MASTER_ADDR"));
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_env`](Job::from_env).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Result<Job, Error> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let (launcher, rank, ranks, local) = if get("RANK").is_some() || get("WORLD_SIZE").is_some()
        {
            ("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK")
        } else if get("OMPI_COMM_WORLD_RANK").is_some() {
            (
                "Open MPI",
                "OMPI_COMM_WORLD_RANK",
                "OMPI_COMM_WORLD_SIZE",
                "OMPI_COMM_WORLD_LOCAL_RANK",
            )
        } else if get("SLURM_PROCID").is_some() {
            ("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID")
        } else {
            return Err(rendezvous(
                "no launcher's variables are set (torchrun's RANK and WORLD_SIZE, Open MPI's \
                 OMPI_COMM_WORLD_RANK, Slurm's SLURM_PROCID): start the program with torchrun, \
                 mpirun or srun, or set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and \
                 MASTER_PORT"
                    .to_owned(),
            ));
        };
        let number = |name: &str| -> Result<usize, Error> {
            let value = get(name).ok_or_else(|| {
                rendezvous(format!(
                    "{name} is not set ({launcher}'s variables are, but not this one)"
                ))
            })?;
            value
                .trim()
                .parse()
                .map_err(|_| rendezvous(format!("{name} is `{value}`, not a number")))
        };
        let (rank, ranks, local_rank) = (number(rank)?, number(ranks)?, number(local)?);
        let host = match get("MASTER_ADDR") {
            Some(host) => host.trim().to_owned(),
            None => match launcher {
                "Open MPI" if number("OMPI_COMM_WORLD_LOCAL_SIZE").ok() == Some(ranks) => {
                    "127.0.0.1".to_owned()
                }
                "Slurm" => [
                    "SLURM_STEP_NODELIST",
                    "SLURM_JOB_NODELIST",
                    "SLURM_NODELIST",
                ]
                .iter()
                .find_map(|v| get(v))
                .and_then(|list| first_host(&list))
                .ok_or_else(|| {
                    rendezvous(
                        "MASTER_ADDR is not set, and no SLURM_STEP_NODELIST, \
                             SLURM_JOB_NODELIST or SLURM_NODELIST names rank 0's host"
                            .to_owned(),
                    )
                })?,
                _ => {
                    return Err(rendezvous(format!(
                        "MASTER_ADDR is not set: {launcher} does not say where rank 0 runs; \
                         set it to rank 0's host"
                    )));
                }
            },
        };
        let port = |name: &str, value: &str| -> Result<u16, Error> {
            value
                .trim()
                .parse()
                .map_err(|_| rendezvous(format!("{name} is `{value}`, not a port number")))
        };
        let port = match get("KERNEL_RENDEZVOUS_PORT") {
            Some(v) => port("KERNEL_RENDEZVOUS_PORT", &v)?,
            None => {
                let master = get("MASTER_PORT").ok_or_else(|| {
                    rendezvous(
                        "MASTER_PORT is not set (rank 0 serves the NCCL id on MASTER_PORT + 1, \
                         or on KERNEL_RENDEZVOUS_PORT)"
                            .to_owned(),
                    )
                })?;
                port("MASTER_PORT", &master)?
                    .checked_add(1)
                    .ok_or_else(|| {
                        rendezvous(
                            "MASTER_PORT is 65535: there is no port after it for the NCCL id; set \
                         KERNEL_RENDEZVOUS_PORT"
                                .to_owned(),
                        )
                    })?
            }
        };
        let seconds = |name: &str| -> Result<Option<Duration>, Error> {
            get(name)
                .map(|v| {
                    v.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
                        .map(Duration::from_secs_f64)
                        .ok_or_else(|| {
                            rendezvous(format!("{name} is `{v}`, not a number of seconds"))
                        })
                })
                .transpose()
        };
        let timeout = seconds("KERNEL_RENDEZVOUS_TIMEOUT")?.unwrap_or(DEFAULT_TIMEOUT);
        let nccl_timeout = seconds("KERNEL_NCCL_INIT_TIMEOUT")?;
        let mut job = Job::new(rank, ranks, local_rank, host, port).map_err(|_| {
            rendezvous(format!(
                "{rank} (the rank) is not below {ranks} (the ranks)"
            ))
        })?;
        job.timeout = timeout;
        job.nccl_timeout = nccl_timeout;
        job.launcher = launcher;
        Ok(job)
    }

    /// The same job, with the ranks waiting `timeout` for each other.
    ///
    /// ```
    /// use std::time::Duration;
    /// let job = cuda_kernel_runtime::Job::new(0, 2, 0, "127.0.0.1", 29501)?
    ///     .with_timeout(Duration::from_secs(30));
    /// assert_eq!(job.timeout(), Duration::from_secs(30));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> Job {
        self.timeout = timeout;
        self
    }

    /// The same job, with NCCL's initialisation too waiting `timeout` at most for the ranks
    /// ([`Communicator::for_rank_timeout`]): a rank that dies between fetching the id and
    /// joining NCCL then ends the others' [`Communicator::for_job`] with an error instead of
    /// leaving them waiting. Off by default (NCCL's blocking initialisation), because the
    /// communicator then stays non-blocking, whose every group costs a thread start in NCCL;
    /// `KERNEL_NCCL_INIT_TIMEOUT` (seconds) turns it on for [`Job::from_env`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let job = cuda_kernel_runtime::Job::new(0, 2, 0, "127.0.0.1", 29501)?
    ///     .with_nccl_timeout(Duration::from_secs(120));
    /// assert_eq!(job.nccl_timeout(), Some(Duration::from_secs(120)));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn with_nccl_timeout(mut self, timeout: Duration) -> Job {
        self.nccl_timeout = Some(timeout);
        self
    }

    /// How long NCCL's initialisation waits for the ranks, when bounded
    /// ([`with_nccl_timeout`](Job::with_nccl_timeout)).
    ///
    /// ```
    /// let job = cuda_kernel_runtime::Job::new(0, 2, 0, "h", 1)?;
    /// assert_eq!(job.nccl_timeout(), None);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn nccl_timeout(&self) -> Option<Duration> {
        self.nccl_timeout
    }

    /// This process's rank, from 0.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Job::new(2, 4, 0, "h", 1)?.rank(), 2);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// How many ranks the job has.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Job::new(2, 4, 0, "h", 1)?.ranks(), 4);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// This process's rank among the job's processes on its host: the device it uses.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Job::new(6, 8, 2, "h", 1)?.local_rank(), 2);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// Where rank 0 serves the NCCL id: its host and port.
    ///
    /// ```
    /// let job = cuda_kernel_runtime::Job::new(0, 2, 0, "node01", 29501)?;
    /// assert_eq!(job.address(), ("node01", 29501));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn address(&self) -> (&str, u16) {
        (&self.host, self.port)
    }

    /// How long the ranks wait for each other.
    ///
    /// ```
    /// let job = cuda_kernel_runtime::Job::new(0, 2, 0, "h", 1)?;
    /// assert_eq!(job.timeout().as_secs(), 300);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whose variables described the job: `"torchrun"`, `"Open MPI"`, `"Slurm"`, or `"the
    /// program"` for [`Job::new`].
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::Job::new(0, 1, 0, "h", 1)?.launcher(), "the program");
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn launcher(&self) -> &'static str {
        self.launcher
    }

    /// The device of this rank: device [`local_rank`](Job::local_rank), or device 0 when the
    /// process sees one device only (a launcher that gives each process its own GPU through
    /// `CUDA_VISIBLE_DEVICES`).
    ///
    /// ```no_run
    /// let gpu = cuda_kernel_runtime::Job::from_env()?.gpu()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Gpu::new`]: [`Error::NoDevice`] when the host has fewer devices than local ranks.
    pub fn gpu(&self) -> Result<Gpu, Error> {
        let ordinal = if Gpu::count()? == 1 {
            0
        } else {
            self.local_rank
        };
        Gpu::new(ordinal)
    }

    /// The id every rank passes to NCCL: rank 0 makes it with `make` and serves it to every
    /// other rank over TCP at [`address`](Job::address), returning once each has it; the
    /// others fetch it from there, retrying until rank 0 listens. [`Communicator::for_job`]
    /// calls it with [`UniqueId::new`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use cuda_kernel_runtime::{Job, UniqueId};
    /// let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    /// let ranks: Vec<_> = (0..3)
    ///     .map(|r| {
    ///         std::thread::spawn(move || {
    ///             let job = Job::new(r, 3, r, "127.0.0.1", port)?.with_timeout(Duration::from_secs(20));
    ///             job.exchange_id(|| Ok(UniqueId::from_bytes(&[r as u8 + 5; 128]).unwrap()))
    ///         })
    ///     })
    ///     .collect();
    /// for rank in ranks {
    ///     assert_eq!(rank.join().unwrap()?.to_bytes(), [5; 128]); // rank 0's
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Rendezvous`]: on rank 0, when the port cannot be listened on or some ranks did
    /// not come within the timeout (naming them); elsewhere, when rank 0 could not be reached
    /// within it (naming the address) or answered something else; `make`'s error.
    pub fn exchange_id(
        &self,
        make: impl FnOnce() -> Result<UniqueId, Error>,
    ) -> Result<UniqueId, Error> {
        if self.ranks == 1 {
            return make();
        }
        if self.rank == 0 {
            // Listening first: the others retry until this port answers.
            let listener = self.listen()?;
            let id = make()?;
            self.serve(&listener, &id)?;
            Ok(id)
        } else {
            self.fetch()
        }
    }

    /// Rank 0's listener, on every interface at the job's port.
    fn listen(&self) -> Result<TcpListener, Error> {
        let listener = TcpListener::bind(("0.0.0.0", self.port)).map_err(|e| {
            rendezvous(format!(
                "rank 0 cannot listen on port {} for the other ranks: {e} (another program \
                 holds it? set KERNEL_RENDEZVOUS_PORT, or MASTER_PORT, to a free port)",
                self.port
            ))
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|e| rendezvous(format!("listening on port {}: {e}", self.port)))?;
        Ok(listener)
    }

    /// Answers every other rank once with `id`, until the timeout.
    fn serve(&self, listener: &TcpListener, id: &UniqueId) -> Result<(), Error> {
        let deadline = Instant::now() + self.timeout;
        let mut answered = vec![false; self.ranks];
        answered[0] = true;
        let mut last_problem = String::new();
        while answered.iter().any(|a| !a) {
            match listener.accept() {
                Ok((stream, from)) => match self.answer(stream, id) {
                    Ok(rank) => answered[rank] = true,
                    // A stray connection (a port scanner, a rank of another job) is ignored.
                    Err(e) => last_problem = format!("; a connection from {from}: {e}"),
                },
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        let missing: Vec<String> = (0..self.ranks)
                            .filter(|&r| !answered[r])
                            .map(|r| r.to_string())
                            .collect();
                        return Err(rendezvous(format!(
                            "rank 0 waited {:?} on port {} but rank(s) {} of {} never came \
                             for the NCCL id{last_problem}",
                            self.timeout,
                            self.port,
                            missing.join(", "),
                            self.ranks
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => last_problem = format!("; accepting: {e}"),
            }
        }
        Ok(())
    }

    /// Reads one rank's greeting and sends it `id`; the rank.
    fn answer(&self, mut stream: TcpStream, id: &UniqueId) -> std::io::Result<usize> {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.set_write_timeout(Some(Duration::from_secs(10)))?;
        let mut hello = [0u8; 24];
        stream.read_exact(&mut hello)?;
        let (rank, ranks) = greeting_fields(&hello)
            .ok_or_else(|| invalid("not a rank of a job asking for the NCCL id"))?;
        if ranks != self.ranks as u64 || rank == 0 || rank >= ranks {
            return Err(invalid(&format!(
                "rank {rank} of a job of {ranks}, but this job has {} ranks",
                self.ranks
            )));
        }
        let mut reply = Vec::with_capacity(GREETING.len() + UniqueId::BYTES);
        reply.extend_from_slice(GREETING);
        reply.extend_from_slice(&id.to_bytes());
        stream.write_all(&reply)?;
        Ok(rank as usize)
    }

    /// Fetches the id from rank 0, retrying until the timeout.
    fn fetch(&self) -> Result<UniqueId, Error> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let last = match self.fetch_once() {
                Ok(id) => return Ok(id),
                Err(e) => e,
            };
            if Instant::now() >= deadline {
                return Err(rendezvous(format!(
                    "rank {} could not get the NCCL id from rank 0 at {}:{} within {:?} (is \
                     rank 0 running, and is MASTER_ADDR its address?): {last}",
                    self.rank, self.host, self.port, self.timeout
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// One attempt at fetching the id.
    fn fetch_once(&self) -> std::io::Result<UniqueId> {
        let addresses: Vec<_> = (self.host.as_str(), self.port).to_socket_addrs()?.collect();
        let mut failed = None;
        for address in addresses {
            match TcpStream::connect_timeout(&address, Duration::from_secs(2)) {
                Ok(mut stream) => {
                    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
                    let mut hello = Vec::with_capacity(24);
                    hello.extend_from_slice(GREETING);
                    hello.extend_from_slice(&(self.rank as u64).to_le_bytes());
                    hello.extend_from_slice(&(self.ranks as u64).to_le_bytes());
                    stream.write_all(&hello)?;
                    let mut reply = [0u8; GREETING.len() + UniqueId::BYTES];
                    stream.read_exact(&mut reply)?;
                    if &reply[..GREETING.len()] != GREETING {
                        return Err(invalid("the answer is not an NCCL id"));
                    }
                    return UniqueId::from_bytes(&reply[GREETING.len()..])
                        .ok_or_else(|| invalid("the answer is not an NCCL id"));
                }
                Err(e) => failed = Some(e),
            }
        }
        Err(failed.unwrap_or_else(|| invalid("the host has no address")))
    }
}

impl Communicator {
    /// This process's rank of the communicator of every rank of `job`, on `gpu`'s device and
    /// stream: rank 0 makes the id and serves it over TCP, the others fetch it
    /// ([`Job::exchange_id`]), and every rank then joins ([`for_rank`](Communicator::for_rank),
    /// or [`for_rank_timeout`](Communicator::for_rank_timeout) with the job's
    /// [`nccl_timeout`](Job::nccl_timeout) when it has one). Every rank has reached rank 0
    /// before any of them joins, so a rank that never started ends in the exchange's timeout,
    /// not in NCCL.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Job};
    /// let job = Job::new(0, 2, 0, "127.0.0.1", 29501)?;
    /// let gpu = job.gpu()?;
    /// let comm = Communicator::for_job(&job, &gpu)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Job::exchange_id`] and [`for_rank`](Communicator::for_rank).
    pub fn for_job(job: &Job, gpu: &Gpu) -> Result<Communicator, Error> {
        let id = job.exchange_id(UniqueId::new)?;
        match job.nccl_timeout {
            Some(timeout) => {
                Communicator::for_rank_timeout(gpu, &id, job.rank(), job.ranks(), timeout)
            }
            None => Communicator::for_rank(gpu, &id, job.rank(), job.ranks()),
        }
    }

    /// This process's rank of a job started by torchrun, Slurm's `srun` or Open MPI's
    /// `mpirun`: [`Job::from_env`], the GPU of its local rank ([`Job::gpu`]), and
    /// [`for_job`](Communicator::for_job).
    ///
    /// ```no_run
    /// // torchrun --no-python --nproc-per-node=4 ./train
    /// use cuda_kernel_runtime::{Communicator, ReduceOp};
    /// let comm = Communicator::from_env()?;
    /// let mut grads = comm.gpu().upload(&[1.0f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Sum)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Job::from_env`], [`Job::gpu`] and [`for_job`](Communicator::for_job).
    pub fn from_env() -> Result<Communicator, Error> {
        let job = Job::from_env()?;
        let gpu = job.gpu()?;
        Communicator::for_job(&job, &gpu)
    }
}

/// The rank and ranks of a greeting, if it is one.
fn greeting_fields(hello: &[u8; 24]) -> Option<(u64, u64)> {
    let (magic, rest) = hello.split_at(GREETING.len());
    let (rank, ranks) = rest.split_at(8);
    (magic == GREETING).then(|| {
        (
            u64::from_le_bytes(rank.try_into().unwrap_or_default()),
            u64::from_le_bytes(ranks.try_into().unwrap_or_default()),
        )
    })
}

/// The first host of a Slurm host list: `node[01-04,07],gpu1` gives `node01`.
fn first_host(list: &str) -> Option<String> {
    let mut host = String::new();
    let mut in_bracket = false;
    let mut skipping = false;
    for c in list.trim().chars() {
        match c {
            ',' if !in_bracket => break,
            '[' => {
                in_bracket = true;
                skipping = false;
            }
            ']' => in_bracket = false,
            ',' | '-' if in_bracket => skipping = true,
            _ if in_bracket && skipping => {}
            _ => host.push(c),
        }
    }
    (!host.is_empty()).then_some(host)
}

fn rendezvous(problem: String) -> Error {
    Error::Rendezvous { problem }
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn slurm_host_lists_give_their_first_host() {
        assert_eq!(first_host("node[01-04,07],gpu1").as_deref(), Some("node01"));
        assert_eq!(first_host("gpu-a,gpu-b").as_deref(), Some("gpu-a"));
        assert_eq!(first_host("n7").as_deref(), Some("n7"));
        assert_eq!(
            first_host("rack[2,4]-n[10-11]").as_deref(),
            Some("rack2-n10")
        );
        assert_eq!(first_host(""), None);
    }

    #[test]
    fn each_launcher_is_read_from_its_variables() {
        let torch = [
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "3"),
            ("MASTER_ADDR", "node01"),
            ("MASTER_PORT", "29500"),
            // A Slurm allocation around torchrun does not change torchrun's answer.
            ("SLURM_PROCID", "0"),
        ];
        let job = Job::from_vars(vars(&torch)).unwrap();
        assert_eq!(
            (job.rank, job.ranks, job.local_rank, job.launcher),
            (3, 8, 3, "torchrun")
        );
        assert_eq!((job.host.as_str(), job.port), ("node01", 29501));

        let mpi = [
            ("OMPI_COMM_WORLD_RANK", "1"),
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "4"),
            ("MASTER_PORT", "6000"),
            ("SLURM_PROCID", "0"),
        ];
        let job = Job::from_vars(vars(&mpi)).unwrap();
        assert_eq!((job.rank, job.ranks, job.launcher), (1, 4, "Open MPI"));
        assert_eq!((job.host.as_str(), job.port), ("127.0.0.1", 6001));

        let slurm = [
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "8"),
            ("SLURM_LOCALID", "1"),
            ("SLURM_STEP_NODELIST", "gpu[003-006]"),
            ("MASTER_PORT", "7000"),
            ("KERNEL_RENDEZVOUS_PORT", "7100"),
            ("KERNEL_RENDEZVOUS_TIMEOUT", "2.5"),
        ];
        let job = Job::from_vars(vars(&slurm)).unwrap();
        assert_eq!((job.rank, job.ranks, job.local_rank), (5, 8, 1));
        assert_eq!((job.host.as_str(), job.port), ("gpu003", 7100));
        assert_eq!(job.timeout, Duration::from_millis(2500));
        assert_eq!(job.nccl_timeout, None);

        let bounded = [
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "29500"),
            ("KERNEL_NCCL_INIT_TIMEOUT", "90"),
        ];
        let job = Job::from_vars(vars(&bounded)).unwrap();
        assert_eq!(job.nccl_timeout, Some(Duration::from_secs(90)));
        assert_eq!(job.timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn a_missing_or_bad_variable_is_named() {
        let message = |pairs: &[(&str, &str)]| Job::from_vars(vars(pairs)).unwrap_err().to_string();
        assert!(message(&[]).contains("torchrun"));
        let e = message(&[("RANK", "0"), ("WORLD_SIZE", "2"), ("MASTER_ADDR", "h")]);
        assert!(e.contains("LOCAL_RANK is not set"), "{e}");
        let e = message(&[("RANK", "x"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "0")]);
        assert!(e.contains("RANK is `x`"), "{e}");
        let e = message(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_PORT", "1"),
        ]);
        assert!(e.contains("MASTER_ADDR is not set"), "{e}");
        let e = message(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
        ]);
        assert!(e.contains("MASTER_PORT is not set"), "{e}");
        let e = message(&[
            ("RANK", "2"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "29500"),
        ]);
        assert!(e.contains("not below"), "{e}");
        let e = message(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "65535"),
        ]);
        assert!(e.contains("KERNEL_RENDEZVOUS_PORT"), "{e}");
        let e = message(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_LOCALID", "0"),
        ]);
        assert!(e.contains("SLURM_STEP_NODELIST"), "{e}");
        let e = message(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "99999"),
        ]);
        assert!(e.contains("MASTER_PORT is `99999`"), "{e}");
        let e = message(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "0"),
            ("MASTER_ADDR", "h"),
            ("MASTER_PORT", "29500"),
            ("KERNEL_NCCL_INIT_TIMEOUT", "soon"),
        ]);
        assert!(e.contains("KERNEL_NCCL_INIT_TIMEOUT is `soon`"), "{e}");
    }

    #[test]
    fn greetings_are_read_back() {
        let mut hello = [0u8; 24];
        hello[..8].copy_from_slice(GREETING);
        hello[8..16].copy_from_slice(&3u64.to_le_bytes());
        hello[16..].copy_from_slice(&4u64.to_le_bytes());
        assert_eq!(greeting_fields(&hello), Some((3, 4)));
        hello[0] = b'X';
        assert_eq!(greeting_fields(&hello), None);
    }
}
