//! The Play RPC's row cache: one prepared row ([`GameRow`], the one O(n²)
//! sweep) shared by every game on the same row, kept for later games after
//! its games end.
//!
//! Keyed by the variant and the SHA-256 of the row ([`crate::service::state::play_token::row_digest`]).
//! Bounded by bytes (`play.row_cache_bytes`, the rows' [`GameRow::heap_bytes`]),
//! least recently used out first. Each [`PreparedRow`] holds its memory as a
//! reservation in the server's piles budget (8 bytes a pile) for as long as
//! the cache or a game holds it, so cached rows count in admission; when a
//! new game's row does not fit the budget, [`RowCache::evict_idle`] drops
//! the rows no game is using. Concurrent starts on the same uncached row
//! wait for one build ([`tokio::sync::OnceCell`]); if that build fails or
//! its client goes away, the next waiter builds.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use crate::core::Variant;
use crate::core::game::GameRow;

use crate::service::state::limits::{AdmissionError, Budget, Reservation};

/// A cache key: the variant and the row's SHA-256.
pub type RowKey = (Variant, [u8; 32]);

/// A prepared row and the memory it holds in the piles budget.
#[derive(Debug)]
pub struct PreparedRow {
    /// The row and its kept layers.
    pub row: Arc<GameRow>,
    /// Its heap bytes.
    pub bytes: u64,
    /// Released when the last holder (the cache or a game) lets go.
    _memory: Vec<Reservation>,
}

impl PreparedRow {
    /// A row holding `memory` until it is dropped.
    pub fn new(row: GameRow, memory: Vec<Reservation>) -> PreparedRow {
        let bytes = row.heap_bytes() as u64;
        PreparedRow {
            row: Arc::new(row),
            bytes,
            _memory: memory,
        }
    }
}

#[derive(Debug)]
struct Slot {
    cell: Arc<OnceCell<Arc<PreparedRow>>>,
    /// Counted in [`Inner::bytes`] (0 until the row is ready).
    bytes: u64,
    last_used: u64,
}

#[derive(Debug, Default)]
struct Inner {
    slots: HashMap<RowKey, Slot>,
    bytes: u64,
    tick: u64,
}

/// The cache (see the module's docs).
#[derive(Debug)]
pub struct RowCache {
    max_bytes: u64,
    inner: Mutex<Inner>,
}

/// The cache's size now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Ready rows kept.
    pub entries: u64,
    /// Their heap bytes.
    pub bytes: u64,
}

impl RowCache {
    /// A cache of at most `max_bytes` of rows (0: none are kept).
    pub fn new(max_bytes: u64) -> RowCache {
        RowCache {
            max_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every
        // update is a few assignments): go on.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The row of `key`: from the cache (`true`), or built by `build`
    /// (`false`), once for all the callers waiting on the same key.
    pub async fn get_or_build<E, F, Fut>(
        &self,
        key: RowKey,
        build: F,
    ) -> Result<(Arc<PreparedRow>, bool), E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<PreparedRow, E>>,
    {
        let cell = {
            let mut inner = self.lock();
            inner.tick += 1;
            let tick = inner.tick;
            let slot = inner.slots.entry(key).or_insert_with(|| Slot {
                cell: Arc::new(OnceCell::new()),
                bytes: 0,
                last_used: tick,
            });
            slot.last_used = tick;
            Arc::clone(&slot.cell)
        };
        let mut built = false;
        let result = cell
            .get_or_try_init(|| async {
                built = true;
                build().await.map(Arc::new)
            })
            .await
            .cloned();
        let mut inner = self.lock();
        match result {
            Ok(row) => {
                if built {
                    self.admit(&mut inner, key, &cell, row.bytes);
                }
                Ok((row, !built))
            }
            Err(e) => {
                // Nobody else waits on an empty cell: forget the key.
                if let Some(slot) = inner.slots.get(&key)
                    && Arc::ptr_eq(&slot.cell, &cell)
                    && !cell.initialized()
                    && Arc::strong_count(&cell) == 2
                {
                    inner.slots.remove(&key);
                }
                Err(e)
            }
        }
    }

    /// Counts a newly built row and evicts the least recently used others
    /// beyond the bound (the new row itself when it alone is too large).
    fn admit(
        &self,
        inner: &mut Inner,
        key: RowKey,
        cell: &Arc<OnceCell<Arc<PreparedRow>>>,
        bytes: u64,
    ) {
        let Some(slot) = inner.slots.get_mut(&key) else {
            return;
        };
        if !Arc::ptr_eq(&slot.cell, cell) {
            return;
        }
        if bytes > self.max_bytes {
            inner.slots.remove(&key);
            return;
        }
        slot.bytes = bytes;
        inner.bytes += bytes;
        while inner.bytes > self.max_bytes {
            let victim = inner
                .slots
                .iter()
                .filter(|(k, s)| **k != key && s.bytes > 0)
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| *k);
            let Some(slot) = victim.and_then(|k| inner.slots.remove(&k)) else {
                break;
            };
            inner.bytes -= slot.bytes;
        }
    }

    /// Drops the ready rows no game holds, least recently used first, until
    /// `bytes` are freed (or none is left); the bytes freed. Their memory
    /// goes back to the piles budget at once.
    pub fn evict_idle(&self, bytes: u64) -> u64 {
        let mut inner = self.lock();
        let mut idle: Vec<(u64, RowKey)> = inner
            .slots
            .iter()
            .filter(|(_, s)| {
                s.bytes > 0 && s.cell.get().is_some_and(|row| Arc::strong_count(row) == 1)
            })
            .map(|(k, s)| (s.last_used, *k))
            .collect();
        idle.sort_unstable_by_key(|(used, _)| *used);
        let mut freed = 0;
        for (_, k) in idle {
            if freed >= bytes {
                break;
            }
            let slot = inner.slots.remove(&k).expect("present");
            inner.bytes -= slot.bytes;
            freed += slot.bytes;
        }
        freed
    }

    /// Reserves `units` (8 bytes each) in `budget`; while it is busy,
    /// evicts idle rows and tries again (another request may take the room
    /// freed before this one does), until it fits or no idle row is left.
    pub fn reserve_or_evict(
        &self,
        budget: &Arc<Budget>,
        units: u64,
    ) -> Result<Reservation, AdmissionError> {
        loop {
            match budget.try_reserve(units) {
                Err(busy @ AdmissionError::Busy { .. }) => {
                    if self.evict_idle(units.saturating_mul(8)) == 0 {
                        return Err(busy);
                    }
                }
                reserved => return reserved,
            }
        }
    }

    /// Entries and bytes now.
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.slots.values().filter(|s| s.bytes > 0).count() as u64,
            bytes: inner.bytes,
        }
    }
}

#[cfg(test)]
mod tests;
