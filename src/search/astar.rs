//! A* with a heuristic derived from the goal, the largest of two lower
//! bounds:
//!
//! - Positions: for each mover the goal pins to some positions, its fewest
//!   moves to one of them on its own move graph (other movers, conditions and
//!   flags ignored). A step moves every mover at most once (`at once`: the
//!   bound is the largest of these distances) or one mover once (`in turn`:
//!   their sum).
//! - Flags: for each flag bit the goal fixes, 0 if the state has the value
//!   asked for, else the fewest moves any mover needs to reach a position
//!   whose effects (entering it, or standing there) can give the bit that
//!   value. No other step changes a bit towards it.
//!
//! Each bound changes by at most one per step towards the goal, so the
//! heuristic is consistent: the first goal state taken off the queue is at
//! the fewest steps, and a state is expanded once.

use super::{Outcome, Successors};
use crate::ast::Mode;
use crate::compile::{Cond, Model, Mover, Node, Word};
use hashbrown::HashMap;

/// Per mover, distances from each position to a set of positions
/// (`u32::MAX`: none reachable).
type Tables = Vec<(usize, Vec<u32>)>;

/// A flag bit the goal fixes, and per mover the distance from each position
/// to one where the bit can take the value the goal asks for. The search
/// asks for few of them (those near its path): they are found on demand.
struct FlagTerm {
    bit: u32,
    want: u64,
    tables: Vec<(usize, Distances)>,
}

/// A lower bound on the steps to the goal, from the model's tables.
pub struct Heuristic {
    /// Movers the goal pins, with their distances to the goal positions.
    tables: Tables,
    sum: bool,
    flags: Vec<FlagTerm>,
}

impl Heuristic {
    /// The heuristic of a model, if its goal pins some mover's position or
    /// fixes a flag that only effects at some positions can change.
    pub fn new<W: Word>(m: &Model<W>) -> Option<Heuristic> {
        let mut goals: Vec<Option<Vec<bool>>> = vec![None; m.movers.len()];
        pinned(m, m.goal, &mut goals);
        let tables: Tables = goals
            .into_iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let mv = &m.movers[i];
                let g = g?;
                Some((i, Distances::new(m, mv, |p| g[p]).all(mv)))
            })
            .collect();
        let flags = flag_terms(m);
        if tables.is_empty() && flags.is_empty() {
            return None;
        }
        Some(Heuristic {
            tables,
            sum: m.mode == Mode::InTurn,
            flags,
        })
    }

    /// Whether the heuristic bounds the flags the goal asks for.
    pub fn knows_flags(&self) -> bool {
        !self.flags.is_empty()
    }

    /// A lower bound on the steps from `s` to a goal; `u32::MAX` if none.
    /// Exact up to `bound` (less than `u32::MAX`): past it, some value above
    /// `bound`, found without looking further (the caller drops the state).
    #[inline]
    pub fn of<W: Word>(&mut self, m: &Model<W>, s: W, bound: u32) -> u32 {
        let mut h = 0u32;
        for (i, table) in &self.tables {
            let d = table[m.movers[*i].pos(s) as usize];
            if d == u32::MAX {
                return u32::MAX;
            }
            h = if self.sum { h + d } else { h.max(d) };
        }
        for f in &mut self.flags {
            if h > bound {
                break;
            }
            if (s >> f.bit).low() & 1 == f.want {
                continue;
            }
            let d = f
                .tables
                .iter_mut()
                .map(|(i, t)| {
                    let mv = &m.movers[*i];
                    t.get(mv, mv.pos(s) as usize, bound)
                })
                .min()
                .unwrap_or(u32::MAX);
            if d == u32::MAX {
                return u32::MAX;
            }
            h = h.max(d);
        }
        h
    }
}

/// Whether the goal fixes some flag bit that [`Heuristic`] can bound.
pub fn goal_fixes_flags<W: Word>(m: &Model<W>) -> bool {
    goal_flags(m).is_some()
}

/// The flag bits the goal fixes (a mask) and the values it wants, when it
/// fixes some and each depends on one position of one mover (not when
/// sight can be blocked by movers).
fn goal_flags<W: Word>(m: &Model<W>) -> Option<(W, W)> {
    let Cond::Masked { mask, value } = m.goal else {
        return None;
    };
    let positions = m.movers.iter().fold(W::ZERO, |a, mv| a | mv.field());
    let flags = mask & !positions;
    (flags != W::ZERO && !m.dynamic_sight).then_some((flags, value))
}

/// The flag bits the goal asks for, each with the positions whose effects
/// can give it the value asked for.
fn flag_terms<W: Word>(m: &Model<W>) -> Vec<FlagTerm> {
    let Some((flags, value)) = goal_flags(m) else {
        return Vec::new();
    };
    let mut terms = Vec::new();
    for bit in 0..m.layout.bits {
        if (flags >> bit).low() & 1 == 0 {
            continue;
        }
        let want = (value >> bit).low() & 1;
        // Effects that turn the bit from the other value to this one.
        let from = if want == 1 { W::ZERO } else { W::ONE << bit };
        let gives: Vec<bool> = m
            .effects
            .iter()
            .map(|e| (e.apply(from) >> bit).low() & 1 == want)
            .collect();
        let tables = m
            .movers
            .iter()
            .enumerate()
            .map(|(i, mv)| {
                let gives_at =
                    |q: usize| gives[mv.on_enter[q] as usize] | gives[mv.when_here[q] as usize];
                (i, Distances::new(m, mv, gives_at))
            })
            .collect();
        terms.push(FlagTerm { bit, want, tables });
    }
    terms
}

