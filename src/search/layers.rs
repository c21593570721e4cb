//! Breadth-first search by bitset layers: once a level is large next to
//! the space of states, the visited set, the frontier and the next level
//! are each a bitset over ranked states ([`Ranker`]), and a level is two
//! passes in order over them.
//!
//! The frontier is read row by row (the states that differ only in the
//! last mover's position), in rank order, and each row is expanded at once
//! by the kernel ([`Successors::rows_of`]): its successors come out as rows
//! that are ORed into the next level, without a test or a branch per
//! successor. Then one pass keeps what is new (`next & !visited`), which is
//! the frontier of the level after. Both passes read memory in order, and a
//! row's successors land on a few rows near those of the row before, so
//! the search runs from the caches rather than from random reads.
//!
//! Invariant between levels: `visited` holds every state seen, `frontier`
//! exactly the states of the last level (a subset of `visited`), `next` is
//! zero; the frontier's nonzero words lie in `[lo, hi)`.
//!
//! The answer is a level's number, and a level's set of states does not
//! depend on who finds them first: the same at any thread count.

use super::{How, Store};
use crate::budget::Budget;
use crate::kernel::{Kernel, Moved, RowSink};
use crate::pack::{Odometer, Word};
use crate::plan::Layers;
use crate::solution::Solution;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// A bitset in anonymous memory, zero when made, asked for huge pages: a
/// level's passes sweep all of it, and with small pages every few rows
/// would cost a page walk. Or, where the memory limit leaves no room for
/// the frontier, a bitset in a file: the frontier is read and written in
/// order, a piece at a time, and each piece's pages are let go once it is
/// done, so that only the pieces in hand are resident.
struct Bits {
    map: memmap2::MmapMut,
    words: usize,
    /// The file's mapping: pieces are let go ([`Bits::release`]).
    on_disk: bool,
}

impl Bits {
    /// A bitset in anonymous memory; `touch`: each page written now (else
    /// only the pages a search writes are ever faulted in).
    fn made(words: usize, touch: bool) -> Option<Bits> {
        let map = memmap2::MmapMut::map_anon(words.max(1) * 8).ok()?;
        #[cfg(target_os = "linux")]
        {
            // Advice only: without huge pages the search is slower, not
            // wrong.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        let bits = Bits {
            map,
            words,
            on_disk: false,
        };
        // Written once now, a page at a time: a page first read is the
        // shared zero page, and writing it later swaps in a page of its
        // own and flushes the old mapping from every thread's TLB (an
        // interrupt to each core; with two threads, a tenth of a level's
        // time went to that).
        if touch {
            for w in bits.words().iter().step_by(4096 / 8) {
                w.store(0, Relaxed);
            }
        }
        Some(bits)
    }

    /// A bitset of zeros in a new file of `dir` (a sparse file: no block
    /// is written until a word is), removed when the directory is.
    fn on_disk(words: usize, dir: &std::path::Path) -> Option<Bits> {
        let file = tempfile::tempfile_in(dir).ok()?;
        file.set_len(words.max(1) as u64 * 8).ok()?;
        // SAFETY: the file is this process's own, unnamed, and not
        // truncated while mapped.
        let map = unsafe { memmap2::MmapMut::map_mut(&file) }.ok()?;
        Some(Bits {
            map,
            words,
            on_disk: true,
        })
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: the map is page-aligned, `words * 8` bytes long, and
        // all-zero bytes are a valid `AtomicU64`; it is only ever accessed
        // through these atomics while the slice lives.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU64>(), self.words) }
    }

    /// Lets go of the whole pages of words `[a, b)` of a bitset in a file:
    /// they leave this process's memory (the file keeps what they hold,
    /// and they are read again when next touched). Nothing for a bitset
    /// in memory.
    fn release(&self, a: usize, b: usize) {
        if !self.on_disk {
            return;
        }
        let page = crate::mapped::page_size();
        let (start, end) = ((a * 8).next_multiple_of(page), (b * 8) / page * page);
        if start < end {
            // SAFETY: a shared mapping of a file: its pages let go are
            // kept by the file, not lost (as a private mapping's would
            // be), so no word read later changes.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end - start,
                )
            };
        }
    }
}

