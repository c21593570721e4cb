//! Grounding conditions and effects: rules on the classes of cells
//! present, expressions with every number evaluated for the case.

use super::*;

impl Grounder<'_> {
    pub(super) fn rule(&mut self, r: Rule) -> RuleId {
        self.task_rules.push(r);
        RuleId(self.task_rules.len() as u32 - 1)
    }

    /// The variable of a state reference, for a rule grounded on `class`
    /// (which gives a bound value and an occurrence).
    pub(super) fn state_var(
        &self,
        state: StateId,
        index: IndexRef,
        class: Option<&Class>,
    ) -> VarId {
        let v = match index {
            IndexRef::None => 0,
            IndexRef::Value(v) => v,
            IndexRef::Bound => class
                .and_then(|c| c.value)
                .expect("a bound index has a value"),
            IndexRef::Occurrence => class
                .and_then(|c| c.occurrence)
                .expect("an occurrence index has its cell"),
        };
        VarId(self.state_vars[state.ix()] + v)
    }

    /// How many variables a state has.
    pub(super) fn state_len(&self, state: StateId) -> u32 {
        match self.rules.states[state.ix()].index {
            StateIndex::None => 1,
            StateIndex::Domain(d) => self.rules.domains[d.ix()].values.len() as u32,
            StateIndex::Tile(t) => self.occurrences[t.ix()],
        }
    }

    pub(super) fn effects(
        &mut self,
        acts: &[resolve::Action],
        class: Option<&Class>,
    ) -> Vec<Effect> {
        acts.iter()
            .map(|a| {
                let var = self.state_var(a.state, a.index, class);
                let op = match &a.op {
                    ActOp::Set => Op::Set(1),
                    ActOp::Clear => Op::Set(0),
                    ActOp::Toggle => Op::Toggle,
                    ActOp::Add(n) => {
                        let k = i128::from(self.num(n, "an amount"));
                        Op::Add(self.amount(var, k))
                    }
                    ActOp::Sub(n) => {
                        let k = -i128::from(self.num(n, "an amount"));
                        Op::Add(self.amount(var, k))
                    }
                    ActOp::Assign(n) => Op::Set(self.num(n, "a value")),
                };
                Effect { var, op }
            })
            .collect()
    }

    /// What `+= k` adds to `var`, within what the engine adds without
    /// overflow: modulo its size for a counter that wraps; at most 2^62 either
    /// way otherwise (a counter's range is at most 2^32 wide within
    /// ±2^62: anything more leaves it as surely).
    pub(super) fn amount(&self, var: VarId, k: i128) -> i64 {
        let v = &self.vars[var.ix()];
        match v.kind() {
            VarKind::Counter { lo, hi, wrap: true } => {
                k.rem_euclid(i128::from(hi) - i128::from(lo) + 1) as i64
            }
            _ => k.clamp(-i128::from(COUNTER_BOUND), i128::from(COUNTER_BOUND)) as i64,
        }
    }

    /// A rule's condition and effects, grounded on `class`.
    pub(super) fn ground_rule(
        &mut self,
        cond: &Option<resolve::Expr>,
        acts: &[resolve::Action],
        class: Option<&Class>,
    ) -> RuleId {
        let cond = cond
            .as_ref()
            .map_or(Expr::Const(true), |c| self.expr(c, class));
        let effects = self.effects(acts, class);
        self.rule(Rule { cond, effects })
    }

    pub(super) fn class_matches(&self, class: &Class, tile: TileId, sel: ValueSel) -> bool {
        class.tile == tile
            && match sel {
                ValueSel::Value(v) => class.value == Some(v),
                _ => true,
            }
    }

    /// A checked expression grounded on this map, for a rule grounded on
    /// `class` (its bound value and occurrence).
    pub(super) fn expr(&mut self, e: &resolve::Expr, class: Option<&Class>) -> Expr {
        use resolve::Expr as E;
        match e {
            E::Time(i) if self.rules.times[*i].at.is_some() => self.field_read(*i),
            E::Time(i) => self.times[*i].clone(),
            E::InBeam(agent, beam) => self.in_beam(*agent, *beam),
            E::Flag { state, index } => {
                Expr::Cmp(self.state_var(*state, *index, class), Cmp::Eq, 1)
            }
            E::Cmp {
                state,
                index,
                op,
                value,
            } => {
                let v = self.num(value, "a comparison");
                Expr::Cmp(self.state_var(*state, *index, class), cmp(*op), v)
            }
            E::AllFlags(f) | E::AnyFlag(f) => {
                let first = self.state_vars[f.ix()];
                let parts = (0..self.state_len(*f))
                    .map(|v| Expr::Cmp(VarId(first + v), Cmp::Eq, 1))
                    .collect();
                if matches!(e, E::AllFlags(_)) {
                    Expr::and(parts)
                } else {
                    Expr::or(parts)
                }
            }
            E::On {
                agent,
                members,
                place,
            } => {
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| self.at(i, *place))
                    .collect();
                match members {
                    Members::Any => Expr::or(parts),
                    Members::One => of_present(parts),
                    _ => Expr::and(parts),
                }
            }
            E::Has { tile, value, agent } => self.has(*tile, *value, *agent),
            E::AtCell { agent, row, col } => {
                let (r, c) = (self.num(row, "a row"), self.num(col, "a column"));
                let cell = self.board.at(r, c);
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| self.at_cells(i, |x| Some(x) == cell))
                    .collect();
                of_present(parts)
            }
            E::PoseIs(agent, k) => {
                let parts = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .filter_map(|i| self.movers[i].poses.as_ref())
                    .map(|(v, _)| Expr::Cmp(*v, Cmp::Eq, i64::from(*k)))
                    .collect();
                of_present(parts)
            }
            E::Meets { agent, members, at } => self.meets(*agent, *members, *at),
            E::Pos { terms, op, k } => self.pos(terms, *op, *k),
            E::Moving(d) => Expr::Const(self.moving.is_some_and(|m| m.goes(Dir::of(*d)))),
            E::Cell { at, what } => self.cell_test(*at, *what),
            E::MovingBound => {
                // The value of the cell's tile, a direction word.
                let rules = self.rules;
                let way = class.and_then(|c| {
                    let d = rules.tiles[c.tile.ix()].domain?;
                    let word = &rules.domains[d.ix()].values[c.value? as usize];
                    crate::ast::Dir::named(word)
                });
                Expr::Const(way.is_some_and(|d| self.moving.is_some_and(|m| m.goes(Dir::of(d)))))
            }
            E::Facing(agent, h) => {
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .filter_map(|i| self.movers[i].heading)
                    .map(|v| Expr::Cmp(v, Cmp::Eq, *h as i64))
                    .collect();
                of_present(parts)
            }
            E::And(es) => {
                let parts = es.iter().map(|e| self.expr(e, class)).collect();
                Expr::and(parts)
            }
            E::Or(es) => {
                let parts = es.iter().map(|e| self.expr(e, class)).collect();
                Expr::or(parts)
            }
            E::Not(e) => Expr::not(self.expr(e, class)),
        }
    }

    /// A comparison of rows and columns, each term's mover found.
    fn pos(&mut self, terms: &[(i64, resolve::PosRef)], op: crate::ast::CmpOp, k: i64) -> Expr {
        let mut out = Vec::with_capacity(terms.len());
        for &(f, r) in terms {
            let m = match r.agent {
                None => self.actor,
                Some(a) => (0..self.instances.len()).find(|&i| self.instances[i].agent == a),
            };
            // An absent agent (or no mover): the comparison is false.
            let Some(m) = m else {
                return Expr::Const(false);
            };
            out.push((f, r.axis == crate::ast::Axis::Row, MoverId(m as u32)));
        }
        Expr::Pos {
            terms: out,
            op: cmp(op),
            k,
        }
    }

    /// Members of `agent` on the cell of `at`.
    fn meets(&mut self, agent: AgentId, members: Members, at: AgentId) -> Expr {
        let Some(j) = (0..self.instances.len()).find(|&j| self.instances[j].agent == at) else {
            return Expr::Const(false);
        };
        let parts: Vec<Expr> = (0..self.instances.len())
            .filter(|&i| self.instances[i].agent == agent)
            .map(|i| Expr::Near {
                a: MoverId(j as u32),
                b: MoverId(i as u32),
                off: (0, 0),
            })
            .collect();
        match members {
            Members::Any => Expr::or(parts),
            Members::One => of_present(parts),
            _ => Expr::and(parts),
        }
    }

    /// `every TILE has AGENT`: a member on every cell of the tile.
    fn has(&mut self, tile: TileId, value: ValueSel, agent: AgentId) -> Expr {
        let hit: Vec<bool> = (self.board.classes.iter())
            .map(|k| self.class_matches(k, tile, value))
            .collect();
        let goals: Vec<u32> = (0..self.board.class.len() as u32)
            .filter(|&c| hit[self.board.class[c as usize] as usize])
            .collect();
        let members: Vec<usize> = (0..self.instances.len())
            .filter(|&i| self.instances[i].agent == agent)
            .collect();
        // Members of an object never share a cell: as many cells
        // as members is every member on one of them, more is never.
        if self.rules.agents[agent.ix()].object && goals.len() >= members.len() {
            if goals.len() > members.len() {
                return Expr::Const(false);
            }
            let parts = members
                .iter()
                .map(|&i| self.at(i, PlaceRef::Tile(tile, value)))
                .collect();
            return Expr::and(parts);
        }
        let parts = goals
            .iter()
            .map(|&g| {
                let any = members.iter().map(|&i| self.covers(i, g));
                Expr::or(any.collect())
            })
            .collect();
        Expr::and(parts)
    }

    /// Instance `i` stands on grid cell `g`; a piece: covers it (with
    /// poses, in the pose it is in).
    fn covers(&self, i: usize, g: u32) -> Expr {
        let m = &self.movers[i];
        let board = &self.board;
        // The anchors that put the anchor or a cell of the shape on `g`: a
        // look-up per cell of the shape, not a pass over every position.
        let on = |shape: &[(i32, i32)]| {
            let d = &m.domain;
            let mut words = vec![0u64; d.len().div_ceil(64)];
            for (dr, dc) in std::iter::once((0, 0)).chain(shape.iter().copied()) {
                if let Some(p) = board.shifted(g, (-dr, -dc)).and_then(|a| d.position_of(a)) {
                    words[p as usize / 64] |= 1 << (p % 64);
                }
            }
            Expr::at_words(MoverId(i as u32), words, d.len())
        };
        match m.poses() {
            None => on(m.shape()),
            Some((v, poses)) => Expr::or(
                (poses.iter().enumerate())
                    .map(|(k, shape)| Expr::and(vec![Expr::Cmp(v, Cmp::Eq, k as i64), on(shape)]))
                    .collect(),
            ),
        }
    }

    /// Instance `i` stands on `place`.
    pub(super) fn at(&self, i: usize, place: PlaceRef) -> Expr {
        match place {
            PlaceRef::Target => {
                let target = self.instances[i].target;
                self.at_cells(i, |c| Some(c) == target)
            }
            PlaceRef::Tile(t, sel) => {
                // By class first: a tile test is a class test.
                let hit: Vec<bool> = (self.board.classes.iter())
                    .map(|k| self.class_matches(k, t, sel))
                    .collect();
                let class = &self.board.class;
                self.at_cells(i, |c| hit[class[c as usize] as usize])
            }
        }
    }

    /// Instance `i` on a cell where `hit` holds, as a set of positions
    /// built sixty-four a word (maps of millions of cells); folded when no
    /// cell or every cell of the domain is one.
    pub(super) fn at_cells(&self, i: usize, hit: impl Fn(u32) -> bool) -> Expr {
        let d = &self.movers[i].domain;
        let mut words = vec![0u64; d.len().div_ceil(64)];
        let mut cells = 0;
        d.for_each(|p, c, _| {
            words[p as usize / 64] |= u64::from(hit(c)) << (p % 64);
            cells += 1;
        });
        Expr::at_words(MoverId(i as u32), words, cells)
    }

    /// `f`'s expression for action `a`, read with its mover as the actor
    /// and the way its move goes: a step's or slide's offset; along the
    /// heading for a move along it or one that goes no way (one part per
    /// heading, each under its test); no way for a mover without heading
    /// that goes none (`moving` anything is false there).
    pub(super) fn per_way(&mut self, a: usize, f: &mut impl FnMut(&mut Self) -> Expr) -> Expr {
        let i = self.actions[a].mover.ix();
        let motion = self.actions[a].motion;
        let saved = (self.actor, self.way, self.moving);
        self.actor = Some(i);
        let e = match (motion.way, self.movers[i].heading) {
            // A table's move goes the way it is named; a turn by a table
            // goes none.
            (Way::By(d), _) | (Way::Table(d), _) if d != Dir::STAY => {
                (self.way, self.moving) = (Some(d), Some(d));
                f(self)
            }
            (_, Some(h)) => {
                let parts = (0..4)
                    .map(|k| {
                        let face = Dir::COMPASS[k];
                        (self.way, self.moving) = match motion.way {
                            Way::Ahead | Way::Behind => {
                                let d = motion.dir(k as i64);
                                (d, d)
                            }
                            _ => (Some(face), None),
                        };
                        Expr::and(vec![Expr::Cmp(h, Cmp::Eq, k as i64), f(self)])
                    })
                    .collect();
                Expr::or(parts)
            }
            (_, None) => {
                (self.way, self.moving) = (None, None);
                f(self)
            }
        };
        (self.actor, self.way, self.moving) = saved;
        e
    }

    /// A cell test for the actor: the cell `at` from it holds `what`.
    pub(super) fn cell_test(&mut self, at: crate::ast::RelCell, what: resolve::CellTest) -> Expr {
        use crate::ast::RelCell;
        let Some(i) = self.actor else {
            return Expr::Const(false);
        };
        let along = |k: i32| self.way.map(|d| (i32::from(d.dr) * k, i32::from(d.dc) * k));
        let off = match at {
            RelCell::Here => Some((0, 0)),
            RelCell::Ahead => along(1),
            RelCell::Beyond => along(2),
            RelCell::Offset(d) => Some((d.dr, d.dc)),
        };
        // The resolver gives a mover that goes no way a heading.
        let Some(off) = off else {
            return Expr::Const(false);
        };
        match what {
            resolve::CellTest::Tile(tile, sel) => {
                // One offset is often read by several moves (a leap and its
                // mirror image): each mover's test is built once.
                let key = (i, off, tile, sel);
                if let Some(e) = self.cell_tests.get(&key) {
                    return e.clone();
                }
                let e = self.tile_test(i, off, tile, sel);
                self.cell_tests.insert(key, e.clone());
                e
            }
            resolve::CellTest::Has(agent) => Expr::or(
                (0..self.instances.len())
                    .filter(|&j| j != i && self.instances[j].agent == agent)
                    .map(|j| Expr::Near {
                        a: MoverId(i as u32),
                        b: MoverId(j as u32),
                        off,
                    })
                    .collect(),
            ),
        }
    }

    /// Mover `i` stands where the cell `off` from it has `tile` (of the
    /// values `sel`).
    pub(super) fn tile_test(
        &mut self,
        i: usize,
        off: (i32, i32),
        tile: TileId,
        sel: ValueSel,
    ) -> Expr {
        let b = &self.board;
        let (rows, cols) = (b.rows as i64, b.cols as i64);
        let d = &self.movers[i].domain;
        if !d.is_grid() {
            let want: Vec<bool> = (b.classes.iter())
                .map(|k| self.class_matches(k, tile, sel))
                .collect();
            let hit = |r: i64, c: i64| {
                let (r, c) = (r + i64::from(off.0), c + i64::from(off.1));
                (0..rows).contains(&r)
                    && (0..cols).contains(&c)
                    && want[b.class[(r * cols + c) as usize] as usize]
            };
            return self.at_cells(i, |x| hit(x as i64 / cols, x as i64 % cols));
        }
        // A grid's positions are the padded grid's indexes: the tile's
        // cells as bits, shifted by the offset a word at a time, and kept
        // at the cells whose cell `off` away is on the map (so no bit comes
        // from past a row's end).
        let words = d.len().div_ceil(64);
        let map = self.tile_map(tile, sel);
        let b = &self.board;
        let (dr, dc) = (i64::from(off.0), i64::from(off.1));
        let mut hits = shifted(&map, (dr * b.width as i64 + dc) as isize, words);
        let mut on_map = vec![0u64; words];
        let (lo, hi) = (
            (-dc).clamp(0, cols) as usize,
            (cols - dc).clamp(0, cols) as usize,
        );
        for r in (-dr).clamp(0, rows)..(rows - dr).clamp(0, rows) {
            let row = (r as usize + b.pad) * b.width + b.pad;
            set_range(&mut on_map, row + lo, row + hi);
        }
        hits.iter_mut().zip(&on_map).for_each(|(w, m)| *w &= m);
        Expr::at_words(MoverId(i as u32), hits, (rows * cols) as usize)
    }

    /// The padded grid's cells that have `tile` (of the values `sel`), a
    /// bit each; made once per map.
    fn tile_map(&mut self, tile: TileId, sel: ValueSel) -> std::rc::Rc<[u64]> {
        if let Some(m) = self.tile_maps.get(&(tile, sel)) {
            return m.clone();
        }
        let b = &self.board;
        let want: Vec<bool> = (b.classes.iter())
            .map(|k| self.class_matches(k, tile, sel))
            .collect();
        let mut words = vec![0u64; ((b.rows + 2 * b.pad) * b.width).div_ceil(64)];
        for (r, classes) in b.class.chunks(b.cols.max(1)).enumerate() {
            let row = (r + b.pad) * b.width + b.pad;
            for (c, &k) in classes.iter().enumerate() {
                let p = row + c;
                words[p / 64] |= u64::from(want[k as usize]) << (p % 64);
            }
        }
        let m: std::rc::Rc<[u64]> = words.into();
        self.tile_maps.insert((tile, sel), m.clone());
        m
    }
}

