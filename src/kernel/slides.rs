//! The slide kernel: movers in turn whose moves slide or teleport, on a
//! task with no rules and no entry conditions but `solid` (ice floors,
//! sliding robots, teleporter mazes). Each mover has a byte per cell of a
//! padded copy of the grid saying what a move meets there (whether it may
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
struct Mover {
    field: Field,
    /// Position -> padded cell.
    padded: Vec<u32>,
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
pub struct SlideModel {
    movers: Vec<Mover>,
    /// Another mover on the other end of a teleport keeps a mover on its
    /// end.
    forbid_same_cell: bool,
}

impl SlideModel {
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

    pub fn new(task: &Task, layout: &Layout) -> SlideModel {
        let b = task.board();
        let (rows, cols) = (b.rows(), b.cols());
        // One cell of border: a move stops at the first cell it cannot
        // enter, and a border cell is one.
        let width = cols + 2;
        let pad = |cell: u32| (cell as usize / cols + 1) * width + cell as usize % cols + 1;
        let movers = task
            .movers()
            .iter()
            .map(|m| {
                let n = width * (rows + 2);
                let mut position = vec![NONE; n];
                let mut kind = vec![0u8; n];
                let mut through = if b.has_teleports() {
                    vec![(NONE, false); n]
                } else {
                    Vec::new()
                };
                let padded: Vec<u32> = m.cells().iter().map(|&c| pad(c) as u32).collect();
                for (p, &pc) in padded.iter().enumerate() {
                    position[pc as usize] = p as u32;
                }
                for (p, &c) in m.cells().iter().enumerate() {
                    let k = b.class_of(c);
                    let never = matches!(task.entry(b.class(c)), crate::task::Expr::Const(false));
                    if k.solid || never {
                        continue;
                    }
                    let pc = padded[p] as usize;
                    kind[pc] = OPEN
                        | if k.slippery { SLIPPERY } else { 0 }
                        | if k.stops { STOPS } else { 0 };
                    if let Some((other, optional)) = b.teleport(c) {
                        kind[pc] |= TELEPORT;
                        through[pc] = (position[pad(other)], optional);
                    }
                }
                let moves = m
                    .actions()
                    .iter()
                    .map(|&a| {
                        let (d, slide) = match task.action(a).motion() {
                            Motion::Step(d) => (d, false),
                            Motion::Slide(d) => (d, true),
                            _ => unreachable!("the kernel fits steps and slides only"),
                        };
                        (d.dr as isize * width as isize + d.dc as isize, slide)
                    })
                    .collect();
                Mover {
                    field: layout.field(m.pos()),
                    padded,
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
    m: &'k SlideModel,
    /// Each mover's padded cell.
    at: Vec<u32>,
    word: std::marker::PhantomData<W>,
}

impl<'k, W: Word> Slides<'k, W> {
    pub fn new(m: &'k SlideModel) -> Self {
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
