//! What a generated `<kernel>_tuned` method calls: the variants a module declares (each an
//! instantiation of the module and a launch shape from the declaration's rules), settled by
//! the kernel's [`Tuner`] and launched on the module's stream with the call's own
//! arguments.
//!
//! The first call for a key on a GPU model times every variant: one direct launch of each
//! first (a variant that cannot launch, such as one left out of this GPU's image, is left
//! out with a note), then rounds of batches, each batch one replay of a captured graph of
//! that variant's launches, so that what is timed is the device's time per launch with no
//! gap between launches, whatever the host's cost of a launch. Where a capture fails (an
//! argument that copies host memory at every launch) every variant is timed in batches of
//! direct launches instead.

use std::time::Duration;

use super::key::Key;
use super::measure::Plan;
use super::model::GpuModel;
use super::protection::Protection;
use super::rule::{self, Shape};
use super::tuner::{Timing, Tuner};
use crate::code::module::{LoadedModule, launch_params};
use crate::error::Error;
use crate::launch::args::tuple::ArgTuple;
use crate::launch::config::Launch;
use crate::memory::tracked::TrackedBuffer;
use crate::streams::graph::Graph;

/// A declared tuned kernel as generated code describes it (not public API).
#[derive(Debug)]
pub struct Declared {
    /// The variants' names, as the cache, the embedded table and `KERNEL_TUNE_PIN` record
    /// them.
    pub names: &'static [&'static str],
    /// Each variant's kernel (its index in the module's spec).
    pub kernels: &'static [usize],
    /// Each variant's value of every axis of the declaration (0 for a type).
    pub values: &'static [&'static [i64]],
    /// The launch shape.
    pub shape: Shape,
    /// The kernel's parameter names, in order.
    pub params: &'static [&'static str],
    /// The parameters the kernel may write (`T*`), by their index.
    pub written: &'static [usize],
}

/// Launches the variant of `declared` chosen for `key` with `args` on `module`'s stream,
/// settling the key first if this process has not (see the module's docs); `ints` are the
/// call's integer arguments the rules read, `protection` says how the buffers survive the
/// timing runs.
///
/// # Safety
/// `args` must hold, in order, one argument of exactly each parameter's type of every
/// variant's kernel (they share one signature), as the generated method's signature
/// guarantees; the kernels' use of them is the caller's to vouch for, as for a stub.
pub unsafe fn launch<A: ArgTuple>(
    tuner: &Tuner<Key>,
    module: &LoadedModule,
    declared: &Declared,
    key: Key,
    protection: &impl Protection,
    ints: &[i64],
    args: &mut A,
) -> Result<(), Error> {
    let gpu = module.gpu();
    let known = tuner.lookup(gpu.name(), gpu.compute_capability(), &key, |i, name| {
        declared.names.get(i).is_some_and(|n| *n == name)
    });
    let index = match known {
        Some(i) => i,
        None => {
            let model = GpuModel::of(gpu)?;
            let mut timing = OnModule {
                tuner,
                module,
                declared,
                ints,
                args: &mut *args,
                restore: protection.restores_written(),
                saved: Vec::new(),
                graphs: Vec::new(),
                runs: Vec::new(),
                direct: false,
            };
            tuner.settle(&model, &key, declared.names, &mut timing)?
        }
    };
    let cfg = shape_of(tuner, declared, index, ints)?;
    // SAFETY: forwarded to the caller.
    unsafe { launch_one(module, declared.kernels[index], &cfg, args) }
}

/// The launch configuration of variant `index` for a call with `ints`.
fn shape_of(
    tuner: &Tuner<Key>,
    declared: &Declared,
    index: usize,
    ints: &[i64],
) -> Result<Launch, Error> {
    let values = declared.values.get(index).copied().unwrap_or_default();
    rule::launch(&declared.shape, values, ints).map_err(|problem| Error::Tuning {
        kernel: tuner.kernel().to_owned(),
        problem: format!("variant `{}`: {problem}", declared.names[index]),
    })
}

/// One launch of kernel `kernel` of `module` with `args`, prepared in place.
///
/// # Safety
/// As [`launch`].
unsafe fn launch_one<A: ArgTuple>(
    module: &LoadedModule,
    kernel: usize,
    cfg: &Launch,
    args: &mut A,
) -> Result<(), Error> {
    args.with_params_mut(module.stream(), |params| {
        // SAFETY: forwarded to the caller: `params` holds one pointer per parameter.
        unsafe { launch_params(module, kernel, cfg, params) }
    })
}

/// Timing the declared variants on the module's stream with the call's arguments.
struct OnModule<'c, A> {
    tuner: &'c Tuner<Key>,
    module: &'c LoadedModule,
    declared: &'c Declared,
    ints: &'c [i64],
    args: &'c mut A,
    /// Save and restore the written buffers.
    restore: bool,
    /// Each saved buffer: the argument's index and its copy.
    saved: Vec<(usize, TrackedBuffer<u8>)>,
    /// Each variant's captured batch: its length and graph.
    graphs: Vec<Option<(u32, Graph)>>,
    /// Each variant's runs so far (the first is its warm-up).
    runs: Vec<u32>,
    /// A capture failed: batches are direct launches.
    direct: bool,
}

