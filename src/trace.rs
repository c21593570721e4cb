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
use crate::pack::Word;
use crate::plan::Plan;
use crate::settle::{InParts, Label, Labels, Settled, settle};
use crate::task::{ActionId, Mode, Task};
use hashbrown::HashMap;

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
    /// The cost of the way up to each state (0 for the start); its first
    /// part, where costs have parts.
    costs: Vec<u64>,
    cost: u64,
    /// The way's cost part by part (the cost alone, where it has none).
    parts: Vec<u64>,
}

impl Trace {
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// The way's cost part by part (the cost alone, where it has none).
    pub fn parts(&self) -> &[u64] {
        &self.parts
    }

    /// The states of the way, start first, as values per variable.
    pub fn states(&self) -> &[Vec<i64>] {
        &self.states
    }

    /// The cost of the way up to each of [`Self::states`].
    pub fn costs(&self) -> &[u64] {
        &self.costs
    }

    /// Whether step `i` pushed an object.
    pub fn pushed(&self, task: &Task, i: usize) -> bool {
        self.way().pushed(task, i)
    }

    /// The steps as tokens (`puzzle run --moves`, `--trace`): by their
    /// letters where the moves have them.
    pub fn tokens(&self, task: &Task) -> Vec<String> {
        self.way().tokens(task)
    }

    /// The way, as [`crate::show`] draws it.
    pub fn way(&self) -> Way<'_> {
        Way {
            steps: &self.steps,
            states: &self.states,
            costs: &self.costs,
        }
    }

    /// The way written with the moves' letters, joined by `joiner`
    /// (`{path}`); `None` when the moves have none.
    pub fn written(&self, task: &Task, joiner: &str) -> Option<String> {
        let letters: Option<Vec<String>> = (0..self.steps.len())
            .map(|i| written(task, &self.steps[i], self.pushed(task, i)))
            .collect();
        letters.map(|l| l.join(joiner))
    }
}

/// Any way from a start: its steps, its states (one more, the start
/// first, each as one value per variable), and the cost up to each state
/// (its first part, where costs have parts). A [`Trace`]'s, or the moves
/// made so far in [`crate::play`]; nothing says it is the least or ends at
/// a goal.
#[derive(Debug, Clone, Copy)]
pub struct Way<'a> {
    pub steps: &'a [Step],
    pub states: &'a [Vec<i64>],
    pub costs: &'a [u64],
}

impl Way<'_> {
    /// Whether step `i` pushed an object.
    pub fn pushed(&self, task: &Task, i: usize) -> bool {
        pushed(task, &self.states[i], &self.states[i + 1])
    }

    /// The steps as tokens.
    pub fn tokens(&self, task: &Task) -> Vec<String> {
        (0..self.steps.len())
            .map(|i| token(task, &self.steps[i], self.pushed(task, i)))
            .collect()
    }
}

/// Whether a step from `before` to `after` moved an object (a push).
pub fn pushed(task: &Task, before: &[i64], after: &[i64]) -> bool {
    task.movers()
        .iter()
        .filter(|m| m.object().is_some())
        .any(|m| before[m.pos().ix()] != after[m.pos().ix()])
}

/// A step written with its moves' letters (every mover's, in order, at
/// once; the one move all make, together); `None` when a move has none.
fn written(task: &Task, step: &[(usize, ActionId)], pushed: bool) -> Option<String> {
    let letter = |&(_, a): &(usize, ActionId)| task.action(a).letter().map(|l| l.of(pushed));
    match task.mode() {
        Mode::Together => step.first().and_then(letter).map(str::to_string),
        _ => step.iter().map(letter).collect(),
    }
}

/// An action's name in a token: a space (`turn left`) becomes `-`.
fn word(task: &Task, a: ActionId) -> String {
    task.action(a).name().replace(' ', "-")
}

/// How many movers a token tells apart: the movers, or where moves have
/// letters, those that choose moves (objects, bodies and movers by
/// themselves choose none), so that a lone agent's way is its letters.
fn told_apart(task: &Task) -> usize {
    if task.lettered() {
        task.movers()
            .iter()
            .filter(|m| !m.actions().is_empty())
            .count()
    } else {
        task.movers().len()
    }
}

