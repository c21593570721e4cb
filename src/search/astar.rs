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

use super::patterns::Patterns;
use crate::budget::{Budget, Pace, Sink};
use crate::kernel::Kernel;
use crate::pack::{Field, Layout, Word};
use crate::plan::{Bound, Checks, DENSE_G_BITS};
use crate::solution::Solution;

use crate::task::{MoverId, Task, Way};
use hashbrown::HashMap;

/// One mover's distances to a set of positions, searched on demand.
struct Table<'t> {
    /// The mover's position field.
    pos: Field,
    /// Position -> padded cell.
    padded: &'t [u32],
    /// What each of its moves adds to a padded cell.
    deltas: Vec<isize>,
    dist: Distances,
}

impl Table<'_> {
    /// Distances to the grid cells `goal`.
    fn new<'t>(task: &'t Task, layout: &Layout, m: MoverId, goal: &[u32]) -> Table<'t> {
        let mover = task.mover(m);
        let b = task.board();
        let seeds = goal.iter().map(|&c| b.padded(c) as u32);
        Table {
            pos: layout.field(mover.pos()),
            padded: mover.domain().padded_table(),
            deltas: task.directions(m).iter().map(|&d| b.delta(d)).collect(),
            dist: Distances::new(b.open(), seeds),
        }
    }

    /// The distance from the mover's position in `s`, exact up to `bound`.
    #[inline]
    fn get<W: Word>(&mut self, s: W, bound: u32) -> u32 {
        let p = self.pos.raw(s) as usize;
        let pc = self.padded[p] as usize;
        self.dist.get(pc, bound, &self.deltas)
    }
}

/// Mover `m`'s fewest moves from each of its positions to one of the grid
/// cells `goal`, in a task whose moves may go further than the next cell
/// (slides, slippery cells, teleports), on a graph that has every move of
/// the task and more: a move may stop on any cell it passes (another mover
/// or a closed cell may stop it there), goes on past a cell only where the
/// task's would (a slippery cell for a step; a cell that does not stop
/// slides for a slide; never past a teleport's end), and may end at a
/// teleport's other end. Every move of the task is one move there, so the
/// distances are lower bounds that change by at most one a move.
/// Positions with no way: `u32::MAX`.
fn far_distances(task: &Task, m: MoverId, goal: &[u32], budget: &Budget) -> Option<Vec<u32>> {
    use crate::task::{Dir, Expr};
    let b = task.board();
    let mover = task.mover(m);
    // The ways it moves: a direction, and whether as a slide.
    let mut ways: Vec<(Dir, bool)> = Vec::new();
    for &a in mover.actions() {
        let motion = task.action(a).motion();
        let more: Vec<(Dir, bool)> = match motion.way {
            Way::By(d) => vec![(d, motion.far)],
            // Along a heading: any way it may face.
            Way::Ahead | Way::Behind => Dir::COMPASS.iter().map(|&d| (d, motion.far)).collect(),
            // A* takes no piece with poses (see `plan::bound`).
            Way::Nowhere | Way::Table(_) => Vec::new(),
        };
        for w in more {
            if !ways.contains(&w) {
                ways.push(w);
            }
        }
    }
    let closed = |c: u32| b.class_of(c).solid || *task.entry(b.class(c)) == Expr::Const(false);
    let carries = |c: u32, slide: bool| b.teleport(c).is_none() && b.class_of(c).carries(slide);
    let mut dist = vec![u32::MAX; b.rows() * b.cols()];
    let mut queue = std::collections::VecDeque::new();
    for &g in goal {
        if dist[g as usize] == u32::MAX {
            dist[g as usize] = 0;
            queue.push_back(g);
        }
    }
    let mut pace = Pace::default();
    let mut taken = 0u64;
    while let Some(x) = queue.pop_front() {
        taken += 1;
        if pace.due(taken) && budget.poll() {
            return None;
        }
        let next = dist[x as usize] + 1;
        // A move that ends on `x` stops there, or on the teleport's end
        // whose other end it is (ends come in pairs).
        let ends = [Some(x), b.teleport(x).map(|(e, _)| e)];
        for end in ends.into_iter().flatten().filter(|&e| !closed(e)) {
            for &(d, slide) in &ways {
                // Back from `end`: each cell a move could start from, over
                // the cells it would go on past.
                let mut at = end;
                while let Some(y) = b.step(at, d.opposite()).filter(|&y| !closed(y)) {
                    if dist[y as usize] == u32::MAX {
                        dist[y as usize] = next;
                        queue.push_back(y);
                    }
                    if !carries(y, slide) {
                        break;
                    }
                    at = y;
                }
            }
        }
    }
    let mut table = vec![u32::MAX; mover.domain().len()];
    mover
        .domain()
        .for_each(|p, c, _| table[p as usize] = dist[c as usize]);
    Some(table)
}

