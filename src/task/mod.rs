//! Phase 4: checked rules + one case -> [`Task`], the ground transition
//! system of that case.
//!
//! A task is typed state variables (positions, headings, flags, counters),
//! the movers that own positions and headings, their actions (each with an
//! id, a motion, a cost and the rules it fires), the rules that fire on
//! entering a cell, the facts derived after every step (a mover on a cell,
//! a mover seeing a cell) with the rules they fire, a goal expression and
//! the start states. It knows nothing of bits or words: [`crate::plan`]
//! chooses how states are packed and searched.
//!
//! Invariants of [`Task`]: every id indexes its table; every variable's
//! values are `0..size` (positions, headings, flags) or `lo..=hi`
//! (counters); each mover's `cells` are distinct grid cells in grid order,
//! closed under its moves through cells that are not solid (so a move never
//! leaves the domain); every start state gives every variable a value in
//! its range; expressions are folded (no `Const` below an `And`, `Or` or
//! `Not`).

mod domain;
mod ground;
mod phases;

pub use phases::{MAX_PHASES, set_trend};

pub use domain::Domain;
pub use ground::MAX_AT_ONCE;

pub use ground::ground;

use crate::resolve::TileId;

ids!(
    /// Index into [`Task::vars`].
    VarId,
    /// Index into [`Task::movers`].
    MoverId,
    /// Index into [`Task::actions`].
    ActionId,
    /// Index into [`Task::rules`].
    RuleId
);

/// Cell classes: cells of one class share every property and rule. Two
/// bytes a cell of the map (a map of millions of cells keeps one per cell);
/// a map needing more classes is reported ([`MAX_CLASSES`]).
pub type ClassId = u16;

/// The most cell classes a map may have: every (tile, value) pair of the
/// rules, and one per occurrence of a tile with state per occurrence (these
/// hold state of their own, and a state is at most
/// [`crate::plan::MAX_BITS`] bits wide anyway).
pub const MAX_CLASSES: usize = ClassId::MAX as usize + 1;

/// A piece's cells as (row, column) offsets from its anchor.
pub type Offsets = Vec<(i32, i32)>;

/// A row of a move's table of poses: the pose it takes, and its anchor's
/// shift.
pub type PoseRow = (u32, (i32, i32));

/// How the movers of a step move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One mover makes one move per step.
    InTurn,
    /// Every mover makes one of its moves in the same step.
    AtOnce,
    /// Every mover makes the same move in the same step, each as it can
    /// (see [`crate::kernel::Generic`]).
    Together,
}

/// A grid offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dir {
    pub dr: i8,
    pub dc: i8,
}

impl Dir {
    pub const STAY: Dir = Dir { dr: 0, dc: 0 };

    /// The four headings, clockwise from north: a heading variable's
    /// values index this.
    pub const COMPASS: [Dir; 4] = [
        Dir { dr: -1, dc: 0 },
        Dir { dr: 0, dc: 1 },
        Dir { dr: 1, dc: 0 },
        Dir { dr: 0, dc: -1 },
    ];

    /// The eight directions of a step, clockwise from north.
    pub const EIGHT: [Dir; 8] = [
        Dir { dr: -1, dc: 0 },
        Dir { dr: -1, dc: 1 },
        Dir { dr: 0, dc: 1 },
        Dir { dr: 1, dc: 1 },
        Dir { dr: 1, dc: 0 },
        Dir { dr: 1, dc: -1 },
        Dir { dr: 0, dc: -1 },
        Dir { dr: -1, dc: -1 },
    ];

    /// The offset a checked rule file wrote (the resolver keeps offsets
    /// within [`crate::resolve::MAX_REACH`], so they fit).
    pub fn of(d: crate::ast::Dir) -> Dir {
        Dir {
            dr: d.dr as i8,
            dc: d.dc as i8,
        }
    }

    /// Whether a move by this offset goes `way`: it is a whole number of
    /// `way`'s steps (a jump of two north goes north; a knight's jump
    /// goes no compass way).
    pub fn goes(self, way: Dir) -> bool {
        let (dr, dc) = (i32::from(self.dr), i32::from(self.dc));
        let (wr, wc) = (i32::from(way.dr), i32::from(way.dc));
        let k = if wr != 0 {
            dr / wr
        } else if wc != 0 {
            dc / wc
        } else {
            0
        };
        k >= 1 && dr == k * wr && dc == k * wc
    }

    pub fn opposite(self) -> Dir {
        Dir {
            dr: -self.dr,
            dc: -self.dc,
        }
    }
}

/// What a variable holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// A mover's position: a position of its [`Mover::domain`].
    Position(MoverId),
    /// A mover's heading: an index into [`Dir::COMPASS`].
    Heading(MoverId),
    /// A boolean: 0 or 1.
    Flag,
    /// A bounded integer `lo..=hi`; with `wrap`, arithmetic is modulo the
    /// range's size, without it a step that would leave the range is no
    /// step.
    Counter { lo: i64, hi: i64, wrap: bool },
    /// The time, kept as the steps taken up to `from + period - 1`, and
    /// from `from` on modulo `period` (every condition that reads the time
    /// is true at `t` just when it is at the value kept: see
    /// `ground::clock`).
    Clock { from: u32, period: u32 },
}

/// A state variable.
#[derive(Debug, Clone)]
pub struct Var {
    name: String,
    kind: VarKind,
    size: u64,
}

impl Var {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn kind(&self) -> VarKind {
        self.kind
    }

    /// How many values it takes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Its smallest value.
    pub fn lo(&self) -> i64 {
        match self.kind {
            VarKind::Counter { lo, .. } => lo,
            _ => 0,
        }
    }

    /// The clock's value after one more step.
    #[inline]
    pub fn tick(&self, v: i64) -> i64 {
        match self.kind {
            VarKind::Clock { from, period } if v + 1 >= i64::from(from) + i64::from(period) => {
                i64::from(from)
            }
            _ => v + 1,
        }
    }

    /// `v` if it is in range; for a wrapping counter, `v` brought into
    /// range.
    pub fn normal(&self, v: i64) -> Option<i64> {
        match self.kind {
            VarKind::Counter { lo, hi, wrap: true } => Some(lo + (v - lo).rem_euclid(hi - lo + 1)),
            _ => (self.lo()..self.lo() + self.size as i64)
                .contains(&v)
                .then_some(v),
        }
    }
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// A condition on a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Const(bool),
    /// The variable compared with a constant.
    Cmp(VarId, Cmp, i64),
    /// The mover stands at one of these positions (bit `p % 64` of word
    /// `p / 64`); shared, not copied, where a grounded test is used again
    /// (a large map's set is hundreds of KiB).
    At(MoverId, std::sync::Arc<[u64]>),
    /// The variable's value (less its smallest) is one of these (bit
    /// `v % 64` of word `v / 64`): the time read in a condition.
    In(VarId, Vec<u64>),
    /// Whether it holds at the mover's position and the clock's value
    /// (less its smallest), by a [`TimeTable`]: a field compared with the
    /// time (`burnt(joe) <= steps`), two look-ups.
    AtTime {
        mover: MoverId,
        clock: VarId,
        table: TimeTable,
        /// Every position's row only ever turns false as the time passes
        /// (`falls`), or only ever true (`rises`): worked out where it is
        /// made, from the few distinct rows.
        falls: bool,
        rises: bool,
    },
    /// Mover `b` stands on (a piece: covers) the cell `off` (rows,
    /// columns) from mover `a`'s cell: a cell test of a move's condition
    /// (`cell ahead has box`).
    Near {
        a: MoverId,
        b: MoverId,
        off: (i32, i32),
    },
    /// Movers' rows (`true`) or columns (`false`) on the map, each times
    /// its factor, added up and compared with a constant (`column of hero
    /// > its column`).
    Pos {
        terms: Vec<(i64, bool, MoverId)>,
        op: Cmp,
        k: i64,
    },
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
}