/// The bitsets, and where each row lies in them.
pub(super) struct Sets<'l> {
    l: &'l Layers,
    visited: Bits,
    frontier: Bits,
    /// The next level: one for each job of a level when there is room
    /// (each job ORs into its own, with no atomic read-modify-write, and
    /// the pass that keeps the new states ORs them together), else one
    /// that the jobs share.
    next: Vec<Bits>,
}

impl<'l> Sets<'l> {
    /// The bitsets of `l`, with `jobs` next levels, the frontier in a file
    /// of `disk` where one is given; `None` where the memory cannot be had.
    fn new(l: &'l Layers, jobs: usize, disk: Option<&std::path::Path>) -> Option<Self> {
        Sets::made(l, jobs, disk, true)
    }

    /// The bitsets of one worker of the distributed search, in memory.
    /// Alone in its process, their pages are faulted in as the search
    /// writes them (a small search in a large space touches few of them);
    /// beside other workers' threads, each page is written now, as for
    /// the local search's threads (a page faulted in later flushes the
    /// mapping from every thread's TLB: `--workers 2` took 6.7 s on the
    /// scale bench so, where 2 processes of one worker took 5.0 s).
    pub(super) fn of_worker(l: &'l Layers, threads: usize) -> Option<Self> {
        Sets::made(l, 1, None, threads > 1)
    }

    fn made(
        l: &'l Layers,
        jobs: usize,
        disk: Option<&std::path::Path>,
        touch: bool,
    ) -> Option<Self> {
        let frontier = match disk {
            Some(dir) => Bits::on_disk(l.words, dir),
            None => Bits::made(l.words, touch),
        };
        let next: Option<Vec<Bits>> = (0..jobs).map(|_| Bits::made(l.words, touch)).collect();
        Some(Sets {
            l,
            visited: Bits::made(l.words, touch)?,
            frontier: frontier?,
            next: next?,
        })
    }

    /// The words of the states seen.
    pub(super) fn visited(&self) -> &[AtomicU64] {
        self.visited.words()
    }

    /// The words of the frontier.
    pub(super) fn frontier(&self) -> &[AtomicU64] {
        self.frontier.words()
    }

    /// The words of the first job's next level.
    pub(super) fn next(&self) -> &[AtomicU64] {
        self.next[0].words()
    }

    /// Whether each job has a next level of its own.
    fn own(&self) -> bool {
        self.next.len() > 1
    }
}

impl Sets<'_> {
    /// The word of a rank's row, and the shift of its bits in it (rows
    /// narrower than a word share one).
    #[inline(always)]
    fn place<const R: usize>(&self, row: u64) -> (usize, u32) {
        if R > 1 {
            (row as usize * R, 0)
        } else {
            let i = row << self.l.ranker.low_bits();
            ((i >> 6) as usize, (i & 63) as u32)
        }
    }

    /// The bit of the goal, where the goal is one state: it is tested
    /// alone, not each new state.
    pub(super) fn goal_bit<W: Word>(&self, k: &Kernel<'_, W>) -> Option<(usize, u64)> {
        let g = k.task().goal_state()?;
        Some(self.bit(k.layout().encode::<W>(&g)))
    }

    /// The bit of a packed state.
    pub(super) fn bit<W: Word>(&self, s: W) -> (usize, u64) {
        let low = s.low() & ((1u64 << self.l.ranker.low_bits()) - 1);
        let i = (self.l.ranker.rank(s) << self.l.ranker.low_bits()) + low;
        ((i >> 6) as usize, 1 << (i & 63))
    }
}

