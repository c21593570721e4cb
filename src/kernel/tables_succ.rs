//! The table kernels: every state one step away, from the model's flat
//! tables, without allocating. Which loop runs is the plan's choice
//! ([`KernelKind`]), made once per case.

use super::tables::{Model, NONE, Reach, Step};
use super::{Moved, RowSink};
use crate::kernel::KernelKind;
use crate::pack::Word;
use crate::task::{MAX_AT_ONCE, Mode};

/// Generates the successors of a state, reusing its buffers.
pub struct Tables<'m, 't, W> {
    m: &'m Model<'t, W>,
    /// Per mover: old position, old cell (all movers, for `in turn`).
    old_pos: Vec<u32>,
    old_cell: Vec<u32>,
    /// In turn, with `forbid same cell`: one bit per grid cell, set where
    /// a mover stands while a state is expanded, so a move checks one bit
    /// rather than every other mover.
    occupied: Vec<u64>,
    /// In turn, with the bitmap of occupied cells one word: per mover and
    /// position, the cells its moves from there enter (all ones where one
    /// of them stays), so that a mover hemmed in is passed over with one
    /// test (on a crowded board, most are: fifteen pieces, one free cell).
    reach: Vec<Vec<u64>>,
    /// At once: the same, and the new position and cell chosen so far, in
    /// fixed arrays so the product loop stays in registers and the stack.
    at: [u32; MAX_AT_ONCE],
    at_cell: [u32; MAX_AT_ONCE],
    new_pos: [u32; MAX_AT_ONCE],
    new_cell: [u32; MAX_AT_ONCE],
    /// Two or three movers at once with no conditions or effects: the
    /// unrolled kernels [`Self::two`] and [`Self::three`] apply.
    small: bool,
    /// One mover in turn (its effects then depend on its position alone):
    /// [`Self::lone`] applies.
    lone: bool,
    /// Per level, the cells its mover may not end on, and how many.
    forbid: [[u32; 2 * MAX_AT_ONCE]; MAX_AT_ONCE],
    nf: [usize; MAX_AT_ONCE],
    /// The odometer: per level, the next and the end index into the
    /// mover's moves, and the state with the levels below placed.
    idx: [u32; MAX_AT_ONCE],
    end: [u32; MAX_AT_ONCE],
    base: [W; MAX_AT_ONCE],
}

impl<'m, 't, W: Word> Tables<'m, 't, W> {
    pub fn new(m: &'m Model<'t, W>) -> Self {
        let n = m.movers.len();
        assert!(
            m.mode == Mode::InTurn || n <= MAX_AT_ONCE,
            "compile rejects more simultaneous movers than MAX_AT_ONCE"
        );
        Tables {
            small: matches!(m.kind, KernelKind::Nested(_) | KernelKind::Rows { .. })
                && m.mode == Mode::AtOnce,
            lone: m.kind == KernelKind::Lone,
            m,
            old_pos: vec![0; n],
            old_cell: vec![0; n],
            occupied: if m.mode == Mode::InTurn && m.forbid_same_cell && n > 1 {
                vec![0; (m.rows * m.cols).div_ceil(64)]
            } else {
                Vec::new()
            },
            reach: entered_cells(m),
            at: [0; MAX_AT_ONCE],
            at_cell: [0; MAX_AT_ONCE],
            new_pos: [0; MAX_AT_ONCE],
            new_cell: [0; MAX_AT_ONCE],
            forbid: [[0; 2 * MAX_AT_ONCE]; MAX_AT_ONCE],
            nf: [0; MAX_AT_ONCE],
            idx: [0; MAX_AT_ONCE],
            end: [0; MAX_AT_ONCE],
            base: [W::ZERO; MAX_AT_ONCE],
        }
    }

