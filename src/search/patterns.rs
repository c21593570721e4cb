//! Additive pattern databases: for each group of movers the plan chose
//! ([`crate::plan::Bound::partitions`]), the fewest moves that the group alone
//! needs to reach the goal from each placement of its members, searched
//! once (breadth first, backwards from the goal's placements) and kept in
//! a table of a byte per placement.
//!
//! The abstract task of a group keeps its members' moves (a step of one
//! cell, in any of its directions, onto a cell where it may stand) and that
//! two members never share a cell; it drops every other mover and every
//! condition. Each move of the task is a move there (the plan checks that
//! a step moves one mover, by one cell, and that no two movers may share
//! a cell), so a group's table is a lower bound on the moves its members
//! still need, and as each step moves a member of one group only, the
//! tables add up to a lower bound on the steps to the goal. Each table
//! changes by at most one a step (it is a distance on a graph that has the
//! step as an edge): the sum is consistent. Where the plan made two
//! partitions of the same movers into groups, the bound is the larger
//! sum, consistent too.
//!
//! Tables depend only on the members' cells, moves and goal cells: the
//! cases of a file that share them (the same board and goal) share the
//! tables, kept in a small cache between cases.

use crate::budget::{Budget, Pace};
use crate::pack::{Field, Layout, Word};
use crate::task::{MoverId, Task};
use std::sync::{Arc, Mutex};

/// A placement no goal placement can be reached from.
const NONE: u8 = u8::MAX;
/// The largest distance a table holds: a longer one is kept as this (a
/// smaller bound, still a lower one, still changing by at most one a
/// step).
const MOST: u8 = NONE - 1;

/// A group's members, each with the grid cells the goal allows it.
pub type Members<'a> = Vec<(MoverId, &'a [u32])>;

/// One group's table, and how a state's placement indexes it.
struct Part {
    lookup: Lookup,
    table: Arc<[u8]>,
}

/// How a part's table is indexed by a state.
enum Lookup {
    /// Mixed radix: each member's position field with its term in the
    /// index at each position, then (free cells followed) the free cells'
    /// digits times the weight here.
    Terms(Vec<(Field, Vec<usize>)>, usize),
    /// Ranks ([`Ranking`]): each member's position field with its cell
    /// among the movers' cells at each position.
    Ranked(Vec<(Field, Vec<u8>)>, Ranking),
}

/// Where the tables follow the free cells: every mover's position field
/// with the bit of its cell among the movers' cells (at most 64).
struct Free {
    movers: Vec<(Field, Vec<u64>)>,
    /// The movers' cells, a bit each.
    all: u64,
    /// Whether a table takes the free cells as digits (else all rank them,
    /// and the digits may not fit in a word).
    digits: bool,
}

impl Free {
    /// The free cells of `task`'s movers' cells.
    fn new(task: &Task, layout: &Layout) -> Free {
        let units = crate::plan::mover_cells(task);
        let movers = (task.movers().iter())
            .map(|m| {
                let d = m.domain();
                let bit = |p: u32| 1u64 << units.binary_search(&d.cell(p)).expect("a cell");
                (
                    layout.field(m.pos()),
                    (0..d.len() as u32).map(bit).collect(),
                )
            })
            .collect();
        Free {
            movers,
            all: u64::MAX >> (64 - units.len()),
            digits: false,
        }
    }

    /// The free cells of `s`, a bit each.
    #[inline]
    fn cells<W: Word>(&self, s: W) -> u64 {
        let mut taken = 0u64;
        for (f, bits) in &self.movers {
            taken |= bits[f.raw(s) as usize];
        }
        self.all & !taken
    }

    /// The free cells `free` as digits of base the movers' cells, the
    /// least first.
    #[inline]
    fn digits(&self, mut free: u64) -> usize {
        let base = self.all.count_ones() as usize;
        let (mut x, mut weight) = (0, 1);
        while free != 0 {
            x += free.trailing_zeros() as usize * weight;
            weight *= base;
            free &= free - 1;
        }
        x
    }
}

/// The tables of the plan's groups: the sum of their values over a
/// partition is a lower bound on the steps to the goal, consistent, and
/// so is the largest such sum.
pub struct Patterns {
    /// Per partition, its groups' tables.
    parts: Vec<Vec<Part>>,
    free: Option<Free>,
}