impl Expr {
    /// A conjunction, folded.
    pub fn and(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Expr::Const(true) => {}
                Expr::Const(false) => return Expr::Const(false),
                Expr::And(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Expr::Const(true),
            1 => out.pop().expect("one part"),
            _ => Expr::And(out),
        }
    }

    /// A disjunction, folded.
    pub fn or(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Expr::Const(false) => {}
                Expr::Const(true) => return Expr::Const(true),
                Expr::Or(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        match out.len() {
            0 => Expr::Const(false),
            1 => out.pop().expect("one part"),
            _ => Expr::Or(out),
        }
    }

    /// Whether every leaf (a comparison, a position test, a cell test)
    /// is one `leaf` accepts.
    pub fn reads_only(&self, leaf: &impl Fn(&Expr) -> bool) -> bool {
        match self {
            Expr::Const(_) => true,
            Expr::And(v) | Expr::Or(v) => v.iter().all(|e| e.reads_only(leaf)),
            Expr::Not(e) => e.reads_only(leaf),
            e => leaf(e),
        }
    }

    /// A negation, folded.
    #[allow(clippy::should_implement_trait)]
    pub fn not(e: Expr) -> Expr {
        match e {
            Expr::Const(b) => Expr::Const(!b),
            Expr::Not(inner) => *inner,
            e => Expr::Not(Box::new(e)),
        }
    }

    /// The mover at the positions whose bits `words` set (bit `p % 64` of
    /// word `p / 64`), folded when none are or all `len` positions that
    /// may be set are.
    pub fn at_words(mover: MoverId, words: Vec<u64>, len: usize) -> Expr {
        let n: usize = words.iter().map(|w| w.count_ones() as usize).sum();
        match n {
            0 => Expr::Const(false),
            _ if n == len => Expr::Const(true),
            _ => Expr::At(mover, words.into()),
        }
    }
}

/// Bit `i` of a table of words of 64 bits ([`TimeTable`]'s rows).
#[inline(always)]
fn table_bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

/// A condition by a mover's position and the clock's value: position `p`
/// reads row `key[p]`, a row of `times` bits (bit `v` set where it holds
/// at time `v`). Positions that read the same numbers share a row, so its
/// size is linear in the positions (a key each) plus the distinct rows'
/// bits, not positions x times (a distance on a million-cell maze has
/// a thousand numbers and as many times). Row 0 never holds: the
/// positions on no cell (a grid's padding) read it.
///
/// Shared, not copied, where a grounded condition is used again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeTable {
    key: std::sync::Arc<[u32]>,
    rows: std::sync::Arc<[u64]>,
    times: usize,
}

impl TimeTable {
    /// The table of `key` (a row per position) and `rows` (`times` bits
    /// each, row `k` from bit `k * times`).
    pub fn new(key: Vec<u32>, rows: Vec<u64>, times: usize) -> TimeTable {
        debug_assert!(
            key.iter()
                .all(|&k| (k as usize + 1) * times <= rows.len() * 64)
        );
        TimeTable {
            key: key.into(),
            rows: rows.into(),
            times,
        }
    }

    /// Whether it holds at position `p` at time `v`.
    #[inline(always)]
    pub fn holds(&self, p: usize, v: usize) -> bool {
        table_bit(&self.rows, self.key[p] as usize * self.times + v)
    }

    /// How many positions it has a row for.
    pub fn positions(&self) -> usize {
        self.key.len()
    }
}

/// What an effect does to its variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Set(i64),
    Add(i64),
    /// A flag flips.
    Toggle,
}

/// One change to one variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Effect {
    pub var: VarId,
    pub op: Op,
}

/// Effects that happen together when a rule fires and its condition holds
/// (checked on the state as it is when the rule fires).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub cond: Expr,
    pub effects: Vec<Effect>,
}

impl Rule {
    /// No condition, and only flags set, cleared or toggled.
    pub fn is_plain(&self, task: &Task) -> bool {
        self.cond == Expr::Const(true)
            && self
                .effects
                .iter()
                .all(|e| task.vars[e.var.ix()].kind == VarKind::Flag)
    }
}

/// How an action moves its mover, as the core composes every move: a turn
/// on the spot, then a shift along a way, made once or again and again as
/// far as it goes. The language's moves are definitions on it: `north` is
/// a shift by (-1, 0) once, `slide north` the same shift as far as it goes,
/// `(2, 1)` a shift by that offset, `forward` and `back` a shift along or
/// against the heading, `turn left` a turn by -1 and no shift, `stay`
/// neither, and a piece's table move a shift and a pose by its table.
/// What follows a move (entering cells, riding slippery ones, teleports,
/// pushes, carrying tiles, movers by themselves, bodies) is the step's, the
/// same for every move (see [`crate::kernel::Generic`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Motion {
    /// Quarter turns clockwise (negative: anticlockwise), made first.
    pub turn: i8,
    /// Where the shift goes.
    pub way: Way,
    /// The shift is made again and again, cell after cell, until the next
    /// cell stops it (a slide); else once.
    pub far: bool,
}

/// Where a move's shift goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// No shift.
    Nowhere,
    /// By a fixed offset.
    By(Dir),
    /// One cell along the heading.
    Ahead,
    /// One cell against the heading, still facing it.
    Behind,
    /// By the table of the mover's pose, the way named (a piece with poses;
    /// see [`Action::table`]).
    Table(Dir),
}

impl Motion {
    /// No turn and no shift.
    pub const STAY: Motion = Motion {
        turn: 0,
        way: Way::Nowhere,
        far: false,
    };

    /// A shift by `d`, once.
    pub fn step(d: Dir) -> Motion {
        Motion {
            way: Way::By(d),
            ..Motion::STAY
        }
    }

    /// A shift by `d` as far as it goes.
    pub fn slide(d: Dir) -> Motion {
        Motion {
            way: Way::By(d),
            far: true,
            ..Motion::STAY
        }
    }

    /// A shift along the heading (`Ahead`) or against it (`Behind`), once.
    pub fn along(way: Way) -> Motion {
        Motion {
            way,
            ..Motion::STAY
        }
    }

    /// `k` quarter turns clockwise, no shift.
    pub fn turn(k: i8) -> Motion {
        Motion {
            turn: k,
            ..Motion::STAY
        }
    }

    /// A shift by the pose's table, the way named.
    pub fn table(d: Dir) -> Motion {
        Motion {
            way: Way::Table(d),
            ..Motion::STAY
        }
    }

    /// A shift by a fixed offset with no turn: the offset, and whether it
    /// goes as far as it can (the moves the slide and bodies kernels make).
    pub fn shift(self) -> Option<(Dir, bool)> {
        match self.way {
            Way::By(d) if self.turn == 0 => Some((d, self.far)),
            _ => None,
        }
    }

    /// The offset of a shift by a fixed offset (once or far).
    pub fn offset(self) -> Option<Dir> {
        match self.way {
            Way::By(d) => Some(d),
            _ => None,
        }
    }

    /// The direction the shift goes for a mover heading `heading` (an
    /// index into [`Dir::COMPASS`]), after the turn; `None` for no shift or
    /// a table's.
    pub fn dir(self, heading: i64) -> Option<Dir> {
        let h = (heading + i64::from(self.turn)).rem_euclid(4) as usize;
        match self.way {
            Way::By(d) => Some(d),
            Way::Ahead => Some(Dir::COMPASS[h]),
            Way::Behind => Some(Dir::COMPASS[h].opposite()),
            Way::Nowhere | Way::Table(_) => None,
        }
    }

