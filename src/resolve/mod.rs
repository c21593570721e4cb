//! Phase 2: [`ast::File`] -> [`Rules`]. Resolves every name to an id, checks
//! parameter domains and predicate kinds, builds the legend, and fills in
//! defaults.
//!
//! Invariant of [`Rules`]: every id indexes its table; every state index
//! has the state's domain (or is the occurrence a rule matches); every tile
//! value is in its tile's domain; the legend maps each symbol to one thing;
//! every number that does not depend on a map is checked (ranges not
//! empty, costs positive, values in range). What is still unknown is only
//! what depends on a map: family sizes, header fields, tile counts.

use crate::ast::{
    self, AssignOp, BinOp, Cases, CmpOp, Forbid, GridForm, Ident, IntExpr, Measure, Mode, MoveKind,
    OutputKind, Property, Relation, Span, Verb,
};
use crate::error::{Invalid, RuleError, Topic, did_you_mean};
use hashbrown::{HashMap, HashSet};

mod decls;
mod exprs;
mod fields;
mod io;
mod movers;
mod time;
mod warnings;

pub use fields::Field;
pub use time::Shape;

ids!(
    /// Index into [`Rules::domains`].
    DomainId,
    /// Index into [`Rules::tiles`].
    TileId,
    /// Index into [`Rules::agents`] (a family is one agent declaration).
    AgentId,
    /// Index into [`Rules::states`].
    StateId,
    /// Index into [`Rules::layouts`].
    LayoutId
);

/// The checked rules of a puzzle: everything that does not depend on a map.
/// Made only by [`resolve`], which checks the invariant of the module's
/// doc: its fields are read in the crate, and through the accessors below
/// outside it.
#[derive(Debug, Clone)]
pub struct Rules {
    pub(crate) title: String,
    pub(crate) io: Io,
    pub(crate) domains: Vec<Domain>,
    pub(crate) tiles: Vec<Tile>,
    /// Map symbol (a character, or a token) -> what it stands for.
    pub(crate) legend: HashMap<String, Glyph>,
    pub(crate) agents: Vec<Agent>,
    pub(crate) states: Vec<State>,
    pub(crate) layouts: Vec<LayoutDef>,
    pub(crate) mode: Mode,
    pub(crate) forbid_same_cell: bool,
    pub(crate) forbid_swap: bool,
    /// `forbid COND`: no step ends in a state where one holds.
    pub(crate) forbid: Vec<Expr>,
    pub(crate) enter_rules: Vec<EnterRule>,
    pub(crate) enter_costs: Vec<CostRule>,
    pub(crate) on_enter: Vec<OnEnter>,
    pub(crate) on_move: Vec<OnMove>,
    pub(crate) when: Vec<When>,
    pub(crate) teleports: Vec<Teleport>,
    /// `carry` rules: what moves what stands on some tiles after a step.
    pub(crate) carries: Vec<Carry>,
    pub(crate) goal: Expr,
    /// The goal's parts joined by `and`, in the order written (empty for a
    /// goal of one part): `explain --why` says which is never true.
    pub(crate) goal_parts: Vec<Expr>,
    /// Each of [`Rules::goal_parts`] as written (its source, its blanks
    /// run together), filled in by [`crate::load`] from the rule file's
    /// text at the parts' spans ([`Rules::goal_part_spans`]).
    pub(crate) goal_part_texts: Vec<String>,
    pub(crate) goal_part_spans: Vec<Span>,
    pub(crate) limit: Option<Limit>,
    /// The comparisons of numbers in conditions ([`Expr::Time`]).
    pub(crate) times: Vec<TimeRead>,
    /// The beams ([`Expr::InBeam`]).
    pub(crate) beams: Vec<Beam>,
    /// The fields ([`Num::FieldAt`]).
    pub(crate) fields: Vec<Field>,
    /// `minimise A then B`: the parts of a cost, the first minimised
    /// first (empty: a cost is one number).
    pub(crate) parts: Vec<String>,
}

impl Rules {
    /// The puzzle's title (`puzzle "..."`).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// How an input is cut into cases, and how answers are printed.
    pub fn io(&self) -> &Io {
        &self.io
    }

    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// Agents, objects and pieces, one per declaration.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// Flags and counters, one per declaration.
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// The fields (`field NAME = distance from ...`), one per declaration.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }
}

/// A parameter domain: `colour = blue yellow red green`.
#[derive(Debug, Clone)]
pub struct Domain {
    pub name: String,
    pub values: Vec<String>,
}

/// A tile of the legend.
#[derive(Debug, Clone)]
pub struct Tile {
    pub name: String,
    pub domain: Option<DomainId>,
    pub solid: bool,
    pub opaque: bool,
    /// A mover that enters it keeps going the way it moved (ice).
    pub slippery: bool,
    /// A slide ends on it.
    pub stops: bool,
    /// The map is ringed by a row and a column of it on every side.
    pub border: bool,
    pub span: Span,
}

/// `teleport TILE [optional]`: the tile's cells of one parameter value
/// come in pairs; a step onto one end puts the mover on the other.
#[derive(Debug, Clone)]
pub struct Teleport {
    pub tile: TileId,
    /// The mover may stay on the end it stepped onto.
    pub optional: bool,
    pub span: Span,
}

/// `beam NAME from TILE(?d) ?d turning`: cast from each cell of the
/// tile (of the values selected).
#[derive(Debug, Clone)]
pub struct Beam {
    pub name: String,
    pub tile: TileId,
    pub value: ValueSel,
    pub way: CarryWay,
    /// A quarter turn clockwise after every step.
    pub turning: bool,
    /// Some condition reads it (else it needs no clock).
    pub read: bool,
    pub span: Span,
}

/// `carry belt(?w) ?w`: after every step, a mover standing on a cell of
/// the tile (of the values selected) is carried a cell this way.
#[derive(Debug, Clone)]
pub struct Carry {
    pub tile: TileId,
    pub value: ValueSel,
    pub way: CarryWay,
    pub span: Span,
}

/// Which way a `carry` rule carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryWay {
    Dir(ast::Dir),
    /// The way the cell's value names (a domain of direction words).
    Bound,
}

/// What a map symbol stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyph {
    /// A tile, with the parameter value the symbol picks.
    Tile(TileId, Option<u32>),
    /// The start of a member of an agent (0 for a single agent), and the
    /// tile underneath.
    Start(AgentId, u32, TileId),
    /// The target of a member of an agent, on the agent's `on` tile.
    Target(AgentId, u32),
    /// A cell the agent may start on (`any 'S'`), or a cell with one of an
    /// object's members, and the tile underneath.
    AnyStart(AgentId, TileId),
}

