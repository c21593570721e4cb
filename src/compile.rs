//! Phase 3: [`Rules`] + one map -> [`Model`], a transition system over packed
//! states, laid out as flat tables indexed by position.
//!
//! Invariant of [`Model`]: a state is one word `W`; each mover's position is
//! an index into that mover's own position domain (the cells it can ever stand
//! on), stored in its own bit field; each flag value is one bit. Every table
//! is indexed by a mover's position index, so the search never looks at the
//! grid or the rules again.

use crate::ast::{Dir, Mode, Relation, Verb};
use crate::error::InputError;
use crate::input::RawCase;
use crate::resolve::{
    Action, AgentId, Expr, Glyph, IndexRef, Members, PlaceRef, Rules, SizeRef, TileId, ValueSel,
};
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// A packed state: `u64` when it fits, `u128` otherwise.
pub trait Word:
    Copy
    + Eq
    + Hash
    + Default
    + Debug
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn from_u64(x: u64) -> Self;
    /// The low 64 bits.
    fn low(self) -> u64;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn low(self) -> u64 {
                self as u64
            }
        }
    };
}
word!(u64);
word!(u128);

/// No position: a move off the board, into a wall, or out of the domain.
pub const NONE: u32 = u32::MAX;

/// The widest state the engine packs.
pub const MAX_BITS: u32 = 128;

/// The most agents that can move at once (each step tries every
/// combination of their moves, so more would never finish anyway).
pub const MAX_AT_ONCE: usize = 16;

/// One field of the packed state, for `explain` and error messages.
#[derive(Debug, Clone)]
pub struct Part {
    pub name: String,
    pub offset: u32,
    pub bits: u32,
    /// How many values the field can take.
    pub values: u64,
}

/// The packed-state layout of a model.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub parts: Vec<Part>,
    pub bits: u32,
}

impl Layout {
    /// The number of states the layout can describe (product of the parts'
    /// value counts), saturating.
    pub fn bound(&self) -> u128 {
        self.parts
            .iter()
            .fold(1u128, |a, p| a.saturating_mul(p.values as u128))
    }
}

/// What a step does to the flag bits: `((s | set) & !clear) ^ toggle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Effect<W> {
    pub set: W,
    pub clear: W,
    pub toggle: W,
}

impl<W: Word> Effect<W> {
    #[inline(always)]
    pub fn apply(&self, s: W) -> W {
        ((s | self.set) & !self.clear) ^ self.toggle
    }

    pub fn is_noop(&self) -> bool {
        *self == Self::default()
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

/// A predicate over a packed state, as a fast form or an expression node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond<W> {
    Always,
    Never,
    /// `s & mask == value`.
    Masked {
        mask: W,
        value: W,
    },
    Expr(NodeId),
}

/// Index into [`Model::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

/// A node of a compiled predicate.
#[derive(Debug, Clone)]
pub enum Node<W> {
    Masked {
        mask: W,
        value: W,
    },
    /// `s & mask != 0`.
    AnyBits(W),
    /// Mover `mover` stands at one of these positions (a bitmap by position).
    At {
        mover: u32,
        set: Vec<u64>,
    },
    And(Vec<Cond<W>>),
    Or(Vec<Cond<W>>),
    Not(Cond<W>),
}

/// A line of sight: the cells it crosses, in order, each with the effect of
/// seeing it. It ends at the first opaque tile.
pub type Ray<W> = Vec<(u32, Effect<W>)>;

/// One agent on one map: a single agent, or one member of a family.
#[derive(Debug, Clone, Copy)]
struct Instance {
    agent: AgentId,
    member: u32,
    start: u32,
    target: Option<u32>,
}

/// One move of a mover: where it ends, precomputed for the search.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// The position index reached.
    pub pos: u32,
    /// Its grid cell.
    pub cell: u32,
}

/// One moving (or standing) agent: a member of a family or a single agent.
#[derive(Debug, Clone)]
pub struct Mover<W> {
    pub offset: u32,
    pub bits: u32,
    /// `bits` ones at `offset`.
    pub mask: W,
    /// Position index -> grid cell.
    pub cells: Vec<u32>,
    /// The moves from `pos` (including to `pos` itself for `stay`) are
    /// `adj[adj_start[pos]..adj_start[pos + 1]]`. Empty for a lone mover
    /// (see [`Model::lone`]), which moves by [`Mover::exits`] instead.
    pub adj: Vec<Step>,
    pub adj_start: Vec<u32>,
    /// For a lone mover, padded cell -> position index, [`NONE`] outside
    /// the domain: move `i` from position `p` reaches
    /// `index[padded[p] + deltas[i]]`. Empty for others (see `adj`).
    pub index: Vec<u32>,
    /// For a lone mover, by padded cell: bit `i` set when move `i` lands on
    /// a cell it may stand on (it has at most the 8 neighbours: `stay` is
    /// no step in turn). Empty for others.
    pub exits: Vec<u8>,
    /// Position index -> condition to enter it (index into [`Model::conds`]);
    /// empty when the mover is `free`.
    pub entry: Vec<u32>,
    /// Every entry condition is `Always`.
    pub free: bool,
    /// Position index -> effect of entering it (index into
    /// [`Model::effects`]; 0 is no effect).
    pub on_enter: Vec<u32>,
    /// Position index -> effect of standing there after a step (`when` rules
    /// that do not depend on other movers).
    pub when_here: Vec<u32>,
    /// For a lone mover (see [`Model::lone`]), position index -> the
    /// effect of arriving there: `on_enter` then `when_here`. Empty for
    /// others, and when the mover has neither.
    pub arrive: Vec<u32>,
    /// Position index -> sight rays, when other movers can block sight.
    pub rays: Vec<Vec<Ray<W>>>,
    pub opaque: bool,
    pub start: u32,
    /// Position index -> cell of the model's padded grid.
    pub padded: Vec<u32>,
    /// What each of its moves adds to a padded cell.
    pub deltas: Vec<isize>,
}

