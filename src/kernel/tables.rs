//! The table kernels' compiled form of a task: flat tables indexed by a
//! mover's position, with conditions and effects as bit masks over packed
//! states, so that the search never looks at the grid or the task again.
//!
//! Invariant of [`Model`]: it describes exactly the steps of its task (the
//! generic interpreter's, [`super::generic`]), for tasks whose actions move
//! by fixed offsets at cost 1 and whose rules are plain (see
//! [`crate::task::Rule::is_plain`]); each mover's tables are indexed by its
//! position; effect 0 is no effect and condition 0 is `Always`.

use super::cond::{Cond, Conds};
use crate::kernel::KernelKind;
use crate::pack::{Layout, Word, ones};
use crate::task::{
    ClassId, Dir, Domain, Effect as TaskEffect, Mode, Op, Relation, RuleId, SIGHT, Task,
};

/// No position: a move off the board, into a wall, or out of the domain.
pub const NONE: u32 = u32::MAX;

/// What a step does to the flag bits: `((s | set) & !clear) ^ toggle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Effect<W> {
    pub set: W,
    pub clear: W,
    pub toggle: W,
}

impl<W: Word> Default for Effect<W> {
    fn default() -> Self {
        Effect {
            set: W::ZERO,
            clear: W::ZERO,
            toggle: W::ZERO,
        }
    }
}

impl<W: Word> Effect<W> {
    #[inline(always)]
    pub fn apply(&self, s: W) -> W {
        ((s | self.set) & !self.clear) ^ self.toggle
    }

    /// `self` then `next`, as one effect.
    pub fn then(self, next: Self) -> Self {
        let fixed = next.set | next.clear;
        // Bits `next` fixes take its value; the others keep ours, toggled.
        let value = (next.set & !next.clear) ^ next.toggle;
        let keep = !fixed;
        Effect {
            set: (self.set & keep) | (value & fixed),
            clear: (self.clear & keep) | (!value & fixed),
            toggle: (self.toggle ^ next.toggle) & keep,
        }
    }
}

/// A line of sight: the cells it crosses, in order, each with the effect of
/// seeing it. It ends at the first opaque tile.
pub type Ray<W> = Vec<(u32, Effect<W>)>;

/// One move of a mover: where it ends, precomputed for the search.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// The position reached.
    pub pos: u32,
    /// Its grid cell.
    pub cell: u32,
}

/// One mover's tables.
#[derive(Debug, Clone)]
pub struct Mover<'t, W> {
    pub offset: u32,
    pub bits: u32,
    /// `bits` ones at `offset`.
    pub mask: W,
    /// Position -> grid cell.
    pub cells: &'t [u32],
    /// Position -> cell of the padded grid.
    pub padded: &'t [u32],
    /// The moves from `pos` (including to `pos` itself for `stay`) are
    /// `adj[adj_start[pos]..adj_start[pos + 1]]`. Empty for a lone mover,
    /// which moves by [`Mover::exits`] instead.
    pub adj: Vec<Step>,
    pub adj_start: Vec<u32>,
    /// For a lone mover, padded cell -> position, [`NONE`] outside the
    /// domain: move `i` from position `p` reaches
    /// `index[padded[p] + deltas[i]]`. Empty for others, and on the padded
    /// grid ([`Mover::grid`]).
    pub index: Vec<u32>,
    /// Its domain is the padded grid: a position is its padded cell, so a
    /// lone mover's moves add to it with no table between.
    pub grid: bool,
    /// For a lone mover, by padded cell: bit `i` set when move `i` lands on
    /// a cell it may stand on (at most [`LONE_MOVES`] moves). Empty for
    /// others.
    pub exits: Vec<u16>,
    /// Position -> condition to enter it (index into [`Model::conds`]);
    /// empty when the mover is `free`.
    pub entry: Vec<u32>,
    /// Every entry condition is `Always`.
    pub free: bool,
    /// Position -> effect of entering it (index into [`Model::effects`]).
    pub on_enter: Vec<u32>,
    /// Position -> effect of standing there after a step (`when` rules
    /// that do not depend on other movers).
    pub when_here: Vec<u32>,
    /// For a lone mover, position -> the effect of arriving there:
    /// `on_enter` then `when_here`. Empty for others, and when the mover
    /// has neither.
    pub arrive: Vec<u32>,
    /// Position -> sight rays, when other movers can block sight.
    pub rays: Vec<Vec<Ray<W>>>,
    pub opaque: bool,
    /// What each of its moves adds to a padded cell.
    pub deltas: Vec<isize>,
}