/// Where an agent starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// One marker per member, in the legend.
    Markers,
    /// Any cell marked by its symbol in the legend.
    Any,
    /// A row and a column, from 0.
    At(Num, Num),
    /// An object: a member on every cell marked by one of its symbols.
    Every,
    /// Pieces: a member for each marker on the map, made of its cells.
    Pieces,
}

/// Where an agent's members belong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targets {
    None,
    /// A marker per member, in the map.
    Markers,
    /// The member's start marker, in a layout.
    Layout(LayoutId),
}

/// One kind of move of an agent, with its cost and the condition it is
/// made on.
#[derive(Debug, Clone)]
pub struct Move {
    pub kind: MoveKind,
    pub cost: Price,
    /// `if COND`: the move is made only where this holds before it.
    pub guard: Option<Expr>,
    /// For a piece with poses: from each pose (in the order of its
    /// `poses`), the pose it takes and its anchor's shift.
    pub table: Vec<(u32, (i32, i32))>,
    /// How it is written in `{path}` and `--moves`, when the rule file
    /// says.
    pub letter: Option<Letter>,
}

/// How a move is written in a way: `walk`, or `push` for a step of it
/// that pushes an object (when given). Invariant: neither is empty nor
/// holds a space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub walk: String,
    pub push: Option<String>,
}

impl Letter {
    /// The letter of a step of the move, pushing or not.
    pub fn of(&self, pushed: bool) -> &str {
        match (&self.push, pushed) {
            (Some(p), true) => p,
            _ => &self.walk,
        }
    }
}

/// An agent, or a family of agents.
#[derive(Debug, Clone)]
pub struct Agent {
    pub name: String,
    /// `None` for a single agent.
    pub family: Option<Num>,
    /// The largest family size the markers allow.
    pub max_members: u32,
    pub start: Start,
    pub targets: Targets,
    /// The start markers, member by member (to find targets in a layout).
    pub markers: Vec<String>,
    pub on: TileId,
    pub opaque: bool,
    /// Its moves; empty if it never moves.
    pub moves: Vec<Move>,
    /// Its heading at the start, if it has one (0 north, 1 east, 2 south,
    /// 3 west).
    pub facing: Option<u8>,
    /// Declared with `object`: no moves, pushed by agents, its members
    /// interchangeable ([`Start::Every`]).
    pub object: bool,
    /// For an object, what a step that pushes it costs (else the step's
    /// own cost).
    pub push_cost: Option<Price>,
    /// Declared with `piece`: `Some(lengthwise)`.
    pub piece: Option<bool>,
    /// `optional`: its marker (a member's) may be absent from a map, and
    /// the agent (member) is then not on it.
    pub optional: bool,
    /// `move AGENT by itself N times`: after every step it makes the first
    /// of its moves it can, this many times; its moves are no one's choice.
    pub script: Option<Num>,
    /// `poses PIECE { ... }`: each pose's name and cells (offsets from the
    /// anchor, (0, 0) among them); empty for a piece of one shape.
    pub poses: Vec<(String, Vec<(i32, i32)>)>,
    /// `follows LEADER`: its members are a body behind the leader, in
    /// order from it (see [`crate::task::Mover::follows`]).
    pub follows: Option<AgentId>,
    pub span: Span,
}

impl Agent {
    /// Several members: a family (`[n]`, or `every 'X'`: one per marker of
    /// the map), an object, or pieces of several markers.
    pub fn several(&self) -> bool {
        self.family.is_some()
            || matches!(self.start, Start::Every)
            || self.object
            || (self.piece.is_some() && self.max_members > 1)
    }
}

/// What a state is indexed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateIndex {
    None,
    /// One per value of a domain.
    Domain(DomainId),
    /// One per occurrence of a tile in the map.
    Tile(TileId),
}

/// What a state holds.
#[derive(Debug, Clone)]
pub enum StateKind {
    Flag,
    Counter {
        lo: Num,
        hi: Num,
        wrap: bool,
        init: Option<Num>,
    },
}

/// A flag or a counter, alone or indexed.
#[derive(Debug, Clone)]
pub struct State {
    pub name: String,
    pub kind: StateKind,
    pub index: StateIndex,
    pub span: Span,
}

/// A layout written in the rule file: rows of symbols.
#[derive(Debug, Clone)]
pub struct LayoutDef {
    pub name: String,
    pub rows: Vec<String>,
    pub span: Span,
}

/// The most a move or a cell may cost: a way's total is kept in 32 bits by
/// Dijkstra's search, which stops a case whose costs add up past that.
pub const MAX_COST: u32 = 1 << 20;

/// The most parts a cost has (`minimise A then B then C then D`).
pub const MAX_PARTS: usize = 4;

/// The most values a counter's range holds (its values are packed in the
/// state: at most 32 bits).
pub const MAX_COUNTER: i64 = 1 << 32;

/// A counter's bounds lie within `-COUNTER_BOUND..=COUNTER_BOUND`, so that
/// a value plus or minus any step the engine takes stays an `i64`.
pub const COUNTER_BOUND: i64 = 1 << 62;

/// The most rows (or columns) one move goes at once: the board is padded
/// by the longest move, so that a move is one addition.
pub const MAX_REACH: u32 = 64;

/// The most moves an agent makes by itself in one step.
pub const MAX_SCRIPT_TIMES: i64 = 64;

/// A move as a move list's sets expand to: the move, its cost and its
/// conditions.
type Expanded = (
    ast::Spanned<MoveKind>,
    Option<ast::Price>,
    Vec<ast::Pred>,
    Vec<ast::TableRow>,
    Option<ast::Letter>,
);

/// The words a move list reads as moves besides the compass words, never
/// as a set's name.
const MOVE_WORDS: [&str; 4] = ["stay", "forward", "back", "slide"];

/// Whether `name` is read as a move (or starts one) in a move list.
fn is_move_word(name: &str) -> bool {
    ast::COMPASS_WORDS.contains(&name)
        || MOVE_WORDS.contains(&name)
        || name == "left"
        || name == "right"
}

/// A checked integer expression, evaluated per case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Num {
    Lit(i64),
    /// Index into [`Io::header`].
    Field(usize),
    /// How many cells of the map have the tile.
    Count(TileId),
    /// In output templates: the case number, the answer's cost, and the
    /// steps of its way (the fewest among the least-cost ways).
    Case,
    Cost,
    Steps,
    /// In output templates: the answer's amount of a part of the cost
    /// (`minimise A then B`), by its place.
    Part(usize),
    /// In conditions: a field's number ([`Rules::fields`], by place) on
    /// the cell a single agent stands on.
    FieldAt(usize, AgentId),
    Neg(Box<Num>),
    Bin(Box<Num>, BinOp, Box<Num>),
}

