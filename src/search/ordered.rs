//! The engine of tasks whose costs have parts: the least cost, part by
//! part, settled by [`crate::settle`].

use crate::budget::Budget;
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::settle::{InParts, Weight, settle};
use crate::solution::Solution;

/// The least cost, part by part, of a task whose costs have parts.
pub fn ordered<W: Word>(k: &Kernel<'_, W>, budget: &Budget) -> Solution {
    let found = settle::<W, InParts>(k, budget, false);
    if budget.report().is_some() {
        return Solution::stopped(budget);
    }
    let mut out = Solution::default();
    if let Some(f) = found {
        let (cost, steps) = f.best[&f.goals[0]].0;
        let n = k.task().parts().map_or(1, |p| p.names().len());
        out.cost = Some(cost.first());
        out.parts = Some(cost.parts()[..n].to_vec());
        out.steps = Some(steps);
        out.expanded = f.settled.len() as u64;
        out.visited = f.best.len() as u64;
        out.depth = cost.first();
    }
    out
}