impl<W: Word> Mover<W> {
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

    /// Position index `p` in this mover's field.
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

/// The transition system of one map.
#[derive(Debug, Clone)]
pub struct Model<W> {
    pub rows: usize,
    pub cols: usize,
    /// The grid inside a border (see [`Mover::padded`]): 1 where an agent
    /// may stand, 0 elsewhere. A move from a padded cell adds its delta.
    pub open: Vec<u8>,
    pub layout: Layout,
    pub movers: Vec<Mover<W>>,
    pub mode: Mode,
    pub forbid_same_cell: bool,
    pub forbid_swap: bool,
    pub nodes: Vec<Node<W>>,
    /// The distinct entry conditions, indexed by [`Mover::entry`].
    pub conds: Vec<Cond<W>>,
    /// The distinct effects, indexed by [`Mover::on_enter`] and
    /// [`Mover::when_here`]; the first is no effect.
    pub effects: Vec<Effect<W>>,
    pub start: W,
    pub goal: Cond<W>,
    pub limit: Option<u64>,
    /// Some mover's `when ... sees` effects depend on where others stand.
    pub dynamic_sight: bool,
    /// Some step can change a flag (else the search skips effects).
    pub has_effects: bool,
    /// Some `when` rule can fire (else settling a state does nothing).
    pub has_when: bool,
    /// Every move is undone by another move with the same conditions and no
    /// effects: steps are reversible.
    pub reversible: bool,
    /// The last mover's moves as bitmasks, when [`Reach`] applies.
    pub reach: Option<Reach>,
}

/// The moves of the last of several movers (two or three at once, or any
/// number in turn), all free and with no effects, as bitmasks over its
/// positions (at most [`Reach::MAX_POSITIONS`]). The last mover's field is
/// the lowest bits of a state, so the successors that differ only in its
/// move lie in one aligned run of `2^bits` values: a search with a bitset
/// store tests and marks them together (see
/// [`crate::search::Successors::rows`]).
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
}

impl Reach {
    /// The most positions a mask covers.
    pub const MAX_POSITIONS: usize = 256;

    /// The table for a model, if it applies.
    fn new<W: Word>(m: &Model<W>) -> Option<Reach> {
        let applies = m.small_at_once()
            || (m.mode == Mode::InTurn && m.movers.len() >= 2 && m.unconditional());
        let (last, others) = m.movers.split_last()?;
        if !applies || last.cells.len() > Self::MAX_POSITIONS {
            return None;
        }
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
                for (mask, &c) in masks.chunks_exact_mut(words).zip(&mv.cells) {
                    if slot[c as usize] != NONE {
                        set(mask, slot[c as usize] as usize);
                    }
                }
                masks
            })
            .collect();
        Some(Reach {
            words,
            moves,
            under,
        })
    }

    /// The `R` words at `p` of a table of masks.
    #[inline(always)]
    pub fn at<const R: usize>(table: &[u64], p: u32) -> [u64; R] {
        table[p as usize * R..][..R]
            .try_into()
            .expect("R words per mask")
    }
}

impl<W: Word> Model<W> {
    /// One mover taking steps: its successors depend on its position alone
    /// (and the flags), and it moves by [`Mover::exits`] with no move
    /// table built.
    pub fn lone(&self) -> bool {
        self.mode == Mode::InTurn && self.movers.len() == 1
    }

    /// No mover has an entry condition and no step has an effect: a step
    /// depends on the positions alone.
    pub fn unconditional(&self) -> bool {
        !self.has_effects && self.movers.iter().all(|mv| mv.free)
    }

    /// Two or three movers at once, unconditional: the search generates
    /// their successors in nested loops, or by [`Reach`].
    pub fn small_at_once(&self) -> bool {
        self.mode == Mode::AtOnce && (2..=3).contains(&self.movers.len()) && self.unconditional()
    }

    #[inline(always)]
    pub fn holds(&self, c: Cond<W>, s: W) -> bool {
        // The two common forms first, each a compare and a branch that
        // predicts well, rather than a jump through a table.
        if let Cond::Masked { mask, value } = c {
            return s & mask == value;
        }
        if c == Cond::Always {
            return true;
        }
        match c {
            Cond::Expr(id) => self.eval(id, s),
            _ => false,
        }
    }

    #[inline(never)]
    fn eval(&self, id: NodeId, s: W) -> bool {
        match &self.nodes[id.0 as usize] {
            Node::Masked { mask, value } => s & *mask == *value,
            Node::AnyBits(m) => s & *m != W::ZERO,
            Node::At { mover, set } => {
                let p = self.movers[*mover as usize].pos(s) as usize;
                set[p / 64] >> (p % 64) & 1 == 1
            }
            Node::And(cs) => cs.iter().all(|c| self.holds(*c, s)),
            Node::Or(cs) => cs.iter().any(|c| self.holds(*c, s)),
            Node::Not(c) => !self.holds(*c, s),
        }
    }

    /// The one state the goal allows, if the goal fixes every bit.
    pub fn goal_state(&self) -> Option<W> {
        match self.goal {
            Cond::Masked { mask, value } if mask == mask_ones::<W>(self.layout.bits) => Some(value),
            Cond::Always if self.layout.bits == 0 => Some(W::ZERO),
            _ => None,
        }
    }

    /// The grid cell of every mover in a state.
    pub fn cells_of(&self, s: W) -> Vec<u32> {
        self.movers
            .iter()
            .map(|m| m.cells[m.pos(s) as usize])
            .collect()
    }
}