/// What a [`Num`] is evaluated with.
pub struct NumEnv<'a> {
    pub header: &'a [i64],
    pub count: &'a dyn Fn(TileId) -> i64,
    pub case: i64,
    pub cost: Option<i64>,
    pub steps: Option<i64>,
    /// A field's number (by its place) where the agent a comparison
    /// reads stands (`None` where no agent is placed).
    pub field: &'a dyn Fn(usize) -> Option<i64>,
    /// The answer's cost part by part, where costs have parts (else
    /// empty).
    pub parts: &'a [u64],
}

impl Num {
    /// Its value; `None` when the arithmetic fails (division by zero,
    /// overflow) or a value it needs is unknown.
    pub fn eval(&self, env: &NumEnv<'_>) -> Option<i64> {
        Some(match self {
            Num::Lit(v) => *v,
            Num::Field(i) => *env.header.get(*i)?,
            Num::Count(t) => (env.count)(*t),
            Num::Case => env.case,
            Num::Cost => env.cost?,
            Num::Steps => env.steps?,
            Num::Part(i) => i64::try_from(*env.parts.get(*i)?).ok()?,
            Num::FieldAt(f, _) => (env.field)(*f)?,
            Num::Neg(e) => e.eval(env)?.checked_neg()?,
            Num::Bin(a, op, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                match op {
                    BinOp::Add => a.checked_add(b)?,
                    BinOp::Sub => a.checked_sub(b)?,
                    BinOp::Mul => a.checked_mul(b)?,
                    BinOp::Div => a.checked_div_euclid(b)?,
                    BinOp::Rem => a.checked_rem_euclid(b)?,
                }
            }
        })
    }

    /// Its value when it depends on nothing of a map.
    pub fn constant(&self) -> Option<i64> {
        let env = NumEnv {
            field: &|_| None,
            parts: &[],
            header: &[],
            count: &|_| 0,
            case: 0,
            cost: None,
            steps: None,
        };
        self.is_constant().then(|| self.eval(&env)).flatten()
    }

    /// The largest header field it reads, if it reads any.
    pub fn last_field(&self) -> Option<usize> {
        match self {
            Num::Field(i) => Some(*i),
            Num::Neg(e) => e.last_field(),
            Num::Bin(a, _, b) => a.last_field().max(b.last_field()),
            _ => None,
        }
    }

    fn is_constant(&self) -> bool {
        match self {
            Num::Lit(_) => true,
            Num::Neg(e) => e.is_constant(),
            Num::Bin(a, _, b) => a.is_constant() && b.is_constant(),
            _ => false,
        }
    }
}

/// Which parameter values of a tile a pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueSel {
    /// Any value; the pattern binds none (or the tile has no parameter).
    Any,
    /// Any value, bound to the pattern's variable.
    Bind,
    /// One value.
    Value(u32),
}

/// The index of an indexed state in an expression or action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexRef {
    /// The state is not indexed.
    None,
    Value(u32),
    /// The value bound by the enclosing rule's pattern.
    Bound,
    /// The occurrence of the tile the enclosing rule matched.
    Occurrence,
}

/// Which members of an agent a predicate speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Members {
    One,
    Every,
    Any,
}

/// Where an agent stands, in an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRef {
    Target,
    Tile(TileId, ValueSel),
}

/// A checked predicate over a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    On {
        agent: AgentId,
        members: Members,
        place: PlaceRef,
    },
    /// A flag is set.
    Flag {
        state: StateId,
        index: IndexRef,
    },
    /// A counter compared with a number.
    Cmp {
        state: StateId,
        index: IndexRef,
        op: CmpOp,
        value: Num,
    },
    /// Every (or some) value of an indexed flag is set.
    AllFlags(StateId),
    AnyFlag(StateId),
    /// An agent's heading.
    Facing(AgentId, u8),
    /// The step being taken goes this way (in an `enter` condition).
    Moving(ast::Dir),
    /// The step being taken goes the way the value bound by the rule's
    /// pattern names (its domain's values are direction words).
    MovingBound,
    /// On every cell of the tile (of the values selected) stands a member
    /// of the agent.
    Has {
        tile: TileId,
        value: ValueSel,
        agent: AgentId,
    },
    /// An agent on a row and column.
    AtCell {
        agent: AgentId,
        row: Num,
        col: Num,
    },
    /// What is on a cell relative to the mover (in a move's `if` and in
    /// `on MOVE` rules: the mover is the one moving).
    Cell {
        at: ast::RelCell,
        what: CellTest,
    },
    /// A piece with poses is in its pose of this index.
    PoseIs(AgentId, u32),
    /// A member of `agent` (one, any, every) stands on the cell of the
    /// single agent `at`.
    Meets {
        agent: AgentId,
        members: Members,
        at: AgentId,
    },
    /// Agents' rows and columns, each times its factor, added up and
    /// compared with a number: `sum op k`.
    Pos {
        terms: Vec<(i64, PosRef)>,
        op: CmpOp,
        k: i64,
    },
    /// Numbers compared that may read the time: an index into
    /// [`Rules::times`].
    Time(usize),
    /// A single agent stands on a cell the beam (an index into
    /// [`Rules::beams`]) lights.
    InBeam(AgentId, usize),
}

/// Two numbers compared in a condition, either of which may read the time
/// (`steps % 2 == 0`, `steps < count(TILE)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRead {
    pub lhs: Num,
    pub op: CmpOp,
    pub rhs: Num,
    pub span: Span,
    /// Whether its truth is, from some time on, periodic in the time (see
    /// [`Num::time_shape`]); if not, the time must be bounded by a limit.
    pub settles: bool,
    /// The agent whose cell its fields are read at (`fire(hero)`), if it
    /// reads any.
    pub at: Option<AgentId>,
}

/// A row or column of a term of [`Expr::Pos`]: of a (single) agent, or of
/// the mover (`its row`; `agent` is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PosRef {
    pub axis: ast::Axis,
    pub agent: Option<AgentId>,
}

/// What a cell test asks of its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellTest {
    /// The cell's tile is this one (with these values).
    Tile(TileId, ValueSel),
    /// A member of the agent (or object) stands there, other than the
    /// mover itself.
    Has(AgentId),
}

/// `enter gate(?c) only if have[?c]`.
#[derive(Debug, Clone)]
pub struct EnterRule {
    pub tile: TileId,
    pub value: ValueSel,
    pub cond: Expr,
}

/// `enter swamp costs 3`.
#[derive(Debug, Clone)]
pub struct CostRule {
    pub tile: TileId,
    pub value: ValueSel,
    pub cost: Price,
}

