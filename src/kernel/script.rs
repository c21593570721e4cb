//! The script kernel: agents in turn and movers that move by themselves
//! after every step (`by itself`: a chaser, a Minotaur, Daleks), each of
//! one cell, on a map with no rules, entry conditions fixed per tile, and
//! moves of one cell or none. Each mover has a table, per position and
//! move, of the position the move reaches on an empty board; a mover's
//! preferences are conditions compiled over packed states; the step is
//! worked out on the packed state alone: the agent's move, each mover by
//! itself in order making the first of its moves whose condition holds and
//! that it can make (as many times as it moves), the positions of alike
//! movers put in order, and `forbid` tested.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`] on
//! every state (tested in `tests/kernels.rs` on random tasks). It can:
//! with no rules a move changes nothing but its mover's position, a move
//! of one cell is made when the cell is open and in its domain and (with
//! `forbid same cell`) no other mover stands there, as the interpreter's
//! step and `go_on` make it, and the conditions read the state as it is
//! when they are asked, as the interpreter's do.

use super::{Cond, Conds};
use crate::pack::{Field, Layout, Word};
use crate::task::{Domain, Expr, Task, Way};

const NONE: u32 = u32::MAX;

/// One mover's moves.
#[derive(Debug)]
struct Mover<'t, W> {
    field: Field,
    domain: &'t Domain,
    /// Its moves (for a mover by itself, in the order it prefers them).
    moves: usize,
    /// `position * moves + move` -> the position it reaches (itself for a
    /// move that goes no way), `NONE` where it cannot make it.
    to: Vec<u32>,
    /// Per move, its condition (a mover by itself's; `Always` for others).
    guards: Vec<Cond<W>>,
    /// How many times it moves by itself after every step; `None` for a
    /// mover whose moves are chosen.
    script: Option<u32>,
    /// Where its conditions share their tests: the tests, and per
    /// combination of their values which conditions hold (a
    /// [`super::Choice`]); `None` where they are tried one by one.
    choice: Option<(Vec<Cond<W>>, Vec<u64>)>,
    /// For a mover by itself whose conditions read only its own position
    /// and at most one other mover's, where no rule keeps movers apart:
    /// the other's field and domain size (a field of no bits and size 1
    /// where it reads only its own). Where it goes is then a function of
    /// the two positions, remembered per thread (see [`Scripts::memo`]).
    memo: Option<(Field, usize)>,
}

/// A task's movers, ready to move.
#[derive(Debug)]
pub struct ScriptModel<'t, W> {
    movers: Vec<Mover<'t, W>>,
    cx: Conds<W>,
    /// `forbid COND`, or `Never`.
    forbid: Cond<W>,
    forbid_same_cell: bool,
    /// The runs of alike movers (consecutive), whose positions a state
    /// holds in increasing order.
    twins: Vec<std::ops::Range<usize>>,
}

/// Whether the kernel applies: movers in turn, some by themselves, all of
/// one cell with no heading; no rules, no derived facts, entry conditions
/// fixed per tile, no costs; moves of one cell or none (no slides, no
/// slippery tiles, no teleports, nothing carried or pushed); conditions
/// only on the moves of movers by themselves, at most 64 of them each (a
/// mask of those whose conditions hold).
pub fn fits(task: &Task) -> bool {
    let b = task.board();
    let one_cell = |m: &crate::task::Mover| {
        !m.is_piece()
            && m.heading().is_none()
            && m.object().is_none()
            && m.follows().is_none()
            && m.when().is_empty()
    };
    let plain_move = |a: &crate::task::Action| {
        let mo = a.motion();
        mo.turn == 0 && !mo.far && matches!(mo.way, Way::By(_) | Way::Nowhere)
    };
    task.scripted()
        && task.mode() == crate::task::Mode::InTurn
        && task.rules().is_empty()
        && task.unit_costs()
        && !task.far_moves()
        && !task.reads_moving()
        && !task.carries()
        && task.movers().iter().all(one_cell)
        && task.actions().iter().all(plain_move)
        && (b.class_ids()).all(|k| !b.present(k) || matches!(task.entry(k), Expr::Const(_)))
        && task.movers().iter().all(|m| {
            (m.actions().iter()).all(|&a| *task.action(a).guard() == Expr::Const(true))
                && m.script().is_none_or(|(_, prefs)| prefs.len() <= 64)
        })
}