/// `len` words whose bit `p` is bit `p + shift` of `src` (0 off its ends).
fn shifted(src: &[u64], shift: isize, len: usize) -> Vec<u64> {
    let (ws, bs) = (shift.div_euclid(64), shift.rem_euclid(64) as u32);
    let get = |i: isize| {
        usize::try_from(i)
            .ok()
            .and_then(|i| src.get(i))
            .copied()
            .unwrap_or(0)
    };
    (0..len as isize)
        .map(|w| {
            let lo = get(w + ws) >> bs;
            let hi = if bs == 0 {
                0
            } else {
                get(w + ws + 1) << (64 - bs)
            };
            lo | hi
        })
        .collect()
}

/// Sets bits `lo..hi` of `words`.
fn set_range(words: &mut [u64], lo: usize, hi: usize) {
    let mut p = lo;
    while p < hi {
        let (w, k) = (p / 64, p % 64);
        let n = (64 - k).min(hi - p);
        words[w] |= (u64::MAX >> (64 - n)) << k;
        p += n;
    }
}

/// What holds of one agent, one part a member on the map: all of them; for
/// an optional agent not on the map, nothing (it stands nowhere, faces no
/// way).
pub(super) fn cmp(op: crate::ast::CmpOp) -> Cmp {
    match op {
        crate::ast::CmpOp::Eq => Cmp::Eq,
        crate::ast::CmpOp::Ne => Cmp::Ne,
        crate::ast::CmpOp::Lt => Cmp::Lt,
        crate::ast::CmpOp::Le => Cmp::Le,
        crate::ast::CmpOp::Gt => Cmp::Gt,
        crate::ast::CmpOp::Ge => Cmp::Ge,
    }
}

