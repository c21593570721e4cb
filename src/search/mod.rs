//! Phase 6: run a [`Plan`] on its [`Task`]: the engine it chose, over the
//! states its kernel generates, kept in the store it chose.
//!
//! Breadth-first, level by level, over packed states: from the starts
//! ([`bfs`]), or from the starts and the goal state at once ([`bidir`]).
//! Each level's frontier is a flat vector; its expansion runs on several
//! threads when it is large. The answer does not depend on the number of
//! threads: a level's set of new states is the same whoever finds them
//! first. Tasks whose steps have costs are searched by [`dijkstra`]; A* is
//! in [`astar`].

mod astar;
pub mod cluster;
mod dijkstra;
mod ida;
mod layers;
pub mod ordered;
mod patterns;
mod store;
pub mod way;

use crate::budget::{self, Budget};
use crate::kernel::{Gen, Kernel, Split, Successors, Tables};
use crate::pack::{SetRanker, Wide, Word};
use crate::plan::{Checks, Engine, Layers, Plan, Store as StoreKind};
pub use crate::plan::{Config, Strategy};
use crate::solution::Solution;
use crate::task::Task;
pub use astar::{Heuristic, astar};
pub use dijkstra::dijkstra;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
pub use store::{Dense, Growing, Key, Keyed, Mark, Mask, Masked, Own, Ranked, Sparse, Store};

/// Runs a plan within a budget: the answer for its task, or how far the
/// search got when the budget ran out. Successors are counted (see
/// [`Solution::generated`]) where the plan's checks count them.
pub fn run(task: &Task, plan: &Plan, budget: &Budget) -> Solution {
    run_finding_way(task, plan, budget, false)
}

/// [`run`]; with `way`, where the plan says the search finds the way itself
/// ([`Plan::way_from_search`]), the solution carries it too.
pub fn run_finding_way(task: &Task, plan: &Plan, budget: &Budget, way: bool) -> Solution {
    crate::plan::by_word!(plan.word(), run_in(task, plan, budget, way))
}

/// Words a dense bitset of visited states is kept for. The plan picks a
/// bitset (made at once, or grown into from a hash set) only for layouts
/// of at most [`crate::plan::DENSE_MAX_BITS`] bits, which live in a `u32`,
/// so only `u32` instantiates the bitset searches: wider words do not
/// carry code they never run.
trait Bits: Word {
    /// Breadth-first or bidirectional search with the plan's bitset store;
    /// never asked of the wider words.
    fn with_bitset(
        _: Engine,
        _: StoreKind,
        _: &Kernel<'_, Self>,
        _: How,
        _: &Budget,
        _: Option<&Layers>,
    ) -> Solution {
        unreachable!("the plan keeps a bitset for states of at most 30 bits only")
    }
}

/// The bitset searches, for the words a bitset's layouts fit.
macro_rules! with_bitset {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            fn with_bitset(
                engine: Engine,
                store: StoreKind,
                k: &Kernel<'_, $t>,
                how: How,
                b: &Budget,
                layers: Option<&Layers>,
            ) -> Solution {
                match (engine, store) {
                    (Engine::Bidir, StoreKind::Bitset) => bidir::<$t, Dense<$t>>(k, how, b),
                    (Engine::Bidir, _) => bidir::<$t, Growing<$t>>(k, how, b),
                    (_, StoreKind::Bitset) => bfs_layered::<$t, Dense<$t>>(k, how, b, layers),
                    _ => bfs_layered::<$t, Growing<$t>>(k, how, b, layers),
                }
            }
        }
    )*};
}
with_bitset!(u32);

macro_rules! no_bitset {
    ($($t:ty),*) => {$( impl Bits for $t {} )*};
}

/// Breadth-first search with the states ranked ([`Ranked`]), for the words
/// the plan ranks (layouts of at most 128 bits); a wider word never is.
trait Ranks: Word {
    fn with_ranks(_: &Kernel<'_, Self>, _: How, _: &Budget, _: &SetRanker) -> Solution {
        unreachable!("the plan ranks states of at most 128 bits only")
    }
}