/// The static board of one map: each cell's class (its tile and value),
/// and a padded copy of where agents may stand: the grid inside a border as
/// wide as the longest move, so that a move is one addition and never
/// leaves the array.
struct Board {
    rows: usize,
    cols: usize,
    /// Grid cell -> its class (see [`Classes`]): cells of one class share
    /// every property and rule.
    class: Vec<u32>,
    classes: Classes,
    /// Border width of the padded grid (at least 1, for sight).
    pad: usize,
    /// Row length of the padded grid.
    width: usize,
    /// Padded cell -> 1 where an agent may stand (on the board, not
    /// solid), 0 elsewhere.
    open: Vec<u8>,
}

/// Numbers the (tile, value) pairs of a rule set: one class per tile
/// without a value, then one per value of the widest domain.
#[derive(Clone, Copy)]
struct Classes {
    /// Class numbers per tile.
    per_tile: usize,
    /// How many classes there can be.
    len: usize,
}

impl Classes {
    fn new(rules: &Rules) -> Self {
        let per_tile = 1 + rules
            .domains
            .iter()
            .map(|d| d.values.len())
            .max()
            .unwrap_or(0);
        Classes {
            per_tile,
            len: rules.tiles.len() * per_tile,
        }
    }

    fn of(self, tile: TileId, value: Option<u32>) -> u32 {
        (tile.ix() * self.per_tile + value.map_or(0, |v| v as usize + 1)) as u32
    }

    fn tile(self, class: u32) -> TileId {
        TileId((class as usize / self.per_tile) as u32)
    }

    fn value(self, class: u32) -> Option<u32> {
        (class as usize % self.per_tile)
            .checked_sub(1)
            .map(|v| v as u32)
    }
}

impl Board {
    fn new(rules: &Rules, rows: usize, cols: usize, classes: Classes, class: Vec<u32>) -> Self {
        let reach = |d: &Dir| d.dr.unsigned_abs().max(d.dc.unsigned_abs()) as usize;
        let pad = rules
            .agents
            .iter()
            .flat_map(|a| a.moves.iter().map(reach))
            .max()
            .unwrap_or(0)
            .max(1);
        let open_class: Vec<u8> = (0..classes.len as u32)
            .map(|k| u8::from(!rules.tiles[classes.tile(k).ix()].solid))
            .collect();
        let width = cols + 2 * pad;
        let mut open = vec![0u8; width * (rows + 2 * pad)];
        for (r, row) in class.chunks_exact(cols).enumerate() {
            let at = (r + pad) * width + pad;
            for (o, &k) in open[at..at + cols].iter_mut().zip(row) {
                *o = open_class[k as usize];
            }
        }
        Board {
            rows,
            cols,
            class,
            classes,
            pad,
            width,
            open,
        }
    }

    fn tile(&self, cell: usize) -> TileId {
        self.classes.tile(self.class[cell])
    }

    fn value(&self, cell: usize) -> Option<u32> {
        self.classes.value(self.class[cell])
    }

    /// The padded index of grid cell `cell`.
    fn padded(&self, cell: u32) -> usize {
        let (r, c) = (cell as usize / self.cols, cell as usize % self.cols);
        (r + self.pad) * self.width + c + self.pad
    }

    /// The grid cell of a padded index; `None` on the border.
    fn cell(&self, pc: usize) -> Option<u32> {
        let (r, c) = (pc / self.width, pc % self.width);
        let (r, c) = (r.checked_sub(self.pad)?, c.checked_sub(self.pad)?);
        (r < self.rows && c < self.cols).then_some((r * self.cols + c) as u32)
    }

    /// What a move in direction `d` adds to a padded index.
    fn delta(&self, d: Dir) -> isize {
        d.dr as isize * self.width as isize + d.dc as isize
    }
}

/// A padded index moved by a [`Board::delta`]; stays in the padded grid
/// when the move is at most the border wide.
#[inline(always)]
fn shift(pc: usize, delta: isize) -> usize {
    pc.wrapping_add_signed(delta)
}

/// The cells an instance can ever stand on, in grid order, as grid cells
/// and as padded indexes.
struct Domain {
    cells: Vec<u32>,
    padded: Vec<u32>,
}

/// A map read against the rules: the board, the agent instances, their
/// position domains and the packed layout. Does not depend on the word type.
pub struct Prepared<'a> {
    pub rules: &'a Rules,
    board: Board,
    header: Vec<i64>,
    instances: Vec<Instance>,
    /// Position domains, by instance.
    domains: Vec<Domain>,
    pub layout: Layout,
}

/// Reads a map against the rules and lays out its state.
pub fn prepare<'a>(rules: &'a Rules, case: &RawCase) -> Result<Prepared<'a>, Vec<InputError>> {
    let (board, instances) = read_board(rules, case)?;
    let mut p = Prepared {
        rules,
        board,
        header: case.header.clone(),
        instances,
        domains: Vec::new(),
        layout: Layout::default(),
    };
    if rules.mode == Mode::AtOnce && p.instances.len() > MAX_AT_ONCE {
        return Err(vec![InputError::TooWide {
            message: format!(
                "case {} has {} agents moving at once; at most {MAX_AT_ONCE} can",
                case.number,
                p.instances.len()
            ),
            span: case.span(),
            help:
                "every step tries every combination of their moves: use `in turn`, or fewer agents"
                    .into(),
        }]);
    }
    p.domains = (0..p.instances.len()).map(|i| p.domain(i)).collect();
    p.layout = p.make_layout();
    Ok(p)
}

/// Builds the transition tables of a prepared map. `W` must hold
/// `p.layout.bits` bits.
pub fn compile<W: Word>(p: Prepared<'_>) -> Model<W> {
    let c = Compiler {
        p: &p,
        flag_offset: Vec::new(),
        class_entry: vec![NONE; p.board.classes.len],
        nodes: Vec::new(),
        movers: Vec::new(),
        conds: Interner::new(Cond::Always),
        effects: Interner::new(Effect::default()),
    };
    let mut model = c.build();
    // The board and the domains move into the model, with no copy.
    model.open = p.board.open;
    for (mv, d) in model.movers.iter_mut().zip(p.domains) {
        (mv.cells, mv.padded) = (d.cells, d.padded);
    }
    model.start = crate::search::settle(&model, model.start);
    model.reach = Reach::new(&model);
    model
}

