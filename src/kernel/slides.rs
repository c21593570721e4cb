//! The slide kernel: movers in turn whose moves slide or teleport, on a
//! task with no rules and no entry conditions but `solid` (ice floors,
//! sliding robots, teleporter mazes). Each mover has a byte per cell of the
//! board's padded grid saying what a move meets there (whether it may
//! enter, whether the cell carries it on, stops slides, or is a
//! teleport's end; the border cells let no move in), and a move walks
//! those bytes cell by cell, as a hand-written solver would, stopping
//! before another mover.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`], in
//! the same order, on every state (tested in `tests/kernels.rs` on random
//! tasks). It can: with no rules a move changes nothing but its mover's
//! position, and with one mover or `forbid same cell` another mover on the
//! way stops the move before it, as the interpreter's `far` does.

use crate::plan::{Field, Layout, Word};
use crate::task::{Motion, Task};

const NONE: u32 = u32::MAX;

/// What a move meets on a cell: whether it may enter (on the map, not
/// solid, not closed for good, in the mover's domain), and whether the
/// cell carries a step on (slippery), stops slides, or is a teleport's
/// end.
const OPEN: u8 = 1;
const SLIPPERY: u8 = 2;
const STOPS: u8 = 4;
const TELEPORT: u8 = 8;

/// One mover's cells and moves.
#[derive(Debug)]
struct Mover<'t> {
    field: Field,
    /// Position -> padded cell (the task's own table).
    padded: &'t [u32],
    /// Padded cell -> what a move meets there.
    kind: Vec<u8>,
    /// Padded cell -> position (`NONE` outside the domain).
    position: Vec<u32>,
    /// Padded cell -> for a teleport's end, the other end's position
    /// (`NONE` when it is outside the domain) and whether going through is
    /// optional; empty when the map has no teleport.
    through: Vec<(u32, bool)>,
    /// Per move: its step in padded cells, and which cells it goes on
    /// from (slippery ones; for a slide, every one that does not stop it).
    moves: Vec<(isize, bool)>,
}

/// A task's movers, ready to move.
#[derive(Debug)]
pub struct SlideModel<'t> {
    movers: Vec<Mover<'t>>,
    /// Another mover on the other end of a teleport keeps a mover on its
    /// end.
    forbid_same_cell: bool,
}

impl<'t> SlideModel<'t> {
    /// Whether the kernel applies: movers in turn whose moves are steps or
    /// slides, no rules, no entry condition but `solid`, steps of cost 1,
    /// and one mover or `forbid same cell`.
    pub fn fits(task: &Task) -> bool {
        task.mode() == crate::task::Mode::InTurn
            && task.unconditional()
            && task.unit_costs()
            && (task.movers().len() == 1 || task.forbid_same_cell())
            && task
                .actions()
                .iter()
                .all(|a| matches!(a.motion(), Motion::Step(_) | Motion::Slide(_)))
    }

    pub fn new(task: &'t Task, layout: &Layout) -> SlideModel<'t> {
        let b = task.board();
        // What a move meets on each class: classes are few, cells many.
        let class_kind: Vec<u8> = b
            .classes()
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let never = matches!(task.entry(k as u32), crate::task::Expr::Const(false));
                if c.solid || never {
                    0
                } else {
                    OPEN | if c.slippery { SLIPPERY } else { 0 } | if c.stops { STOPS } else { 0 }
                }
            })
            .collect();
        // The board's padded grid: its border lets no move in.
        let n = b.open().len();
        let movers = task
            .movers()
            .iter()
            .map(|m| {
                let mut position = vec![NONE; n];
                let mut kind = vec![0u8; n];
                for (p, (&c, &pc)) in m.cells().iter().zip(m.padded()).enumerate() {
                    position[pc as usize] = p as u32;
                    kind[pc as usize] = class_kind[b.class(c) as usize];
                }
                let mut through = Vec::new();
                if b.has_teleports() {
                    through = vec![(NONE, false); n];
                    for (&c, &pc) in m.cells().iter().zip(m.padded()) {
                        if let Some((other, optional)) = b.teleport(c)
                            && kind[pc as usize] & OPEN != 0
                        {
                            kind[pc as usize] |= TELEPORT;
                            through[pc as usize] = (position[b.padded(other)], optional);
                        }
                    }
                }
                let moves = m
                    .actions()
                    .iter()
                    .map(|&a| match task.action(a).motion() {
                        Motion::Step(d) => (b.delta(d), false),
                        Motion::Slide(d) => (b.delta(d), true),
                        _ => unreachable!("the kernel fits steps and slides only"),
                    })
                    .collect();
                Mover {
                    field: layout.field(m.pos()),
                    padded: m.padded(),
                    kind,
                    position,
                    through,
                    moves,
                }
            })
            .collect();
        SlideModel {
            movers,
            forbid_same_cell: task.forbid_same_cell(),
        }
    }
}

/// The slide kernel's buffers, one per thread.
pub struct Slides<'k, W> {
    m: &'k SlideModel<'k>,
    /// Each mover's padded cell.
    at: Vec<u32>,
    word: std::marker::PhantomData<W>,
}

impl<'k, W: Word> Slides<'k, W> {
    pub fn new(m: &'k SlideModel<'k>) -> Self {
        Slides {
            m,
            at: vec![0; m.movers.len()],
            word: std::marker::PhantomData,
        }
    }

    /// Whether a mover other than `i` stands on padded cell `pc`.
    #[inline(always)]
    fn taken(&self, i: usize, pc: usize) -> bool {
        self.at
            .iter()
            .enumerate()
            .any(|(j, &c)| j != i && c as usize == pc)
    }

    /// Calls `f` on every successor of `s`; stops early when `f` returns
    /// false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            self.at[i] = mv.padded[mv.field.raw(s) as usize];
        }
        let lone = m.movers.len() == 1;
        for (i, mv) in m.movers.iter().enumerate() {
            let cleared = s & !mv.field.mask::<W>();
            let from = self.at[i] as usize;
            for &(step, slide) in &mv.moves {
                let mut at = from;
                let mut kind = 0;
                loop {
                    let to = at.wrapping_add_signed(step);
                    let k = mv.kind[to];
                    if k & OPEN == 0 || (!lone && self.taken(i, to)) {
                        break;
                    }
                    at = to;
                    kind = k;
                    let on = k & SLIPPERY != 0 || (slide && k & STOPS == 0);
                    if k & TELEPORT != 0 || !on {
                        break;
                    }
                }
                if at == from {
                    continue;
                }
                let end = cleared | mv.field.place::<W>(mv.position[at] as u64);
                if kind & TELEPORT == 0 {
                    if !f(end) {
                        return;
                    }
                    continue;
                }
                let (through, optional) = mv.through[at];
                if through == NONE {
                    if !f(end) {
                        return;
                    }
                    continue;
                }
                let other = mv.padded[through as usize] as usize;
                let taken = m.forbid_same_cell && self.taken(i, other);
                if (taken || optional) && !f(end) {
                    return;
                }
                if !taken && !f(cleared | mv.field.place::<W>(through as u64)) {
                    return;
                }
            }
        }
    }
}
