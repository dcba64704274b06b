//! CUDA graphs: launches captured once and replayed with one driver call.
//!
//! Capture runs on a private non-blocking stream that first waits for the work already queued on
//! the handle's stream; replay goes to the handle's stream, so it is ordered with everything else
//! there. Inside the capture, use device buffers: copies from pageable host memory (`In`, `Out`,
//! `upload`) cannot be captured. The runtime's buffers ([`TrackedBuffer`](crate::TrackedBuffer),
//! what `Gpu::upload` and `Gpu::zeros` return) used inside are ordered as elsewhere, within the
//! capture (other streams joined to it included) through captured events; a buffer last used
//! outside the capture on another stream is waited for by the host during the capture (a
//! captured stream cannot wait for uncaptured work); once the capture has ended, the captured
//! uses stand for the graph's replays on the replay stream, so a later use on another stream
//! waits for what the replay stream has queued by then. (cudarc's `CudaSlice`s last used on
//! other streams in its multi-stream mode make the capture fail: their events were recorded
//! outside it.) Replays launched later are ordered on their stream only; work on other streams
//! that uses the same buffers waits for them through [`Gpu::wait_for`](crate::Gpu::wait_for)
//! or an event.
//!
//! A kernel node of an instantiated graph is updated in place ([`Graph::update_kernel`]): the
//! new launch is made through the same typed stub on the graph's capture stream, captured
//! alone, and its arguments and configuration are copied into the executable graph
//! (`cuGraphExecKernelNodeSetParams`) — no re-capture and no re-instantiation of the rest.

use std::sync::Arc;

use cudarc::driver::sys::{self, CUgraphInstantiate_flags, CUgraphNodeType, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream};

use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};
use crate::streams::clock::{self, CaptureClock};

/// An instantiated graph, replayed on the stream of the [`Gpu`] that captured it.
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let mut x = gpu.zeros::<u8>(256)?;
/// let graph = gpu.capture(|g| {
///     g.memset(&mut x, 7)?;
///     Ok(())
/// })?;
/// graph.launch()?;
/// gpu.synchronize()?;
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
pub struct Graph {
    exec: Exec,
    replay: Arc<CudaStream>,
    /// The handle the graph was captured from, on the capture stream (for updates).
    captured_on: Gpu,
    capture: CaptureStream,
}

/// The executable graph and its template: captured through cudarc, or built step by step.
enum Exec {
    Captured(CudaGraph),
    Built {
        // Field order: the executable graph goes before its template.
        exec: OwnedExec,
        graph: OwnedGraph,
    },
}

impl Exec {
    fn template(&self) -> sys::CUgraph {
        match self {
            Exec::Captured(g) => g.cu_graph(),
            Exec::Built { graph, .. } => graph.0,
        }
    }

    fn exec(&self) -> sys::CUgraphExec {
        match self {
            Exec::Captured(g) => g.cu_graph_exec(),
            Exec::Built { exec, .. } => exec.0,
        }
    }
}

/// An executable graph instantiated here, destroyed with the [`Graph`].
struct OwnedExec(sys::CUgraphExec);

impl Drop for OwnedExec {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: instantiated by `Graph::instantiate` and destroyed once.
            let _ = unsafe { driver::graph::exec_destroy(self.0) };
        }
    }
}

/// A stream made for one graph's captures, destroyed after the graph.
pub(super) struct CaptureStream {
    pub(super) stream: Arc<CudaStream>,
    /// The clock ordering tracked buffers' uses on this stream; retired before the stream is
    /// destroyed.
    clock: Option<CaptureClock>,
}

