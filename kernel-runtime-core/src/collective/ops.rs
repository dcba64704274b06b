//! The collectives as [`Communicator`] methods: each one a [`Group`] of one call, so that its
//! buffers' uses are recorded once NCCL has queued it. For collectives of several GPUs driven
//! by one thread, or several calls NCCL should queue together, use a [`Group`].

use cudarc::nccl::ReduceOp;

use crate::collective::communicator::Communicator;
use crate::collective::element::NcclElement;
use crate::collective::group::Group;
use crate::error::Error;
use crate::memory::device_memory::{DeviceMemory, DeviceMemoryMut};

impl Communicator {
    /// [`Group::all_reduce`] alone: `dst` gets `op` of `src` over every rank.
    ///
    /// ```no_run
    /// use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank, ranks) = (UniqueId::new()?, 0, 1);
    /// let gpu = Gpu::new(rank)?;
    /// let comm = Communicator::for_rank(&gpu, &id, rank, ranks)?;
    /// let (x, mut sum) = (gpu.upload(&[1.0f32; 1024])?, gpu.zeros::<f32>(1024)?);
    /// comm.all_reduce(&x, &mut sum, &ReduceOp::Sum)?;
    /// assert_eq!(gpu.download(&sum)?[0], ranks as f32);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::all_reduce`].
    pub fn all_reduce<T: NcclElement, S, D>(
        &self,
        src: &S,
        dst: &mut D,
        op: &ReduceOp,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        let mut group = Group::start()?;
        group.all_reduce(self, src, dst, op)?;
        group.end()
    }

    /// [`Group::all_reduce_in_place`] alone.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let gpu = Gpu::new(0)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 0, 1)?;
    /// let mut grads = gpu.upload(&[0.5f32; 1024])?;
    /// comm.all_reduce_in_place(&mut grads, &ReduceOp::Avg)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::all_reduce`].
    pub fn all_reduce_in_place<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        buffer: &mut D,
        op: &ReduceOp,
    ) -> Result<(), Error> {
        let mut group = Group::start()?;
        group.all_reduce_in_place(self, buffer, op)?;
        group.end()
    }

    /// [`Group::broadcast`] alone: the root passes `Some(&source)`, every other rank `None`.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let (id, rank) = (UniqueId::new()?, 0);
    /// # let gpu = Gpu::new(rank)?;
    /// # let comm = Communicator::for_rank(&gpu, &id, rank, 2)?;
    /// let mut copy = gpu.zeros::<f32>(8)?;
    /// if comm.rank() == 0 {
    ///     let w = gpu.upload(&[1.0f32; 8])?;
    ///     comm.broadcast(Some(&w), &mut copy, 0)?;
    /// } else {
    ///     comm.broadcast(None, &mut copy, 0)?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::broadcast`].
    pub fn broadcast<T: NcclElement, D>(
        &self,
        src: Option<&dyn DeviceMemory<T>>,
        dst: &mut D,
        root: usize,
    ) -> Result<(), Error>
    where
        D: DeviceMemoryMut<T> + ?Sized,
    {
        let mut group = Group::start()?;
        group.broadcast(self, src, dst, root)?;
        group.end()
    }

    /// [`Group::broadcast_in_place`] alone.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let gpu = Gpu::new(0)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 0, 1)?;
    /// let mut w = gpu.upload(&[2u32; 8])?;
    /// comm.broadcast_in_place(&mut w, 0)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::broadcast`].
    pub fn broadcast_in_place<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        buffer: &mut D,
        root: usize,
    ) -> Result<(), Error> {
        let mut group = Group::start()?;
        group.broadcast_in_place(self, buffer, root)?;
        group.end()
    }

    /// [`Group::reduce`] alone: the root passes `Some(&mut destination)`, every other rank
    /// `None`.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let (id, rank) = (UniqueId::new()?, 1);
    /// # let gpu = Gpu::new(rank)?;
    /// # let comm = Communicator::for_rank(&gpu, &id, rank, 2)?;
    /// let x = gpu.upload(&[3i32; 8])?;
    /// if comm.rank() == 0 {
    ///     let mut max = gpu.zeros::<i32>(8)?;
    ///     comm.reduce(&x, Some(&mut max), &ReduceOp::Max, 0)?;
    /// } else {
    ///     comm.reduce(&x, None, &ReduceOp::Max, 0)?;
    /// }
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::reduce`].
    pub fn reduce<T: NcclElement, S>(
        &self,
        src: &S,
        dst: Option<&mut dyn DeviceMemoryMut<T>>,
        op: &ReduceOp,
        root: usize,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
    {
        let mut group = Group::start()?;
        group.reduce(self, src, dst, op, root)?;
        group.end()
    }

    /// [`Group::all_gather`] alone.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let gpu = Gpu::new(0)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 0, 1)?;
    /// let part = gpu.upload(&[1u8; 8])?;
    /// let mut all = gpu.zeros::<u8>(8 * comm.ranks())?;
    /// comm.all_gather(&part, &mut all)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::all_gather`].
    pub fn all_gather<T: NcclElement, S, D>(&self, src: &S, dst: &mut D) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        let mut group = Group::start()?;
        group.all_gather(self, src, dst)?;
        group.end()
    }

    /// [`Group::reduce_scatter`] alone.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, ReduceOp, UniqueId};
    /// # let gpu = Gpu::new(0)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 0, 1)?;
    /// let all = gpu.upload(&vec![1.0f64; 8 * comm.ranks()])?;
    /// let mut mine = gpu.zeros::<f64>(8)?;
    /// comm.reduce_scatter(&all, &mut mine, &ReduceOp::Sum)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::reduce_scatter`].
    pub fn reduce_scatter<T: NcclElement, S, D>(
        &self,
        src: &S,
        dst: &mut D,
        op: &ReduceOp,
    ) -> Result<(), Error>
    where
        S: DeviceMemory<T> + ?Sized,
        D: DeviceMemoryMut<T> + ?Sized,
    {
        let mut group = Group::start()?;
        group.reduce_scatter(self, src, dst, op)?;
        group.end()
    }

    /// [`Group::send`] alone (the peer receives in a call of its own process or thread).
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let gpu = Gpu::new(0)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 0, 2)?;
    /// comm.send(&gpu.upload(&[1.0f32; 8])?, 1)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::send`].
    pub fn send<T: NcclElement, S: DeviceMemory<T> + ?Sized>(
        &self,
        src: &S,
        peer: usize,
    ) -> Result<(), Error> {
        let mut group = Group::start()?;
        group.send(self, src, peer)?;
        group.end()
    }

    /// [`Group::recv`] alone.
    ///
    /// ```no_run
    /// # use cuda_kernel_runtime::{Communicator, Gpu, UniqueId};
    /// # let gpu = Gpu::new(1)?;
    /// # let comm = Communicator::for_rank(&gpu, &UniqueId::new()?, 1, 2)?;
    /// let mut x = gpu.zeros::<f32>(8)?;
    /// comm.recv(&mut x, 0)?;
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Group::recv`].
    pub fn recv<T: NcclElement, D: DeviceMemoryMut<T> + ?Sized>(
        &self,
        dst: &mut D,
        peer: usize,
    ) -> Result<(), Error> {
        let mut group = Group::start()?;
        group.recv(self, dst, peer)?;
        group.end()
    }
}