macro_rules! with_ranks {
    ($($t:ty),*) => {$(
        impl Ranks for $t {
            fn with_ranks(k: &Kernel<'_, $t>, how: How, b: &Budget, r: &SetRanker) -> Solution {
                let Some(ranks) = new_store::<u32, Growing<u32>>(r.bits(), b) else {
                    return Solution::stopped(b);
                };
                bfs_from(k, how, b, Ranked { inner: ranks, key: r.clone() }, None)
            }
        }
    )*};
}
with_ranks!(u32, u64, u128);
impl Ranks for Wide<4> {}
impl Ranks for Wide<16> {}

/// The distributed breadth-first search, for the words that travel
/// between workers (layouts of at most 128 bits); the plan never asks it
/// of a wider word.
trait Spread: Word {
    fn spread(_: &Task, _: &Plan, _: &Budget, _: &crate::plan::Cluster) -> Solution {
        unreachable!("the plan spreads states of at most 128 bits only")
    }
}

macro_rules! spread {
    ($($t:ty),*) => {$(
        impl Spread for $t {
            fn spread(t: &Task, p: &Plan, b: &Budget, c: &crate::plan::Cluster) -> Solution {
                cluster::bfs::<$t>(t, p, b, c)
            }
        }
    )*};
}
spread!(u32, u64, u128);
impl Spread for Wide<4> {}
impl Spread for Wide<16> {}

/// What a breadth-first engine takes from the plan and the task besides
/// the kernel.
#[derive(Debug, Clone, Copy)]
pub struct How {
    /// The most steps a solution may take.
    pub limit: Option<u64>,
    pub threads: usize,
    pub checks: Checks,
    /// The clock, where a state is kept once, at its earliest (its bits
    /// left out of the visited store's keys).
    pub earliest: Option<crate::task::VarId>,
    /// The way is wanted, and the plan finds it by its bound
    /// ([`Plan::way_bound`]): IDA*'s last bound meets it first, so IDA*
    /// keeps the way it found ([`way`]).
    pub way: bool,
}
no_bitset!(u64, u128, Wide<4>, Wide<16>);

fn run_in<W: Bits + Ranks + Spread>(
    task: &Task,
    plan: &Plan,
    budget: &Budget,
    way: bool,
) -> Solution {
    if plan.engine() == Engine::Nothing || task.starts().is_empty() {
        // No state is a goal (say, no cell of the map has the goal tile), or
        // no start: no kernel to build, nothing to search.
        return Solution::default();
    }
    if let Some(cluster) = plan.cluster() {
        // Each worker builds its own kernel: none is needed here.
        return W::spread(task, plan, budget, cluster);
    }
    // A limit may pass while a large map's tables are built.
    let Some(k) = Kernel::<W>::within(task, plan.layout(), plan.kernel(), &|| budget.poll()) else {
        return Solution::stopped(budget);
    };
    if budget.poll() {
        return Solution::stopped(budget);
    }
    let limit = task.limit().map(|l| l.max);
    if k.goal_never() || k.starts().is_empty() {
        // No state is a goal (say, no cell of the map has the goal tile),
        // or no start: nothing to search.
        return Solution::default();
    }
    let how = How {
        limit,
        threads: plan.threads(),
        checks: plan.checks(),
        earliest: plan.earliest(),
        way: way && plan.way_bound().is_some(),
    };
    match (plan.engine(), plan.store()) {
        (
            engine @ (Engine::Bfs | Engine::Bidir),
            store @ (StoreKind::Bitset | StoreKind::Growing),
        ) => W::with_bitset(engine, store, &k, how, budget, plan.layers()),
        (Engine::Bfs, StoreKind::Ranked) => {
            let ranker = plan
                .ranker()
                .expect("a ranked store is planned with its ranker");
            W::with_ranks(&k, how, budget, ranker)
        }
        (Engine::Bidir, _) => bidir::<W, Sparse<W>>(&k, how, budget),
        (Engine::Bfs, _) => bfs_layered::<W, Sparse<W>>(&k, how, budget, plan.layers()),
        (engine @ (Engine::Astar | Engine::Ida), _) => {
            let bound = plan.bound().expect("A* is planned with its bound");
            match Heuristic::new(task, plan.layout(), bound, budget) {
                Some(h) if engine == Engine::Ida => {
                    let mut h = h;
                    ida::ida(&k, &mut h, how, budget, 0, Solution::default())
                }
                // IDA* cannot tell that no way exists (it searches on
                // with a higher bound): it is turned to only where a time
                // limit will end it.
                Some(h) => {
                    let turn = plan.turns_to_ida();
                    let turn = turn.filter(|_| budget.limits().timeout.is_some());
                    astar(&k, h, how, budget, turn)
                }
                None => Solution::stopped(budget),
            }
        }
        (Engine::Buckets | Engine::Dijkstra, _) => {
            dijkstra(&k, how, plan.engine() == Engine::Buckets, budget)
        }
        (Engine::Ordered, _) => ordered::ordered(&k, plan, budget, way),
        (Engine::Nothing | Engine::Cluster, _) => unreachable!("handled above"),
    }
}

