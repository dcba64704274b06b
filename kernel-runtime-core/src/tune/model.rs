//! What a choice is valid for: the GPU model (its name and compute capability) and the
//! driver, as the cache and the embedded table record them.

use crate::device::gpu::Gpu;
use crate::error::Error;

/// A GPU model and the driver it runs under: what a tuned choice was timed on.
///
/// Choices are kept per model, not per device: two H100s of one machine share them, an
/// H100 and an A100 do not. The driver is recorded with each choice; the disk cache matches
/// it (a new driver may change which variant wins, so it times again), an embedded table does
/// not (a deployed table would otherwise stop at the first driver update).
///
/// ```
/// use cuda_kernel_runtime::tune::GpuModel;
/// let h100 = GpuModel::new("NVIDIA H100 80GB HBM3", (9, 0), (13, 0));
/// assert_eq!(h100.to_string(), "NVIDIA H100 80GB HBM3 (sm_90, driver CUDA 13.0)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuModel {
    /// The device's name, as the driver gives it.
    pub name: String,
    /// The compute capability, `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// The CUDA version the driver supports, `(major, minor)`.
    pub driver: (u32, u32),
}

impl GpuModel {
    /// A model described by hand (for a table made without the GPU, or a test).
    ///
    /// ```
    /// let a100 = cuda_kernel_runtime::tune::GpuModel::new("NVIDIA A100-SXM4-80GB", (8, 0), (12, 8));
    /// assert_eq!(a100.compute_capability, (8, 0));
    /// ```
    pub fn new(
        name: impl Into<String>,
        compute_capability: (u32, u32),
        driver: (u32, u32),
    ) -> Self {
        GpuModel {
            name: name.into(),
            compute_capability,
            driver,
        }
    }

    /// The model of `gpu`, under the installed driver.
    ///
    /// ```no_run
    /// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let model = cuda_kernel_runtime::tune::GpuModel::of(&gpu)?;
    /// assert_eq!(model.name, gpu.name());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn of(gpu: &Gpu) -> Result<GpuModel, Error> {
        Ok(GpuModel {
            name: gpu.name().to_owned(),
            compute_capability: gpu.compute_capability(),
            driver: Gpu::driver_version()?,
        })
    }

    /// The driver's version as the table writes it, `13.0`.
    pub(crate) fn driver_text(&self) -> String {
        format!("{}.{}", self.driver.0, self.driver.1)
    }
}

impl std::fmt::Display for GpuModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (major, minor) = self.compute_capability;
        let (dmaj, dmin) = self.driver;
        write!(
            f,
            "{} (sm_{major}{minor}, driver CUDA {dmaj}.{dmin})",
            self.name
        )
    }
}
