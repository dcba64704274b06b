//! CUDA arrays and the texture and surface objects that read and write them.
//!
//! An [`Array`] is device memory laid out for 1D/2D/3D locality, of elements of an
//! [`ArrayFormat`] with 1, 2 or 4 channels; copies in and out are [`Gpu::copy_2d`] /
//! [`Gpu::copy_3d`](crate::Gpu::copy_3d) with [`Region::array`](crate::Region::array). A
//! [`TextureObject`] samples an array through the texture units (address modes, linear
//! filtering, normalised coordinates); a [`SurfaceObject`] reads and writes it by coordinates.
//! A kernel parameter of type `cudaTextureObject_t` / `cudaSurfaceObject_t` takes
//! `&TextureObject<T>` / `&SurfaceObject<T>` in the generated stub (a plain integer is refused);
//! [`TextureHandle`] and [`SurfaceHandle`] are the handles as values, for struct fields.
//!
//! Texture and surface *references* were removed in CUDA 12; objects replace them.
//!
//! [`Gpu::copy_2d`]: crate::Gpu::copy_2d

mod array;
mod object;

pub use array::{Array, ArrayFormat};
pub use object::{
    AddressMode, FilterMode, SurfaceHandle, SurfaceObject, TextureDesc, TextureHandle,
    TextureObject,
};