    /// The move that undoes it, if one plain motion does: the opposite
    /// shift, or turn (a slide, or a table's move, has none in general).
    pub fn undo(self) -> Option<Motion> {
        if self.far {
            return None;
        }
        let way = match self.way {
            Way::Nowhere => Way::Nowhere,
            Way::By(d) => Way::By(d.opposite()),
            Way::Ahead => Way::Behind,
            Way::Behind => Way::Ahead,
            Way::Table(_) => return None,
        };
        // A turn and a shift together: undone by the opposite shift and
        // then the opposite turn, which is not one motion.
        if self.turn != 0 && way != Way::Nowhere {
            return None;
        }
        Some(Motion {
            turn: -self.turn,
            way,
            far: false,
        })
    }

    /// In words, as the core has it (for `explain`).
    pub fn describe(self) -> String {
        let mut parts = Vec::new();
        if self.turn != 0 {
            parts.push(format!("turn {:+}", self.turn));
        }
        let reach = if self.far { " as far as it goes" } else { "" };
        match self.way {
            Way::Nowhere => {}
            Way::By(d) => parts.push(format!("shift ({}, {}){reach}", d.dr, d.dc)),
            Way::Ahead => parts.push(format!("shift along the heading{reach}")),
            Way::Behind => parts.push(format!("shift against the heading{reach}")),
            Way::Table(_) => parts.push("shift and pose by its table".into()),
        }
        if parts.is_empty() {
            "stay".into()
        } else {
            parts.join(", then ")
        }
    }
}

/// One thing a mover can do in a step.
#[derive(Debug, Clone)]
pub struct Action {
    name: String,
    mover: MoverId,
    motion: Motion,
    cost: u32,
    /// The condition it is taken on, on the state before it (`if`).
    guard: Expr,
    /// Rules that fire when the action is taken (after its move and the
    /// rules of the cell entered).
    rules: Vec<RuleId>,
    /// For [`Way::Table`]: per pose of its mover, the pose it takes and
    /// its anchor's shift; empty otherwise.
    table: Vec<(u32, (i32, i32))>,
    /// How it is written in a way, when the rule file says.
    letter: Option<crate::resolve::Letter>,
}

impl Action {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn mover(&self) -> MoverId {
        self.mover
    }

    pub fn motion(&self) -> Motion {
        self.motion
    }

    /// Its cost when it enters no cell with a cost of its own.
    pub fn cost(&self) -> u32 {
        self.cost
    }

    pub fn rules(&self) -> &[RuleId] {
        &self.rules
    }

    /// The condition it is taken on (`Const(true)`: always).
    /// See [`Action::table`]'s field.
    pub fn table(&self) -> &[(u32, (i32, i32))] {
        &self.table
    }

    /// How it is written in a way (`{path}`, `--moves`), when the rule
    /// file says.
    pub fn letter(&self) -> Option<&crate::resolve::Letter> {
        self.letter.as_ref()
    }

    pub fn guard(&self) -> &Expr {
        &self.guard
    }
}

/// A mover: an agent, or one member of a family.
#[derive(Debug, Clone)]
pub struct Mover {
    name: String,
    /// The rules' agent it is, and which member of its family (0 for a
    /// single agent).
    agent: crate::resolve::AgentId,
    member: u32,
    pos: VarId,
    heading: Option<VarId>,
    /// The cells it may stand on: its positions.
    domain: Domain,
    opaque: bool,
    actions: Vec<ActionId>,
    /// Rules of facts derived about it after every step, in the order they
    /// fire: its `on` facts, then its `sees` facts.
    when: Vec<When>,
    /// For a member of an object (no actions; pushed), what it is.
    object: Option<Object>,
    /// The movers interchangeable with it, itself among them (consecutive
    /// ids; only itself, for most): members of one object, or pieces of
    /// one shape in one declaration. They share one domain, and a state
    /// holds their positions in increasing order.
    twins: std::ops::Range<u32>,
    /// For a piece: each of its cells as a (row, column) offset from its
    /// position's cell (the first of them in grid order, so `(0, 0)`
    /// first); empty for a mover of one cell.
    shape: Vec<(i32, i32)>,
    /// For a mover that moves by itself (`by itself`; then `actions` is
    /// empty): how many moves it makes after every step, and its moves in
    /// the order it prefers them.
    script: Option<(u32, Vec<ActionId>)>,
    /// For a piece with poses: the variable holding its pose, and each
    /// pose's cells (offsets from its anchor, (0, 0) among them; `shape`
    /// is then empty).
    poses: Option<(VarId, Vec<Offsets>)>,
    /// For a member of a body (`follows`): the mover before it, whose
    /// cell it takes when that one leaves it.
    follows: Option<MoverId>,
}

/// What a mover that is a member of an object has: agents push it; its
/// fellow members are its twins.
#[derive(Debug, Clone)]
pub struct Object {
    /// What a step that pushes it costs, if not its move's cost.
    pub push_cost: Option<u32>,
    /// When the goal puts it on some positions: per position, the fewest
    /// pushes that bring it to one of them on a board with nothing else on
    /// it and every cell that is not solid open (`u32::MAX`: none can, the
    /// position is dead). Never more than the pushes, hence the steps,
    /// needed.
    pub pushes_to_goal: Option<Vec<u32>>,
}

impl Mover {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pos(&self) -> VarId {
        self.pos
    }

    pub fn agent(&self) -> crate::resolve::AgentId {
        self.agent
    }

    pub fn member(&self) -> u32 {
        self.member
    }

    pub fn heading(&self) -> Option<VarId> {
        self.heading
    }

    /// The cells it may stand on, numbered: its positions.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    pub fn opaque(&self) -> bool {
        self.opaque
    }

    pub fn actions(&self) -> &[ActionId] {
        &self.actions
    }

    pub fn when(&self) -> &[When] {
        &self.when
    }

    /// What it is if it is a member of an object.
    pub fn object(&self) -> Option<&Object> {
        self.object.as_ref()
    }

    /// The movers interchangeable with it (see the field).
    pub fn twins(&self) -> std::ops::Range<u32> {
        self.twins.clone()
    }

    /// A piece's cells as offsets from its position's cell; empty for one
    /// cell.
    pub fn shape(&self) -> &[(i32, i32)] {
        &self.shape
    }

    /// The cells it covers in `vals`, as offsets from its position's cell:
    /// its pose's, for a piece with poses, else [`Self::shape`].
    pub fn shape_in(&self, vals: &[i64]) -> &[(i32, i32)] {
        match &self.poses {
            Some((v, poses)) => &poses[vals[v.ix()] as usize],
            None => &self.shape,
        }
    }

    /// For a member of a body: the mover before it (see [`Mover`]).
    pub fn follows(&self) -> Option<MoverId> {
        self.follows
    }

    /// It moves, though none of its moves is chosen: an object's member
    /// (pushed), a body's (following), one that moves by itself. No
    /// distance of its own moves tells where a step takes it.
    pub fn moved_by_others(&self) -> bool {
        self.object.is_some() || self.follows.is_some() || self.script.is_some()
    }

    /// It blocks every mover, always: an object's member (pushed, not
    /// shared) and a body's.
    pub fn blocks(&self) -> bool {
        self.object.is_some() || self.follows.is_some()
    }

    /// A piece: of several cells, or with poses.
    pub fn is_piece(&self) -> bool {
        !self.shape.is_empty() || self.poses.is_some()
    }

    /// For a piece with poses: its pose variable and each pose's cells.
    pub fn poses(&self) -> Option<(VarId, &[Offsets])> {
        self.poses.as_ref().map(|(v, p)| (*v, &p[..]))
    }

    /// For a mover that moves by itself: how many moves it makes after
    /// every step, and its moves in the order it prefers them.
    pub fn script(&self) -> Option<(u32, &[ActionId])> {
        self.script.as_ref().map(|(n, a)| (*n, &a[..]))
    }

    /// The position of grid cell `cell`, if it is in the domain.
    pub fn position_of(&self, cell: u32) -> Option<u32> {
        self.domain.position_of(cell)
    }

    /// The position of grid cell `cell`, searched from its position in
    /// `vals` outward (a move's cell is near its mover's).
    pub fn position_from(&self, cell: u32, vals: &[i64]) -> Option<u32> {
        self.domain.position_near(cell, vals[self.pos.ix()] as u32)
    }
}