/// A step as one token: the action's name (or its letter, where moves
/// have letters) for a lone mover; `MOVER:ACTION` for several in turn;
/// every mover's action, in order, joined by `,` at once; the one action
/// all make, together. A space in a name is `-`.
pub fn token(task: &Task, step: &Step, pushed: bool) -> String {
    let action = |&(_, a): &(usize, ActionId)| match task.action(a).letter() {
        Some(l) => l.of(pushed).to_string(),
        None => word(task, a),
    };
    match (told_apart(task), task.mode()) {
        (1, _) => step.iter().map(action).collect(),
        (_, Mode::InTurn) => step
            .iter()
            .map(|s| format!("{}:{}", task.movers()[s.0].name(), action(s)))
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
            .find(|&a| {
                word(task, a) == name
                    || task
                        .action(a)
                        .letter()
                        .is_some_and(|l| l.walk == name || l.push.as_deref() == Some(name))
            })
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
    match (told_apart(task), task.mode()) {
        (0, _) => Err("the task has no mover".into()),
        (1, _) => {
            let m = movers.iter().position(|m| !m.actions().is_empty());
            Ok(vec![find(m.unwrap_or(0), token)?])
        }
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
    crate::plan::by_word!(plan.word(), trace_in(task, plan, budget))
}

/// Dijkstra's algorithm on (cost, steps), so that of the least-cost ways
/// the one with the fewest steps is found, with each state's parent; then
/// the way ([`of_settled`]).
fn trace_in<W: Word>(task: &Task, plan: &Plan, budget: &Budget) -> Option<Trace> {
    let k = Kernel::<W>::new(task, plan.layout(), plan.kernel());
    if k.goal_never() {
        return None;
    }
    match task.parts() {
        Some(p) => trace_with::<W, (InParts, u64)>(&k, budget, p),
        None => trace_with::<W, (u64, u64)>(&k, budget, &()),
    }
}

/// The trace of a way whose steps each cost 1, its steps named as the
/// interpreter takes them.
pub fn of_way<W: Word>(k: &Kernel<'_, W>, way: &[W]) -> Trace {
    let task = k.task();
    let mut generic = Generic::<W>::new(task, k.layout());
    let steps = way
        .windows(2)
        .map(|pair| {
            let mut step = None;
            generic.each_acted(pair[0], |u, _, acted| {
                if u == pair[1] {
                    step = Some(acted.to_vec());
                }
                step.is_none()
            });
            step.expect("the interpreter takes every step a kernel gives")
        })
        .collect::<Vec<_>>();
    let states = decoded(k, way);
    let n = steps.len() as u64;
    Trace {
        steps,
        states,
        costs: (0..=n).collect(),
        cost: n,
        parts: vec![n],
    }
}

fn trace_with<W: Word, L: Label>(
    k: &Kernel<'_, W>,
    budget: &Budget,
    scale: &L::Scale,
) -> Option<Trace> {
    let lettered = k.task().lettered();
    let found = settle::<W, L>(k, budget, lettered, scale, Labels::new(None, true))?;
    Some(of_settled(k, &found, scale))
}

/// The way of what [`settle`] found (every goal at the least label where
/// moves have letters, parents kept where they have none): where moves have
/// letters, of the ways at the least label the least written (step by
/// step, each step's letters compared as text), else the one settled
/// first (breadth-first order when steps cost 1, ties in the kernel's
/// order); then the steps named.
pub fn of_settled<W: Word, L: Label>(
    k: &Kernel<'_, W>,
    found: &Settled<W, L>,
    scale: &L::Scale,
) -> Trace {
    let task = k.task();
    let Settled {
        best,
        settled,
        goals,
        ..
    } = found;
    let mut generic = Generic::<W>::new(task, k.layout());
    let (way, steps) = if task.lettered() {
        least_written(k, &mut generic, best, settled, goals, scale)
    } else {
        let way = parents(best, goals[0]);
        let steps = name_steps(&mut generic, best, &way, scale);
        (way, steps)
    };
    let states = decoded(k, &way);
    let goal = *way.last().expect("a way has a state");
    let label = |s: W| best.get(s).expect("a way's states have labels");
    let total = label(goal);
    Trace {
        steps,
        states,
        costs: way.iter().map(|&s| label(s).first(scale)).collect(),
        cost: total.first(scale),
        parts: total.parts(scale),
    }
}

/// The states of `way`, each as one value per variable of the task.
fn decoded<W: Word>(k: &Kernel<'_, W>, way: &[W]) -> Vec<Vec<i64>> {
    let mut vals = vec![0; k.task().vars().len()];
    (way.iter())
        .map(|&s| {
            k.layout().decode(s, &mut vals);
            vals.clone()
        })
        .collect()
}

/// The states of the way to `goal` by the parents, start first.
fn parents<W: Word, L: Label>(best: &Labels<W, L>, goal: W) -> Vec<W> {
    let mut way = vec![goal];
    while let Some(p) = best.parent(*way.last().expect("a state")) {
        if p == *way.last().expect("a state") {
            break;
        }
        way.push(p);
    }
    way.reverse();
    way
}

/// The actions of each step of a way, as the interpreter takes them.
fn name_steps<W: Word, L: Label>(
    generic: &mut Generic<'_, W>,
    best: &Labels<W, L>,
    way: &[W],
    scale: &L::Scale,
) -> Vec<Step> {
    let mut steps = Vec::with_capacity(way.len().saturating_sub(1));
    for pair in way.windows(2) {
        let (p, t) = (pair[0], pair[1]);
        let (from, to) = (best.get(p), best.get(t));
        let mut step = None;
        generic.each_acted(p, |u, c, acted| {
            if u == t && from.map(|f| f.after(c, scale)) == to {
                step = Some(acted.to_vec());
                return false;
            }
            true
        });
        steps.push(step.expect("the interpreter takes every step a kernel gives"));
    }
    steps
}

/// Of the ways at the goals' (cost, steps), the least written: first the
/// states some such way goes through (from the last settled back), then
/// from the starts, step by step, the least letters any of them has, kept
/// for every state they lead to.
fn least_written<W: Word, L: Label>(
    k: &Kernel<'_, W>,
    generic: &mut Generic<'_, W>,
    best: &Labels<W, L>,
    settled: &[W],
    goals: &[W],
    scale: &L::Scale,
) -> (Vec<W>, Vec<Step>) {
    let task = k.task();
    let next = |s: W, t: W, c: u32| {
        let (g, h) = (best.get(s), best.get(t));
        h.is_some() && h == g.map(|g| g.after(c, scale))
    };
    let mut useful: hashbrown::HashSet<W> = goals.iter().copied().collect();
    let mut succ = k.successors();
    for &s in settled.iter().rev() {
        let mut on = false;
        succ.each_cost(s, |t, c| {
            on = useful.contains(&t) && next(s, t, c);
            !on
        });
        if on {
            useful.insert(s);
        }
    }
    // Each layer: its states, each with the index of the one before it
    // and the step; the first holds the starts.
    let mut layers: Vec<Vec<(W, usize, Step)>> = vec![Vec::new()];
    let mut index: HashMap<W, usize> = HashMap::new();
    for &s in k.starts() {
        if useful.contains(&s) && !index.contains_key(&s) {
            index.insert(s, layers[0].len());
            layers[0].push((s, 0, Vec::new()));
        }
    }
    let (mut before, mut after) = (vec![0; task.vars().len()], vec![0; task.vars().len()]);
    let done = |layer: &[(W, usize, Step)]| layer.iter().position(|x| goals.contains(&x.0));
    let mut at = done(&layers[0]);
    while at.is_none() {
        let mut least: Option<String> = None;
        let mut layer: Vec<(W, usize, Step)> = Vec::new();
        index.clear();
        let now = layers.last().expect("a layer");
        for (i, &(s, ..)) in now.iter().enumerate() {
            k.layout().decode(s, &mut before);
            generic.each_acted(s, |t, c, acted| {
                if !useful.contains(&t) || !next(s, t, c) {
                    return true;
                }
                k.layout().decode(t, &mut after);
                let w = written(task, acted, pushed(task, &before, &after)).unwrap_or_default();
                if least.as_ref().is_none_or(|l| w < *l) {
                    least = Some(w);
                    layer.clear();
                    index.clear();
                } else if least.as_ref() != Some(&w) {
                    return true;
                }
                if !index.contains_key(&t) {
                    index.insert(t, layer.len());
                    layer.push((t, i, acted.to_vec()));
                }
                true
            });
        }
        at = done(&layer);
        layers.push(layer);
    }
    // Back from the first goal reached.
    let mut at = at.expect("a goal");
    let mut way = Vec::with_capacity(layers.len());
    let mut steps = Vec::with_capacity(layers.len());
    for (j, layer) in layers.iter().enumerate().rev() {
        let (s, from, step) = &layer[at];
        way.push(*s);
        if j > 0 {
            steps.push(step.clone());
        }
        at = *from;
    }
    way.reverse();
    steps.reverse();
    (way, steps)
}

/// How a replay of moves ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    /// Every step was legal; the cost (part by part, where it has parts),
    /// and whether a goal was reached.
    Done { cost: Vec<u64>, goal: bool },
    /// Step `step` (from 0) cannot be taken: why.
    Illegal { step: usize, why: String },
}

/// Replays `tokens` from the task's start states (from each of them, when
/// it has several: the moves are legal when they are from one of them).
pub fn replay(task: &Task, plan: &Plan, tokens: &[&str]) -> Replay {
    crate::plan::by_word!(plan.word(), replay_in(task, plan, tokens))
}

fn replay_in<W: Word>(task: &Task, plan: &Plan, tokens: &[&str]) -> Replay {
    match task.parts() {
        Some(p) => replay_with::<W, (InParts, u64)>(task, plan, tokens, p),
        None => replay_with::<W, (u64, u64)>(task, plan, tokens, &()),
    }
}

fn replay_with<W: Word, L: Label>(
    task: &Task,
    plan: &Plan,
    tokens: &[&str],
    scale: &L::Scale,
) -> Replay {
    let k = Kernel::<W>::new(task, plan.layout(), crate::kernel::KernelKind::Generic);
    let mut generic = Generic::<W>::new(task, plan.layout());
    // The states the moves so far may have led to, with their least cost,
    // in the order found (so that what is said of them is the same on
    // every run).
    let mut now: Vec<(W, L)> = k.starts().iter().map(|&s| (s, L::START)).collect();
    let lettered = task.lettered();
    for (i, &token_str) in tokens.iter().enumerate() {
        let step = match parse(task, token_str) {
            Ok(s) => s,
            Err(why) => return Replay::Illegal { step: i, why },
        };
        let mut next: Vec<(W, L)> = Vec::new();
        let mut index: HashMap<W, usize> = HashMap::new();
        // The step taken, written otherwise than the token (`e` for `E`).
        let mut other: Option<String> = None;
        for &(s, g) in &now {
            generic.each_acted(s, |t, c, acted| {
                if acted != step.as_slice() {
                    return true;
                }
                // A letter says whether the step pushes (`n` walks, `N`
                // pushes): the step taken must be written so.
                if lettered {
                    let mut before = vec![0; task.vars().len()];
                    let mut after = vec![0; task.vars().len()];
                    plan.layout().decode(s, &mut before);
                    plan.layout().decode(t, &mut after);
                    let w = token(task, &step, pushed(task, &before, &after));
                    if w != token_str {
                        other.get_or_insert(w);
                        return true;
                    }
                }
                let gt = g.after(c, scale);
                match index.get(&t) {
                    Some(&j) => next[j].1 = next[j].1.min(gt),
                    None => {
                        index.insert(t, next.len());
                        next.push((t, gt));
                    }
                }
                true
            });
        }
        if next.is_empty() {
            let raw = crate::error::raw(token_str);
            // Why, from the first state the moves may be in.
            let why = match other {
                Some(w) => format!(
                    "`{raw}` is not how this step is written: it is `{}` (a push has a \
                     letter of its own)",
                    crate::error::raw(&w)
                ),
                None => generic
                    .refusal(now[0].0, &step)
                    .unwrap_or_else(|| format!("`{raw}` cannot be taken here")),
            };
            return Replay::Illegal { step: i, why };
        }
        now = next;
    }
    let goals = now.iter().filter(|&&(s, _)| k.is_goal(s)).map(|&(_, g)| g);
    match goals.min() {
        Some(cost) => Replay::Done {
            cost: cost.parts(scale),
            goal: true,
        },
        None => Replay::Done {
            cost: now
                .iter()
                .map(|&(_, g)| g)
                .min()
                .unwrap_or(L::START)
                .parts(scale),
            goal: false,
        },
    }
}
