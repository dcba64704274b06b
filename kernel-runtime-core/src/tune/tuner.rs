//! The tuner: settles a key once (pin, embedded table, disk cache, or timing), remembers the
//! choice per GPU model, and launches it at the cost of a lookup afterwards.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use cuda_kernel_objects::tuning::Choice;

use super::cache::{self, CacheChoice};
use super::measure::{Outcome, Plan, fastest, measure};
use super::model::GpuModel;
use super::outputs::Outputs;
use super::policy::Policy;
use super::table::Table;
use super::variant::Variant;
use crate::code::module::spec::ModuleSpec;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// Chooses, per problem key and GPU model, the fastest of a kernel's variants, and launches
/// it.
///
/// The first call for a key on a GPU model settles it, in this order:
///
/// 1. `KERNEL_TUNE_PIN=kernel=variant` names the variant: nothing is timed;
/// 2. a [`Table`] given with [`use_table`](Tuner::use_table), or the one given at
///    construction, has a row for the kernel, GPU model, module and key;
/// 3. the disk cache has one (the same, under the same driver);
/// 4. otherwise every variant is timed on the call's stream (warm-up, then rounds visiting
///    each variant in turn, each sample a batch of launches between two events; the median
///    sample wins), the fastest is written to the cache, and [`tunings`](Tuner::tunings) counts
///    one. `KERNEL_TUNE_RETUNE=1` skips 2 and 3.
///
/// Later calls for that key launch the choice after one lookup under a read lock (26 to 33
/// ns on a shared 2-core machine, a bare `HashMap::get` 13 ns there; `cargo bench -p
/// cuda-kernel-runtime --bench tune_lookup`). A variant that fails
/// while timed is left out with a note ([`notes`](Tuner::notes)); the call fails only when
/// every variant does. Choices are keyed by the key's value and recorded under its `Display`
/// text, so two keys must not print alike.
///
/// Make one per tuned kernel, in a `static` (everything but the cache folder is `const`):
///
/// ```no_run
/// use cuda_kernel_runtime::{Gpu, TrackedBuffer};
/// use cuda_kernel_runtime::tune::{Idempotent, Tuner, Variant, variant};
///
/// static FILL: Tuner<usize> = Tuner::new("fill").warmup(2).rounds(10);
///
/// let gpu = Gpu::new(0)?;
/// let mut y = gpu.zeros::<u8>(1 << 20)?;
/// // Closures differ in type: a set of them is a slice of `&dyn Variant` (or of boxes).
/// let variants: [&dyn Variant<TrackedBuffer<u8>>; 2] = [
///     &variant("memset", |gpu: &Gpu, y: &mut TrackedBuffer<u8>| gpu.memset(y, 1)),
///     &variant("upload", |gpu: &Gpu, y: &mut TrackedBuffer<u8>| {
///         let n = y.len();
///         y.upload_from(gpu, &vec![1u8; n])
///     }),
/// ];
/// let n = y.len();
/// FILL.launch(&gpu, &n, &variants, &mut y, Idempotent)?; // times both, launches the faster
/// FILL.launch(&gpu, &n, &variants, &mut y, Idempotent)?; // a lookup, then the launch
/// assert_eq!(FILL.tunings(), 1);
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct Tuner<K> {
    kernel: &'static str,
    module: Module,
    table: Option<&'static Table>,
    /// A table given when the program runs (`use_table`), consulted before `table`.
    given: Mutex<Option<&'static Table>>,
    cache: CacheChoice,
    plan: Plan,
    module_hash: OnceLock<String>,
    known: RwLock<Vec<Known<K>>>,
    /// Held while a key is settled, so that two threads do not time one kernel at once.
    settling: Mutex<()>,
    tunings: AtomicU64,
    notes: Mutex<Vec<String>>,
}