/// A fact about a mover, derived after every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// It stands on the cell.
    On,
    /// It sees the cell: along its row or column, from the next cell
    /// outward, up to and including the first opaque cell, unless an opaque
    /// mover stands in the way (the cell under it is not seen).
    Sees,
}

/// `when MOVER RELATION CELL: rules`, per class of the cell.
#[derive(Debug, Clone)]
pub struct When {
    pub relation: Relation,
    /// Class -> the rule fired for a cell of that class, if any.
    pub by_class: Vec<Option<RuleId>>,
}

/// The map's place on the board: inside a ring `ring` cells wide (1 with a
/// `border` tile, else 0) of the border tile.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ringed {
    ring: usize,
    /// The map's size.
    rows: usize,
    cols: usize,
}

impl Ringed {
    /// The board's width.
    fn width(self) -> usize {
        self.cols + 2 * self.ring
    }

    /// How many cells the board has.
    fn len(self) -> usize {
        (self.rows + 2 * self.ring) * self.width()
    }

    /// The board cells of the map's cells in order (`board(0)`,
    /// `board(1)`, ...), row by row: no division a cell, where a large map
    /// has millions.
    fn boards(self) -> impl Iterator<Item = u32> {
        let (width, ring, cols) = (self.width(), self.ring, self.cols);
        (0..self.rows).flat_map(move |r| {
            let at = (r + ring) * width + ring;
            (at..at + cols).map(|x| x as u32)
        })
    }

    /// The board cell of map cell `cell`.
    fn board(self, cell: usize) -> u32 {
        let (r, c) = (cell / self.cols, cell % self.cols);
        ((r + self.ring) * self.width() + c + self.ring) as u32
    }

    /// The board cell at row `r`, column `c` of the map (from 0; -1 and
    /// the size are the ring's, if there is one).
    pub(crate) fn at(self, r: i64, c: i64) -> Option<u32> {
        let ring = self.ring as i64;
        let inside = |x: i64, n: usize| (-ring..n as i64 + ring).contains(&x);
        (inside(r, self.rows) && inside(c, self.cols))
            .then(|| ((r + ring) * self.width() as i64 + c + ring) as u32)
    }

    /// The row and column on the map of board cell `cell` (-1, and the
    /// map's size, on the ring).
    pub(crate) fn coords(self, cell: u32) -> (i64, i64) {
        let (r, c) = (cell as usize / self.width(), cell as usize % self.width());
        (r as i64 - self.ring as i64, c as i64 - self.ring as i64)
    }

    /// Where board cell `cell` is in the input: its map cell's place, or
    /// the whole case's for a cell of the ring.
    fn span(self, case: &crate::input::RawCase, cell: u32) -> miette::SourceSpan {
        match self.coords(cell) {
            (r, c) if (0..self.rows as i64).contains(&r) && (0..self.cols as i64).contains(&c) => {
                case.cell_span(r as usize * self.cols + c as usize)
            }
            _ => case.span(),
        }
    }
}

/// The static board: each cell's class, and a padded copy of where movers
/// may stand (the grid inside a border as wide as the longest move, so a
/// move is one addition and never leaves the array).
#[derive(Debug, Clone)]
pub struct Board {
    /// The board's size: the map's, and a ring on every side.
    rows: usize,
    cols: usize,
    /// The map's place on the board: inside a ring of the `border` tile
    /// one cell wide if the rules have one. Rows and columns of the map
    /// (`at (r, c)`, reports) count from the map's first cell, inside it.
    grid: Ringed,
    /// Grid cell -> class (shared by the copies of a task: its phases).
    class: std::sync::Arc<[ClassId]>,
    classes: Vec<Class>,
    pad: usize,
    width: usize,
    /// Padded cell -> 1 where a mover may stand (on the board, not solid);
    /// shared by the copies of a task.
    open: std::sync::Arc<[u8]>,
    /// Class -> whether some cell of the map has it.
    present: Vec<bool>,
    /// Class -> its cells, in grid order, for the classes some rule fires
    /// on (empty for the others).
    cells_of: Vec<Vec<u32>>,
    /// Each teleport's end, its other end, and whether going through is
    /// optional, in order of the ends (a few cells of the map: not a table
    /// of every cell).
    teleport: Vec<(u32, u32, bool)>,
}

/// What the cells of a class are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    pub tile: TileId,
    pub value: Option<u32>,
    /// For a tile with state per occurrence: which occurrence.
    pub occurrence: Option<u32>,
    pub solid: bool,
    pub opaque: bool,
    /// A mover that enters it keeps going.
    pub slippery: bool,
    /// A slide ends on it.
    pub stops: bool,
}

impl Class {
    /// Whether a move goes on from a cell of this class: a step from a
    /// slippery cell, a slide from any cell that does not stop slides. A
    /// piece of several cells goes on when every cell it covers carries
    /// it (a tile is never both slippery and a stop, so that is: all of
    /// them slippery, or, for a slide, none a stop).
    pub fn carries(&self, slide: bool) -> bool {
        self.slippery || (slide && !self.stops)
    }
}

impl Board {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// How many cells of border the padded grid has on each side.
    pub fn pad(&self) -> usize {
        self.pad
    }

    pub fn class(&self, cell: u32) -> ClassId {
        self.class[cell as usize]
    }

    /// The cells of class `k`, in grid order: only for classes some rule
    /// fires on (an `on enter` or a `when` rule), empty for the others.
    pub fn cells_of(&self, k: ClassId) -> &[u32] {
        &self.cells_of[k as usize]
    }

    /// Grid cell -> class, for every cell.
    pub fn cell_classes(&self) -> &[ClassId] {
        &self.class
    }

    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// Every class, in order (there may be [`MAX_CLASSES`] of them: a range
    /// of `ClassId` could not say the last).
    pub fn class_ids(&self) -> impl Iterator<Item = ClassId> + use<> {
        (0..self.classes.len()).map(|k| k as ClassId)
    }

    /// Whether some cell of the map has class `k`.
    pub fn present(&self, k: ClassId) -> bool {
        self.present[k as usize]
    }

    /// The teleport of a cell that is a teleport's end: its other end, and
    /// whether going through is optional.
    #[inline]
    pub fn teleport(&self, cell: u32) -> Option<(u32, bool)> {
        if self.teleport.is_empty() {
            return None;
        }
        let i = self.teleport.binary_search_by_key(&cell, |t| t.0).ok()?;
        let (_, other, optional) = self.teleport[i];
        Some((other, optional))
    }

    /// Every teleport's end: (end, other end, optional), in order of the
    /// ends.
    pub fn teleports(&self) -> &[(u32, u32, bool)] {
        &self.teleport
    }

    /// Whether some cell is a teleport's end.
    pub fn has_teleports(&self) -> bool {
        !self.teleport.is_empty()
    }