pub(super) fn of_present(parts: Vec<Expr>) -> Expr {
    if parts.is_empty() {
        return Expr::Const(false);
    }
    Expr::and(parts)
}

#[cfg(test)]
mod tests {
    use super::{set_range, shifted};
    use rand::{Rng, SeedableRng, rngs::SmallRng};

    fn bit(w: &[u64], p: usize) -> bool {
        w.get(p / 64).is_some_and(|x| x >> (p % 64) & 1 == 1)
    }

    /// A word-at-a-time shift of a tile's cells reads, for every bit, the
    /// bit `shift` away, and nothing off the ends.
    #[test]
    fn shifted_reads_each_bit_shift_away() {
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..500 {
            let src: Vec<u64> = (0..rng.gen_range(0..6)).map(|_| rng.r#gen()).collect();
            let len = rng.gen_range(0..8);
            let shift = rng.gen_range(-400isize..400);
            let out = shifted(&src, shift, len);
            assert_eq!(out.len(), len);
            for p in 0..len * 64 {
                let q = p as isize + shift;
                let want = q >= 0 && bit(&src, q as usize);
                assert_eq!(bit(&out, p), want, "bit {p} of a shift by {shift}");
            }
        }
    }

    #[test]
    fn set_range_sets_exactly_its_bits() {
        let mut rng = SmallRng::seed_from_u64(8);
        for _ in 0..500 {
            let mut w = vec![0u64; 5];
            let lo = rng.gen_range(0..320);
            let hi = rng.gen_range(lo..=320);
            set_range(&mut w, lo, hi);
            for p in 0..320 {
                assert_eq!(bit(&w, p), (lo..hi).contains(&p), "bit {p} of {lo}..{hi}");
            }
        }
    }
}
