//! Settling states in order of (cost, steps): Dijkstra's algorithm, each
//! state's best and parent kept in a map. The core of the engine of tasks
//! whose costs have parts ([`crate::search`]'s ordered engine: `minimise
//! pushes then walks` compares a way's cost part by part, so no one number
//! of the other engines weighs it), and of the search that finds a way
//! again after any engine ([`crate::trace`]). Below both, so neither
//! imports the other.
//!
//! A step's cost is a code ([`crate::task::Parts`]); a [`Weight`] adds up
//! what the codes stand for: one number, or amounts per part.

use crate::budget::Budget;
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::resolve::MAX_PARTS;
use crate::task::Task;
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A way's cost so far, compared as the task weighs ways.
pub trait Weight: Copy + Ord + Default + std::fmt::Debug {
    /// This and a step of cost `code` more.
    fn add(self, code: u32, task: &Task) -> Self;
    /// The first part (the whole cost, where it has no parts).
    fn first(self) -> u64;
    /// Every part, in order.
    fn parts(self) -> Vec<u64>;
}

impl Weight for u64 {
    fn add(self, code: u32, _: &Task) -> Self {
        self + u64::from(code)
    }

    fn first(self) -> u64 {
        self
    }

    fn parts(self) -> Vec<u64> {
        vec![self]
    }
}

/// Amounts per part, compared in order (the parts a task does not have are
/// 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct InParts([u64; MAX_PARTS]);

impl Weight for InParts {
    fn add(self, code: u32, task: &Task) -> Self {
        let mut out = self;
        let amounts = task.parts().expect("a task with parts").amounts(code);
        for (o, a) in out.0.iter_mut().zip(amounts) {
            *o += a;
        }
        out
    }

    fn first(self) -> u64 {
        self.0[0]
    }

    fn parts(self) -> Vec<u64> {
        self.0.to_vec()
    }
}

/// A way's (cost, steps).
pub type Key<C> = (C, u64);

/// The least (cost, steps) of each state found, and the state it was
/// reached from (a start is its own).
pub type Best<W, C> = HashMap<W, (Key<C>, W)>;

/// What [`settle`] found.
pub struct Settled<W, C> {
    pub best: Best<W, C>,
    /// The states settled (expanded), in order.
    pub settled: Vec<W>,
    /// The goals at the least (cost, steps), the first found first.
    pub goals: Vec<W>,
}

/// Dijkstra on (cost, steps) up to the first goal: each state's best and
/// parent, the states settled in order, and the goals settled at the least
/// (cost, steps) (with `all_goals`, every one of them; else the first).
/// `None` when no goal is reached, or the budget ran out (it says which).
pub fn settle<W: Word, C: Weight>(
    k: &Kernel<'_, W>,
    budget: &Budget,
    all_goals: bool,
) -> Option<Settled<W, C>> {
    let task = k.task();
    let limit = task.limit().map_or(u64::MAX, |l| l.max);
    let mut best: Best<W, C> = HashMap::new();
    let mut queue = BinaryHeap::new();
    let mut order: Vec<W> = Vec::new();
    for &s in k.starts() {
        if !best.contains_key(&s) {
            best.insert(s, ((C::default(), 0), s));
            queue.push(Reverse(((C::default(), 0u64), order.len())));
            order.push(s);
        }
    }
    let mut succ = k.successors();
    let mut settled = Vec::new();
    let mut goals: Vec<W> = Vec::new();
    while let Some(Reverse((g, i))) = queue.pop() {
        let s = order[i];
        if best[&s].0 < g {
            continue;
        }
        if let Some(&first) = goals.first() {
            // Only the goals at the first goal's (cost, steps) are left.
            if g > best[&first].0 {
                break;
            }
            if k.is_goal(s) {
                goals.push(s);
            }
            continue;
        }
        if k.is_goal(s) {
            goals.push(s);
            if !all_goals {
                break;
            }
            continue;
        }
        settled.push(s);
        if (settled.len() as u64).is_multiple_of(crate::budget::CHECK_EVERY)
            && budget.check(best.len() as u64, g.0.first())
        {
            return None;
        }
        succ.each_cost(s, |t, c| {
            let gt = (g.0.add(c, task), g.1 + 1);
            if gt.0.first() <= limit && best.get(&t).is_none_or(|&(b, _)| gt < b) {
                best.insert(t, (gt, s));
                queue.push(Reverse((gt, order.len())));
                order.push(t);
            }
            true
        });
    }
    (!goals.is_empty()).then_some(Settled {
        best,
        settled,
        goals,
    })
}
