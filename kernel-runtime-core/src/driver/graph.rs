//! Graph calls: instantiating, uploading, launching and destroying graphs (through cudarc's
//! `result` layer), and, over the raw symbols that layer lacks, building a graph node by node
//! (child graphs, conditional nodes), capturing into a given graph, listing nodes, and
//! updating a kernel node of an instantiated graph.

use std::ffi::c_uint;

use cudarc::driver::{DriverError, result, sys};

/// `cuGraphCreate`: an empty graph.
///
/// # Safety
/// A context must be current; `flags` must be 0. The graph must be destroyed once.
pub(crate) unsafe fn create(flags: c_uint) -> Result<sys::CUgraph, DriverError> {
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the caller guarantees the rest.
    unsafe { sys::cuGraphCreate(&mut graph, flags) }.result()?;
    Ok(graph)
}

/// `cuGraphAddChildGraphNode`: a node of `graph` running a copy of `child`, after `deps`.
///
/// # Safety
/// `graph` and `child` must be live graphs and `deps` nodes of `graph`.
pub(crate) unsafe fn add_child_graph_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    child: sys::CUgraph,
) -> Result<sys::CUgraphNode, DriverError> {
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the count is the slice's length; the caller guarantees the
    // graphs and nodes.
    unsafe { sys::cuGraphAddChildGraphNode(&mut node, graph, deps.as_ptr(), deps.len(), child) }
        .result()?;
    Ok(node)
}

/// `cuGraphConditionalHandleCreate`: a conditional handle of `graph`, set to `default` at the
/// start of each launch when `flags` asks for it.
///
/// # Safety
/// `graph` must be a live graph and `ctx` its live context.
pub(crate) unsafe fn conditional_handle_create(
    graph: sys::CUgraph,
    ctx: sys::CUcontext,
    default: c_uint,
    flags: c_uint,
) -> Result<sys::CUgraphConditionalHandle, DriverError> {
    let mut handle: sys::CUgraphConditionalHandle = 0;
    // SAFETY: a valid out-pointer; the caller guarantees the graph and the context.
    unsafe { sys::cuGraphConditionalHandleCreate(&mut handle, graph, ctx, default, flags) }
        .result()?;
    Ok(handle)
}

/// `cuGraphAddNode`: a node of `graph` as `params` describes, after `deps` (no edge data).
/// The driver may write into `params` (a conditional node's body graphs).
///
/// # Safety
/// `graph` must be a live graph, `deps` nodes of it, and `params` valid for its node type.
pub(crate) unsafe fn add_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    params: &mut sys::CUgraphNodeParams,
) -> Result<sys::CUgraphNode, DriverError> {
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the count is the slice's length; the caller guarantees the
    // graph, the nodes and the parameters.
    unsafe {
        sys::cuGraphAddNode_v2(
            &mut node,
            graph,
            deps.as_ptr(),
            std::ptr::null(),
            deps.len(),
            params,
        )
    }
    .result()?;
    Ok(node)
}

/// `cuStreamBeginCaptureToGraph`: starts capturing `stream`'s work into `graph`, with no
/// dependencies.
///
/// # Safety
/// `stream` must be live, with its context current, and `graph` a live graph.
pub(crate) unsafe fn begin_capture_to_graph(
    stream: sys::CUstream,
    graph: sys::CUgraph,
    mode: sys::CUstreamCaptureMode,
) -> Result<(), DriverError> {
    // SAFETY: no dependencies (null arrays, count 0); the caller guarantees the rest.
    unsafe {
        sys::cuStreamBeginCaptureToGraph(stream, graph, std::ptr::null(), std::ptr::null(), 0, mode)
    }
    .result()
}

/// `cuGraphGetNodes`: the number of `graph`'s nodes, and, given `nodes`, the first of them
/// (as many as fit) written into it.
///
/// # Safety
/// `graph` must be a live graph.
pub(crate) unsafe fn get_nodes(
    graph: sys::CUgraph,
    nodes: Option<&mut [sys::CUgraphNode]>,
) -> Result<usize, DriverError> {
    let (ptr, mut count) = match nodes {
        Some(nodes) => (nodes.as_mut_ptr(), nodes.len()),
        None => (std::ptr::null_mut(), 0),
    };
    // SAFETY: `ptr` is null (the count only) or holds `count` slots; the driver writes at
    // most `count`; the caller guarantees the graph.
    unsafe { sys::cuGraphGetNodes(graph, ptr, &mut count) }.result()?;
    Ok(count)
}

/// `cuGraphNodeGetType`.
///
/// # Safety
/// `node` must be a node of a live graph.
pub(crate) unsafe fn node_get_type(
    node: sys::CUgraphNode,
) -> Result<sys::CUgraphNodeType, DriverError> {
    let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
    // SAFETY: a valid out-pointer; the caller guarantees the node.
    unsafe { sys::cuGraphNodeGetType(node, &mut kind) }.result()?;
    Ok(kind)
}

/// `cuGraphKernelNodeGetParams`: writes a kernel node's parameters into `params` (pointing
/// into the graph).
///
/// # Safety
/// `node` must be a kernel node of a live graph.
pub(crate) unsafe fn kernel_node_get_params(
    node: sys::CUgraphNode,
    params: &mut sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), DriverError> {
    // SAFETY: a valid out-pointer; the caller guarantees the node.
    unsafe { sys::cuGraphKernelNodeGetParams_v2(node, params) }.result()
}

/// `cuGraphExecKernelNodeSetParams`: gives kernel node `node` of `exec` new parameters.
///
/// # Safety
/// `exec` must be a live executable graph, `node` a kernel node of its template, and what
/// `params` points to alive for the call.
pub(crate) unsafe fn exec_kernel_node_set_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node, params) }.result()
}

/// `cuGraphInstantiate`, through cudarc's `result::graph::instantiate`.
///
/// # Safety
/// As the driver asks of `cuGraphInstantiate`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn instantiate(
    graph: sys::CUgraph,
    flags: sys::CUgraphInstantiate_flags,
) -> Result<sys::CUgraphExec, DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::graph::instantiate(graph, flags) }
}

/// `cuGraphExecDestroy`, through cudarc's `result::graph::exec_destroy`.
///
/// # Safety
/// As the driver asks of `cuGraphExecDestroy`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn exec_destroy(graph_exec: sys::CUgraphExec) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::graph::exec_destroy(graph_exec) }
}

/// `cuGraphDestroy`, through cudarc's `result::graph::destroy`.
///
/// # Safety
/// As the driver asks of `cuGraphDestroy`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn destroy(graph: sys::CUgraph) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::graph::destroy(graph) }
}

/// `cuGraphLaunch`, through cudarc's `result::graph::launch`.
///
/// # Safety
/// As the driver asks of `cuGraphLaunch`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn launch(
    graph_exec: sys::CUgraphExec,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::graph::launch(graph_exec, stream) }
}

/// `cuGraphUpload`, through cudarc's `result::graph::upload`.
///
/// # Safety
/// As the driver asks of `cuGraphUpload`: live handles, a current context, and memory that holds
/// what the call reads or writes until the queued work completes.
#[inline]
pub(crate) unsafe fn upload(
    graph_exec: sys::CUgraphExec,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded to the caller.
    unsafe { result::graph::upload(graph_exec, stream) }
}