/// A cost: its amount of each part of `minimise`, in order (one amount
/// when costs have no parts). Invariant: never empty; every amount known
/// now is at least 0 and at most [`MAX_COST`], and without parts at
/// least 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Price(pub Vec<Num>);

/// What an action does to its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActOp {
    Set,
    Clear,
    Toggle,
    Add(Num),
    Sub(Num),
    Assign(Num),
}

/// `set have[c]`, `keys += 1`.
#[derive(Debug, Clone)]
pub struct Action {
    pub state: StateId,
    pub index: IndexRef,
    pub op: ActOp,
}

/// `on enter key(?c): set have[?c]`.
#[derive(Debug, Clone)]
pub struct OnEnter {
    pub agent: Option<AgentId>,
    pub tile: TileId,
    pub value: ValueSel,
    pub cond: Option<Expr>,
    pub actions: Vec<Action>,
}

/// `on bike forward: sector += 1`.
#[derive(Debug, Clone)]
pub struct OnMove {
    pub agent: Option<AgentId>,
    pub kind: MoveKind,
    pub cond: Option<Expr>,
    pub actions: Vec<Action>,
    pub span: Span,
}

/// `when watcher sees lamp(?h): set seen[?h]`.
#[derive(Debug, Clone)]
pub struct When {
    pub agent: AgentId,
    pub relation: Relation,
    pub tile: TileId,
    pub value: ValueSel,
    pub cond: Option<Expr>,
    pub actions: Vec<Action>,
}

/// `limit steps <= t`.
#[derive(Debug, Clone)]
pub struct Limit {
    pub measure: Measure,
    pub strict: bool,
    pub bound: Num,
}

/// How input files are read and answers printed.
#[derive(Debug, Clone)]
pub struct Io {
    pub cases: Cases,
    /// Every header field, line after line.
    pub header: Vec<String>,
    /// How many fields each header line has.
    pub header_lines: Vec<usize>,
    /// `None`: take the size from the grid itself.
    pub rows: Option<Num>,
    pub cols: Option<Num>,
    pub form: GridForm,
    /// The symbol short rows are filled with.
    pub fill: Option<String>,
    pub before: Option<Template>,
    pub solved: Template,
    pub unsolved: Template,
    pub separator: Option<Template>,
    /// The line of a case a limit stopped (else `?`).
    pub stopped: Option<Template>,
    /// Printed once after the last case.
    pub after: Option<Template>,
    /// Put between two letters of `{path}` (`joiner " "`; none by default).
    pub joiner: String,
    /// `grid R x C of '.'`: the grid is not drawn; every cell holds this.
    pub blank: Option<String>,
    /// Cells given by their coordinates, in the order the input has them.
    pub records: Vec<Records>,
}

/// `records k '#' row col from 1`: `count` pairs of integers in the
/// input, each a cell of the grid that holds `symbol`. Invariant: `count`
/// reads only header fields of the `after_lines` lines before it; `base`
/// is 0 or 1; on a grid of characters, `symbol` is one character.
#[derive(Debug, Clone)]
pub struct Records {
    pub count: Num,
    pub symbol: String,
    /// A record's line gives the column first (`col row`).
    pub col_first: bool,
    /// The number of the first row and column.
    pub base: i64,
    /// How many header lines are read before these records.
    pub after_lines: usize,
    /// Read after the grid (written after `grid`).
    pub after_grid: bool,
    /// Where the rule file declares them.
    pub span: Span,
}

/// What a solved case gives its template: the least cost, the steps of
/// a least-cost way (the fewest among them), and that way written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answer<'a> {
    pub cost: Option<u64>,
    pub steps: Option<u64>,
    pub path: Option<&'a str>,
    /// Where costs have parts: the cost, part by part.
    pub parts: &'a [u64],
}

/// An output line with placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(pub Vec<Seg>);

/// A piece of an output template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Lit(String),
    Num(Num),
    /// `{path}`: the letters of the way, joined by the joiner.
    Path,
}

impl Template {
    /// Whether it prints `{steps}`: then a case whose steps have costs needs
    /// its way found, to count them.
    pub fn uses_steps(&self) -> bool {
        self.mentions(&Num::Steps)
    }

    /// Whether it prints `{path}`: then every solved case needs its way.
    pub fn uses_path(&self) -> bool {
        self.0.contains(&Seg::Path)
    }

    /// Whether `leaf` (`{steps}`, `{cost}`) appears in it, alone or in
    /// arithmetic.
    fn mentions(&self, leaf: &Num) -> bool {
        fn has(n: &Num, leaf: &Num) -> bool {
            match n {
                Num::Neg(e) => has(e, leaf),
                Num::Bin(a, _, b) => has(a, leaf) || has(b, leaf),
                n => n == leaf,
            }
        }
        self.0
            .iter()
            .any(|s| matches!(s, Seg::Num(n) if has(n, leaf)))
    }

    /// The line for one case: `answer` is the least cost and the steps of
    /// its way, when solved (a value not known prints `?`).
    pub fn render(&self, case: usize, answer: Answer, header: &[i64]) -> String {
        let env = NumEnv {
            field: &|_| None,
            parts: answer.parts,
            header,
            count: &|_| 0,
            case: case as i64,
            cost: answer.cost.map(|c| c as i64),
            steps: answer.steps.map(|s| s as i64),
        };
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Seg::Lit(t) => out.push_str(t),
                Seg::Num(n) => match n.eval(&env) {
                    Some(v) => out.push_str(&v.to_string()),
                    None => out.push('?'),
                },
                Seg::Path => out.push_str(answer.path.unwrap_or("?")),
            }
        }
        out
    }
}

/// The markers of a symbol class, for `'a'..` ranges: letters and digits
/// run to `z`, `Z` or `9`; a numeric token (`"1"..`) runs on for `limit`
/// numbers.
pub fn marker_run(first: &str, is_char: bool, limit: usize) -> Vec<String> {
    if let Ok(n) = first.parse::<u64>()
        && !is_char
    {
        return (0..limit as u64).map(|i| (n + i).to_string()).collect();
    }
    let mut chars = first.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return vec![first.to_string()];
    };
    let end = match c {
        'a'..='z' => 'z',
        'A'..='Z' => 'Z',
        '0'..='9' => '9',
        c => c,
    };
    (c..=end).map(|c| c.to_string()).collect()
}

/// The most members a numeric marker range gives.
pub const MAX_RUN: usize = 256;

/// Resolves and checks a parsed rule file. Returns the rules and the warnings,
/// or every error found (warnings included).
pub fn resolve(file: &ast::File) -> Result<(Rules, Vec<RuleError>), Vec<RuleError>> {
    let mut r = Resolver::default();
    r.run(file);
    let (warnings, errors): (Vec<_>, Vec<_>) = r.errors.into_iter().partition(|e| e.is_warning());
    match r.rules {
        Some(rules) if errors.is_empty() => Ok((rules, warnings)),
        // Warnings next to errors are mostly echoes of them (a flag "never
        // set" because the rule setting it has a typo): leave them out.
        _ => Err(errors),
    }
}

