//! Phase 4: search a [`Model`] for the fewest steps to a goal state.
//!
//! Breadth-first, level by level, over packed states: from the start alone
//! ([`bfs`]), or from the start and the goal state at once ([`bidir`]) when
//! the model allows. Each level's frontier is a flat vector; its expansion
//! runs on several threads when it is large. The answer does not depend on
//! the number of threads: a level's set of new states is the same whoever
//! finds them first.

mod astar;
mod store;
mod successors;

use crate::compile::{Cond, Model, Word};
pub use astar::{DENSE_G_BITS, Heuristic, astar};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
pub use store::{DENSE_MAX_BITS, Dense, Mark, Own, Sparse, Store, store_name};
pub use successors::{Successors, kernel};

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The fewest steps to a goal, if one is reachable (within the limit).
    pub steps: Option<u64>,
    /// States taken off a frontier and expanded.
    pub expanded: u64,
    /// Distinct states seen.
    pub visited: u64,
}

/// How to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Choose from the model (see [`choose`]).
    #[default]
    Auto,
    /// Breadth-first from the start.
    Bfs,
    /// Breadth-first from the start and from the goal state, meeting in the
    /// middle.
    Bidir,
    /// A* with a heuristic from each pinned mover's distance to its goal
    /// positions.
    Astar,
}

/// How a search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub strategy: Strategy,
    /// Threads expanding a large level (the rayon pool's, at most).
    pub threads: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            strategy: Strategy::Auto,
            threads: 1,
        }
    }
}

/// A chosen strategy, why it was chosen, and the A* heuristic when that is
/// the strategy (built once, while choosing).
pub struct Plan {
    pub strategy: Strategy,
    pub why: String,
    heuristic: Option<Heuristic>,
}

/// The strategy for a model, and why.
pub fn choose<W: Word>(m: &Model<W>, asked: Strategy) -> Plan {
    let plan = |strategy, why: String, heuristic| Plan {
        strategy,
        why,
        heuristic,
    };
    // The position bound is well informed when no entry condition or effect
    // can lengthen the way, only other agents; the flag bound whenever the
    // goal asks for flags.
    let positions_tell = m.unconditional();
    let wants_astar = match asked {
        Strategy::Astar => true,
        Strategy::Auto => positions_tell || astar::goal_fixes_flags(m),
        _ => false,
    };
    if wants_astar && let Some(h) = Heuristic::new(m) {
        let why = if asked == Strategy::Astar {
            "A* with distances to the goal, as asked"
        } else if h.knows_flags() {
            "the goal asks for flags that only steps onto some positions can give: \
             A* with the agents' distances to those positions"
        } else {
            "the goal pins the agents' positions and nothing but other agents stands \
             between them and it: A* with their distances to the goal"
        };
        return plan(Strategy::Astar, why.into(), Some(h));
    }
    match (asked, bidir_reason(m)) {
        (Strategy::Bfs, _) => plan(Strategy::Bfs, "breadth-first search, as asked".into(), None),
        (Strategy::Astar, _) => plan(
            Strategy::Bfs,
            "A* was asked for, but the goal pins no agent's position and fixes no flag: \
             breadth-first search"
                .into(),
            None,
        ),
        (Strategy::Bidir | Strategy::Auto, Ok(why)) => plan(Strategy::Bidir, why, None),
        (Strategy::Bidir, Err(why)) => plan(
            Strategy::Bfs,
            format!("bidirectional search was asked for, but {why}: breadth-first search"),
            None,
        ),
        (Strategy::Auto, Err(why)) => {
            plan(Strategy::Bfs, format!("{why}: breadth-first search"), None)
        }
    }
}

/// Whether a search from the goal is possible: the goal is one state, and
/// every step can be undone by a step.
fn bidir_reason<W: Word>(m: &Model<W>) -> Result<String, String> {
    if m.goal_state().is_none() {
        return Err("the goal is not a single state".into());
    }
    if !m.reversible {
        return Err(
            "a step may not be undoable (effects, entry conditions, or a move without its opposite)"
                .into(),
        );
    }
    Ok("the goal fixes one state and every step is reversible: bidirectional search".into())
}

/// Runs a search as configured.
pub fn search<W: Word>(m: &Model<W>, config: Config) -> Outcome {
    if m.goal == Cond::Never {
        // No state is a goal (say, no cell of the map has the goal tile):
        // nothing to search.
        return Outcome {
            steps: None,
            expanded: 0,
            visited: 0,
        };
    }
    let dense = m.layout.bits <= DENSE_MAX_BITS;
    let plan = choose(m, config.strategy);
    if let Some(h) = plan.heuristic {
        return astar(m, h);
    }
    match (plan.strategy, dense) {
        (Strategy::Bidir, true) => bidir::<W, Dense<W>>(m, config.threads),
        (Strategy::Bidir, false) => bidir::<W, Sparse<W>>(m, config.threads),
        (_, true) => bfs::<W, Dense<W>>(m, config.threads),
        (_, false) => bfs::<W, Sparse<W>>(m, config.threads),
    }
}