impl<W: Word> Mover<'_, W> {
    #[inline(always)]
    pub fn pos(&self, s: W) -> u32 {
        ((s >> self.offset).low() & ((1u64 << self.bits) - 1)) as u32
    }

    /// The moves from position `p` (not for a lone mover: see
    /// [`Mover::adj`]).
    #[inline(always)]
    pub fn moves(&self, p: usize) -> &[Step] {
        &self.adj[self.adj_start[p] as usize..self.adj_start[p + 1] as usize]
    }

    /// Position `p` in this mover's field.
    #[inline(always)]
    pub fn bits(&self, p: u32) -> W {
        W::from_u64(p as u64) << self.offset
    }

    /// The bits of this mover's position.
    #[inline(always)]
    pub fn field(&self) -> W {
        self.mask
    }
}

/// The compiled tables of one case.
#[derive(Debug, Clone)]
pub struct Model<'t, W> {
    pub rows: usize,
    pub cols: usize,
    pub movers: Vec<Mover<'t, W>>,
    pub mode: Mode,
    pub forbid_same_cell: bool,
    pub forbid_swap: bool,
    pub cx: Conds<W>,
    /// The distinct entry conditions, indexed by [`Mover::entry`].
    pub conds: Vec<Cond<W>>,
    /// The distinct effects, indexed by [`Mover::on_enter`] and
    /// [`Mover::when_here`]; the first is no effect.
    pub effects: Vec<Effect<W>>,
    /// Some mover's `when ... sees` effects depend on where others stand.
    pub dynamic_sight: bool,
    /// Some step can change a flag (else the search skips effects).
    pub has_effects: bool,
    /// Some `when` rule can fire (else settling a state does nothing).
    pub has_when: bool,
    /// The last mover's moves as bitmasks, for the rows kernel.
    pub reach: Option<Reach>,
    /// The kernel the plan chose.
    pub kind: KernelKind,
}

/// The moves of the last of several movers (two or three at once, or any
/// number in turn), all free and with no effects, as bitmasks over its
/// positions (at most [`Reach::MAX_POSITIONS`]). The last mover's field is
/// the lowest bits of a state, so the successors that differ only in its
/// move lie in one aligned run of `2^bits` values: a search with a bitset
/// store tests and marks them together (see [`super::Successors::rows`]).
#[derive(Debug, Clone)]
pub struct Reach {
    /// Words per mask: 1, 2 or 4.
    pub words: usize,
    /// The last mover's position -> the positions its moves reach, `words`
    /// words each.
    pub moves: Vec<u64>,
    /// Per other mover, its position -> the last mover's position on the
    /// same cell, as a mask of `words` words (all zero where the last mover
    /// cannot stand): the cell the last mover may not end on, or may not
    /// swap into.
    pub under: Vec<Vec<u64>>,
    /// The last mover's position -> how many positions its moves reach
    /// (the ones of its mask in `moves`).
    pub degree: Vec<u32>,
}

impl Reach {
    /// The most positions a mask covers.
    pub const MAX_POSITIONS: usize = 256;

