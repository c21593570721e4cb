//! The visited store: which packed states have been seen. Several threads
//! may insert at once.
//!
//! Dense: one bit per possible state, for layouts of at most
//! [`DENSE_MAX_BITS`] bits. A lookup is a plain load; only a new state costs
//! an atomic `fetch_or`, and new states are few next to the successors seen.
//! Sparse: a `hashbrown` set of packed words, split into shards by hash so
//! that threads rarely wait for one another.

use crate::compile::Word;
use hashbrown::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The largest layout (in bits) whose store is a dense bitset: 2^30 bits
/// is 128 MiB.
pub const DENSE_MAX_BITS: u32 = 30;

const SHARDS: usize = 64;

pub enum Store<W> {
    Dense(Vec<AtomicU64>),
    Sparse(Vec<Mutex<HashSet<W>>>),
}

/// Which store a layout of `bits` bits gets, in words.
pub fn store_name(bits: u32) -> &'static str {
    if bits <= DENSE_MAX_BITS {
        "dense bitset"
    } else {
        "hash set"
    }
}

impl<W: Word> Store<W> {
    pub fn new(bits: u32) -> Self {
        if bits <= DENSE_MAX_BITS {
            let words = (1usize << bits).div_ceil(64);
            Store::Dense((0..words).map(|_| AtomicU64::new(0)).collect())
        } else {
            Store::Sparse((0..SHARDS).map(|_| Mutex::new(HashSet::new())).collect())
        }
    }

    fn shard(s: W) -> usize {
        // Fibonacci hashing of both halves picks a shard.
        let h = (s.low() ^ (s >> 64u32.min(W::BITS - 1)).low()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 58) as usize % SHARDS
    }

    /// Marks `s`; true if it was new.
    #[inline(always)]
    pub fn insert(&self, s: W) -> bool {
        match self {
            Store::Dense(v) => {
                let i = s.low() as usize;
                let (w, b) = (&v[i >> 6], 1u64 << (i & 63));
                w.load(Relaxed) & b == 0 && w.fetch_or(b, Relaxed) & b == 0
            }
            Store::Sparse(shards) => shards[Self::shard(s)]
                .lock()
                .expect("a shard lock is never poisoned")
                .insert(s),
        }
    }

    #[inline(always)]
    pub fn contains(&self, s: W) -> bool {
        match self {
            Store::Dense(v) => {
                let i = s.low() as usize;
                v[i >> 6].load(Relaxed) >> (i & 63) & 1 == 1
            }
            Store::Sparse(shards) => shards[Self::shard(s)]
                .lock()
                .expect("a shard lock is never poisoned")
                .contains(&s),
        }
    }

    /// How many states are marked.
    pub fn count(&self) -> u64 {
        match self {
            Store::Dense(v) => v.iter().map(|w| w.load(Relaxed).count_ones() as u64).sum(),
            Store::Sparse(shards) => shards
                .iter()
                .map(|s| s.lock().expect("a shard lock is never poisoned").len() as u64)
                .sum(),
        }
    }
}
