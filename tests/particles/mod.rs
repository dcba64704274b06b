//! The types a particle step shares with its kernels, defined once here: the CUDA
//! declarations the kernels include (`"particles/mod.rs.cuh"`) are written from these.

use cuda_kernel_runtime::vector::Float3;
use cuda_kernel_runtime::{CudaType, f16};

/// What a particle is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, CudaType)]
#[repr(u8)]
pub enum Kind {
    /// Light, slowed most by drag.
    #[default]
    Gas = 0,
    /// Heavier.
    Dust = 1,
    /// Heaviest.
    Ice = 2,
}

/// One particle.
#[derive(Clone, Copy, Debug, Default, PartialEq, CudaType)]
#[repr(C)]
pub struct Particle {
    /// Where it is.
    pub pos: Float3,
    /// Its velocity.
    pub vel: [f32; 3],
    /// Its mass.
    pub mass: f32,
    /// What it is made of.
    pub kind: Kind,
    /// How often it hit the floor.
    pub bounces: u16,
    /// Its charge, stored at half precision.
    pub charge: f16,
}

/// The parameters of one step.
#[derive(Clone, Copy, Debug, PartialEq, CudaType)]
#[repr(C, align(16))]
pub struct Step {
    /// The time step.
    pub dt: f32,
    /// Gravity.
    pub gravity: Float3,
    /// The drag of each kind, by `Kind` value.
    pub drag: [f32; 3],
    /// The floor's height.
    pub floor: f64,
    /// The field a charge feels.
    pub field: Float3,
}