/// A frontier: the states of one level, in parts (one per piece of work
/// that found them), so that a parallel level needs no concatenation.
struct Frontier<W> {
    parts: Vec<Vec<W>>,
}

impl<W: Word> Frontier<W> {
    fn one(s: W) -> Self {
        Frontier {
            parts: vec![vec![s]],
        }
    }

    fn len(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    fn is_empty(&self) -> bool {
        self.parts.iter().all(Vec::is_empty)
    }

    /// The states in one vector: the only part, or the parts joined in one
    /// from `spare`, where the emptied parts go.
    fn into_one(mut self, spare: &mut Vec<Vec<W>>) -> Vec<W> {
        if self.parts.len() == 1 {
            return self.parts.pop().expect("one part");
        }
        let mut one = spare.pop().unwrap_or_default();
        one.clear();
        for part in self.parts {
            one.extend_from_slice(&part);
            spare.push(part);
        }
        one
    }
}

/// States expanded, and the successors they gave (duplicates and states
/// seen before included).
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    expanded: u64,
    generated: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.expanded += o.expanded;
        self.generated += o.generated;
    }
}

impl std::iter::Sum for Counts {
    fn sum<I: Iterator<Item = Counts>>(it: I) -> Counts {
        let mut c = Counts::default();
        it.for_each(|x| c += x);
        c
    }
}

impl Solution {
    fn count(&mut self, c: Counts) {
        self.expanded += c.expanded;
        self.generated += c.generated;
    }
}

/// One expanded level.
struct Level<W> {
    /// The new states, each marked in the store.
    next: Frontier<W>,
    counts: Counts,
    /// Some new state passed the test.
    hit: bool,
}

/// Expands `chunk` into `next`, marking new states in `store` (a table
/// kernel with rows: [`expand_rows`]). With
/// `METER`, the [`Meter`] makes room for each new state and checks the
/// budget within an expansion ([`Checks::Successors`]); without, `next`
/// has room for all the chunk's successors.
/// Kept out of line: the successor loop then has the registers to
/// itself.
#[inline(never)]
fn expand_chunk<W: Word, M: Mark<W>, G: Gen<W>, const METER: bool>(
    succ: &mut G,
    chunk: &[W],
    meter: &mut Meter<'_, '_>,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    mut store: M,
) -> u64 {
    let watch = meter.watch;
    each_state(chunk, &watch.hit, next, test, |s, next| {
        // Successors are counted by the meter's ticks.
        succ.each(s, |t| {
            if store.mark(t) {
                if METER && !meter.room(next, 1) {
                    return false;
                }
                next.push(t);
            }
            !METER || !meter.tick(next)
        });
    })
}

/// Expands each state of `chunk` with `expand` (into `next`) until a new
/// state passes `test`; returns how many it expanded. The test runs after
/// each expansion, so the successor loop stays small.
#[inline(always)]
fn each_state<W: Word>(
    chunk: &[W],
    hit: &AtomicBool,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    mut expand: impl FnMut(W, &mut Vec<W>),
) -> u64 {
    let mut expanded = 0;
    for &s in chunk {
        if hit.load(Relaxed) {
            break;
        }
        expanded += 1;
        let before = next.len();
        expand(s, next);
        if next[before..].iter().any(|&t| test(t)) {
            hit.store(true, Relaxed);
        }
    }
    expanded
}