impl Patterns {
    /// The tables of the groups of `partitions` (members with the grid
    /// cells the goal allows them), following `free` free cells (or none),
    /// from the cache or searched; `None` when the budget stopped the
    /// search or has no room for them (the caller does without).
    pub fn new(
        task: &Task,
        layout: &Layout,
        partitions: &[Vec<Members<'_>>],
        free: usize,
        budget: &Budget,
    ) -> Option<Patterns> {
        let mut parts = Vec::new();
        for groups in partitions {
            parts.push(Self::tables(task, layout, groups, free, budget)?);
        }
        let mut free = (free > 0).then(|| Free::new(task, layout));
        if let Some(f) = &mut free {
            f.digits = (parts.iter().flatten()).any(|p| matches!(p.lookup, Lookup::Terms(..)));
        }
        Some(Patterns { parts, free })
    }

    /// The tables of `groups`.
    fn tables(
        task: &Task,
        layout: &Layout,
        groups: &[Members<'_>],
        free: usize,
        budget: &Budget,
    ) -> Option<Vec<Part>> {
        let mut parts = Vec::new();
        for members in groups {
            let mut fields = Vec::new();
            for (m, _) in members {
                let f = layout.field(task.mover(*m).pos());
                let n = task.mover(*m).domain().len();
                // The table is indexed by the mover's positions.
                if f.lo != 0 || f.size != n as u64 {
                    return None;
                }
                fields.push(f);
            }
            let group = Group::new(task, members, free);
            let table = cached(&group, budget)?;
            if free == 0 {
                // The members' positions, in mixed radix.
                let weights = group.weights();
                let terms = (fields.iter().zip(&group.cells).zip(weights))
                    .map(|((&f, cells), w)| (f, (0..cells.len()).map(|p| p * w).collect()))
                    .collect();
                parts.push(Part {
                    lookup: Lookup::Terms(terms, 0),
                    table,
                });
                continue;
            }
            let r = group.ranking();
            let lookup = if r.dense {
                let units = (fields.iter().zip(&group.unit))
                    .map(|(&f, u)| (f, u.iter().map(|&c| c as u8).collect()))
                    .collect();
                Lookup::Ranked(units, r)
            } else {
                // The members' cells, in mixed radix.
                let terms = (fields.iter().zip(&group.unit).enumerate())
                    .map(|(i, (&f, u))| {
                        let w = r.weights[i];
                        (f, u.iter().map(|&c| c as usize * w).collect())
                    })
                    .collect();
                Lookup::Terms(terms, 1)
            };
            parts.push(Part { lookup, table });
        }
        Some(parts)
    }

    /// The free cells of `s` (a bit each) and their digits, where the
    /// tables follow them.
    #[inline]
    fn free_cells<W: Word>(&self, s: W) -> (u64, usize) {
        match &self.free {
            Some(f) => {
                let free = f.cells(s);
                (free, if f.digits { f.digits(free) } else { 0 })
            }
            None => (0, 0),
        }
    }

    /// The largest over the partitions of the sum of their tables' values
    /// at `s`; `u32::MAX` where a group cannot reach the goal. Exact up to
    /// `room`: past it, some value above it.
    #[inline]
    pub fn of<W: Word>(&self, s: W, room: u32) -> u32 {
        let free = self.free_cells(s);
        let mut most = 0;
        for parts in &self.parts {
            let mut h = 0;
            for p in parts {
                let d = p.table[p.index(s, free)];
                if d == NONE {
                    return u32::MAX;
                }
                h += u32::from(d);
            }
            most = most.max(h);
            // The next partition's sum is not needed.
            if most > room {
                break;
            }
        }
        most
    }
}

impl Part {
    /// The entry of state `s` in this part's table, given its free cells
    /// and their digits ([`Patterns::free_cells`]).
    #[inline]
    fn index<W: Word>(&self, s: W, (free, digits): (u64, usize)) -> usize {
        match &self.lookup {
            Lookup::Terms(terms, whole) => {
                let x: usize = terms.iter().map(|(f, t)| t[f.raw(s) as usize]).sum();
                x + digits * whole
            }
            Lookup::Ranked(units, r) => {
                let mut used = 0;
                let mut x = 0;
                for (j, (f, units)) in units.iter().enumerate() {
                    x += r.member(j, u32::from(units[f.raw(s) as usize]), &mut used);
                }
                x + r.free(used, free)
            }
        }
    }
}

/// A group's abstract task: per member, its grid cells by position, the
/// positions one move before each position, and the goal's positions;
/// with free cells followed, the cells movers stand on and what filling
/// one takes. Two groups with equal descriptions have equal tables.
#[derive(PartialEq, Eq, Clone)]
struct Group {
    cells: Vec<Vec<u32>>,
    /// `before[m][p]`: the positions from which one move of member `m`
    /// ends on position `p`.
    before: Vec<Vec<Vec<u32>>>,
    goals: Vec<Vec<u32>>,
    /// How many cells are free (0: the free cells are not followed, the
    /// other movers are left out).
    free: usize,
    /// With free cells: `unit[m][p]`, the index in the movers' cells
    /// ([`crate::plan::mover_cells`]) of member `m`'s position `p`.
    unit: Vec<Vec<u32>>,
    /// With free cells: for each of the movers' cells, those that a mover
    /// there (not a member) steps into in one move.
    fill: Vec<Vec<u32>>,
}

impl Group {
    fn new(task: &Task, group: &[(MoverId, &[u32])], free: usize) -> Group {
        let b = task.board();
        let mut out = Group {
            cells: Vec::new(),
            before: Vec::new(),
            goals: Vec::new(),
            free,
            unit: Vec::new(),
            fill: Vec::new(),
        };
        let units = if free > 0 {
            crate::plan::mover_cells(task)
        } else {
            Vec::new()
        };
        let unit_of = |c: u32| units.binary_search(&c).ok().map(|u| u as u32);
        for &(m, goal) in group {
            let d = task.mover(m).domain();
            let dirs = task.directions(m);
            let cells: Vec<u32> = (0..d.len() as u32).map(|p| d.cell(p)).collect();
            let before = cells
                .iter()
                .map(|&c| {
                    let mut ps: Vec<u32> = dirs
                        .iter()
                        .filter_map(|&dir| d.position_of(b.step(c, dir.opposite())?))
                        .collect();
                    ps.sort_unstable();
                    ps.dedup();
                    ps
                })
                .collect();
            out.goals
                .push(goal.iter().filter_map(|&c| d.position_of(c)).collect());
            if free > 0 {
                let unit = cells.iter().map(|&c| unit_of(c).expect("a mover's cell"));
                out.unit.push(unit.collect());
            }
            out.cells.push(cells);
            out.before.push(before);
        }
        if free > 0 {
            // The other movers' directions: any of them may fill a cell.
            let mut dirs = Vec::new();
            for m in (0..task.movers().len() as u32).map(MoverId) {
                if !group.iter().any(|(g, _)| *g == m) {
                    dirs.extend(task.directions(m));
                }
            }
            dirs.sort_unstable_by_key(|d| (d.dr, d.dc));
            dirs.dedup();
            out.fill = (units.iter())
                .map(|&c| {
                    let mut us: Vec<u32> = (dirs.iter())
                        .filter_map(|&dir| unit_of(b.step(c, dir)?))
                        .collect();
                    us.sort_unstable();
                    us.dedup();
                    us
                })
                .collect();
        }
        out
    }

    /// Placements of the members.
    fn entries(&self) -> usize {
        self.cells.iter().map(Vec::len).product()
    }

    /// Placements the search goes over: of the members, and of the free
    /// cells ([`Ranking`]).
    fn searched(&self) -> usize {
        if self.free == 0 {
            self.entries()
        } else {
            self.ranking().len()
        }
    }

    /// How the placements of the members and the free cells are indexed.
    fn ranking(&self) -> Ranking {
        Ranking::new(self.fill.len(), self.cells.len(), self.free)
    }

    /// The table: the fewest moves from each placement to one of the
    /// goal's; `None` when the budget stopped it. (Not the fewest over
    /// where the free cells are: that would be a lower bound still, but
    /// one that may fall by more than one a step, which A* cannot take.)
    fn table(&self, budget: &Budget) -> Option<Vec<u8>> {
        if self.free == 0 {
            self.search(budget)
        } else if self.regions_fit() {
            self.search_regions(budget)
        } else {
            self.search_free(budget)
        }
    }

    /// Whether the search by regions does this group's table: one free
    /// cell, fillers that step both ways, and the placements' digits
    /// (`u^(k + 1)` of them, a bit each) in at most the table's bytes and
    /// in 32 bits.
    fn regions_fit(&self) -> bool {
        let (u, k) = (self.fill.len() as u64, self.cells.len() as u32);
        let digits = u.checked_pow(k + 1).unwrap_or(u64::MAX);
        self.free == 1
            && self.fill_undirected()
            && digits <= u64::from(u32::MAX)
            && digits <= 8 * self.ranking().len() as u64
    }

    /// Whether every filler's step can be taken back (a cell's fillers
    /// step into it from each cell they step into from it): then the free
    /// cell's moves at no cost join cells into regions, not one way.
    fn fill_undirected(&self) -> bool {
        (self.fill.iter().enumerate()).all(|(a, bs)| {
            bs.iter()
                .all(|&b| self.fill[b as usize].contains(&(a as u32)))
        })
    }

    /// The members' weights in an index.
    fn weights(&self) -> Vec<usize> {
        let mut weights = vec![1usize; self.cells.len()];
        for i in 1..weights.len() {
            weights[i] = weights[i - 1] * self.cells[i - 1].len();
        }
        weights
    }

    /// Breadth first backwards from the goal's placements, the other
    /// movers left out.
    fn search(&self, budget: &Budget) -> Option<Vec<u8>> {
        let k = self.cells.len();
        let weights = self.weights();
        let mut dist = vec![NONE; self.entries()];
        let mut queue: Vec<u32> = Vec::new();
        self.seed(&weights, &mut |x| {
            if dist[x] == NONE {
                dist[x] = 0;
                queue.push(x as u32);
            }
        });
        let mut pos = vec![0u32; k];
        let mut pace = Pace::default();
        let mut head = 0;
        while head < queue.len() {
            let x = queue[head] as usize;
            head += 1;
            if pace.due(head as u64) && budget.poll() {
                return None;
            }
            let next = dist[x].saturating_add(1).min(MOST);
            self.decode(x, &mut pos);
            for i in 0..k {
                let here = pos[i] as usize;
                for &q in &self.before[i][here] {
                    let cell = self.cells[i][q as usize];
                    let taken = (0..k).any(|j| j != i && self.cells[j][pos[j] as usize] == cell);
                    if taken {
                        continue;
                    }
                    let y = x - here * weights[i] + q as usize * weights[i];
                    if dist[y] == NONE {
                        dist[y] = next;
                        queue.push(y as u32);
                    }
                }
            }
        }
        Some(dist)
    }

    /// The members' positions of index `x` (its low part).
    fn decode(&self, x: usize, pos: &mut [u32]) -> usize {
        let mut rest = x;
        for (i, p) in pos.iter_mut().enumerate() {
            *p = (rest % self.cells[i].len()) as u32;
            rest /= self.cells[i].len();
        }
        rest
    }

    /// Backwards from the goal's placements, with the free cells: a member
    /// moves into a free cell at a cost of one, another mover (a filler:
    /// which one is not kept) at no cost. Indexed by the placements' ranks
    /// ([`Ranking`]: the members' cells, then the free ones).
    fn search_free(&self, budget: &Budget) -> Option<Vec<u8>> {
        let k = self.cells.len();
        let u = self.fill.len();
        let ranking = self.ranking();
        let weights = self.weights();
        // Each member's position on each of the movers' cells.
        let at: Vec<Vec<u32>> = (self.unit.iter())
            .map(|units| {
                let mut at = vec![u32::MAX; u];
                for (p, &c) in units.iter().enumerate() {
                    at[c as usize] = p as u32;
                }
                at
            })
            .collect();
        let mut dist = vec![NONE; ranking.len()];
        let mut queue = std::collections::VecDeque::new();
        let mut cells = vec![0u32; k];
        let mut free = vec![0u32; self.free];
        let mut taken = vec![false; u];
        let mut pos = vec![0u32; k];
        self.seed(&weights, &mut |g| {
            self.decode(g, &mut pos);
            taken.fill(false);
            for i in 0..k {
                cells[i] = self.unit[i][pos[i] as usize];
                taken[cells[i] as usize] = true;
            }
            // Every set of free cells off the members'.
            combinations(u, self.free, &taken, &mut free, &mut |f| {
                let x = ranking.rank(&cells, f.iter().fold(0, |m, &c| m | 1 << c));
                if dist[x] == NONE {
                    dist[x] = 0;
                    queue.push_back(x as u32);
                }
            });
        });
        let mut pace = Pace::default();
        let mut done = 0u64;
        let mut edges: Vec<(usize, u8)> = Vec::new();
        while let Some(x) = queue.pop_front() {
            let x = x as usize;
            done += 1;
            if pace.due(done) && budget.poll() {
                return None;
            }
            let here = dist[x];
            let free = ranking.cells(x, &mut cells);
            edges.clear();
            self.free_edges(&ranking, &at, &cells, free, &mut edges);
            for &(y, cost) in &edges {
                let d = here.saturating_add(cost).min(MOST);
                if d < dist[y] {
                    dist[y] = d;
                    if cost == 0 {
                        queue.push_front(y as u32);
                    } else {
                        queue.push_back(y as u32);
                    }
                }
            }
        }
        Some(dist)
    }

    /// As [`Group::search_free`], for one free cell that fillers move
    /// about both ways ([`Group::fill_undirected`]): the free cell goes
    /// anywhere in its region (the cells off the members' that fillers
    /// join) at no cost, so the placements of the members and the free
    /// cell in one region are one distance. A breadth-first search over a
    /// placement and a region each, its cells written at once when it is
    /// first reached: each region is worked out once, not each of its
    /// cells searched (a sixteenth of the work on a 4 x 4 board).
    ///
    /// The search knows a placement by its digits (the free cell's, then
    /// each member's cell, of base the movers' cells), whatever the
    /// table's index: a move changes two digits, and the placements
    /// reached are a bit each, which a cache holds ([`Group::regions_fit`]).
    fn search_regions(&self, budget: &Budget) -> Option<Vec<u8>> {
        let k = self.cells.len();
        let u = self.fill.len();
        let ranking = self.ranking();
        let all = u64::MAX >> (64 - u);
        let joins: Vec<u64> = (self.fill.iter())
            .map(|bs| bs.iter().fold(0, |m, &b| m | 1 << b))
            .collect();
        // `came[i][c]`: the cells member `i` steps onto cell `c` from.
        let mut came = vec![vec![0u64; u]; k];
        for (i, came) in came.iter_mut().enumerate() {
            for (p, &c) in self.unit[i].iter().enumerate() {
                for &q in &self.before[i][p] {
                    came[c as usize] |= 1 << self.unit[i][q as usize];
                }
            }
        }
        // Member `i`'s digit weighs `u^(i + 1)`; the free cell's, 1.
        let digit: Vec<usize> = (1..=k as u32).map(|i| u.pow(i)).collect();
        let mut dist = vec![NONE; ranking.len()];
        let mut seen = vec![0u64; u.pow(k as u32 + 1).div_ceil(64)];
        let mut queue: Vec<u32> = Vec::new();
        // Members on `cells` (a bit each in `used`, their digits `base`)
        // and the free cell's region at distance `d`, where its cell
        // `free` was not reached before.
        let reach = |(dist, seen): (&mut [u8], &mut [u64]),
                     queue: &mut Vec<u32>,
                     (cells, used, base): (&[u32], u64, usize),
                     free: u32,
                     d: u8| {
            let x = base + free as usize;
            if seen[x / 64] & 1 << (x % 64) != 0 {
                return;
            }
            queue.push(x as u32);
            let members = ranking.members(cells).0;
            let mut region = region(&joins, free, all & !used);
            while region != 0 {
                let b = region.trailing_zeros();
                region &= region - 1;
                let y = base + b as usize;
                seen[y / 64] |= 1 << (y % 64);
                dist[members + ranking.free(used, 1 << b)] = d;
            }
        };
        let weights = self.weights();
        let mut pos = vec![0u32; k];
        let mut cells = vec![0u32; k];
        self.seed(&weights, &mut |g| {
            self.decode(g, &mut pos);
            let (mut used, mut base) = (0u64, 0);
            for i in 0..k {
                cells[i] = self.unit[i][pos[i] as usize];
                used |= 1 << cells[i];
                base += cells[i] as usize * digit[i];
            }
            let mut off = all & !used;
            while off != 0 {
                let free = off.trailing_zeros();
                off &= off - 1;
                reach(
                    (&mut dist, &mut seen),
                    &mut queue,
                    (&cells, used, base),
                    free,
                    0,
                );
            }
        });
        let mut pace = Pace::default();
        let (mut head, mut level, mut next) = (0, queue.len(), 1u8);
        while head < queue.len() {
            if head == level {
                (level, next) = (queue.len(), next.saturating_add(1).min(MOST));
            }
            let x = queue[head] as usize;
            head += 1;
            if pace.due(head as u64) && budget.poll() {
                return None;
            }
            let free = (x % u) as u32;
            let base = x - free as usize;
            let mut used = 0;
            for i in 0..k {
                cells[i] = (x / digit[i] % u) as u32;
                used |= 1 << cells[i];
            }
            let here = region(&joins, free, all & !used);
            // A member came onto its cell from one in the free cell's
            // region, which was free then, and its cell the free one.
            for i in 0..k {
                let c = cells[i];
                let mut from = here & came[i][c as usize];
                while from != 0 {
                    let a = from.trailing_zeros();
                    from &= from - 1;
                    cells[i] = a;
                    let moved = (base + a as usize * digit[i]) - c as usize * digit[i];
                    let before = (&cells[..], used & !(1 << c) | 1 << a, moved);
                    reach((&mut dist, &mut seen), &mut queue, before, c, next);
                }
                cells[i] = c;
            }
        }
        Some(dist)
    }

    /// The placements one move before the members on `cells` and the free
    /// cells `free` (`at`: each member's position on each cell), by rank,
    /// with the move's cost: a member's from a free cell (1), a filler's
    /// from a free cell into a filled one (0).
    fn free_edges(
        &self,
        ranking: &Ranking,
        at: &[Vec<u32>],
        cells: &[u32],
        free: u64,
        out: &mut Vec<(usize, u8)>,
    ) {
        let mut moved = cells.to_vec();
        for (i, &c) in cells.iter().enumerate() {
            let here = at[i][c as usize] as usize;
            for &q in &self.before[i][here] {
                let from = self.unit[i][q as usize];
                if free & 1 << from == 0 {
                    continue;
                }
                moved[i] = from;
                out.push((ranking.rank(&moved, free & !(1 << from) | 1 << c), 1));
                moved[i] = c;
            }
        }
        let (members, used) = ranking.members(cells);
        let mut left = free;
        while left != 0 {
            let a = left.trailing_zeros();
            left &= left - 1;
            for &b in &self.fill[a as usize] {
                if (used | free) & 1 << b != 0 {
                    continue;
                }
                let filled = free & !(1 << a) | 1 << b;
                out.push((members + ranking.free(used, filled), 0));
            }
        }
    }

    /// Every placement of the members on goal positions, no two on one
    /// cell, by its index.
    fn seed(&self, weights: &[usize], put: &mut dyn FnMut(usize)) {
        let k = self.cells.len();
        let mut pick = vec![0usize; k];
        if self.goals.iter().any(Vec::is_empty) {
            return;
        }
        // An odometer over the members' goal positions.
        loop {
            let cells: Vec<u32> = (0..k)
                .map(|i| self.cells[i][self.goals[i][pick[i]] as usize])
                .collect();
            let apart = (0..k).all(|i| (0..i).all(|j| cells[i] != cells[j]));
            if apart {
                put((0..k)
                    .map(|i| self.goals[i][pick[i]] as usize * weights[i])
                    .sum());
            }
            let mut i = 0;
            while i < k {
                pick[i] += 1;
                if pick[i] < self.goals[i].len() {
                    break;
                }
                pick[i] = 0;
                i += 1;
            }
            if i == k {
                return;
            }
        }
    }
}

/// Indices of placements on the movers' cells (`u` of them, at most 64):
/// `k` distinct cells in order (the members'), then `f` more off those in
/// increasing order (the free cells'). Dense, they are ranks, `0..len()`
/// (a k-permutation's, then a combination's): a table holds one entry a
/// placement. Else each cell is a digit of base `u` (a mixed radix: quicker
/// to compute, with entries for tuples of cells that are no placement).
///
/// The free cells' part is the low part of an index, the members' the
/// high: a step that moves no member (in a search, most steps move
/// another group's mover) moves only the free cells, and its entry is a
/// few bytes from the one before, in the cache line just read.
struct Ranking {
    u: usize,
    k: usize,
    dense: bool,
    /// The weights of the members' digits, times `frees`: dense, `u (u -
    /// 1) ... (u - i + 1)`; else `u^i`.
    weights: Vec<usize>,
    /// The values of the free cells' part (the members' weight).
    frees: usize,
    /// Dense, `choose[j][c]`: C(c, j + 1), for the free cells' digits.
    choose: Vec<Vec<usize>>,
    f: usize,
}

impl Ranking {
    /// The indices the plan chose ([`crate::plan::pattern_dense`]).
    fn new(u: usize, k: usize, f: usize) -> Ranking {
        assert!(u <= 64 && k + f <= u, "{k} + {f} cells of {u}");
        let dense = crate::plan::pattern_dense(u, k, f);
        let frees = if dense {
            crate::plan::binomial(u - k, f) as usize
        } else {
            (0..f).fold(1usize, |x, _| x.saturating_mul(u))
        };
        let mut weights = Vec::with_capacity(k);
        let mut perms = frees;
        for i in 0..k {
            weights.push(perms);
            perms = perms.saturating_mul(if dense { u - i } else { u });
        }
        let choose = if dense {
            (1..=f)
                .map(|r| {
                    (0..=u)
                        .map(|c| crate::plan::binomial(c, r) as usize)
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        Ranking {
            u,
            k,
            dense,
            weights,
            frees,
            choose,
            f,
        }
    }

    /// How many indices there are.
    fn len(&self) -> usize {
        usize::try_from(crate::plan::placements(self.u, self.k, self.f)).unwrap_or(usize::MAX)
    }

    /// Member `i`'s digit for cell `a`, the members before it on `used`
    /// (which takes `a` too).
    #[inline]
    fn member(&self, i: usize, a: u32, used: &mut u64) -> usize {
        let below = (1u64 << a) - 1;
        let d = if self.dense {
            a - (*used & below).count_ones()
        } else {
            a
        };
        *used |= 1 << a;
        d as usize * self.weights[i]
    }

    /// The free cells' part of the index: `free` the free cells, `used`
    /// the members'.
    #[inline]
    fn free(&self, used: u64, mut free: u64) -> usize {
        let mut r = 0;
        if !self.dense {
            let mut weight = 1;
            while free != 0 {
                r += free.trailing_zeros() as usize * weight;
                weight *= self.u;
                free &= free - 1;
            }
            return r;
        }
        for choose in &self.choose {
            let b = free.trailing_zeros();
            free &= free - 1;
            let c = b - (used & ((1u64 << b) - 1)).count_ones();
            r += choose[c as usize];
        }
        r
    }

    /// The members' part of the rank of members on cells `a`, and those
    /// cells, a bit each.
    fn members(&self, a: &[u32]) -> (usize, u64) {
        let mut used = 0;
        let x = (a.iter().enumerate())
            .map(|(i, &c)| self.member(i, c, &mut used))
            .sum();
        (x, used)
    }

    /// The rank of members on cells `a` and free cells `free` (a set).
    fn rank(&self, a: &[u32], free: u64) -> usize {
        let (x, used) = self.members(a);
        x + self.free(used, free)
    }

    /// The members' cells and the free cells (a set) of index `x`.
    fn cells(&self, x: usize, a: &mut [u32]) -> u64 {
        let (mut m, mut r) = (x / self.frees, x % self.frees);
        if !self.dense {
            for c in a.iter_mut() {
                *c = (m % self.u) as u32;
                m /= self.u;
            }
            let mut free = 0u64;
            for _ in 0..self.f {
                free |= 1 << (r % self.u);
                r /= self.u;
            }
            return free;
        }
        let mut used = 0u64;
        for (i, c) in a.iter_mut().enumerate() {
            let base = self.u - i;
            *c = nth_off(used, m % base);
            m /= base;
            used |= 1 << *c;
        }
        // The combinatorial number system, from the largest digit.
        let mut free = 0u64;
        for (j, choose) in self.choose.iter().enumerate().rev() {
            let mut c = j;
            while c < self.u && choose[c + 1] <= r {
                c += 1;
            }
            r -= choose[c];
            free |= 1 << nth_off(used, c);
        }
        free
    }
}

/// The cells of `open` joined to `free` (which is one of them) by
/// `joins` (each cell's neighbours, a bit each), a bit each.
fn region(joins: &[u64], free: u32, open: u64) -> u64 {
    let mut seen = 1u64 << free;
    let mut edge = seen;
    while edge != 0 {
        let mut next = 0;
        while edge != 0 {
            next |= joins[edge.trailing_zeros() as usize];
            edge &= edge - 1;
        }
        edge = next & open & !seen;
        seen |= edge;
    }
    seen
}

/// The `n`th cell (from 0) not in `used`.
fn nth_off(used: u64, n: usize) -> u32 {
    let mut off = !used;
    for _ in 0..n {
        off &= off - 1;
    }
    off.trailing_zeros()
}

/// Calls `f` with each increasing choice of `out.len()` of `0..u` not
/// `taken`.
fn combinations(u: usize, n: usize, taken: &[bool], out: &mut [u32], f: &mut dyn FnMut(&[u32])) {
    fn go(
        from: usize,
        at: usize,
        u: usize,
        taken: &[bool],
        out: &mut [u32],
        f: &mut dyn FnMut(&[u32]),
    ) {
        if at == out.len() {
            f(out);
            return;
        }
        for c in from..u {
            if !taken[c] {
                out[at] = c as u32;
                go(c + 1, at + 1, u, taken, out, f);
            }
        }
    }
    debug_assert_eq!(n, out.len());
    go(0, 0, u, taken, out, f);
}

/// Tables searched before, with the groups they are of, the latest used
/// last: the cases of a file usually share their board and goal. Beyond
/// [`KEPT`], the least recently used table that no search holds is let go
/// (never one that a case is using, so a plan of more tables than that
/// does not search its tables again for every case).
static CACHE: Mutex<Vec<(Group, Arc<[u8]>)>> = Mutex::new(Vec::new());
const KEPT: usize = 8;

/// The group's table from the cache, else searched (the cache locked the
/// while: another case wanting it waits for it rather than searching it
/// again) and kept; `None` when the budget has no room for it or stopped
/// the search.
fn cached(group: &Group, budget: &Budget) -> Option<Arc<[u8]>> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = cache.iter().position(|(g, _)| g == group) {
        let hit = cache.remove(i);
        let table = hit.1.clone();
        cache.push(hit);
        return Some(table);
    }
    // The search's placements, a byte each, and its queue, four bytes a
    // placement, at most; by regions, the placements reached too, in at
    // most a byte each (`Group::regions_fit`).
    let bytes = group.searched() as u64 * 6;
    if !budget.fits(bytes) {
        return None;
    }
    let table: Arc<[u8]> = group.table(budget)?.into();
    if cache.len() >= KEPT {
        // Held only here: no case is using it.
        if let Some(i) = cache.iter().position(|(_, t)| Arc::strong_count(t) == 1) {
            cache.remove(i);
        }
    }
    cache.push((group.clone(), table.clone()));
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mover alone on a path of `n` cells, its goal the first.
    fn path(n: u32) -> Group {
        let before = (0..n)
            .map(|p| [p.checked_sub(1), Some(p + 1).filter(|&q| q < n)])
            .map(|qs| qs.into_iter().flatten().collect())
            .collect();
        Group {
            cells: vec![(0..n).collect()],
            before: vec![before],
            goals: vec![vec![0]],
            free: 0,
            unit: Vec::new(),
            fill: Vec::new(),
        }
    }

    /// A group on a random board of at most 4 x 4 cells, some of them
    /// holes: members with random directions and goal cells, the others
    /// filling with all four, one cell free.
    fn random_group(rng: &mut impl rand::Rng) -> Group {
        let (h, w) = (rng.gen_range(2..=4i32), rng.gen_range(2..=4i32));
        let mut on: Vec<(i32, i32)> = Vec::new();
        for r in 0..h {
            for c in 0..w {
                if rng.gen_bool(0.85) {
                    on.push((r, c));
                }
            }
        }
        while on.len() < 3 {
            on.push((h, on.len() as i32));
        }
        let at = |rc: (i32, i32)| on.iter().position(|&x| x == rc).map(|u| u as u32);
        let dirs = [(-1, 0), (0, 1), (1, 0), (0, -1)];
        let step =
            |u: u32, (dr, dc): (i32, i32)| at((on[u as usize].0 + dr, on[u as usize].1 + dc));
        let u = on.len() as u32;
        let fill = (0..u)
            .map(|a| dirs.iter().filter_map(|&d| step(a, d)).collect())
            .collect();
        let k = rng.gen_range(1..=(u as usize - 2).min(3));
        let mut g = Group {
            cells: Vec::new(),
            before: Vec::new(),
            goals: Vec::new(),
            free: 1,
            unit: Vec::new(),
            fill,
        };
        for _ in 0..k {
            let mine: Vec<(i32, i32)> =
                dirs.iter().copied().filter(|_| rng.gen_bool(0.7)).collect();
            let before = (0..u)
                .map(|p| {
                    let mut qs: Vec<u32> = (mine.iter())
                        .filter_map(|&(dr, dc)| step(p, (-dr, -dc)))
                        .collect();
                    qs.sort_unstable();
                    qs
                })
                .collect();
            g.cells.push((0..u).collect());
            g.unit.push((0..u).collect());
            g.before.push(before);
            g.goals.push(
                (0..rng.gen_range(1..=2))
                    .map(|_| rng.gen_range(0..u))
                    .collect(),
            );
        }
        g
    }

    /// The search by regions gives every placement the distance the
    /// search of each free cell does, unreached ones too, on random
    /// boards with holes (regions apart) and members that move some ways
    /// only.
    #[test]
    fn regions_match_the_search_of_each_free_cell() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(15);
        let budget = Budget::unlimited();
        let mut moved = 0;
        for round in 0..300 {
            let g = random_group(&mut rng);
            assert!(g.regions_fit());
            let by_cell = g.search_free(&budget).expect("a table");
            let by_region = g.search_regions(&budget).expect("a table");
            assert!(by_cell == by_region, "round {round}: tables differ");
            moved += usize::from(by_cell.iter().any(|&d| d > 1 && d != NONE));
        }
        assert!(moved > 150, "{moved} of 300 tables with a distance over 1");
    }

    /// A plan of more tables than the cache keeps still finds them all
    /// there for its next case: a table in use is not let go.
    #[test]
    fn tables_in_use_stay_cached() {
        let budget = Budget::unlimited();
        let groups: Vec<Group> = (0..KEPT as u32 + 4).map(|i| path(1000 + i)).collect();
        let held: Vec<Arc<[u8]>> = (groups.iter())
            .map(|g| cached(g, &budget).expect("a table"))
            .collect();
        assert_eq!(held[3][7], 7, "the distances along the path");
        for (g, t) in groups.iter().zip(&held) {
            let again = cached(g, &budget).expect("a table");
            assert!(Arc::ptr_eq(t, &again), "searched again");
        }
        // Once no case holds them, the cache goes back to its size.
        drop(held);
        cached(&path(999), &budget).expect("a table");
        let cache = CACHE.lock().unwrap();
        let ours = cache.iter().filter(|(g, _)| groups.contains(g)).count();
        assert!(ours < groups.len(), "{ours} kept");
    }
}