    /// Whether some cell of the map is slippery.
    pub fn has_slippery(&self) -> bool {
        self.classes
            .iter()
            .enumerate()
            .any(|(k, c)| c.slippery && self.present[k])
    }

    /// How wide the ring around the map is (0 or 1).
    pub fn ring(&self) -> usize {
        self.grid.ring
    }

    /// The row and column of board cell `cell` on the map, from 0 (-1,
    /// and the map's size, on the ring).
    pub fn coords(&self, cell: u32) -> (i64, i64) {
        self.grid.coords(cell)
    }

    /// The board cell at row `r`, column `c` of the map (see
    /// [`Board::coords`]), if there is one.
    pub fn at(&self, r: i64, c: i64) -> Option<u32> {
        self.grid.at(r, c)
    }

    pub fn class_of(&self, cell: u32) -> &Class {
        &self.classes[self.class[cell as usize] as usize]
    }

    /// Cells of the padded grid: 1 where a mover may stand.
    pub fn open(&self) -> &[u8] {
        &self.open
    }

    /// The padded index of grid cell `cell`.
    pub fn padded(&self, cell: u32) -> usize {
        let (r, c) = (cell as usize / self.cols, cell as usize % self.cols);
        (r + self.pad) * self.width + c + self.pad
    }

    /// The grid cell of a padded index; `None` on the border.
    pub fn cell(&self, pc: usize) -> Option<u32> {
        let (r, c) = (pc / self.width, pc % self.width);
        let (r, c) = (r.checked_sub(self.pad)?, c.checked_sub(self.pad)?);
        (r < self.rows && c < self.cols).then_some((r * self.cols + c) as u32)
    }

    /// What a move by `d` adds to a padded index.
    pub fn delta(&self, d: Dir) -> isize {
        d.dr as isize * self.width as isize + d.dc as isize
    }

    /// The cell one move by `d` from `cell`, if it is on the board.
    pub fn step(&self, cell: u32, d: Dir) -> Option<u32> {
        self.shifted(cell, (d.dr as i32, d.dc as i32))
    }

    /// The cell `off` (rows, columns) away from `cell`, if it is on the
    /// board: a piece's cell from its position's.
    pub fn shifted(&self, cell: u32, off: (i32, i32)) -> Option<u32> {
        self.shifted_rc(self.rc(cell), off)
    }

    /// Grid cell `cell`'s row and column (one division: a move that
    /// shifts a piece's cells from one anchor divides once).
    #[inline]
    pub fn rc(&self, cell: u32) -> (usize, usize) {
        (cell as usize / self.cols, cell as usize % self.cols)
    }

    /// [`Self::shifted`] from a cell given by its row and column.
    #[inline]
    pub fn shifted_rc(&self, (r, c): (usize, usize), off: (i32, i32)) -> Option<u32> {
        let r = r.checked_add_signed(off.0 as isize)?;
        let c = c.checked_add_signed(off.1 as isize)?;
        (r < self.rows && c < self.cols).then_some((r * self.cols + c) as u32)
    }

    /// The grid cells seen from grid cell `from` looking along `d`,
    /// nearest first, up to and including the first opaque one.
    pub fn sight_line(&self, from: u32, d: Dir) -> impl Iterator<Item = u32> + '_ {
        let mut at = Some(from);
        let mut blocked = false;
        std::iter::from_fn(move || {
            if blocked {
                return None;
            }
            at = self.step(at?, d);
            let c = at?;
            blocked = self.class_of(c).opaque;
            Some(c)
        })
    }
}

/// The directions of sight, in the order rays are walked.
pub const SIGHT: [Dir; 4] = [
    Dir { dr: -1, dc: 0 },
    Dir { dr: 1, dc: 0 },
    Dir { dr: 0, dc: -1 },
    Dir { dr: 0, dc: 1 },
];

/// What a limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Steps,
    Cost,
}

/// No answer beyond `max` steps (or cost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub measure: Measure,
    pub max: u64,
}

impl Limit {
    /// What a way of `steps` steps costing `cost` has spent of the limit.
    pub fn spent(self, steps: u64, cost: u64) -> u64 {
        match self.measure {
            Measure::Steps => steps,
            Measure::Cost => cost,
        }
    }
}

/// The ground transition system of one case.
#[derive(Debug, Clone)]
pub struct Task {
    board: Board,
    vars: Vec<Var>,
    movers: Vec<Mover>,
    actions: Vec<Action>,
    rules: Vec<Rule>,
    /// Class -> the condition to enter a cell of it (false when solid).
    entry: Vec<Expr>,
    /// Where entry conditions read `moving`: per direction of a step, class
    /// -> the condition to enter a cell of it going that way (`entry` is
    /// then their union). Empty otherwise.
    entry_moving: Vec<(Dir, Vec<Expr>)>,
    /// Class -> the way a `carry` rule carries a mover on a cell of it
    /// after every step; empty where no rule carries.
    carry: Vec<Option<Dir>>,
    /// How many cells of the map carry.
    carried_cells: u64,
    /// Class -> the cost of a move onto a cell of it, when the class sets
    /// one (else the action's own).
    enter_cost: Vec<Option<u32>>,
    /// `mover * classes + class` -> the rules fired when the mover enters a
    /// cell of the class, in order.
    on_enter: Vec<Vec<RuleId>>,
    /// Where an `on enter` rule reads `moving`: per direction of a step,
    /// what `on_enter` holds for a cell entered going that way. Empty
    /// otherwise.
    on_enter_moving: Vec<(Dir, Vec<Vec<RuleId>>)>,
    mode: Mode,
    forbid_same_cell: bool,
    forbid_swap: bool,
    /// `forbid COND`: no step ends in a state where this holds
    /// (`Const(false)` without such rules).
    forbid: Expr,
    /// Where some condition reads rows and columns ([`Expr::Pos`]): per
    /// mover, the (row, column) on the map of each of its positions (a
    /// look-up where a division would be), one table after another in
    /// `coords`, mover `m`'s from `coord_at[m].1`, read at the value of
    /// its position variable `coord_at[m].0`; else both empty.
    coords: Vec<(i32, i32)>,
    coord_at: Vec<(usize, usize)>,
    /// Start states before the derived facts are applied: one value per
    /// variable each. Several when a mover may start on any of several
    /// cells.
    starts: Vec<Vec<i64>>,
    goal: Expr,
    /// The goal's parts joined by `and`, grounded (empty for a goal of
    /// one part): read by `explain --why` only.
    goal_parts: Vec<Expr>,
    limit: Option<Limit>,
    /// The time, where a condition reads it (a [`VarKind::Clock`]).
    clock: Option<VarId>,
    /// The fields of the rules on this map (for `explain`; the conditions
    /// that read them are grounded on positions).
    fields: Vec<FieldSummary>,
    /// [`Task::phases`], made when first asked for.
    phases: std::sync::OnceLock<Vec<Task>>,
    /// [`Task::untimed`], made when first asked for.
    untimed: std::sync::OnceLock<Option<Box<Task>>>,
    /// Where costs have parts (`minimise A then B`): what each cost code
    /// stands for.
    parts: Option<Parts>,
}

/// What `explain` says of a field on one map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSummary {
    pub name: String,
    /// The cells the distance reaches, and the largest distance.
    pub reached: u64,
    pub farthest: i64,
    /// The cells of the map.
    pub cells: u64,
    /// The number of the cells it never reaches.
    pub otherwise: i64,
}

/// Costs in parts (`minimise pushes then walks`): every cost of a task is
/// a code, 1 + its place among the costs of the rules on the map, least
/// first, so that the largest code of several is the largest cost, as a
/// step of several moves takes. Codes are not added up: a way's cost is
/// the sum of what they stand for, compared part by part in order.
/// Invariant: `table` is sorted and has no repeats; each entry has one
/// amount per name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    names: Vec<String>,
    table: Vec<Vec<u64>>,
}

