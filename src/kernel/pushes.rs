//! The push kernel: one agent that steps by offsets and pushes objects of
//! one cell (Sokoban, pushing a box with the fewest pushes), with no rules,
//! entry conditions that are constants per tile and direction, and costs
//! per move, per tile entered and per push. Per move, the agent's position
//! -> where the step takes it, what it costs, and the object position of
//! the cell it enters; per move, an object's position -> where a push
//! takes it. A step onto an object is a push when the object's next cell
//! is free of the others, as a hand-written Sokoban solver tests it.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`], with
//! their costs, on every state (tested in `tests/kernels.rs` on random
//! tasks): with no rules a step changes nothing but the agent's position
//! and the pushed object's, and alike objects' positions are put back in
//! increasing order as the interpreter's
//! [`crate::task::Task::canonical`] does.

use crate::pack::{Field, Layout, Word};
use crate::task::{ClassId, Expr, Mode, Mover, Task};

const NONE: u32 = u32::MAX;

/// Whether the kernel applies: one agent and objects that are all alike
/// (or one), every mover on one cell with no heading, the agent's moves
/// shifts by offsets (once), no rules, no guards, no `forbid`, no bodies
/// that follow, no teleports, slippery or carrying tiles, no clock, and
/// every entry condition a constant.
pub fn fits(task: &Task) -> bool {
    let movers = task.movers();
    let agents: Vec<_> = movers.iter().filter(|m| m.object().is_none()).collect();
    let objects = movers.len() - agents.len();
    let simple = |m: &Mover| m.shape().is_empty() && m.heading().is_none() && m.poses().is_none();
    let b = task.board();
    let classes = b.classes().len();
    let entries_fixed = (task.actions().iter())
        .filter_map(|a| a.motion().shift())
        .all(|(d, _)| {
            (0..classes).all(|k| matches!(task.entry_going(k as ClassId, d), Expr::Const(_)))
        });
    // Alike objects share the positions from which no push reaches the
    // goal (the interpreter drops a step that pushes one there).
    let mut dead = (movers.iter()).filter_map(|m| m.object().map(|o| &o.pushes_to_goal));
    let first = dead.next();
    let same_dead = dead.all(|d| Some(d) == first);
    agents.len() == 1
        && objects > 0
        && matches!(task.mode(), Mode::InTurn)
        && task.rules().is_empty()
        && !task.has_guards()
        && !task.forbids()
        && task.clock().is_none()
        && !task.carries()
        && !task.scripted()
        && !task.has_bodies()
        && !b.has_teleports()
        && !(0..classes).any(|k| b.present(k as ClassId) && b.classes()[k].slippery)
        && movers.iter().all(|m| simple(m) && m.when().is_empty())
        && movers.iter().filter(|m| m.object().is_some()).all(|m| {
            let t = m.twins();
            t.len() == objects && m.actions().is_empty()
        })
        && (task.actions().iter()).all(|a| a.motion().shift().is_some_and(|(_, far)| !far))
        && entries_fixed
        && same_dead
}

/// The agent's moves and the objects' pushes, ready to run.
#[derive(Debug)]
pub struct PushModel {
    agent: Field,
    objects: Vec<Field>,
    /// Per move: agent position -> (its position after the step, the
    /// step's cost when it pushes nothing, the object position of the
    /// cell it enters or `NONE`); `NONE` as the position where the step
    /// cannot be made.
    walks: Vec<Vec<(u32, u32, u32)>>,
    /// Per move: object position -> its position once pushed, or `NONE`
    /// (where the push cannot be made, or leaves it where no push brings
    /// it to the goal).
    pushes: Vec<Vec<u32>>,
    /// What a push costs, where the object sets it (else the step's).
    push_cost: Option<u32>,
}

