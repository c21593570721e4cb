//! Phase 4: search a [`Model`] for the fewest steps to a goal state.
//!
//! Breadth-first, level by level, over packed states. The visited store is a
//! dense bitset when the layout's bit width is small enough, a `hashbrown`
//! set of packed words otherwise. Successors are generated from the model's
//! flat tables without allocating.

use crate::ast::Mode;
use crate::compile::{Model, Mover, Word};
use hashbrown::HashSet;

/// The largest layout (in bits) whose visited set is a dense bitset:
/// 2^30 bits is 128 MiB.
pub const DENSE_MAX_BITS: u32 = 30;

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The fewest steps to a goal, if one is reachable (within the limit).
    pub steps: Option<u64>,
    /// States taken off the frontier and expanded.
    pub expanded: u64,
    /// Distinct states seen.
    pub visited: u64,
}

/// Applies the `when` effects of standing where the movers stand.
#[inline]
pub fn settle<W: Word>(m: &Model<W>, mut s: W) -> W {
    for mv in &m.movers {
        s = mv.when_here[mv.pos(s) as usize].apply(s);
    }
    if m.dynamic_sight {
        s = sight(m, s);
    }
    s
}

/// `when ... sees` effects along rays that other opaque movers may block.
fn sight<W: Word>(m: &Model<W>, mut s: W) -> W {
    let cells = m.cells_of(s);
    for (i, mv) in m.movers.iter().enumerate() {
        let Some(rays) = mv.rays.get(mv.pos(s) as usize) else {
            continue;
        };
        for ray in rays {
            for (cell, eff) in ray {
                let blocked = m
                    .movers
                    .iter()
                    .enumerate()
                    .any(|(j, o)| j != i && o.opaque && cells[j] == *cell);
                if blocked {
                    break;
                }
                s = eff.apply(s);
            }
        }
    }
    s
}

/// The visited store.
enum Visited<W> {
    Dense(Vec<u64>),
    Sparse(HashSet<W>),
}

impl<W: Word> Visited<W> {
    fn new(bits: u32) -> Self {
        if bits <= DENSE_MAX_BITS {
            Visited::Dense(vec![0; (1usize << bits).div_ceil(64)])
        } else {
            Visited::Sparse(HashSet::new())
        }
    }

    /// Marks `s`; true if it was new.
    #[inline(always)]
    fn insert(&mut self, s: W) -> bool {
        match self {
            Visited::Dense(v) => {
                let i = s.low() as usize;
                let (w, b) = (i >> 6, 1u64 << (i & 63));
                let old = v[w];
                v[w] = old | b;
                old & b == 0
            }
            Visited::Sparse(h) => h.insert(s),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Visited::Dense(v) => v.iter().map(|w| w.count_ones() as u64).sum(),
            Visited::Sparse(h) => h.len() as u64,
        }
    }
}

/// Which visited store a model gets.
pub fn store_name(bits: u32) -> &'static str {
    if bits <= DENSE_MAX_BITS {
        "dense bitset"
    } else {
        "hash set"
    }
}