struct Compiler<'p, 'a, W> {
    p: &'p Prepared<'a>,
    /// Bit offset of each flag's first value.
    flag_offset: Vec<u32>,
    /// Cell class (see [`Board::class`]) -> its entry condition (index into
    /// `conds`), or [`NONE`] until asked.
    class_entry: Vec<u32>,
    nodes: Vec<Node<W>>,
    movers: Vec<Mover<W>>,
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

fn bits_for(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

impl Prepared<'_> {
    /// See [`Model::lone`].
    fn lone(&self) -> bool {
        self.rules.mode == Mode::InTurn && self.instances.len() == 1
    }

    /// Positions first, flags after. The last mover gets the lowest bits:
    /// a simultaneous step varies it innermost, so the successors of one
    /// state then fall close together in a dense visited set.
    fn make_layout(&self) -> Layout {
        let mut parts = Vec::new();
        let mut off = 0;
        for (i, d) in self.domains.iter().enumerate().rev() {
            let b = bits_for(d.cells.len());
            parts.push(Part {
                name: self.instance_name(i),
                offset: off,
                bits: b,
                values: d.cells.len() as u64,
            });
            off += b;
        }
        parts.reverse();
        for f in &self.rules.flags {
            let n = f
                .domain
                .map_or(1, |d| self.rules.domains[d.ix()].values.len());
            for v in 0..n {
                let name = match f.domain {
                    Some(d) => format!("{}[{}]", f.name, self.rules.domains[d.ix()].values[v]),
                    None => f.name.clone(),
                };
                parts.push(Part {
                    name,
                    offset: off,
                    bits: 1,
                    values: 2,
                });
                off += 1;
            }
        }
        Layout { parts, bits: off }
    }

    fn instance_name(&self, i: usize) -> String {
        let Instance {
            agent: a,
            member: m,
            ..
        } = self.instances[i];
        let agent = &self.rules.agents[a.ix()];
        match agent.family {
            Some(_) => format!("{}[{}]", agent.name, m + 1),
            None => agent.name.clone(),
        }
    }

    fn cell_matches(&self, cell: usize, tile: TileId, sel: ValueSel) -> bool {
        self.class_matches(self.board.class[cell], tile, sel)
    }

    fn class_matches(&self, class: u32, tile: TileId, sel: ValueSel) -> bool {
        let classes = self.board.classes;
        classes.tile(class) == tile
            && match sel {
                ValueSel::Value(v) => classes.value(class) == Some(v),
                _ => true,
            }
    }

    /// By class: whether its cells match `tile` and `sel`.
    fn matching(&self, tile: TileId, sel: ValueSel) -> Vec<bool> {
        (0..self.board.classes.len as u32)
            .map(|k| self.class_matches(k, tile, sel))
            .collect()
    }

    fn opaque(&self, cell: usize) -> bool {
        self.rules.tiles[self.board.tile(cell).ix()].opaque
    }

    /// The cells instance `i` can ever stand on: reachable from its start by
    /// its moves through cells that are not solid. A lone agent's are every
    /// cell it may stand on: its states are positions times flags, so a few
    /// cells it cannot reach cost a few table entries, never a state, and
    /// less than finding them.
    fn domain(&self, i: usize) -> Domain {
        let Instance {
            agent: a, start, ..
        } = self.instances[i];
        let b = &self.board;
        let first = b.padded(start);
        let mut cells = vec![0u32; b.class.len()];
        let mut padded = vec![0u32; b.class.len()];
        let mut k = 0;
        // Writes every cell of the grid in order, keeping those `keep`
        // says: no branch on the map's layout.
        let mut scan = |keep: &[u8], want: u8| {
            for r in 0..b.rows {
                let row = (r + b.pad) * b.width + b.pad;
                for (c, &m) in keep[row..row + b.cols].iter().enumerate() {
                    cells[k] = (r * b.cols + c) as u32;
                    padded[k] = (row + c) as u32;
                    k += usize::from(m == want);
                }
            }
        };
        if self.instances.len() == 1 {
            scan(&b.open, 1);
            // The start, even on a cell no agent may enter.
            if b.open[first] == 0 {
                let at = padded[..k].partition_point(|&pc| (pc as usize) < first);
                cells.insert(at, start);
                padded.insert(at, first as u32);
                k += 1;
            }
        } else {
            // 2: in the domain. 1: open and not reached yet.
            let mut mark = b.open.clone();
            mark[first] = 2;
            let deltas: Vec<isize> = self.rules.agents[a.ix()]
                .moves
                .iter()
                .map(|d| b.delta(*d))
                .collect();
            let mut stack = vec![first as u32];
            while let Some(pc) = stack.pop() {
                for &d in &deltas {
                    let t = shift(pc as usize, d);
                    if mark[t] == 1 {
                        mark[t] = 2;
                        stack.push(t as u32);
                    }
                }
            }
            scan(&mark, 2);
        }
        cells.truncate(k);
        padded.truncate(k);
        Domain { cells, padded }
    }

    /// The grid cells seen from padded cell `from` looking in direction
    /// `d`, nearest first, up to and including the first opaque one.
    fn sight_line(&self, from: usize, d: Dir) -> impl Iterator<Item = usize> + '_ {
        let b = &self.board;
        let delta = b.delta(d);
        let mut pc = from;
        let mut blocked = false;
        std::iter::from_fn(move || {
            if blocked {
                return None;
            }
            pc = shift(pc, delta);
            let c = b.cell(pc)? as usize;
            blocked = self.opaque(c);
            Some(c)
        })
    }
}

