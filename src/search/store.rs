//! The visited store: which packed states have been seen. Several threads
//! may insert at once. The search is generic over the store, so the choice
//! is made once per search, not once per successor.
//!
//! [`Dense`]: one bit per possible state, for layouts of at most
//! [`crate::plan::DENSE_MAX_BITS`] bits. A lookup is a plain load; only a new state costs
//! an atomic `fetch_or`, and new states are few next to the successors seen.
//! [`Sparse`]: a `hashbrown` set of packed words, split into shards by hash
//! so that threads rarely wait for one another.
//!
//! A thread that has a store to itself marks through [`Own`] instead: plain
//! loads and stores, no atomics, no locks. A row of states that differ only
//! in the lowest field ([`Store::insert_row`]) costs one load per word.

use crate::plan::Word;
use hashbrown::HashSet;
use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// A set of packed states that threads can share.
pub trait Store<W: Word>: Sync {
    /// An empty store for a layout of `bits` bits; `None` if its memory
    /// cannot be had.
    fn try_new(bits: u32) -> Option<Self>
    where
        Self: Sized;
    /// An empty store for a layout of `bits` bits.
    fn new(bits: u32) -> Self
    where
        Self: Sized,
    {
        Self::try_new(bits).expect("memory for the visited store")
    }
    /// The bytes it holds now.
    fn bytes(&self) -> u64;
    /// Some insert could not get the memory it needed (the store is then
    /// incomplete: the search must stop).
    fn failed(&self) -> bool {
        false
    }
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
    /// [`Store::insert`] with the store to this thread alone: no atomic
    /// read-modify-write, no lock.
    fn insert_mut(&mut self, s: W) -> bool {
        self.insert(s)
    }
    /// [`Store::insert_row`] with the store to this thread alone.
    fn insert_row_mut<const R: usize>(&mut self, base: W, mask: [u64; R], new: impl FnMut(u32)) {
        self.insert_row(base, mask, new)
    }
}

/// Marks states seen, for a search loop: a store that threads share
/// (`&S`: atomic updates), or one this thread has to itself ([`Own`]: plain
/// ones, which a locked instruction per new state would otherwise slow
/// down by a fifth in a maze).
pub trait Mark<W: Word> {
    /// Marks `s`; true if it was new.
    fn mark(&mut self, s: W) -> bool;
    /// Marks a row of states, as [`Store::insert_row`].
    fn mark_row<const R: usize>(&mut self, base: W, mask: [u64; R], new: impl FnMut(u32));
    /// The same marker for a while (a reborrow), to hand to a loop by value.
    type Again<'a>: Mark<W>
    where
        Self: 'a;
    fn again(&mut self) -> Self::Again<'_>;
}

impl<W: Word, S: Store<W>> Mark<W> for &S {
    type Again<'a>
        = Self
    where
        Self: 'a;

    fn again(&mut self) -> Self {
        self
    }

    #[inline(always)]
    fn mark(&mut self, s: W) -> bool {
        self.insert(s)
    }

    #[inline(always)]
    fn mark_row<const R: usize>(&mut self, base: W, mask: [u64; R], new: impl FnMut(u32)) {
        self.insert_row(base, mask, new)
    }
}

/// A store that one thread has to itself.
pub struct Own<'a, S>(pub &'a mut S);

impl<W: Word, S: Store<W>> Mark<W> for Own<'_, S> {
    type Again<'a>
        = Own<'a, S>
    where
        Self: 'a;

    fn again(&mut self) -> Own<'_, S> {
        Own(&mut *self.0)
    }

    #[inline(always)]
    fn mark(&mut self, s: W) -> bool {
        self.0.insert_mut(s)
    }

    #[inline(always)]
    fn mark_row<const R: usize>(&mut self, base: W, mask: [u64; R], new: impl FnMut(u32)) {
        self.0.insert_row_mut(base, mask, new)
    }
}

/// One bit per packed value.
pub struct Dense<W> {
    words: Vec<AtomicU64>,
    word: PhantomData<W>,
}

impl<W: Word> Dense<W> {
    /// Where the row of `R` words at `base` lies: its first word, and the
    /// shift of its bits in that word (a row of fewer than 64 values sits
    /// inside one word; longer ones start at a word).
    #[inline(always)]
    fn row<const R: usize>(base: W) -> (usize, usize) {
        let i = base.low() as usize;
        (i >> 6, if R == 1 { i & 63 } else { 0 })
    }
}

impl<W: Word> Store<W> for Dense<W> {
    fn try_new(bits: u32) -> Option<Self> {
        let n = (1usize << bits).div_ceil(64);
        let mut words = Vec::new();
        words.try_reserve_exact(n).ok()?;
        words.resize_with(n, || AtomicU64::new(0));
        Some(Dense {
            words,
            word: PhantomData,
        })
    }

    fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
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
        let (first, shift) = Self::row::<R>(base);
        let words = &self.words[first..][..R];
        for (r, (w, &m)) in words.iter().zip(&mask).enumerate() {
            let m = m << shift;
            let unseen = m & !w.load(Relaxed);
            if unseen != 0 {
                let fresh = (unseen & !w.fetch_or(unseen, Relaxed)) >> shift;
                for_each_bit(fresh, |b| new(64 * r as u32 + b));
            }
        }
    }

    #[inline(always)]
    fn insert_mut(&mut self, s: W) -> bool {
        let i = s.low() as usize;
        let (w, b) = (self.words[i >> 6].get_mut(), 1u64 << (i & 63));
        if *w & b != 0 {
            return false;
        }
        *w |= b;
        true
    }

    #[inline(always)]
    fn insert_row_mut<const R: usize>(
        &mut self,
        base: W,
        mask: [u64; R],
        mut new: impl FnMut(u32),
    ) {
        let (first, shift) = Self::row::<R>(base);
        let words = &mut self.words[first..][..R];
        for (r, (w, &m)) in words.iter_mut().zip(&mask).enumerate() {
            let w = w.get_mut();
            let fresh = m << shift & !*w;
            if fresh != 0 {
                *w |= fresh;
                for_each_bit(fresh >> shift, |b| new(64 * r as u32 + b));
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
fn for_each_bit(mut word: u64, mut f: impl FnMut(u32)) {
    while word != 0 {
        f(word.trailing_zeros());
        word &= word - 1;
    }
}

const SHARDS: usize = 64;

/// A hash set of packed words, in shards.
pub struct Sparse<W> {
    shards: Vec<Mutex<HashSet<W>>>,
    /// An insert could not grow its shard.
    failed: AtomicBool,
}

impl<W: Word> Sparse<W> {
    /// Fibonacci hashing of both halves picks a shard.
    fn shard_of(s: W) -> usize {
        let h = (s.low() ^ (s >> 64u32.min(W::BITS - 1)).low()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 58) as usize % SHARDS
    }

    fn shard(&self, s: W) -> std::sync::MutexGuard<'_, HashSet<W>> {
        self.shards[Self::shard_of(s)]
            .lock()
            .expect("a shard lock is never poisoned")
    }
}

impl<W: Word> Store<W> for Sparse<W> {
    fn try_new(_bits: u32) -> Option<Self> {
        Some(Sparse {
            shards: (0..SHARDS).map(|_| Mutex::new(HashSet::new())).collect(),
            failed: AtomicBool::new(false),
        })
    }

    fn bytes(&self) -> u64 {
        let per = std::mem::size_of::<W>() as u64 + 1;
        self.shards
            .iter()
            .map(|s| s.lock().expect("a shard lock is never poisoned").capacity() as u64 * per)
            .sum()
    }

    fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    #[inline(always)]
    fn insert(&self, s: W) -> bool {
        let mut shard = self.shard(s);
        // Growing the table may fail: then the state counts as seen and the
        // store as failed, and the search stops.
        if shard.try_reserve(1).is_err() {
            self.failed.store(true, Relaxed);
            return false;
        }
        shard.insert(s)
    }

    #[inline(always)]
    fn contains(&self, s: W) -> bool {
        self.shard(s).contains(&s)
    }

    #[inline(always)]
    fn insert_mut(&mut self, s: W) -> bool {
        let i = Self::shard_of(s);
        let shard = self.shards[i]
            .get_mut()
            .expect("a shard lock is never poisoned");
        if shard.try_reserve(1).is_err() {
            *self.failed.get_mut() = true;
            return false;
        }
        shard.insert(s)
    }

    fn count(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().expect("a shard lock is never poisoned").len() as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Random single and row inserts, shared and exclusive, against a
    /// `HashSet`: the same answers, the same new states, the same count.
    fn agrees<S: Store<u64>>(bits: u32, seed: u64) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut store = S::new(bits);
        let mut model = std::collections::HashSet::new();
        for _ in 0..4000 {
            let s = rng.gen_range(0..1u64 << bits);
            let exclusive = rng.gen_bool(0.5);
            match rng.gen_range(0..4) {
                0 => {
                    let new = if exclusive {
                        store.insert_mut(s)
                    } else {
                        store.insert(s)
                    };
                    assert_eq!(new, model.insert(s), "insert {s}");
                }
                1 => assert_eq!(store.contains(s), model.contains(&s), "contains {s}"),
                // Rows as the successor kernels make them: 2^k values at
                // an aligned base, k up to 8 (four words).
                _ => {
                    let k = rng.gen_range(0..=8.min(bits));
                    let base = s >> k << k;
                    let mut mask = [0u64; 4];
                    for p in 0..1u32 << k {
                        if rng.gen_bool(0.3) {
                            mask[p as usize / 64] |= 1 << (p % 64);
                        }
                    }
                    let mut got = Vec::new();
                    let mut record = |p: u32| got.push(base + p as u64);
                    match (k, exclusive) {
                        (0..=6, false) => store.insert_row(base, [mask[0]], &mut record),
                        (0..=6, true) => store.insert_row_mut(base, [mask[0]], &mut record),
                        (7, false) => store.insert_row(base, [mask[0], mask[1]], &mut record),
                        (7, true) => store.insert_row_mut(base, [mask[0], mask[1]], &mut record),
                        (_, false) => store.insert_row(base, mask, &mut record),
                        (_, true) => store.insert_row_mut(base, mask, &mut record),
                    }
                    let want: Vec<u64> = (0..1u64 << k)
                        .filter(|&p| mask[p as usize / 64] >> (p % 64) & 1 == 1)
                        .map(|p| base + p)
                        .filter(|&t| model.insert(t))
                        .collect();
                    assert_eq!(got, want, "row of 2^{k} at {base}");
                }
            }
        }
        assert_eq!(store.count(), model.len() as u64);
    }

    #[test]
    fn dense_agrees_with_a_hash_set() {
        for (bits, seed) in [(3, 1), (6, 2), (9, 3), (12, 4)] {
            agrees::<Dense<u64>>(bits, seed);
        }
    }

    #[test]
    fn sparse_agrees_with_a_hash_set() {
        for (bits, seed) in [(6, 5), (12, 6), (40, 7)] {
            agrees::<Sparse<u64>>(bits, seed);
        }
    }
}