    fn new<W: Word>(m: &Model<'_, W>) -> Reach {
        let (last, others) = m.movers.split_last().expect("rows need two movers");
        debug_assert_eq!(last.offset, 0, "the last mover has the lowest bits");
        let words = (1usize << last.bits).div_ceil(64);
        let set = |mask: &mut [u64], p: usize| mask[p / 64] |= 1 << (p % 64);
        let mut moves = vec![0; last.cells.len() * words];
        for (p, mask) in moves.chunks_exact_mut(words).enumerate() {
            for st in last.moves(p) {
                set(mask, st.pos as usize);
            }
        }
        let mut slot = vec![NONE; m.rows * m.cols];
        for (p, &c) in last.cells.iter().enumerate() {
            slot[c as usize] = p as u32;
        }
        let under = others
            .iter()
            .map(|mv| {
                let mut masks = vec![0; mv.cells.len() * words];
                for (mask, &c) in masks.chunks_exact_mut(words).zip(mv.cells) {
                    if slot[c as usize] != NONE {
                        set(mask, slot[c as usize] as usize);
                    }
                }
                masks
            })
            .collect();
        let degree = moves
            .chunks_exact(words)
            .map(|m| m.iter().map(|w| w.count_ones()).sum())
            .collect();
        Reach {
            words,
            moves,
            under,
            degree,
        }
    }

    /// The `R` words at `p` of a table of masks.
    #[inline(always)]
    pub fn at<const R: usize>(table: &[u64], p: u32) -> [u64; R] {
        table[p as usize * R..][..R]
            .try_into()
            .expect("R words per mask")
    }
}

