//! The slide kernel: movers in turn whose moves slide or teleport, on a
//! task with no rules and no entry conditions but `solid` (ice floors,
//! sliding robots, teleporter mazes). Each mover has a byte per cell of the
//! board's padded grid saying what a move meets there (whether it may
//! enter, whether the cell carries it on, stops slides, or is a
//! teleport's end; the border cells let no move in), and a move walks
//! those bytes cell by cell, as a hand-written solver would, stopping
//! before another mover.
//!
//! A lone mover may stand on tiles that carry (`carry`): once its move
//! ends, it walks on the way each cell carries, a cell a round, as the
//! interpreter's rounds of carrying take one mover.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`], in
//! the same order, on every state (tested in `tests/kernels.rs` on random
//! tasks). It can: with no rules a move changes nothing but its mover's
//! position, and with one mover or `forbid same cell` another mover on the
//! way stops the move before it, as the interpreter's `far` does. Carrying
//! is taken with one mover only: with several, the interpreter's rounds
//! carry each a cell in turn, and one may stand in another's way.

use super::tables::{Effect, rules_effect};
use super::{Cond, Conds};
use crate::pack::{Field, Layout, Word};
use crate::task::{ClassId, Domain, MoverId, Task};

const NONE: u32 = u32::MAX;

/// What a move meets on a cell: whether it may enter (on the map, not
/// solid, not closed for good, in the mover's domain), and whether the
/// cell carries a step on (slippery), stops slides, or is a teleport's
/// end.
const OPEN: u8 = 1;
const SLIPPERY: u8 = 2;
const STOPS: u8 = 4;
const TELEPORT: u8 = 8;
/// Entering it needs a condition, or fires rules (see [`Mover::class`]).
const RULED: u8 = 16;

/// One mover's cells and moves.
#[derive(Debug)]
struct Mover<'t, W> {
    field: Field,
    /// Its positions (the task's own).
    domain: &'t Domain,
    /// Padded cell -> what a move meets there.
    kind: Vec<u8>,
    /// Padded cell -> position (`NONE` outside the domain); empty when the
    /// positions are the padded cells.
    position: Vec<u32>,
    /// Per teleport's end in the domain, in order of padded cells: the
    /// padded cell, the other end's position (`NONE` when it is outside the
    /// domain) and whether going through is optional. A move looks it up
    /// when it stops on a [`TELEPORT`] cell.
    through: Vec<(u32, u32, bool)>,
    /// Per move: its step in padded cells, and which cells it goes on
    /// from (slippery ones; for a slide, every one that does not stop it).
    moves: Vec<(isize, bool)>,
    /// Padded cell -> for a [`RULED`] cell, its class (empty when no cell
    /// is), whose entry condition and effect of the rules entering it
    /// fires are in `rules`.
    ruled: Vec<u32>,
    rules: Vec<(Cond<W>, Effect<W>)>,
    /// Padded cell -> the way it carries what stands on it, as one more
    /// than its index into `ways` (0: it does not); empty when no cell
    /// carries.
    carry: Vec<u8>,
    /// The ways cells carry, in padded cells.
    ways: Vec<isize>,
}

impl<W> Mover<'_, W> {
    /// The position of padded cell `pc`, in the domain.
    #[inline(always)]
    fn position(&self, pc: usize) -> u64 {
        if self.position.is_empty() {
            pc as u64
        } else {
            self.position[pc] as u64
        }
    }
}

/// A task's movers, ready to move.
#[derive(Debug)]
pub struct SlideModel<'t, W> {
    movers: Vec<Mover<'t, W>>,
    cx: Conds<W>,
    /// Another mover on the other end of a teleport keeps a mover on its
    /// end.
    forbid_same_cell: bool,
    /// Where the movers move together ([`fits_together`]): per move, its
    /// offset (rows, columns), which orders them front first; and the
    /// padded grid's width, to read a padded cell's row and column.
    together: Option<(Vec<(i64, i64)>, usize)>,
}

/// Whether the kernel applies: movers in turn whose moves are steps or
/// slides, with no rules but plain `on enter` rules (no condition, flags
/// only) and any entry conditions, no derived facts, steps of cost 1, and
/// one mover or `forbid same cell`; where tiles carry, one mover of one
/// cell.
pub fn fits(task: &Task) -> bool {
    let carried = !task.carries() || (task.movers().len() == 1 && !task.has_pieces());
    carried
        && task.mode() == crate::task::Mode::InTurn
        && task.unit_costs()
        && task.plain_rules()
        && !task.has_guards()
        && (task.movers().len() == 1 || task.forbid_same_cell())
        && task.movers().iter().all(|m| m.when().is_empty())
        && task
            .actions()
            .iter()
            .all(|a| a.motion().shift().is_some() && a.rules().is_empty())
}