impl<W: Word> Compiler<'_, '_, W> {
    /// The entry condition of the cells of a class, from the `solid`
    /// property and the `enter` rules (all rules matching a cell must
    /// hold), as an index into the condition table (0 is `Always`).
    /// Computed when first asked.
    fn class_entry(&mut self, class: u32) -> u32 {
        let k = class as usize;
        if self.class_entry[k] == NONE {
            let c = self.entry_for(class);
            self.class_entry[k] = self.conds.id(c);
        }
        self.class_entry[k]
    }

    fn entry_for(&mut self, class: u32) -> Cond<W> {
        let classes = self.p.board.classes;
        let tile = &self.p.rules.tiles[classes.tile(class).ix()];
        if tile.solid {
            return Cond::Never;
        }
        let mut parts = Vec::new();
        for r in &self.p.rules.enter_rules {
            if self.p.class_matches(class, r.tile, r.value) {
                let bound = classes.value(class);
                parts.push(self.expr(&r.cond, bound));
            }
        }
        self.and(parts)
    }

    fn set_flag_base(&mut self, base: u32) {
        self.flag_offset.clear();
        let mut off = base;
        for f in &self.p.rules.flags {
            self.flag_offset.push(off);
            off += f
                .domain
                .map_or(1, |d| self.p.rules.domains[d.ix()].values.len() as u32);
        }
    }

    /// The model, but for what [`compile`] moves in afterwards (the open
    /// grid, each mover's cells and padded indexes) and the settled start.
    fn build(mut self) -> Model<W> {
        let layout = self.p.layout.clone();
        assert!(
            layout.bits <= W::BITS,
            "the caller picks a word wide enough for the layout"
        );
        let pos_bits: u32 = self.p.domains.iter().map(|d| bits_for(d.cells.len())).sum();
        // Flags go after the positions.
        self.set_flag_base(pos_bits);

        // Sight depends on where the others stand only if some agent is
        // opaque and there is someone else to look past it.
        let rules = self.p.rules;
        let dynamic_sight = rules.when.iter().any(|w| w.relation == Relation::Sees)
            && self.p.instances.len() > 1
            && self
                .p
                .instances
                .iter()
                .any(|inst| rules.agents[inst.agent.ix()].opaque);
        for i in 0..self.p.instances.len() {
            let m = self.mover(i, self.p.layout.parts[i].offset, dynamic_sight);
            self.movers.push(m);
        }
        let mut start = W::ZERO;
        for m in &self.movers {
            start = start | (W::from_u64(m.start as u64) << m.offset);
        }
        let goal = self.expr(&self.p.rules.goal, None);
        let limit = self.p.rules.limit.map(|l| match l {
            SizeRef::Lit(n) => n,
            SizeRef::Field(f) => self.p.header.get(f).copied().unwrap_or(0).max(0) as u64,
        });
        let reversible = self.reversible();
        let has_effects = dynamic_sight || self.effects.table.len() > 1;
        let has_when = dynamic_sight
            || self
                .movers
                .iter()
                .any(|m| m.when_here.iter().any(|&e| e != 0));
        Model {
            rows: self.p.board.rows,
            cols: self.p.board.cols,
            open: Vec::new(),
            layout,
            movers: self.movers,
            mode: self.p.rules.mode,
            forbid_same_cell: self.p.rules.forbid_same_cell,
            forbid_swap: self.p.rules.forbid_swap,
            nodes: self.nodes,
            conds: self.conds.table,
            effects: self.effects.table,
            start,
            goal,
            limit,
            dynamic_sight,
            has_effects,
            has_when,
            reversible,
            reach: None,
        }
    }