/// [`expand_chunk`] for a table kernel with rows of `R` words: each state's
/// successors a row at a time, tested and marked in the store together
/// (see [`Successors::rows`]); planned with checks between blocks.
#[inline(never)]
fn expand_rows<W: Word, M: Mark<W>, const R: usize>(
    succ: &mut Tables<'_, '_, W>,
    chunk: &[W],
    meter: &mut Meter<'_, '_>,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    mut store: M,
) -> u64 {
    each_state(chunk, &meter.watch.hit, next, test, |s, next| {
        succ.rows::<R>(s, |base, mask| {
            store.mark_row(base, mask, |p| next.push(base | W::from_u64(p as u64)));
            true
        });
    })
}

/// Expands `states` into `next` in blocks (of [`Checks::Blocks`] states,
/// or [`budget::CHECK_EVERY`]), and before each block makes room for what
/// comes and, between two, checks the budget: the loop over a block's
/// states has nothing else to do, and a small level (a maze has
/// thousands) is one block with no check. With [`Checks::Successors`], the
/// [`Meter`] also checks within a block.
#[inline(always)]
fn run_blocks<W: Word, M: Mark<W>>(
    succ: &mut Successors<'_, '_, W>,
    states: &[W],
    watch: &Watch<'_>,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    mut store: M,
) -> Counts {
    let block = match watch.checks {
        Checks::Blocks { states, .. } => states,
        Checks::Successors => budget::CHECK_EVERY as usize,
    };
    let mut meter = Meter::new(watch, next);
    if !watch.room(next) {
        return Counts::default();
    }
    let mut expanded = 0;
    if states.len() <= block {
        expanded = run_any(succ, states, &mut meter, next, test, store);
    } else {
        for (i, b) in states.chunks(block).enumerate() {
            if i > 0 && (watch.hit.load(Relaxed) || meter.check(next)) {
                break;
            }
            expanded += run_any(succ, b, &mut meter, next, test, store.again());
        }
    }
    Counts {
        expanded,
        generated: meter.passed + meter.ticked(),
    }
}

/// A thread's checks while it expands states into its vector of new
/// states: between blocks, and with [`Checks::Successors`] within them
/// (the vector has room for each new state before it is pushed, grown
/// within the budget, and every [`budget::CHECK_SUCCESSORS`] successors the
/// budget is checked), each time with the states found since the last.
struct Meter<'w, 'b> {
    watch: &'w Watch<'b>,
    /// The length of the vector at the last check.
    reported: usize,
    /// Successors until the next check.
    left: usize,
    /// Successors counted before the last check.
    passed: u64,
}

impl<'w, 'b> Meter<'w, 'b> {
    fn new<W>(watch: &'w Watch<'b>, next: &[W]) -> Self {
        Meter {
            watch,
            reported: next.len(),
            left: budget::CHECK_SUCCESSORS,
            passed: 0,
        }
    }

    /// Counts a successor; true when the level must stop.
    #[inline(always)]
    fn tick<W>(&mut self, next: &mut Vec<W>) -> bool {
        self.left -= 1;
        self.left == 0 && self.check(next)
    }

    /// Successors ticked since the last check.
    fn ticked(&self) -> u64 {
        (budget::CHECK_SUCCESSORS - self.left) as u64
    }

    /// Makes room in `next` for `least` more states; false (and the level
    /// stops) when there is none.
    #[inline(always)]
    fn room<W>(&self, next: &mut Vec<W>, least: usize) -> bool {
        next.capacity() - next.len() >= least || self.grow(next, least)
    }

    #[cold]
    #[inline(never)]
    fn grow<W>(&self, next: &mut Vec<W>, least: usize) -> bool {
        self.watch.room_for(next, least.max(HEADROOM))
    }

    /// Checks the budget with the states found since the last check, and
    /// makes room for those to come; true when the level must stop.
    #[cold]
    #[inline(never)]
    fn check<W>(&mut self, next: &mut Vec<W>) -> bool {
        self.passed += self.ticked();
        self.left = budget::CHECK_SUCCESSORS;
        let grown = next.len() - self.reported;
        self.reported = next.len();
        !self.watch.room(next) || self.watch.spent(grown as u64)
    }
}

/// What the expansion of a level watches: a goal found (or the budget
/// spent: either stops it), the budget, and the states found so far.
struct Watch<'b> {
    hit: AtomicBool,
    budget: &'b Budget,
    checks: Checks,
    found: AtomicU64,
    depth: u64,
}