impl<A: ArgTuple> OnModule<'_, A> {
    /// `launches` direct launches of variant `variant`, timed on the module's stream.
    fn time_direct(&mut self, variant: usize, launches: u32) -> Result<Duration, Error> {
        let cfg = shape_of(self.tuner, self.declared, variant, self.ints)?;
        let kernel = self.declared.kernels[variant];
        let (module, args) = (self.module, &mut *self.args);
        let ((), took) = module.gpu().time(|| {
            for _ in 0..launches {
                // SAFETY: `launch`'s caller vouched for the arguments and the kernels.
                unsafe { launch_one(module, kernel, &cfg, args)? };
            }
            Ok(())
        })?;
        Ok(took)
    }

    /// A graph of `launches` launches of variant `variant`, captured on the module's device.
    fn capture(&mut self, variant: usize, launches: u32) -> Result<Graph, Error> {
        let cfg = shape_of(self.tuner, self.declared, variant, self.ints)?;
        let kernel = self.declared.kernels[variant];
        let (module, args) = (self.module, &mut *self.args);
        let graph = module.gpu().capture(|g| {
            let on = module.with_stream(g.stream());
            for _ in 0..launches {
                // SAFETY: as for direct launches; the capture stream is the module's
                // device's.
                unsafe { launch_one(&on, kernel, &cfg, args)? };
            }
            Ok(())
        })?;
        graph.upload()?;
        Ok(graph)
    }

    /// Copies every written argument into scratch memory (or back, `back`).
    fn copy_written(&mut self, back: bool) -> Result<(), Error> {
        let gpu = self.module.gpu();
        let stream = self.module.stream();
        if !back {
            for &i in self.declared.written {
                let name = self.declared.params.get(i).copied().unwrap_or("?");
                let Some(arg) = self.args.arg(i) else {
                    continue;
                };
                let bytes = arg.byte_len().ok_or_else(|| Error::Tuning {
                    kernel: self.tuner.kernel().to_owned(),
                    problem: format!(
                        "RestoreWritten cannot save the argument of parameter `{name}`: only device buffers and views can be saved (pass one, or Idempotent if the kernel allows it)"
                    ),
                })?;
                if bytes == 0 {
                    continue;
                }
                // SAFETY: every byte is written by the copy below before it is read.
                let mut copy = unsafe { gpu.alloc::<u8>(bytes)? };
                copy_between(stream, arg, &mut copy, bytes, false)?;
                self.saved.push((i, copy));
            }
            return Ok(());
        }
        for (i, mut copy) in std::mem::take(&mut self.saved) {
            let Some(arg) = self.args.arg(i) else {
                continue;
            };
            let bytes = copy.len();
            copy_between(stream, arg, &mut copy, bytes, true)?;
        }
        Ok(())
    }
}

/// Copies `bytes` bytes from the argument's memory to `copy` (from `copy` to it, `back`), on
/// `stream`, each ordered as a use of its buffer.
fn copy_between(
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    arg: &mut dyn crate::launch::args::tuple::AnyArg,
    copy: &mut TrackedBuffer<u8>,
    bytes: usize,
    back: bool,
) -> Result<(), Error> {
    use crate::error::DriverResultExt;
    use crate::launch::args::tuple::AnyArg;
    stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
    let mut scratch = &mut *copy;
    arg.with_address(stream, &mut |there| {
        AnyArg::with_address(&mut scratch, stream, &mut |here| {
            let (dst, src) = if back { (there, here) } else { (here, there) };
            // SAFETY: both addresses hold `bytes` bytes (the argument's length, and a copy
            // of that length), each prepared as a use on `stream` until the copy is queued.
            unsafe { crate::driver::memory::memcpy_dtod_async(dst, src, bytes, stream.cu_stream()) }
                .call("cuMemcpyDtoDAsync")
        })
    })
}

impl<A: ArgTuple> Timing for OnModule<'_, A> {
    fn begin(&mut self) -> Result<(), Error> {
        self.graphs = (0..self.declared.names.len()).map(|_| None).collect();
        self.runs = vec![0; self.declared.names.len()];
        if self.restore {
            self.copy_written(false)?;
        }
        Ok(())
    }

    fn time(&mut self, variant: usize, launches: u32) -> Result<Duration, Error> {
        let runs = self.runs.get_mut(variant).map_or(0, |r| {
            *r += 1;
            *r - 1
        });
        // A variant's first run (the warm-up) is direct: one that cannot launch is left
        // out there, before anything is captured.
        if self.direct || runs == 0 {
            return self.time_direct(variant, launches);
        }
        let captured = match self.graphs.get(variant) {
            Some(Some((n, _))) if *n == launches => None,
            _ => match self.capture(variant, launches) {
                Ok(graph) => Some(graph),
                Err(_) => {
                    // Work a graph cannot hold (host copies at every launch): every
                    // variant's batches are direct launches instead.
                    self.direct = true;
                    self.graphs.clear();
                    return self.time_direct(variant, launches);
                }
            },
        };
        if let Some(graph) = captured
            && let Some(slot) = self.graphs.get_mut(variant)
        {
            *slot = Some((launches, graph));
        }
        let Some(Some((_, graph))) = self.graphs.get(variant) else {
            return self.time_direct(variant, launches);
        };
        let ((), took) = self.module.gpu().time(|| graph.launch())?;
        Ok(took)
    }

    fn end(&mut self) -> Result<(), Error> {
        self.graphs.clear();
        if self.restore {
            self.copy_written(true)?;
        }
        Ok(())
    }

    fn plan(&self, tuner: &Plan) -> Plan {
        Plan {
            min_sample: Duration::from_millis(1),
            max_batch: 4096,
            ..*tuner
        }
    }
}