    /// The tables of instance `i`.
    fn mover(&mut self, i: usize, offset: u32, dynamic_sight: bool) -> Mover<W> {
        let p = self.p;
        let Instance {
            agent: agent_id,
            start,
            ..
        } = p.instances[i];
        let agent = &p.rules.agents[agent_id.ix()];
        let domain = &p.domains[i];
        // Moved into the mover by `compile` once every rule is compiled.
        let cells = &domain.cells;
        let b = &p.board;
        let ncells = b.class.len();
        // Padded cell -> position index.
        let mut index = vec![NONE; b.open.len()];
        for (k, &pc) in domain.padded.iter().enumerate() {
            index[pc as usize] = k as u32;
        }
        // A mover with no moves stands still: its only move is `stay`. In
        // turn, standing still is no step at all.
        let mut dirs = agent.moves.clone();
        if dirs.is_empty() {
            dirs.push(Dir { dr: 0, dc: 0 });
        }
        if p.rules.mode == Mode::InTurn {
            dirs.retain(|d| *d != Dir { dr: 0, dc: 0 });
        }
        let deltas: Vec<isize> = dirs.iter().map(|d| b.delta(*d)).collect();
        // Entry conditions, first for the classes on the domain: if each is
        // `Always`, no position needs one.
        let mut present = vec![false; b.classes.len];
        for &c in cells {
            present[b.class[c as usize] as usize] = true;
        }
        let mut free = true;
        for k in (0..present.len()).filter(|&k| present[k]) {
            free &= self.class_entry(k as u32) == 0;
        }
        let entry: Vec<u32> = if free {
            Vec::new()
        } else {
            let class_entry = &self.class_entry;
            cells
                .iter()
                .map(|&c| class_entry[b.class[c as usize] as usize])
                .collect()
        };
        // The move table, unless the mover is lone. Every move is written
        // and kept only if it lands in the domain: no branch on the map's
        // layout.
        let (mut adj, mut adj_start) = (Vec::new(), Vec::new());
        if !p.lone() {
            adj = vec![Step { pos: 0, cell: 0 }; cells.len() * deltas.len()];
            adj_start.reserve(cells.len() + 1);
            let mut k = 0;
            for &pc in &domain.padded {
                adj_start.push(k as u32);
                for &d in &deltas {
                    let to = shift(pc as usize, d);
                    let t = index[to];
                    adj[k] = Step {
                        pos: t,
                        cell: if t == NONE { NONE } else { cells[t as usize] },
                    };
                    k += usize::from(t != NONE);
                }
            }
            adj.truncate(k);
            adj_start.push(adj.len() as u32);
        }
        let value = |c: usize| p.board.value(c);
        let mut on_enter = vec![0; cells.len()];
        let enter_rules: Vec<_> = p
            .rules
            .on_enter
            .iter()
            .filter(|r| r.agent.is_none_or(|a| a == agent_id))
            .collect();
        if !enter_rules.is_empty() {
            // Cells of one class have one effect: found once, by class.
            let mut by_class = vec![NONE; b.classes.len];
            for (q, &c) in cells.iter().enumerate() {
                let k = b.class[c as usize];
                if by_class[k as usize] == NONE {
                    let mut eff = Effect::default();
                    for r in &enter_rules {
                        if p.class_matches(k, r.tile, r.value) {
                            eff = eff.then(self.actions(&r.actions, b.classes.value(k)));
                        }
                    }
                    by_class[k as usize] = self.effects.id(eff);
                }
                on_enter[q] = by_class[k as usize];
            }
        }
        // `when` effects by grid cell of the mover (none: no table at all).
        let has_when = p.rules.when.iter().any(|w| w.agent == agent_id);
        // Effect ids by grid cell: 4 bytes a cell, composed through the table.
        let mut here = vec![0u32; if has_when { ncells } else { 0 }];
        // Sight rays by position index, when other movers can block them.
        let mut rays: Vec<Vec<Ray<W>>> =
            vec![Vec::new(); if dynamic_sight { cells.len() } else { 0 }];
        for w in p.rules.when.iter().filter(|w| w.agent == agent_id) {
            let hit = p.matching(w.tile, w.value);
            for t in (0..ncells).filter(|&t| hit[b.class[t] as usize]) {
                let eff = self.actions(&w.actions, value(t));
                match w.relation {
                    Relation::On => here[t] = self.compose(here[t], eff),
                    Relation::Sees if dynamic_sight => {}
                    Relation::Sees => {
                        // Walk outward from the seen cell: every cell reached
                        // sees it, up to and including the first opaque one.
                        let from = b.padded(t as u32);
                        for d in SIGHT {
                            for c in p.sight_line(from, d) {
                                here[c] = self.compose(here[c], eff);
                            }
                        }
                    }
                }
            }
            if dynamic_sight && w.relation == Relation::Sees {
                for (q, &pc) in domain.padded.iter().enumerate() {
                    for d in SIGHT {
                        let ray = p
                            .sight_line(pc as usize, d)
                            .map(|t| {
                                let e = if hit[b.class[t] as usize] {
                                    self.actions(&w.actions, value(t))
                                } else {
                                    Effect::default()
                                };
                                (t as u32, e)
                            })
                            .collect();
                        rays[q].push(ray);
                    }
                }
            }
        }
        let when_here = if has_when {
            cells.iter().map(|&c| here[c as usize]).collect()
        } else {
            vec![0; cells.len()]
        };
        // A lone mover's arrival: entering, then standing, as one effect.
        let arrive = if p.lone() && self.effects.table.len() > 1 {
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
        let start = index[b.padded(start)];
        assert_ne!(start, NONE, "a start is in its own domain");
        Mover {
            offset,
            bits: bits_for(cells.len()),
            mask: mask_ones::<W>(bits_for(cells.len())) << offset,
            start,
            cells: Vec::new(),
            adj,
            adj_start,
            exits: if p.lone() {
                exits(&b.open, &deltas)
            } else {
                Vec::new()
            },
            index: if p.lone() { index } else { Vec::new() },
            entry,
            free,
            on_enter,
            when_here,
            arrive,
            rays,
            opaque: agent.opaque,
            padded: Vec::new(),
            deltas,
        }
    }

    /// The id of effect `id` followed by `next`.
    fn compose(&mut self, id: u32, next: Effect<W>) -> u32 {
        let e = self.effects.table[id as usize].then(next);
        self.effects.id(e)
    }

    fn flag_bit(&self, flag: crate::resolve::FlagId, index: IndexRef, bound: Option<u32>) -> W {
        let v = match index {
            IndexRef::None => 0,
            IndexRef::Value(v) => v,
            IndexRef::Bound => bound.expect("a bound index has a value"),
        };
        W::ONE << (self.flag_offset[flag.ix()] + v)
    }

    fn flag_all(&self, flag: crate::resolve::FlagId) -> W {
        let f = &self.p.rules.flags[flag.ix()];
        let n = f
            .domain
            .map_or(1, |d| self.p.rules.domains[d.ix()].values.len() as u32);
        mask_ones::<W>(n) << self.flag_offset[flag.ix()]
    }

    fn actions(&self, acts: &[Action], bound: Option<u32>) -> Effect<W> {
        let mut e = Effect::default();
        for a in acts {
            let bit = self.flag_bit(a.flag, a.index, bound);
            let one = match a.verb {
                Verb::Set => Effect {
                    set: bit,
                    ..Default::default()
                },
                Verb::Clear => Effect {
                    clear: bit,
                    ..Default::default()
                },
                Verb::Toggle => Effect {
                    toggle: bit,
                    ..Default::default()
                },
            };
            e = e.then(one);
        }
        e
    }

    fn push(&mut self, n: Node<W>) -> Cond<W> {
        self.nodes.push(n);
        Cond::Expr(NodeId(self.nodes.len() as u32 - 1))
    }

    /// The positions of instance `i` where it stands on `place`.
    fn positions(&self, i: usize, place: PlaceRef) -> Vec<bool> {
        let target = self.p.instances[i].target;
        let cells = &self.p.domains[i].cells;
        cells
            .iter()
            .map(|&c| match place {
                PlaceRef::Target => Some(c) == target,
                PlaceRef::Tile(t, sel) => self.p.cell_matches(c as usize, t, sel),
            })
            .collect()
    }

    fn at(&mut self, i: usize, place: PlaceRef) -> Cond<W> {
        let set = self.positions(i, place);
        let count = set.iter().filter(|b| **b).count();
        if count == 0 {
            return Cond::Never;
        }
        if count == set.len() {
            return Cond::Always;
        }
        let offset = self.p.layout.parts[i].offset;
        if count == 1 {
            let p = set.iter().position(|b| *b).unwrap() as u64;
            let bits = bits_for(set.len());
            return Cond::Masked {
                mask: mask_ones::<W>(bits) << offset,
                value: W::from_u64(p) << offset,
            };
        }
        let mut words = vec![0u64; set.len().div_ceil(64)];
        for (p, b) in set.iter().enumerate() {
            if *b {
                words[p / 64] |= 1 << (p % 64);
            }
        }
        self.push(Node::At {
            mover: i as u32,
            set: words,
        })
    }

    /// Compiles a checked expression; `bound` is the value of the rule's
    /// pattern variable at the cell the rule is compiled for.
    fn expr(&mut self, e: &Expr, bound: Option<u32>) -> Cond<W> {
        match e {
            Expr::Flag { flag, index } => {
                let b = self.flag_bit(*flag, *index, bound);
                Cond::Masked { mask: b, value: b }
            }
            Expr::AllFlags(f) => {
                let m = self.flag_all(*f);
                Cond::Masked { mask: m, value: m }
            }
            Expr::AnyFlag(f) => {
                let m = self.flag_all(*f);
                self.push(Node::AnyBits(m))
            }
            Expr::On {
                agent,
                members,
                place,
            } => {
                let inst: Vec<usize> = (0..self.p.instances.len())
                    .filter(|i| self.p.instances[*i].agent == *agent)
                    .collect();
                let parts: Vec<Cond<W>> = inst.iter().map(|i| self.at(*i, *place)).collect();
                match members {
                    Members::Any => self.or(parts),
                    _ => self.and(parts),
                }
            }
            Expr::And(es) => {
                let parts = es.iter().map(|e| self.expr(e, bound)).collect();
                self.and(parts)
            }
            Expr::Or(es) => {
                let parts = es.iter().map(|e| self.expr(e, bound)).collect();
                self.or(parts)
            }
            Expr::Not(e) => match self.expr(e, bound) {
                Cond::Always => Cond::Never,
                Cond::Never => Cond::Always,
                c => self.push(Node::Not(c)),
            },
        }
    }

    /// A conjunction, folding constants and merging masks.
    fn and(&mut self, parts: Vec<Cond<W>>) -> Cond<W> {
        let (mut mask, mut value) = (W::ZERO, W::ZERO);
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Cond::Always => {}
                Cond::Never => return Cond::Never,
                Cond::Masked { mask: m, value: v } => {
                    if (mask & m) & (value ^ v) != W::ZERO {
                        return Cond::Never;
                    }
                    mask = mask | m;
                    value = value | v;
                }
                c => rest.push(c),
            }
        }
        let masked = (mask != W::ZERO).then_some(Cond::Masked { mask, value });
        match (masked, rest.len()) {
            (None, 0) => Cond::Always,
            (Some(m), 0) => m,
            (None, 1) => rest[0],
            (m, _) => {
                rest.extend(m);
                self.push(Node::And(rest))
            }
        }
    }

    fn or(&mut self, parts: Vec<Cond<W>>) -> Cond<W> {
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Cond::Always => return Cond::Always,
                Cond::Never => {}
                c => rest.push(c),
            }
        }
        match rest.len() {
            0 => Cond::Never,
            1 => rest[0],
            _ => self.push(Node::Or(rest)),
        }
    }

    /// Steps are reversible when no rule has effects, entry conditions do
    /// not depend on anything, and every direction has its opposite.
    fn reversible(&self) -> bool {
        let r = self.p.rules;
        r.on_enter.is_empty()
            && r.when.is_empty()
            && r.enter_rules.is_empty()
            && r.agents.iter().all(|a| {
                a.moves.iter().all(|d| {
                    a.moves.contains(&Dir {
                        dr: -d.dr,
                        dc: -d.dc,
                    })
                })
            })
    }
}