/// Searches on from a level of `frontier` states at `depth` (none of them
/// a goal), all of them and those before in `store`, with layers; true
/// when the budget stopped it. The plan's store and the frontier's vectors
/// are given back once their states are in the bitsets. The caller has
/// weighed the bitsets' bytes against the budget ([`Layers::bytes`]);
/// `out` holds the counts so far.
pub(super) fn finish<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    l: &Layers,
    (how, budget): (How, &Budget),
    store: S,
    frontier: Vec<Vec<W>>,
    (depth, found): (u64, u64),
    out: &mut Solution,
) -> bool {
    // A next level per job if they fit: with one, two threads spend a
    // good part of a level on atomic ORs (a locked instruction each).
    // Without room for the frontier, it goes to a file.
    let bitset = 8 * l.words as u64;
    let extra = (how.threads.max(1) as u64 - 1) * bitset;
    let (jobs, spill) = if l.forces_disk() {
        (how.threads.max(1), true)
    } else if budget.fits(l.bytes() + extra) {
        (how.threads.max(1), false)
    } else {
        (1, !budget.fits(l.bytes()))
    };
    let dir = spill.then(|| tempfile::Builder::new().prefix("puzzle-layers-").tempdir());
    let Ok(dir) = dir.transpose() else {
        budget.out_of_memory();
        return true;
    };
    let Some(sets) = Sets::new(l, jobs, dir.as_ref().map(|d| d.path())) else {
        budget.out_of_memory();
        return true;
    };
    let v = sets.visited.words();
    store.states(&mut |s| {
        let (w, b) = sets.bit(s);
        v[w].fetch_or(b, Relaxed);
    });
    drop(store);
    let fr = sets.frontier.words();
    let (mut lo, mut hi) = (usize::MAX, 0);
    for &s in frontier.iter().flatten() {
        let (w, b) = sets.bit(s);
        fr[w].fetch_or(b, Relaxed);
        lo = lo.min(w);
        hi = hi.max(w + 1);
    }
    drop(frontier);
    sets.frontier.release(0, l.words);
    let r = l.row_words;
    let lo = lo / r * r;
    let hi = hi.div_ceil(r) * r;
    match l.row_words {
        1 => levels::<W, 1>(k, &sets, how, budget, (lo, hi), (depth, found), out),
        2 => levels::<W, 2>(k, &sets, how, budget, (lo, hi), (depth, found), out),
        _ => levels::<W, 4>(k, &sets, how, budget, (lo, hi), (depth, found), out),
    }
}

/// Words a piece of a level's work covers: a budget check between two,
/// and enough pieces for the threads to share.
const PIECE: usize = 1 << 16;

/// The levels, until a goal, an empty level, the limit or the budget;
/// true when the budget stopped it.
#[allow(clippy::too_many_arguments)]
fn levels<W: Word, const R: usize>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    how: How,
    budget: &Budget,
    (mut lo, mut hi): (usize, usize),
    (mut depth, mut found): (u64, u64),
    out: &mut Solution,
) -> bool {
    let goal = sets.goal_bit(k);
    let within = |depth| how.limit.is_none_or(|l| depth < l);
    while lo < hi && within(depth) {
        let work = pieces::<R>(lo, hi, how.threads);
        let parallel = how.threads > 1 && work.len() > 1;
        // Each job takes the next piece until none is left, and ORs into
        // its own next level when there is one for each (so a job, not a
        // thread, owns it: the pool may run jobs one after another).
        let taken = AtomicUsize::new(0);
        let job = |j: usize| -> Option<Expanded> {
            let mut sum = Expanded::none();
            loop {
                let Some(&(a, b)) = work.get(taken.fetch_add(1, Relaxed)) else {
                    return Some(sum);
                };
                if budget.check(found, depth) {
                    return None;
                }
                let e = if parallel && !sets.own() {
                    expand::<W, R, true>(k, sets, &sets.next[0], (a, b))
                } else {
                    expand::<W, R, false>(k, sets, &sets.next[j], (a, b))
                };
                sum.add(&e);
            }
        };
        let done: Vec<_> = if parallel {
            (0..how.threads).into_par_iter().map(job).collect()
        } else {
            vec![job(0)]
        };
        let Some(done) = done.into_iter().collect::<Option<Vec<_>>>() else {
            return true;
        };
        let mut all = Expanded::none();
        for e in &done {
            all.add(e);
        }
        out.expanded += all.expanded;
        out.generated += all.generated;
        if all.lo >= all.hi {
            break;
        }
        let xlo = all.lo / R * R;
        let xhi = all.hi.div_ceil(R) * R;
        let work = pieces::<R>(xlo, xhi, how.threads);
        let keep = |&(a, b): &(usize, usize)| keep::<W, R>(k, sets, (a, b), goal.is_none());
        let kept: Vec<Kept> = if how.threads > 1 {
            work.par_iter().map(keep).collect()
        } else {
            work.iter().map(keep).collect()
        };
        depth += 1;
        let new: u64 = kept.iter().map(|k| k.new).sum();
        found += new;
        out.frontier = out.frontier.max(new);
        budget.note_frontier(new as usize);
        let hit = match goal {
            Some((w, b)) => sets.frontier.words()[w].load(Relaxed) & b != 0,
            None => kept.iter().any(|k| k.goal),
        };
        if hit {
            out.cost = Some(depth);
            break;
        }
        if budget.check(found, depth) {
            return true;
        }
        lo = kept.iter().map(|k| k.lo).min().unwrap_or(usize::MAX) / R * R;
        hi = kept.iter().map(|k| k.hi).max().unwrap_or(0).div_ceil(R) * R;
    }
    out.depth = depth;
    out.visited = found;
    false
}