/// Collects the positions a goal condition requires of each mover, from its
/// conjunctions of fixed fields and position sets.
fn pinned<W: Word>(m: &Model<W>, c: Cond<W>, goals: &mut [Option<Vec<bool>>]) {
    let mut require = |i: usize, ok: &dyn Fn(usize) -> bool| {
        let n = m.movers[i].cells.len();
        let g = goals[i].get_or_insert_with(|| vec![true; n]);
        for (p, slot) in g.iter_mut().enumerate() {
            *slot &= ok(p);
        }
    };
    match c {
        Cond::Masked { mask, value } => {
            for (i, mv) in m.movers.iter().enumerate() {
                let field = mv.field();
                if mv.bits > 0 && mask & field == field {
                    let want = mv.pos(value) as usize;
                    require(i, &|p| p == want);
                }
            }
        }
        Cond::Expr(id) => match &m.nodes[id.0 as usize] {
            Node::At { mover, set } => {
                require(*mover as usize, &|p| set[p / 64] >> (p % 64) & 1 == 1);
            }
            Node::Masked { mask, value } => pinned(
                m,
                Cond::Masked {
                    mask: *mask,
                    value: *value,
                },
                goals,
            ),
            Node::And(parts) => {
                for p in parts {
                    pinned(m, *p, goals);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Breadth-first distances on a mover's move graph to a set of positions,
/// walking its moves backwards over the model's padded grid, found only as
/// far as asked: a position's distance is final once the search has reached
/// it. Indexed by padded cell.
///
/// The search relaxes the mover's moves (any open cell, no conditions), so
/// its distances are lower bounds. Cells where no agent may stand hold 0
/// from the start: never walked through, and a bound of 0 for a start
/// placed on one.
struct Distances {
    /// `UNKNOWN` until reached.
    dist: Vec<u32>,
    /// Cells reached, in order: `queue[head..tail]` are still to be
    /// walked from.
    queue: Vec<u32>,
    head: usize,
    tail: usize,
}

const UNKNOWN: u32 = u32::MAX;

impl Distances {
    /// Distances to the positions `p` where `goal(p)` holds.
    fn new<W: Word>(m: &Model<W>, mv: &Mover<W>, goal: impl Fn(usize) -> bool) -> Self {
        // Open cells UNKNOWN (all ones), the others 0.
        let mut dist: Vec<u32> = m
            .open
            .iter()
            .map(|&o| u32::from(o).wrapping_neg())
            .collect();
        // Each cell is queued once; one slot more for the branch-free write.
        let mut queue = vec![0u32; m.open.len() + 1];
        let mut tail = 0;
        for (p, &pc) in mv.padded.iter().enumerate() {
            if goal(p) {
                queue[tail] = pc;
                tail += 1;
            }
        }
        for &pc in &queue[..tail] {
            dist[pc as usize] = 0;
        }
        Distances {
            dist,
            queue,
            head: 0,
            tail,
        }
    }

    /// The distance of position `p` (`u32::MAX`: the set is out of reach),
    /// or `bound + 1` when it is more than `bound`: the search only goes as
    /// far as it is asked to.
    #[inline]
    fn get<W: Word>(&mut self, mv: &Mover<W>, p: usize, bound: u32) -> u32 {
        let pc = mv.padded[p] as usize;
        if self.dist[pc] != UNKNOWN {
            return self.dist[pc];
        }
        self.search(pc, bound, &mv.deltas)
    }

    /// Every position's distance, searched to the end.
    fn all<W: Word>(mut self, mv: &Mover<W>) -> Vec<u32> {
        self.search(usize::MAX, u32::MAX, &mv.deltas);
        mv.padded.iter().map(|&pc| self.dist[pc as usize]).collect()
    }

    /// Walks on until padded cell `until` has its distance, or every cell
    /// within `bound` has (then `bound + 1`), or the queue runs out (then
    /// `u32::MAX`). Every neighbour is written to the queue and kept only
    /// if it is new: no branch on the map's layout.
    #[inline(never)]
    fn search(&mut self, until: usize, bound: u32, deltas: &[isize]) -> u32 {
        let (dist, queue) = (&mut self.dist[..], &mut self.queue[..]);
        let (mut head, mut tail) = (self.head, self.tail);
        let found = loop {
            if dist.get(until).is_some_and(|&d| d != UNKNOWN) {
                break dist[until];
            }
            if head == tail {
                break u32::MAX;
            }
            let pc = queue[head] as usize;
            let here = dist[pc];
            if here >= bound {
                // Every cell within `bound` has its distance.
                break bound.saturating_add(1);
            }
            head += 1;
            for &d in deltas {
                let q = pc.wrapping_add_signed(-d);
                let fresh = dist[q] == UNKNOWN;
                dist[q] = if fresh { here + 1 } else { dist[q] };
                queue[tail] = q as u32;
                tail += usize::from(fresh);
            }
        };
        (self.head, self.tail) = (head, tail);
        found
    }
}

/// The fewest steps found so far to each state: a flat array when the
/// layout is small, else a map.
enum Best<W> {
    Dense(DenseG),
    Sparse(HashMap<W, u32>),
}

/// The widest layout whose `g` values are kept in a flat array (16 MiB).
pub const DENSE_G_BITS: u32 = 22;

/// `g + 1` by packed state (0 is unseen), in an array kept between
/// searches on one thread: a file's cases are often many and small, and
/// setting back the entries a search wrote costs less than zeroing a new
/// array for each. The entries written are listed for that, up to an
/// eighth of the array; past it, the whole array is zeroed.
struct DenseG {
    g: Vec<u32>,
    written: Vec<u32>,
    overflow: bool,
}

thread_local! {
    static SPARE_G: std::cell::Cell<Vec<u32>> = const { std::cell::Cell::new(Vec::new()) };
}

impl DenseG {
    fn new(len: usize) -> Self {
        let mut g = SPARE_G.take();
        // The spare is all zeros; a longer one serves as well.
        if g.len() < len {
            g = vec![0; len];
        }
        DenseG {
            g,
            written: Vec::new(),
            overflow: false,
        }
    }

    #[inline]
    fn set(&mut self, i: usize, v: u32) {
        if self.g[i] == 0 && !self.overflow {
            self.written.push(i as u32);
            self.overflow = self.written.len() > self.g.len() / 8;
        }
        self.g[i] = v;
    }
}

impl Drop for DenseG {
    fn drop(&mut self) {
        let mut g = std::mem::take(&mut self.g);
        if self.overflow {
            g.fill(0);
        } else {
            for &i in &self.written {
                g[i as usize] = 0;
            }
        }
        SPARE_G.set(g);
    }
}

impl<W: Word> Best<W> {
    fn new(bits: u32) -> Self {
        if bits <= DENSE_G_BITS {
            Best::Dense(DenseG::new(1 << bits))
        } else {
            Best::Sparse(HashMap::new())
        }
    }

    #[inline]
    fn get(&self, s: W) -> Option<u32> {
        match self {
            Best::Dense(d) => d.g[s.low() as usize].checked_sub(1),
            Best::Sparse(h) => h.get(&s).copied(),
        }
    }

    #[inline]
    fn set(&mut self, s: W, g: u32) {
        match self {
            Best::Dense(d) => d.set(s.low() as usize, g + 1),
            Best::Sparse(h) => {
                h.insert(s, g);
            }
        }
    }
}

/// A* from the model's start: states in buckets by `f = g + h`, the best
/// `g` of each state kept; a state is expanded once, at its fewest steps.
pub fn astar<W: Word>(m: &Model<W>, mut h: Heuristic) -> Outcome {
    let mut out = Outcome {
        steps: None,
        expanded: 0,
        visited: 0,
    };
    let limit = m.limit.map_or(u64::MAX, |l| l);
    // What `h` may be and still lead to a goal within the limit after `g`
    // steps.
    let room = |g: u32| limit.saturating_sub(g as u64).min(u64::from(u32::MAX - 1)) as u32;
    let h0 = h.of(m, m.start, room(0));
    if h0 == u32::MAX || h0 as u64 > limit {
        return out;
    }
    let mut best = Best::new(m.layout.bits);
    best.set(m.start, 0);
    out.visited = 1;
    // buckets[f] holds (g, state); the smallest non-empty f is expanded next.
    let mut buckets: Vec<Vec<(u32, W)>> = vec![Vec::new(); h0 as usize + 1];
    buckets[h0 as usize].push((0, m.start));
    let mut f = h0 as usize;
    let mut succ = Successors::new(m);
    let mut children = Vec::new();
    while f < buckets.len() {
        let Some((g, s)) = buckets[f].pop() else {
            f += 1;
            continue;
        };
        if best.get(s).is_some_and(|b| b < g) {
            continue;
        }
        if m.holds(m.goal, s) {
            out.steps = Some(g as u64);
            break;
        }
        if g as u64 >= limit {
            continue;
        }
        out.expanded += 1;
        children.clear();
        succ.each(s, |t| {
            children.push(t);
            true
        });
        for &t in &children {
            let gt = g + 1;
            let seen = best.get(t);
            if seen.is_some_and(|b| b <= gt) {
                continue;
            }
            let ht = h.of(m, t, room(gt));
            if ht == u32::MAX || (gt + ht) as u64 > limit {
                continue;
            }
            best.set(t, gt);
            out.visited += u64::from(seen.is_none());
            let ft = (gt + ht) as usize;
            if ft >= buckets.len() {
                buckets.resize(ft + 1, Vec::new());
            }
            buckets[ft].push((gt, t));
        }
    }
    out
}