/// By padded cell: bit `i` set when move `deltas[i]` lands on an open cell.
/// A lone mover's domain is every open cell and its start; moving onto the
/// start, when it is not open, is never allowed (its entry is `Never`).
fn exits(open: &[u8], deltas: &[isize]) -> Vec<u8> {
    assert!(deltas.len() <= 8, "moves are distinct neighbours");
    let mut exits = vec![0u8; open.len()];
    for (i, &d) in deltas.iter().enumerate() {
        // Every cell whose neighbour by `d` is in the array, in one pass.
        let n = open.len() - d.unsigned_abs();
        let (from, to) = if d >= 0 {
            (0, d as usize)
        } else {
            (-d as usize, 0)
        };
        for (e, &o) in exits[from..from + n].iter_mut().zip(&open[to..to + n]) {
            *e |= o << i;
        }
    }
    exits
}

/// The directions of sight: along the row and the column.
const SIGHT: [Dir; 4] = [
    Dir { dr: -1, dc: 0 },
    Dir { dr: 1, dc: 0 },
    Dir { dr: 0, dc: -1 },
    Dir { dr: 0, dc: 1 },
];

fn mask_ones<W: Word>(n: u32) -> W {
    if n == 0 {
        W::ZERO
    } else if n >= W::BITS {
        !W::ZERO
    } else {
        !W::ZERO >> (W::BITS - n)
    }
}