/// What the variants come from.
#[derive(Clone, Copy, Debug)]
enum Module {
    None,
    Spec(&'static ModuleSpec),
    Hash(&'static str),
}

/// The choices made on one GPU model.
#[derive(Debug)]
struct Known<K> {
    gpu: String,
    compute_capability: (u32, u32),
    by_key: HashMap<K, Settled>,
}

/// One settled key.
#[derive(Debug)]
struct Settled {
    index: usize,
    row: Choice,
    pinned: bool,
}

impl<K> Tuner<K> {
    /// A tuner for the kernel `kernel` (the name its choices, pins and table rows go by),
    /// with the default timing (3 warm-up launches, 15 rounds), the default cache folder and
    /// no embedded table.
    ///
    /// ```
    /// static SUM: cuda_kernel_runtime::tune::Tuner<u32> = cuda_kernel_runtime::tune::Tuner::new("sum");
    /// assert_eq!(SUM.kernel(), "sum");
    /// ```
    pub const fn new(kernel: &'static str) -> Tuner<K> {
        Tuner {
            kernel,
            module: Module::None,
            table: None,
            given: Mutex::new(None),
            cache: CacheChoice::Default,
            plan: Plan::DEFAULT,
            module_hash: OnceLock::new(),
            known: RwLock::new(Vec::new()),
            settling: Mutex::new(()),
            tunings: AtomicU64::new(0),
            notes: Mutex::new(Vec::new()),
        }
    }

    /// The variants come from this module: choices are recorded under its
    /// [`content_hash`](ModuleSpec::content_hash), so a rebuild with other machine code is timed
    /// again (the hash is computed at the first call that settles a key).
    ///
    /// ```
    /// use cuda_kernel_runtime::{spec::ModuleSpec, tune::Tuner};
    /// static M: ModuleSpec = ModuleSpec { name: "m", image: None, archs: &[], toolkit: "13.0",
    ///     kernels: &[], globals: &[], units: &[], source: None, tuned: &[] };
    /// static SUM: Tuner<u32> = Tuner::new("sum").module(&M);
    /// ```
    pub const fn module(mut self, spec: &'static ModuleSpec) -> Self {
        self.module = Module::Spec(spec);
        self
    }

    /// Choices are recorded under this module hash (for variants that come from no
    /// generated module, or a hash computed ahead of time); without a module the hash is
    /// `none`.
    ///
    /// ```
    /// static SUM: cuda_kernel_runtime::tune::Tuner<u32> =
    ///     cuda_kernel_runtime::tune::Tuner::new("sum").module_hash("v2");
    /// ```
    pub const fn module_hash(mut self, hash: &'static str) -> Self {
        self.module = Module::Hash(hash);
        self
    }

    /// Choices embedded in the program, consulted before the cache and before timing.
    ///
    /// ```
    /// use cuda_kernel_runtime::tune::{Table, Tuner};
    /// static TUNED: Table = Table::new("# cuda-kernel tuning table 1\n");
    /// static SUM: Tuner<u32> = Tuner::new("sum").table(&TUNED);
    /// ```
    pub const fn table(mut self, table: &'static Table) -> Self {
        self.table = Some(table);
        self
    }

    /// Consults `table` from now on, before the table given at construction: what a
    /// program does for the `static` tuner a generated `<kernel>_tuned` method uses
    /// (`m::tuners::SUM.use_table(&TUNED)`). Keys already settled keep their choice.
    ///
    /// ```
    /// use cuda_kernel_runtime::tune::{Key, Table, Tuner};
    /// static TUNED: Table = Table::new("# cuda-kernel tuning table 1\n");
    /// static SUM: Tuner<Key> = Tuner::new("sums::block_sum");
    /// SUM.use_table(&TUNED);
    /// ```
    pub fn use_table(&self, table: &'static Table) {
        *self.given.lock().unwrap_or_else(PoisonError::into_inner) = Some(table);
    }

    /// Launches of each variant before any is timed (default 3; at least 1 is made, which
    /// also sizes the batches).
    ///
    /// ```
    /// static SUM: cuda_kernel_runtime::tune::Tuner<u32> =
    ///     cuda_kernel_runtime::tune::Tuner::new("sum").warmup(5);
    /// ```
    pub const fn warmup(mut self, launches: u32) -> Self {
        self.plan.warmup = launches;
        self
    }

    /// Samples of each variant, its time their median (default 15, at least 1).
    ///
    /// ```
    /// static SUM: cuda_kernel_runtime::tune::Tuner<u32> =
    ///     cuda_kernel_runtime::tune::Tuner::new("sum").rounds(31);
    /// ```
    pub const fn rounds(mut self, rounds: u32) -> Self {
        self.plan.rounds = rounds;
        self
    }

    /// Caches choices in `dir` instead of the default folder (`KERNEL_TUNE_CACHE_DIR`, else
    /// `tune/` in the runtime's cache folder).
    ///
    /// ```
    /// let t = cuda_kernel_runtime::tune::Tuner::<u32>::new("sum").cache_dir("/var/cache/app/tune");
    /// ```
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache = CacheChoice::Dir(dir.into());
        self
    }

    /// Keeps choices in this process only.
    ///
    /// ```
    /// let t = cuda_kernel_runtime::tune::Tuner::<u32>::new("sum").no_cache();
    /// ```
    pub fn no_cache(mut self) -> Self {
        self.cache = CacheChoice::Off;
        self
    }

    /// The tuned kernel's name.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::tune::Tuner::<u32>::new("sum").kernel(), "sum");
    /// ```
    pub fn kernel(&self) -> &'static str {
        self.kernel
    }