/// Whether the kernel moves `task`'s agents together (`move all
/// together`): every mover makes the move of the same index, front first,
/// each as far as it goes, stopping before another; the step counts when
/// one of them moved. It applies with no rules and no entry conditions but
/// `solid` ([`Task::unconditional`]), steps and slides only (no teleports,
/// no carrying), nothing forbidden but `forbid same cell` (or one mover),
/// no movers alike, no pieces, objects or bodies, steps of cost 1: then a
/// step changes nothing but the movers' positions, in the interpreter's
/// order ([`super::Generic`]'s `together`).
pub fn fits_together(task: &Task) -> bool {
    task.mode() == crate::task::Mode::Together
        && task.unconditional()
        && task.unit_costs()
        && !task.forbids()
        && !task.carries()
        && !task.board().has_teleports()
        && !task.has_objects()
        && !task.has_pieces()
        && !task.has_bodies()
        && !task.has_twins()
        && (task.movers().len() == 1 || task.forbid_same_cell())
        && (task.movers().iter()).all(|m| m.when().is_empty() && m.heading().is_none())
        && task.actions().iter().all(|a| a.motion().shift().is_some())
}

impl<'t, W: Word> SlideModel<'t, W> {
    pub fn new(task: &'t Task, layout: &Layout) -> SlideModel<'t, W> {
        let b = task.board();
        let mut cx = Conds::new();
        // Each class's entry condition, compiled once.
        let entry: Vec<Cond<W>> = b
            .class_ids()
            .map(|k| cx.compile(task.entry(k), task, layout))
            .collect();
        // What a move meets on each class: classes are few, cells many.
        let class_kind: Vec<u8> = b
            .classes()
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let never = matches!(task.entry(k as ClassId), crate::task::Expr::Const(false));
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
                let d = m.domain();
                let mut position = if d.is_grid() {
                    Vec::new()
                } else {
                    vec![NONE; n]
                };
                let mut kind = vec![0u8; n];
                d.for_each(|p, c, pc| {
                    if let Some(x) = position.get_mut(pc as usize) {
                        *x = p;
                    }
                    kind[pc as usize] = class_kind[b.class(c) as usize];
                });
                // The effect of each class's rules on entering, for this
                // mover, and the cells that have a condition or one.
                let mover = task
                    .movers()
                    .iter()
                    .position(|x| std::ptr::eq(x, m))
                    .expect("a mover of the task");
                let fx: Vec<Effect<W>> = b
                    .class_ids()
                    .map(|k| rules_effect(task, layout, task.on_enter(MoverId(mover as u32), k)))
                    .collect();
                let mut ruled = Vec::new();
                let rules: Vec<(Cond<W>, Effect<W>)> =
                    entry.iter().copied().zip(fx.iter().copied()).collect();
                // A cell no move enters (solid, closed for good) needs no rule.
                let plain = |k: usize| {
                    let open = !b.classes()[k].solid && entry[k] != Cond::Never;
                    !open || (entry[k] == Cond::Always && fx[k] == Effect::default())
                };
                if (0..b.classes().len()).any(|k| b.present(k as ClassId) && !plain(k)) {
                    ruled = vec![0; n];
                    d.for_each(|_, c, pc| {
                        let k = b.class(c) as usize;
                        if kind[pc as usize] & OPEN != 0 && !plain(k) {
                            kind[pc as usize] |= RULED;
                            ruled[pc as usize] = k as u32;
                        }
                    });
                }
                let mut through = Vec::new();
                for &(c, other, optional) in b.teleports() {
                    let pc = b.padded(c);
                    if d.position_of(c).is_some() && kind[pc] & OPEN != 0 {
                        kind[pc] |= TELEPORT;
                        let to = d.position_of(other).unwrap_or(NONE);
                        through.push((pc as u32, to, optional));
                    }
                }
                // The board's ends are in grid order, hence padded order.
                debug_assert!(through.is_sorted());
                let (carry, ways) = carrying(task, d);
                let moves = m
                    .actions()
                    .iter()
                    .map(|&a| {
                        let (d, far) = (task.action(a).motion().shift())
                            .expect("the kernel fits shifts by offsets only");
                        (b.delta(d), far)
                    })
                    .collect();
                Mover {
                    field: layout.field(m.pos()),
                    domain: d,
                    kind,
                    position,
                    through,
                    moves,
                    ruled,
                    rules,
                    carry,
                    ways,
                }
            })
            .collect();
        SlideModel {
            movers,
            cx,
            forbid_same_cell: task.forbid_same_cell(),
            together: together(task),
        }
    }
}

