//! Per-context module cache: each embedded module is loaded once per device, even when many
//! threads ask for it at the same time.

use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

use super::ModuleInner;
use crate::device::gpu::Gpu;
use crate::error::Error;

/// Loaded modules of one context, keyed by the address of their `'static` spec and the variant
/// (0: the embedded image, 1: from a library, others: compiled at run time with options).
pub(crate) type ModuleCache = OnceMap<(usize, u64), ModuleInner>;

/// The module cache of `gpu`'s context, made on first use. The device keeps it in a slot of
/// its shared state that does not name the type, so that the device does not depend on the
/// code loaded into it; only this function fills or reads the slot.
pub(crate) fn modules(gpu: &Gpu) -> &ModuleCache {
    let slot = gpu
        .inner()
        .modules
        .get_or_init(|| Box::new(ModuleCache::default()));
    let slot: &(dyn Any + Send + Sync) = &**slot;
    match slot.downcast_ref::<ModuleCache>() {
        Some(cache) => cache,
        None => unreachable!("the module slot only ever holds a ModuleCache"),
    }
}

/// A map whose values are created at most once per key. Creation runs under a per-key lock, so
/// concurrent first users wait for one load instead of loading twice; a failed creation leaves
/// the key empty for the next try.
pub(crate) struct OnceMap<K, T> {
    slots: Mutex<Vec<(K, Slot<T>)>>,
}

type Slot<T> = Arc<Mutex<Option<Arc<T>>>>;

impl<K, T> Default for OnceMap<K, T> {
    fn default() -> Self {
        OnceMap {
            slots: Mutex::new(Vec::new()),
        }
    }
}

impl<K: PartialEq, T> OnceMap<K, T> {
    /// The value for `key`, created by `make` if there is none yet.
    pub(crate) fn get_or_try_init(
        &self,
        key: K,
        make: impl FnOnce() -> Result<T, Error>,
    ) -> Result<Arc<T>, Error> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            match slots.iter().find(|(k, _)| *k == key) {
                Some((_, s)) => s.clone(),
                None => {
                    let s = Slot::default();
                    slots.push((key, s.clone()));
                    s
                }
            }
        };
        let mut value = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = value.as_ref() {
            return Ok(v.clone());
        }
        let v = Arc::new(make()?);
        *value = Some(v.clone());
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn concurrent_first_use_creates_once() {
        let map = OnceMap::<usize, usize>::default();
        let made = AtomicUsize::new(0);
        let got: Vec<Arc<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        map.get_or_try_init(42, || {
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok(made.fetch_add(1, Ordering::SeqCst) + 100)
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        assert_eq!(made.load(Ordering::SeqCst), 1);
        assert!(got.iter().all(|v| Arc::ptr_eq(v, &got[0])));
        assert_eq!(*got[0], 100);
    }

    #[test]
    fn failures_are_retried_and_keys_are_separate() {
        let map = OnceMap::<usize, u32>::default();
        let e = map.get_or_try_init(1, || {
            Err(Error::NoDriver {
                reason: "test".into(),
            })
        });
        assert!(e.is_err());
        assert_eq!(*map.get_or_try_init(1, || Ok(7)).unwrap(), 7);
        assert_eq!(*map.get_or_try_init(2, || Ok(8)).unwrap(), 8);
        assert_eq!(*map.get_or_try_init(1, || Ok(9)).unwrap(), 7);
    }
}
