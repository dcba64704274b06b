//! The data of a particle step, defined once, here: `build.rs` shares these types with
//! `kernels/particles.cu` (`Build::rust_types`), which includes the header written from them,
//! and the stubs of the `sim` module take them.

use cuda_kernel_runtime::CudaType;
use cuda_kernel_runtime::vector::Float3;

/// One particle.
#[derive(Clone, Copy, Debug, Default, PartialEq, CudaType)]
#[repr(C)]
pub struct Particle {
    /// Where it is.
    pub pos: Float3,
    /// Its velocity.
    pub vel: Float3,
    /// Its mass.
    pub mass: f32,
    /// What it is.
    pub kind: Kind,
}

/// What a particle is made of: the drag it feels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, CudaType)]
#[repr(i32)]
pub enum Kind {
    /// Light.
    #[default]
    Gas = 0,
    /// Heavy.
    Dust = 1,
}

/// The parameters of one step.
#[derive(Clone, Copy, Debug, PartialEq, CudaType)]
#[repr(C)]
pub struct Params {
    /// The time step.
    pub dt: f32,
    /// Gravity.
    pub gravity: Float3,
    /// The drag of each kind, by `Kind` value.
    pub drag: [f32; 2],
}
