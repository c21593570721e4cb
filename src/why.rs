//! Why a case has no answer: every state reachable from its start,
//! explored with the interpreter (within the run's limits), and what they
//! show: how many there are, whether any is a goal, the moves never taken,
//! and the cells each mover ever stands on.
//!
//! Invariant of [`Why`]: `states` counts distinct reachable states (all of
//! them when `whole`); `never` lists each action no reachable state takes;
//! `reached` has one entry per mover with one flag per grid cell.

use crate::budget::Budget;
use crate::kernel::{Generic, Kernel, KernelKind};
use crate::pack::Word;
use crate::plan::Plan;
use crate::task::Task;
use std::collections::VecDeque;

/// What the states reachable from a case's start show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    /// The distinct states reached.
    pub states: u64,
    /// Every reachable state was reached (no limit stopped the walk).
    pub whole: bool,
    /// Some reached state is a goal.
    pub goal: bool,
    /// For a goal of several parts joined by `and`: whether each was true
    /// in some reached state (empty for a goal of one part).
    pub parts: Vec<bool>,
    /// The moves no reached state takes, as `--moves` names them.
    pub never: Vec<String>,
    /// Per mover: its name, and for each grid cell whether it stood there.
    pub reached: Vec<(String, Vec<bool>)>,
}

/// Explores the states reachable from `task`'s start with `plan`'s
/// encoding, within `budget`.
pub fn why(task: &Task, plan: &Plan, budget: &Budget) -> Why {
    crate::plan::by_word!(plan.word(), why_in(task, plan, budget))
}

fn why_in<W: Word>(task: &Task, plan: &Plan, budget: &Budget) -> Why {
    let layout = plan.layout();
    let kernel: Kernel<'_, W> = Kernel::new(task, layout, KernelKind::Generic);
    let mut generic = Generic::new(task, layout);
    let cells = task.board().rows() * task.board().cols();
    let mut reached = vec![vec![false; cells]; task.movers().len()];
    let mut taken = vec![false; task.actions().len()];
    let mut seen: hashbrown::HashSet<W> = kernel.starts().iter().copied().collect();
    let mut queue: VecDeque<W> = kernel.starts().iter().copied().collect();
    let mut vals = vec![0i64; task.vars().len()];
    let (mut goal, mut whole) = (false, true);
    let mut parts = vec![false; task.goal_parts().len()];
    let mut expanded = 0u64;
    while let Some(s) = queue.pop_front() {
        // The budget is asked between blocks of states, as the searches do
        // (it reads the clock), and at once past the limit on states.
        expanded += 1;
        let past = (budget.limits().max_states).is_some_and(|m| seen.len() as u64 > m);
        if (past || expanded % 4096 == 1) && budget.check(seen.len() as u64, 0) {
            whole = false;
            break;
        }
        goal |= kernel.is_goal(s);
        layout.decode(s, &mut vals);
        for (held, part) in parts.iter_mut().zip(task.goal_parts()) {
            *held |= task.eval(part, &vals);
        }
        for (m, mover) in task.movers().iter().enumerate() {
            let p = vals[mover.pos().ix()] as u32;
            reached[m][mover.domain().cell(p) as usize] = true;
        }
        generic.each_acted(s, |t, _, acted| {
            for &(_, a) in acted {
                taken[a.ix()] = true;
            }
            if seen.insert(t) {
                queue.push_back(t);
            }
            true
        });
    }
    let never = (task.movers().iter().enumerate())
        .flat_map(|(m, mover)| mover.actions().iter().map(move |&a| (m, a)))
        .filter(|&(_, a)| !taken[a.ix()])
        .map(|(m, a)| {
            let named = crate::trace::token(task, &vec![(m, a)], false);
            let name = task.movers()[m].name();
            if named.starts_with(&format!("{name}:")) {
                named
            } else {
                format!("{name}:{named}")
            }
        })
        .collect();
    Why {
        states: seen.len() as u64,
        whole,
        goal,
        parts,
        never,
        reached: (task.movers().iter())
            .map(|m| m.name().to_string())
            .zip(reached)
            .collect(),
    }
}

impl Why {
    /// What `explain --why` prints: the counts, the moves never taken, and
    /// each mover's cells drawn as `+` over the map's symbols
    /// (`symbol(cell)`), for a map of `cols` columns; the goal's parts
    /// named by their text (`texts`, where known).
    pub fn describe(
        &self,
        cols: usize,
        symbol: &dyn Fn(usize) -> String,
        texts: &[String],
    ) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let all = if self.whole {
            "every state reachable from the start"
        } else {
            "a limit stopped the walk: not every reachable state"
        };
        let goal = if self.goal {
            "some of them a goal"
        } else {
            "none of them a goal"
        };
        let _ = writeln!(out, "why: {} states reached ({all}), {goal}", self.states);
        let n = self.parts.len();
        for (k, _) in self.parts.iter().enumerate().filter(|(_, held)| !**held) {
            let text = texts.get(k).map_or(String::new(), |t| format!(": `{t}`"));
            let _ = writeln!(
                out,
                "  part {} of the goal's {n} (joined by `and`, in the order written) is never \
                 true{text}",
                k + 1
            );
        }
        if !self.never.is_empty() {
            let _ = writeln!(out, "  moves never taken: {}", self.never.join(", "));
        }
        for (name, cells) in &self.reached {
            let n = cells.iter().filter(|&&c| c).count();
            let _ = writeln!(out, "  cells {name} stands on ({n}, drawn `+`):");
            for (r, row) in cells.chunks(cols.max(1)).enumerate() {
                let line: String = (row.iter().enumerate())
                    .map(|(c, &on)| {
                        if on {
                            "+".to_string()
                        } else {
                            symbol(r * cols + c)
                        }
                    })
                    .collect();
                let _ = writeln!(out, "    {}", line.trim_end());
            }
        }
        out
    }
}

impl Why {
    /// The same as JSON: `states`, `whole`, `goal`, `parts_never_true`
    /// (their places, from 1) and `parts_never_true_text` (as written,
    /// where `texts` has them), `moves_never_taken`, and `cells` with each
    /// mover's `[row, column]`s (on a map of `cols` columns).
    pub fn json(&self, cols: usize, texts: &[String]) -> serde_json::Value {
        let cols = cols.max(1);
        let cells: serde_json::Map<String, serde_json::Value> = (self.reached.iter())
            .map(|(name, on)| {
                let at: Vec<[usize; 2]> = (on.iter().enumerate())
                    .filter(|(_, on)| **on)
                    .map(|(c, _)| [c / cols, c % cols])
                    .collect();
                (name.clone(), serde_json::json!(at))
            })
            .collect();
        let never_true: Vec<usize> = (self.parts.iter().enumerate())
            .filter(|(_, held)| !**held)
            .map(|(k, _)| k + 1)
            .collect();
        let never_text: Vec<&str> = (never_true.iter())
            .filter_map(|k| texts.get(k - 1).map(String::as_str))
            .collect();
        serde_json::json!({
            "states": self.states,
            "whole": self.whole,
            "goal": self.goal,
            "parts_never_true": never_true,
            "parts_never_true_text": never_text,
            "moves_never_taken": self.never,
            "cells": cells,
        })
    }
}
