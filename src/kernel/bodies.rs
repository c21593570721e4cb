//! The bodies kernel: pieces of several cells (and movers of one) moving
//! in turn on a board of at most [`MAX_CELLS`] cells, with no rules and no
//! entry conditions but `solid` (Klotski, Rush Hour, sliding blocks). Each
//! mover has, per position, the mask of the cells it covers, and per move
//! the position it would reach on an empty board; a move is allowed when
//! the cells it would cover that it does not already are clear of the
//! others' masks, as a hand-written solver tests a bitboard. A move goes
//! on from where it arrives while it slides and covers no cell that stops
//! slides, or while every cell it covers is slippery.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`], in
//! the same order, on every state (tested in `tests/kernels.rs` on random
//! tasks): with no rules a move changes nothing but its mover's position,
//! and twins' positions are put back in increasing order as the
//! interpreter's [`crate::task::Task::canonical`] does.

use crate::pack::{Field, Layout, Word};
use crate::task::{Expr, Task};

/// The most cells a board may have: a mask is a `u128`.
pub const MAX_CELLS: usize = 128;

const NONE: u32 = u32::MAX;

/// One move of a mover: position -> the position one step takes it to on
/// an empty board (`NONE`: off the board, onto a solid cell, out of its
/// domain), and whether the move goes on from there (none where it never
/// does: a step with no slippery cell to ride).
type Move = (Vec<u32>, Option<Box<[bool]>>);

/// One mover's cells and moves.
#[derive(Debug)]
struct Mover {
    field: Field,
    /// Position -> the cells it covers there.
    mask: Vec<u128>,
    moves: Vec<Move>,
    /// Its twins (consecutive movers), itself among them.
    twins: std::ops::Range<usize>,
}

/// A task's movers, ready to move.
#[derive(Debug)]
pub struct BodyModel {
    movers: Vec<Mover>,
}

/// Whether the kernel applies: movers in turn whose moves are steps or
/// slides, on a board of at most [`MAX_CELLS`] cells, with no rules, no
/// entry conditions but `solid`, no objects or teleports, and steps of
/// cost 1.
pub fn fits(task: &Task) -> bool {
    let b = task.board();
    task.mode() == crate::task::Mode::InTurn
        && b.rows() * b.cols() <= MAX_CELLS
        && task.unit_costs()
        && task.rules().is_empty()
        && task.unconditional()
        && !task.has_objects()
        && !b.has_teleports()
        && task.movers().iter().all(|m| m.when().is_empty())
        && task.actions().iter().all(|a| a.motion().shift().is_some())
}

impl BodyModel {
    pub fn new(task: &Task, layout: &Layout) -> BodyModel {
        let b = task.board();
        // The cells a mover may cover: on the board, not closed for good.
        let open = |c: u32| task.entry(b.class(c)) != &Expr::Const(false);
        let movers = task
            .movers()
            .iter()
            .map(|m| {
                let one = [(0, 0)];
                let shape: &[(i32, i32)] = if m.shape().is_empty() {
                    &one
                } else {
                    m.shape()
                };
                // The cells it covers with its first cell on `at`, while
                // each is on the board.
                let covers = |at: u32| shape.iter().map(move |&o| b.shifted(at, o));
                let cells = m.domain().cells();
                let mask = cells
                    .iter()
                    .map(|&at| {
                        covers(at)
                            .flatten()
                            .filter(|&c| open(c))
                            .fold(0u128, |k, c| k | 1 << c)
                    })
                    .collect();
                // Whether a move arriving at `at` goes on: every cell it
                // covers carries it.
                let on = |at: u32, slide: bool| {
                    covers(at).flatten().all(|c| b.class_of(c).carries(slide))
                };
                let moves = m
                    .actions()
                    .iter()
                    .map(|&a| {
                        let (d, slide) = (task.action(a).motion().shift())
                            .expect("the kernel fits shifts by offsets only");
                        let next = cells
                            .iter()
                            .map(|&at| {
                                let Some(to) = b
                                    .step(at, d)
                                    .filter(|&to| covers(to).all(|c| c.is_some_and(&open)))
                                else {
                                    return NONE;
                                };
                                m.position_of(to).unwrap_or(NONE)
                            })
                            .collect();
                        let goes: Box<[bool]> = cells.iter().map(|&at| on(at, slide)).collect();
                        (next, goes.contains(&true).then_some(goes))
                    })
                    .collect();
                let t = m.twins();
                Mover {
                    field: layout.field(m.pos()),
                    mask,
                    moves,
                    twins: t.start as usize..t.end as usize,
                }
            })
            .collect();
        BodyModel { movers }
    }
}

/// The bodies kernel's buffers, one per thread.
pub struct Bodies<'k, W> {
    m: &'k BodyModel,
    /// Each mover's position.
    at: Vec<u32>,
    word: std::marker::PhantomData<W>,
}

impl<'k, W: Word> Bodies<'k, W> {
    pub fn new(m: &'k BodyModel) -> Self {
        Bodies {
            m,
            at: vec![0; m.movers.len()],
            word: std::marker::PhantomData,
        }
    }

    /// Calls `f` on every successor of `s`; stops early when `f` returns
    /// false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        let mut all = 0u128;
        for (i, mv) in m.movers.iter().enumerate() {
            let p = mv.field.raw(s) as u32;
            self.at[i] = p;
            all |= mv.mask[p as usize];
        }
        for (i, mv) in m.movers.iter().enumerate() {
            let p = self.at[i];
            let mine = mv.mask[p as usize];
            let others = all & !mine;
            for (next, goes) in &mv.moves {
                let mut q = next[p as usize];
                if q == NONE || mv.mask[q as usize] & others != 0 {
                    continue;
                }
                if let Some(goes) = goes {
                    while goes[q as usize] {
                        let r = next[q as usize];
                        if r == NONE || mv.mask[r as usize] & others != 0 {
                            break;
                        }
                        q = r;
                    }
                }
                if !f(self.placed(s, i, q)) {
                    return;
                }
            }
        }
    }

    /// `s` with mover `i` at position `q`, its twins' positions back in
    /// increasing order.
    #[inline(always)]
    fn placed(&self, s: W, i: usize, q: u32) -> W {
        let m = self.m;
        let twins = m.movers[i].twins.clone();
        super::in_order(s, twins, &self.at, |j| m.movers[j].field, i, q)
    }
}