/// What a name in the shared namespace refers to.
#[derive(Debug, Clone, Copy)]
enum Def {
    Domain(DomainId),
    Tile(TileId),
    Agent(AgentId),
    State(StateId),
    Layout(LayoutId),
}

impl Def {
    fn kind(self) -> &'static str {
        match self {
            Def::Domain(_) => "domain",
            Def::Tile(_) => "tile",
            Def::Agent(_) => "agent",
            Def::State(_) => "flag",
            Def::Layout(_) => "layout",
        }
    }
}

/// Where a number may look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Allow {
    /// Header fields only (sizes).
    Header,
    /// Header fields and tile counts (anything grounded on a map).
    Map,
    /// Header fields, the case number and the answer (output templates).
    Template { cost: bool },
    /// Header fields, tile counts and the time, `steps` (conditions).
    Time,
}

#[derive(Default)]
struct Resolver {
    errors: Vec<RuleError>,
    /// `minimise A then B`: the parts of a cost, and where declared.
    parts: Vec<String>,
    /// The names of `minimise`'s parts, where (empty: costs have no parts).
    part_spans: Vec<Span>,
    /// Every chosen move: whether it has a letter, and where it is.
    lettered: Vec<(bool, Span)>,
    /// Tiles, agents, states and layouts share this namespace.
    names: HashMap<String, (Def, Span)>,
    /// Domains have their own: `domain lamp` and `tile lamp` can coexist.
    domain_names: HashMap<String, (Def, Span)>,
    domains: Vec<Domain>,
    tiles: Vec<Tile>,
    agents: Vec<Agent>,
    states: Vec<State>,
    layouts: Vec<LayoutDef>,
    header: Vec<String>,
    header_lines: Vec<usize>,
    legend: HashMap<String, (Glyph, Span, String)>,
    /// Whether the rule being resolved used its pattern's binding.
    bound_used: bool,
    /// Some move or tile has a cost given.
    has_costs: bool,
    /// The comparisons of numbers resolved so far ([`Expr::Time`]).
    times: Vec<TimeRead>,
    /// The beams declared.
    beams: Vec<Beam>,
    /// The fields declared.
    fields: Vec<Field>,
    /// The names of fields whose declarations are reported.
    broken_fields: Vec<String>,
    /// The condition being resolved is an `enter` rule's, where `moving
    /// DIR` has a meaning (the way the cell is entered).
    in_enter: bool,
    /// The condition being resolved is a move's `if` or an `on MOVE`
    /// rule's, where a mover is moving: `moving` and cell tests read it.
    in_move: bool,
    /// The sets of moves `moves` declares, by name: their items and the
    /// name's span.
    move_sets: HashMap<String, (Vec<ast::MoveItem>, Span)>,
    /// The first slide some agent is given (slides need agents in turn).
    first_slide: Option<Span>,
    /// The cycles of sets of moves reported, each as its sorted names.
    cycles: Vec<Vec<String>>,
    /// Moves' conditions resolved, by their span (a set's are resolved
    /// once however often it is used).
    guards: HashMap<(usize, usize), Option<Expr>>,
    rules: Option<Rules>,
}

/// The `input` block's items, and its span.
type Block<'f> = (&'f Vec<ast::InputItem>, Span);

/// What pass 2 finds in the declarations that use the names.
#[derive(Default)]
struct Found {
    mode: Option<ast::Spanned<Mode>>,
    forbid_same_cell: bool,
    forbid_swap: bool,
    enter_rules: Vec<EnterRule>,
    enter_costs: Vec<CostRule>,
    on_enter: Vec<OnEnter>,
    on_move: Vec<OnMove>,
    when: Vec<When>,
    goal: Option<(Expr, Span)>,
    /// The goal's parts joined by `and`, each resolved (where it has
    /// more than one).
    goal_parts: Vec<Expr>,
    /// Where each of `goal_parts` is written.
    goal_part_spans: Vec<Span>,
    /// The first goal written, resolved or not.
    goal_written: Option<Span>,
    limit: Option<(Limit, Span)>,
    /// The agents given moves, each with its first `move` rule.
    moved: HashMap<AgentId, Span>,
    teleports: Vec<Teleport>,
    carries: Vec<Carry>,
    forbid: Vec<Expr>,
    pushes: HashMap<AgentId, Span>,
}

/// What a rule's pattern gives its condition and actions: the variable it
/// binds (and its domain), and the tile it matches.
#[derive(Debug, Clone, Default)]
struct Scope {
    bind: Option<(String, DomainId, Span)>,
    tile: Option<TileId>,
}

impl Resolver {
    fn err(&mut self, e: RuleError) {
        self.errors.push(e);
    }

    /// A rule that cannot mean what it says, coded by its topic.
    fn invalid(&mut self, topic: Topic, message: String, span: Span, label: &str, help: String) {
        self.err(RuleError::from(Invalid {
            topic,
            message,
            span,
            label: label.into(),
            help,
        }));
    }

    fn define(&mut self, name: &Ident, def: Def) -> bool {
        let names = if matches!(def, Def::Domain(_)) {
            &mut self.domain_names
        } else {
            &mut self.names
        };
        if let Some((old, first)) = names.get(&name.name) {
            let kind = if old.kind() == def.kind() {
                def.kind()
            } else {
                "name"
            };
            let e = RuleError::Duplicate {
                kind,
                name: name.name.clone(),
                span: name.span,
                first: *first,
            };
            self.err(e);
            return false;
        }
        names.insert(name.name.clone(), (def, name.span));
        true
    }

    fn lookup(&self, name: &str) -> Option<Def> {
        self.names.get(name).map(|(d, _)| *d)
    }

