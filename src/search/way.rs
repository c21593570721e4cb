//! The least way again, after a search, where steps cost 1 and A*'s bound
//! applies: a depth-first search in the kernel's order of starts and
//! successors under the least cost, A*'s bound cutting off what cannot
//! reach a goal within it, and each state left with no goal within the
//! steps it had remembered with that room (a state met again with no more
//! room is not entered). Finding the way again with Dijkstra's algorithm
//! settles every state nearer than the goal; on a space of billions (six
//! robots to their targets, a fifteen puzzle) that never ends, where the
//! bound keeps the search near the ways to the goal.
//!
//! Invariant: the way found is the first of the least ways in the order
//! of the kernel's starts and successors (compared step by step): the
//! depth-first search meets ways in that order, and cuts off only what
//! cannot be a least way (a lower bound past the room, a state that had
//! no goal within more room, the state just left: a least way does not go
//! back). So it is the same whatever found the least cost first, and
//! IDA*'s last bound finds it too.

use super::astar::{Best, Heuristic};
use crate::budget::{Budget, Pace, Sink};
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::plan::Plan;
use crate::task::Task;
use crate::trace::Trace;

/// What the search for the way ended with.
pub enum Found<W> {
    /// The way's states, a start first, a goal last.
    Way(Vec<W>),
    /// No way within the step limit.
    None,
    /// The budget ran out first.
    Stopped,
}

/// A state on the way being tried: its successors still to try are
/// `kids[next..end]` (`end` the start of the next state's, or the end).
struct Frame<W> {
    state: W,
    start: usize,
    next: usize,
}

/// The first least way (see the module), with the bound starting at
/// `from` (the least cost, where a search found it already) and rising to
/// the least value cut off, as IDA*'s does.
pub fn least_way<W: Word>(
    k: &Kernel<'_, W>,
    h: &mut Heuristic<'_>,
    budget: &Budget,
    limit: Option<u64>,
    from: u32,
) -> Found<W> {
    let limit = limit.unwrap_or(u64::MAX).min(u64::from(u32::MAX - 2)) as u32;
    // No simple way is longer than the states there are.
    let most = k.layout().bound().min(u128::from(u32::MAX - 2)) as u32;
    let starts = super::ida::distinct(k.starts());
    // The most room each state was left with, no goal found within it.
    let mut failed = Best::<W>::new(k.layout().bits());
    let mut succ = k.successors();
    let (mut pace, mut counted) = (Pace::default(), 0u64);
    let (mut way, mut kids, mut children) = (Vec::<Frame<W>>::new(), Vec::new(), Vec::new());
    let mut bound = from;
    loop {
        let mut past = u32::MAX;
        // Cut off `t`, to be entered at `g` steps, when it cannot reach a
        // goal within the bound: lowers `past` to the least bound that
        // might.
        let cut = |t: W, g: u32, h: &mut Heuristic<'_>, failed: &Best<W>, past: &mut u32| {
            let room = bound.min(limit).saturating_sub(g);
            if let Some(r) = failed.get(t)
                && r >= room
            {
                *past = (*past).min(g.saturating_add(r).saturating_add(1));
                return true;
            }
            let ht = h.of(t, room);
            if ht == u32::MAX {
                return true;
            }
            if ht > room {
                *past = (*past).min(g.saturating_add(ht));
                return true;
            }
            false
        };
        let mut rebuild = false;
        'starts: for &s0 in &starts {
            if cut(s0, 0, h, &failed, &mut past) {
                continue;
            }
            way.clear();
            kids.clear();
            let mut step = Some(s0);
            while let Some(s) = step.take() {
                counted += 1;
                if pace.due(counted) {
                    budget.note_frontier(way.len());
                    if budget.check(counted, u64::from(bound)) {
                        return Found::Stopped;
                    }
                    if h.patterns_due(counted) {
                        rebuild = true;
                        break 'starts;
                    }
                }
                if k.is_goal(s) {
                    let mut states: Vec<W> = way.iter().map(|f| f.state).collect();
                    states.push(s);
                    return Found::Way(states);
                }
                let g = way.len() as u32;
                if g < bound.min(limit) {
                    let back = way.last().map(|f| f.state);
                    let mut sink = Sink::new(budget, &mut children, counted, u64::from(bound));
                    succ.each(s, |t| sink.push(t));
                    if sink.stopped() || !budget.grow(&mut kids, children.len()) {
                        return Found::Stopped;
                    }
                    let before = kids.len();
                    for &t in children.iter().filter(|&&t| Some(t) != back) {
                        if !cut(t, g + 1, h, &failed, &mut past) {
                            kids.push(t);
                        }
                    }
                    way.push(Frame {
                        state: s,
                        start: before,
                        next: before,
                    });
                }
                // The next successor still to try of the deepest state on
                // the way that has one; those with none tried are
                // remembered as failed with the room they had.
                while let Some(top) = way.last_mut() {
                    if top.next < kids.len() {
                        step = Some(kids[top.next]);
                        top.next += 1;
                        break;
                    }
                    kids.truncate(top.start);
                    let done = way.pop().expect("a state on the way").state;
                    let room = bound.min(limit).saturating_sub(way.len() as u32);
                    if failed.get(done).is_none_or(|r| r < room) && !failed.set(done, room, budget)
                    {
                        return Found::Stopped;
                    }
                }
            }
        }
        if rebuild {
            // A lower bound still: the search at this bound starts again,
            // the states that failed still failed.
            if !h.build_patterns(budget) {
                return Found::Stopped;
            }
            continue;
        }
        if past == u32::MAX || past > limit || past > most {
            return Found::None;
        }
        bound = past;
    }
}

/// A least-cost way to a goal, within the budget, as the plan finds it
/// again: by its bound ([`crate::plan::Plan::way_bound`]) from `cost`
/// (where no search found it yet, the plan's search finds it first: a
/// depth-first search rising from bound 0 meets each state again at every
/// bound, and cannot tell that no way exists), else by Dijkstra's
/// algorithm ([`crate::trace::trace`]). `None` when there is none (or the
/// budget ran out first).
pub fn trace(task: &Task, plan: &Plan, budget: &Budget, cost: Option<u64>) -> Option<Trace> {
    if plan.way_bound().is_none() {
        return crate::trace::trace(task, plan, budget);
    }
    let cost = match cost {
        Some(c) => c,
        None => super::run(task, plan, budget).cost()?,
    };
    let from = cost.min(u64::from(u32::MAX - 2)) as u32;
    crate::plan::by_word!(plan.word(), by_bound(task, plan, budget, from))
}

fn by_bound<W: Word>(task: &Task, plan: &Plan, budget: &Budget, from: u32) -> Option<Trace> {
    let k = Kernel::<W>::new(task, plan.layout(), plan.kernel());
    if k.goal_never() {
        return None;
    }
    let mut h = Heuristic::new(task, plan.layout(), plan.way_bound()?, budget)?;
    match least_way(&k, &mut h, budget, task.limit().map(|l| l.max), from) {
        Found::Way(way) => Some(crate::trace::of_way(&k, &way)),
        Found::None | Found::Stopped => None,
    }
}
