//! The solution's moves, after the search: a way to a goal of the least
//! cost found again with each state's parent kept (the engines keep none: a
//! bitset holds one bit a state), each step named by the actions the
//! generic interpreter takes for it; and the replay of such moves, for
//! `puzzle verify`.
//!
//! Invariant: a [`Trace`] is a way from a start state to a goal state, each
//! step a step of the task (the interpreter's), of the least total cost.
//! It is found on one thread, in the kernel's order of successors, so it is
//! the same whatever the strategy and the threads of the search.

use crate::budget::Budget;
use crate::kernel::{Generic, Kernel};
use crate::pack::{Wide, Word};
use crate::plan::{Plan, WordSize};
use crate::task::{ActionId, Mode, Task};
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One step: the actions taken, as `(mover, action)`: one mover's in turn,
/// every mover's (in order) at once.
pub type Step = Vec<(usize, ActionId)>;

/// A least-cost way to a goal, as its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    steps: Vec<Step>,
    /// The states of the way, start first (one more than the steps), each
    /// as one value per variable of the task.
    states: Vec<Vec<i64>>,
    /// The cost of the way up to each state (0 for the start).
    costs: Vec<u64>,
    cost: u64,
}

impl Trace {
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// The states of the way, start first, as values per variable.
    pub fn states(&self) -> &[Vec<i64>] {
        &self.states
    }

    /// The cost of the way up to each of [`Self::states`].
    pub fn costs(&self) -> &[u64] {
        &self.costs
    }

    /// The steps as tokens, separated by spaces (`puzzle run --moves`).
    pub fn line(&self, task: &Task) -> String {
        let tokens: Vec<String> = self.steps.iter().map(|s| token(task, s)).collect();
        tokens.join(" ")
    }
}

/// An action's name in a token: a space (`turn left`) becomes `-`.
fn word(task: &Task, a: ActionId) -> String {
    task.action(a).name().replace(' ', "-")
}

/// A step as one token: the action's name for a lone mover; `MOVER:ACTION`
/// for several in turn; every mover's action, in order, joined by `,` at
/// once; the one action all make, together. A space in a name is `-`.
pub fn token(task: &Task, step: &Step) -> String {
    let action = |&(_, a): &(usize, ActionId)| word(task, a);
    match (task.movers().len(), task.mode()) {
        (1, _) => step.iter().map(action).collect(),
        (_, Mode::InTurn) => step
            .iter()
            .map(|&(m, a)| format!("{}:{}", task.movers()[m].name(), word(task, a)))
            .collect(),
        (_, Mode::AtOnce) => step.iter().map(action).collect::<Vec<_>>().join(","),
        // One move, which every mover makes.
        (_, Mode::Together) => step.first().map(action).unwrap_or_default(),
    }
}

/// Reads a token back into a step; what is wrong with it, if it is not
/// one.
pub fn parse(task: &Task, token: &str) -> Result<Step, String> {
    let movers = task.movers();
    let find = |m: usize, name: &str| {
        movers[m]
            .actions()
            .iter()
            .copied()
            .find(|&a| word(task, a) == name)
            .map(|a| (m, a))
            .ok_or_else(|| {
                let names: Vec<String> =
                    movers[m].actions().iter().map(|&a| word(task, a)).collect();
                format!(
                    "`{}` is not a move of {} (its moves: {})",
                    crate::error::raw(name),
                    movers[m].name(),
                    names.join(", ")
                )
            })
    };
    match (movers.len(), task.mode()) {
        (0, _) => Err("the task has no mover".into()),
        (1, _) => Ok(vec![find(0, token)?]),
        (_, Mode::Together) => {
            let (_, a) = find(0, token)?;
            let k = movers[0]
                .actions()
                .iter()
                .position(|&x| x == a)
                .unwrap_or(0);
            Ok((0..movers.len())
                .map(|i| (i, movers[i].actions()[k]))
                .collect())
        }
        (_, Mode::InTurn) => {
            let Some((who, what)) = token.split_once(':') else {
                return Err("a step is MOVER:MOVE when several agents take turns".into());
            };
            let m = movers.iter().position(|m| m.name() == who).ok_or_else(|| {
                format!("`{}` is not an agent of this map", crate::error::raw(who))
            })?;
            Ok(vec![find(m, what)?])
        }
        (n, Mode::AtOnce) => {
            // An offset's name, `(-2,1)`, has a comma of its own.
            let mut depth = 0i32;
            let parts: Vec<&str> = token
                .split(|c| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    c == ',' && depth == 0
                })
                .collect();
            if parts.len() != n {
                return Err(format!(
                    "a step names the moves of all {n} agents, in order, joined by `,`"
                ));
            }
            parts.iter().enumerate().map(|(m, p)| find(m, p)).collect()
        }
    }
}

/// A least-cost way to a goal, within the budget; `None` when there is
/// none (or the budget ran out first).
pub fn trace(task: &Task, plan: &Plan, budget: &Budget) -> Option<Trace> {
    match plan.word() {
        WordSize::U32 => trace_in::<u32>(task, plan, budget),
        WordSize::U64 => trace_in::<u64>(task, plan, budget),
        WordSize::U128 => trace_in::<u128>(task, plan, budget),
        WordSize::W256 => trace_in::<Wide<4>>(task, plan, budget),
        WordSize::W1024 => trace_in::<Wide<16>>(task, plan, budget),
    }
}