/// Where `task`'s agents move together: per move, its offset (rows,
/// columns), and the padded grid's width ([`SlideModel::together`]).
fn together(task: &Task) -> Option<(Vec<(i64, i64)>, usize)> {
    (task.mode() == crate::task::Mode::Together).then(|| {
        let first = task.movers().first().map_or(&[][..], |m| m.actions());
        let ways = (first.iter())
            .map(|&a| {
                let (d, _) = (task.action(a).motion().shift())
                    .expect("the kernel fits shifts by offsets only");
                (i64::from(d.dr), i64::from(d.dc))
            })
            .collect();
        let width = task.board().delta(crate::task::Dir { dr: 1, dc: 0 }) as usize;
        (ways, width)
    })
}

/// Padded cell of `d` -> the way it carries what stands on it, as one
/// more than its index into the ways (0: it does not), and the ways in
/// padded cells; both empty when no tile carries.
fn carrying(task: &Task, d: &Domain) -> (Vec<u8>, Vec<isize>) {
    if !task.carries() {
        return (Vec::new(), Vec::new());
    }
    let b = task.board();
    // Classes are few, cells many.
    let mut ways: Vec<isize> = Vec::new();
    let class_way: Vec<u8> = (b.class_ids())
        .map(|k| {
            let Some(w) = task.carry_way(k) else { return 0 };
            let delta = b.delta(w);
            let at = ways.iter().position(|&x| x == delta).unwrap_or_else(|| {
                ways.push(delta);
                ways.len() - 1
            });
            at as u8 + 1
        })
        .collect();
    let mut carry = vec![0u8; b.open().len()];
    d.for_each(|_, c, pc| carry[pc as usize] = class_way[b.class(c) as usize]);
    (carry, ways)
}

/// The slide kernel's buffers, one per thread.
pub struct Slides<'k, W> {
    m: &'k SlideModel<'k, W>,
    /// Each mover's padded cell.
    at: Vec<u32>,
    /// Together: each mover's padded cell before the step, its row and
    /// column, and the order they move in.
    from: Vec<u32>,
    rc: Vec<(i64, i64)>,
    order: Vec<usize>,
    word: std::marker::PhantomData<W>,
}

impl<'k, W: Word> Slides<'k, W> {
    pub fn new(m: &'k SlideModel<'k, W>) -> Self {
        Slides {
            m,
            at: vec![0; m.movers.len()],
            from: vec![0; m.movers.len()],
            rc: vec![(0, 0); m.movers.len()],
            order: (0..m.movers.len()).collect(),
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
            self.at[i] = mv.domain.padded(mv.field.raw(s) as u32);
        }
        if let Some((ways, width)) = &m.together {
            self.together(s, ways, *width, f);
            return;
        }
        for (i, mv) in m.movers.iter().enumerate() {
            // With no cell that has a condition or rules, the state is only
            // made at the end of a move: a loop of its own.
            let go_on = if mv.ruled.is_empty() {
                self.moves::<false>(i, mv, s, &mut f)
            } else {
                self.moves::<true>(i, mv, s, &mut f)
            };
            if !go_on {
                return;
            }
        }
    }

    /// Together ([`fits_together`]): for each move, every mover makes it,
    /// the one furthest along its way first, each walking its bytes until
    /// a cell it may not enter, another mover, or (a step, or the end of a
    /// slide) a cell it does not go on from. No rules: the successor is the
    /// movers' new positions, when one of them moved.
    fn together(&mut self, s: W, ways: &[(i64, i64)], width: usize, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        let lone = m.movers.len() == 1;
        self.from.copy_from_slice(&self.at);
        // Each mover's padded row and column, once a state (they order as
        // the grid's do).
        for (rc, &pc) in self.rc.iter_mut().zip(&self.from) {
            *rc = ((pc as usize / width) as i64, (pc as usize % width) as i64);
        }
        // As the interpreter does: each move sorts the order the one before
        // left (ties, which never stand in each other's way, keep it).
        for (j, o) in self.order.iter_mut().enumerate() {
            *o = j;
        }
        for (k, &(dr, dc)) in ways.iter().enumerate() {
            let rc = &self.rc;
            self.order
                .sort_by_key(|&i| std::cmp::Reverse(rc[i].0 * dr + rc[i].1 * dc));
            let mut moved = false;
            for j in 0..self.order.len() {
                let i = self.order[j];
                let mv = &m.movers[i];
                let (step, slide) = mv.moves[k];
                let mut at = self.at[i] as usize;
                loop {
                    let to = at.wrapping_add_signed(step);
                    let kind = mv.kind[to];
                    if kind & OPEN == 0 || (!lone && self.taken(i, to)) {
                        break;
                    }
                    at = to;
                    if kind & SLIPPERY == 0 && (!slide || kind & STOPS != 0) {
                        break;
                    }
                }
                moved |= at != self.at[i] as usize;
                self.at[i] = at as u32;
            }
            if moved {
                let mut t = s;
                for (mv, &at) in m.movers.iter().zip(&self.at) {
                    let p = mv.field.place::<W>(mv.position(at as usize));
                    t = (t & !mv.field.mask::<W>()) | p;
                }
                if !f(t) {
                    return;
                }
            }
            self.at.copy_from_slice(&self.from);
        }
    }

