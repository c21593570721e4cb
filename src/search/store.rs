//! The visited store: which packed states have been seen. Several threads
//! may insert at once. The search is generic over the store, so the choice
//! is made once per search, not once per successor.
//!
//! [`Dense`]: one bit per possible state, for layouts of at most
//! [`crate::plan::DENSE_MAX_BITS`] bits. A lookup is a plain load; only a new state costs
//! an atomic `fetch_or`, and new states are few next to the successors seen.
//! [`Sparse`]: a `hashbrown` set of packed words, split into shards by hash
//! so that threads rarely wait for one another.
//! [`Growing`]: a [`Sparse`] set while the states seen are few next to the
//! values the layout can pack, a [`Dense`] bitset once they are many. A
//! bitset of 2^28 bits is 32 MiB whatever the search reaches, and a few
//! thousand states spread over it touch nearly every page of it.
//!
//! [`Keyed`]: any of these over a key of each state rather than its
//! packed word: the state less its clock ([`Masked`]), or its rank
//! ([`Ranked`], [`SetRanker`]), where alike movers make the ranks far
//! fewer.
//!
//! A thread that has a store to itself marks through [`Own`] instead: plain
//! loads and stores, no atomics, no locks. A row of states that differ only
//! in the lowest field ([`Store::insert_row`]) costs one load per word.