impl<'t, W: Word> ScriptModel<'t, W> {
    pub fn new(task: &'t Task, layout: &Layout) -> ScriptModel<'t, W> {
        let b = task.board();
        let mut cx = Conds::new();
        let movers = (task.movers().iter())
            .map(|m| {
                let (script, acts) = match m.script() {
                    Some((n, acts)) => (Some(n), acts),
                    None => (None, m.actions()),
                };
                let d = m.domain();
                let mut to = Vec::with_capacity(d.len() * acts.len());
                for p in 0..d.len() as u32 {
                    let c = d.cell(p);
                    for &a in acts {
                        let q = match task.action(a).motion().way {
                            Way::By(dir) => b
                                .step(c, dir)
                                .filter(|&t| *task.entry(b.class(t)) == Expr::Const(true))
                                .filter(|&t| !b.class_of(t).solid)
                                .and_then(|t| d.position_of(t)),
                            _ => Some(p),
                        };
                        to.push(q.unwrap_or(NONE));
                    }
                }
                let guards = (acts.iter())
                    .map(|&a| cx.compile(task.action(a).guard(), task, layout))
                    .collect();
                let choice = (script.and_then(|_| super::Choice::new(task, acts))).map(|c| {
                    let (tests, holds) = c.parts();
                    let tests = (tests.iter())
                        .map(|t| cx.compile(t, task, layout))
                        .collect();
                    (tests, holds.to_vec())
                });
                let memo = script
                    .filter(|_| !task.forbid_same_cell())
                    .and_then(|_| memo_key(task, layout, m, acts));
                Mover {
                    field: layout.field(m.pos()),
                    domain: d,
                    moves: acts.len(),
                    to,
                    guards,
                    script,
                    choice,
                    memo,
                }
            })
            .collect();
        let forbid = cx.compile(task.forbid(), task, layout);
        ScriptModel {
            movers,
            cx,
            forbid,
            forbid_same_cell: task.forbid_same_cell(),
            twins: task.twin_runs().collect(),
        }
    }
}

impl<W: Word> ScriptModel<'_, W> {
    /// Where mover `i`, by itself at position `p`, goes in `t`: by the
    /// first of its moves whose condition holds and that it can make;
    /// `None` where it can make none (it stays).
    #[inline(always)]
    fn goes(&self, i: usize, p: u32, t: W) -> Option<u32> {
        let (m, mv) = (self, &self.movers[i]);
        let row = &mv.to[p as usize * mv.moves..][..mv.moves];
        // The moves whose conditions hold: from the table where there is
        // one (each shared test worked out once), else each condition
        // asked in turn.
        let mut holding = match &mv.choice {
            Some((tests, holds)) => {
                let bits = (tests.iter().enumerate())
                    .fold(0, |b, (j, &c)| b | usize::from(m.cx.holds(c, t)) << j);
                holds[bits]
            }
            None => u64::MAX,
        };
        while holding != 0 {
            let k = holding.trailing_zeros() as usize;
            holding &= holding - 1;
            let Some(&q) = row.get(k) else { break };
            if q == NONE || (mv.choice.is_none() && !m.cx.holds(mv.guards[k], t)) {
                continue;
            }
            if q != p && m.forbid_same_cell && self.taken(i, q, t) {
                continue;
            }
            return Some(q);
        }
        None
    }

    /// Whether a mover other than `i` stands on the cell of mover `i`'s
    /// position `q` in `s`.
    #[inline(always)]
    fn taken(&self, i: usize, q: u32, s: W) -> bool {
        let cell = self.movers[i].domain.cell(q);
        (self.movers.iter().enumerate())
            .any(|(j, o)| j != i && o.domain.cell(o.field.raw(s) as u32) == cell)
    }
}

/// The largest table of where a mover by itself goes, per pair of
/// positions: 1 MiB a thread, so that it stays in a core's cache (a
/// larger one, 6.4 MiB for a Minotaur on a 48 x 48 maze, made the search
/// slower by a third than working the conditions out each time).
const MEMO_MAX: usize = 1 << 19;

