//! Graphs built step by step, with conditional nodes: [`Gpu::build_graph`] hands a
//! [`GraphBuilder`] whose steps run one after another — work captured from the typed stubs
//! (each a child graph), IF nodes and WHILE nodes whose bodies are captured the same way —
//! and instantiates the result as a [`Graph`]. A [`Condition`] is a conditional handle of the
//! graph being built (`cudaGraphConditionalHandle`); a kernel parameter of that type takes
//! one, and the kernel sets it with `cudaGraphSetConditional(handle, value)`. The builder's
//! lifetime brand makes a condition of another graph a compile error.

use std::cell::Cell;
use std::marker::PhantomData;

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{self, CUgraphConditionalNodeType as CondType, CUstreamCaptureMode};

use super::graph::{CaptureStream, Graph, OwnedGraph};
use crate::device::gpu::Gpu;
use crate::driver;
use crate::error::{DriverResultExt, Error};

/// An invariant lifetime: conditions carry the brand of their builder.
type Brand<'id> = PhantomData<fn(&'id ()) -> &'id ()>;

/// A graph under construction (see [`Gpu::build_graph`]).
pub struct GraphBuilder<'id> {
    gpu: Gpu,
    graph: OwnedGraph,
    /// The last step: the next one depends on it.
    tail: Cell<sys::CUgraphNode>,
    capture: CaptureStream,
    _brand: Brand<'id>,
}

/// A conditional handle of one graph being built: pass it to a kernel parameter of type
/// `cudaGraphConditionalHandle`, and to that graph's [`GraphBuilder::while_loop`] or
/// [`GraphBuilder::if_then`].
///
/// ```no_run
/// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
/// let graph = gpu.build_graph(|b| {
///     let go = b.condition(1)?;
///     b.while_loop(go, |_g| Ok(()))
/// });
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Condition<'id> {
    handle: ConditionHandle,
    _brand: Brand<'id>,
}

/// The 8-byte `cudaGraphConditionalHandle` a stub passes for a [`Condition`].
///
/// ```
/// assert_eq!(std::mem::size_of::<cuda_kernel_runtime::ConditionHandle>(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct ConditionHandle(u64);

// SAFETY: a conditional handle is a plain 64-bit value, as the kernel parameter is.
unsafe impl DeviceRepr for ConditionHandle {}

impl Condition<'_> {
    /// The handle a stub passes.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.build_graph(|b| {
    ///     let c = b.condition(0)?;
    ///     let _raw = c.handle();
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn handle(&self) -> ConditionHandle {
        self.handle
    }
}

impl Gpu {
    /// Builds a graph step by step: `build` adds steps to the [`GraphBuilder`] it is handed,
    /// which run in order at each launch; the graph is then instantiated for this handle's
    /// stream.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(16)?;
    /// let graph = gpu.build_graph(|b| {
    ///     b.record(|g| g.memset_zeros(&mut x))?;
    ///     Ok(())
    /// })?;
    /// graph.launch()?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn build_graph(
        &self,
        build: impl for<'id> FnOnce(&GraphBuilder<'id>) -> Result<(), Error>,
    ) -> Result<Graph, Error> {
        let ctx = self.context();
        ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the context is current; flags must be 0.
        let raw = unsafe { driver::graph::create(0) }.call("cuGraphCreate")?;
        let graph = OwnedGraph(raw);
        let capture = CaptureStream::new(self)?;
        let builder = GraphBuilder {
            gpu: self.with_stream(&capture.stream),
            graph,
            tail: Cell::new(std::ptr::null_mut()),
            capture,
            _brand: PhantomData,
        };
        build(&builder)?;
        let GraphBuilder { graph, capture, .. } = builder;
        Graph::instantiate(self, graph, capture)
    }
}