    /// Calls `f` on every successor of `s` (duplicates possible); stops early
    /// when `f` returns false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        match m.mode {
            Mode::InTurn if self.lone => self.lone(s, &mut f),
            Mode::InTurn => {
                self.occupy(s);
                self.in_turn(s, &mut f);
                self.vacate();
            }
            Mode::Together => {
                unreachable!("the plan gives agents that move together the interpreter")
            }
            Mode::AtOnce if m.movers.is_empty() => {}
            Mode::AtOnce if self.small => match m.movers.len() {
                2 => self.two(s, &mut f),
                _ => self.three(s, &mut f),
            },
            Mode::AtOnce => {
                for (i, mv) in m.movers.iter().enumerate() {
                    let p = mv.pos(s);
                    self.at[i] = p;
                    self.at_cell[i] = mv.cells[p as usize];
                }
                if m.has_effects {
                    self.at_once::<true>(s, &mut f);
                } else {
                    self.at_once::<false>(s, &mut f);
                }
            }
        }
    }

    /// The cells the second mover may not end on, given the first's move
    /// from `c0` to `a` and its own cell `c1` (as in [`Self::forbid_for`]);
    /// `u32::MAX` where the constraint is off.
    #[inline(always)]
    fn pair_forbids((same, swap): (bool, bool), a: u32, c0: u32, c1: u32) -> [u32; 2] {
        [
            if same { a } else { u32::MAX },
            if swap & (a == c1) & (c0 != c1) {
                c0
            } else {
                u32::MAX
            },
        ]
    }

    /// Two movers at once, no conditions, no effects: two nested loops.
    fn two(&mut self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        let (m0, m1) = (&m.movers[0], &m.movers[1]);
        debug_assert_eq!(m1.offset, 0, "the last mover has the lowest bits");
        let (p0, p1) = (m0.pos(s) as usize, m1.pos(s) as usize);
        let (c0, c1) = (m0.cells[p0], m1.cells[p1]);
        let base = s & !(m0.field() | m1.field());
        let rules = (m.forbid_same_cell, m.forbid_swap);
        for a in m0.moves(p0) {
            let t0 = base | m0.bits(a.pos);
            let [f0, f1] = Self::pair_forbids(rules, a.cell, c0, c1);
            for b in m1.moves(p1) {
                if (b.cell == f0) | (b.cell == f1) {
                    continue;
                }
                // The last mover's field is the lowest: no shift.
                if !f(t0 | W::from_u64(b.pos as u64)) {
                    return;
                }
            }
        }
    }

    /// Three movers at once, no conditions, no effects: three nested loops,
    /// each mover's forbidden cells held in locals.
    fn three(&mut self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        let (m0, m1, m2) = (&m.movers[0], &m.movers[1], &m.movers[2]);
        debug_assert_eq!(m2.offset, 0, "the last mover has the lowest bits");
        let (p0, p1, p2) = (m0.pos(s) as usize, m1.pos(s) as usize, m2.pos(s) as usize);
        let (c0, c1, c2) = (m0.cells[p0], m1.cells[p1], m2.cells[p2]);
        let base = s & !(m0.field() | m1.field() | m2.field());
        let rules = (m.forbid_same_cell, m.forbid_swap);
        for a in m0.moves(p0) {
            let t0 = base | m0.bits(a.pos);
            let [f0, f1] = Self::pair_forbids(rules, a.cell, c0, c1);
            let [g0, g1] = Self::pair_forbids(rules, a.cell, c0, c2);
            for b in m1.moves(p1) {
                if (b.cell == f0) | (b.cell == f1) {
                    continue;
                }
                let t1 = t0 | m1.bits(b.pos);
                let [h0, h1] = Self::pair_forbids(rules, b.cell, c1, c2);
                for c in m2.moves(p2) {
                    let x = c.cell;
                    // Bitwise, not short-circuit: no branch per comparison.
                    if (x == g0) | (x == g1) | (x == h0) | (x == h1) {
                        continue;
                    }
                    // The last mover's field is the lowest: no shift.
                    if !f(t1 | W::from_u64(c.pos as u64)) {
                        return;
                    }
                }
            }
        }
    }

    /// In turn: notes where the movers of `s` stand, in `old_pos`,
    /// `old_cell` and the bitmap of occupied cells.
    #[inline(always)]
    fn occupy(&mut self, s: W) {
        for (i, mv) in self.m.movers.iter().enumerate() {
            let p = mv.pos(s);
            self.old_pos[i] = p;
            self.old_cell[i] = mv.cells[p as usize];
        }
        if !self.occupied.is_empty() {
            for &c in &self.old_cell {
                self.occupied[c as usize / 64] |= 1 << (c % 64);
            }
        }
    }

    /// Clears the bitmap of occupied cells after [`Self::occupy`].
    #[inline(always)]
    fn vacate(&mut self) {
        if !self.occupied.is_empty() {
            for &c in &self.old_cell {
                self.occupied[c as usize / 64] &= !(1 << (c % 64));
            }
        }
    }

    /// Whether a mover in turn may not step onto grid cell `c` (after
    /// [`Self::occupy`]). A mover's own cell is marked too, but in turn no
    /// move stays.
    #[inline(always)]
    fn taken(&self, c: u32) -> bool {
        let c = c as usize;
        !self.occupied.is_empty() && self.occupied[c / 64] >> (c % 64) & 1 == 1
    }

    /// The words of the last mover's masks when [`Self::rows`] applies
    /// (the model has a `Reach`), else 0.
    pub fn row_words(&self) -> usize {
        self.m.reach.as_ref().map_or(0, |r| r.words)
    }

    /// The successors of `s` in rows, for a model with a
    /// `Reach` of `R` words: for each allowed choice of the moves of the
    /// movers before the last, `row(base, mask)`, where `base` is that
    /// choice with the last mover's field zero and `mask` holds the
    /// positions the last mover may then take (bit `p % 64` of word
    /// `p / 64`), maybe none. Stops early when `row` returns false.
    #[inline(always)]
    pub fn rows<const R: usize>(&mut self, s: W, mut row: impl FnMut(W, [u64; R]) -> bool) {
        let m = self.m;
        let reach = m.reach.as_ref().expect("rows need the model's Reach");
        debug_assert_eq!(reach.words, R);
        if m.mode == Mode::InTurn {
            self.occupy(s);
            self.rows_in_turn(s, reach, &mut row);
            self.vacate();
            return;
        }
        let (last, first, mid) = (&m.movers[m.movers.len() - 1], &m.movers[0], &m.movers[1]);
        let pl = last.pos(s);
        let (p0, cl) = (first.pos(s), last.cells[pl as usize]);
        let c0 = first.cells[p0 as usize];
        let own = Reach::at::<R>(&reach.moves, pl);
        let base = s & !m.movers.iter().fold(W::ZERO, |f, mv| f | mv.field());
        let same = if m.forbid_same_cell { !0 } else { 0 };
        // Where the last mover may not go once another mover (whose cell
        // table is `under`) has moved to `st`: onto its new cell, nor, if it
        // took the last mover's cell and `swaps`, back into its old one
        // (`back`).
        let narrow = |mask: [u64; R], under: &[u64], back: [u64; R], swaps: bool, st: Step| {
            let onto = Reach::at::<R>(under, st.pos);
            let took = if swaps & (st.cell == cl) { !0 } else { 0 };
            std::array::from_fn(|r| mask[r] & !(onto[r] & same) & !(back[r] & took))
        };
        // The tables in locals: the successor callback's stores could
        // otherwise make them be reloaded for every row.
        let (under0, under1) = (
            &reach.under[0][..],
            reach.under.get(1).map_or(&[][..], |u| u),
        );
        let back0 = Reach::at::<R>(under0, p0);
        let swaps0 = m.forbid_swap & (c0 != cl);
        if m.movers.len() == 2 {
            for &a in first.moves(p0 as usize) {
                if !row(
                    base | first.bits(a.pos),
                    narrow(own, under0, back0, swaps0, a),
                ) {
                    return;
                }
            }
            return;
        }
        let p1 = mid.pos(s);
        let c1 = mid.cells[p1 as usize];
        let back1 = Reach::at::<R>(under1, p1);
        let swaps1 = m.forbid_swap & (c1 != cl);
        let rules = (m.forbid_same_cell, m.forbid_swap);
        for &a in first.moves(p0 as usize) {
            let t0 = base | first.bits(a.pos);
            let own_a = narrow(own, under0, back0, swaps0, a);
            let [f0, f1] = Self::pair_forbids(rules, a.cell, c0, c1);
            for &b in mid.moves(p1 as usize) {
                if (b.cell == f0) | (b.cell == f1) {
                    continue;
                }
                if !row(
                    t0 | mid.bits(b.pos),
                    narrow(own_a, under1, back1, swaps1, b),
                ) {
                    return;
                }
            }
        }
    }

    /// [`Self::rows`] for movers in turn: each move of a mover but the
    /// last is a row of one state (the last mover where it stands); the
    /// last mover's moves are one row, less the cells the others stand on.
    #[inline(always)]
    fn rows_in_turn<const R: usize>(
        &self,
        s: W,
        reach: &Reach,
        row: &mut impl FnMut(W, [u64; R]) -> bool,
    ) {
        let m = self.m;
        let (last, others) = m.movers.split_last().expect("Reach needs two movers");
        let pl = last.pos(s);
        let mut here = [0; R];
        here[pl as usize / 64] = 1 << (pl % 64);
        let base = s & !last.field();
        for (i, mv) in others.iter().enumerate() {
            let cleared = base & !mv.field();
            for st in mv.moves(self.old_pos[i] as usize) {
                if !self.taken(st.cell) && !row(cleared | mv.bits(st.pos), here) {
                    return;
                }
            }
        }
        let mut mask = Reach::at::<R>(&reach.moves, pl);
        if m.forbid_same_cell {
            for (under, &p) in reach.under.iter().zip(&self.old_pos) {
                let there = Reach::at::<R>(under, p);
                mask = std::array::from_fn(|r| mask[r] & !there[r]);
            }
        }
        row(base, mask);
    }

    /// The successors of every state `base | p`, `p` a bit of `mask` (a
    /// row of states that differ only in the last mover's position), as
    /// rows: their union is the union of [`Self::rows`] over the row's
    /// states. Returns how many successors that is state by state (a
    /// successor per state and move, as the other engines count them).
    ///
    /// In turn, the row is expanded at once: a move of another mover is
    /// the same for every state of the row but the one whose last mover
    /// stands where it goes (one row out, `mask` less that bit), and the
    /// last mover's moves from all of them are one row. At once, each
    /// state of the row is expanded on its own. `row` is told which one
    /// field a successor row's base changed from `base`, when one did.
    #[inline(always)]
    pub fn rows_of<const R: usize>(
        &mut self,
        base: W,
        mask: [u64; R],
        sink: &mut impl RowSink<W, R>,
    ) -> u64 {
        let m = self.m;
        let reach = m.reach.as_ref().expect("rows need the model's Reach");
        let ones = |x: [u64; R]| x.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        if m.mode != Mode::InTurn {
            let mut count = 0;
            for (r, &word) in mask.iter().enumerate() {
                let mut w = word;
                while w != 0 {
                    let p = 64 * r as u64 + u64::from(w.trailing_zeros());
                    w &= w - 1;
                    self.rows::<R>(base | W::from_u64(p), |b, out| {
                        count += ones(out);
                        sink.row(b, None, out);
                        true
                    });
                }
            }
            return count;
        }
        let (last, others) = m.movers.split_last().expect("Reach needs two movers");
        debug_assert!(
            (base & last.field()) == W::ZERO,
            "a row's base has no last mover"
        );
        // Where the others stand (not the last mover: it stands at every
        // bit of the row).
        for (i, mv) in others.iter().enumerate() {
            let p = mv.pos(base);
            self.old_pos[i] = p;
            self.old_cell[i] = mv.cells[p as usize];
            if !self.occupied.is_empty() {
                let c = self.old_cell[i] as usize;
                self.occupied[c / 64] |= 1 << (c % 64);
            }
        }
        let same = !self.occupied.is_empty();
        let mut count = 0;
        // Counted once a row: a move of another mover is a successor of
        // every state of the row but the one it would step onto.
        let states = ones(mask);
        for (i, mv) in others.iter().enumerate() {
            let cleared = base & !mv.field();
            for st in mv.moves(self.old_pos[i] as usize) {
                if self.taken(st.cell) {
                    continue;
                }
                let mut out = mask;
                let mut n = states;
                if same {
                    // The state whose last mover stands there may not.
                    let there = Reach::at::<R>(&reach.under[i], st.pos);
                    if (0..R).any(|r| out[r] & there[r] != 0) {
                        n -= 1;
                        out = std::array::from_fn(|r| out[r] & !there[r]);
                    }
                }
                if n > 0 {
                    count += n;
                    let moved = Moved {
                        offset: mv.offset,
                        from: self.old_pos[i],
                        to: st.pos,
                    };
                    sink.row(cleared | mv.bits(st.pos), Some(moved), out);
                }
            }
        }
        let mut blocked = [0u64; R];
        if m.forbid_same_cell {
            for (under, &p) in reach.under.iter().zip(&self.old_pos) {
                let there = Reach::at::<R>(under, p);
                blocked = std::array::from_fn(|r| blocked[r] | there[r]);
            }
        }
        let mut all = [0u64; R];
        for (r, &word) in mask.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let p = 64 * r as u32 + w.trailing_zeros();
                w &= w - 1;
                let to = Reach::at::<R>(&reach.moves, p);
                // Its moves, less the few onto the others' cells.
                count += u64::from(reach.degree[p as usize]);
                for r in 0..R {
                    let mut off = to[r] & blocked[r];
                    while off != 0 {
                        count -= 1;
                        off &= off - 1;
                    }
                    all[r] |= to[r] & !blocked[r];
                }
            }
        }
        if !self.occupied.is_empty() {
            for &c in &self.old_cell[..others.len()] {
                self.occupied[c as usize / 64] &= !(1 << (c % 64));
            }
        }
        if all.iter().any(|&w| w != 0) {
            sink.row(base, None, all);
        }
        count
    }

    /// One mover in turn: its moves, each checked against its entry
    /// condition, with the effect of arriving (entering, then standing).
    #[inline(always)]
    fn lone(&self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        let mv = &m.movers[0];
        let cleared = s & !mv.field();
        let p = mv.pos(s);
        // On the padded grid a position is its padded cell, and a move
        // that lands on the board lands on a position: no table between.
        let grid = mv.grid;
        let pc = if grid {
            p as usize
        } else {
            mv.padded[p as usize] as usize
        };
        // Only the moves that land on the board, one bit each.
        let mut bits = mv.exits[pc];
        while bits != 0 {
            let d = mv.deltas[bits.trailing_zeros() as usize];
            bits &= bits - 1;
            let to = if grid {
                pc.wrapping_add_signed(d) as u32
            } else {
                mv.index[pc.wrapping_add_signed(d)]
            };
            debug_assert_ne!(to, NONE, "an exit lands in the domain");
            let q = to as usize;
            // A stay enters no cell (and fires no rule: see
            // `Task::fixed_moves`).
            if to != p && !mv.free && !m.holds(m.conds[mv.entry[q] as usize], s) {
                continue;
            }
            let mut t = cleared | mv.bits(to);
            if m.has_effects {
                t = m.effects[mv.arrive[q] as usize].apply(t);
            }
            if !f(t) {
                return;
            }
        }
    }

    fn in_turn(&mut self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        for (i, mv) in m.movers.iter().enumerate() {
            let p = self.old_pos[i] as usize;
            if let Some(reach) = self.reach.get(i)
                && reach[p] & !self.occupied[0] == 0
            {
                continue;
            }
            let cleared = s & !mv.field();
            for st in mv.moves(p) {
                // A stay (in turn only where no rule fires: see
                // `Task::fixed_moves`) enters no cell.
                let stays = st.pos as usize == p;
                if !stays && !mv.free && !m.holds(m.conds[mv.entry[st.pos as usize] as usize], s) {
                    continue;
                }
                if !stays && self.taken(st.cell) {
                    continue;
                }
                let mut t = cleared | mv.bits(st.pos);
                if m.has_effects {
                    let q = st.pos as usize;
                    t = m.effects[mv.on_enter[q] as usize].apply(t);
                    if m.has_when {
                        t = m.settle(t);
                    }
                }
                if !f(t) {
                    return;
                }
            }
        }
    }

    /// Every combination of the movers' moves, as an odometer over their
    /// move lists: level `i` is mover `i`. A level's candidates are checked
    /// against the cells forbidden by the levels before it, computed once
    /// when the level is entered. The last level, where successors are
    /// emitted, is a tight loop of its own. No recursion, no allocation.
    fn at_once<const FX: bool>(&mut self, s: W, f: &mut impl FnMut(W) -> bool) {
        let m = self.m;
        let last = m.movers.len() - 1;
        if last == 0 {
            let base = s & !m.movers[0].field();
            self.leaves::<FX>(s, base, 0, f);
            return;
        }
        // The odometer's state lives in `self`, so nothing is zeroed per call.
        let mut i = 0;
        self.base[0] = s & !m.movers[0].field();
        self.forbid_for(0);
        self.open_level(0);
        loop {
            if self.idx[i] == self.end[i] {
                if i == 0 {
                    return;
                }
                // Back to the level below; its index already points past
                // the candidate that led here.
                i -= 1;
                continue;
            }
            let mv = &m.movers[i];
            let st = mv.adj[self.idx[i] as usize];
            self.idx[i] += 1;
            if !mv.free
                && st.pos != self.at[i]
                && !m.holds(m.conds[mv.entry[st.pos as usize] as usize], s)
            {
                continue;
            }
            if self.forbidden(i, st.cell) {
                continue;
            }
            let t = self.base[i] | mv.bits(st.pos);
            self.new_pos[i] = st.pos;
            self.new_cell[i] = st.cell;
            if i + 1 == last {
                let b = t & !m.movers[last].field();
                if !self.leaves::<FX>(s, b, last, f) {
                    return;
                }
            } else {
                i += 1;
                self.base[i] = t & !m.movers[i].field();
                self.forbid_for(i);
                self.open_level(i);
            }
        }
    }

    /// The successors that differ only in the last mover's move; false to
    /// stop.
    #[inline(always)]
    fn leaves<const FX: bool>(
        &mut self,
        s: W,
        base: W,
        i: usize,
        f: &mut impl FnMut(W) -> bool,
    ) -> bool {
        let m = self.m;
        let mv = &m.movers[i];
        let p = self.at[i] as usize;
        let nf = self.forbid_for(i);
        // Up to four forbidden cells are compared without a loop; unused
        // slots hold a value no cell has.
        let [f0, f1, f2, f3] =
            [0, 1, 2, 3].map(|k| if k < nf { self.forbid[i][k] } else { u32::MAX });
        let more = &self.forbid[i][4.min(nf)..nf];
        for st in mv.moves(p) {
            if !mv.free
                && st.pos as usize != p
                && !m.holds(m.conds[mv.entry[st.pos as usize] as usize], s)
            {
                continue;
            }
            let c = st.cell;
            if c == f0 || c == f1 || c == f2 || c == f3 || (!more.is_empty() && more.contains(&c)) {
                continue;
            }
            let mut t = base | mv.bits(st.pos);
            if FX {
                self.new_pos[i] = st.pos;
                t = self.effects(t);
            }
            if !f(t) {
                return false;
            }
        }
        true
    }

    /// Computes the cells mover `i` may not end on, given the moves chosen
    /// for the movers before it: theirs (no two on one cell), and the old
    /// cell of any that moved into this one's old cell (no swaps).
    #[inline(always)]
    fn forbid_for(&mut self, i: usize) -> usize {
        let m = self.m;
        let old = self.at_cell[i];
        let mut k = 0;
        for j in 0..i {
            let (nc, oc) = (self.new_cell[j], self.at_cell[j]);
            if m.forbid_same_cell {
                self.forbid[i][k] = nc;
                k += 1;
            }
            if m.forbid_swap && nc == old && oc != old {
                self.forbid[i][k] = oc;
                k += 1;
            }
        }
        self.nf[i] = k;
        k
    }

    /// Starts level `i` of the odometer at the first move of its mover.
    #[inline(always)]
    fn open_level(&mut self, i: usize) {
        let mv = &self.m.movers[i];
        let p = self.at[i] as usize;
        self.idx[i] = mv.adj_start[p];
        self.end[i] = mv.adj_start[p + 1];
    }

    /// Whether mover `i` may not end on `cell` (after [`Self::forbid_for`]).
    #[inline(always)]
    fn forbidden(&self, i: usize, cell: u32) -> bool {
        let f = &self.forbid[i];
        match self.nf[i] {
            0 => false,
            1 => f[0] == cell,
            2 => f[0] == cell || f[1] == cell,
            n => f[..n].contains(&cell),
        }
    }

    /// The effects of a simultaneous step whose positions are in `new_pos`.
    fn effects(&self, mut t: W) -> W {
        let m = self.m;
        for (j, mv) in m.movers.iter().enumerate() {
            if self.new_pos[j] != self.at[j] {
                t = m.effects[mv.on_enter[self.new_pos[j] as usize] as usize].apply(t);
            }
        }
        m.settle(t)
    }
}

/// [`Tables::reach`]: in turn, with `forbid same cell`, on a grid of at
/// most 64 cells; else empty.
fn entered_cells<W: Word>(m: &Model<'_, W>) -> Vec<Vec<u64>> {
    if m.mode != Mode::InTurn || !m.forbid_same_cell || m.movers.len() < 2 || m.rows * m.cols > 64 {
        return Vec::new();
    }
    let entered = |mv: &super::tables::Mover<'_, W>, p: usize| {
        (mv.moves(p).iter()).fold(0u64, |r, st| {
            if st.pos as usize == p {
                u64::MAX
            } else {
                r | 1 << st.cell
            }
        })
    };
    (m.movers.iter())
        .map(|mv| {
            (0..mv.adj_start.len().saturating_sub(1))
                .map(|p| entered(mv, p))
                .collect()
        })
        .collect()
}