/// A flag the goal fixes, and per mover the distance from each position
/// to one where the flag can take the value the goal asks for. The search
/// asks for few of them (those near its path): they are found on demand.
struct FlagTerm<'t> {
    field: Field,
    want: u64,
    tables: Vec<Table<'t>>,
}

/// A lower bound on the steps to the goal, the largest of:
///
/// - Positions: for each mover the goal pins to some positions, its fewest
///   moves to one of them on its own move graph (other movers, conditions
///   and flags ignored). A step moves every mover at most once (`at once`:
///   the bound is the largest of these distances) or one mover once (`in
///   turn`: their sum).
/// - Flags: for each flag the goal fixes, 0 if the state has the value
///   asked for, else the fewest moves any mover needs to reach a position
///   where a rule can give it that value. No other step gives it.
///
/// Each bound changes by at most one per step towards the goal, so the
/// heuristic is consistent: the first goal state taken off the queue is at
/// the fewest steps, and a state is expanded once.
pub struct Heuristic<'t> {
    /// Movers the goal pins, with their distances to the goal positions
    /// (those the pattern tables cover left out, once they are built).
    tables: Vec<(Field, Vec<u32>)>,
    sum: bool,
    /// The pattern tables of the plan's groups ([`Bound::partitions`]),
    /// once built: they add to the sum.
    patterns: Option<Patterns>,
    /// What building them needs, until they are built or given up, and
    /// after how many expanded states they are.
    due: Option<(&'t Task, &'t Layout, &'t Bound)>,
    /// Objects' members the goal places, with their pushes to the goal
    /// positions: their sum is a bound of its own.
    pushes: Vec<(Field, &'t [u32])>,
    flags: Vec<FlagTerm<'t>>,
}

impl<'t> Heuristic<'t> {
    /// The bound's tables, searched to the end for the movers the goal
    /// pins; `None` when the budget stopped that (a large map).
    pub fn new(
        task: &'t Task,
        layout: &'t Layout,
        bound: &'t Bound,
        budget: &Budget,
    ) -> Option<Heuristic<'t>> {
        let tables = bound
            .pinned
            .iter()
            .map(|(m, goal)| {
                if bound.far {
                    let pos = layout.field(task.mover(*m).pos());
                    return Some((pos, far_distances(task, *m, goal, budget)?));
                }
                let t = Table::new(task, layout, *m, goal);
                let all = t.dist.all(t.padded, &t.deltas, budget)?;
                Some((t.pos, all))
            })
            .collect::<Option<_>>()?;
        let flags = bound
            .flags
            .iter()
            .map(|f| {
                let field = layout.field(f.var);
                FlagTerm {
                    field,
                    want: (f.want - field.lo) as u64,
                    tables: f
                        .gives
                        .iter()
                        .map(|(m, g)| Table::new(task, layout, *m, g))
                        .collect(),
                }
            })
            .collect();
        let pushes = bound
            .objects
            .iter()
            .filter_map(|&m| {
                let o = task.mover(m).object()?;
                Some((
                    layout.field(task.mover(m).pos()),
                    o.pushes_to_goal.as_deref()?,
                ))
            })
            .collect();
        Some(Heuristic {
            tables,
            sum: bound.sum,
            patterns: None,
            due: (!bound.partitions.is_empty()).then_some((task, layout, bound)),
            pushes,
            flags,
        })
    }

    /// Whether the pattern tables are to be built now, `expanded` states
    /// into the search (a search that ends sooner does without them).
    #[inline]
    pub fn patterns_due(&self, expanded: u64) -> bool {
        self.due
            .is_some_and(|(_, _, b)| expanded >= b.patterns_after)
    }

    /// Builds the pattern tables, which then stand for the distances of
    /// the movers they cover: the bound only grows, and stays consistent.
    /// Without room for them it goes on without; false when the budget
    /// stopped the search.
    pub fn build_patterns(&mut self, budget: &Budget) -> bool {
        let Some((task, layout, bound)) = self.due.take() else {
            return true;
        };
        let goal = |m: MoverId| {
            let pinned = bound.pinned.iter().find(|(p, _)| *p == m);
            pinned.expect("a group's members are pinned").1.as_slice()
        };
        let partitions: Vec<Vec<super::patterns::Members<'_>>> = (bound.partitions.iter())
            .map(|p| {
                p.iter()
                    .map(|g| g.iter().map(|&m| (m, goal(m))).collect())
                    .collect()
            })
            .collect();
        let Some(p) = Patterns::new(task, layout, &partitions, bound.free, budget) else {
            return budget.stopped().is_none();
        };
        // Every partition covers the same movers.
        let covered: Vec<Field> = (bound.partitions[0].iter().flatten())
            .map(|&m| layout.field(task.mover(m).pos()))
            .collect();
        self.tables.retain(|(f, _)| !covered.contains(f));
        self.patterns = Some(p);
        true
    }

    /// A lower bound on the steps from `s` to a goal; `u32::MAX` if none.
    /// Exact up to `bound` (less than `u32::MAX`): past it, some value above
    /// `bound`, found without looking further (the caller drops the state).
    #[inline]
    pub fn of<W: Word>(&mut self, s: W, bound: u32) -> u32 {
        let mut h = 0u32;
        for (field, table) in &self.tables {
            let d = table[field.raw(s) as usize];
            if d == u32::MAX {
                return u32::MAX;
            }
            h = if self.sum { h + d } else { h.max(d) };
        }
        if let Some(p) = &self.patterns {
            let d = p.of(s, bound.saturating_sub(h));
            if d == u32::MAX {
                return u32::MAX;
            }
            h += d;
        }
        if !self.pushes.is_empty() {
            let mut p = 0u32;
            for (field, table) in &self.pushes {
                let d = table[field.raw(s) as usize];
                if d == u32::MAX {
                    return u32::MAX;
                }
                p += d;
            }
            h = h.max(p);
        }
        for f in &mut self.flags {
            if h > bound {
                break;
            }
            if f.field.raw(s) == f.want {
                continue;
            }
            let d = f
                .tables
                .iter_mut()
                .map(|t| t.get(s, bound))
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
    /// Distances to a set of padded cells (those where no mover may stand
    /// left out).
    fn new(open: &[u8], seeds: impl Iterator<Item = u32>) -> Self {
        // Open cells UNKNOWN (all ones), the others 0.
        let mut dist: Vec<u32> = open.iter().map(|&o| u32::from(o).wrapping_neg()).collect();
        // Each cell is queued once; one slot more for the branch-free write.
        let mut queue = vec![0u32; open.len() + 1];
        let mut tail = 0;
        // Seeds where a mover may stand, each once.
        for pc in seeds {
            if dist[pc as usize] == UNKNOWN {
                dist[pc as usize] = 0;
                queue[tail] = pc;
                tail += 1;
            }
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
    fn get(&mut self, pc: usize, bound: u32, deltas: &[isize]) -> u32 {
        if self.dist[pc] != UNKNOWN {
            return self.dist[pc];
        }
        self.search(pc, bound, deltas)
    }

    /// Every position's distance, searched to the end a level at a time,
    /// with the budget checked every few thousand cells or so; `None`
    /// when it stopped the search.
    fn all(mut self, padded: &[u32], deltas: &[isize], budget: &Budget) -> Option<Vec<u32>> {
        let mut pace = Pace::default();
        let mut level = 0;
        while self.search(usize::MAX, level, deltas) != u32::MAX {
            level += 1;
            if pace.due(self.head as u64) && budget.poll() {
                return None;
            }
        }
        Some(padded.iter().map(|&pc| self.dist[pc as usize]).collect())
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

/// The fewest steps (or least cost) found so far to each state: a flat
/// array when the layout is small, else a map.
pub(super) enum Best<W> {
    Dense(DenseG),
    Sparse(HashMap<W, u32>),
}

/// `g + 1` by packed state (0 is unseen), in an array kept between
/// searches on one thread: a file's cases are often many and small, and
/// setting back the entries a search wrote costs less than zeroing a new
/// array for each. The entries written are listed for that, up to an
/// eighth of the array; past it, the whole array is zeroed.
pub(super) struct DenseG {
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
    pub(super) fn new(bits: u32) -> Self {
        if bits <= DENSE_G_BITS {
            Best::Dense(DenseG::new(1 << bits))
        } else {
            Best::Sparse(HashMap::new())
        }
    }

    #[inline]
    pub(super) fn get(&self, s: W) -> Option<u32> {
        match self {
            Best::Dense(d) => d.g[s.low() as usize].checked_sub(1),
            Best::Sparse(h) => h.get(&s).copied(),
        }
    }

    /// The bytes the next record would allocate (a full map doubles), or
    /// 0.
    #[inline]
    pub(super) fn next_bytes(&self) -> u64 {
        match self {
            Best::Sparse(h) if h.len() == h.capacity() => {
                let entry = std::mem::size_of::<(W, u32)>() + 1;
                (h.capacity().max(4) * entry) as u64 * 2
            }
            _ => 0,
        }
    }

    /// Records `g` for `s`; false when the map may not grow (the budget
    /// has no room for its next size, or the system none to give): the
    /// search must then stop.
    #[inline]
    #[must_use]
    pub(super) fn set(&mut self, s: W, g: u32, budget: &Budget) -> bool {
        match self {
            Best::Dense(d) => d.set(s.low() as usize, g + 1),
            Best::Sparse(h) => {
                if h.len() == h.capacity() && !Self::grow(h, budget) {
                    return false;
                }
                h.insert(s, g);
            }
        }
        true
    }

    /// Grows a full map, which doubles it, within the budget.
    #[cold]
    #[inline(never)]
    fn grow(h: &mut HashMap<W, u32>, budget: &Budget) -> bool {
        // An entry and its control byte, twice as many as now.
        let entry = std::mem::size_of::<(W, u32)>() + 1;
        let more = (h.capacity().max(4) * entry) as u64 * 2;
        if !budget.reserve(more) {
            return false;
        }
        if h.try_reserve(h.capacity().max(1)).is_err() {
            budget.out_of_memory();
            return false;
        }
        true
    }
}

/// A* from the kernel's starts, to at most `limit` steps: states in
/// buckets by `f = g + h`, the best `g` of each state kept; a state is
/// expanded once, at its fewest steps. With `turn`, when its states come
/// near the memory limit it lets them go and goes on as IDA* from the
/// least `f` it had left: no way shorter than that is left to find (every
/// state of a lower `f` was expanded).
///
/// Where the plan has pattern tables for the bound, they are built once
/// the search has expanded [`Bound::patterns_after`] states, and the
/// search starts again with them (its counts go on).
pub fn astar<W: Word>(
    k: &Kernel<'_, W>,
    mut h: Heuristic<'_>,
    how: super::How,
    budget: &Budget,
    turn: Option<u64>,
) -> Solution {
    let mut out = Solution::default();
    loop {
        match once(k, &mut h, how, budget, turn, &mut out) {
            Ended::Done => return out,
            Ended::Stopped => return Solution::stopped(budget),
            Ended::Patterns if h.build_patterns(budget) => {}
            Ended::Patterns => return Solution::stopped(budget),
            // Every state of a lower f was expanded: no way is shorter.
            Ended::Turn(from) => {
                out.ida_from = Some(u64::from(from));
                return super::ida::ida(k, &mut h, how, budget, from, out);
            }
        }
    }
}

/// How one run of A* ended.
enum Ended {
    Done,
    Stopped,
    /// The pattern tables are due: the search starts again with them.
    Patterns,
    /// Near the memory limit: IDA* from this bound.
    Turn(u32),
}

/// A* from the starts, adding to the counts of `out`.
fn once<W: Word>(
    k: &Kernel<'_, W>,
    h: &mut Heuristic<'_>,
    how: super::How,
    budget: &Budget,
    turn: Option<u64>,
    out: &mut Solution,
) -> Ended {
    let after = turn.unwrap_or(u64::MAX);
    let turn = turn.is_some();
    let limit = how.limit.unwrap_or(u64::MAX);
    // What `h` may be and still lead to a goal within the limit after `g`
    // steps.
    let room = |g: u32| limit.saturating_sub(g as u64).min(u64::from(u32::MAX - 1)) as u32;
    let mut best = Best::new(k.layout().bits());
    // buckets[f] holds (g, state); the smallest non-empty f is expanded next.
    let Some(mut buckets) = seed(k, h, &mut best, budget, room(0), limit) else {
        return Ended::Stopped;
    };
    // States in the buckets (the open list), for the statistics.
    let mut open = buckets.iter().map(|b| b.len() as u64).sum::<u64>();
    out.visited += open;
    out.frontier = out.frontier.max(open);
    let mut f = 0;
    let mut succ = k.successors();
    let mut pace = crate::budget::Pace::default();
    let mut children = Vec::new();
    // With few successors a state, room for them all, once.
    let few = match how.checks {
        Checks::Blocks { fan_out, .. } => budget.grow(&mut children, fan_out),
        Checks::Successors => false,
    };
    while f < buckets.len() {
        let Some((g, s)) = buckets[f].pop() else {
            f += 1;
            continue;
        };
        open -= 1;
        if best.get(s).is_some_and(|b| b < g) {
            continue;
        }
        if k.is_goal(s) {
            out.cost = Some(g as u64);
            return Ended::Done;
        }
        if g as u64 >= limit {
            continue;
        }
        out.expanded += 1;
        out.depth = f as u64;
        if out.visited >= after {
            return Ended::Turn(f as u32);
        }
        if pace.due(out.expanded + out.visited) {
            if turn && near_limit(budget, 0) {
                return Ended::Turn(f as u32);
            }
            if h.patterns_due(out.expanded) {
                return Ended::Patterns;
            }
            budget.note_frontier(open as usize);
            if budget.check(out.visited, f as u64) {
                return Ended::Stopped;
            }
        }
        if few {
            children.clear();
            succ.each(s, |t| {
                children.push(t);
                true
            });
        } else {
            let mut sink = Sink::new(budget, &mut children, out.visited, f as u64);
            succ.each(s, |t| sink.push(t));
            if sink.stopped() {
                return Ended::Stopped;
            }
        }
        out.generated += children.len() as u64;
        for &t in &children {
            let gt = g + 1;
            let seen = best.get(t);
            if seen.is_some_and(|b| b <= gt) {
                continue;
            }
            let ht = h.of(t, room(gt));
            if ht == u32::MAX || (gt + ht) as u64 > limit {
                continue;
            }
            let ft = (gt + ht) as usize;
            if turn && growth_near_limit(budget, &best, buckets.get(ft)) {
                return Ended::Turn(f as u32);
            }
            if ft >= buckets.len() {
                buckets.resize(ft + 1, Vec::new());
            }
            if !best.set(t, gt, budget) || !budget.grow(&mut buckets[ft], 1) {
                return Ended::Stopped;
            }
            out.visited += u64::from(seen.is_none());
            buckets[ft].push((gt, t));
            open += 1;
            out.frontier = out.frontier.max(open);
        }
    }
    Ended::Done
}

/// The starts in their buckets by `f` (= `h`), each once, their `g` of 0
/// kept; `None` when the budget stopped it.
#[allow(clippy::type_complexity)]
fn seed<W: Word>(
    k: &Kernel<'_, W>,
    h: &mut Heuristic<'_>,
    best: &mut Best<W>,
    budget: &Budget,
    room: u32,
    limit: u64,
) -> Option<Vec<Vec<(u32, W)>>> {
    let mut buckets: Vec<Vec<(u32, W)>> = Vec::new();
    for &s in k.starts() {
        let h0 = h.of(s, room);
        if h0 == u32::MAX || h0 as u64 > limit || best.get(s).is_some() {
            continue;
        }
        if !best.set(s, 0, budget) {
            return None;
        }
        if buckets.len() <= h0 as usize {
            buckets.resize(h0 as usize + 1, Vec::new());
        }
        if !budget.grow(&mut buckets[h0 as usize], 1) {
            return None;
        }
        buckets[h0 as usize].push((0, s));
    }
    Some(buckets)
}

/// Whether what recording a state would allocate (the map of `g`s and the
/// bucket, when full, double) comes near the memory limit.
fn growth_near_limit<W: Word>(
    budget: &Budget,
    best: &Best<W>,
    bucket: Option<&Vec<(u32, W)>>,
) -> bool {
    let bucket = bucket.filter(|v| v.len() == v.capacity()).map_or(0, |v| {
        (v.capacity().max(4) * std::mem::size_of::<(u32, W)>()) as u64
    });
    let more = best.next_bytes() + bucket;
    more > 0 && near_limit(budget, more)
}

/// Whether `more` bytes, and a sixteenth of the memory limit besides, would
/// pass the limit (A* turns to IDA* before the limit stops it).
fn near_limit(budget: &Budget, more: u64) -> bool {
    let room = budget.limits().max_memory.map_or(0, |m| m / 16);
    !budget.fits(more.saturating_add(room))
}