    fn names_of(&self, kind: &str) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .names
            .iter()
            .filter(|(_, (d, _))| d.kind() == kind)
            .map(|(n, _)| n.as_str())
            .collect();
        v.sort();
        v
    }

    fn unknown(&mut self, kind: &str, id: &Ident) {
        let help = did_you_mean(&id.name, self.names_of(kind), &format!("{kind}s"));
        let (name, span) = (id.name.clone(), id.span);
        // A name that exists with another kind is a kind error, not a typo.
        if let Some(other) = self.lookup(&id.name) {
            let e = RuleError::WrongKind {
                message: format!("`{name}` is a {}, not a {kind}", other.kind()),
                span,
                label: format!("expected a {kind} here"),
                help,
            };
            return self.err(e);
        }
        self.err(match kind {
            "tile" => RuleError::UnknownTile { name, span, help },
            "agent" => RuleError::UnknownAgent { name, span, help },
            "layout" => RuleError::from(Invalid {
                topic: Topic::Layout,
                message: format!("unknown layout `{name}`"),
                span,
                label: "no layout is called this".into(),
                help,
            }),
            _ => RuleError::UnknownFlag { name, span, help },
        });
    }

    fn tile(&mut self, id: &Ident) -> Option<TileId> {
        match self.lookup(&id.name) {
            Some(Def::Tile(t)) => Some(t),
            _ => {
                self.unknown("tile", id);
                None
            }
        }
    }

    fn agent(&mut self, id: &Ident) -> Option<AgentId> {
        match self.lookup(&id.name) {
            Some(Def::Agent(a)) => Some(a),
            _ => {
                self.unknown("agent", id);
                None
            }
        }
    }

    fn state(&mut self, id: &Ident) -> Option<StateId> {
        match self.lookup(&id.name) {
            Some(Def::State(f)) => Some(f),
            _ => {
                self.unknown("flag", id);
                None
            }
        }
    }

    fn domain(&mut self, id: &Ident) -> Option<DomainId> {
        match self.domain_names.get(&id.name) {
            Some((Def::Domain(d), _)) => Some(*d),
            _ => {
                let help = did_you_mean(
                    &id.name,
                    self.domain_names.keys().map(String::as_str),
                    "domains",
                );
                let (name, span) = (id.name.clone(), id.span);
                self.err(RuleError::UnknownDomain { name, span, help });
                None
            }
        }
    }

    /// A number; `what` says where it is, for the hint.
    fn num(&mut self, e: &IntExpr, allow: Allow, what: &str) -> Option<Num> {
        Some(match e {
            IntExpr::Lit(v) => Num::Lit(v.value),
            IntExpr::Neg(e, _) => Num::Neg(Box::new(self.num(e, allow, what)?)),
            IntExpr::Bin(a, op, b, _) => {
                let a = self.num(a, allow, what);
                let b = self.num(b, allow, what);
                Num::Bin(Box::new(a?), *op, Box::new(b?))
            }
            IntExpr::Count(t, sp) => {
                if !matches!(allow, Allow::Map | Allow::Time) {
                    self.invalid(
                        Topic::Number,
                        "`count(...)` needs a map".into(),
                        *sp,
                        "not known here",
                        format!("{what} cannot depend on the map's tiles"),
                    );
                    return None;
                }
                Num::Count(self.tile(t)?)
            }
            IntExpr::FieldAt(fa, sp) => return self.field_at(&fa[0], &fa[1], *sp, allow),
            IntExpr::Name(f) => {
                if let Some(i) = self.header.iter().position(|h| *h == f.name) {
                    return Some(Num::Field(i));
                }
                let mut extra: Vec<&str> = Vec::new();
                if matches!(allow, Allow::Time) {
                    match self.time_name(f) {
                        Ok(n) => return n,
                        Err(more) => extra.extend(more),
                    }
                }
                if let Allow::Template { cost } = allow {
                    if let Some(i) = self.parts.iter().position(|p| *p == f.name) {
                        return self.part_placeholder(i, cost, f);
                    }
                    match f.name.as_str() {
                        "case" => return Some(Num::Case),
                        "cost" if cost && !self.parts.is_empty() => {
                            self.invalid(
                                Topic::Cost,
                                "`{cost}` of a cost in parts".into(),
                                f.span,
                                "which part?",
                                format!(
                                    "costs are in parts: print each, {}",
                                    self.parts
                                        .iter()
                                        .map(|p| format!("`{{{p}}}`"))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            );
                            return None;
                        }
                        "cost" if cost => return Some(Num::Cost),
                        "steps" if cost => return Some(Num::Steps),
                        "steps" | "cost" => {
                            let name = f.name.clone();
                            self.invalid(
                                Topic::Number,
                                format!("`{{{name}}}` is only known when the case is solved"),
                                f.span,
                                &format!("no {name} here"),
                                format!("use `{{{name}}}` in the `solved` line"),
                            );
                            return None;
                        }
                        _ => extra.extend(["case", "steps", "cost"]),
                    }
                }
                let cands = self.header.iter().map(String::as_str).chain(extra);
                let help = did_you_mean(&f.name, cands, "header fields");
                if matches!(allow, Allow::Template { .. }) {
                    self.err(RuleError::UnknownPlaceholder {
                        name: f.name.clone(),
                        span: f.span,
                        help,
                    });
                } else {
                    let help = format!(
                        "{help} ({what} is a number or a name from the input's `header` line)"
                    );
                    self.err(RuleError::UnknownField {
                        name: f.name.clone(),
                        span: f.span,
                        help,
                    });
                }
                return None;
            }
        })
    }

    /// `{pushes}`: a part of the answer's cost, in the `solved` line.
    fn part_placeholder(&mut self, i: usize, solved: bool, f: &ast::Ident) -> Option<Num> {
        if !solved {
            self.invalid(
                Topic::Number,
                format!("`{{{}}}` is only known when the case is solved", f.name),
                f.span,
                "no cost here",
                format!("use `{{{}}}` in the `solved` line", f.name),
            );
            return None;
        }
        Some(Num::Part(i))
    }

    fn claim(&mut self, sym: &ast::Symbol, glyph: Glyph, what: String) {
        if let Some((_, first, first_what)) = self.legend.get(&sym.text) {
            let e = RuleError::LegendConflict {
                symbol: crate::error::shown_symbol(&sym.text, sym.is_char),
                span: sym.span,
                what,
                first: *first,
                first_what: first_what.clone(),
            };
            self.err(e);
        } else {
            self.legend
                .insert(sym.text.clone(), (glyph, sym.span, what));
        }
    }

    fn run(&mut self, file: &ast::File) {
        let (title, input) = self.definitions(file);
        let mut found = Found::default();
        for d in &file.decls {
            self.rule_decl(d, &mut found);
        }
        self.conclude(file, title, input, found);
    }

    /// Pass 1: the header and every definition, so that later uses can
    /// refer to names defined anywhere in the file. The title and the
    /// `input` block, found on the way.
    fn definitions<'f>(
        &mut self,
        file: &'f ast::File,
    ) -> (Option<&'f ast::Spanned<String>>, Option<Block<'f>>) {
        use ast::Decl as D;
        let mut title = None;
        let mut input: Option<(&Vec<ast::InputItem>, Span)> = None;
        for d in &file.decls {
            match d {
                D::Puzzle(t) => {
                    if let Some(first) = title.replace(t) {
                        self.err(RuleError::Repeated {
                            what: "the puzzle's title",
                            span: t.span,
                            first: first.span,
                        });
                    }
                }
                D::Minimise(names) => self.minimise(names),
                D::Input(items) => {
                    let sp = io::items_span(items);
                    if let Some((_, first)) = input.replace((items, sp)) {
                        self.err(RuleError::Repeated {
                            what: "the `input` block",
                            span: sp,
                            first,
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some((items, _)) = input {
            self.header_decl(items);
        }
        for d in &file.decls {
            if let D::Domain(dd) = d {
                self.domain_decl(dd);
            }
        }
        for d in &file.decls {
            if let D::Tiles(defs) = d {
                for t in defs {
                    self.tile_def(t);
                }
            }
        }
        for d in &file.decls {
            if let D::Layout(l) = d {
                self.layout_decl(l);
            }
        }
        // Beams and fields before the conditions that read them, wherever
        // they are.
        for d in &file.decls {
            match d {
                D::Beam(b) => self.beam_decl(b),
                D::Field(f) => self.field_decl(f),
                _ => {}
            }
        }
        for d in &file.decls {
            if let D::Moves(m) = d {
                self.moves_decl(m);
            }
        }
        // Each set's names are checked once, here, not wherever it is used.
        for d in &file.decls {
            if let D::Moves(m) = d
                && self
                    .move_sets
                    .get(&m.name.name)
                    .is_some_and(|s| s.1 == m.name.span)
            {
                let mut stack = vec![m.name.name.clone()];
                self.expand_moves(&m.moves, (None, &[]), &mut stack, &mut Vec::new(), 1);
                // A set's conditions are checked here, once, used or not.
                for g in m.moves.iter().filter_map(|i| i.guard.as_ref()) {
                    self.guard(g);
                }
            }
        }
        for d in &file.decls {
            match d {
                D::Agent(a) => self.agent_decl(a),
                D::Poses(p) => self.poses_decl(p),
                D::Flags(fs) => {
                    for f in fs {
                        let index = self.state_index(f.index.as_ref());
                        self.define_state(&f.name, StateKind::Flag, index);
                    }
                }
                D::Counters(cs) => {
                    for c in cs {
                        self.counter_decl(c);
                    }
                }
                _ => {}
            }
        }

        for d in &file.decls {
            if let D::Agent(a) = d {
                self.follows_decl(a);
            }
        }
        (title, input)
    }

    /// The header's field names, each once.
    fn header_decl(&mut self, items: &[ast::InputItem]) {
        for it in items {
            if let ast::InputItem::Header(names) = it {
                for n in names {
                    if self.header.contains(&n.name) {
                        self.invalid(
                            Topic::Header,
                            format!("header field `{}` is named twice", n.name),
                            n.span,
                            "named again here",
                            "give each header value its own name".into(),
                        );
                    }
                    self.header.push(n.name.clone());
                }
                self.header_lines.push(names.len());
            }
        }
    }

    /// A domain and its values, each once.
    fn domain_decl(&mut self, dd: &ast::DomainDecl) {
        let id = DomainId(self.domains.len() as u32);
        if self.define(&dd.name, Def::Domain(id)) {
            let mut values: Vec<String> = Vec::new();
            // A set of the values so far: a domain of 30,000 values
            // was checked in quadratic time.
            let mut seen = HashSet::with_capacity(dd.values.len());
            for v in &dd.values {
                if !seen.insert(v.name.as_str()) {
                    self.invalid(
                        Topic::Domain,
                        format!(
                            "value `{}` appears twice in domain `{}`",
                            v.name, dd.name.name
                        ),
                        v.span,
                        "repeated value",
                        "each value of a domain must be distinct".into(),
                    );
                }
                values.push(v.name.clone());
            }
            self.domains.push(Domain {
                name: dd.name.name.clone(),
                values,
            });
        }
    }

    /// Pass 2: one declaration that uses the names, into what is found.
    fn rule_decl(&mut self, d: &ast::Decl, found: &mut Found) {
        use ast::Decl as D;
        match d {
            D::Move(m) => self.move_decl(m, &mut found.mode, &mut found.moved),
            D::Teleport(t) => self.teleport_decl(t, &mut found.teleports),
            D::Carry(c) => self.carry_decl(c, &mut found.carries),
            D::Push(p) => self.push_decl(p, &mut found.pushes),
            D::Forbid(f) => match f.value {
                Forbid::SameCell => found.forbid_same_cell = true,
                Forbid::Swap => found.forbid_swap = true,
            },
            D::ForbidIf(p) => {
                if let Some(e) = self.expr(p, &Scope::default()) {
                    found.forbid.push(e);
                }
            }
            D::Enter(e) => self.enter_decl(e, found),
            D::On(o) => self.on_decl(o, found),
            D::When(w) => {
                let agent = self.agent(&w.agent);
                if let Some((tile, value, scope)) = self.pattern(&w.pattern) {
                    if w.relation == Relation::On {
                        self.warn_if_solid(tile, w.pattern.span, "standing on this tile");
                    }
                    let (cond, actions) = self.rule_body(&w.cond, &w.actions, &scope);
                    if let Some(agent) = agent {
                        found.when.push(When {
                            agent,
                            relation: w.relation,
                            tile,
                            value,
                            cond,
                            actions,
                        });
                    }
                }
            }
            D::Goal(p) => {
                let e = self.expr(p, &Scope::default());
                if let Some(first) = found.goal_written {
                    self.err(RuleError::Repeated {
                        what: "the goal",
                        span: p.span(),
                        first,
                    });
                } else if let Some(e) = e {
                    found.goal = Some((e, p.span()));
                    if let ast::Pred::And(parts, _) = p {
                        let scope = Scope::default();
                        let each: Option<Vec<Expr>> =
                            parts.iter().map(|q| self.expr(q, &scope)).collect();
                        found.goal_parts = each.unwrap_or_default();
                        found.goal_part_spans = parts.iter().map(|q| q.span()).collect();
                    }
                }
                found.goal_written.get_or_insert(p.span());
            }
            D::Limit(l) => self.limit_decl(l, found),
            _ => {}
        }
    }
    /// Pass 2: an `enter` rule: a condition or a cost.
    fn enter_decl(&mut self, e: &ast::EnterDecl, found: &mut Found) {
        let Some((tile, value, scope)) = self.pattern(&e.pattern) else {
            return;
        };
        match &e.what {
            ast::EnterWhat::If(c) => {
                self.bound_used = false;
                let before = self.errors.len();
                self.in_enter = true;
                let cond = self.expr(c, &scope);
                self.in_enter = false;
                if self.errors.len() == before {
                    self.check_binding(&scope);
                }
                if let Some(cond) = cond {
                    found.enter_rules.push(EnterRule { tile, value, cond });
                }
            }
            ast::EnterWhat::Costs(c) => {
                self.has_costs = true;
                if scope.bind.is_some() {
                    self.check_binding(&scope);
                }
                if let Some(cost) = self.cost(c) {
                    found.enter_costs.push(CostRule { tile, value, cost });
                }
            }
        }
    }

    /// Pass 2: an `on` rule: on entering a tile, or on a move.
    fn on_decl(&mut self, o: &ast::OnDecl, found: &mut Found) {
        let agent = o.agent.as_ref().and_then(|a| self.agent(a));
        match &o.trigger {
            ast::Trigger::Enter(p) => {
                if let Some((tile, value, scope)) = self.pattern(p) {
                    self.warn_if_solid(tile, p.span, "entering this tile");
                    // The way in is read here too.
                    self.in_enter = true;
                    let (cond, actions) = self.rule_body(&o.cond, &o.actions, &scope);
                    self.in_enter = false;
                    found.on_enter.push(OnEnter {
                        agent,
                        tile,
                        value,
                        cond,
                        actions,
                    });
                }
            }
            ast::Trigger::Move(k) => {
                let scope = Scope::default();
                self.in_move = true;
                let (cond, actions) = self.rule_body(&o.cond, &o.actions, &scope);
                self.in_move = false;
                if let Some(c) = &cond {
                    let who: Vec<AgentId> = match agent {
                        Some(a) => vec![a],
                        None => (0..self.agents.len() as u32).map(AgentId).collect(),
                    };
                    self.check_way(k, c, &who);
                }
                found.on_move.push(OnMove {
                    agent,
                    kind: k.value,
                    cond,
                    actions,
                    span: k.span,
                });
            }
        }
    }

    /// Pass 2: the `limit`.
    fn limit_decl(&mut self, l: &ast::LimitDecl, found: &mut Found) {
        if let Some(first) = found.limit.as_ref().map(|l| l.1) {
            self.err(RuleError::Repeated {
                what: "the limit",
                span: l.span,
                first,
            });
        }
        if !self.parts.is_empty() {
            self.invalid(
                Topic::Limit,
                "a limit with costs in parts".into(),
                l.span,
                "on which part?",
                "a cost in parts (`minimise`) has no one number to bound: drop the limit, or \
                 the parts"
                    .into(),
            );
            return;
        }
        if let Some(bound) = self.num(&l.bound, Allow::Map, "a limit") {
            if bound.constant().is_some_and(|v| v < 0) {
                self.invalid(
                    Topic::Limit,
                    "a limit below 0 allows no answer at all".into(),
                    l.bound.span(),
                    "negative",
                    "give a limit of 0 or more".into(),
                );
            }
            found.limit = Some((
                Limit {
                    measure: l.measure,
                    strict: l.strict,
                    bound,
                },
                l.span,
            ));
        }
    }

    /// Agents that move by themselves, and bodies, need steps in turn.
    fn in_turn_checks(&mut self, mode: Option<&ast::Spanned<Mode>>) {
        if let Some(m) = mode.filter(|m| m.value != Mode::InTurn)
            && let Some(a) =
                (self.agents.iter()).find(|a| a.script.is_some() || a.follows.is_some())
        {
            let name = a.name.clone();
            let what = if a.script.is_some() {
                "moves by itself"
            } else {
                "follows its leader"
            };
            self.invalid(
                Topic::Mode,
                format!("`{name}` {what}, beside agents that do not move in turn"),
                m.span,
                "not in turn",
                "agents that move by themselves, and bodies, follow steps in turn: drop \
                 `at once` or `together`"
                    .into(),
            );
        }
    }

    /// The checks that need the whole file, then the rules, when nothing
    /// is wrong.
    fn conclude(
        &mut self,
        file: &ast::File,
        title: Option<&ast::Spanned<String>>,
        input: Option<Block<'_>>,
        found: Found,
    ) {
        let Found {
            mode,
            forbid_same_cell,
            forbid_swap,
            enter_rules,
            enter_costs,
            on_enter,
            on_move,
            when,
            goal,
            goal_parts,
            goal_part_spans,
            goal_written,
            limit,
            teleports,
            carries,
            forbid,
            ..
        } = found;
        if let Some((l, sp)) = &limit
            && l.measure == Measure::Steps
            && self.has_costs
        {
            self.invalid(
                Topic::Limit,
                "a limit on steps, when steps have costs".into(),
                *sp,
                "steps, not cost",
                "the answer is the least total cost: write `limit cost <= ...`".into(),
            );
        }

        self.time_checks(limit.as_ref().map(|l| &l.0));
        self.far_checks(mode.as_ref(), &teleports);
        self.object_checks(mode.as_ref());
        self.piece_checks(mode.as_ref(), &teleports);
        let io = self.io(input.map(|(i, _)| i), file);
        self.parts_warnings(&enter_costs);
        self.field_warnings();
        self.legend_warnings(
            &enter_rules,
            &on_enter,
            &on_move,
            &when,
            goal.as_ref().map(|g| &g.0),
        );
        if self.agents.is_empty() {
            self.err(RuleError::Missing {
                what: "agent",
                help: "declare one, e.g. `agent hero '@' on floor`".into(),
            });
        }
        if let Some(io) = &io {
            self.layout_checks(io);
        }
        let Some((goal, _)) = goal else {
            if goal_written.is_none() {
                self.err(RuleError::Missing {
                    what: "goal",
                    help: "say what a solved state is, e.g. `goal hero on exit`".into(),
                });
            }
            return;
        };
        self.in_turn_checks(mode.as_ref());
        let Some(io) = io else { return };
        let legend = self
            .legend
            .iter()
            .map(|(c, (g, _, _))| (c.clone(), *g))
            .collect();
        self.rules = Some(Rules {
            title: title.map(|t| t.value.clone()).unwrap_or_default(),
            io,
            domains: std::mem::take(&mut self.domains),
            tiles: std::mem::take(&mut self.tiles),
            legend,
            agents: std::mem::take(&mut self.agents),
            states: std::mem::take(&mut self.states),
            layouts: std::mem::take(&mut self.layouts),
            mode: mode.map(|m| m.value).unwrap_or(Mode::InTurn),
            forbid_same_cell,
            forbid_swap,
            forbid,
            enter_rules,
            enter_costs,
            on_enter,
            on_move,
            when,
            teleports,
            carries,
            goal,
            goal_parts,
            goal_part_texts: Vec::new(),
            goal_part_spans,
            limit: limit.map(|l| l.0),
            times: std::mem::take(&mut self.times),
            beams: std::mem::take(&mut self.beams),
            fields: std::mem::take(&mut self.fields),
            parts: self.parts.clone(),
        });
    }
}
