//! The engine of tasks whose costs have parts: the least cost, part by
//! part, settled by [`crate::settle`]; and, when one is asked for, the way
//! from the same search ([`crate::trace::of_settled`]).

use crate::budget::Budget;
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::plan::Plan;
use crate::settle::{InParts, Index, Label, Labels, Packed, settle};
use crate::solution::Solution;

/// The least cost, part by part, of a task whose costs have parts; with
/// `way`, a way of that cost too, from the same search.
pub fn ordered<W: Word>(k: &Kernel<'_, W>, plan: &Plan, budget: &Budget, way: bool) -> Solution {
    let store = plan
        .labels()
        .expect("the ordered engine is planned with its labels");
    let parts = k
        .task()
        .parts()
        .expect("the ordered engine is for costs in parts");
    match &store.packing {
        Some(p) => ordered_with::<W, Packed>(k, budget, way, p, store.array.as_ref()),
        None => ordered_with::<W, (InParts, u64)>(k, budget, way, parts, store.array.as_ref()),
    }
}

fn ordered_with<W: Word, L: Label>(
    k: &Kernel<'_, W>,
    budget: &Budget,
    way: bool,
    scale: &L::Scale,
    array: Option<&Index>,
) -> Solution {
    // The way: where moves have letters, from every goal at the least
    // label (without parents); else by the parents.
    let lettered = k.task().lettered();
    let parents = way && !lettered;
    // The array is made at once: within the memory limit, or the case
    // stops cleanly instead of failing to allocate.
    if let Some(ix) = array {
        let each = std::mem::size_of::<L>() + if parents { std::mem::size_of::<W>() } else { 0 };
        if !budget.afford((ix.len() * each) as u64) {
            return Solution::stopped(budget);
        }
    }
    let best = Labels::new(array, parents);
    let found = settle::<W, L>(k, budget, way && lettered, scale, best);
    if budget.report().is_some() {
        return Solution::stopped(budget);
    }
    let mut out = Solution::default();
    if let Some(f) = found {
        let label = f.best.get(f.goals[0]).expect("a goal has its label");
        out.cost = Some(label.first(scale));
        out.parts = Some(label.parts(scale));
        out.steps = Some(label.steps(scale));
        out.expanded = f.settled.len() as u64;
        out.visited = f.best.len() as u64;
        out.generated = f.generated;
        out.frontier = f.frontier;
        out.depth = label.first(scale);
        if way {
            out.path = Some(crate::trace::of_settled(k, &f, scale));
        }
    }
    out
}