/// Where mover `m`'s moves by itself (`acts`) may be remembered per pair of
/// positions (its own and one other mover's): the other's field and
/// domain size, or `None` where its conditions read more, or the table
/// would be too large.
fn memo_key(
    task: &Task,
    layout: &Layout,
    m: &crate::task::Mover,
    acts: &[crate::task::ActionId],
) -> Option<(Field, usize)> {
    // The movers whose positions its conditions read; none where they
    // read anything else (a variable, the time).
    let read = std::cell::RefCell::new(Vec::new());
    let leaf = |e: &Expr| {
        let mut read = read.borrow_mut();
        match e {
            Expr::At(o, _) => read.push(*o),
            Expr::Near { a, b, .. } => read.extend([*a, *b]),
            Expr::Pos { terms, .. } => read.extend(terms.iter().map(|t| t.2)),
            _ => return false,
        }
        true
    };
    if !acts
        .iter()
        .all(|&a| task.action(a).guard().reads_only(&leaf))
    {
        return None;
    }
    let mut read = read.into_inner();
    read.retain(|&o| task.mover(o).pos() != m.pos());
    read.sort_unstable();
    read.dedup();
    let (field, n) = match read.as_slice() {
        [] => (Field::NONE, 1),
        [o] => (
            layout.field(task.mover(*o).pos()),
            task.mover(*o).domain().len(),
        ),
        _ => return None,
    };
    let fits = m.domain().len() < usize::from(u16::MAX);
    (fits && m.domain().len().checked_mul(n)? <= MEMO_MAX).then_some((field, n))
}

/// The script kernel's buffers, one per thread.
pub struct Scripts<'k, W> {
    m: &'k ScriptModel<'k, W>,
    /// Positions of alike movers, being put in order.
    scratch: Vec<u64>,
    /// Per mover by itself with a [`Mover::memo`] key, per pair of
    /// positions (its own times the other's domain size, plus the
    /// other's): 1 + the position it goes to, 0 where not yet worked out.
    memo: Vec<Vec<u16>>,
}

impl<'k, W: Word> Scripts<'k, W> {
    pub fn new(m: &'k ScriptModel<'k, W>) -> Self {
        Scripts {
            m,
            scratch: Vec::new(),
            // Zeroed pages from the system: only those a search reaches
            // are touched.
            memo: (m.movers.iter())
                .map(|mv| {
                    mv.memo
                        .map_or(Vec::new(), |(_, n)| vec![0; mv.domain.len() * n])
                })
                .collect(),
        }
    }

    /// Calls `f` on every successor of `s`; stops early when `f` returns
    /// false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            if mv.script.is_some() {
                continue;
            }
            let p = mv.field.raw(s) as u32;
            let row = &mv.to[p as usize * mv.moves..][..mv.moves];
            for &q in row {
                if q == NONE || (m.forbid_same_cell && q != p && m.taken(i, q, s)) {
                    continue;
                }
                let t = (s & !mv.field.mask::<W>()) | mv.field.place::<W>(u64::from(q));
                let t = self.by_themselves(t);
                let t = self.canonical(t);
                if m.cx.holds(m.forbid, t) {
                    continue;
                }
                if !f(t) {
                    return;
                }
            }
        }
    }

    /// Each mover by itself, in order, makes its moves in `t`: each time,
    /// the first of its moves whose condition holds on the state as it is
    /// then and that it can make (a move that goes no way always can);
    /// with none, it stays.
    #[inline(always)]
    fn by_themselves(&mut self, mut t: W) -> W {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            let Some(times) = mv.script else { continue };
            for _ in 0..times {
                let p = mv.field.raw(t) as u32;
                let q = match mv.memo {
                    None => match m.goes(i, p, t) {
                        Some(q) => q,
                        None => continue,
                    },
                    Some((other, n)) => {
                        let slot = &mut self.memo[i][p as usize * n + other.raw(t) as usize];
                        if *slot == 0 {
                            *slot = m.goes(i, p, t).unwrap_or(p) as u16 + 1;
                        }
                        u32::from(*slot) - 1
                    }
                };
                t = (t & !mv.field.mask::<W>()) | mv.field.place::<W>(u64::from(q));
            }
        }
        t
    }

    /// `t` with each run of alike movers' positions in increasing order.
    #[inline(always)]
    fn canonical(&mut self, mut t: W) -> W {
        for run in &self.m.twins {
            let movers = &self.m.movers[run.clone()];
            self.scratch.clear();
            self.scratch.extend(movers.iter().map(|mv| mv.field.raw(t)));
            if self.scratch.is_sorted() {
                continue;
            }
            self.scratch.sort_unstable();
            for (mv, &p) in movers.iter().zip(&self.scratch) {
                t = (t & !mv.field.mask::<W>()) | mv.field.place::<W>(p);
            }
        }
        t
    }
}