/// The successors a frontier vector keeps room for between two checks:
/// a block's, with [`Checks::Blocks`].
const HEADROOM: usize = budget::CHECK_SUCCESSORS;

impl<'b> Watch<'b> {
    fn new(budget: &'b Budget, how: &How, found: u64, depth: u64) -> Self {
        Watch {
            hit: AtomicBool::new(false),
            budget,
            checks: how.checks,
            found: AtomicU64::new(found),
            depth,
        }
    }

    /// Notes `grown` new states; true (and the level stops) when the
    /// budget is spent.
    fn spent(&self, grown: u64) -> bool {
        let found = self.found.fetch_add(grown, Relaxed) + grown;
        let spent = self.budget.check(found, self.depth);
        if spent {
            self.hit.store(true, Relaxed);
        }
        spent
    }

    /// Makes room in `next` for the successors of the next states, within
    /// the budget; false (and the level stops) when there is none.
    fn room<W>(&self, next: &mut Vec<W>) -> bool {
        self.room_for(next, HEADROOM)
    }

    /// Makes room in `next` for `least` more states, within the budget;
    /// false (and the level stops) when there is none.
    fn room_for<W>(&self, next: &mut Vec<W>, least: usize) -> bool {
        if self.budget.grow(next, least) {
            return true;
        }
        self.hit.store(true, Relaxed);
        false
    }
}