    /// Mover `i`'s moves from `s`; false when `f` asks to stop. With
    /// `RULED`, cells may have entry conditions and rules.
    #[inline(always)]
    fn moves<const RULED_CELLS: bool>(
        &self,
        i: usize,
        mv: &Mover<'_, W>,
        s: W,
        f: &mut impl FnMut(W) -> bool,
    ) -> bool {
        let m = self.m;
        let lone = m.movers.len() == 1;
        let from = self.at[i] as usize;
        for &(step, slide) in &mv.moves {
            let mut at = from;
            let mut kind = 0;
            // The state as the move goes (with rules): the mover on the
            // cell it has reached, the flags the cells entered have set.
            let mut t = s;
            loop {
                let to = at.wrapping_add_signed(step);
                let k = mv.kind[to];
                if k & OPEN == 0 || (!lone && self.taken(i, to)) {
                    break;
                }
                if RULED_CELLS
                    && k & RULED != 0
                    && !m.cx.holds(mv.rules[mv.ruled[to] as usize].0, t)
                {
                    break;
                }
                at = to;
                kind = k;
                if RULED_CELLS {
                    t = (t & !mv.field.mask::<W>()) | mv.field.place::<W>(mv.position(to));
                    if k & RULED != 0 {
                        t = mv.rules[mv.ruled[to] as usize].1.apply(t);
                    }
                }
                let on = k & SLIPPERY != 0 || (slide && k & STOPS == 0);
                if k & TELEPORT != 0 || !on {
                    break;
                }
            }
            if at == from {
                continue;
            }
            let cleared = t & !mv.field.mask::<W>();
            let end = if RULED_CELLS {
                t
            } else {
                cleared | mv.field.place::<W>(mv.position(at))
            };
            if kind & TELEPORT == 0 {
                if !self.land::<RULED_CELLS>(mv, at, end, f) {
                    return false;
                }
                continue;
            }
            let end_at = mv.through.partition_point(|t| (t.0 as usize) < at);
            let (_, through, optional) = mv.through[end_at];
            if through == NONE {
                if !self.land::<RULED_CELLS>(mv, at, end, f) {
                    return false;
                }
                continue;
            }
            let other = mv.domain.padded(through) as usize;
            let taken = m.forbid_same_cell && self.taken(i, other);
            if (taken || optional) && !self.land::<RULED_CELLS>(mv, at, end, f) {
                return false;
            }
            let gone = cleared | mv.field.place::<W>(through as u64);
            if !taken && !self.land::<RULED_CELLS>(mv, other, gone, f) {
                return false;
            }
        }
        true
    }

    /// Hands `f` the successor `t`, whose mover has ended its move on
    /// padded cell `at`, once carried (none when the carrying goes round a
    /// loop); false when `f` asks to stop.
    #[inline(always)]
    fn land<const RULED_CELLS: bool>(
        &self,
        mv: &Mover<'_, W>,
        at: usize,
        t: W,
        f: &mut impl FnMut(W) -> bool,
    ) -> bool {
        if mv.carry.is_empty() || mv.carry[at] == 0 {
            return f(t);
        }
        match self.carried::<RULED_CELLS>(mv, at, t) {
            Some(u) => f(u),
            None => true,
        }
    }

    /// The lone mover on padded cell `at` in state `t`, carried a cell a
    /// round as the interpreter's [`super::generic::carry`] carries it:
    /// into a cell it may enter (its entry condition holding, its rules
    /// firing), until a round carries it nowhere; none when a state after
    /// a round comes again (the same [`super::generic::Brent`]).
    fn carried<const RULED_CELLS: bool>(
        &self,
        mv: &Mover<'_, W>,
        mut at: usize,
        mut t: W,
    ) -> Option<W> {
        let (mut rounds, mut kept) = (super::generic::Brent::new(), t);
        loop {
            let way = mv.carry[at];
            if way == 0 {
                return Some(t);
            }
            let to = at.wrapping_add_signed(mv.ways[way as usize - 1]);
            let k = mv.kind[to];
            if k & OPEN == 0
                || (RULED_CELLS
                    && k & RULED != 0
                    && !self.m.cx.holds(mv.rules[mv.ruled[to] as usize].0, t))
            {
                return Some(t);
            }
            at = to;
            t = (t & !mv.field.mask::<W>()) | mv.field.place::<W>(mv.position(to));
            if RULED_CELLS && k & RULED != 0 {
                t = mv.rules[mv.ruled[to] as usize].1.apply(t);
            }
            // A round is a function of the state: a state seen again is a
            // loop.
            if rounds.looped(&t, &mut kept) {
                return None;
            }
        }
    }
}