impl<W: Word> Model<'_, W> {
    #[inline(always)]
    pub fn holds(&self, c: Cond<W>, s: W) -> bool {
        self.cx.holds(c, s)
    }

    /// The grid cell of every mover in a state.
    pub fn cells_of(&self, s: W) -> Vec<u32> {
        self.movers
            .iter()
            .map(|m| m.cells[m.pos(s) as usize])
            .collect()
    }

    /// Applies the `when` effects of standing where the movers stand: per
    /// mover, its `on` facts, then what it sees.
    #[inline(always)]
    pub fn settle(&self, mut s: W) -> W {
        if !self.has_when {
            return s;
        }
        if !self.dynamic_sight {
            for mv in &self.movers {
                let e = mv.when_here[mv.pos(s) as usize];
                if e != 0 {
                    s = self.effects[e as usize].apply(s);
                }
            }
            return s;
        }
        let cells = self.cells_of(s);
        for (i, mv) in self.movers.iter().enumerate() {
            let p = mv.pos(s) as usize;
            let e = mv.when_here[p];
            if e != 0 {
                s = self.effects[e as usize].apply(s);
            }
            for ray in mv.rays.get(p).into_iter().flatten() {
                for (cell, eff) in ray {
                    let blocked = self
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

    /// Builds the tables of a task whose actions move by fixed offsets and
    /// whose rules are plain; `None` when `stop` says so between two passes
    /// over the map (a map of millions of cells takes seconds).
    pub fn new<'t>(
        task: &'t Task,
        layout: &Layout,
        kind: KernelKind,
        stop: &dyn Fn() -> bool,
    ) -> Option<Model<'t, W>> {
        let c = Compiler {
            task,
            layout,
            cx: Conds::new(),
            class_entry: vec![NONE; task.board().classes().len()],
            conds: Interner::new(Cond::Always),
            effects: Interner::new(Effect::default()),
        };
        c.build(kind, stop)
    }
}

struct Compiler<'t, 'l, W> {
    task: &'t Task,
    layout: &'l Layout,
    cx: Conds<W>,
    /// Class -> its entry condition (index into `conds`), or [`NONE`] until
    /// asked.
    class_entry: Vec<u32>,
    conds: Interner<Cond<W>>,
    effects: Interner<Effect<W>>,
}

/// Distinct values, each with its index in a table.
struct Interner<T> {
    table: Vec<T>,
    index: hashbrown::HashMap<T, u32>,
    /// The last value looked up and its id: neighbouring cells often share
    /// one.
    last: (T, u32),
}

impl<T: Copy + Eq + std::hash::Hash> Interner<T> {
    fn new(first: T) -> Self {
        Interner {
            table: vec![first],
            index: hashbrown::HashMap::from([(first, 0)]),
            last: (first, 0),
        }
    }

    fn id(&mut self, v: T) -> u32 {
        // Most cells have the first value (no effect, no condition).
        if v == self.table[0] {
            return 0;
        }
        if v == self.last.0 {
            return self.last.1;
        }
        let id = *self.index.entry(v).or_insert_with(|| {
            self.table.push(v);
            self.table.len() as u32 - 1
        });
        self.last = (v, id);
        id
    }
}

/// The effect of plain rules `rules` fired in order, as bit masks.
pub(crate) fn rules_effect<W: Word>(task: &Task, layout: &Layout, rules: &[RuleId]) -> Effect<W> {
    (rules.iter()).fold(Effect::default(), |e, &r| {
        e.then(effect_of(layout, &task.rule(r).effects))
    })
}

/// A plain rule's effects (flags set, cleared, toggled) as bit masks.
pub(crate) fn effect_of<W: Word>(layout: &Layout, effects: &[TaskEffect]) -> Effect<W> {
    let mut e = Effect::default();
    for fx in effects {
        let bit = layout.field(fx.var).mask::<W>();
        let one = match fx.op {
            Op::Set(1) => Effect {
                set: bit,
                ..Default::default()
            },
            Op::Set(_) => Effect {
                clear: bit,
                ..Default::default()
            },
            Op::Toggle => Effect {
                toggle: bit,
                ..Default::default()
            },
            Op::Add(_) => unreachable!("plain rules only set, clear and toggle flags"),
        };
        e = e.then(one);
    }
    e
}

/// The most moves a lone mover may have for [`Mover::exits`].
pub const LONE_MOVES: usize = 16;

/// By padded cell: bit `i` set when move `deltas[i]` lands on an open cell.
fn exits(open: &[u8], deltas: &[isize]) -> Vec<u16> {
    assert!(
        deltas.len() <= LONE_MOVES,
        "a lone mover has at most 16 moves"
    );
    let mut exits = vec![0u16; open.len()];
    for (i, &d) in deltas.iter().enumerate() {
        // Every cell whose neighbour by `d` is in the array, in one pass.
        let n = open.len() - d.unsigned_abs();
        let (from, to) = if d >= 0 {
            (0, d as usize)
        } else {
            (-d as usize, 0)
        };
        for (e, &o) in exits[from..from + n].iter_mut().zip(&open[to..to + n]) {
            *e |= u16::from(o) << i;
        }
    }
    exits
}

impl<'t, W: Word> Compiler<'t, '_, W> {
    /// The entry condition of the cells of a class, as an index into the
    /// condition table (0 is `Always`). Computed when first asked.
    fn class_entry(&mut self, class: ClassId) -> u32 {
        let k = class as usize;
        if self.class_entry[k] == NONE {
            let c = self
                .cx
                .compile(self.task.entry(class), self.task, self.layout);
            self.class_entry[k] = self.conds.id(c);
        }
        self.class_entry[k]
    }

    /// A plain rule's effects as bit masks.
    fn effect(&self, effects: &[TaskEffect]) -> Effect<W> {
        effect_of(self.layout, effects)
    }

    /// The effect of the rules fired on entering class `k`, by mover `m`.
    fn enter_effect(&self, m: usize, k: ClassId) -> Effect<W> {
        let rules = self.task.on_enter(crate::task::MoverId(m as u32), k);
        rules_effect(self.task, self.layout, rules)
    }

    /// The id of effect `id` followed by `next`.
    fn compose(&mut self, id: u32, next: Effect<W>) -> u32 {
        let e = self.effects.table[id as usize].then(next);
        self.effects.id(e)
    }

    fn build(mut self, kind: KernelKind, stop: &dyn Fn() -> bool) -> Option<Model<'t, W>> {
        let task = self.task;
        let dynamic_sight = task.dynamic_sight();
        let lone = kind == KernelKind::Lone;
        let movers: Vec<Mover<'t, W>> = (0..task.movers().len())
            .map(|i| self.mover(i, lone, dynamic_sight, stop))
            .collect::<Option<_>>()?;
        let has_effects = dynamic_sight || self.effects.table.len() > 1;
        let has_when = dynamic_sight || movers.iter().any(|m| m.when_here.iter().any(|&e| e != 0));
        let b = task.board();
        let mut model = Model {
            rows: b.rows(),
            cols: b.cols(),
            movers,
            mode: task.mode(),
            forbid_same_cell: task.forbid_same_cell(),
            forbid_swap: task.forbid_swap(),
            cx: self.cx,
            conds: self.conds.table,
            effects: self.effects.table,
            dynamic_sight,
            has_effects,
            has_when,
            reach: None,
            kind,
        };
        if let KernelKind::Rows { .. } = kind {
            model.reach = Some(Reach::new(&model));
        }
        Some(model)
    }

    /// The tables of mover `i`, or `None` when `stop` says so between two
    /// passes over its cells.
    fn mover(
        &mut self,
        i: usize,
        lone: bool,
        dynamic_sight: bool,
        stop: &dyn Fn() -> bool,
    ) -> Option<Mover<'t, W>> {
        let task = self.task;
        let tm = &task.movers()[i];
        let b = task.board();
        let cells = tm.domain().cells();
        let padded = tm.domain().padded_table();
        let field = self.layout.field(tm.pos());
        let grid = tm.domain().is_grid();
        let index = position_index(b.open(), padded, grid, lone);
        if stop() {
            return None;
        }
        let dirs: Vec<Dir> = tm
            .actions()
            .iter()
            // Fixed offsets (see `Task::fixed_moves`), `stay` among them.
            .map(|a| task.action(*a).motion().offset().unwrap_or(Dir::STAY))
            .collect();
        let deltas: Vec<isize> = dirs.iter().map(|d| b.delta(*d)).collect();
        // Moves on a condition (of the position alone, see
        // `Task::static_guards`): per move, the positions it is made from.
        let guarded: Vec<Option<Vec<u64>>> = tm
            .actions()
            .iter()
            .map(|&a| {
                (*task.action(a).guard() != crate::task::Expr::Const(true))
                    .then(|| task.guard_positions(a))
            })
            .collect();
        let made = |j: usize, p: usize| {
            guarded[j]
                .as_ref()
                .is_none_or(|g| g[p / 64] >> (p % 64) & 1 == 1)
        };
        let (free, entry) = self.entries(cells, padded, grid);
        if stop() {
            return None;
        }
        // The move table, unless the mover is lone.
        let (adj, adj_start) = if lone {
            (Vec::new(), Vec::new())
        } else {
            adjacency(padded, cells, &deltas, &index, made)
        };
        if stop() {
            return None;
        }
        let on_enter = self.enter_effects(i, cells);
        let has_when = !tm.when().is_empty();
        let (here, rays) = self.when_effects(i, cells, dynamic_sight);
        if stop() {
            return None;
        }
        let when_here = if has_when {
            (cells.iter())
                .map(|&c| {
                    if c == Domain::OFF {
                        0
                    } else {
                        here[c as usize]
                    }
                })
                .collect()
        } else if task.rules().is_empty() && !dynamic_sight {
            // No effect anywhere: the table is never read.
            Vec::new()
        } else {
            vec![0; cells.len()]
        };
        if stop() {
            return None;
        }
        // A lone mover's arrival: entering, then standing, as one effect.
        let arrive = if lone && self.effects.table.len() > 1 {
            on_enter
                .iter()
                .zip(&when_here)
                .map(|(&e, &w)| match (e, w) {
                    (0, w) => w,
                    (e, 0) => e,
                    (e, w) => {
                        let w = self.effects.table[w as usize];
                        self.compose(e, w)
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(Mover {
            offset: field.offset,
            bits: field.bits,
            mask: ones::<W>(field.bits) << field.offset,
            cells,
            padded,
            adj,
            adj_start,
            exits: if lone {
                lone_exits(b.open(), &deltas, &guarded, padded, (grid, &index), task)
            } else {
                Vec::new()
            },
            index: if lone && !grid { index } else { Vec::new() },
            grid,
            entry,
            free,
            on_enter,
            when_here,
            arrive,
            rays,
            opaque: tm.opaque(),
            deltas,
        })
    }

    /// The entry condition of each position of a mover on `cells`
    /// (`padded`), and whether none has one: when every class on its domain
    /// is entered freely, no position needs one.
    fn entries(&mut self, cells: &[u32], padded: &[u32], grid: bool) -> (bool, Vec<u32>) {
        let b = self.task.board();
        // Entry conditions, first for the classes on the domain: if each is
        // `Always`, no position needs one.
        let mut present = vec![false; b.classes().len()];
        if grid {
            // Every board cell is a position of a grid (its padding has no
            // class), and its solid cells are never entered (`index` has
            // none): the board's classes that are not solid, without a
            // pass over its cells.
            for k in b.class_ids() {
                present[k as usize] = b.present(k) && !b.classes()[k as usize].solid;
            }
            debug_assert!(cells.iter().zip(padded).all(|(&c, &pc)| c == Domain::OFF
                || b.open()[pc as usize] == 0
                || present[b.class(c) as usize]));
        } else {
            for &c in cells.iter() {
                present[b.class(c) as usize] = true;
            }
        }
        let mut free = true;
        for k in (0..present.len()).filter(|&k| present[k]) {
            free &= self.class_entry(k as ClassId) == 0;
        }
        let entry: Vec<u32> = if free {
            Vec::new()
        } else {
            let class_entry = &self.class_entry;
            let entry = |c: u32| class_entry[b.class(c) as usize];
            if grid {
                (cells.iter())
                    .map(|&c| if c == Domain::OFF { 0 } else { entry(c) })
                    .collect()
            } else {
                cells.iter().map(|&c| entry(c)).collect()
            }
        };
        (free, entry)
    }

    /// The effect of mover `i` entering each of its positions (0: none).
    fn enter_effects(&mut self, i: usize, cells: &[u32]) -> Vec<u32> {
        let task = self.task;
        let b = task.board();
        if task.rules().is_empty() && !task.dynamic_sight() {
            // No effect anywhere: the table is never read.
            return Vec::new();
        }
        let mut on_enter = vec![0; cells.len()];
        let nclasses = b.classes().len();
        let enters = b
            .class_ids()
            .any(|k| !task.on_enter(crate::task::MoverId(i as u32), k).is_empty());
        if enters {
            // Cells of one class have one effect: found once, by class.
            let mut by_class = vec![NONE; nclasses];
            for (q, &c) in cells.iter().enumerate() {
                if c == Domain::OFF {
                    continue;
                }
                let k = b.class(c);
                if by_class[k as usize] == NONE {
                    let eff = self.enter_effect(i, k);
                    by_class[k as usize] = self.effects.id(eff);
                }
                on_enter[q] = by_class[k as usize];
            }
        }
        on_enter
    }

    /// The `when` effects of mover `i`, by grid cell (none: no table at
    /// all): its `on` facts, then its `sees` facts, in that order; with
    /// sight that movers block, the rays seen from each position instead.
    fn when_effects(
        &mut self,
        i: usize,
        cells: &[u32],
        dynamic_sight: bool,
    ) -> (Vec<u32>, Vec<Vec<Ray<W>>>) {
        let task = self.task;
        let tm = &task.movers()[i];
        let b = task.board();
        let has_when = !tm.when().is_empty();
        let ncells = b.rows() * b.cols();
        let mut here = vec![0u32; if has_when { ncells } else { 0 }];
        let mut rays: Vec<Vec<Ray<W>>> =
            vec![Vec::new(); if dynamic_sight { cells.len() } else { 0 }];
        for w in tm.when() {
            let by_class: Vec<Option<Effect<W>>> = w
                .by_class
                .iter()
                .map(|r| r.map(|r| self.effect(&task.rule(r).effects)))
                .collect();
            let rule_effect = |k: ClassId| by_class[k as usize];
            match w.relation {
                Relation::On => {
                    for (k, eff) in by_class.iter().enumerate() {
                        if let Some(eff) = *eff {
                            for &t in b.cells_of(k as ClassId) {
                                let t = t as usize;
                                here[t] = self.compose(here[t], eff);
                            }
                        }
                    }
                }
                Relation::Sees if dynamic_sight => {
                    for (q, &c) in cells.iter().enumerate() {
                        if c == Domain::OFF {
                            continue;
                        }
                        for d in SIGHT {
                            let ray = b
                                .sight_line(c, d)
                                .map(|t| (t, rule_effect(b.class(t)).unwrap_or_default()))
                                .collect();
                            rays[q].push(ray);
                        }
                    }
                }
                Relation::Sees => {
                    // The cells that see some cell of the rule: walking
                    // outward from each such cell reaches them (sight is
                    // symmetric). From each, in ray order, compose.
                    let mut sees = vec![false; ncells];
                    let mut seeing = Vec::new();
                    let targets = b
                        .class_ids()
                        .filter(|&k| by_class[k as usize].is_some())
                        .flat_map(|k| b.cells_of(k));
                    for &t in targets {
                        {
                            for d in SIGHT {
                                for c in b.sight_line(t, d) {
                                    if !sees[c as usize] {
                                        sees[c as usize] = true;
                                        seeing.push(c);
                                    }
                                }
                            }
                        }
                    }
                    for c in seeing {
                        for d in SIGHT {
                            for t in b.sight_line(c, d) {
                                if let Some(eff) = rule_effect(b.class(t)) {
                                    let c = c as usize;
                                    here[c] = self.compose(here[c], eff);
                                }
                            }
                        }
                    }
                }
            }
        }
        (here, rays)
    }
}

/// Padded cell -> position, for the cells a move may enter: on the padded
/// grid (`grid`), every position's cell but the border and the solid cells
/// (a list has none of them).
fn position_index(open: &[u8], padded: &[u32], grid: bool, lone: bool) -> Vec<u32> {
    // A lone mover on the padded grid needs none (see `Mover::grid`).
    if lone && grid {
        return Vec::new();
    }
    let mut index = vec![NONE; open.len()];
    for (k, &pc) in padded.iter().enumerate() {
        index[pc as usize] = k as u32;
    }
    if grid {
        for (x, &o) in index.iter_mut().zip(open) {
            if o == 0 {
                *x = NONE;
            }
        }
    }
    index
}

/// The move table of a mover that is not alone: per position, the moves it
/// makes (`made(move, position)`) that land in its domain, each written and
/// kept only if it lands there (no branch on the map's layout); and where
/// each position's moves start.
fn adjacency(
    padded: &[u32],
    cells: &[u32],
    deltas: &[isize],
    index: &[u32],
    made: impl Fn(usize, usize) -> bool,
) -> (Vec<Step>, Vec<u32>) {
    let mut adj;
    let mut adj_start = Vec::new();
    adj = vec![Step { pos: 0, cell: 0 }; cells.len() * deltas.len()];
    adj_start.reserve(cells.len() + 1);
    let mut k = 0;
    for (p, (&pc, &c)) in padded.iter().zip(cells.iter()).enumerate() {
        adj_start.push(k as u32);
        if c == Domain::OFF {
            continue;
        }
        for (j, &d) in deltas.iter().enumerate() {
            let to = (pc as usize).wrapping_add_signed(d);
            let t = if made(j, p) { index[to] } else { NONE };
            adj[k] = Step {
                pos: t,
                cell: if t == NONE { NONE } else { cells[t as usize] },
            };
            k += usize::from(t != NONE);
        }
    }
    adj.truncate(k);
    adj_start.push(adj.len() as u32);
    (adj, adj_start)
}

/// A lone mover's exits per padded cell: the open ways, less the moves not
/// made from a position (their conditions), word by word.
fn lone_exits(
    open: &[u8],
    deltas: &[isize],
    guarded: &[Option<Vec<u64>>],
    padded: &[u32],
    (grid, index): (bool, &[u32]),
    task: &Task,
) -> Vec<u16> {
    let mut e = exits(open, deltas);
    if let Some(forbid) = task.lone_forbid() {
        leave_out(&mut e, deltas, padded, index, grid, &forbid);
    }
    // A move's bit cleared where it is not made: a word of 64 positions
    // at a time, then only the positions where it is not.
    for (j, g) in guarded.iter().enumerate() {
        let Some(g) = g else { continue };
        let bit = 1u16 << j;
        for (w, &word) in g.iter().enumerate() {
            let ps = w * 64..(w * 64 + 64).min(padded.len());
            match word {
                u64::MAX => {}
                // A word of positions none of which makes the move: on
                // the padded grid, 64 cells in a row.
                0 if grid => e[ps].iter_mut().for_each(|x| *x &= !bit),
                // On the padded grid, the word's 64 cells in a row: each
                // cleared where its bit is not set, with no branch (a
                // guard that holds here and there, as a tile ahead).
                _ if grid => (e[ps].iter_mut().enumerate())
                    .for_each(|(k, x)| *x &= !(bit * (!(word >> k) & 1) as u16)),
                _ => {
                    let mut not = !word & u64::MAX.checked_shr(64 - ps.len() as u32).unwrap_or(0);
                    while not != 0 {
                        let p = w * 64 + not.trailing_zeros() as usize;
                        not &= not - 1;
                        e[padded[p] as usize] &= !bit;
                    }
                }
            }
        }
    }
    e
}

/// A lone mover's exits less the moves that end on a position `forbid`
/// holds on (bit `p % 64` of word `p / 64`), a stay included.
fn leave_out(
    exits: &mut [u16],
    deltas: &[isize],
    padded: &[u32],
    index: &[u32],
    grid: bool,
    forbid: &[u64],
) {
    let at = |q: usize| (forbid[q / 64] >> (q % 64) & 1) as u16;
    if grid {
        // A position is its padded cell: per position where `forbid`
        // holds (a few, often), the cells its moves come from.
        let n = exits.len().min(forbid.len() * 64);
        for (w, &word) in forbid.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let q = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                if q >= n {
                    break;
                }
                for (j, &d) in deltas.iter().enumerate() {
                    let pc = q.wrapping_add_signed(-d);
                    if pc < n {
                        exits[pc] &= !(1 << j);
                    }
                }
            }
        }
        return;
    }
    for &pc in padded {
        let pc = pc as usize;
        let mut bits = exits[pc];
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let q = index[pc.wrapping_add_signed(deltas[j])] as usize;
            exits[pc] &= !(at(q) << j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every per-bit behaviour (keep, flip, set, clear) composed with every
    /// other gives, as one effect, what applying both in turn gives.
    #[test]
    fn effects_compose_like_applying_them_in_turn() {
        let kinds = |k: u64| match k {
            0 => Effect::default(),
            1 => Effect {
                toggle: 1u64,
                ..Default::default()
            },
            2 => Effect {
                set: 1u64,
                ..Default::default()
            },
            3 => Effect {
                clear: 1u64,
                ..Default::default()
            },
            _ => Effect {
                set: 1u64,
                toggle: 1u64,
                ..Default::default()
            },
        };
        for a in 0..5 {
            for b in 0..5 {
                let (ea, eb) = (kinds(a), kinds(b));
                for s in 0..2u64 {
                    assert_eq!(
                        ea.then(eb).apply(s),
                        eb.apply(ea.apply(s)),
                        "{a} then {b} on {s}"
                    );
                }
            }
        }
    }
}