/// `[lo, hi)` in pieces of whole rows, at most [`PIECE`] words each, at
/// least sixteen a thread when there are several (the rows of a level
/// are not spread evenly over the words).
fn pieces<const R: usize>(lo: usize, hi: usize, threads: usize) -> Vec<(usize, usize)> {
    let n = hi - lo;
    let want = if threads > 1 { threads * 16 } else { 1 };
    let size = n.div_ceil(want).clamp(1, PIECE).div_ceil(R) * R;
    (lo..hi)
        .step_by(size)
        .map(|a| (a, (a + size).min(hi)))
        .collect()
}

/// What expanding a piece of the frontier did.
pub(super) struct Expanded {
    pub(super) expanded: u64,
    pub(super) generated: u64,
    /// The words of the next level it wrote, `[lo, hi)`.
    pub(super) lo: usize,
    pub(super) hi: usize,
}

impl Expanded {
    pub(super) fn none() -> Self {
        Expanded {
            expanded: 0,
            generated: 0,
            lo: usize::MAX,
            hi: 0,
        }
    }

    pub(super) fn add(&mut self, e: &Expanded) {
        self.expanded += e.expanded;
        self.generated += e.generated;
        self.lo = self.lo.min(e.lo);
        self.hi = self.hi.max(e.hi);
    }
}

/// Expands the frontier's rows in words `[a, b)` into `next`, clearing
/// them. `SHARED`: other threads write `next` too.
#[inline(never)]
fn expand<W: Word, const R: usize, const SHARED: bool>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    next: &Bits,
    (a, b): (usize, usize),
) -> Expanded {
    let ranker = &sets.l.ranker;
    let mut odo = Odometer::<W>::new(ranker);
    let mut succ = k.successors();
    let fr = sets.frontier.words();
    let mut e = Expanded::none();
    let mut put = Put::<W, SHARED> {
        sets,
        weights: std::array::from_fn(|b| ranker.weight_at(b as u32)),
        next: next.words(),
        row: 0,
        base: W::ZERO,
        lo: usize::MAX,
        hi: 0,
    };
    let mut row = |r: u64, mask: [u64; R], e: &mut Expanded| {
        e.expanded += mask.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        (put.row, put.base) = (r, odo.at(r));
        let n = succ.rows_of::<R>(put.base, mask, &mut put);
        e.generated += n.expect("layers are planned for kernels with rows");
    };
    let low = ranker.low_bits();
    if R == 1 && low < 6 {
        // Several rows a word.
        let per = 1usize << (6 - low);
        let width = 1u32 << low;
        let ones = u64::MAX >> (64 - width);
        for (w, word) in fr.iter().enumerate().take(b).skip(a) {
            let x = word.load(Relaxed);
            if x == 0 {
                continue;
            }
            word.store(0, Relaxed);
            for j in 0..per {
                let m = (x >> (j as u32 * width)) & ones;
                if m != 0 {
                    row((w * per + j) as u64, [m; R], &mut e);
                }
            }
        }
    } else {
        for w in (a..b).step_by(R) {
            let mask: [u64; R] = std::array::from_fn(|i| fr[w + i].load(Relaxed));
            if mask.iter().all(|&x| x == 0) {
                continue;
            }
            for x in &fr[w..w + R] {
                x.store(0, Relaxed);
            }
            row((w / R) as u64, mask, &mut e);
        }
    }
    sets.frontier.release(a, b);
    (e.lo, e.hi) = (put.lo, put.hi);
    e
}