impl CaptureStream {
    /// A new non-blocking stream of `gpu`'s context, whose graphs replay on `gpu`'s stream.
    pub(super) fn new(gpu: &Gpu) -> Result<Self, Error> {
        let ctx = gpu.context();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let raw = driver::stream::create(driver::stream::StreamKind::NonBlocking)
            .call("cuStreamCreate")?;
        // SAFETY: `raw` is a live stream of this context; `CaptureStream` destroys it after
        // every user of the wrapper (the graph and the handles given out) is gone.
        let stream = unsafe { ctx.wrap_borrowed_stream(raw) };
        let clock = Some(clock::capture_clock(&stream, gpu.stream()));
        Ok(CaptureStream { stream, clock })
    }
}

impl CaptureStream {
    /// Captures what `record` queues on `gpu` (a handle on this stream) into a new graph,
    /// not instantiated.
    pub(super) fn capture(
        &self,
        gpu: &Gpu,
        record: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<OwnedGraph, Error> {
        self.stream
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        self.stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .call("cuStreamBeginCapture")?;
        self.finish(gpu, record)
    }

    /// Runs `record` on `gpu` (a handle on this stream, which the caller set capturing) and
    /// ends the capture: the captured graph, or the first error.
    pub(super) fn finish(
        &self,
        gpu: &Gpu,
        record: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<OwnedGraph, Error> {
        let recorded = record(gpu);
        // SAFETY: the stream is capturing.
        let graph = unsafe { driver::stream::end_capture(self.stream.cu_stream()) }
            .call("cuStreamEndCapture")
            .map(OwnedGraph);
        recorded?;
        graph
    }
}

impl Drop for CaptureStream {
    fn drop(&mut self) {
        // Destroyed in its own context; the thread's is put back.
        let _keep = driver::context::KeepCurrent::new();
        drop(self.clock.take());
        let ctx = self.stream.context();
        ctx.record_err(ctx.bind_to_thread());
        // SAFETY: the stream was created by `CaptureStream::new` and is destroyed once, after
        // the graph (field order) and after every wrapper that could queue work on it is gone.
        ctx.record_err(unsafe { driver::stream::destroy(self.stream.cu_stream()) });
    }
}

impl Gpu {
    /// Captures the work `record` queues (on the `Gpu` it is handed) into a graph.
    ///
    /// Kernels launched inside must use the handed `Gpu`'s stream: load or rebind modules with
    /// `with_stream(g.stream())`.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// for _ in 0..10 {
    ///     graph.launch()?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn capture(&self, record: impl FnOnce(&Gpu) -> Result<(), Error>) -> Result<Graph, Error> {
        let capture = CaptureStream::new(self)?;
        let ready = self.stream().record_event(None).call("cuEventRecord")?;
        capture.stream.wait(&ready).call("cuStreamWaitEvent")?;
        capture
            .stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .call("cuStreamBeginCapture")?;
        let recorded = record(&self.with_stream(&capture.stream));
        let ended = capture.stream.end_capture(CUgraphInstantiate_flags(0));
        recorded?;
        let graph = ended.call("cuStreamEndCapture")?.ok_or(Error::Driver {
            call: "cuStreamEndCapture",
            code: 0,
            name: "CUDA_SUCCESS".to_owned(),
            message: "the capture produced no graph".to_owned(),
        })?;
        Ok(Graph {
            exec: Exec::Captured(graph),
            replay: self.stream().clone(),
            captured_on: self.with_stream(&capture.stream),
            capture,
        })
    }
}

impl Graph {
    /// Instantiates a graph built step by step (`Gpu::build_graph`), replayed on `gpu`'s
    /// stream.
    pub(super) fn instantiate(
        gpu: &Gpu,
        graph: OwnedGraph,
        capture: CaptureStream,
    ) -> Result<Graph, Error> {
        gpu.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: `graph` is a live, complete graph of this context.
        let exec = unsafe { driver::graph::instantiate(graph.0, CUgraphInstantiate_flags(0)) }
            .call("cuGraphInstantiate")?;
        Ok(Graph {
            exec: Exec::Built {
                exec: OwnedExec(exec),
                graph,
            },
            replay: gpu.stream().clone(),
            captured_on: gpu.with_stream(&capture.stream),
            capture,
        })
    }