/// Applies the `when` effects of standing where the movers stand.
#[inline(always)]
pub fn settle<W: Word>(m: &Model<W>, mut s: W) -> W {
    if !m.has_when {
        return s;
    }
    for mv in &m.movers {
        let e = mv.when_here[mv.pos(s) as usize];
        if e != 0 {
            s = m.effects[e as usize].apply(s);
        }
    }
    if m.dynamic_sight {
        s = sight(m, s);
    }
    s
}

/// `when ... sees` effects along rays that other opaque movers may block.
fn sight<W: Word>(m: &Model<W>, mut s: W) -> W {
    let cells = m.cells_of(s);
    for (i, mv) in m.movers.iter().enumerate() {
        let Some(rays) = mv.rays.get(mv.pos(s) as usize) else {
            continue;
        };
        for ray in rays {
            for (cell, eff) in ray {
                let blocked = m
                    .movers
                    .iter()
                    .enumerate()
                    .any(|(j, o)| j != i && o.opaque && cells[j] == *cell);
                if blocked {
                    break;
                }
                s = eff.apply(s);
            }
        }
    }
    s
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

/// One expanded level.
struct Level<W> {
    /// The new states, each marked in the store.
    next: Frontier<W>,
    expanded: u64,
    /// Some new state passed the test.
    hit: bool,
}

/// Expands `chunk` into `next`, marking new states in `store`; with
/// `R > 0`, a row of `R` words at a time (see [`Successors::rows`]).
/// Kept out of line: the successor loop then has the registers to
/// itself.
#[inline(never)]
fn run<W: Word, M: Mark<W>, const R: usize>(
    succ: &mut Successors<'_, W>,
    chunk: &[W],
    hit: &AtomicBool,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    mut store: M,
) -> u64 {
    let mut expanded = 0;
    for &s in chunk {
        if hit.load(Relaxed) {
            break;
        }
        expanded += 1;
        let before = next.len();
        if R == 0 {
            succ.each(s, |t| {
                if store.mark(t) {
                    next.push(t);
                }
                true
            });
        } else {
            succ.rows::<R>(s, |base, mask| {
                store.mark_row(base, mask, |p| next.push(base | W::from_u64(p as u64)));
                true
            });
        }
        // Tested after the expansion, so the successor loop stays small.
        if next[before..].iter().any(|&t| test(t)) {
            hit.store(true, Relaxed);
        }
    }
    expanded
}

/// [`run`] with the successor kernel the model allows.
fn run_any<W: Word, M: Mark<W>>(
    succ: &mut Successors<'_, W>,
    chunk: &[W],
    hit: &AtomicBool,
    next: &mut Vec<W>,
    test: &impl Fn(W) -> bool,
    store: M,
) -> u64 {
    match succ.row_words() {
        1 => run::<W, M, 1>(succ, chunk, hit, next, test, store),
        2 => run::<W, M, 2>(succ, chunk, hit, next, test, store),
        4 => run::<W, M, 4>(succ, chunk, hit, next, test, store),
        _ => run::<W, M, 0>(succ, chunk, hit, next, test, store),
    }
}

/// Frontiers smaller than this are expanded on one thread.
const PAR_MIN: usize = 4096;

/// Expands a frontier: every successor not yet in `store` is marked there
/// and returned. Stops early once `test` holds for a new state.
fn expand<W: Word, S: Store<W>>(
    m: &Model<W>,
    frontier: &Frontier<W>,
    store: &mut S,
    test: &(impl Fn(W) -> bool + Sync),
    threads: usize,
    own: &mut Successors<'_, W>,
    spare: &mut Vec<Vec<W>>,
) -> Level<W> {
    let hit = AtomicBool::new(false);
    let len = frontier.len();
    if threads <= 1 || len < PAR_MIN {
        // One vector, reused from an earlier level when there is one.
        let mut next = spare.pop().unwrap_or_default();
        next.clear();
        let mut expanded = 0;
        // This thread has the store to itself: plain marks.
        for part in &frontier.parts {
            expanded += run_any(own, part, &hit, &mut next, test, Own(&mut *store));
        }
        return Level {
            next: Frontier { parts: vec![next] },
            expanded,
            hit: hit.into_inner(),
        };
    }
    // Four chunks a thread: enough for rayon to even out the load, few
    // enough that each thread's new states go to a few long vectors (with
    // sixteen, the synthetic robots scaled to two threads 1.60-1.67x
    // against 1.78-1.89x with four).
    let size = (len / (threads * 4)).max(256);
    let chunks: Vec<&[W]> = frontier.parts.iter().flat_map(|p| p.chunks(size)).collect();
    // Each chunk's new states go to a vector of an earlier level when there
    // is one: fresh memory would be faulted in and zeroed by the kernel on
    // every level.
    let outs: Vec<Vec<W>> = (0..chunks.len())
        .map(|_| spare.pop().unwrap_or_default())
        .collect();
    let store = &*store;
    let done: Vec<(Vec<W>, u64)> = chunks
        .par_iter()
        .zip(outs)
        .map(|(c, mut next)| {
            next.clear();
            let e = run_any(&mut Successors::new(m), c, &hit, &mut next, test, store);
            (next, e)
        })
        .collect();
    let expanded = done.iter().map(|p| p.1).sum();
    Level {
        next: Frontier {
            parts: done.into_iter().map(|p| p.0).collect(),
        },
        expanded,
        hit: hit.into_inner(),
    }
}

/// Breadth-first search from the model's start state.
pub fn bfs<W: Word, S: Store<W>>(m: &Model<W>, threads: usize) -> Outcome {
    let mut store = S::new(m.layout.bits);
    store.insert(m.start);
    let mut out = Outcome {
        steps: None,
        expanded: 0,
        visited: 0,
    };
    let goal = |t: W| m.holds(m.goal, t);
    if goal(m.start) {
        out.steps = Some(0);
    } else {
        let mut frontier = Frontier::one(m.start);
        let mut depth = 0u64;
        let mut succ = Successors::new(m);
        let mut spare = Vec::new();
        let within = |depth| m.limit.is_none_or(|l| depth < l);
        while !frontier.is_empty() && within(depth) {
            if threads <= 1 || frontier.len() < PAR_MIN {
                // Level after level on this thread, until one is large
                // enough to share: two vectors and no allocation per
                // level, which matters for mazes thousands of levels deep.
                let mut cur = frontier.into_one(&mut spare);
                let mut next = spare.pop().unwrap_or_default();
                let hit = AtomicBool::new(false);
                loop {
                    next.clear();
                    let own = Own(&mut store);
                    out.expanded += run_any(&mut succ, &cur, &hit, &mut next, &goal, own);
                    depth += 1;
                    std::mem::swap(&mut cur, &mut next);
                    let share = threads > 1 && cur.len() >= PAR_MIN;
                    if hit.load(Relaxed) || cur.is_empty() || !within(depth) || share {
                        break;
                    }
                }
                spare.push(next);
                frontier = Frontier { parts: vec![cur] };
                if hit.into_inner() {
                    out.steps = Some(depth);
                    break;
                }
                continue;
            }
            let level = expand(
                m, &frontier, &mut store, &goal, threads, &mut succ, &mut spare,
            );
            out.expanded += level.expanded;
            depth += 1;
            if level.hit {
                out.steps = Some(depth);
                break;
            }
            let old = std::mem::replace(&mut frontier, level.next);
            spare.extend(old.parts);
        }
    }
    out.visited = store.count();
    out
}

/// Breadth-first search from the start and from the goal state at once,
/// expanding the smaller frontier a whole level at a time. A new state that
/// the other side has seen closes a path: no path of `da + db` steps exists
/// (an earlier level would have met), so the meeting gives exactly
/// `da + 1 + db` steps. Needs a reversible model with a single goal state.
pub fn bidir<W: Word, S: Store<W>>(m: &Model<W>, threads: usize) -> Outcome {
    let goal = m.goal_state().expect("bidir needs a single goal state");
    let mut stores = [S::new(m.layout.bits), S::new(m.layout.bits)];
    stores[0].insert(m.start);
    stores[1].insert(goal);
    let mut out = Outcome {
        steps: None,
        expanded: 0,
        visited: 0,
    };
    if goal == m.start {
        out.steps = Some(0);
    } else {
        let mut frontier = [Frontier::one(m.start), Frontier::one(goal)];
        let mut depth = [0u64; 2];
        let mut succ = Successors::new(m);
        let mut spare = Vec::new();
        while !frontier[0].is_empty() && !frontier[1].is_empty() {
            if m.limit.is_some_and(|l| depth[0] + depth[1] >= l) {
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
            let level = expand(
                m,
                &frontier[a],
                mine,
                &|t| theirs.contains(t),
                threads,
                &mut succ,
                &mut spare,
            );
            out.expanded += level.expanded;
            depth[a] += 1;
            if level.hit {
                out.steps = Some(depth[0] + depth[1]);
                break;
            }
            let old = std::mem::replace(&mut frontier[a], level.next);
            spare.extend(old.parts);
        }
    }
    out.visited = stores[0].count() + stores[1].count();
    out
}