/// [`expand_chunk`] with the kernel's own loop, and its rows if it has
/// them: chosen once per chunk, not once per state.
fn run_any<W: Word, M: Mark<W>>(
    succ: &mut Successors<'_, '_, W>,
    chunk: &[W],
    meter: &mut Meter<'_, '_>,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    store: M,
) -> u64 {
    let words = succ.row_words();
    if meter.watch.checks == Checks::Successors {
        return match succ.split() {
            Split::Tables(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Slides(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Bodies(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Poses(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Script(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Pushes(t) => expand_chunk::<W, M, _, true>(t, chunk, meter, next, test, store),
            Split::Generic(g) => expand_chunk::<W, M, _, true>(g, chunk, meter, next, test, store),
            Split::Phased(p) => expand_chunk::<W, M, _, true>(p, chunk, meter, next, test, store),
        };
    }
    match succ.split() {
        Split::Tables(t) => match words {
            1 => expand_rows::<W, M, 1>(t, chunk, meter, next, test, store),
            2 => expand_rows::<W, M, 2>(t, chunk, meter, next, test, store),
            4 => expand_rows::<W, M, 4>(t, chunk, meter, next, test, store),
            _ => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        },
        Split::Slides(t) => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        Split::Bodies(t) => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        Split::Poses(t) => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        Split::Script(t) => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        Split::Pushes(t) => expand_chunk::<W, M, _, false>(t, chunk, meter, next, test, store),
        Split::Generic(g) => expand_chunk::<W, M, _, false>(g, chunk, meter, next, test, store),
        Split::Phased(p) => expand_chunk::<W, M, _, false>(p, chunk, meter, next, test, store),
    }
}

/// The states of a frontier's parts cut into `n` pieces of nearly the same
/// size (each piece the slices of the parts it covers), whatever the parts'
/// sizes: a level has as many pieces to share as the one before.
fn split<W>(parts: &[Vec<W>], n: usize) -> Vec<Vec<&[W]>> {
    let len: usize = parts.iter().map(Vec::len).sum();
    let size = len.div_ceil(n).max(1);
    let mut pieces = vec![Vec::new()];
    let mut room = size;
    for part in parts {
        let mut rest = &part[..];
        while !rest.is_empty() {
            if room == 0 {
                pieces.push(Vec::new());
                room = size;
            }
            let take = room.min(rest.len());
            let (a, b) = rest.split_at(take);
            pieces.last_mut().expect("a piece").push(a);
            rest = b;
            room -= take;
        }
    }
    pieces
}

/// A search thread's own things, reused level after level: its successor
/// generator, and vectors of earlier levels to write new states into.
struct Local<'a, 'k, 't, W> {
    succ: &'a mut Successors<'k, 't, W>,
    spare: &'a mut Vec<Vec<W>>,
}

/// Frontiers smaller than this are expanded on one thread.
const PAR_MIN: usize = 4096;

/// Expands a frontier: every successor not yet in `store` is marked there
/// and returned. Stops early once `test` holds for a new state.
fn expand<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    frontier: &Frontier<W>,
    store: &mut S,
    test: &(impl Fn(W) -> bool + Sync),
    threads: usize,
    local: Local<'_, '_, '_, W>,
    hit: Watch<'_>,
) -> Level<W> {
    let Local { succ: own, spare } = local;
    let len = frontier.len();
    if threads <= 1 || len < PAR_MIN {
        // One vector, reused from an earlier level when there is one.
        let mut next = spare.pop().unwrap_or_default();
        next.clear();
        let mut counts = Counts::default();
        // This thread has the store to itself: plain marks.
        for part in &frontier.parts {
            counts += run_blocks(own, part, &hit, &mut next, test, Own(&mut *store));
        }
        return Level {
            next: Frontier { parts: vec![next] },
            counts,
            hit: hit.hit.into_inner(),
        };
    }
    // Four chunks a thread: enough for rayon to even out the load, few
    // enough that each thread's new states go to a few long vectors (with
    // sixteen, the synthetic robots scaled to two threads 1.60-1.67x
    // against 1.78-1.89x with four).
    let pieces = threads * 4;
    let chunks = split(&frontier.parts, pieces);
    // Each chunk's new states go to a vector of an earlier level when there
    // is one: fresh memory would be faulted in and zeroed by the kernel on
    // every level. There are as many chunks on every level, so the vectors
    // in use stay as many as that.
    let outs: Vec<Vec<W>> = (0..chunks.len())
        .map(|_| spare.pop().unwrap_or_default())
        .collect();
    let store = &*store;
    let done: Vec<(Vec<W>, Counts)> = chunks
        .par_iter()
        .zip(outs)
        .map(|(c, mut next)| {
            next.clear();
            let mut succ = k.successors();
            let e = c
                .iter()
                .map(|part| run_blocks(&mut succ, part, &hit, &mut next, test, store))
                .sum();
            (next, e)
        })
        .collect();
    let counts = done.iter().map(|p| p.1).sum();
    Level {
        next: Frontier {
            parts: done.into_iter().map(|p| p.0).collect(),
        },
        counts,
        hit: hit.hit.into_inner(),
    }
}

/// Breadth-first search from the kernel's start states, to at most `limit`
/// steps, within `budget`.
pub fn bfs<W: Word, S: Store<W>>(k: &Kernel<'_, W>, how: How, budget: &Budget) -> Solution {
    bfs_layered::<W, S>(k, how, budget, None)
}

/// [`bfs`], turning to bitset layers ([`layers`]) once a level is large,
/// where the plan chose them.
pub fn bfs_layered<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    how: How,
    budget: &Budget,
    layers: Option<&Layers>,
) -> Solution {
    let bits = crate::plan::key_bits(k.layout(), how.earliest);
    let Some(store) = new_store::<W, S>(bits, budget) else {
        return Solution::stopped(budget);
    };
    bfs_from(k, how, budget, store, layers)
}

/// [`bfs_layered`] with a visited store made by the caller (a store of
/// ranks is made from its ranker, not from the layout's size).
pub fn bfs_from<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    how: How,
    budget: &Budget,
    store: S,
    layers: Option<&Layers>,
) -> Solution {
    match how.earliest {
        Some(clock) => {
            let keep = !k.layout().field(clock).mask::<W>();
            bfs_in(
                k,
                how,
                budget,
                Masked {
                    inner: store,
                    key: Mask(keep),
                },
                None,
            )
        }
        None => bfs_in(k, how, budget, store, layers),
    }
}

/// [`bfs`] with its visited store made.
fn bfs_in<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    how: How,
    budget: &Budget,
    mut store: S,
    mut layers: Option<&Layers>,
) -> Solution {
    let How { limit, threads, .. } = how;
    let mut out = Solution::default();
    let goal = |t: W| k.is_goal(t);
    let starts: Vec<W> = k
        .starts()
        .iter()
        .copied()
        .filter(|&s| store.insert(s))
        .collect();
    let mut found = starts.len() as u64;
    if starts.iter().any(|&s| goal(s)) {
        out.cost = Some(0);
    } else {
        out.frontier = starts.len() as u64;
        let mut frontier = Frontier {
            parts: vec![starts],
        };
        let mut depth = 0u64;
        let mut succ = k.successors();
        let mut spare = Vec::new();
        let within = |depth| limit.is_none_or(|l| depth < l);
        while !frontier.is_empty() && within(depth) {
            let turn = layers.filter(|l| frontier.len() >= l.from_level());
            if let Some(l) = turn.filter(|l| budget.fits(l.least_bytes())) {
                return turn_to_layers(k, l, (how, budget), (store, frontier), (depth, found), out);
            }
            // No room for the bitsets: on with vectors.
            layers = layers.filter(|_| turn.is_none());
            if threads <= 1 || frontier.len() < PAR_MIN {
                // Level after level on this thread, until one is large
                // enough to share: two vectors and no allocation per
                // level, which matters for mazes thousands of levels deep.
                let mut cur = frontier.into_one(&mut spare);
                let mut next = spare.pop().unwrap_or_default();
                let mut hit;
                // States expanded and found since the budget was last
                // checked: a deep search of thin levels (a long corridor,
                // a counter with a wide range) checks it as often as a
                // wide one, not once at the end.
                let mut unchecked = 0;
                loop {
                    next.clear();
                    let watch = Watch::new(budget, &how, found, depth);
                    let own = Own(&mut store);
                    out.count(run_blocks(&mut succ, &cur, &watch, &mut next, &goal, own));
                    depth += 1;
                    found += next.len() as u64;
                    out.frontier = out.frontier.max(next.len() as u64);
                    unchecked += cur.len() + next.len();
                    hit = watch.hit.into_inner();
                    std::mem::swap(&mut cur, &mut next);
                    let share = threads > 1 && cur.len() >= PAR_MIN;
                    let due = unchecked >= budget::CHECK_EVERY as usize;
                    let turn = layers.is_some_and(|l| cur.len() >= l.from_level());
                    if hit || cur.is_empty() || !within(depth) || share || due || turn {
                        break;
                    }
                }
                let next_len = expected(cur.len(), next.len());
                spare.push(next);
                // Noted when the budget is checked, not every thin level.
                budget.note_frontier(cur.len());
                frontier = Frontier { parts: vec![cur] };
                if stopped(&mut store, budget, (found, depth), next_len) {
                    return Solution::stopped(budget);
                }
                if hit {
                    out.cost = Some(depth);
                    break;
                }
                continue;
            }
            budget.note_frontier(frontier.len());
            let watch = Watch::new(budget, &how, found, depth);
            let level = expand(
                k,
                &frontier,
                &mut store,
                &goal,
                threads,
                Local {
                    succ: &mut succ,
                    spare: &mut spare,
                },
                watch,
            );
            out.count(level.counts);
            depth += 1;
            found += level.next.len() as u64;
            out.frontier = out.frontier.max(level.next.len() as u64);
            let next_len = expected(level.next.len(), frontier.len());
            if stopped(&mut store, budget, (found, depth), next_len) {
                return Solution::stopped(budget);
            }
            if level.hit {
                out.cost = Some(depth);
                break;
            }
            let old = std::mem::replace(&mut frontier, level.next);
            spare.extend(old.parts);
        }
        out.depth = depth;
    }
    out.visited = store.count();
    out
}