    /// Replays the graph on the capturing handle's stream.
    pub fn launch(&self) -> Result<(), Error> {
        self.launch_on(&self.replay)
    }

    /// Replays the graph on `stream` (of the same device).
    pub fn launch_on(&self, stream: &CudaStream) -> Result<(), Error> {
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the executable graph is live while `self` is; the stream belongs to a live context.
        unsafe { driver::graph::launch(self.exec.exec(), stream.cu_stream()) }
            .call("cuGraphLaunch")?;
        // A fault's error then says a graph's kernels ran last, not the last kernel launched
        // alone.
        crate::driver::last_launch::record_graph();
        Ok(())
    }

    /// Uploads the graph to the device ahead of its first launch.
    pub fn upload(&self) -> Result<(), Error> {
        self.replay
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: as for `launch_on`.
        unsafe { driver::graph::upload(self.exec.exec(), self.replay.cu_stream()) }
            .call("cuGraphUpload")
    }
}

impl Graph {
    /// The number of kernel launches in the graph.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// assert_eq!(graph.kernel_count()?, 0);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn kernel_count(&self) -> Result<usize, Error> {
        Ok(kernel_nodes(self.exec.template())?.len())
    }

    /// Replaces the arguments and launch configuration of the graph's `index`-th kernel launch
    /// (in capture order) with those of the one launch `record` makes on the `Gpu` it is
    /// handed, through the same typed stub (load or rebind the module with
    /// `with_stream(g.stream())`), without re-capturing or re-instantiating the graph. The
    /// new launch may be of another kernel of the same context. Later launches of the graph
    /// use the new values; the buffers it names must outlive them.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// # let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// // `m.scale(&cfg, &mut y, 2.0)` was the first kernel captured; now scale by 3.
    /// # let record = |_g: &cuda_kernel_runtime::Gpu| Ok(());
    /// graph.update_kernel(0, record)?;
    /// graph.launch()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn update_kernel(
        &self,
        index: usize,
        record: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let targets = kernel_nodes(self.exec.template())?;
        let Some(&target) = targets.get(index) else {
            return Err(Error::GraphUpdate(format!(
                "the graph has {} kernel launch(es); there is no launch {index}",
                targets.len()
            )));
        };
        let captured = self.capture.capture(&self.captured_on, record)?;
        let nodes = kernel_nodes(captured.0)?;
        // Event waits ordering the launch's buffers do not count: only the kernel's
        // parameters are copied.
        let all = node_count(captured.0)? - wait_nodes(captured.0)?;
        if nodes.len() != 1 || all != 1 {
            return Err(Error::GraphUpdate(format!(
                "the update must make exactly one kernel launch; it queued {all} operation(s), {} of them launches",
                nodes.len()
            )));
        }
        // SAFETY: an all-zero parameter block is a valid out-value for the query.
        let mut params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
        // SAFETY: `nodes[0]` is a kernel node of the live captured graph.
        unsafe { driver::graph::kernel_node_get_params(nodes[0], &mut params) }
            .call("cuGraphKernelNodeGetParams")?;
        // SAFETY: the parameters point into the captured graph, alive until the call returns;
        // `target` is a kernel node of this graph's template, `exec` its instantiation.
        unsafe { driver::graph::exec_kernel_node_set_params(self.exec.exec(), target, &params) }
            .call("cuGraphExecKernelNodeSetParams")
    }
}

/// A graph made here (a capture for an update, a graph being built), destroyed with its owner.
pub(super) struct OwnedGraph(pub(super) sys::CUgraph);

impl Drop for OwnedGraph {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: created here (`cuStreamEndCapture`, `cuGraphCreate`) and destroyed once.
            let _ = unsafe { driver::graph::destroy(self.0) };
        }
    }
}

