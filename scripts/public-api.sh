#!/usr/bin/env bash
# Counts the public items of each published library crate (what rustdoc lists in its
# all.html: structs, enums, traits, functions, macros, constants, type aliases, reachable
# from the crate root; hidden items such as `__private` are not listed) and fails when a
# crate exceeds its ceiling. A new public item is a decision: raise the ceiling in the same
# change, and say why in the commit.
#
# Ceilings:
#   cuda-kernel-build    37  Build and its outputs (Output, BuiltModule, Unit, Metadata, RuntimeSource,
#                       ExportedConstant), the option enums (LinkMode, RuntimeCompile), the errors
#                       (Error, Diagnostics, LinkLibraryError) and the 19 metadata types of `model`
#                       that `<name>.kernels.json` holds (HostFunction, EnumDef and LayoutProblem,
#                       a type whose layout the compiler contradicted, among them), and tuned
#                       kernels (Tune, what Build::tune takes; model::{TunedKernel, TunedVariant,
#                       TunedRule, RuleOp}, what BuiltModule::tuned and `<name>.kernels.json`
#                       hold, RuleOp re-exported from cuda-kernel-objects: 5): 37 today.
#   cuda-kernel-objects  55  the object-code reader (entry_compression among it: how entries are
#                       stored, read from their headers, for METADATA.compressed_entries()),
#                       and the label in front of an embedded module
#                       image (label::{Label, find_labels, header, header_len, MAGIC}: what
#                       generated code writes, the runtime embeds and cuda-kernel-inspect
#                       reads, defined once), and the workspace's one table of CUDA types
#                       (ctypes::{Scalar, ScalarInfo, Vector, VECTORS, vector, agrees,
#                       plain_char, long_is_64_bits}: what the build library's model, the
#                       runtime and the generators all spell and size types from, defined
#                       once), and the one loader of native libraries
#                       (native::{Library, LoadError, in_process}: how the build library and
#                       the runtime open the driver, NVRTC, NCCL, nvJitLink and nvFatbin,
#                       defined once), and the text form of tuned choices (tuning::{Choice,
#                       TableError, MAGIC, render_table, parse_table, merge, encode_entry,
#                       decode_entry}: what the runtime's tuning cache stores, an embedded
#                       table holds and cuda-kernel-inspect tune export writes: 8), and tuned
#                       kernels' launch rules (launch_rule::{RuleOp, DEPTH, eval}: the steps the
#                       build writes and the runtime evaluates, and the depth both hold to,
#                       defined once: 3): 55 today.
#   cuda-kernel-generate 22  the generators' descriptions (Module, Kernel, Elementwise, Reduction,
#                       Scan, Param, Access, Dtype), what they write (Generated, KernelInfo,
#                       Region, GenerateError) and the launch geometry the kernels assume
#                       (geometry: 3 constants, 6 functions): 21 today.
#   cuda-kernel-runtime 203  the runtime: 83 are CUDA value types (vector::*, fp::*), one per CUDA
#                       type; the rest devices, memory kinds, code, launches (with their
#                       attributes: MemSyncDomain, and the events a launch fires: LaunchEvent,
#                       EventKey), TMA tensor maps (TensorMap, its handle, options, im2col
#                       shape, swizzle, interleave, element trait, error: 8), streams,
#                       graphs (GraphBuilder, Condition, ConditionHandle, DeviceGraph,
#                       GraphExecHandle), textures, spec::*
#                       the macros (cuda_module, host_functions, include_kernels, and the
#                       generated-kernel macros elementwise, reduction, scan), kernels
#                       generated at run time (Generated, GeneratedKernel, Arg, Element, Dtype)
#                       and the cudarc vocabulary it re-exports, the default buffer
#                       TrackedBuffer with its views (TrackedView, TrackedViewMut) and the
#                       traits every Gpu copy takes memory through (DeviceMemory,
#                       DeviceMemoryMut), and types shared with CUDA (the trait CudaType and
#                       its derive), and the NVTX ranges of `profile` (Range, range, DOMAIN,
#                       ENABLED: the same items with the `nvtx` feature off), and the
#                       stream-ordered memory pools (MemoryPool, the PoolOptions it is made
#                       with, the PoolUsage it reports, and the PoolPointer a shared pool's
#                       buffer is described by for another process: 4), and the NCCL
#                       collectives of the `nccl` feature (Communicator, Group, UniqueId, the
#                       element trait NcclElement, cudarc's ReduceOp re-exported, the Job a
#                       launcher started, the AbortHandle a watchdog holds and the OnStream
#                       view of a rank on another stream: 8; counted with the feature on, as
#                       docs.rs documents the crate), and DeviceTimes, the per-device times and
#                       span of work timed on several GPUs (Gpu::time_all, Communicator::time):
#                       and autotuning (tune::{Tuner, Variant, FnVariant, variant, Outputs,
#                       Idempotent, Restore, GpuModel, Table, read_cache} and the Choice row
#                       re-exported from cuda-kernel-objects: 11), and the declared variants'
#                       generated entry points (tune::{Key, Protection, RestoreWritten}: the key,
#                       the data-safety choice each call makes; spec::{TunedSpec, VariantSpec}:
#                       what METADATA lists of them: 5): 220 today.
#   cuda-kernel-runtime-core 213  the same items but the 7 macros: the runtime re-exports this
#                       crate whole and adds the macros (the split lets a build compile the
#                       runtime's code beside the macros' build library).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
declare -A ceiling=([cuda-kernel-build]=37 [cuda-kernel-objects]=55 [cuda-kernel-generate]=22 [cuda-kernel-runtime-core]=213 [cuda-kernel-runtime]=220)
status=0
for crate in cuda-kernel-build cuda-kernel-objects cuda-kernel-generate cuda-kernel-runtime-core cuda-kernel-runtime; do
    # The runtime with the features docs.rs documents it with (package.metadata.docs.rs).
    features=()
    case "$crate" in cuda-kernel-runtime*) features=(--features nccl) ;; esac
    cargo doc -q -p "$crate" --no-deps "${features[@]}"
    page="${CARGO_TARGET_DIR:-target}/doc/${crate//-/_}/all.html"
    count=$(grep -o '<li><a href="[^"]*">[^<]*</a></li>' "$page" | wc -l)
    limit=${ceiling[$crate]}
    if [ "$count" -gt "$limit" ]; then
        echo "$crate: $count public items, over its ceiling of $limit" >&2
        grep -o '<li><a href="[^"]*">[^<]*</a></li>' "$page" | sed 's/<[^>]*>//g; s/^/  /' >&2
        status=1
    else
        echo "$crate: $count public items (ceiling $limit)"
    fi
done
exit $status