use crate::pack::{SetRanker, Word};
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
    /// The bytes it takes as soon as it is made, for a layout of `bits`
    /// bits (what the budget must have room for before the search).
    fn upfront(bits: u32) -> u64
    where
        Self: Sized,
    {
        let _ = bits;
        0
    }
    /// Called between levels, with the store to one thread: a store may
    /// change how it keeps the states here, knowing that the next level is
    /// expected to add about `next` states. `room(bytes)` says whether the
    /// budget has room for `bytes` more.
    fn settle(&mut self, next: u64, room: impl FnOnce(u64) -> bool) {
        let _ = (next, room);
    }
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
    /// Calls `f` with each state marked, in no set order.
    fn states(&self, f: &mut dyn FnMut(W));
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
        // Zeroed by the allocator: fresh memory from the system is zero
        // already and stays untouched, so a search that reaches few
        // states does not pay to clear (and fault in) all of it.
        let layout = std::alloc::Layout::array::<AtomicU64>(n).ok()?;
        // SAFETY: `layout` has a non-zero size (n >= 1). A null pointer is
        // a failed allocation, returned as `None`. Otherwise the block holds
        // `n` zeroed `AtomicU64`s (all-zero bytes are a valid `AtomicU64`,
        // which has the size and alignment of `u64`), allocated by the
        // global allocator with the layout of `[AtomicU64; n]`, which is
        // what `Vec::from_raw_parts` asks for a length and capacity of `n`.
        let words = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<AtomicU64>();
            if ptr.is_null() {
                return None;
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        Some(Dense {
            words,
            word: PhantomData,
        })
    }

    fn upfront(bits: u32) -> u64 {
        (1u64 << bits).div_ceil(8)
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

    fn states(&self, f: &mut dyn FnMut(W)) {
        for (i, w) in self.words.iter().enumerate() {
            for_each_bit(w.load(Relaxed), |b| {
                f(W::from_u64(64 * i as u64 + u64::from(b)))
            });
        }
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
        let shard = lock(&mut self.shards[Self::shard_of(s)]);
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

    fn states(&self, f: &mut dyn FnMut(W)) {
        for shard in &self.shards {
            shard
                .lock()
                .expect("a shard lock is never poisoned")
                .iter()
                .for_each(|&s| f(s));
        }
    }
}

/// A [`Sparse`] set until the states seen reach
/// [`crate::plan::hash_until`]`(bits)` (`2^bits >> SHIFT`; the plan's
/// [`crate::plan::HASH_SHIFT`] unless a test asks for less), then a
/// [`Dense`] bitset. The hash set keeps `u32`s (the layouts are of at
/// most [`crate::plan::DENSE_MAX_BITS`] bits), 5 to 10 bytes a state, so
/// with the plan's threshold it stays within two thirds of the bitset's
/// `2^bits / 8` bytes, and the store never holds more than about four
/// times what the smaller of the two would (just past the threshold: the
/// bitset, and the hash set that fills it). The bitset takes over in
/// [`Store::settle`], between levels; if the budget or the system cannot
/// give it, the hash set stays.
pub struct Growing<W, const SHIFT: u32 = { crate::plan::HASH_SHIFT }> {
    sparse: Sparse<u32>,
    dense: Option<Dense<W>>,
    bits: u32,
    /// The bitset was refused once: no more asking.
    stay: bool,
}

impl<W: Word, const SHIFT: u32> Growing<W, SHIFT> {
    /// Whether the bitset has taken over.
    pub fn is_dense(&self) -> bool {
        self.dense.is_some()
    }
}

impl<W: Word, const SHIFT: u32> Store<W> for Growing<W, SHIFT> {
    fn try_new(bits: u32) -> Option<Self> {
        debug_assert!(bits <= 32, "the plan grows a store for at most 30 bits");
        Some(Growing {
            sparse: Sparse::try_new(bits)?,
            dense: None,
            bits,
            stay: false,
        })
    }

    fn failed(&self) -> bool {
        self.sparse.failed()
    }

    fn settle(&mut self, next: u64, room: impl FnOnce(u64) -> bool) {
        if self.dense.is_some() || self.stay {
            return;
        }
        // Handed over before the level expected to cross the threshold, not
        // after it: a level is expanded in the store it starts with, and
        // the level that crosses it could put several times the threshold
        // into the hash set (at 5 to 10 bytes a state, where the bitset
        // would take a bit).
        let seen: usize = self.sparse.shards.iter_mut().map(|s| lock(s).len()).sum();
        if (seen as u64).saturating_add(next) < crate::plan::hash_until(self.bits, SHIFT) {
            return;
        }
        let dense = room(Dense::<W>::upfront(self.bits))
            .then(|| Dense::<W>::try_new(self.bits))
            .flatten();
        let Some(mut dense) = dense else {
            self.stay = true;
            return;
        };
        for shard in &mut self.sparse.shards {
            for s in lock(shard).drain() {
                dense.insert_mut(W::from_u64(s.into()));
            }
        }
        // The emptied shards' tables go back now, not at the end.
        self.sparse = Sparse::try_new(self.bits).expect("an empty hash set");
        self.dense = Some(dense);
    }

    #[inline(always)]
    fn insert(&self, s: W) -> bool {
        match &self.dense {
            Some(d) => d.insert(s),
            None => self.sparse.insert(key(s)),
        }
    }

    #[inline(always)]
    fn contains(&self, s: W) -> bool {
        match &self.dense {
            Some(d) => d.contains(s),
            None => self.sparse.contains(key(s)),
        }
    }

    #[inline(always)]
    fn insert_row<const R: usize>(&self, base: W, mask: [u64; R], new: impl FnMut(u32)) {
        match &self.dense {
            Some(d) => d.insert_row(base, mask, new),
            None => self.sparse.insert_row(key(base), mask, new),
        }
    }

    fn count(&self) -> u64 {
        match &self.dense {
            Some(d) => d.count(),
            None => self.sparse.count(),
        }
    }

    fn states(&self, f: &mut dyn FnMut(W)) {
        match &self.dense {
            Some(d) => d.states(f),
            None => self.sparse.states(&mut |s| f(W::from_u64(s.into()))),
        }
    }

    #[inline(always)]
    fn insert_mut(&mut self, s: W) -> bool {
        match &mut self.dense {
            Some(d) => d.insert_mut(s),
            None => self.sparse.insert_mut(key(s)),
        }
    }

    #[inline(always)]
    fn insert_row_mut<const R: usize>(&mut self, base: W, mask: [u64; R], new: impl FnMut(u32)) {
        match &mut self.dense {
            Some(d) => d.insert_row_mut(base, mask, new),
            None => self.sparse.insert_row_mut(key(base), mask, new),
        }
    }
}

/// A state of at most 32 bits as the key of a growing store's hash set.
#[inline(always)]
fn key<W: Word>(s: W) -> u32 {
    debug_assert!(
        s.low() <= u32::MAX as u64,
        "a growing store's states fit 32 bits"
    );
    s.low() as u32
}

/// A shard this thread has to itself.
fn lock<W>(shard: &mut Mutex<HashSet<W>>) -> &mut HashSet<W> {
    shard.get_mut().expect("a shard lock is never poisoned")
}

/// What a keyed store ([`Keyed`]) keeps of a state: its key, and the
/// state back from a key (for [`Store::states`]).
pub trait Key<W>: Sync {
    type K: Word;
    fn key(&self, s: W) -> Self::K;
    fn state(&self, k: Self::K) -> W;
}

/// A store that keeps each state's key ([`Key`]) in a store of keys: the
/// state less some bits ([`Mask`]), or its rank ([`SetRanker`]).
pub struct Keyed<S, T> {
    pub inner: S,
    pub key: T,
}

/// A state less some bits: `keep` clears them (the clock, where the plan
/// keeps each state at its earliest, see
/// [`crate::task::Task::earliest_is_best`]): a state found again at a
/// later time is not new.
pub struct Mask<W>(pub W);

impl<W: Word> Key<W> for Mask<W> {
    type K = W;
    #[inline(always)]
    fn key(&self, s: W) -> W {
        s & self.0
    }
    fn state(&self, k: W) -> W {
        k
    }
}

/// A state as its rank, the positions of each set of twins one multiset:
/// where the twins are many, the ranks are far fewer than the packed
/// values, and fit a `u32` (the plan ranks only then).
impl<W: Word> Key<W> for SetRanker {
    type K = u32;
    #[inline(always)]
    fn key(&self, s: W) -> u32 {
        self.rank(s) as u32
    }
    fn state(&self, k: u32) -> W {
        SetRanker::state(self, u64::from(k))
    }
}

/// The states kept less some bits.
pub type Masked<S, W> = Keyed<S, Mask<W>>;
/// The states kept as their ranks.
pub type Ranked<S> = Keyed<S, SetRanker>;

// Rows go state by state through `insert` (the trait's own `insert_row`):
// the bits cleared may be those of the row, and a row of packed values is
// not a row of ranks.
impl<W: Word, T: Key<W>, S: Store<T::K>> Store<W> for Keyed<S, T> {
    /// Made from a store of keys and its key, never from a size alone.
    fn try_new(_: u32) -> Option<Self> {
        None
    }
    fn settle(&mut self, next: u64, room: impl FnOnce(u64) -> bool) {
        self.inner.settle(next, room)
    }
    fn failed(&self) -> bool {
        self.inner.failed()
    }
    #[inline(always)]
    fn insert(&self, s: W) -> bool {
        self.inner.insert(self.key.key(s))
    }
    fn contains(&self, s: W) -> bool {
        self.inner.contains(self.key.key(s))
    }
    fn count(&self) -> u64 {
        self.inner.count()
    }
    fn states(&self, f: &mut dyn FnMut(W)) {
        self.inner.states(&mut |k| f(self.key.state(k)))
    }
    #[inline(always)]
    fn insert_mut(&mut self, s: W) -> bool {
        let k = self.key.key(s);
        self.inner.insert_mut(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Random single and row inserts, shared and exclusive, against a
    /// `HashSet`: the same answers, the same new states, the same count.
    /// Between some operations the store settles (`room` says whether the
    /// budget has room): it may change how it keeps the states then.
    fn agrees<S: Store<u64>>(bits: u32, seed: u64, room: bool) -> S {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut store = S::new(bits);
        let mut model = std::collections::HashSet::new();
        for _ in 0..4000 {
            let s = rng.gen_range(0..1u64 << bits);
            let exclusive = rng.gen_bool(0.5);
            if rng.gen_bool(0.02) {
                store.settle(rng.gen_range(0..64), |_| room);
            }
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
        store
    }

    #[test]
    fn dense_agrees_with_a_hash_set() {
        for (bits, seed) in [(3, 1), (6, 2), (9, 3), (12, 4)] {
            agrees::<Dense<u64>>(bits, seed, true);
        }
    }

    #[test]
    fn sparse_agrees_with_a_hash_set() {
        for (bits, seed) in [(6, 5), (12, 6), (40, 7)] {
            agrees::<Sparse<u64>>(bits, seed, true);
        }
    }

    /// A growing store that moves to its bitset midway (after 2^bits / 16
    /// states) answers as one that never does; refused the bitset, it
    /// keeps its hash set.
    #[test]
    fn growing_agrees_with_a_hash_set_before_and_after_its_bitset() {
        for (bits, seed) in [(6, 8), (10, 9), (12, 10)] {
            let moved = agrees::<Growing<u64, 4>>(bits, seed, true);
            assert!(moved.is_dense(), "{bits} bits: the bitset took over");
            let kept = agrees::<Growing<u64, 4>>(bits, seed, false);
            assert!(!kept.is_dense(), "{bits} bits: no room, no bitset");
        }
        // The plan's own threshold: 2^12 values, 4 states in the hash set.
        let late = agrees::<Growing<u64>>(12, 11, true);
        assert!(late.is_dense());
    }
}
