//! CUDA graphs: launches captured once and replayed with one driver call.
//!
//! Capture runs on a private non-blocking stream that first waits for the work already queued on
//! the handle's stream; replay goes to the handle's stream, so it is ordered with everything else
//! there. Inside the capture, use device buffers: copies from pageable host memory (`In`, `Out`,
//! `upload`) cannot be captured. In cudarc's multi-stream mode, buffers last used on other
//! streams make the capture fail (their events were recorded outside it).

use std::sync::Arc;

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream, result};

use crate::device::gpu::Gpu;
use crate::error::{DriverResultExt, Error};

/// An instantiated graph, replayed on the stream of the [`Gpu`] that captured it.
///
/// ```no_run
/// # let gpu = kernel_runtime::Gpu::new(0)?;
/// let mut x = gpu.zeros::<u8>(256)?;
/// let graph = gpu.capture(|g| {
///     g.memset(&mut x, 7)?;
///     Ok(())
/// })?;
/// graph.launch()?;
/// gpu.synchronize()?;
/// # Ok::<(), kernel_runtime::Error>(())
/// ```
pub struct Graph {
    graph: CudaGraph,
    replay: Arc<CudaStream>,
    _capture: CaptureStream,
}

/// A stream made for one capture, destroyed after the graph.
struct CaptureStream {
    stream: Arc<CudaStream>,
}

impl Drop for CaptureStream {
    fn drop(&mut self) {
        let ctx = self.stream.context();
        ctx.record_err(ctx.bind_to_thread());
        // SAFETY: the stream was created by `Gpu::capture` and is destroyed once, after the graph
        // (field order) and after every wrapper that could queue work on it is gone.
        ctx.record_err(unsafe { result::stream::destroy(self.stream.cu_stream()) });
    }
}

impl Gpu {
    /// Captures the work `record` queues (on the `Gpu` it is handed) into a graph.
    ///
    /// Kernels launched inside must use the handed `Gpu`'s stream: load or rebind modules with
    /// `with_stream(g.stream())`.
    ///
    /// ```no_run
    /// # let gpu = kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(1)?;
    /// let graph = gpu.capture(|g| g.memset_zeros(&mut x))?;
    /// for _ in 0..10 {
    ///     graph.launch()?;
    /// }
    /// # Ok::<(), kernel_runtime::Error>(())
    /// ```
    pub fn capture(&self, record: impl FnOnce(&Gpu) -> Result<(), Error>) -> Result<Graph, Error> {
        let ctx = self.context();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let raw = result::stream::create(result::stream::StreamKind::NonBlocking)
            .call("cuStreamCreate")?;
        // SAFETY: `raw` is a live stream of this context; `CaptureStream` destroys it after every
        // user of the wrapper (the graph and the handed `Gpu`) is gone.
        let stream = unsafe { ctx.wrap_borrowed_stream(raw) };
        let capture = CaptureStream { stream };
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
            graph,
            replay: self.stream().clone(),
            _capture: capture,
        })
    }
}

impl Graph {
    /// Replays the graph on the capturing handle's stream.
    pub fn launch(&self) -> Result<(), Error> {
        self.launch_on(&self.replay)
    }

    /// Replays the graph on `stream` (of the same device).
    pub fn launch_on(&self, stream: &CudaStream) -> Result<(), Error> {
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the executable graph is live while `self` is; the stream belongs to a live context.
        unsafe { result::graph::launch(self.graph.cu_graph_exec(), stream.cu_stream()) }
            .call("cuGraphLaunch")
    }

    /// Uploads the graph to the device ahead of its first launch.
    pub fn upload(&self) -> Result<(), Error> {
        self.replay
            .context()
            .bind_to_thread()
            .call("cuCtxSetCurrent")?;
        // SAFETY: as for `launch_on`.
        unsafe { result::graph::upload(self.graph.cu_graph_exec(), self.replay.cu_stream()) }
            .call("cuGraphUpload")
    }
}