/// [`bfs_in`] from a level of `frontier` states on, with bitset layers
/// ([`layers::finish`]).
fn turn_to_layers<W: Word, S: Store<W>>(
    k: &Kernel<'_, W>,
    l: &Layers,
    limits: (How, &Budget),
    (store, frontier): (S, Frontier<W>),
    at: (u64, u64),
    mut out: Solution,
) -> Solution {
    out.depth = at.0;
    if layers::finish(k, l, limits, store, frontier.parts, at, &mut out) {
        Solution::stopped(limits.1)
    } else {
        out
    }
}

/// A visited store for states of `bits` bits, if the budget has room for
/// it.
fn new_store<W: Word, S: Store<W>>(bits: u32, budget: &Budget) -> Option<S> {
    if !budget.reserve(S::upfront(bits)) {
        return None;
    }
    let store = S::try_new(bits);
    if store.is_none() {
        budget.out_of_memory();
    }
    store
}

/// Whether the search must stop after a level: the store could not grow,
/// or the budget is spent. If not, the store may change how it keeps the
/// states ([`Store::settle`]).
fn stopped<W: Word, S: Store<W>>(
    store: &mut S,
    budget: &Budget,
    (found, depth): (u64, u64),
    next: u64,
) -> bool {
    if store.failed() {
        budget.out_of_memory();
    }
    if budget.check(found, depth) {
        return true;
    }
    store.settle(next, |bytes| budget.fits(bytes));
    false
}