impl Parts {
    pub fn new(names: Vec<String>, table: Vec<Vec<u64>>) -> Parts {
        Parts { names, table }
    }

    /// The parts' names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// How many cost codes there are (they are `1..=codes()`).
    pub fn codes(&self) -> usize {
        self.table.len()
    }

    /// What a cost code stands for, part by part.
    pub fn amounts(&self, code: u32) -> &[u64] {
        &self.table[code as usize - 1]
    }
}

impl Task {
    /// The variable that keeps the time, where a condition reads it: it
    /// ticks once at the end of every step, after the step's rules and
    /// follow-ups and before the derived facts, `forbid` and the goal.
    pub fn clock(&self) -> Option<VarId> {
        self.clock
    }

    /// The fields of the rules on this map.
    pub fn fields(&self) -> &[FieldSummary] {
        &self.fields
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    pub fn var(&self, v: VarId) -> &Var {
        &self.vars[v.ix()]
    }

    /// Where costs have parts: what each cost code stands for.
    pub fn parts(&self) -> Option<&Parts> {
        self.parts.as_ref()
    }

    /// Whether the moves have letters (the rule file gives every chosen
    /// move one, or none).
    pub fn lettered(&self) -> bool {
        self.movers
            .iter()
            .flat_map(|m| m.actions())
            .any(|&a| self.action(a).letter().is_some())
    }

    pub fn movers(&self) -> &[Mover] {
        &self.movers
    }

    pub fn mover(&self, m: MoverId) -> &Mover {
        &self.movers[m.ix()]
    }

    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    pub fn action(&self, a: ActionId) -> &Action {
        &self.actions[a.ix()]
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn rule(&self, r: RuleId) -> &Rule {
        &self.rules[r.ix()]
    }

    /// Whether a cell of `class` may be entered, whichever way: with
    /// conditions that read `moving`, the union of [`Self::entry_going`]'s.
    pub fn entry(&self, class: ClassId) -> &Expr {
        &self.entry[class as usize]
    }

    /// Whether a cell of `class` may be entered by a step going `dir`.
    pub fn entry_going(&self, class: ClassId, dir: Dir) -> &Expr {
        match self.entry_moving.iter().find(|(d, _)| *d == dir) {
            Some((_, e)) => &e[class as usize],
            None => &self.entry[class as usize],
        }
    }

    /// Whether some cell of the map carries what stands on it (`carry`).
    pub fn carries(&self) -> bool {
        self.carried_cells > 0
    }

    /// The way a cell of `class` carries what stands on it, if it does.
    pub fn carry_way(&self, class: ClassId) -> Option<Dir> {
        *self.carry.get(class as usize)?
    }

    /// How many cells of the map carry.
    pub fn carried_cells(&self) -> u64 {
        self.carried_cells
    }

    /// Whether some entry condition reads the way a cell is entered
    /// (`moving`): only the interpreter asks [`Self::entry_going`].
    pub fn reads_moving(&self) -> bool {
        !self.entry_moving.is_empty() || !self.on_enter_moving.is_empty()
    }

    pub fn enter_cost(&self, class: ClassId) -> Option<u32> {
        self.enter_cost[class as usize]
    }

    /// The rules fired when mover `m` enters a cell of `class` going
    /// `dir`.
    pub fn on_enter_going(&self, m: MoverId, class: ClassId, dir: Dir) -> &[RuleId] {
        match self.on_enter_moving.iter().find(|(d, _)| *d == dir) {
            Some((_, r)) => &r[m.ix() * self.board.classes.len() + class as usize],
            None => &self.on_enter[m.ix() * self.board.classes.len() + class as usize],
        }
    }

    /// The rules that may fire when mover `m` enters a cell of `class`,
    /// whichever way (each direction's, where rules read `moving`).
    pub fn on_enter_any(&self, m: MoverId, class: ClassId) -> impl Iterator<Item = RuleId> + '_ {
        let k = m.ix() * self.board.classes.len() + class as usize;
        std::iter::once(&self.on_enter)
            .chain(self.on_enter_moving.iter().map(|(_, r)| r))
            .flat_map(move |r| r[k].iter().copied())
    }

    pub fn on_enter(&self, m: MoverId, class: ClassId) -> &[RuleId] {
        // Where rules read the way in, these lists are empty: such a task
        // asks `on_enter_going` (the interpreter) or `on_enter_any`.
        debug_assert!(
            self.on_enter_moving.is_empty(),
            "rules that read `moving` are asked by the way a cell is entered"
        );
        &self.on_enter[m.ix() * self.board.classes.len() + class as usize]
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn forbid_same_cell(&self) -> bool {
        self.forbid_same_cell
    }

    pub fn forbid_swap(&self) -> bool {
        self.forbid_swap
    }

    /// Some `forbid COND` rule applies.
    pub fn forbids(&self) -> bool {
        !matches!(self.forbid, Expr::Const(false))
    }

    /// The condition no step may end in (`Const(false)`: none).
    pub fn forbid(&self) -> &Expr {
        &self.forbid
    }

    /// Whether a state is one no step may end in.
    pub fn forbidden(&self, vals: &[i64]) -> bool {
        self.forbids() && self.eval(&self.forbid, vals)
    }

    /// Some mover moves by itself after every step (`by itself`).
    pub fn scripted(&self) -> bool {
        self.movers.iter().any(|m| m.script.is_some())
    }

    /// Something moves after every step besides the step's own mover:
    /// tiles carry (`carry`), or movers move by themselves. No distance
    /// of the movers' own moves bounds where such a step leaves them.
    pub fn moves_after(&self) -> bool {
        self.carries() || self.scripted()
    }

    /// Some condition compares movers' rows and columns (`row of hero`).
    pub fn reads_coords(&self) -> bool {
        fn coords(e: &Expr) -> bool {
            match e {
                Expr::Pos { .. } => true,
                Expr::And(v) | Expr::Or(v) => v.iter().any(coords),
                Expr::Not(e) => coords(e),
                _ => false,
            }
        }
        self.rules.iter().any(|r| coords(&r.cond))
            || self.actions.iter().any(|a| coords(&a.guard))
            || self.entry.iter().any(coords)
            || self.entry_moving.iter().any(|(_, v)| v.iter().any(coords))
            || coords(&self.forbid)
            || coords(&self.goal)
    }

    pub fn starts(&self) -> &[Vec<i64>] {
        &self.starts
    }

    /// The same task with every state kept: no object's dead positions
    /// pruned (see [`Self::dead`]). A search finds the same answers on
    /// it, more slowly; a player may walk into a position with no way out.
    pub fn unpruned(&self) -> Task {
        let mut task = self.clone();
        for m in &mut task.movers {
            if let Some(o) = &mut m.object {
                o.pushes_to_goal = None;
            }
        }
        task
    }

    /// The same task started from `vals` (a state of it, one value per
    /// variable), after a way of `steps` steps costing `cost`: its limit,
    /// where it has one, is what the way leaves of it; `None` when the way
    /// is already beyond the limit.
    pub fn resumed(&self, vals: Vec<i64>, steps: u64, cost: u64) -> Option<Task> {
        let limit = match self.limit {
            None => None,
            Some(l) => Some(Limit {
                max: l.max.checked_sub(l.spent(steps, cost))?,
                ..l
            }),
        };
        Some(Task {
            starts: vec![vals],
            limit,
            ..self.clone()
        })
    }

    pub fn goal(&self) -> &Expr {
        &self.goal
    }

    /// The goal's parts joined by `and`, in the order written (empty for a
    /// goal of one part).
    pub fn goal_parts(&self) -> &[Expr] {
        &self.goal_parts
    }

    pub fn limit(&self) -> Option<Limit> {
        self.limit
    }

    /// Whether mover `m`'s position in `vals` is one of `set`'s.
    pub fn at(&self, m: MoverId, set: &[u64], vals: &[i64]) -> bool {
        let p = vals[self.movers[m.ix()].pos.ix()] as usize;
        set[p / 64] >> (p % 64) & 1 == 1
    }

    /// Whether mover `b` stands on (covers) the cell `off` from mover
    /// `a`'s, in `vals`.
    pub fn near(&self, a: MoverId, b: MoverId, off: (i32, i32), vals: &[i64]) -> bool {
        let ma = &self.movers[a.ix()];
        let from = ma.domain.cell(vals[ma.pos.ix()] as u32);
        let Some(c) = self.board.shifted(from, off) else {
            return false;
        };
        self.covers(b, c, vals)
    }

    /// Whether mover `m` stands on (a piece: covers) grid cell `c`, in
    /// `vals`.
    pub fn covers(&self, m: MoverId, c: u32, vals: &[i64]) -> bool {
        let m = &self.movers[m.ix()];
        let at = m.domain.cell(vals[m.pos.ix()] as u32);
        at == c
            || m.shape_in(vals)
                .iter()
                .any(|&o| self.board.shifted(at, o) == Some(c))
    }

    /// Mover `m`'s row (`row`) or column on the map, in `vals`.
    #[inline]
    pub fn coord(&self, m: MoverId, row: bool, vals: &[i64]) -> i64 {
        let (var, from) = self.coord_at[m.ix()];
        let (r, c) = self.coords[from + vals[var] as usize];
        i64::from(if row { r } else { c })
    }

    /// Builds [`Self::coords`] where some condition needs them.
    fn with_coords(mut self) -> Self {
        if self.reads_coords() {
            for m in &self.movers {
                self.coord_at.push((m.pos.ix(), self.coords.len()));
                for p in 0..m.domain.len() as u32 {
                    let (r, c) = self.board.coords(m.domain.cell(p));
                    self.coords.push((r as i32, c as i32));
                }
            }
        }
        self
    }

    /// Evaluates an expression on a state given as one value per variable.
    pub fn eval(&self, e: &Expr, vals: &[i64]) -> bool {
        match e {
            Expr::Const(b) => *b,
            Expr::Cmp(v, op, k) => op.holds(vals[v.ix()], *k),
            Expr::At(m, set) => self.at(*m, set, vals),
            Expr::In(v, set) => {
                let x = (vals[v.ix()] - self.vars[v.ix()].lo()) as usize;
                set[x / 64] >> (x % 64) & 1 == 1
            }
            Expr::AtTime {
                mover,
                clock,
                table,
                ..
            } => {
                let m = &self.movers[mover.ix()];
                let p = (vals[m.pos.ix()] - self.vars[m.pos.ix()].lo()) as usize;
                let v = (vals[clock.ix()] - self.vars[clock.ix()].lo()) as usize;
                table.holds(p, v)
            }
            Expr::Near { a, b, off } => self.near(*a, *b, *off, vals),
            Expr::Pos { terms, op, k } => {
                let sum: i64 = terms
                    .iter()
                    .map(|&(f, row, m)| f * self.coord(m, row, vals))
                    .sum();
                op.holds(sum, *k)
            }
            Expr::And(es) => es.iter().all(|e| self.eval(e, vals)),
            Expr::Or(es) => es.iter().any(|e| self.eval(e, vals)),
            Expr::Not(e) => !self.eval(e, vals),
        }
    }

    /// Every step costs 1: no action, cell or push has a cost of its own.
    pub fn unit_costs(&self) -> bool {
        self.parts.is_none()
            && self.actions.iter().all(|a| a.cost == 1)
            && self.enter_cost.iter().all(|c| c.is_none())
            && self.push_costs().next().is_none()
    }

    /// The costs objects give the steps that push them.
    fn push_costs(&self) -> impl Iterator<Item = u32> + '_ {
        self.movers
            .iter()
            .filter_map(|m| m.object.as_ref()?.push_cost)
    }

    /// The largest cost a step can have.
    pub fn max_cost(&self) -> u32 {
        let acts = self.actions.iter().map(|a| a.cost);
        let cells = self.enter_cost.iter().flatten().copied();
        acts.chain(cells)
            .chain(self.push_costs())
            .max()
            .unwrap_or(1)
    }

    /// The smallest cost a step can have.
    pub fn min_cost(&self) -> u32 {
        let acts = self.actions.iter().map(|a| a.cost);
        let cells = self.enter_cost.iter().flatten().copied();
        acts.chain(cells)
            .chain(self.push_costs())
            .min()
            .unwrap_or(1)
    }

    /// Some mover is a member of an object: agents push it.
    pub fn has_objects(&self) -> bool {
        self.movers.iter().any(|m| m.object.is_some())
    }

    /// Some mover is a piece of several cells.
    pub fn has_pieces(&self) -> bool {
        self.movers.iter().any(Mover::is_piece)
    }

    /// Some mover is a member of a body (`follows`).
    pub fn has_bodies(&self) -> bool {
        self.movers.iter().any(|m| m.follows.is_some())
    }

    /// Some piece has poses (its cells depend on its state).
    pub fn posed(&self) -> bool {
        self.movers.iter().any(|m| m.poses.is_some())
    }

    /// Some movers are interchangeable (see [`Mover::twins`]).
    pub fn has_twins(&self) -> bool {
        self.movers.iter().any(|m| m.twins.len() > 1)
    }

    /// Puts the positions of each set of twins in increasing order: they
    /// are interchangeable, so a state is the set of their positions, held
    /// in one canonical order. `scratch` is a buffer.
    pub fn canonical(&self, vals: &mut [i64], scratch: &mut Vec<i64>) {
        for run in self.twin_runs() {
            let group = &self.movers[run];
            scratch.clear();
            scratch.extend(group.iter().map(|m| vals[m.pos.ix()]));
            scratch.sort_unstable();
            for (m, &p) in group.iter().zip(scratch.iter()) {
                vals[m.pos.ix()] = p;
            }
        }
    }

    /// The runs of two alike movers or more ([`Mover::twins`]), as ranges
    /// of mover indices, in order.
    pub fn twin_runs(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        (self.movers.iter().enumerate())
            .filter(|(i, m)| m.twins.len() > 1 && m.twins.start as usize == *i)
            .map(|(_, m)| m.twins.start as usize..m.twins.end as usize)
    }

    /// Whether some object's member stands on a dead position (see
    /// [`Object::pushes_to_goal`]): no goal state is reachable.
    pub fn dead(&self, vals: &[i64]) -> bool {
        self.movers.iter().any(|m| {
            m.object
                .as_ref()
                .and_then(|o| o.pushes_to_goal.as_ref())
                .is_some_and(|d| d[vals[m.pos.ix()] as usize] == u32::MAX)
        })
    }

    /// Every action moves by a fixed offset (or, at once, stays), and fires
    /// no rules; no object is pushed, no piece is larger than a cell, no
    /// movers are interchangeable. A `stay` in turn is a step of its own
    /// (its `when` rules run again) that the table kernels, which move one
    /// mover to a cell of its own, do not make.
    pub fn fixed_moves(&self) -> bool {
        let fixed = |m: Motion| {
            m.turn == 0
                && !m.far
                && match m.way {
                    Way::By(_) => true,
                    // In turn, a stay fires no rule of a cell: the tables
                    // would fire those of the cell "entered".
                    Way::Nowhere => self.mode == Mode::AtOnce || self.rules.is_empty(),
                    _ => false,
                }
        };
        !self.far_moves()
            && !self.has_objects()
            && !self.has_pieces()
            && !self.has_twins()
            && self
                .actions
                .iter()
                .all(|a| fixed(a.motion) && a.rules.is_empty())
    }

    /// Some step may take a mover further than the next cell: a slide, a
    /// slippery cell, a teleport.
    pub fn far_moves(&self) -> bool {
        self.actions.iter().any(|a| a.motion.far)
            || self.board.has_slippery()
            || self.board.has_teleports()
    }

    /// No entry condition but `solid`, no rule fires anywhere: a step
    /// depends on the positions alone.
    pub fn unconditional(&self) -> bool {
        self.rules.is_empty()
            && !self.has_guards()
            && !self.reads_moving()
            && self
                .entry
                .iter()
                .enumerate()
                // A cell that is not solid but may never be entered (a
                // condition false on this map, or at this time of a
                // clock: see `phases`) is a condition the kernels that
                // need none would not hold.
                .all(|(k, e)| {
                    !self.board.present[k]
                        || *e == Expr::Const(true)
                        || (*e == Expr::Const(false) && self.board.classes()[k].solid)
                })
    }

    /// Some action is taken only on a condition (`if`).
    pub fn has_guards(&self) -> bool {
        self.actions.iter().any(|a| a.guard != Expr::Const(true))
    }

    /// Every action's condition reads nothing but its own mover's
    /// position (the tiles around it, not the state): the kernels' move
    /// tables can hold it, a move kept or not per position.
    pub fn static_guards(&self) -> bool {
        self.actions.iter().all(|a| {
            let pos = self.movers[a.mover.ix()].pos;
            a.guard.reads_only(&|e| match e {
                Expr::At(m, _) => *m == a.mover,
                Expr::Cmp(v, _, _) => *v == pos,
                _ => false,
            })
        })
    }

    /// The positions action `a`'s mover takes it from (bit `p % 64` of
    /// word `p / 64`), for a condition that reads nothing but that
    /// position (see [`Self::static_guards`]): word by word where the
    /// condition is made of position tests, else position by position.
    pub fn guard_positions(&self, a: ActionId) -> Vec<u64> {
        let action = &self.actions[a.ix()];
        self.positions_where(action.mover, &action.guard)
    }

    /// Where a lone mover in turn may not end a step, when `forbid` reads
    /// nothing but its position: its positions (bit `p % 64` of word `p /
    /// 64`). A kernel then leaves out the moves that end there, a stay
    /// included.
    pub fn lone_forbid(&self) -> Option<Vec<u64>> {
        let pos = self.movers.first()?.pos;
        let only = self.forbids()
            && self.movers.len() == 1
            && self.mode == Mode::InTurn
            && self.forbid.reads_only(&|e| match e {
                Expr::At(m, _) => m.ix() == 0,
                Expr::Cmp(v, _, _) => *v == pos,
                _ => false,
            });
        only.then(|| self.positions_where(MoverId(0), &self.forbid))
    }

    /// The positions of mover `m` where `e`, which reads nothing but its
    /// position, holds.
    fn positions_where(&self, mover: MoverId, e: &Expr) -> Vec<u64> {
        let m = &self.movers[mover.ix()];
        let n = m.domain.len().div_ceil(64);
        fn words(e: &Expr, n: usize) -> Option<Vec<u64>> {
            Some(match e {
                Expr::Const(b) => vec![if *b { u64::MAX } else { 0 }; n],
                Expr::At(_, set) => {
                    let mut w = set.to_vec();
                    w.resize(n, 0);
                    w
                }
                Expr::Not(e) => words(e, n)?.into_iter().map(|w| !w).collect(),
                Expr::And(v) | Expr::Or(v) => {
                    let and = matches!(e, Expr::And(_));
                    let mut acc = vec![if and { u64::MAX } else { 0 }; n];
                    for e in v {
                        for (a, w) in acc.iter_mut().zip(words(e, n)?) {
                            *a = if and { *a & w } else { *a | w };
                        }
                    }
                    acc
                }
                _ => return None,
            })
        }
        words(e, n).unwrap_or_else(|| {
            let mut vals = vec![0; self.vars.len()];
            let mut out = vec![0u64; n];
            for p in 0..m.domain.len() {
                vals[m.pos.ix()] = p as i64;
                out[p / 64] |= u64::from(self.eval(e, &vals)) << (p % 64);
            }
            out
        })
    }

    /// Every rule is plain (see [`Rule::is_plain`]).
    pub fn plain_rules(&self) -> bool {
        self.rules.iter().all(|r| r.is_plain(self))
    }

    /// Some mover's sight can be blocked by another, opaque, mover.
    pub fn dynamic_sight(&self) -> bool {
        self.movers.len() > 1
            && self.movers.iter().any(|m| m.opaque)
            && self
                .movers
                .iter()
                .any(|m| m.when.iter().any(|w| w.relation == Relation::Sees))
    }

    /// Every step can be undone by a step of the same cost with no
    /// conditions or rules: a search from the goal is possible.
    pub fn reversible(&self) -> bool {
        if !self.unconditional()
            || !self.unit_costs()
            || self.far_moves()
            || self.moves_after()
            || self.has_bodies()
            || self.forbids()
            || self.mode == Mode::Together
            || self.has_objects()
            || self.has_twins()
            || self.clock.is_some()
        {
            return false;
        }
        self.movers.iter().all(|m| {
            let motions: Vec<Motion> = m
                .actions
                .iter()
                .map(|a| self.actions[a.ix()].motion)
                .collect();
            motions
                .iter()
                .all(|mo| mo.undo().is_some_and(|u| motions.contains(&u)))
        })
    }

    /// The compass directions mover `m` can move in, in any state: the
    /// edges of its move graph.
    pub fn directions(&self, m: MoverId) -> Vec<Dir> {
        let mut dirs = Vec::new();
        for a in &self.movers[m.ix()].actions {
            let more: &[Dir] = match self.actions[a.ix()].motion.way {
                Way::By(d) => &[d][..],
                Way::Ahead | Way::Behind => &Dir::COMPASS[..],
                // A piece with poses moves by its table, not by a direction.
                Way::Nowhere | Way::Table(_) => &[][..],
            };
            for d in more {
                if !dirs.contains(d) {
                    dirs.push(*d);
                }
            }
        }
        dirs
    }

    /// The one state the goal allows, if it fixes every variable (one
    /// value per variable).
    pub fn goal_state(&self) -> Option<Vec<i64>> {
        let mut vals: Vec<Option<i64>> = self
            .vars
            .iter()
            .map(|v| (v.size == 1).then_some(v.lo()))
            .collect();
        let parts = match &self.goal {
            Expr::And(ps) => ps.as_slice(),
            e => std::slice::from_ref(e),
        };
        for p in parts {
            let (var, val) = match p {
                Expr::Cmp(v, Cmp::Eq, k) => (*v, *k),
                Expr::At(m, set) => {
                    let ones: u32 = set.iter().map(|w| w.count_ones()).sum();
                    if ones != 1 {
                        return None;
                    }
                    let w = set.iter().position(|w| *w != 0)?;
                    let p = w * 64 + set[w].trailing_zeros() as usize;
                    (self.movers[m.ix()].pos, p as i64)
                }
                Expr::Const(true) => continue,
                _ => return None,
            };
            match vals[var.ix()] {
                Some(old) if old != val => return None,
                _ => vals[var.ix()] = Some(val),
            }
        }
        vals.into_iter().collect()
    }
}