/// Reads the grid into a board and finds each agent instance's start and
/// target. Reports every problem in the map at once.
fn read_board(rules: &Rules, case: &RawCase) -> Result<(Board, Vec<Instance>), Vec<InputError>> {
    let mut errors = Vec::new();
    let classes = Classes::new(rules);
    let mut class = vec![0u32; case.cells.len()];
    // Family sizes, each within what its markers allow.
    let mut sizes = Vec::with_capacity(rules.agents.len());
    for agent in &rules.agents {
        let size: i64 = match agent.family {
            None => 1,
            Some(SizeRef::Lit(k)) => k.min(i64::MAX as u64) as i64,
            Some(SizeRef::Field(f)) => case.header.get(f).copied().unwrap_or(0),
        };
        if !(1..=agent.max_members as i64).contains(&size) {
            errors.push(InputError::FamilySize {
                message: format!(
                    "case {} asks for {size} members of `{}`, but its markers allow 1 to {}",
                    case.number, agent.name, agent.max_members
                ),
                span: case.span(),
                label: "in this case".into(),
                help: "check the header's family size".into(),
            });
        }
        sizes.push(size.clamp(0, agent.max_members as i64) as u32);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut starts: Vec<Vec<Vec<u32>>> = sizes
        .iter()
        .map(|&k| vec![Vec::new(); k as usize])
        .collect();
    let mut targets = starts.clone();
    let mut unknown: Vec<(usize, char)> = Vec::new();
    // The class of each ASCII tile character, from a table; markers, other
    // characters and unknown ones go through the legend.
    let ascii: Vec<u32> = (0..128u8)
        .map(|b| match rules.legend.get(&(b as char)) {
            Some(Glyph::Tile(t, v)) => classes.of(*t, *v),
            _ => NONE,
        })
        .collect();
    for (cell, ch) in case.cells.iter().enumerate() {
        if let Some(&k) = ascii.get(*ch as usize)
            && k != NONE
        {
            class[cell] = k;
            continue;
        }
        match rules.legend.get(ch) {
            None => unknown.push((cell, *ch)),
            Some(Glyph::Tile(t, v)) => class[cell] = classes.of(*t, *v),
            Some(g @ (Glyph::Start(a, m) | Glyph::Target(a, m))) => {
                class[cell] = classes.of(rules.agents[a.ix()].on, None);
                let list = if matches!(g, Glyph::Start(..)) {
                    &mut starts
                } else {
                    &mut targets
                };
                match list[a.ix()].get_mut(*m as usize) {
                    Some(v) => v.push(cell as u32),
                    None => errors.push(InputError::FamilySize {
                        message: format!(
                            "{ch:?} marks member {} of `{}`, but case {} has {} members",
                            m + 1,
                            rules.agents[a.ix()].name,
                            case.number,
                            sizes[a.ix()]
                        ),
                        span: case.cell_span(cell),
                        label: "no such member".into(),
                        help: "the header's family size and the markers in the map must agree"
                            .into(),
                    }),
                }
            }
        }
    }
    if !unknown.is_empty() {
        let mut legend: Vec<char> = rules.legend.keys().copied().collect();
        legend.sort_unstable();
        let legend: Vec<String> = legend.iter().map(|c| format!("{c:?}")).collect();
        // One report per distinct character: the first place it appears.
        let mut seen = Vec::new();
        for (cell, ch) in unknown {
            if !seen.contains(&ch) {
                seen.push(ch);
                errors.push(InputError::UnknownChar {
                    ch,
                    span: case.cell_span(cell),
                    legend: legend.join(" "),
                });
            }
        }
    }
    let mut instances = Vec::new();
    for (a, agent) in rules.agents.iter().enumerate() {
        for m in 0..starts[a].len() {
            let marker = |kind: &str, cells: &[u32]| -> Option<InputError> {
                let who = match agent.family {
                    Some(_) => format!("member {} of `{}`", m + 1, agent.name),
                    None => format!("`{}`", agent.name),
                };
                match cells.len() {
                    1 => None,
                    0 => Some(InputError::MarkerMissing {
                        message: format!("case {} has no {kind} for {who}", case.number),
                        span: case.span(),
                        label: "in this map".into(),
                        help: format!("put exactly one {kind} marker for {who} on the map"),
                    }),
                    k => Some(InputError::MarkerRepeated {
                        message: format!("case {} has {k} {kind}s for {who}", case.number),
                        span: case.cell_span(cells[1] as usize),
                        label: format!("another {kind}"),
                        help: format!("put exactly one {kind} marker for {who} on the map"),
                    }),
                }
            };
            let mut ok = true;
            if let Some(e) = marker("start", &starts[a][m]) {
                errors.push(e);
                ok = false;
            }
            if agent.has_targets
                && let Some(e) = marker("target", &targets[a][m])
            {
                errors.push(e);
                ok = false;
            }
            if ok {
                instances.push(Instance {
                    agent: AgentId(a as u32),
                    member: m as u32,
                    start: starts[a][m][0],
                    target: targets[a][m].first().copied(),
                });
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let board = Board::new(rules, case.rows, case.cols, classes, class);
    Ok((board, instances))
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

    #[test]
    fn bit_widths_cover_each_domain() {
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(2), 1);
        assert_eq!(bits_for(3), 2);
        assert_eq!(bits_for(128), 7);
        assert_eq!(bits_for(129), 8);
        assert_eq!(mask_ones::<u64>(0), 0);
        assert_eq!(mask_ones::<u64>(64), u64::MAX);
        assert_eq!(mask_ones::<u128>(70), (1u128 << 70) - 1);
    }
}