/// Breadth-first search from the model's start state.
pub fn bfs<W: Word>(m: &Model<W>) -> Outcome {
    let mut visited = Visited::<W>::new(m.layout.bits);
    let mut out = Outcome {
        steps: None,
        expanded: 0,
        visited: 0,
    };
    visited.insert(m.start);
    if m.holds(m.goal, m.start) {
        out.steps = Some(0);
        out.visited = 1;
        return out;
    }
    let mut frontier = vec![m.start];
    let mut next = Vec::new();
    let mut depth = 0u64;
    let mut succ = Successors::new(m);
    while !frontier.is_empty() {
        if m.limit.is_some_and(|l| depth >= l) {
            break;
        }
        let mut found = false;
        for &s in &frontier {
            out.expanded += 1;
            succ.each(s, |t| {
                if visited.insert(t) {
                    if m.holds(m.goal, t) {
                        found = true;
                    }
                    next.push(t);
                }
                !found
            });
            if found {
                break;
            }
        }
        depth += 1;
        if found {
            out.steps = Some(depth);
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    out.visited = visited.len();
    out
}

/// Generates the successors of a state, reusing its buffers.
pub struct Successors<'m, W> {
    m: &'m Model<W>,
    /// Per mover: old position, old cell, new position, new cell.
    old_pos: Vec<u32>,
    old_cell: Vec<u32>,
    new_pos: Vec<u32>,
    new_cell: Vec<u32>,
}

impl<'m, W: Word> Successors<'m, W> {
    pub fn new(m: &'m Model<W>) -> Self {
        let n = m.movers.len();
        Successors {
            m,
            old_pos: vec![0; n],
            old_cell: vec![0; n],
            new_pos: vec![0; n],
            new_cell: vec![0; n],
        }
    }

    /// Calls `f` on every successor of `s` (duplicates possible); stops early
    /// when `f` returns false.
    #[inline]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            let p = mv.pos(s);
            self.old_pos[i] = p;
            self.old_cell[i] = mv.cells[p as usize];
        }
        match m.mode {
            Mode::InTurn => self.in_turn(s, &mut f),
            Mode::AtOnce if m.movers.is_empty() => {}
            Mode::AtOnce => {
                self.at_once(s, s, 0, &mut f);
            }
        }
    }

    fn in_turn(&mut self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            let p = self.old_pos[i] as usize;
            for &q in mv.moves(p) {
                if q as usize == p {
                    continue;
                }
                if !mv.free && !m.holds(mv.entry[q as usize], s) {
                    continue;
                }
                let cell = mv.cells[q as usize];
                if m.forbid_same_cell
                    && self
                        .old_cell
                        .iter()
                        .enumerate()
                        .any(|(j, &c)| j != i && c == cell)
                {
                    continue;
                }
                let mut t = place(mv, s, q);
                if m.effects {
                    t = settle(m, mv.on_enter[q as usize].apply(t));
                }
                if !f(t) {
                    return;
                }
            }
        }
    }

    /// Chooses a move for mover `i` and the ones after it, given the state
    /// `t` with movers before `i` already placed; false to stop. The last
    /// mover's moves are the leaves, handled in the loop without recursing.
    fn at_once(&mut self, s: W, t: W, i: usize, f: &mut impl FnMut(W) -> bool) -> bool {
        let m = self.m;
        let n = m.movers.len();
        let (same, swap) = (m.forbid_same_cell, m.forbid_swap);
        let mv = &m.movers[i];
        let p = self.old_pos[i] as usize;
        let old = self.old_cell[i];
        let cleared = t & !mv.field();
        let last = i + 1 == n;
        for &q in mv.moves(p) {
            if !mv.free && q as usize != p && !m.holds(mv.entry[q as usize], s) {
                continue;
            }
            let cell = mv.cells[q as usize];
            let clash = (0..i).any(|j| {
                let nc = self.new_cell[j];
                (same && nc == cell)
                    || (swap && nc == old && self.old_cell[j] == cell && old != cell)
            });
            if clash {
                continue;
            }
            self.new_pos[i] = q;
            let next = cleared | (W::from_u64(q as u64) << mv.offset);
            if last {
                let t = if m.effects { self.effects(next) } else { next };
                if !f(t) {
                    return false;
                }
            } else {
                self.new_cell[i] = cell;
                if !self.at_once(s, next, i + 1, f) {
                    return false;
                }
            }
        }
        true
    }

    /// The effects of a simultaneous step whose positions are in `new_pos`.
    fn effects(&self, mut t: W) -> W {
        let m = self.m;
        for (j, mv) in m.movers.iter().enumerate() {
            if self.new_pos[j] != self.old_pos[j] {
                t = mv.on_enter[self.new_pos[j] as usize].apply(t);
            }
        }
        settle(m, t)
    }
}

/// `s` with mover `mv` at position `q`.
#[inline(always)]
fn place<W: Word>(mv: &Mover<W>, s: W, q: u32) -> W {
    (s & !mv.field()) | (W::from_u64(q as u64) << mv.offset)
}