/// About how many states the next two levels after a frontier of `now`
/// states add, the one before it having had `before`: each as many as the
/// last times the last level's growth (at least 1), as a breadth-first
/// search's levels grow while it spreads. Two levels: a store that hands
/// over to its bitset a level early costs a bitset a little sooner, one
/// that hands over a level late keeps a large level in its hash set, at
/// several times the time a state.
fn expected(now: usize, before: usize) -> u64 {
    let growth = (now / before.max(1)).max(1) as u64;
    let one = (now as u64).saturating_mul(growth);
    one.saturating_add(one.saturating_mul(growth))
}

/// Breadth-first search from the start and from the goal state at once,
/// expanding the smaller frontier a whole level at a time. A new state that
/// the other side has seen closes a path: no path of `da + db` steps exists
/// (an earlier level would have met), so the meeting gives exactly
/// `da + 1 + db` steps. Needs a reversible model with a single goal state.
pub fn bidir<W: Word, S: Store<W>>(k: &Kernel<'_, W>, how: How, budget: &Budget) -> Solution {
    let How { limit, threads, .. } = how;
    let goal = k
        .task()
        .goal_state()
        .expect("bidir needs a single goal state");
    let goal: W = k.layout().encode(&goal);
    let bits = k.layout().bits();
    let (Some(first), Some(second)) = (
        new_store::<W, S>(bits, budget),
        new_store::<W, S>(bits, budget),
    ) else {
        return Solution::stopped(budget);
    };
    let mut stores = [first, second];
    let starts: Vec<W> = k
        .starts()
        .iter()
        .copied()
        .filter(|&s| stores[0].insert(s))
        .collect();
    stores[1].insert(goal);
    let mut out = Solution::default();
    if starts.contains(&goal) {
        out.cost = Some(0);
    } else {
        let mut frontier = [
            Frontier {
                parts: vec![starts],
            },
            Frontier::one(goal),
        ];
        let mut depth = [0u64; 2];
        // States stored on both sides so far.
        let mut found = (frontier[0].len() + 1) as u64;
        let mut succ = k.successors();
        let mut spare = Vec::new();
        while !frontier[0].is_empty() && !frontier[1].is_empty() {
            if limit.is_some_and(|l| depth[0] + depth[1] >= l) {
                break;
            }
            let a = usize::from(frontier[1].len() < frontier[0].len());
            // This side's store to mark, the other's to meet.
            let [first, second] = &mut stores;
            let (mine, theirs) = if a == 0 {
                (first, &*second)
            } else {
                (second, &*first)
            };
            budget.note_frontier(frontier[a].len());
            let watch = Watch::new(budget, &how, found, depth[0] + depth[1]);
            let level = expand(
                k,
                &frontier[a],
                mine,
                &|t| theirs.contains(t),
                threads,
                Local {
                    succ: &mut succ,
                    spare: &mut spare,
                },
                watch,
            );
            out.count(level.counts);
            depth[a] += 1;
            found += level.next.len() as u64;
            out.frontier = out.frontier.max(level.next.len() as u64);
            let next_len = expected(level.next.len(), frontier[a].len());
            if stopped(
                &mut stores[a],
                budget,
                (found, depth[0] + depth[1]),
                next_len,
            ) {
                return Solution::stopped(budget);
            }
            if level.hit {
                out.cost = Some(depth[0] + depth[1]);
                break;
            }
            let old = std::mem::replace(&mut frontier[a], level.next);
            spare.extend(old.parts);
        }
        out.depth = depth[0] + depth[1];
    }
    out.visited = stores[0].count() + stores[1].count();
    out
}