/// Dijkstra's algorithm on (cost, steps), so that of the least-cost ways
/// the one with the fewest steps is found (breadth-first order when steps
/// cost 1; other ties go in the order found), with each state's parent;
/// then the steps named.
fn trace_in<W: Word>(task: &Task, plan: &Plan, budget: &Budget) -> Option<Trace> {
    let k = Kernel::<W>::new(task, plan.layout(), plan.kernel());
    if k.goal_never() {
        return None;
    }
    let limit = task.limit().map_or(u64::MAX, |l| l.max);
    // State -> (least (cost, steps), parent); a start is its own parent.
    let mut best: HashMap<W, ((u64, u64), W)> = HashMap::new();
    let mut queue = BinaryHeap::new();
    let mut order: Vec<W> = Vec::new();
    for &s in k.starts() {
        if !best.contains_key(&s) {
            best.insert(s, ((0, 0), s));
            queue.push(Reverse(((0u64, 0u64), order.len())));
            order.push(s);
        }
    }
    let mut succ = k.successors();
    let mut popped = 0u64;
    let goal = loop {
        let Reverse((g, i)) = queue.pop()?;
        let s = order[i];
        if best[&s].0 < g {
            continue;
        }
        if k.is_goal(s) {
            break s;
        }
        popped += 1;
        if popped.is_multiple_of(crate::budget::CHECK_EVERY) && budget.check(best.len() as u64, g.0)
        {
            return None;
        }
        succ.each_cost(s, |t, c| {
            let gt = (g.0 + u64::from(c), g.1 + 1);
            if gt.0 <= limit && best.get(&t).is_none_or(|&(b, _)| gt < b) {
                best.insert(t, (gt, s));
                queue.push(Reverse((gt, order.len())));
                order.push(t);
            }
            true
        });
    };
    // The states of the way, start first.
    let mut way = vec![goal];
    while let Some(&(_, p)) = best.get(way.last().expect("a state")) {
        if p == *way.last().expect("a state") {
            break;
        }
        way.push(p);
    }
    way.reverse();
    let mut generic = Generic::<W>::new(task, k.layout());
    let mut steps = Vec::with_capacity(way.len().saturating_sub(1));
    for pair in way.windows(2) {
        let (p, t) = (pair[0], pair[1]);
        let cost = best[&t].0.0 - best[&p].0.0;
        let mut step = None;
        generic.each_acted(p, |u, c, acted| {
            if u == t && u64::from(c) == cost {
                step = Some(acted.to_vec());
                return false;
            }
            true
        });
        steps.push(step.expect("the interpreter takes every step a kernel gives"));
    }
    let layout = k.layout();
    let states = way
        .iter()
        .map(|&s| {
            let mut vals = vec![0; task.vars().len()];
            layout.decode(s, &mut vals);
            vals
        })
        .collect();
    Some(Trace {
        steps,
        states,
        costs: way.iter().map(|s| best[s].0.0).collect(),
        cost: best[&goal].0.0,
    })
}

/// How a replay of moves ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// Every step was legal; the cost, and whether a goal was reached.
    Done { cost: u64, goal: bool },
    /// Step `step` (from 0) cannot be taken: why.
    Illegal { step: usize, why: String },
}

/// Replays `tokens` from the task's start states (from each of them, when
/// it has several: the moves are legal when they are from one of them).
pub fn replay(task: &Task, plan: &Plan, tokens: &[&str]) -> Replay {
    match plan.word() {
        WordSize::U32 => replay_in::<u32>(task, plan, tokens),
        WordSize::U64 => replay_in::<u64>(task, plan, tokens),
        WordSize::U128 => replay_in::<u128>(task, plan, tokens),
        WordSize::W256 => replay_in::<Wide<4>>(task, plan, tokens),
        WordSize::W1024 => replay_in::<Wide<16>>(task, plan, tokens),
    }
}

fn replay_in<W: Word>(task: &Task, plan: &Plan, tokens: &[&str]) -> Replay {
    let k = Kernel::<W>::new(task, plan.layout(), crate::kernel::KernelKind::Generic);
    let mut generic = Generic::<W>::new(task, plan.layout());
    // The states the moves so far may have led to, with their least cost,
    // in the order found (so that what is said of them is the same on
    // every run).
    let mut now: Vec<(W, u64)> = k.starts().iter().map(|&s| (s, 0)).collect();
    for (i, token) in tokens.iter().enumerate() {
        let step = match parse(task, token) {
            Ok(s) => s,
            Err(why) => return Replay::Illegal { step: i, why },
        };
        let mut next: Vec<(W, u64)> = Vec::new();
        let mut index: HashMap<W, usize> = HashMap::new();
        for &(s, g) in &now {
            generic.each_acted(s, |t, c, acted| {
                if acted == step.as_slice() {
                    let gt = g + u64::from(c);
                    match index.get(&t) {
                        Some(&j) => next[j].1 = next[j].1.min(gt),
                        None => {
                            index.insert(t, next.len());
                            next.push((t, gt));
                        }
                    }
                }
                true
            });
        }
        if next.is_empty() {
            // Why, from the first state the moves may be in.
            let why = generic
                .refusal(now[0].0, &step)
                .unwrap_or_else(|| format!("`{}` cannot be taken here", crate::error::raw(token)));
            return Replay::Illegal { step: i, why };
        }
        now = next;
    }
    let goals = now.iter().filter(|&&(s, _)| k.is_goal(s)).map(|&(_, g)| g);
    match goals.min() {
        Some(cost) => Replay::Done { cost, goal: true },
        None => Replay::Done {
            cost: now.iter().map(|&(_, g)| g).min().unwrap_or(0),
            goal: false,
        },
    }
}