/// The graph's nodes, in the order the driver lists them (creation order).
fn nodes(graph: sys::CUgraph) -> Result<Vec<sys::CUgraphNode>, Error> {
    let n = node_count(graph)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut out = vec![std::ptr::null_mut(); n];
    // SAFETY: a live graph; the driver writes at most `out.len()` nodes.
    let n = unsafe { driver::graph::get_nodes(graph, Some(&mut out)) }.call("cuGraphGetNodes")?;
    out.truncate(n);
    Ok(out)
}

fn node_count(graph: sys::CUgraph) -> Result<usize, Error> {
    if graph.is_null() {
        return Ok(0);
    }
    // SAFETY: a live graph; no array asks for the count only.
    unsafe { driver::graph::get_nodes(graph, None) }.call("cuGraphGetNodes")
}

/// How many of a graph's nodes wait for an event.
fn wait_nodes(graph: sys::CUgraph) -> Result<usize, Error> {
    if graph.is_null() {
        return Ok(0);
    }
    let mut n = 0;
    for node in nodes(graph)? {
        // SAFETY: `node` belongs to the live graph.
        let kind = unsafe { driver::graph::node_get_type(node) }.call("cuGraphNodeGetType")?;
        n += usize::from(kind == CUgraphNodeType::CU_GRAPH_NODE_TYPE_WAIT_EVENT);
    }
    Ok(n)
}

/// The kernel nodes of a graph, in creation (capture) order.
fn kernel_nodes(graph: sys::CUgraph) -> Result<Vec<sys::CUgraphNode>, Error> {
    if graph.is_null() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for node in nodes(graph)? {
        // SAFETY: `node` belongs to the live graph.
        let kind = unsafe { driver::graph::node_get_type(node) }.call("cuGraphNodeGetType")?;
        if kind == CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL {
            out.push(node);
        }
    }
    Ok(out)
}

/// A graph instantiated for launches from device code: a kernel taking `cudaGraphExec_t`
/// launches it with `cudaGraphLaunch(graph, cudaStreamGraphFireAndForget)` (or
/// `...AsSibling`, or `cudaStreamGraphTailLaunch`). The driver allows such launches only
/// from kernels that themselves run in a graph, in modules built with `rdc` (the device
/// runtime); the instantiation is uploaded to the device when made.
pub struct DeviceGraph<'g> {
    exec: OwnedExec,
    _graph: std::marker::PhantomData<&'g Graph>,
}

/// The 8-byte `cudaGraphExec_t` a stub passes for a [`DeviceGraph`].
///
/// ```
/// assert_eq!(std::mem::size_of::<cuda_kernel_runtime::GraphExecHandle>(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct GraphExecHandle(u64);

// SAFETY: an executable graph's handle is a plain 64-bit value, as the parameter is.
unsafe impl cudarc::driver::DeviceRepr for GraphExecHandle {}

impl Graph {
    /// This graph instantiated again for launches from device code (the flag
    /// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`) and uploaded; the driver refuses graphs
    /// it cannot launch from the device (nodes other than kernels, memcpy and memset, or
    /// several devices), named in the error.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// let on_device = graph.for_device()?;
    /// let _handle = on_device.handle();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn for_device(&self) -> Result<DeviceGraph<'_>, Error> {
        self.replay
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        let flags = CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH;
        // SAFETY: the template is live while `self` is.
        let exec = unsafe { driver::graph::instantiate(self.exec.template(), flags) }
            .call("cuGraphInstantiate")?;
        let exec = OwnedExec(exec);
        // SAFETY: a live executable graph and stream of this context.
        unsafe { driver::graph::upload(exec.0, self.replay.cu_stream()) }.call("cuGraphUpload")?;
        Ok(DeviceGraph {
            exec,
            _graph: std::marker::PhantomData,
        })
    }
}

impl DeviceGraph<'_> {
    /// The handle a stub passes for a `cudaGraphExec_t` parameter.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// # let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// let h = graph.for_device()?.handle();
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> GraphExecHandle {
        GraphExecHandle(self.exec.0 as u64)
    }
}
