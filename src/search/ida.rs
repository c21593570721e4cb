//! Iterative deepening A* (IDA*): depth-first searches from the starts,
//! each cut off where the steps so far plus A*'s lower bound
//! ([`Heuristic`]) pass a bound; the next bound is the least that the
//! search before cut off. Memory holds the way being tried and the
//! successors still to try along it, never the states seen: the engine for
//! spaces too large to keep, at the price of expanding a state again each
//! time a way reaches it.
//!
//! Exact: the bound starts at most at the optimum and rises to the least
//! value cut off (the heuristic's values past a bound are lower bounds
//! too), so the first goal reached is at the fewest steps. A successor
//! that is the state just left is not tried (a step undone is never on a
//! shortest way).
//!
//! Where the way is wanted ([`super::How::way`]), the way the last bound
//! meets first is kept: successors are tried in the kernel's order, so it
//! is the first least way in that order, the one [`super::way`] finds
//! again for the other engines.
//!
//! A map with no way to the goal ends only where every way ends (a dead
//! end, the step limit, or the bound passing the number of states the
//! layout can hold); on a large space, the limits end it.

use super::How;
use super::astar::Heuristic;
use crate::budget::{Budget, Pace, Sink};
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::solution::Solution;

/// A state on the way being tried: its successors are `kids[start..end]`
/// (`end` the start of the next state's, or the end), those from `next`
/// on still to try.
struct Frame<W> {
    state: W,
    start: usize,
    next: usize,
}

/// What entering a state found.
enum Entered {
    On,
    Goal,
    /// The budget is spent.
    Stop,
    /// The pattern tables are due: the bound's search starts again with
    /// them.
    Patterns,
}

/// IDA* from the kernel's starts with the bound starting at `from` (0, or
/// the least `f` A* had left when it turned to this), adding to the counts
/// of `out`.
pub fn ida<W: Word>(
    k: &Kernel<'_, W>,
    h: &mut Heuristic<'_>,
    how: How,
    budget: &Budget,
    from: u32,
    mut out: Solution,
) -> Solution {
    let limit = how.limit.unwrap_or(u64::MAX);
    let starts = distinct(k.starts());
    // No simple way is longer than the states there are.
    let most = k.layout().bound().min(u128::from(u32::MAX - 1)) as u32;
    let mut bound = from;
    let mut succ = k.successors();
    let mut pace = Pace::default();
    let mut way: Vec<Frame<W>> = Vec::new();
    let mut kids: Vec<W> = Vec::new();
    let mut children: Vec<W> = Vec::new();
    loop {
        out.depth = u64::from(bound);
        // The least f past the bound: the next bound.
        let mut past = u32::MAX;
        let mut rebuild = false;
        'starts: for &s0 in &starts {
            way.clear();
            kids.clear();
            out.visited += 1;
            let h0 = h.of(s0, bound);
            if h0 == u32::MAX {
                continue;
            }
            if h0 > bound {
                past = past.min(h0);
                continue;
            }
            // Enters `s` at `g` steps, within the bound: tests it, and if
            // it is not a goal and not at the limit, puts it on the way
            // with those of its successors that are within the bound too.
            // (The successors' bounds are all looked up at once, not as
            // each is entered: their table lookups overlap.)
            let mut enter = |s: W, g: u32, way: &mut Vec<Frame<W>>, kids: &mut Vec<W>| {
                if pace.due(out.visited + out.expanded) {
                    budget.note_frontier(way.len());
                    if budget.check_but_memory(out.visited, u64::from(bound)) {
                        return Entered::Stop;
                    }
                    if h.patterns_due(out.expanded) {
                        return Entered::Patterns;
                    }
                }
                if k.is_goal(s) {
                    return Entered::Goal;
                }
                if u64::from(g) >= limit {
                    return Entered::On;
                }
                out.expanded += 1;
                let back = way.last().map(|f| f.state);
                let before = kids.len();
                let mut sink = Sink::new(budget, &mut children, out.visited, u64::from(bound));
                succ.each(s, |t| sink.push(t));
                if sink.stopped() || !budget.grow(kids, children.len()) {
                    return Entered::Stop;
                }
                out.generated += children.len() as u64;
                out.visited += within(h, &children, back, g + 1, bound, &mut past, kids);
                way.push(Frame {
                    state: s,
                    start: before,
                    next: before,
                });
                Entered::On
            };
            // The start first, then the next successor still to try of
            // the deepest state on the way that has one.
            let mut step = Some((s0, 0));
            while let Some((t, g)) = step.take() {
                match enter(t, g, &mut way, &mut kids) {
                    Entered::On => {}
                    Entered::Goal => {
                        out.cost = Some(u64::from(g));
                        out.path = how.way.then(|| crate::trace::of_way(k, &states(&way, t)));
                        return out;
                    }
                    Entered::Stop => return Solution::stopped(budget),
                    Entered::Patterns => {
                        rebuild = true;
                        break 'starts;
                    }
                }
                loop {
                    let depth = way.len() as u32;
                    let Some(top) = way.last_mut() else { break };
                    if top.next < kids.len() {
                        step = Some((kids[top.next], depth));
                        top.next += 1;
                        break;
                    }
                    // Its successors all tried: back to the state before.
                    kids.truncate(top.start);
                    way.pop();
                }
            }
        }
        if rebuild {
            // A lower bound still: the search at this bound starts again.
            if !h.build_patterns(budget) {
                return Solution::stopped(budget);
            }
            continue;
        }
        if past == u32::MAX || u64::from(past) > limit || past > most {
            // Every way ends, or goes past the limit or the states there
            // are: no goal.
            return out;
        }
        bound = past;
    }
}

/// The states of the way to `last`, the start first.
fn states<W: Word>(way: &[Frame<W>], last: W) -> Vec<W> {
    way.iter().map(|f| f.state).chain([last]).collect()
}

/// Puts on `kids` those of `children` (but `back`) whose `g` steps and
/// lower bound are within `bound`, lowers `past` to the least past it;
/// how many were looked at.
fn within<W: Word>(
    h: &mut Heuristic<'_>,
    children: &[W],
    back: Option<W>,
    g: u32,
    bound: u32,
    past: &mut u32,
    kids: &mut Vec<W>,
) -> u64 {
    let room = bound.saturating_sub(g);
    let mut seen = 0;
    for &t in children.iter().filter(|&&t| Some(t) != back) {
        seen += 1;
        let ht = h.of(t, room);
        if ht == u32::MAX {
            continue;
        }
        if g + ht > bound {
            *past = (*past).min(g + ht);
            continue;
        }
        kids.push(t);
    }
    seen
}

/// The states `all`, each once, in their order.
pub(super) fn distinct<W: Word>(all: &[W]) -> Vec<W> {
    let mut seen = hashbrown::HashSet::new();
    all.iter().copied().filter(|&s| seen.insert(s)).collect()
}
