//! Dijkstra's algorithm, for tasks whose steps have costs: states settle in
//! order of their least total cost, so the first goal settled is at the
//! least cost. With small costs (at most
//! [`crate::plan::BUCKETS_MAX_COST`]) the queue is a ring of buckets, one
//! per cost (Dial's algorithm: every pending cost lies within the largest
//! step cost of the current one); otherwise a binary heap.

use super::astar::Best;
use crate::kernel::Kernel;
use crate::plan::Word;
use crate::solution::Solution;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The least cost from the kernel's starts to a goal, at most `limit`.
pub fn dijkstra<W: Word>(
    k: &Kernel<'_, W>,
    limit: Option<u64>,
    buckets: bool,
    budget: &super::Budget,
) -> Solution {
    let limit = limit.unwrap_or(u64::MAX).min(u64::from(u32::MAX - 1));
    let mut best = Best::new(k.layout().bits());
    let mut out = Solution::default();
    let mut queue = if buckets {
        Queue::ring(k.task().max_cost())
    } else {
        Queue::heap()
    };
    for &s in k.starts() {
        if best.get(s).is_none() {
            if !best.set(s, 0) || !queue.push(0, s) {
                budget.out_of_memory();
                return Solution::stopped(budget);
            }
            out.visited += 1;
        }
    }
    let mut succ = k.successors();
    let mut pace = super::budget::Pace::default();
    let mut children = Vec::new();
    while let Some((g, s)) = queue.pop() {
        if best.get(s).is_some_and(|b| b < g) {
            continue;
        }
        if k.is_goal(s) {
            out.cost = Some(g as u64);
            break;
        }
        out.expanded += 1;
        if pace.due(out.expanded + out.visited) && budget.check(out.visited, g as u64) {
            return Solution::stopped(budget);
        }
        children.clear();
        succ.each_cost(s, |t, c| {
            children.push((t, c));
            true
        });
        for &(t, c) in &children {
            let gt = g + c;
            if gt as u64 > limit {
                continue;
            }
            let seen = best.get(t);
            if seen.is_some_and(|b| b <= gt) {
                continue;
            }
            if !best.set(t, gt) || !queue.push(gt, t) {
                budget.out_of_memory();
                return Solution::stopped(budget);
            }
            out.visited += u64::from(seen.is_none());
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
        heap: BinaryHeap<Reverse<(u32, u32)>>,
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

    /// Queues `s` at cost `g`; false when the queue could not grow.
    #[must_use]
    fn push(&mut self, g: u32, s: W) -> bool {
        match self {
            Queue::Ring { ring, pending, .. } => {
                let len = ring.len() as u32;
                let bucket = &mut ring[(g % len) as usize];
                if bucket.try_reserve(1).is_err() {
                    return false;
                }
                bucket.push(s);
                *pending += 1;
            }
            Queue::Heap { heap, states } => {
                if heap.try_reserve(1).is_err() || states.try_reserve(1).is_err() {
                    return false;
                }
                heap.push(Reverse((g, states.len() as u32)));
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