impl PushModel {
    pub fn new(task: &Task, layout: &Layout) -> PushModel {
        let b = task.board();
        let movers = task.movers();
        let agent = (movers.iter())
            .find(|m| m.object().is_none())
            .expect("the kernel fits one agent");
        let objects: Vec<_> = movers.iter().filter(|m| m.object().is_some()).collect();
        let object = objects[0];
        let dead = (object.object())
            .and_then(|o| o.pushes_to_goal.as_ref())
            .map(|d| d.iter().map(|&n| n == u32::MAX).collect::<Vec<_>>());
        // May a mover enter `cell` going by `d`: not solid, its entry
        // condition (a constant here) true.
        let open = |cell: u32, d| {
            let class = b.class(cell);
            !b.classes()[class as usize].solid && task.entry_going(class, d) == &Expr::Const(true)
        };
        let mut walks = Vec::new();
        let mut pushes = Vec::new();
        for &a in agent.actions() {
            let action = task.action(a);
            let (d, _) = action.motion().shift().expect("the kernel fits shifts");
            let walk = (agent.domain().cells().iter())
                .map(|&at| {
                    let Some(to) = b.step(at, d).filter(|&to| open(to, d)) else {
                        return (NONE, 0, NONE);
                    };
                    let Some(p) = agent.position_of(to) else {
                        return (NONE, 0, NONE);
                    };
                    let cost = task.enter_cost(b.class(to)).unwrap_or(action.cost());
                    (p, cost, object.position_of(to).unwrap_or(NONE))
                })
                .collect();
            let push = (object.domain().cells().iter())
                .map(|&at| {
                    (b.step(at, d).filter(|&to| open(to, d)))
                        .and_then(|to| object.position_of(to))
                        .filter(|&o| !dead.as_ref().is_some_and(|d| d[o as usize]))
                        .unwrap_or(NONE)
                })
                .collect();
            walks.push(walk);
            pushes.push(push);
        }
        PushModel {
            agent: layout.field(agent.pos()),
            objects: objects.iter().map(|m| layout.field(m.pos())).collect(),
            walks,
            pushes,
            push_cost: object.object().and_then(|o| o.push_cost),
        }
    }
}

/// The push kernel's buffers, one per thread.
pub struct Pushes<'k, W> {
    m: &'k PushModel,
    /// Each object's position, in increasing order.
    at: Vec<u32>,
    word: std::marker::PhantomData<W>,
}

impl<'k, W: Word> Pushes<'k, W> {
    pub fn new(m: &'k PushModel) -> Self {
        Pushes {
            m,
            at: vec![0; m.objects.len()],
            word: std::marker::PhantomData,
        }
    }

    /// Calls `f` on every successor of `s` with its cost, in the order of
    /// the agent's moves; stops early when `f` returns false.
    #[inline(always)]
    pub fn each_cost(&mut self, s: W, mut f: impl FnMut(W, u32) -> bool) {
        let m = self.m;
        for (i, field) in m.objects.iter().enumerate() {
            self.at[i] = field.raw(s) as u32;
        }
        let p = m.agent.raw(s) as usize;
        let keep = s & !m.agent.mask::<W>();
        for (walk, push) in m.walks.iter().zip(&m.pushes) {
            let (q, cost, under) = walk[p];
            if q == NONE {
                continue;
            }
            let moved = keep | m.agent.place::<W>(u64::from(q));
            let t = match self.at.iter().position(|&o| o == under) {
                None => (moved, cost),
                Some(j) => {
                    let o = push[under as usize];
                    if o == NONE || self.at.contains(&o) {
                        continue;
                    }
                    (self.placed(moved, j, o), m.push_cost.unwrap_or(cost))
                }
            };
            if !f(t.0, t.1) {
                return;
            }
        }
    }

    /// `s` with object `j` at position `o`, the objects' positions back in
    /// increasing order.
    #[inline(always)]
    fn placed(&self, s: W, j: usize, o: u32) -> W {
        let fields = &self.m.objects;
        super::in_order(s, 0..fields.len(), &self.at, |i| fields[i], j, o)
    }
}