    /// How many keys this tuner timed in this process: 0 when every key came from a pin,
    /// the embedded table or the cache.
    ///
    /// ```
    /// assert_eq!(cuda_kernel_runtime::tune::Tuner::<u32>::new("sum").tunings(), 0);
    /// ```
    pub fn tunings(&self) -> u64 {
        self.tunings.load(Ordering::Relaxed)
    }

    /// What was left out or ignored, in order: variants that failed while timed (with the
    /// error), a table row or cache entry naming no variant of the set, a cache that could
    /// not be written.
    ///
    /// ```
    /// assert!(cuda_kernel_runtime::tune::Tuner::<u32>::new("sum").notes().is_empty());
    /// ```
    pub fn notes(&self) -> Vec<String> {
        self.notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every choice this process settled by timing, from the table or from the cache (not
    /// the pinned ones), as table rows: what a program writes with [`Table::render`] to make
    /// the table it will embed.
    ///
    /// ```
    /// use cuda_kernel_runtime::tune::{Table, Tuner};
    /// let t = Tuner::<u32>::new("sum");
    /// let text = Table::render(&t.choices());
    /// assert_eq!(text.lines().count(), 2); // the header lines
    /// ```
    pub fn choices(&self) -> Vec<Choice> {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<Choice> = known
            .iter()
            .flat_map(|k| k.by_key.values())
            .filter(|s| !s.pinned)
            .map(|s| s.row.clone())
            .collect();
        out.sort();
        out
    }

    fn module_hash_text(&self) -> &str {
        self.module_hash.get_or_init(|| match self.module {
            Module::None => "none".to_owned(),
            Module::Hash(h) => h.to_owned(),
            Module::Spec(spec) => spec.content_hash(),
        })
    }

    fn error(&self, problem: String) -> Error {
        Error::Tuning {
            kernel: self.kernel.to_owned(),
            problem,
        }
    }

    fn note(&self, note: String) {
        self.notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(note);
    }
}

/// What settling a key may run: a timing run over the variants, between a save and a restore
/// of the call's data.
pub(super) trait Timing {
    /// Before the first timing run: saves what the runs would change.
    fn begin(&mut self) -> Result<(), Error>;
    /// Queues variant `variant` `launches` times; the device time they took together.
    fn time(&mut self, variant: usize, launches: u32) -> Result<Duration, Error>;
    /// After the last timing run: puts back what `begin` saved.
    fn end(&mut self) -> Result<(), Error>;
    /// How the runs are planned, from the tuner's plan (its warm-up and rounds).
    fn plan(&self, tuner: &Plan) -> Plan {
        *tuner
    }
}

/// Timing on a GPU's stream, with events.
struct OnGpu<'c, A: ?Sized, V, O> {
    gpu: &'c Gpu,
    variants: &'c [V],
    args: &'c mut A,
    outputs: O,
}

impl<A: ?Sized, V: Variant<A>, O: Outputs<A>> Timing for OnGpu<'_, A, V, O> {
    fn begin(&mut self) -> Result<(), Error> {
        self.outputs.save(self.gpu, self.args)
    }

    fn time(&mut self, variant: usize, launches: u32) -> Result<Duration, Error> {
        let v = &self.variants[variant];
        let (gpu, args) = (self.gpu, &mut *self.args);
        let ((), took) = gpu.time(|| {
            for _ in 0..launches {
                v.launch(gpu, args)?;
            }
            Ok(())
        })?;
        Ok(took)
    }

    fn end(&mut self) -> Result<(), Error> {
        self.outputs.restore(self.gpu, self.args)
    }
}

/// Timing through the caller's closure.
struct Through<F>(F);