/// [`expand`] into the first next level, which no other thread writes
/// (a worker of the distributed search).
pub(super) fn expand_alone<W: Word, const R: usize>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    piece: (usize, usize),
) -> Expanded {
    expand::<W, R, false>(k, sets, &sets.next[0], piece)
}

/// Where a row's successor rows go: ORed into the next level.
struct Put<'s, 'l, W, const SHARED: bool> {
    sets: &'s Sets<'l>,
    /// The weight in a rank of each field, by the bit it starts at.
    weights: [Option<u64>; 64],
    next: &'s [AtomicU64],
    /// The row expanded, and its base.
    row: u64,
    base: W,
    /// The words written, `[lo, hi)`.
    lo: usize,
    hi: usize,
}

impl<W: Word, const R: usize, const SHARED: bool> RowSink<W, R> for Put<'_, '_, W, SHARED> {
    // Inlined into the kernel's loops: it runs for every successor row.
    #[inline(always)]
    fn row(&mut self, t: W, moved: Option<Moved>, out: [u64; R]) {
        let ranker = &self.sets.l.ranker;
        // A move of one mover moves the rank by its field's weight times
        // its change: no field read again.
        let rank = match moved.and_then(|m| Some((m, self.weights[m.offset as usize]?))) {
            Some((m, w)) => self.row.wrapping_add(
                u64::from(m.to)
                    .wrapping_sub(u64::from(m.from))
                    .wrapping_mul(w),
            ),
            None => ranker.rank_near(self.row, self.base, t),
        };
        debug_assert_eq!(rank, ranker.rank_near(self.row, self.base, t));
        let (w, sh) = self.sets.place::<R>(rank);
        let nx = self.next;
        for (i, &x) in out.iter().enumerate() {
            let (w, x) = (w + i, x << sh);
            if SHARED {
                // Most words are ORed with bits they hold already: read
                // first.
                let old = nx[w].load(Relaxed);
                if old | x != old {
                    nx[w].fetch_or(x, Relaxed);
                }
            } else {
                nx[w].store(nx[w].load(Relaxed) | x, Relaxed);
            }
        }
        self.lo = self.lo.min(w);
        self.hi = self.hi.max(w + R);
    }
}

/// What keeping the new states of a piece of the next level found.
pub(super) struct Kept {
    pub(super) new: u64,
    pub(super) goal: bool,
    /// The words of the frontier it wrote, `[lo, hi)`.
    pub(super) lo: usize,
    pub(super) hi: usize,
}

/// Keeps the new states of words `[a, b)` of the next level (those not
/// visited): marks them visited, makes them the frontier, clears the next
/// level; with `test`, tests each for the goal.
pub(super) fn keep<W: Word, const R: usize>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    (a, b): (usize, usize),
    test: bool,
) -> Kept {
    let (v, fr) = (sets.visited.words(), sets.frontier.words());
    let nx: Vec<&[AtomicU64]> = sets.next.iter().map(Bits::words).collect();
    let ranker = &sets.l.ranker;
    let low = ranker.low_bits();
    let mut odo = Odometer::<W>::new(ranker);
    let mut kept = Kept {
        new: 0,
        goal: false,
        lo: usize::MAX,
        hi: 0,
    };
    for w in a..b {
        let mut x = 0;
        for n in &nx {
            let y = n[w].load(Relaxed);
            if y != 0 {
                x |= y;
                n[w].store(0, Relaxed);
            }
        }
        if x == 0 {
            continue;
        }
        let old = v[w].load(Relaxed);
        let new = x & !old;
        if new == 0 {
            continue;
        }
        v[w].store(old | new, Relaxed);
        fr[w].store(new, Relaxed);
        kept.new += u64::from(new.count_ones());
        kept.lo = kept.lo.min(w);
        kept.hi = kept.hi.max(w + 1);
        if test && !kept.goal {
            let mut bits = new;
            while bits != 0 {
                let i = (w as u64) * 64 + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                let (row, p) = (i >> low, i & ((1 << low) - 1));
                if k.is_goal(odo.at(row) | W::from_u64(p)) {
                    kept.goal = true;
                    break;
                }
            }
        }
    }
    sets.frontier.release(a, b);
    kept
}
