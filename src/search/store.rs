//! The visited store: which packed states have been seen. Several threads
//! may insert at once. The search is generic over the store, so the choice
//! is made once per search, not once per successor.
//!
//! [`Dense`]: one bit per possible state, for layouts of at most
//! [`DENSE_MAX_BITS`] bits. A lookup is a plain load; only a new state costs
//! an atomic `fetch_or`, and new states are few next to the successors seen.
//! [`Sparse`]: a `hashbrown` set of packed words, split into shards by hash
//! so that threads rarely wait for one another.

use crate::compile::Word;
use hashbrown::HashSet;
use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The largest layout (in bits) whose store is a dense bitset: 2^30 bits
/// is 128 MiB.
pub const DENSE_MAX_BITS: u32 = 30;

/// Which store a layout of `bits` bits gets, in words.
pub fn store_name(bits: u32) -> &'static str {
    if bits <= DENSE_MAX_BITS {
        "dense bitset"
    } else {
        "hash set"
    }
}

/// A set of packed states that threads can share.
pub trait Store<W: Word>: Sync {
    /// An empty store for a layout of `bits` bits.
    fn new(bits: u32) -> Self;
    /// Marks `s`; true if it was new.
    fn insert(&self, s: W) -> bool;
    fn contains(&self, s: W) -> bool;
    /// Marks the states `base | p` for each bit `p` of `mask` (bit `p % 64`
    /// of word `p / 64`), and calls `new(p)` for those that were new. The
    /// states lie in one aligned block of `64 * R` values: `base` has zeros
    /// where `p` may have ones.
    #[inline(always)]
    fn insert_row<const R: usize>(&self, base: W, mask: [u64; R], mut new: impl FnMut(u32)) {
        for (r, &word) in mask.iter().enumerate() {
            for_each_bit(word, |b| {
                let p = 64 * r as u32 + b;
                if self.insert(base | W::from_u64(p as u64)) {
                    new(p);
                }
            });
        }
    }
    /// How many states are marked.
    fn count(&self) -> u64;
}

/// One bit per packed value.
pub struct Dense<W> {
    words: Vec<AtomicU64>,
    word: PhantomData<W>,
}

impl<W: Word> Store<W> for Dense<W> {
    fn new(bits: u32) -> Self {
        let n = (1usize << bits).div_ceil(64);
        Dense {
            words: (0..n).map(|_| AtomicU64::new(0)).collect(),
            word: PhantomData,
        }
    }

    #[inline(always)]
    fn insert(&self, s: W) -> bool {
        let i = s.low() as usize;
        let (w, b) = (&self.words[i >> 6], 1u64 << (i & 63));
        w.load(Relaxed) & b == 0 && w.fetch_or(b, Relaxed) & b == 0
    }

    #[inline(always)]
    fn contains(&self, s: W) -> bool {
        let i = s.low() as usize;
        self.words[i >> 6].load(Relaxed) >> (i & 63) & 1 == 1
    }

    /// One load per word of the row, and one atomic `fetch_or` per word
    /// that has new states.
    #[inline(always)]
    fn insert_row<const R: usize>(&self, base: W, mask: [u64; R], mut new: impl FnMut(u32)) {
        let i = base.low() as usize;
        // A row of fewer than 64 values sits inside one word; longer ones
        // start at a word.
        let shift = if R == 1 { i & 63 } else { 0 };
        let words = &self.words[i >> 6..][..R];
        for (r, (w, &m)) in words.iter().zip(&mask).enumerate() {
            let m = m << shift;
            let unseen = m & !w.load(Relaxed);
            if unseen != 0 {
                let fresh = (unseen & !w.fetch_or(unseen, Relaxed)) >> shift;
                for_each_bit(fresh, |b| new(64 * r as u32 + b));
            }
        }
    }

    fn count(&self) -> u64 {
        self.words
            .iter()
            .map(|w| w.load(Relaxed).count_ones() as u64)
            .sum()
    }
}

/// Calls `f` with the index of each set bit of `word`, lowest first.
#[inline(always)]
pub fn for_each_bit(mut word: u64, mut f: impl FnMut(u32)) {
    while word != 0 {
        f(word.trailing_zeros());
        word &= word - 1;
    }
}

const SHARDS: usize = 64;

/// A hash set of packed words, in shards.
pub struct Sparse<W> {
    shards: Vec<Mutex<HashSet<W>>>,
}

impl<W: Word> Sparse<W> {
    fn shard(&self, s: W) -> std::sync::MutexGuard<'_, HashSet<W>> {
        // Fibonacci hashing of both halves picks a shard.
        let h = (s.low() ^ (s >> 64u32.min(W::BITS - 1)).low()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.shards[(h >> 58) as usize % SHARDS]
            .lock()
            .expect("a shard lock is never poisoned")
    }
}

impl<W: Word> Store<W> for Sparse<W> {
    fn new(_bits: u32) -> Self {
        Sparse {
            shards: (0..SHARDS).map(|_| Mutex::new(HashSet::new())).collect(),
        }
    }

    #[inline(always)]
    fn insert(&self, s: W) -> bool {
        self.shard(s).insert(s)
    }

    #[inline(always)]
    fn contains(&self, s: W) -> bool {
        self.shard(s).contains(&s)
    }

    fn count(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().expect("a shard lock is never poisoned").len() as u64)
            .sum()
    }
}