impl<F: FnMut(usize, u32) -> Result<Duration, Error>> Timing for Through<F> {
    fn begin(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn time(&mut self, variant: usize, launches: u32) -> Result<Duration, Error> {
        (self.0)(variant, launches)
    }

    fn end(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

impl<K: Hash + Eq + Clone + Display> Tuner<K> {
    /// Launches the variant chosen for `key` on `gpu`'s model with `args`, settling the key
    /// first if this process has not (see [`Tuner`]); `outputs` says how the call's data is
    /// kept intact while variants are timed on it ([`Idempotent`](super::Idempotent) or
    /// [`Restore`](super::Restore)), and is used only when this call times.
    ///
    /// `variants` must be the same set, in the same order, at every call of one tuner.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Gpu, TrackedBuffer};
    /// use cuda_kernel_runtime::tune::{Restore, Tuner, variant};
    /// static BUMP: Tuner<usize> = Tuner::new("bump");
    /// let gpu = Gpu::new(0)?;
    /// let mut y = gpu.zeros::<u8>(1 << 20)?;
    /// // Not idempotent in general: the data is saved before timing and put back after.
    /// let keep = Restore::new(|gpu: &Gpu, y: &TrackedBuffer<u8>| gpu.duplicate(y),
    ///                         |gpu: &Gpu, s: TrackedBuffer<u8>, y: &mut TrackedBuffer<u8>| gpu.copy(&s, y));
    /// let n = y.len();
    /// BUMP.launch(&gpu, &n, &[variant("set", |gpu: &Gpu, y: &mut TrackedBuffer<u8>| gpu.memset(y, 7))], &mut y, keep)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn launch<A, V, O>(
        &self,
        gpu: &Gpu,
        key: &K,
        variants: &[V],
        args: &mut A,
        outputs: O,
    ) -> Result<(), Error>
    where
        A: ?Sized,
        V: Variant<A>,
        O: Outputs<A>,
    {
        let known = self.lookup(gpu.name(), gpu.compute_capability(), key, |i, name| {
            variants.get(i).is_some_and(|v| v.name() == name)
        });
        let index = match known {
            Some(i) => i,
            None => {
                let model = GpuModel::of(gpu)?;
                let names: Vec<&str> = variants.iter().map(|v| v.name()).collect();
                let mut timing = OnGpu {
                    gpu,
                    variants,
                    args: &mut *args,
                    outputs,
                };
                self.settle(&model, key, &names, &mut timing)?
            }
        };
        variants[index].launch(gpu, args)
    }

    /// The index in `names` of the variant chosen for `key` on `model`, settling the key
    /// first if this process has not, with `time(i, launches)` queueing variant `i`
    /// `launches` times and returning the device time they took together (an error leaves
    /// the variant out). What [`launch`](Tuner::launch) does without launching: for callers
    /// that time on their own (another stream, a graph) or without a GPU.
    ///
    /// ```
    /// use std::time::Duration;
    /// use cuda_kernel_runtime::tune::{GpuModel, Tuner};
    /// let t = Tuner::<u32>::new("sum").no_cache();
    /// let model = GpuModel::new("test GPU", (9, 0), (13, 0));
    /// let per_launch = [3_000u64, 1_000, 2_000];
    /// let pick = t.choose(&model, &4096, &["a", "b", "c"], |i, n| {
    ///     Ok(Duration::from_nanos(per_launch[i] * u64::from(n)))
    /// })?;
    /// assert_eq!((pick, t.tunings()), (1, 1));
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn choose(
        &self,
        model: &GpuModel,
        key: &K,
        names: &[&str],
        time: impl FnMut(usize, u32) -> Result<Duration, Error>,
    ) -> Result<usize, Error> {
        let known = self.lookup(&model.name, model.compute_capability, key, |i, name| {
            names.get(i).is_some_and(|n| *n == name)
        });
        match known {
            Some(i) => Ok(i),
            None => self.settle(model, key, names, &mut Through(time)),
        }
    }

    /// The remembered choice for `key` on the model, if `fits` accepts its index and name.
    pub(super) fn lookup(
        &self,
        gpu: &str,
        compute_capability: (u32, u32),
        key: &K,
        fits: impl Fn(usize, &str) -> bool,
    ) -> Option<usize> {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        let on = known
            .iter()
            .find(|k| k.compute_capability == compute_capability && k.gpu == gpu)?;
        let s = on.by_key.get(key)?;
        fits(s.index, &s.row.variant).then_some(s.index)
    }

    /// Settles `key` on `model`: a pin, the table, the cache, or a timing run.
    pub(super) fn settle(
        &self,
        model: &GpuModel,
        key: &K,
        names: &[&str],
        timing: &mut impl Timing,
    ) -> Result<usize, Error> {
        let _one_at_a_time = self.settling.lock().unwrap_or_else(PoisonError::into_inner);
        // Another thread may have settled it while this one waited.
        let fits = |i: usize, name: &str| names.get(i).is_some_and(|n| *n == name);
        if let Some(i) = self.lookup(&model.name, model.compute_capability, key, fits) {
            return Ok(i);
        }
        if names.is_empty() {
            return Err(self.error("no variants were given".into()));
        }
        let policy = Policy::from_env().map_err(|p| self.error(p))?;
        let want = Choice {
            kernel: self.kernel.to_owned(),
            gpu: model.name.clone(),
            compute_capability: model.compute_capability,
            driver: model.driver_text(),
            module: self.module_hash_text().to_owned(),
            key: key.to_string(),
            variant: String::new(),
            nanos: 0,
        };
        let position = |name: &str| names.iter().position(|n| *n == name);
        if let Some(pin) = policy.pin(self.kernel) {
            let Some(i) = position(pin) else {
                return Err(self.error(format!(
                    "KERNEL_TUNE_PIN names `{pin}`, which is not one of its variants ({})",
                    names.join(", ")
                )));
            };
            let row = Choice {
                variant: pin.to_owned(),
                ..want
            };
            self.remember(key, i, row, true);
            return Ok(i);
        }
        if !policy.retune {
            let given = *self.given.lock().unwrap_or_else(PoisonError::into_inner);
            let mut from_table = None;
            for t in [given, self.table].into_iter().flatten() {
                from_table = t.find(&want)?.cloned();
                if from_table.is_some() {
                    break;
                }
            }
            let cached = self.cache.dir().and_then(|d| cache::get(&d, &want));
            for (row, from) in [(from_table, "the embedded table"), (cached, "the cache")] {
                let Some(row) = row else { continue };
                if let Some(i) = position(&row.variant) {
                    self.remember(key, i, row, false);
                    return Ok(i);
                }
                self.note(format!(
                    "{from} chose `{}` for key `{}` on {model}, which is not one of the variants; timing them",
                    row.variant, want.key
                ));
            }
        }
        timing.begin()?;
        let plan = timing.plan(&self.plan);
        let outcomes = measure(names.len(), &plan, |i, n| timing.time(i, n));
        timing.end()?;
        self.tunings.fetch_add(1, Ordering::Relaxed);
        let mut failures = Vec::new();
        for (name, outcome) in names.iter().zip(&outcomes) {
            if let Outcome::Failed(e) = outcome {
                failures.push(format!("`{name}`: {e}"));
            }
        }
        let Some((i, took)) = fastest(&outcomes) else {
            return Err(self.error(format!(
                "every variant failed for key `{}` on {model}: {}",
                want.key,
                failures.join("; ")
            )));
        };
        for f in failures {
            self.note(format!(
                "variant {f} (left out for key `{}` on {model})",
                want.key
            ));
        }
        let row = Choice {
            variant: names[i].to_owned(),
            nanos: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
            ..want
        };
        if let Some(dir) = self.cache.dir()
            && let Err(e) = cache::put(&dir, &row)
        {
            self.note(format!(
                "cannot write the tuning cache in `{}`: {e}",
                dir.display()
            ));
        }
        self.remember(key, i, row, false);
        Ok(i)
    }

    fn remember(&self, key: &K, index: usize, row: Choice, pinned: bool) {
        let mut known = self.known.write().unwrap_or_else(PoisonError::into_inner);
        let at = match known
            .iter()
            .position(|k| k.compute_capability == row.compute_capability && k.gpu == row.gpu)
        {
            Some(at) => at,
            None => {
                known.push(Known {
                    gpu: row.gpu.clone(),
                    compute_capability: row.compute_capability,
                    by_key: HashMap::new(),
                });
                known.len() - 1
            }
        };
        known[at]
            .by_key
            .insert(key.clone(), Settled { index, row, pinned });
    }
}
