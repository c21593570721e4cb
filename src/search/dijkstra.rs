//! Dijkstra's algorithm, for tasks whose steps have costs: states settle in
//! order of their least total cost, so the first goal settled is at the
//! least cost. With small costs (at most
//! [`crate::plan::BUCKETS_MAX_COST`]) the queue is a ring of buckets, one
//! per cost (Dial's algorithm: every pending cost lies within the largest
//! step cost of the current one); otherwise a binary heap.

use super::astar::Best;
use crate::budget::{Budget, Sink};
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::plan::Checks;
use crate::solution::Solution;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The least cost from the kernel's starts to a goal, at most `limit`.
pub fn dijkstra<W: Word>(
    k: &Kernel<'_, W>,
    how: super::How,
    buckets: bool,
    budget: &Budget,
) -> Solution {
    let limit = how.limit.unwrap_or(u64::MAX).min(u64::from(u32::MAX - 1));
    let mut best = Best::new(k.layout().bits());
    let mut out = Solution::default();
    // States in the queue (the open list), for the statistics.
    let mut open = 0u64;
    let mut queue = if buckets {
        Queue::ring(k.task().max_cost())
    } else {
        Queue::heap()
    };
    for &s in k.starts() {
        if best.get(s).is_none() {
            if !best.set(s, 0, budget) || !queue.push(0, s, budget) {
                return Solution::stopped(budget);
            }
            out.visited += 1;
            open += 1;
        }
    }
    out.frontier = open;
    let mut succ = k.successors();
    let mut pace = crate::budget::Pace::default();
    let mut children = Vec::new();
    // With few successors a state, room for them all, once.
    let few = match how.checks {
        Checks::Blocks { fan_out, .. } => budget.grow(&mut children, fan_out),
        Checks::Successors => false,
    };
    while let Some((g, s)) = queue.pop() {
        open -= 1;
        if best.get(s).is_some_and(|b| b < g) {
            continue;
        }
        if k.is_goal(s) {
            out.cost = Some(g as u64);
            break;
        }
        out.expanded += 1;
        out.depth = g as u64;
        if pace.due(out.expanded + out.visited) {
            budget.note_frontier(open as usize);
            if budget.check(out.visited, g as u64) {
                return Solution::stopped(budget);
            }
        }
        if few {
            children.clear();
            succ.each_cost(s, |t, c| {
                children.push((t, c));
                true
            });
        } else {
            let mut sink = Sink::new(budget, &mut children, out.visited, g as u64);
            succ.each_cost(s, |t, c| sink.push((t, c)));
            if sink.stopped() {
                return Solution::stopped(budget);
            }
        }
        out.generated += children.len() as u64;
        for &(t, c) in &children {
            // Costs of at most 2^20 a step, added up over more than 4,096
            // steps, can pass what 32 bits hold: the case is stopped there.
            let Some(gt) = g.checked_add(c) else {
                budget.beyond_engine();
                return Solution::stopped(budget);
            };
            if gt as u64 > limit {
                continue;
            }
            let seen = best.get(t);
            if seen.is_some_and(|b| b <= gt) {
                continue;
            }
            if !best.set(t, gt, budget) || !queue.push(gt, t, budget) {
                return Solution::stopped(budget);
            }
            out.visited += u64::from(seen.is_none());
            open += 1;
            out.frontier = out.frontier.max(open);
        }
    }
    out
}

/// States waiting to settle, by cost.
enum Queue<W> {
    /// `ring[g % len]` holds the states of cost `g`; every pending cost is
    /// in `cur..cur + len`.
    Ring {
        ring: Vec<Vec<W>>,
        cur: u32,
        pending: usize,
        /// The bucket being emptied.
        now: Vec<W>,
    },
    /// `(cost, order pushed)`, least first; states by order pushed.
    Heap {
        heap: BinaryHeap<Reverse<(u32, u64)>>,
        states: Vec<W>,
    },
}

impl<W: Word> Queue<W> {
    fn ring(max_cost: u32) -> Self {
        Queue::Ring {
            ring: vec![Vec::new(); max_cost as usize + 1],
            cur: 0,
            pending: 0,
            now: Vec::new(),
        }
    }

    fn heap() -> Self {
        Queue::Heap {
            heap: BinaryHeap::new(),
            states: Vec::new(),
        }
    }

    /// Queues `s` at cost `g`; false when the queue may not grow (the
    /// search must then stop).
    #[must_use]
    fn push(&mut self, g: u32, s: W, budget: &Budget) -> bool {
        match self {
            Queue::Ring { ring, pending, .. } => {
                let len = ring.len() as u32;
                let bucket = &mut ring[(g % len) as usize];
                if !budget.grow(bucket, 1) {
                    return false;
                }
                bucket.push(s);
                *pending += 1;
            }
            Queue::Heap { heap, states } => {
                if !budget.grow(states, 1) {
                    return false;
                }
                if heap.len() == heap.capacity() {
                    let bytes =
                        (heap.len().max(4) * std::mem::size_of::<Reverse<(u32, u64)>>()) as u64;
                    if !budget.reserve(bytes) {
                        return false;
                    }
                    if heap.try_reserve(heap.len().max(4)).is_err() {
                        budget.out_of_memory();
                        return false;
                    }
                }
                heap.push(Reverse((g, states.len() as u64)));
                states.push(s);
            }
        }
        true
    }

    fn pop(&mut self) -> Option<(u32, W)> {
        match self {
            Queue::Ring {
                ring,
                cur,
                pending,
                now,
            } => {
                let len = ring.len() as u32;
                while now.is_empty() {
                    if *pending == 0 {
                        return None;
                    }
                    // The bucket of the current cost, swapped out whole:
                    // pushes while it empties go to other buckets (every
                    // step costs at least 1 and at most `len - 1`).
                    std::mem::swap(now, &mut ring[(*cur % len) as usize]);
                    if now.is_empty() {
                        *cur += 1;
                    }
                }
                *pending -= 1;
                let s = now.pop().expect("a state");
                Some((*cur, s))
            }
            Queue::Heap { heap, states } => {
                let Reverse((g, i)) = heap.pop()?;
                Some((g, states[i as usize]))
            }
        }
    }
}