impl<'id> GraphBuilder<'id> {
    /// Adds the work `record` queues on the `Gpu` it is handed (launches through the typed
    /// stubs, copies and memsets of device buffers) as the next step.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// # let mut x = gpu.zeros::<u8>(16)?;
    /// gpu.build_graph(|b| b.record(|g| g.memset_zeros(&mut x)))?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn record(&self, record: impl FnOnce(&Gpu) -> Result<(), Error>) -> Result<(), Error> {
        let child = self.capture.capture(&self.gpu, record)?;
        let deps = self.deps();
        // SAFETY: `child` is a live graph (cloned into this one); `deps` are nodes of it.
        let node = unsafe { driver::graph::add_child_graph_node(self.graph.0, &deps, child.0) }
            .call("cuGraphAddChildGraphNode")?;
        self.tail.set(node);
        Ok(())
    }

    /// A new conditional handle of this graph, set to `default` at the start of each launch.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.build_graph(|b| {
    ///     let _c = b.condition(1)?;
    ///     Ok(())
    /// })?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn condition(&self, default: u32) -> Result<Condition<'id>, Error> {
        // SAFETY: this graph and its context.
        let handle = unsafe {
            driver::graph::conditional_handle_create(
                self.graph.0,
                self.gpu.context().cu_ctx(),
                default,
                sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
            )
        }
        .call("cuGraphConditionalHandleCreate")?;
        Ok(Condition {
            handle: ConditionHandle(handle),
            _brand: PhantomData,
        })
    }

    /// A WHILE node as the next step: its body (the work `body` queues) runs while `cond` is
    /// non-zero, checked before each iteration; a kernel of the body sets it.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.build_graph(|b| {
    ///     let go = b.condition(0)?;
    ///     b.while_loop(go, |_g| Ok(()))
    /// })?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn while_loop(
        &self,
        cond: Condition<'id>,
        body: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.conditional(cond, CondType::CU_GRAPH_COND_TYPE_WHILE, body)
    }

    /// An IF node as the next step: its body runs once when `cond` is non-zero.
    ///
    /// ```no_run
    /// # let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// gpu.build_graph(|b| {
    ///     let flag = b.condition(1)?;
    ///     b.if_then(flag, |_g| Ok(()))
    /// })?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn if_then(
        &self,
        cond: Condition<'id>,
        body: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.conditional(cond, CondType::CU_GRAPH_COND_TYPE_IF, body)
    }

    fn conditional(
        &self,
        cond: Condition<'id>,
        kind: CondType,
        body: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // SAFETY: an all-zero parameter block is valid before its fields are set.
        let mut params: sys::CUgraphNodeParams = unsafe { std::mem::zeroed() };
        params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
        params.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
            handle: cond.handle.0,
            type_: kind,
            size: 1,
            // The driver points it at the node's own array of body graphs.
            phGraph_out: std::ptr::null_mut(),
            ctx: self.gpu.context().cu_ctx(),
        };
        let deps = self.deps();
        // SAFETY: `params` is a conditional node's (the driver sets its array of body graphs,
        // owned by the node); `deps` are nodes of this graph.
        let node = unsafe { driver::graph::add_node(self.graph.0, &deps, &mut params) }
            .call("cuGraphAddNode")?;
        self.tail.set(node);
        // SAFETY: the node was created with one body graph; the driver filled the array.
        let body_graph = unsafe {
            let out = params.__bindgen_anon_1.conditional.phGraph_out;
            if out.is_null() {
                std::ptr::null_mut()
            } else {
                *out
            }
        };
        self.capture_into(body_graph, body)
    }

    /// The next step's dependencies: the last step, if any.
    fn deps(&self) -> Vec<sys::CUgraphNode> {
        let tail = self.tail.get();
        if tail.is_null() {
            Vec::new()
        } else {
            vec![tail]
        }
    }

    /// Captures `record` into `graph` (a conditional node's body).
    fn capture_into(
        &self,
        graph: sys::CUgraph,
        record: impl FnOnce(&Gpu) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let stream = &self.capture.stream;
        stream.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: `graph` is the live body graph of a node of this graph; no dependencies.
        unsafe {
            driver::graph::begin_capture_to_graph(
                stream.cu_stream(),
                graph,
                CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
        }
        .call("cuStreamBeginCaptureToGraph")?;
        let captured = self.capture.finish(&self.gpu, record)?;
        // The body graph belongs to its node: not destroyed here.
        std::mem::forget(captured);
        Ok(())
    }
}
