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
use crate::error::{RuleError, did_you_mean};
use hashbrown::{HashMap, HashSet};

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
#[derive(Debug, Clone)]
pub struct Rules {
    pub title: String,
    pub io: Io,
    pub domains: Vec<Domain>,
    pub tiles: Vec<Tile>,
    /// Map symbol (a character, or a token) -> what it stands for.
    pub legend: HashMap<String, Glyph>,
    pub agents: Vec<Agent>,
    pub states: Vec<State>,
    pub layouts: Vec<LayoutDef>,
    pub mode: Mode,
    pub forbid_same_cell: bool,
    pub forbid_swap: bool,
    /// `forbid COND`: no step ends in a state where one holds.
    pub forbid: Vec<Expr>,
    pub enter_rules: Vec<EnterRule>,
    pub enter_costs: Vec<CostRule>,
    pub on_enter: Vec<OnEnter>,
    pub on_move: Vec<OnMove>,
    pub when: Vec<When>,
    pub teleports: Vec<Teleport>,
    /// `carry` rules: what moves what stands on some tiles after a step.
    pub carries: Vec<Carry>,
    pub goal: Expr,
    pub limit: Option<Limit>,
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
    pub cost: Num,
    /// `if COND`: the move is made only where this holds before it.
    pub guard: Option<Expr>,
    /// For a piece with poses: from each pose (in the order of its
    /// `poses`), the pose it takes and its anchor's shift.
    pub table: Vec<(u32, (i32, i32))>,
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
    pub push_cost: Option<Num>,
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
    Option<IntExpr>,
    Vec<ast::Pred>,
    Vec<ast::TableRow>,
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
            header: &[],
            count: &|_| 0,
            case: 0,
            cost: None,
            steps: None,
        };
        self.is_constant().then(|| self.eval(&env)).flatten()
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
    pub cost: Num,
}

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
}

/// What a solved case gives its template: the least cost, and the steps of
/// a least-cost way (the fewest among them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Answer {
    pub cost: Option<u64>,
    pub steps: Option<u64>,
}

/// An output line with placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(pub Vec<Seg>);

/// A piece of an output template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Lit(String),
    Num(Num),
}

impl Template {
    /// Whether it prints `{steps}`: then a case whose steps have costs needs
    /// its way found, to count them.
    pub fn uses_steps(&self) -> bool {
        self.mentions(&Num::Steps)
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
}

#[derive(Default)]
struct Resolver {
    errors: Vec<RuleError>,
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

    fn invalid(&mut self, message: String, span: Span, label: &str, help: String) {
        self.err(RuleError::Invalid {
            message,
            span,
            label: label.into(),
            help,
        });
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
            "layout" => RuleError::Invalid {
                message: format!("unknown layout `{name}`"),
                span,
                label: "no layout is called this".into(),
                help,
            },
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
                if !matches!(allow, Allow::Map) {
                    self.invalid(
                        "`count(...)` needs a map".into(),
                        *sp,
                        "not known here",
                        format!("{what} cannot depend on the map's tiles"),
                    );
                    return None;
                }
                Num::Count(self.tile(t)?)
            }
            IntExpr::Name(f) => {
                if let Some(i) = self.header.iter().position(|h| *h == f.name) {
                    return Some(Num::Field(i));
                }
                let mut extra: Vec<&str> = Vec::new();
                if let Allow::Template { cost } = allow {
                    match f.name.as_str() {
                        "case" => return Some(Num::Case),
                        "cost" if cost => return Some(Num::Cost),
                        "steps" if cost => return Some(Num::Steps),
                        "steps" | "cost" => {
                            let name = f.name.clone();
                            self.invalid(
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
        use ast::Decl as D;
        // Pass 1: the header and every definition, so later uses can refer
        // to names defined anywhere in the file.
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
                D::Input(items) => {
                    let sp = items_span(items);
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
            for it in items {
                if let ast::InputItem::Header(names) = it {
                    for n in names {
                        if self.header.contains(&n.name) {
                            self.invalid(
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
        for d in &file.decls {
            if let D::Domain(dd) = d {
                let id = DomainId(self.domains.len() as u32);
                if self.define(&dd.name, Def::Domain(id)) {
                    let mut values: Vec<String> = Vec::new();
                    // A set of the values so far: a domain of 30,000 values
                    // was checked in quadratic time.
                    let mut seen = HashSet::with_capacity(dd.values.len());
                    for v in &dd.values {
                        if !seen.insert(v.name.as_str()) {
                            self.invalid(
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

        // Pass 2: rules that use the names.
        let mut mode: Option<ast::Spanned<Mode>> = None;
        let mut forbid_same_cell = false;
        let mut forbid_swap = false;
        let mut enter_rules = Vec::new();
        let mut enter_costs = Vec::new();
        let mut on_enter = Vec::new();
        let mut on_move = Vec::new();
        let mut when = Vec::new();
        let mut goal: Option<(Expr, Span)> = None;
        let mut goal_written: Option<Span> = None;
        let mut limit: Option<(Limit, Span)> = None;
        let mut moved: HashMap<AgentId, Span> = HashMap::new();
        let mut teleports: Vec<Teleport> = Vec::new();
        let mut carries: Vec<Carry> = Vec::new();
        let mut forbid: Vec<Expr> = Vec::new();
        let mut pushes: HashMap<AgentId, Span> = HashMap::new();
        for d in &file.decls {
            match d {
                D::Move(m) => self.move_decl(m, &mut mode, &mut moved),
                D::Teleport(t) => self.teleport_decl(t, &mut teleports),
                D::Carry(c) => self.carry_decl(c, &mut carries),
                D::Push(p) => self.push_decl(p, &mut pushes),
                D::Forbid(f) => match f.value {
                    Forbid::SameCell => forbid_same_cell = true,
                    Forbid::Swap => forbid_swap = true,
                },
                D::ForbidIf(p) => {
                    if let Some(e) = self.expr(p, &Scope::default()) {
                        forbid.push(e);
                    }
                }
                D::Enter(e) => {
                    let Some((tile, value, scope)) = self.pattern(&e.pattern) else {
                        continue;
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
                                enter_rules.push(EnterRule { tile, value, cond });
                            }
                        }
                        ast::EnterWhat::Costs(c) => {
                            self.has_costs = true;
                            if scope.bind.is_some() {
                                self.check_binding(&scope);
                            }
                            if let Some(cost) = self.cost(c) {
                                enter_costs.push(CostRule { tile, value, cost });
                            }
                        }
                    }
                }
                D::On(o) => {
                    let agent = o.agent.as_ref().and_then(|a| self.agent(a));
                    match &o.trigger {
                        ast::Trigger::Enter(p) => {
                            if let Some((tile, value, scope)) = self.pattern(p) {
                                self.warn_if_solid(tile, p.span, "entering this tile");
                                // The way in is read here too.
                                self.in_enter = true;
                                let (cond, actions) = self.rule_body(&o.cond, &o.actions, &scope);
                                self.in_enter = false;
                                on_enter.push(OnEnter {
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
                            on_move.push(OnMove {
                                agent,
                                kind: k.value,
                                cond,
                                actions,
                                span: k.span,
                            });
                        }
                    }
                }
                D::When(w) => {
                    let agent = self.agent(&w.agent);
                    if let Some((tile, value, scope)) = self.pattern(&w.pattern) {
                        if w.relation == Relation::On {
                            self.warn_if_solid(tile, w.pattern.span, "standing on this tile");
                        }
                        let (cond, actions) = self.rule_body(&w.cond, &w.actions, &scope);
                        if let Some(agent) = agent {
                            when.push(When {
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
                    if let Some(first) = goal_written {
                        self.err(RuleError::Repeated {
                            what: "the goal",
                            span: p.span(),
                            first,
                        });
                    } else if let Some(e) = e {
                        goal = Some((e, p.span()));
                    }
                    goal_written.get_or_insert(p.span());
                }
                D::Limit(l) => {
                    if let Some(first) = limit.as_ref().map(|l| l.1) {
                        self.err(RuleError::Repeated {
                            what: "the limit",
                            span: l.span,
                            first,
                        });
                    }
                    if let Some(bound) = self.num(&l.bound, Allow::Map, "a limit") {
                        if bound.constant().is_some_and(|v| v < 0) {
                            self.invalid(
                                "a limit below 0 allows no answer at all".into(),
                                l.bound.span(),
                                "negative",
                                "give a limit of 0 or more".into(),
                            );
                        }
                        limit = Some((
                            Limit {
                                measure: l.measure,
                                strict: l.strict,
                                bound,
                            },
                            l.span,
                        ));
                    }
                }
                _ => {}
            }
        }
        if let Some((l, sp)) = &limit
            && l.measure == Measure::Steps
            && self.has_costs
        {
            self.invalid(
                "a limit on steps, when steps have costs".into(),
                *sp,
                "steps, not cost",
                "the answer is the least total cost: write `limit cost <= ...`".into(),
            );
        }

        self.far_checks(mode.as_ref(), &teleports);
        self.object_checks(mode.as_ref());
        self.piece_checks(mode.as_ref(), &teleports);
        let io = self.io(input.map(|(i, _)| i), file);
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
        if let Some(m) = mode.as_ref().filter(|m| m.value != Mode::InTurn)
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
                format!("`{name}` {what}, beside agents that do not move in turn"),
                m.span,
                "not in turn",
                "agents that move by themselves, and bodies, follow steps in turn: drop \
                 `at once` or `together`"
                    .into(),
            );
        }
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
            limit: limit.map(|l| l.0),
        });
    }

    /// `carry PATTERN WAY`: one way a cell, whichever rules match it.
    fn carry_decl(&mut self, c: &ast::CarryDecl, carries: &mut Vec<Carry>) {
        self.bound_used = false;
        let Some((tile, value, scope)) = self.pattern(&c.pattern) else {
            return;
        };
        self.warn_if_solid(tile, c.pattern.span, "being carried off this tile");
        let way = match &c.way {
            ast::CarryWay::Dir(d, _) => {
                self.check_binding(&scope);
                CarryWay::Dir(*d)
            }
            ast::CarryWay::Var(v) => {
                if !self.direction_var(v, &scope, "carry belt(?w) ?w") {
                    return;
                }
                CarryWay::Bound
            }
        };
        let overlaps = |x: &Carry| {
            x.tile == tile
                && match (x.value, value) {
                    (ValueSel::Value(a), ValueSel::Value(b)) => a == b,
                    _ => true,
                }
        };
        if let Some(first) = carries.iter().find(|x| overlaps(x)) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a way to carry what stands on one tile",
                span: c.span,
                first,
            });
            return;
        }
        carries.push(Carry {
            tile,
            value,
            way,
            span: c.span,
        });
    }

    /// Whether `v` is the variable the rule's pattern binds, over a domain
    /// of direction words (reported when not; `example` shows a use).
    fn direction_var(&mut self, v: &Ident, scope: &Scope, example: &str) -> bool {
        let Some((_, d, _)) = scope.bind.clone().filter(|(b, _, _)| *b == v.name) else {
            let help = match &scope.bind {
                Some((b, _, _)) => format!("this rule's pattern binds `{b}`"),
                None => format!("a variable is bound by the rule's pattern: `{example}`"),
            };
            self.err(RuleError::UnboundVariable {
                name: v.name.clone(),
                span: v.span,
                help,
            });
            return false;
        };
        let dom = &self.domains[d.ix()];
        if let Some(bad) = dom.values.iter().find(|x| ast::Dir::named(x).is_none()) {
            let (name, bad) = (dom.name.clone(), bad.clone());
            self.invalid(
                format!(
                    "`{}` ranges over `{name}`, whose value `{bad}` is no direction",
                    v.name
                ),
                v.span,
                "not a domain of directions",
                format!(
                    "a way given by a variable needs a domain of direction words (`domain way = \
                     north east south west`), as in `{example}`"
                ),
            );
            return false;
        }
        self.bound_used = true;
        true
    }

    /// `push OBJECT costs N`.
    fn push_decl(&mut self, p: &ast::PushDecl, pushes: &mut HashMap<AgentId, Span>) {
        let Some(a) = self.agent(&p.object) else {
            return;
        };
        if !self.agents[a.ix()].object {
            let name = p.object.name.clone();
            self.invalid(
                format!("`{name}` is an agent, not an object: it is never pushed"),
                p.object.span,
                "an agent",
                format!("declare what agents push with `object {name} 'X' on TILE`"),
            );
            return;
        }
        if let Some(first) = pushes.insert(a, p.span) {
            self.err(RuleError::Repeated {
                what: "a push cost for one object",
                span: p.span,
                first,
            });
            return;
        }
        self.has_costs = true;
        if let Some(c) = self.cost(&p.cost) {
            self.agents[a.ix()].push_cost = Some(c);
        }
    }

    /// Objects are pushed by an agent stepping in turn: not by agents moving
    /// at once (two could push one object two ways). A slide never pushes:
    /// agents that only slide never move an object (a warning).
    fn object_checks(&mut self, mode: Option<&ast::Spanned<Mode>>) {
        let Some(obj) = self.agents.iter().find(|a| a.object) else {
            return;
        };
        let (name, span) = (obj.name.clone(), obj.span);
        let pushers = self
            .agents
            .iter()
            .filter(|a| !a.object && a.piece.is_none());
        let steps = |a: &Agent| {
            a.moves.iter().any(|m| {
                matches!(m.kind, MoveKind::Forward | MoveKind::Back)
                    || matches!(m.kind, MoveKind::Dir(d) if (d.dr, d.dc) != (0, 0))
            })
        };
        if !pushers.clone().any(steps) && pushers.clone().any(|a| !a.moves.is_empty()) {
            self.err(RuleError::Never {
                message: format!("object `{name}` is never pushed: the agents only slide"),
                span,
                label: "never moves".into(),
                help: "a slide stops before an object, it never pushes one: give an agent \
                       steps (`north east south west`) to push with"
                    .into(),
            });
        }
        if let Some(m) = mode.filter(|m| m.value != Mode::InTurn) {
            self.err(RuleError::Invalid {
                message: format!("object `{name}` needs agents that move in turn"),
                span: m.span,
                label: "agents that move at once or together".into(),
                help: "two agents moving at once could push one object two ways, and agents \
                       moving together do not push objects yet: write `in turn`"
                    .into(),
            });
        }
    }

    /// Pieces move in turn, by steps and slides, and ride slippery tiles;
    /// teleports and objects do not go with them yet.
    fn piece_checks(&mut self, mode: Option<&ast::Spanned<Mode>>, teleports: &[Teleport]) {
        let Some(piece) = self.agents.iter().find(|a| a.piece.is_some()) else {
            return;
        };
        let name = piece.name.clone();
        if let Some(m) = mode.filter(|m| m.value != Mode::InTurn) {
            self.err(RuleError::Invalid {
                message: format!("piece `{name}` needs agents that move in turn"),
                span: m.span,
                label: "agents that move at once or together".into(),
                help: "pieces of several cells moving together could cross each other: write \
                       `in turn`"
                    .into(),
            });
        }
        let object = self
            .agents
            .iter()
            .find(|a| a.object)
            .map(|a| (a.span, "an object"));
        let teleport = teleports.first().map(|t| (t.span, "a teleport"));
        if let Some((span, what)) = teleport.or(object) {
            self.err(RuleError::Invalid {
                message: format!("{what} and pieces larger than a cell cannot go together yet"),
                span,
                label: format!("{what}, with piece `{name}` declared"),
                help: "pieces step, slide and ride slippery tiles, but neither teleport nor \
                       push: drop one of the two"
                    .into(),
            });
        }
    }

    /// `teleport TILE [optional]`.
    fn teleport_decl(&mut self, t: &ast::TeleportDecl, teleports: &mut Vec<Teleport>) {
        let Some(tile) = self.tile(&t.tile) else {
            return;
        };
        if let Some(first) = teleports.iter().find(|x| x.tile == tile) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a teleport of one tile",
                span: t.span,
                first,
            });
            return;
        }
        let def = &self.tiles[tile.ix()];
        let name = def.name.clone();
        if def.border {
            self.invalid(
                format!("tile `{name}` rings the map: it cannot be a teleport's end"),
                t.tile.span,
                "its ends would be every cell of the ring",
                "teleport with a tile of the map's own".into(),
            );
            return;
        }
        if def.solid || def.slippery {
            let what = if def.solid { "solid" } else { "slippery" };
            self.invalid(
                format!("tile `{name}` is {what}: it cannot be a teleport's end"),
                t.tile.span,
                "a mover steps onto a teleport's end",
                format!("drop `{what}` from `{name}`, or teleport with another tile"),
            );
            return;
        }
        teleports.push(Teleport {
            tile,
            optional: t.optional,
            span: t.span,
        });
    }

    /// The first construct that moves an agent further than the next cell:
    /// a slide, a slippery tile, a teleport; its span and what it is.
    fn far_construct(&self, teleports: &[Teleport]) -> Option<(Span, &'static str)> {
        let slide = self.first_slide.map(|s| (s, "a slide"));
        let slippery = self
            .tiles
            .iter()
            .find(|t| t.slippery)
            .map(|t| (t.span, "a slippery tile"));
        let teleport = teleports.first().map(|t| (t.span, "a teleport"));
        slide.or(slippery).or(teleport)
    }

    /// `moves NAME = ...`: a set of moves, kept by name to be expanded
    /// where a move list names it.
    fn moves_decl(&mut self, m: &ast::MovesDecl) {
        let name = &m.name.name;
        if is_move_word(name) {
            self.invalid(
                format!("`{name}` is a move: a set of moves needs a name of its own"),
                m.name.span,
                "the name of a move",
                format!(
                    "`move ... : {name}` would be read as the move, never as this set: rename it"
                ),
            );
            return;
        }
        if let Some((_, first)) = self.move_sets.get(name) {
            let first = *first;
            self.err(RuleError::Repeated {
                what: "a set of moves of one name",
                span: m.name.span,
                first,
            });
            return;
        }
        self.move_sets
            .insert(name.clone(), (m.moves.clone(), m.name.span));
    }

    /// The moves a move list's items name, sets expanded in place, each
    /// with its cost (the item's own, else the cost written after the set
    /// that holds it) and its conditions (its own and those of the sets
    /// that hold it). `stack` holds the sets being expanded, to stop at a
    /// set that names itself. What is wrong is reported once: an unknown
    /// name among the items `report` sets deep (0 for a move list's own
    /// items, 1 when a declared set is checked), a set that contains
    /// itself only when declared sets are checked, once per cycle.
    fn expand_moves(
        &mut self,
        items: &[ast::MoveItem],
        outer: (Option<&IntExpr>, &[ast::Pred]),
        stack: &mut Vec<String>,
        out: &mut Vec<Expanded>,
        report: usize,
    ) {
        for item in items {
            let cost = item.cost.as_ref().or(outer.0);
            let mut guards = outer.1.to_vec();
            guards.extend(item.guard.iter().cloned());
            match &item.what {
                ast::MoveWhat::Kind(k) => {
                    out.push((k.clone(), cost.cloned(), guards, item.table.clone()))
                }
                ast::MoveWhat::Set(id) => {
                    let Some((inner, _)) = self.move_sets.get(&id.name).cloned() else {
                        if stack.len() != report {
                            continue;
                        }
                        let sets: Vec<String> = self.move_sets.keys().cloned().collect();
                        let near = did_you_mean(
                            &id.name,
                            (ast::COMPASS_WORDS.iter().chain(&MOVE_WORDS[..3]))
                                .copied()
                                .chain(sets.iter().map(String::as_str)),
                            "moves",
                        );
                        let known = if sets.is_empty() {
                            "no set of moves is declared (`moves NAME = ...`)".to_string()
                        } else {
                            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
                            format!("the sets of moves are {}", crate::error::quote_list(&sets))
                        };
                        let near = if near.starts_with("did you mean") {
                            format!("{near} ")
                        } else {
                            String::new()
                        };
                        self.err(RuleError::UnknownMove {
                            name: id.name.clone(),
                            span: id.span,
                            help: format!(
                                "{near}a move is a direction, `stay`, `forward`, `back`, \
                                 `turn left`, `turn right`, an offset `(rows, columns)`, \
                                 `slide DIRECTION` or a set of moves; {known}"
                            ),
                        });
                        continue;
                    };
                    if let Some(k) = stack.iter().position(|x| *x == id.name) {
                        let mut cycle = stack[k..].to_vec();
                        cycle.sort();
                        if report == 0 || self.cycles.contains(&cycle) {
                            continue;
                        }
                        self.cycles.push(cycle);
                        self.invalid(
                            format!("the set of moves `{}` contains itself", id.name),
                            id.span,
                            "the cycle closes here",
                            format!(
                                "a set lists moves or other sets; `{}` is reached again \
                                 through `{}` -> `{}`",
                                id.name,
                                stack.join("` -> `"),
                                id.name
                            ),
                        );
                        continue;
                    }
                    stack.push(id.name.clone());
                    self.expand_moves(&inner, (cost, &guards), stack, out, report);
                    stack.pop();
                }
            }
        }
    }

    /// A move's `if` condition, resolved once (a set's conditions are
    /// met wherever the set is used, and reported once).
    fn guard(&mut self, p: &ast::Pred) -> Option<Expr> {
        let key = (p.span().offset(), p.span().len());
        if let Some(e) = self.guards.get(&key) {
            return e.clone();
        }
        self.in_move = true;
        let e = self.expr(p, &Scope::default());
        self.in_move = false;
        self.guards.insert(key, e.clone());
        e
    }

    /// `ahead` and `beyond` lie along the way a move goes; a move that
    /// goes no way (`stay`, a turn) reads them along the heading, which
    /// each of `agents` must then have.
    fn check_way(&mut self, kind: &ast::Spanned<MoveKind>, cond: &Expr, agents: &[AgentId]) {
        let wayless = matches!(kind.value, MoveKind::TurnLeft | MoveKind::TurnRight)
            || kind.value == MoveKind::Dir(ast::Dir { dr: 0, dc: 0 });
        if !wayless || !cond.reads_way() {
            return;
        }
        if let Some(a) = agents
            .iter()
            .find(|a| !self.agents[a.ix()].object && self.agents[a.ix()].facing.is_none())
        {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                format!(
                    "`{}` goes no way, so `ahead` and `beyond` would be along a heading, and agent \
                     `{name}` has none",
                    kind.value.name()
                ),
                kind.span,
                "a move that goes no way",
                format!(
                    "give the agent a heading (`agent {name} ... facing north`), or name the cell \
                     by its offset: `cell (-1, 0)` is the cell north of the mover"
                ),
            );
        }
    }

    /// `cell ... has NAME` in a lone agent's own move finds it nowhere (the
    /// mover is not counted): `cell here has hero` would be read as true by
    /// a reader and is always false, so it is an error.
    fn check_has_self(&mut self, kind: &ast::Spanned<MoveKind>, cond: &Expr, agents: &[AgentId]) {
        if let Some(a) = agents.iter().find(|&&a| {
            let x = &self.agents[a.ix()];
            // Pieces of one declaration are several, one per marker.
            !x.several() && x.piece.is_none() && cond.asks_has(a)
        }) {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                format!("`has {name}` in `{name}`'s own move never holds"),
                kind.span,
                "the mover's own move",
                format!(
                    "`cell ... has NAME` looks for others than the mover, and `{name}` is one \
                     agent: test its cell with `cell here is TILE`, or name another agent"
                ),
            );
        }
    }

    /// An offset's reach is at most [`MAX_REACH`] cells, and a slide goes
    /// somewhere; false (reported) when not.
    fn check_offset(&mut self, kind: &ast::Spanned<MoveKind>) -> bool {
        let (MoveKind::Dir(d) | MoveKind::Slide(d)) = kind.value else {
            return true;
        };
        if d.dr.unsigned_abs() > MAX_REACH || d.dc.unsigned_abs() > MAX_REACH {
            self.invalid(
                format!(
                    "an offset of ({}, {}) is further than a move reaches",
                    d.dr, d.dc
                ),
                kind.span,
                "too far",
                format!("a move goes at most {MAX_REACH} rows and {MAX_REACH} columns at once"),
            );
            return false;
        }
        if matches!(kind.value, MoveKind::Slide(_)) && (d.dr, d.dc) == (0, 0) {
            self.invalid(
                "a slide by (0, 0) never moves".into(),
                kind.span,
                "no way to slide",
                "give a slide a direction or an offset other than (0, 0); `stay` is the move \
                 that waits"
                    .into(),
            );
            return false;
        }
        true
    }

    /// Slides, slippery tiles and teleports need agents that move in turn:
    /// at once, where each of several sliding agents stops would depend on
    /// the order they are taken in.
    fn far_checks(&mut self, mode: Option<&ast::Spanned<Mode>>, teleports: &[Teleport]) {
        if mode.is_some_and(|m| m.value == Mode::Together)
            && let Some(t) = teleports.first()
        {
            self.err(RuleError::Invalid {
                message: "a teleport needs agents that move in turn".into(),
                span: t.span,
                label: "a teleport, and agents that move together".into(),
                help: "agents moving together do not go through teleports yet: write `in turn`"
                    .into(),
            });
        }
        if mode.is_none_or(|m| m.value != Mode::AtOnce) {
            return;
        }
        if let Some((span, what)) = self.far_construct(teleports) {
            self.err(RuleError::Invalid {
                message: format!("{what} needs agents that move in turn"),
                span,
                label: format!("{what}, and agents that move at once"),
                help: "where sliding agents stop would depend on who moves first: write \
                       `in turn` instead of `at once`"
                    .into(),
            });
        }
    }

    /// A cost: positive where it is known now.
    fn cost(&mut self, c: &IntExpr) -> Option<Num> {
        let n = self.num(c, Allow::Map, "a cost")?;
        if n.constant().is_some_and(|v| v <= 0) {
            self.err(RuleError::Invalid {
                message: "a cost must be at least 1".into(),
                span: c.span(),
                label: "0 or less".into(),
                help: "every step takes time: give a cost of 1 or more (the default is 1)".into(),
            });
            return None;
        }
        if let Some(v) = n.constant().filter(|&v| v > i64::from(MAX_COST)) {
            self.err(RuleError::Invalid {
                message: format!("a cost of {v} is more than the engine weighs"),
                span: c.span(),
                label: "too large".into(),
                help: format!("a cost is at most {MAX_COST}"),
            });
            return None;
        }
        Some(n)
    }

    /// A rule's condition and actions, with its pattern's scope; reports a
    /// binding neither uses.
    fn rule_body(
        &mut self,
        cond: &Option<ast::Pred>,
        acts: &[ast::Action],
        scope: &Scope,
    ) -> (Option<Expr>, Vec<Action>) {
        self.bound_used = false;
        let before = self.errors.len();
        let cond = cond.as_ref().and_then(|c| self.expr(c, scope));
        let actions = self.actions(acts, scope);
        // A binding unused because its use has an error is that error's.
        if self.errors.len() == before {
            self.check_binding(scope);
        }
        (cond, actions)
    }

    /// A pattern's binding that nothing uses is most likely a misspelt
    /// value.
    fn check_binding(&mut self, scope: &Scope) {
        if let Some((name, d, span)) = &scope.bind
            && !self.bound_used
        {
            let dom = &self.domains[d.ix()];
            let bare = &name[1..];
            let message = format!("`{name}` binds a value of `{}` that nothing uses", dom.name);
            let help = if dom.values.iter().any(|v| v == bare) {
                format!(
                    "to match `{bare}` alone, write it without `?`; or use `{name}` in the rule"
                )
            } else {
                format!(
                    "use `{name}` in the rule's condition or actions, or leave the parameter out"
                )
            };
            self.err(RuleError::UnusedBinding {
                message,
                span: *span,
                help,
            });
        }
    }

    fn tile_def(&mut self, t: &ast::TileDef) {
        let domain = t.domain.as_ref().and_then(|d| self.domain(d));
        let id = TileId(self.tiles.len() as u32);
        if !self.define(&t.name, Def::Tile(id)) {
            return;
        }
        if let Some(d) = domain {
            let n = self.domains[d.ix()].values.len();
            if n != t.symbols.len() {
                let dn = self.domains[d.ix()].name.clone();
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "tile `{}` has {} symbols but domain `{dn}` has {n} values",
                        t.name.name,
                        t.symbols.len()
                    ),
                    span: t.name.span,
                    label: "the symbols stand for the domain's values, in order".into(),
                    help: format!(
                        "give exactly one symbol per value of `{dn}`: {}",
                        self.domains[d.ix()].values.join(" ")
                    ),
                });
            }
        }
        for (i, c) in t.symbols.iter().enumerate() {
            let value = domain.map(|_| i as u32);
            let what = format!("tile `{}`", t.name.name);
            self.claim(c, Glyph::Tile(id, value), what);
        }
        let (mut solid, mut opaque, mut slippery, mut stops) = (None, false, None, None);
        let mut border = None;
        for p in &t.props {
            match p.name.as_str() {
                "solid" => solid = Some(p.span),
                "opaque" => opaque = true,
                "slippery" => slippery = Some(p.span),
                "stops" => stops = Some(p.span),
                "border" => border = Some(p.span),
                _ => {
                    let help = did_you_mean(
                        &p.name,
                        ["solid", "opaque", "slippery", "stops", "border"],
                        "properties",
                    );
                    self.err(RuleError::UnknownProperty {
                        name: p.name.clone(),
                        span: p.span,
                        help,
                    });
                }
            }
        }
        // A slide crosses slippery tiles and ends on those that stop it:
        // neither can be solid, and no tile is both.
        for (what, sp) in [("slippery", slippery), ("stops", stops)] {
            if let (Some(sp), Some(_)) = (sp, solid) {
                self.invalid(
                    format!("tile `{}` is solid and {what}", t.name.name),
                    sp,
                    "no mover ever stands on a solid tile",
                    format!("drop `solid` or `{what}`"),
                );
            }
        }
        if let (Some(sp), Some(_)) = (stops, slippery) {
            self.invalid(
                format!("tile `{}` is slippery and stops slides", t.name.name),
                sp,
                "a slippery tile carries a mover on",
                "a tile either carries a slide on (`slippery`) or ends it (`stops`)".into(),
            );
        }
        if let Some(sp) = border {
            self.border_checks(t, sp, domain, solid.is_some());
        }
        self.tiles.push(Tile {
            name: t.name.name.clone(),
            domain,
            solid: solid.is_some(),
            opaque,
            slippery: slippery.is_some(),
            stops: stops.is_some(),
            border: border.is_some(),
            span: t.name.span,
        });
    }

    /// A ring tile (`border`) is one tile, without a parameter (which
    /// value would the ring have?), that a mover can stand on.
    fn border_checks(&mut self, t: &ast::TileDef, sp: Span, domain: Option<DomainId>, solid: bool) {
        if let Some(first) = self.tiles.iter().find(|x| x.border) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a border tile",
                span: sp,
                first,
            });
        } else if domain.is_some() {
            self.invalid(
                format!(
                    "tile `{}` has a parameter: it cannot ring the map",
                    t.name.name
                ),
                sp,
                "every cell of the ring would need one value",
                "give the ring a tile of its own, without `of`".into(),
            );
        } else if solid {
            self.invalid(
                format!(
                    "tile `{}` is solid: a ring of it changes nothing",
                    t.name.name
                ),
                sp,
                "no mover ever stands on a solid tile",
                "the edge of the map already stops every mover; drop `border`, or `solid`".into(),
            );
        }
    }

    fn layout_decl(&mut self, l: &ast::LayoutDecl) {
        let id = LayoutId(self.layouts.len() as u32);
        if !self.define(&l.name, Def::Layout(id)) {
            return;
        }
        let span = l.rows.first().map_or(l.name.span, |r| r.span);
        self.layouts.push(LayoutDef {
            name: l.name.name.clone(),
            rows: l.rows.iter().map(|r| r.value.clone()).collect(),
            span,
        });
    }

    /// What a state's `[...]` names: a domain, or a tile.
    fn state_index(&mut self, index: Option<&Ident>) -> StateIndex {
        let Some(ix) = index else {
            return StateIndex::None;
        };
        if let Some((Def::Domain(d), _)) = self.domain_names.get(&ix.name) {
            return StateIndex::Domain(*d);
        }
        if let Some(Def::Tile(t)) = self.lookup(&ix.name) {
            return StateIndex::Tile(t);
        }
        let mut cands: Vec<&str> = self.domain_names.keys().map(String::as_str).collect();
        cands.extend(self.names_of("tile"));
        let help = did_you_mean(&ix.name, cands, "domains and tiles");
        let (name, span) = (ix.name.clone(), ix.span);
        self.err(RuleError::UnknownDomain { name, span, help });
        StateIndex::None
    }

    fn define_state(&mut self, name: &Ident, kind: StateKind, index: StateIndex) {
        let id = StateId(self.states.len() as u32);
        if self.define(name, Def::State(id)) {
            self.states.push(State {
                name: name.name.clone(),
                kind,
                index,
                span: name.span,
            });
        }
    }

    fn counter_decl(&mut self, c: &ast::CounterDecl) {
        let index = self.state_index(c.index.as_ref());
        let lo = self.num(&c.lo, Allow::Map, "a counter's range");
        let hi = self.num(&c.hi, Allow::Map, "a counter's range");
        let init = c
            .init
            .as_ref()
            .and_then(|i| self.num(i, Allow::Map, "a counter's start"));
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return;
        };
        for (n, e) in [(&lo, &c.lo), (&hi, &c.hi)] {
            if let Some(v) = n.constant()
                && !(-COUNTER_BOUND..=COUNTER_BOUND).contains(&v)
            {
                self.invalid(
                    format!("counter `{}` has a bound of {v}", c.name.name),
                    e.span(),
                    "beyond what the engine holds",
                    format!("a counter's bounds lie within -{COUNTER_BOUND}..{COUNTER_BOUND}"),
                );
            }
        }
        if let (Some(a), Some(b)) = (lo.constant(), hi.constant()) {
            if i128::from(b) - i128::from(a) >= i128::from(MAX_COUNTER) {
                self.invalid(
                    format!(
                        "counter `{}` has {} values, more than the engine packs",
                        c.name.name,
                        i128::from(b) - i128::from(a) + 1
                    ),
                    c.span,
                    "too many values",
                    format!("a counter's range has at most {MAX_COUNTER} values"),
                );
            }
            if a > b {
                self.invalid(
                    format!("counter `{}` has the empty range {a}..{b}", c.name.name),
                    c.span,
                    "no value",
                    "write the smallest value first: `LO..HI`".into(),
                );
            }
            if let Some(v) = init.as_ref().and_then(Num::constant)
                && !(a..=b).contains(&v)
            {
                self.invalid(
                    format!("counter `{}` starts at {v}, outside {a}..{b}", c.name.name),
                    c.init.as_ref().map_or(c.span, |i| i.span()),
                    "out of range",
                    format!("start it within {a}..{b}"),
                );
            }
        }
        let kind = StateKind::Counter {
            lo,
            hi,
            wrap: c.wrap,
            init,
        };
        self.define_state(&c.name, kind, index);
    }

    fn agent_decl(&mut self, a: &ast::AgentDecl) {
        let on = self.tile(&a.on);
        let on_tile = on.unwrap_or(TileId(0));
        let family = a
            .family
            .as_ref()
            .map(|s| self.num(s, Allow::Header, "a family size"));
        let id = AgentId(self.agents.len() as u32);
        if !self.define(&a.name, Def::Agent(id)) {
            return;
        }
        if let Some(t) = on {
            self.check_under(a, t, a.on.span);
        }
        let kind = if a.object { "object" } else { "agent" };
        let mut also = Vec::new();
        for (sym, tile) in &a.also {
            if let Some(t) = self.tile(tile) {
                self.check_under(a, t, tile.span);
                also.push((sym, t));
            }
        }
        let lit_size = match &family {
            Some(Some(n)) => n.constant().map(|n| n.max(0) as usize),
            _ => None,
        };
        if lit_size == Some(0)
            && let Some(f) = &a.family
        {
            self.invalid(
                format!("the family `{}` has no members", a.name.name),
                f.span(),
                "a size below 1",
                "a family has at least one member; for none, remove the agent".into(),
            );
        }
        let expand = |m: &ast::Markers| -> Vec<ast::Symbol> {
            if m.range {
                let first = &m.symbols[0];
                let run = marker_run(&first.text, first.is_char, MAX_RUN);
                let n = lit_size.unwrap_or(run.len()).min(run.len());
                run.into_iter()
                    .take(n)
                    .map(|text| ast::Symbol {
                        text,
                        span: first.span,
                        is_char: first.is_char,
                    })
                    .collect()
            } else {
                m.symbols.clone()
            }
        };
        let mut max_members = 1;
        let mut markers = Vec::new();
        let start =
            match &a.start {
                ast::StartDecl::Markers(m) => {
                    let starts = expand(m);
                    if a.family.is_none() && !a.object && a.piece.is_none() && starts.len() != 1 {
                        let msg = format!(
                            "agent `{}` is one agent but has {} markers",
                            a.name.name,
                            starts.len()
                        );
                        self.invalid(
                        msg,
                        m.span,
                        "one marker expected",
                        format!(
                            "for a family of agents write `agent {}[n] 'a'..`; for one agent that \
                             may start on any of several cells, `agent {} any 'S'`",
                            a.name.name, a.name.name
                        ),
                    );
                    }
                    if m.range && lit_size.is_some_and(|n| n > starts.len()) {
                        self.invalid(
                            format!("the family `{}` has more members than markers", a.name.name),
                            m.span,
                            &format!("only {} markers follow this symbol", starts.len()),
                            "start the range earlier, or list the markers".into(),
                        );
                    }
                    max_members = starts.len() as u32;
                    for (i, c) in starts.iter().enumerate() {
                        let (what, under) = if a.object {
                            (
                                format!("object `{}`", a.name.name),
                                Glyph::AnyStart(id, on_tile),
                            )
                        } else {
                            (
                                format!("the start of agent `{}`", a.name.name),
                                Glyph::Start(id, i as u32, on_tile),
                            )
                        };
                        self.claim(c, under, what);
                    }
                    markers = starts.iter().map(|s| s.text.clone()).collect();
                    Start::Markers
                }
                ast::StartDecl::Any(sym) => {
                    if a.family.is_some() {
                        self.invalid(
                            format!("the family `{}` cannot start on `any` cell", a.name.name),
                            sym.span,
                            "one marker for all members",
                            "give each member its own marker: `'a'..`".into(),
                        );
                    }
                    let what = format!("the starts of agent `{}`", a.name.name);
                    self.claim(sym, Glyph::AnyStart(id, on_tile), what);
                    Start::Any
                }
                ast::StartDecl::Every(sym) => {
                    if a.family.is_some() {
                        self.invalid(
                        format!("the family `{}` is sized by its markers already", a.name.name),
                        sym.span,
                        "a member on every cell so marked",
                        format!(
                            "drop the `[...]`: `agent {} every 'X' ...` has a member per marker",
                            a.name.name
                        ),
                    );
                    }
                    let what = format!("the members of agent `{}`", a.name.name);
                    self.claim(sym, Glyph::AnyStart(id, on_tile), what);
                    Start::Every
                }
                ast::StartDecl::At(r, c, sp) => {
                    if a.family.is_some() {
                        self.invalid(
                            format!("the family `{}` cannot start `at` one cell", a.name.name),
                            *sp,
                            "one cell for all members",
                            "give each member its own marker: `'a'..`".into(),
                        );
                    }
                    let r = self.num(r, Allow::Header, "a start row");
                    let c = self.num(c, Allow::Header, "a start column");
                    match (r, c) {
                        (Some(r), Some(c)) => Start::At(r, c),
                        _ => Start::Markers,
                    }
                }
            };
        let members = a.family.is_some() || matches!(start, Start::Every);
        if !also.is_empty() && (members || matches!(start, Start::At(..))) {
            let how = if members {
                "a family's members each have one marker"
            } else {
                "an agent placed by row and column has no marker"
            };
            self.invalid(
                format!("`{}` cannot have markers on other tiles", a.name.name),
                a.also[0].0.span,
                "another marker",
                format!("{how}; drop the `, 'X' on TILE` part"),
            );
        } else {
            for (sym, t) in also {
                let glyph = match start {
                    Start::Markers if !a.object => Glyph::Start(id, 0, t),
                    _ => Glyph::AnyStart(id, t),
                };
                self.claim(sym, glyph, format!("{kind} `{}`", a.name.name));
            }
        }
        let start = if a.object {
            Start::Every
        } else if a.piece.is_some() {
            Start::Pieces
        } else {
            start
        };
        let mut targets = Targets::None;
        // A target is a member's own: one per start marker. Starts by
        // `any`, `every` or `at` have none to pair it with (it was dropped
        // without a word, and `its target` never held).
        if let Some(t) = &a.targets
            && matches!(start, Start::Any | Start::Every | Start::At(..))
            && !a.object
            && a.piece.is_none()
        {
            let span = match t {
                ast::TargetDecl::Markers(m) => m.span,
                ast::TargetDecl::Layout(l) => l.span,
            };
            self.invalid(
                format!(
                    "`{}` has a target, but no start marker of its own",
                    a.name.name
                ),
                span,
                "a target to pair with a marker",
                "targets pair with start markers (`agent bot[n] 'a'.. target 'A'.. on TILE`); \
                 for a start by `any`, `every` or `at`, say where it must go in the goal \
                 (`goal bot on exit`)"
                    .into(),
            );
        }
        match &a.targets {
            None => {}
            Some(ast::TargetDecl::Markers(t)) => {
                targets = Targets::Markers;
                let list = expand(t);
                if list.len() != max_members as usize {
                    let ranged =
                        t.range || matches!(&a.start, ast::StartDecl::Markers(m) if m.range);
                    if ranged {
                        max_members = max_members.min(list.len() as u32);
                    } else {
                        let msg = format!(
                            "agent `{}` has {} start markers but {} target markers",
                            a.name.name,
                            max_members,
                            list.len()
                        );
                        self.invalid(
                            msg,
                            t.span,
                            "one target per start expected",
                            "give each member one start and one target".into(),
                        );
                    }
                }
                for (i, c) in list.iter().enumerate() {
                    let what = format!("the target of agent `{}`", a.name.name);
                    self.claim(c, Glyph::Target(id, i as u32), what);
                }
            }
            Some(ast::TargetDecl::Layout(l)) => match self.lookup(&l.name) {
                Some(Def::Layout(lid)) => {
                    targets = Targets::Layout(lid);
                    if !matches!(a.start, ast::StartDecl::Markers(_)) {
                        self.invalid(
                            format!("agent `{}` has no markers to find in a layout", a.name.name),
                            l.span,
                            "targets found by marker",
                            "give the agent start markers: `'1'..`".into(),
                        );
                    }
                }
                _ => {
                    // Reported; no echo about targets missing.
                    targets = Targets::Markers;
                    self.unknown("layout", l);
                }
            },
        }
        let optional = a.props.iter().find(|p| p.value == Property::Optional);
        if let Some(p) = optional
            && !matches!(start, Start::Markers)
        {
            self.invalid(
                format!(
                    "`optional` is for an agent placed by its marker, and `{}` is not",
                    a.name.name
                ),
                p.span,
                "not placed by a marker",
                "an agent at `(r, c)` is always on the map, one with `any 'S'` starts on any of \
                 its cells: give it a marker of its own (`agent guard 'G' on floor optional`)"
                    .into(),
            );
        }
        let optional = optional.is_some();
        self.agents.push(Agent {
            name: a.name.name.clone(),
            family: family.flatten(),
            max_members,
            start,
            targets,
            markers,
            on: on.unwrap_or(TileId(0)),
            opaque: a.props.iter().any(|p| p.value == Property::Opaque),
            optional,
            moves: Vec::new(),
            script: None,
            poses: Vec::new(),
            follows: None,
            facing: a.facing.as_ref().map(|f| f.value),
            object: a.object,
            push_cost: None,
            piece: a.piece,
            span: a.name.span,
        });
    }

    /// The tile under a marker must be one an agent or object can stand on.
    fn check_under(&mut self, a: &ast::AgentDecl, t: TileId, span: Span) {
        let tile = &self.tiles[t.ix()];
        if tile.solid || tile.domain.is_some() {
            let why = if tile.solid {
                "it is solid"
            } else {
                "it has a parameter"
            };
            let kind = if a.object { "object" } else { "agent" };
            let msg = format!(
                "{kind} `{}` cannot start on tile `{}`",
                a.name.name, tile.name
            );
            self.invalid(
                msg,
                span,
                why,
                format!("the tile under an {kind}'s marker must be a plain, non-solid tile"),
            );
        }
    }

    fn move_decl(
        &mut self,
        m: &ast::MoveDecl,
        mode: &mut Option<ast::Spanned<Mode>>,
        moved: &mut HashMap<AgentId, Span>,
    ) {
        let script = m.mode.as_ref().filter(|t| t.value == Mode::ByItself);
        if let Some(t) = script
            && !self.script_checks(m, t.span)
        {
            return;
        }
        // Only explicit modes count; `in turn` is the default.
        if let Some(this) = m.mode.as_ref().filter(|t| t.value != Mode::ByItself) {
            match mode {
                None => *mode = Some(this.clone()),
                Some(first) if first.value != this.value => {
                    self.invalid(
                        "all agents must move in the same way: `at once` or `in turn`".into(),
                        this.span,
                        "this differs from the first move rule's mode",
                        "a step is either one agent moving or all agents moving together".into(),
                    );
                }
                Some(_) => {}
            }
        }
        if let Some(t) = m.mode.as_ref().filter(|t| t.value == Mode::Together) {
            if m.mover.is_some() {
                self.invalid(
                    "`together` is how all agents move: one move, made by each".into(),
                    t.span,
                    "one agent cannot move together",
                    "write `move all together: ...`; each agent then makes the move chosen, as \
                     it can"
                        .into(),
                );
            }
            if let Some(item) = m.moves.iter().find(|i| {
                matches!(&i.what, ast::MoveWhat::Kind(k) if matches!(
                    k.value,
                    MoveKind::Forward | MoveKind::Back | MoveKind::TurnLeft | MoveKind::TurnRight
                ))
            }) {
                self.invalid(
                    "agents moving together move by directions, not along their headings".into(),
                    item.what.span(),
                    "a move along a heading",
                    "each agent's heading could point another way: give `together` directions, \
                     offsets and slides"
                        .into(),
                );
            }
        }
        let targets: Vec<AgentId> = match &m.mover {
            // A body moves behind its leader, not by moves of its own.
            None => (0..self.agents.len() as u32)
                .map(AgentId)
                .filter(|a| !self.agents[a.ix()].object && self.agents[a.ix()].follows.is_none())
                .collect(),
            Some(id) => self.agent(id).into_iter().collect(),
        };
        if let Some(&a) = targets.first()
            && self.agents[a.ix()].object
        {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                format!("`{name}` is an object: it does not move by itself"),
                m.mover_span,
                "an object",
                format!("agents push `{name}` by walking into it; give the moves to an agent"),
            );
            return;
        }
        let mut items = Vec::new();
        self.expand_moves(&m.moves, (None, &[]), &mut Vec::new(), &mut items, 0);
        // Moves made by themselves follow a step whose cost is the chosen
        // move's: a cost of theirs (written, or from a set) would count for
        // nothing.
        if script.is_some()
            && let Some((kind, ..)) = items.iter().find(|(_, cost, _, _)| cost.is_some())
        {
            self.invalid(
                "a move made by itself costs nothing of its own".into(),
                kind.span,
                "a cost that would be dropped",
                "a step costs the move chosen in it; drop `costs` here, or give it to the moves \
                 that cause this one"
                    .into(),
            );
            return;
        }
        let mut moves: Vec<Move> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for (kind, cost, guards, rows) in &items {
            let Some(table) = self.move_table(kind, rows, &targets) else {
                continue;
            };
            let mut parts = Vec::new();
            for g in guards {
                parts.extend(self.guard(g));
            }
            if parts.len() < guards.len() {
                continue;
            }
            let guard = match parts.len() {
                0 => None,
                1 => parts.pop(),
                _ => Some(Expr::And(parts)),
            };
            if let Some(g) = &guard {
                self.check_way(kind, g, &targets);
                self.check_has_self(kind, g, &targets);
            }
            let cost = match cost {
                Some(c) => {
                    self.has_costs = true;
                    self.cost(c)
                }
                None => Some(Num::Lit(1)),
            };
            let Some(cost) = cost else { continue };
            if !self.check_offset(kind) {
                continue;
            }
            if let MoveKind::Slide(_) = kind.value {
                self.first_slide.get_or_insert(kind.span);
            }
            // A move listed twice (often once directly and once in a set)
            // would be one move with two costs: which one was meant?
            if let Some(k) = moves.iter().position(|mv| mv.kind == kind.value) {
                self.err(RuleError::Repeated {
                    what: "a move in one move list",
                    span: kind.span,
                    first: spans[k],
                });
                continue;
            }
            moves.push(Move {
                kind: kind.value,
                cost,
                guard,
                table,
            });
            spans.push(kind.span);
        }
        for a in targets {
            if self.agents[a.ix()].follows.is_some() {
                let name = self.agents[a.ix()].name.clone();
                self.invalid(
                    format!("`{name}` follows its leader: it has no moves of its own"),
                    m.mover_span,
                    "a body",
                    "move the leader; the body comes behind it".into(),
                );
                continue;
            }
            if let Some(first) = moved.insert(a, m.mover_span) {
                self.err(RuleError::Repeated {
                    what: "a move rule for one agent",
                    span: m.mover_span,
                    first,
                });
            }
            let agent = &self.agents[a.ix()];
            if agent.facing.is_none()
                && let Some((kind, _, _, _)) = items.iter().find(|(k, _, _, _)| {
                    matches!(
                        k.value,
                        MoveKind::Forward
                            | MoveKind::Back
                            | MoveKind::TurnLeft
                            | MoveKind::TurnRight
                    )
                })
            {
                let name = agent.name.clone();
                self.invalid(
                    format!(
                        "`{}` needs a heading, and agent `{name}` has none",
                        kind.value.name()
                    ),
                    kind.span,
                    "a move along a heading",
                    format!("give the agent a heading: `agent {name} ... on TILE facing north`"),
                );
            }
            self.agents[a.ix()].moves = moves.clone();
            if script.is_some() {
                let times = match &m.times {
                    Some(n) => self.num(n, Allow::Map, "how many moves"),
                    None => Some(Num::Lit(1)),
                };
                self.agents[a.ix()].script = times;
            }
        }
    }

    /// `poses PIECE { NAME (r, c)... }`: a piece of one marker, each pose
    /// named once, with (0, 0) among its cells, declared once.
    fn poses_decl(&mut self, p: &ast::PosesDecl) {
        let Some(a) = self.agent(&p.piece) else {
            return;
        };
        let agent = &self.agents[a.ix()];
        let name = agent.name.clone();
        if agent.piece.is_none() || agent.max_members != 1 || agent.piece == Some(true) {
            self.invalid(
                format!("`{name}` is not a piece of one marker: it cannot have poses"),
                p.piece.span,
                "poses for this",
                format!(
                    "poses belong to a piece of one marker, not `lengthwise`: `piece {name} 'B' \
                     on floor`"
                ),
            );
            return;
        }
        if !agent.poses.is_empty() {
            self.invalid(
                format!("`{name}` has its poses already"),
                p.piece.span,
                "given again",
                "list every pose in one `poses` block".into(),
            );
            return;
        }
        let mut poses: Vec<(String, Vec<(i32, i32)>)> = Vec::new();
        for (pose, cells) in &p.poses {
            if poses.iter().any(|(n, _)| *n == pose.name) {
                self.invalid(
                    format!("pose `{}` is given twice", pose.name),
                    pose.span,
                    "again",
                    "give each pose one name and one list of cells".into(),
                );
                continue;
            }
            let cells: Vec<(i32, i32)> = cells.iter().map(|d| (d.dr, d.dc)).collect();
            let far = cells
                .iter()
                .any(|&(r, c)| r.unsigned_abs() > MAX_REACH || c.unsigned_abs() > MAX_REACH);
            let mut sorted = cells.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if !cells.contains(&(0, 0)) || far || sorted.len() != cells.len() {
                self.invalid(
                    format!(
                        "pose `{}` needs its anchor and distinct cells near it",
                        pose.name
                    ),
                    pose.span,
                    "these cells",
                    format!(
                        "list the anchor `(0, 0)` among the pose's cells, each once, at most \
                         {MAX_REACH} rows and columns from it"
                    ),
                );
            }
            poses.push((pose.name.clone(), sorted));
        }
        self.agents[a.ix()].poses = poses;
    }

    /// The table of a piece's move (`north { up -> long (-2, 0), ... }`):
    /// a row for each of its poses, and none for any other agent.
    fn move_table(
        &mut self,
        kind: &ast::Spanned<MoveKind>,
        rows: &[ast::TableRow],
        agents: &[AgentId],
    ) -> Option<Vec<(u32, (i32, i32))>> {
        let posed: Vec<AgentId> = agents
            .iter()
            .copied()
            .filter(|a| !self.agents[a.ix()].poses.is_empty())
            .collect();
        let what = kind.value.name();
        if posed.is_empty() {
            if let Some(r) = rows.first() {
                self.invalid(
                    format!("`{what}` has a table of poses, and no piece here has poses"),
                    r.span,
                    "a table",
                    "declare the piece's poses (`poses PIECE { NAME (0, 0) ... }`), or give a \
                     plain move"
                        .into(),
                );
                return None;
            }
            return Some(Vec::new());
        }
        if posed.len() != agents.len() || posed.len() > 1 {
            self.invalid(
                format!("`{what}` of a piece with poses is its own: move it alone"),
                kind.span,
                "a move of several agents",
                "give the piece a `move` rule of its own".into(),
            );
            return None;
        }
        let poses = self.agents[posed[0].ix()].poses.clone();
        let name = self.agents[posed[0].ix()].name.clone();
        if rows.is_empty() {
            self.invalid(
                format!("`{what}` of `{name}` needs a table of its poses"),
                kind.span,
                "a plain move",
                format!(
                    "a piece with poses moves by tables: `{what} {{ {} -> POSE (rows, columns), \
                     ... }}`",
                    poses[0].0
                ),
            );
            return None;
        }
        let find = |me: &mut Self, id: &Ident| {
            let k = poses.iter().position(|(n, _)| *n == id.name);
            if k.is_none() {
                let names: Vec<&str> = poses.iter().map(|(n, _)| n.as_str()).collect();
                me.invalid(
                    format!("`{name}` has no pose `{}`", id.name),
                    id.span,
                    "no such pose",
                    format!("its poses are {}", crate::error::quote_list(&names)),
                );
            }
            k
        };
        let mut table: Vec<Option<(u32, (i32, i32))>> = vec![None; poses.len()];
        let mut ok = true;
        for r in rows {
            let (Some(from), Some(to)) = (find(self, &r.from), find(self, &r.to)) else {
                ok = false;
                continue;
            };
            if table[from].is_some() {
                self.invalid(
                    format!("`{what}` from pose `{}` is given twice", r.from.name),
                    r.span,
                    "again",
                    "give each pose one row in a move's table".into(),
                );
                ok = false;
                continue;
            }
            table[from] = Some((to as u32, (r.off.dr, r.off.dc)));
        }
        if let Some(k) = table.iter().position(Option::is_none).filter(|_| ok) {
            self.invalid(
                format!("`{what}` has no row for pose `{}` of `{name}`", poses[k].0),
                kind.span,
                "a table without it",
                format!(
                    "give every pose a row: `{} -> POSE (rows, columns)`",
                    poses[k].0
                ),
            );
            return None;
        }
        ok.then(|| table.into_iter().flatten().collect())
    }

    /// `agent body every 'o' ... follows head`: a body of a family sized by
    /// the map, behind a single agent of one cell.
    fn follows_decl(&mut self, a: &ast::AgentDecl) {
        let Some(lead) = &a.follows else { return };
        let Some(body) = self.lookup(&a.name.name).and_then(|d| match d {
            Def::Agent(x) => Some(x),
            _ => None,
        }) else {
            return;
        };
        let Some(leader) = self.agent(lead) else {
            return;
        };
        let (b, l) = (&self.agents[body.ix()], &self.agents[leader.ix()]);
        let problem = if !matches!(b.start, Start::Every) || b.object || b.piece.is_some() {
            Some((
                a.name.span,
                format!(
                    "`{}` follows, but is not a body of one member per marker",
                    b.name
                ),
                format!(
                    "a body is `agent {} every 'o' on TILE follows {}`: a member on every \
                     cell so marked, in order from the leader",
                    b.name, l.name
                ),
            ))
        } else if l.several() || l.piece.is_some() || leader == body || l.follows.is_some() {
            Some((
                lead.span,
                format!("`{}` cannot lead a body", l.name),
                "a body follows a single agent of one cell that is no body itself".into(),
            ))
        } else {
            None
        };
        if let Some((span, message, help)) = problem {
            self.invalid(message, span, "not a body behind one agent", help);
            return;
        }
        self.agents[body.ix()].follows = Some(leader);
    }

    /// Whether agent `a` has no poses; reported where `who` asks what it
    /// covers (`has`, `at`), which the compiled conditions do not follow
    /// from pose to pose yet.
    fn no_poses(&mut self, a: AgentId, who: &Ident) -> bool {
        if self.agents[a.ix()].poses.is_empty() {
            return true;
        }
        self.invalid(
            format!(
                "`{}` has poses: what it covers cannot be asked yet",
                who.name
            ),
            who.span,
            "a piece with poses",
            format!(
                "ask for its anchor (`{0} on TILE`, `{0} at (r, c)`) and its pose (`{0} is \
                 POSE`)",
                who.name
            ),
        );
        false
    }

    /// `move AGENT by itself`: one agent (or family) of one cell, moving
    /// by directions, offsets, slides and `stay`, beside agents that take
    /// turns. False (reported) when it is not.
    fn script_checks(&mut self, m: &ast::MoveDecl, span: Span) -> bool {
        let Some(who) = &m.mover else {
            self.invalid(
                "`all` agents cannot move by themselves: nothing would be left to choose".into(),
                span,
                "every agent",
                "name the agent that moves on its own: `move guard by itself: ...`".into(),
            );
            return false;
        };
        let Some(a) = self.agent(who) else {
            return false;
        };
        let agent = &self.agents[a.ix()];
        let name = agent.name.clone();
        if agent.piece.is_some() || agent.facing.is_some() {
            let what = if agent.piece.is_some() {
                "a piece"
            } else {
                "an agent with a heading"
            };
            self.invalid(
                format!("`{name}` is {what}: it cannot move by itself yet"),
                span,
                "moves by itself",
                "agents that move by themselves are agents of one cell without a heading".into(),
            );
            return false;
        }
        if let Some(n) = &m.times
            && let Some(k) = self
                .num(n, Allow::Map, "how many moves")
                .and_then(|n| n.constant())
            && !(1..=MAX_SCRIPT_TIMES).contains(&k)
        {
            self.invalid(
                format!("`{name}` would move {k} times a step"),
                span,
                "how many times",
                format!("an agent moves by itself 1 to {MAX_SCRIPT_TIMES} times a step"),
            );
            return false;
        }
        if let Some(item) = m.moves.iter().find(|i| {
            matches!(&i.what, ast::MoveWhat::Kind(k) if matches!(
                k.value,
                MoveKind::Forward | MoveKind::Back | MoveKind::TurnLeft | MoveKind::TurnRight
            ))
        }) {
            self.invalid(
                "an agent moving by itself moves by directions, offsets and slides".into(),
                item.what.span(),
                "a move along a heading",
                "give it directions, offsets, slides and `stay`".into(),
            );
            return false;
        }
        true
    }

    /// Warns when a rule needs an agent on a tile no agent can stand on.
    fn warn_if_solid(&mut self, tile: TileId, span: Span, what: &str) {
        let t = &self.tiles[tile.ix()];
        if t.solid {
            let name = t.name.clone();
            self.errors.push(RuleError::Never {
                message: format!("{what} can never happen: `{name}` is solid"),
                span,
                label: "no agent ever stands here".into(),
                help: format!("remove `solid` from `{name}`, or remove the rule"),
            });
        }
    }

    /// Resolves a tile pattern: the tile, which values it matches, and the
    /// scope it gives a rule.
    fn pattern(&mut self, p: &ast::Pattern) -> Option<(TileId, ValueSel, Scope)> {
        let tile = self.tile(&p.tile)?;
        let domain = self.tiles[tile.ix()].domain;
        let scope = Scope {
            bind: None,
            tile: Some(tile),
        };
        match (&p.arg, domain) {
            (None, _) => Some((tile, ValueSel::Any, scope)),
            (Some(arg), None) => {
                self.err(RuleError::DomainMismatch {
                    message: format!("tile `{}` has no parameter", p.tile.name),
                    span: arg.span,
                    label: "nothing to bind".into(),
                    help: format!(
                        "write `{}` alone, or give the tile a domain with `of`",
                        p.tile.name
                    ),
                });
                None
            }
            (Some(arg), Some(d)) if arg.name.starts_with('?') => Some((
                tile,
                ValueSel::Bind,
                Scope {
                    bind: Some((arg.name.clone(), d, arg.span)),
                    tile: Some(tile),
                },
            )),
            (Some(arg), Some(d)) => {
                let dom = &self.domains[d.ix()];
                match dom.values.iter().position(|v| *v == arg.name) {
                    Some(v) => Some((tile, ValueSel::Value(v as u32), scope)),
                    None => {
                        // A bare name is a value, never a binding: a value
                        // that is not there is a mistake, whether misspelt or
                        // meant to bind (`door(c)` for `door(?c)`).
                        let near = did_you_mean(
                            &arg.name,
                            dom.values.iter().map(String::as_str),
                            "values",
                        );
                        let help = format!(
                            "{near}; to bind the tile's value for the rule, write `{}(?{})` and use \
                             it as `?{}`",
                            p.tile.name, arg.name, arg.name
                        );
                        self.err(RuleError::UnknownParameter {
                            name: arg.name.clone(),
                            domain: dom.name.clone(),
                            span: arg.span,
                            help,
                        });
                        None
                    }
                }
            }
        }
    }

    /// A state reference and its index.
    fn state_index_ref(&mut self, f: &ast::StateRef, scope: &Scope) -> Option<(StateId, IndexRef)> {
        let state = self.state(&f.name)?;
        let st = self.states[state.ix()].clone();
        match (&f.index, st.index) {
            (None, StateIndex::None) => Some((state, IndexRef::None)),
            (None, StateIndex::Domain(d)) => {
                let dn = self.domains[d.ix()].name.clone();
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "flag `{}` is indexed by `{dn}` but used without an index",
                        f.name.name
                    ),
                    span: f.span,
                    label: "index missing".into(),
                    help: format!(
                        "write `{0}[VALUE]`, or `all {0}` / `any {0}` in a goal",
                        f.name.name
                    ),
                });
                None
            }
            (_, StateIndex::Tile(t)) => {
                let tn = self.tiles[t.ix()].name.clone();
                let named = f.index.as_ref().is_some_and(|ix| ix.name == tn);
                if named && scope.tile == Some(t) {
                    return Some((state, IndexRef::Occurrence));
                }
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "`{}` has one value per `{tn}` of the map: only a rule matching `{tn}` \
                         can name one, as `{}[{tn}]`",
                        f.name.name, f.name.name
                    ),
                    span: f.span,
                    label: if scope.tile.is_some() {
                        format!("this rule does not match `{tn}`")
                    } else {
                        "no occurrence here".into()
                    },
                    help: format!(
                        "in a rule `on enter {tn}: ...` write `{0}[{tn}]`; in a goal write \
                         `all {0}` or `any {0}`",
                        f.name.name
                    ),
                });
                None
            }
            (Some(ix), StateIndex::None) => {
                self.err(RuleError::DomainMismatch {
                    message: format!("flag `{}` is not indexed", f.name.name),
                    span: ix.span,
                    label: "unexpected index".into(),
                    help: format!(
                        "write `{}` alone, or declare it `flag {}[DOMAIN]`",
                        f.name.name, f.name.name
                    ),
                });
                None
            }
            (Some(ix), StateIndex::Domain(d)) if ix.name.starts_with('?') => {
                let Some((var, vd, _)) = scope.bind.clone().filter(|(v, _, _)| *v == ix.name)
                else {
                    let help = match &scope.bind {
                        Some((var, _, _)) => format!("this rule's pattern binds `{var}`"),
                        None => format!(
                            "a variable is bound by a rule's pattern (`on enter key(?c): set \
                             have[?c]`); to name a value of `{}`, write it without `?`",
                            self.domains[d.ix()].name
                        ),
                    };
                    self.err(RuleError::UnboundVariable {
                        name: ix.name.clone(),
                        span: ix.span,
                        help,
                    });
                    return None;
                };
                if vd != d {
                    let (want, got) = (
                        self.domains[d.ix()].name.clone(),
                        self.domains[vd.ix()].name.clone(),
                    );
                    self.err(RuleError::DomainMismatch {
                        message: format!(
                            "flag `{}` is indexed by `{want}`, but `{var}` ranges over `{got}`",
                            f.name.name
                        ),
                        span: ix.span,
                        label: format!("a `{got}` value"),
                        help: format!("index `{}` with a value of `{want}`", f.name.name),
                    });
                    return None;
                }
                self.bound_used = true;
                Some((state, IndexRef::Bound))
            }
            (Some(ix), StateIndex::Domain(d)) => {
                match self.domains[d.ix()]
                    .values
                    .iter()
                    .position(|v| *v == ix.name)
                {
                    Some(v) => Some((state, IndexRef::Value(v as u32))),
                    None => {
                        let dom = &self.domains[d.ix()];
                        let mut cands: Vec<&str> = dom.values.iter().map(String::as_str).collect();
                        if let Some((var, _, _)) = &scope.bind {
                            cands.push(var);
                        }
                        let help = did_you_mean(&ix.name, cands, "values and variables");
                        self.err(RuleError::UnknownParameter {
                            name: ix.name.clone(),
                            domain: dom.name.clone(),
                            span: ix.span,
                            help,
                        });
                        None
                    }
                }
            }
        }
    }

    fn is_counter(&self, s: StateId) -> bool {
        matches!(self.states[s.ix()].kind, StateKind::Counter { .. })
    }

    fn actions(&mut self, acts: &[ast::Action], scope: &Scope) -> Vec<Action> {
        let mut out = Vec::new();
        for a in acts {
            let Some((state, index)) = self.state_index_ref(&a.target, scope) else {
                continue;
            };
            let name = self.states[state.ix()].name.clone();
            let counter = self.is_counter(state);
            let op = match (&a.kind, counter) {
                (ast::ActionKind::Flag(v), false) => match v {
                    Verb::Set => ActOp::Set,
                    Verb::Clear => ActOp::Clear,
                    Verb::Toggle => ActOp::Toggle,
                },
                (ast::ActionKind::Counter(op, e), true) => {
                    let Some(n) = self.num(e, Allow::Map, "an amount") else {
                        continue;
                    };
                    self.check_effect(state, *op, &n, a);
                    match op {
                        AssignOp::Add => ActOp::Add(n),
                        AssignOp::Sub => ActOp::Sub(n),
                        AssignOp::Set => ActOp::Assign(n),
                    }
                }
                (ast::ActionKind::Flag(_), true) => {
                    self.err(RuleError::WrongKind {
                        message: format!("`{name}` is a counter, not a flag"),
                        span: a.span,
                        label: "set, clear and toggle are for flags".into(),
                        help: format!("change a counter with `{name} += 1`, `-=` or `=`"),
                    });
                    continue;
                }
                (ast::ActionKind::Counter(..), false) => {
                    self.err(RuleError::WrongKind {
                        message: format!("`{name}` is a flag, not a counter"),
                        span: a.span,
                        label: "arithmetic is for counters".into(),
                        help: format!("write `set {name}`, `clear {name}` or `toggle {name}`"),
                    });
                    continue;
                }
            };
            out.push(Action { state, index, op });
        }
        out
    }

    /// An effect that always leaves a counter's (known) range.
    fn check_effect(&mut self, state: StateId, op: AssignOp, n: &Num, a: &ast::Action) {
        let StateKind::Counter { lo, hi, wrap, .. } = &self.states[state.ix()].kind else {
            return;
        };
        let (Some(lo), Some(hi), Some(v)) = (lo.constant(), hi.constant(), n.constant()) else {
            return;
        };
        let name = self.states[state.ix()].name.clone();
        let bad = match op {
            AssignOp::Set => !*wrap && !(lo..=hi).contains(&v),
            AssignOp::Add | AssignOp::Sub => {
                !*wrap && i128::from(v.unsigned_abs()) > i128::from(hi) - i128::from(lo)
            }
        };
        if bad {
            self.err(RuleError::Invalid {
                message: format!("this effect always takes counter `{name}` out of {lo}..{hi}"),
                span: a.span,
                label: "out of range".into(),
                help: format!(
                    "a step that would take `{name}` out of its range is not taken; widen the \
                     range, or declare `wrap` for arithmetic modulo its size"
                ),
            });
        }
    }

    fn place(&mut self, agent: AgentId, p: &ast::Place) -> Option<PlaceRef> {
        match p {
            ast::Place::ItsTarget(sp) => {
                let a = &self.agents[agent.ix()];
                if a.targets == Targets::None {
                    let name = a.name.clone();
                    self.invalid(
                        format!("agent `{name}` has no targets"),
                        *sp,
                        "`its target` needs target markers",
                        format!("declare them: `agent {name}... target 'A'..`"),
                    );
                    return None;
                }
                Some(PlaceRef::Target)
            }
            ast::Place::Tile(pat) => {
                let (tile, value, scope) = self.pattern(pat)?;
                self.warn_if_solid(tile, pat.span, "standing on this tile");
                if scope.bind.is_some() {
                    self.bound_in_goal(tile, pat);
                    return None;
                }
                Some(PlaceRef::Tile(tile, value))
            }
        }
    }

    /// `moving` where nothing moves (a `when` rule, the goal).
    fn moving_outside_enter(&mut self, span: Span) {
        self.invalid(
            "`moving` is read only where something moves".into(),
            span,
            "nothing moves here",
            "`moving DIR` is the way a step goes, which an `enter ... only if` condition, an \
             `on enter` rule's `if`, a move's `if` and an `on MOVE` rule read (one-way cells: \
             `enter arrow only if moving east`); `when` rules and the goal do not"
                .into(),
        );
    }

    /// A goal binds nothing: `gate(?x)` in a goal has no rule to use it.
    fn bound_in_goal(&mut self, tile: TileId, pat: &ast::Pattern) {
        self.binds_nothing(tile, pat, "a goal");
    }

    /// `gate(?x)` where nothing binds (`what`: a goal, a cell test).
    fn binds_nothing(&mut self, tile: TileId, pat: &ast::Pattern, what: &str) {
        let d = self.tiles[tile.ix()].domain.unwrap();
        let dom = &self.domains[d.ix()];
        let arg = pat.arg.as_ref().unwrap();
        self.err(RuleError::UnboundVariable {
            name: arg.name.clone(),
            span: arg.span,
            help: format!(
                "{what} binds nothing: write `{}` alone for any value, or a value of `{}` ({})",
                pat.tile.name,
                dom.name,
                crate::error::quote_list(
                    &dom.values.iter().map(String::as_str).collect::<Vec<_>>()
                )
            ),
        });
    }

    fn expr(&mut self, p: &ast::Pred, scope: &Scope) -> Option<Expr> {
        use ast::Pred as P;
        Some(match p {
            P::Or(ps, _) | P::And(ps, _) => {
                let parts: Vec<Option<Expr>> = ps.iter().map(|q| self.expr(q, scope)).collect();
                let parts: Option<Vec<Expr>> = parts.into_iter().collect();
                if matches!(p, P::Or(..)) {
                    Expr::Or(parts?)
                } else {
                    Expr::And(parts?)
                }
            }
            P::Not(q, _) => Expr::Not(Box::new(self.expr(q, scope)?)),
            P::Every(who, place, _) | P::Any(who, place, _) | P::On(who, place, _) => {
                let agent = self.agent_in_pred(who)?;
                let place = self.place(agent, place)?;
                let members = self.members(p, who, agent)?;
                Expr::On {
                    agent,
                    members,
                    place,
                }
            }
            P::EveryHas(pat, who, _) => {
                let agent = self.agent_in_pred(who)?;
                let (tile, value, scope) = self.pattern(pat)?;
                self.warn_if_solid(tile, pat.span, "standing on this tile");
                if scope.bind.is_some() {
                    self.bound_in_goal(tile, pat);
                    return None;
                }
                Expr::Has { tile, value, agent }
            }
            P::At(who, r, c, _) => {
                let agent = self.agent_in_pred(who)?;
                self.members(p, who, agent)?;
                let row = self.num(r, Allow::Map, "a row");
                let col = self.num(c, Allow::Map, "a column");
                Expr::AtCell {
                    agent,
                    row: row?,
                    col: col?,
                }
            }
            P::PoseIs(who, pose, _) => {
                let agent = self.agent_in_pred(who)?;
                let poses = &self.agents[agent.ix()].poses;
                match poses.iter().position(|(n, _)| *n == pose.name) {
                    Some(k) => Expr::PoseIs(agent, k as u32),
                    None => {
                        let names: Vec<&str> = poses.iter().map(|(n, _)| n.as_str()).collect();
                        let help = if names.is_empty() {
                            format!(
                                "`{}` has no poses: declare them with `poses {} {{ NAME (0, 0) \
                                 ... }}`",
                                who.name, who.name
                            )
                        } else {
                            format!("its poses are {}", crate::error::quote_list(&names))
                        };
                        self.invalid(
                            format!("`{}` has no pose `{}`", who.name, pose.name),
                            pose.span,
                            "no such pose",
                            help,
                        );
                        return None;
                    }
                }
            }
            P::Meets(quant, who, other, sp) => {
                let (agent, at) = (self.agent_in_pred(who), self.agent_in_pred(other));
                let (agent, at) = (agent?, at?);
                if !self.no_poses(agent, who) || !self.no_poses(at, other) {
                    return None;
                }
                if self.agents[at.ix()].several() {
                    self.invalid(
                        format!("`{}` is not one agent: whose cell?", other.name),
                        other.span,
                        "several members",
                        format!(
                            "name a single agent after `at`; for several, turn it round: \
                             `any {} at {}`",
                            other.name, who.name
                        ),
                    );
                    return None;
                }
                if agent == at {
                    self.invalid(
                        format!("`{}` is always where it is", who.name),
                        *sp,
                        "the same agent twice",
                        "compare two agents: `guard at hero`".into(),
                    );
                    return None;
                }
                let members = match quant {
                    Some(true) => Members::Every,
                    Some(false) => Members::Any,
                    None if self.agents[agent.ix()].several() => {
                        self.err(RuleError::WrongKind {
                            message: format!("`{}` has several members; say which", who.name),
                            span: who.span,
                            label: "not one agent".into(),
                            help: format!(
                                "write `any {0} at {1}` or `every {0} at {1}`",
                                who.name, other.name
                            ),
                        });
                        return None;
                    }
                    None => Members::One,
                };
                Expr::Meets { agent, members, at }
            }
            P::Facing(who, h, sp) => {
                let agent = self.agent_in_pred(who)?;
                self.members(p, who, agent)?;
                if self.agents[agent.ix()].facing.is_none() {
                    let name = who.name.clone();
                    self.invalid(
                        format!("agent `{name}` has no heading"),
                        *sp,
                        "it faces no way",
                        format!("give it one: `agent {name} ... on TILE facing north`"),
                    );
                    return None;
                }
                Expr::Facing(agent, *h)
            }
            P::Cell(at, what, sp) => {
                if !self.in_move {
                    self.invalid(
                        "a cell test reads the cells around a mover, and none moves here".into(),
                        *sp,
                        "no mover here",
                        "`cell ahead is TILE`, `cell (r, c) has NAME` and the like are read in a \
                         move's `if` (`move hero: north if cell here is ladder`) and in `on \
                         MOVE` rules (`on hero north if cell here is bell: ...`)"
                            .into(),
                    );
                    return None;
                }
                if let ast::RelCell::Offset(d) = at
                    && (d.dr.unsigned_abs() > MAX_REACH || d.dc.unsigned_abs() > MAX_REACH)
                {
                    self.invalid(
                        format!(
                            "an offset of ({}, {}) is further than a cell test reads",
                            d.dr, d.dc
                        ),
                        *sp,
                        "too far",
                        format!("a cell test reads at most {MAX_REACH} rows and columns away"),
                    );
                    return None;
                }
                let what = match what {
                    ast::CellWhat::Is(pat) => {
                        let (tile, value, scope) = self.pattern(pat)?;
                        if scope.bind.is_some() {
                            self.binds_nothing(tile, pat, "a cell test");
                            return None;
                        }
                        CellTest::Tile(tile, value)
                    }
                    ast::CellWhat::Has(who) => {
                        let a = self.agent_in_pred(who)?;
                        if !self.no_poses(a, who) {
                            return None;
                        }
                        CellTest::Has(a)
                    }
                };
                Expr::Cell { at: *at, what }
            }
            P::Moving(d, sp) => {
                if !self.in_enter && !self.in_move {
                    self.moving_outside_enter(*sp);
                    return None;
                }
                Expr::Moving(*d)
            }
            P::MovingAs(v, sp) => {
                if !self.in_enter && !self.in_move {
                    self.moving_outside_enter(*sp);
                    return None;
                }
                if !self.direction_var(v, scope, "enter arrow(?w) only if moving ?w") {
                    return None;
                }
                Expr::MovingBound
            }
            P::AllFlags(f, _) | P::AnyFlag(f, _) => {
                let state = self.flag_in_pred(f)?;
                if self.states[state.ix()].index == StateIndex::None {
                    self.err(RuleError::DomainMismatch {
                        message: format!("flag `{}` is not indexed", f.name),
                        span: f.span,
                        label: "`all` and `any` need an indexed flag".into(),
                        help: format!("write `{}` alone", f.name),
                    });
                    return None;
                }
                if self.is_counter(state) {
                    self.err(RuleError::WrongKind {
                        message: format!("`{}` is a counter, not a flag", f.name),
                        span: f.span,
                        label: "`all` and `any` need flags".into(),
                        help: format!("compare it: `{} > 0`", f.name),
                    });
                    return None;
                }
                if matches!(p, P::AllFlags(..)) {
                    Expr::AllFlags(state)
                } else {
                    Expr::AnyFlag(state)
                }
            }
            P::Flag(f) => {
                if let Some(Def::Agent(_)) = self.lookup(&f.name.name) {
                    self.err(RuleError::WrongKind {
                        message: format!("`{}` is an agent, not a condition", f.name.name),
                        span: f.span,
                        label: "an agent's position is not true or false".into(),
                        help: format!("compare its position: `{} on TILE`", f.name.name),
                    });
                    return None;
                }
                let (state, index) = self.state_index_ref(f, scope)?;
                if self.is_counter(state) {
                    self.err(RuleError::WrongKind {
                        message: format!("`{}` is a counter, not a condition", f.name.name),
                        span: f.span,
                        label: "a number is not true or false".into(),
                        help: format!("compare it: `{} > 0`", f.name.name),
                    });
                    return None;
                }
                Expr::Flag { state, index }
            }
            P::Pos(lhs, op, rhs, sp) => {
                let mut terms: Vec<(i64, PosRef)> = Vec::new();
                let mut k = 0i64;
                let mut ok = true;
                for (side, sum) in [(1, lhs), (-1, rhs)] {
                    for (sign, t) in sum {
                        let f = side * sign;
                        let (axis, agent) = match t {
                            ast::PosTerm::Num(n) => {
                                k = k.saturating_sub(f * n);
                                continue;
                            }
                            ast::PosTerm::Of(axis, who) => {
                                let Some(agent) = self.agent_in_pred(who) else {
                                    ok = false;
                                    continue;
                                };
                                let x = &self.agents[agent.ix()];
                                if x.several() || x.piece.is_some() {
                                    self.invalid(
                                        format!(
                                            "`{}` is not one agent: whose row or column?",
                                            who.name
                                        ),
                                        who.span,
                                        "several members",
                                        "compare single agents' rows and columns; in a \
                                         member's own moves, `its row` is its own"
                                            .into(),
                                    );
                                    ok = false;
                                    continue;
                                }
                                (*axis, Some(agent))
                            }
                            ast::PosTerm::Its(axis, tsp) => {
                                if !self.in_move {
                                    self.invalid(
                                        "`its row` and `its column` are the mover's, and none \
                                         moves here"
                                            .into(),
                                        *tsp,
                                        "no mover here",
                                        "read them in a move's `if` (`move guard by itself: east \
                                         if column of hero > its column`) or an `on MOVE` rule's; \
                                         elsewhere name the agent: `row of guard`"
                                            .into(),
                                    );
                                    ok = false;
                                    continue;
                                }
                                (*axis, None)
                            }
                        };
                        let r = PosRef { axis, agent };
                        match terms.iter_mut().find(|(_, x)| *x == r) {
                            Some((c, _)) => *c += f,
                            None => terms.push((f, r)),
                        }
                    }
                }
                if !ok {
                    return None;
                }
                terms.retain(|(c, _)| *c != 0);
                if terms.is_empty() {
                    self.invalid(
                        "this comparison reads no row or column".into(),
                        *sp,
                        "numbers only, or terms that cancel out",
                        "compare agents' rows and columns: `row of hero < row of guard`".into(),
                    );
                    return None;
                }
                Expr::Pos { terms, op: *op, k }
            }
            P::Compare(f, op, v, sp) => {
                let (state, index) = self.state_index_ref(f, scope)?;
                if !self.is_counter(state) {
                    self.invalid(
                        format!("`{}` is a flag: it is set or not", f.name.name),
                        *sp,
                        "a comparison needs a counter",
                        format!("test the flag alone: `{0}` or `not {0}`", f.name.name),
                    );
                    return None;
                }
                let value = self.num(v, Allow::Map, "a comparison")?;
                Expr::Cmp {
                    state,
                    index,
                    op: *op,
                    value,
                }
            }
        })
    }

    /// Which members a predicate on `who` speaks of; a family needs
    /// `every` or `any`.
    fn members(&mut self, p: &ast::Pred, who: &Ident, agent: AgentId) -> Option<Members> {
        let a = &self.agents[agent.ix()];
        let family = a.several();
        let (what, label) = if a.object {
            (
                "an object, one member on every cell marked",
                "an object, not one agent",
            )
        } else if a.piece.is_some() {
            ("a set of pieces, one per marker", "pieces, not one piece")
        } else {
            ("a family of agents", "a family, not one agent")
        };
        Some(match p {
            ast::Pred::Every(..) => Members::Every,
            ast::Pred::Any(..) => Members::Any,
            _ if family => {
                self.err(RuleError::WrongKind {
                    message: format!("`{}` is {what}; say which members", who.name),
                    span: who.span,
                    label: label.into(),
                    help: format!("write `every {0} on ...` or `any {0} on ...`", who.name),
                });
                return None;
            }
            _ => Members::One,
        })
    }

    fn agent_in_pred(&mut self, who: &Ident) -> Option<AgentId> {
        if let Some(Def::State(_)) = self.lookup(&who.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is a flag, not an agent", who.name),
                span: who.span,
                label: "a flag has no position".into(),
                help: format!("test the flag on its own: `{}`", who.name),
            });
            return None;
        }
        self.agent(who)
    }

    fn flag_in_pred(&mut self, f: &Ident) -> Option<StateId> {
        if let Some(Def::Agent(_)) = self.lookup(&f.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is an agent, not a flag", f.name),
                span: f.span,
                label: "`all` and `any` take a flag here".into(),
                help: format!("for agents write `every {} on TILE`", f.name),
            });
            return None;
        }
        self.state(f)
    }

    fn io(&mut self, items: Option<&Vec<ast::InputItem>>, file: &ast::File) -> Option<Io> {
        let mut cases = None;
        let mut grid = None;
        let mut fill = None;
        for it in items.into_iter().flatten() {
            match it {
                ast::InputItem::Cases(c) => {
                    if let Some((_, first)) = cases.replace((c.value.clone(), c.span)) {
                        self.err(RuleError::Repeated {
                            what: "`cases`",
                            span: c.span,
                            first,
                        });
                    }
                    if let Cases::UntilValues(vals) = &c.value
                        && let Some(v) = vals.iter().find(|v| v.value == i64::MAX)
                    {
                        // The parser saturates what does not fit.
                        self.invalid(
                            "this end marker value is too large to be a header value".into(),
                            v.span,
                            "never matches",
                            format!("header values are integers up to {}", i64::MAX - 1),
                        );
                    }
                    let first = self.header_lines.first().copied().unwrap_or(0);
                    if let Cases::UntilValues(vals) = &c.value
                        && vals.len() != first
                    {
                        self.invalid(
                            format!(
                                "the end marker has {} values but the header has {first}",
                                vals.len(),
                            ),
                            c.span,
                            "compared with the first header line",
                            "give one value per field of the first header line".into(),
                        );
                    }
                }
                ast::InputItem::Header(_) => {}
                ast::InputItem::Fill(sym) => fill = Some(sym.text.clone()),
                ast::InputItem::Grid {
                    rows,
                    cols,
                    form,
                    span,
                } => {
                    let r = self.num(rows, Allow::Header, "a grid size");
                    let c = self.num(cols, Allow::Header, "a grid size");
                    let form = form.as_ref().map_or(GridForm::Chars, |f| f.value);
                    if let Some((_, _, _, first)) = grid.replace((r, c, form, *span)) {
                        self.err(RuleError::Repeated {
                            what: "`grid`",
                            span: *span,
                            first,
                        });
                    }
                }
            }
        }
        let cases = cases.map(|c| c.0).unwrap_or(Cases::Single);
        let (rows, cols, form) = match grid {
            Some((r, c, form, _)) => (Some(r?), Some(c?), form),
            None => (None, None, GridForm::Chars),
        };
        if form == GridForm::List && (rows.is_none() || cols.is_none()) {
            let span = items_span(items.map(Vec::as_slice).unwrap_or(&[]));
            self.invalid(
                "a grid given as a list needs its size".into(),
                span,
                "no size",
                "write `grid ROWS x COLS list`".into(),
            );
            return None;
        }
        let mut slots: [Option<(Template, Span)>; 5] = Default::default();
        for d in &file.decls {
            if let ast::Decl::Output(items) = d {
                for it in items {
                    let t = self.template(&it.text, it.kind.value);
                    let slot = &mut slots[it.kind.value as usize];
                    if let Some((_, first)) = slot.replace((t, it.kind.span)) {
                        self.err(RuleError::Repeated {
                            what: "an output line",
                            span: it.kind.span,
                            first,
                        });
                    }
                }
            }
        }
        let [before, solved, unsolved, separator, stopped] = slots;
        // `{steps}` once printed the cost: where steps have costs it is now
        // another number, said so rather than changed without a word.
        if let Some((t, span)) = &solved
            && self.has_costs
            && t.uses_steps()
            && !t.mentions(&Num::Cost)
        {
            self.err(RuleError::StepsWithCosts { span: *span });
        }
        let lit = |s: &str| Template(vec![Seg::Lit(s.to_string())]);
        Some(Io {
            cases,
            header: self.header.clone(),
            header_lines: self.header_lines.clone(),
            rows,
            cols,
            form,
            fill,
            before: before.map(|b| b.0),
            solved: solved
                .map(|s| s.0)
                .unwrap_or(Template(vec![Seg::Num(Num::Cost)])),
            unsolved: unsolved.map(|s| s.0).unwrap_or_else(|| lit("-1")),
            separator: separator.map(|s| s.0),
            stopped: stopped.map(|s| s.0),
        })
    }

    fn template(&mut self, text: &ast::Spanned<String>, kind: OutputKind) -> Template {
        let mut segs = Vec::new();
        let s = &text.value;
        let mut lit = String::new();
        let mut i = 0;
        let bytes = s.as_bytes();
        while i < s.len() {
            if bytes[i] == b'{'
                && let Some(end) = s[i..].find('}')
            {
                let inner = &s[i + 1..i + end];
                let at = text.span.offset() + i + 1;
                let allow = Allow::Template {
                    cost: kind == OutputKind::Solved,
                };
                let seg = match crate::syntax::template_expr(inner, at) {
                    Ok(e) => self.num(&e, allow, "a placeholder").map(Seg::Num),
                    Err(_) => {
                        let mut cands = vec!["case", "steps", "cost"];
                        cands.extend(self.header.iter().map(String::as_str));
                        let help = did_you_mean(inner, cands, "placeholders");
                        self.err(RuleError::UnknownPlaceholder {
                            name: inner.to_string(),
                            span: (text.span.offset() + i, end + 1).into(),
                            help: format!(
                                "{help} (a placeholder is a header field, `case`, `steps`, \
                                 `cost`, or arithmetic on them)"
                            ),
                        });
                        None
                    }
                };
                if let Some(seg) = seg {
                    if !lit.is_empty() {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                    }
                    segs.push(seg);
                }
                i += end + 1;
                continue;
            }
            let ch = s[i..].chars().next().unwrap();
            lit.push(ch);
            i += ch.len_utf8();
        }
        if !lit.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        Template(segs)
    }

    /// Layout rows of one width, and the size of a grid known now.
    fn layout_checks(&mut self, io: &Io) {
        for l in self.layouts.clone() {
            let width = |r: &str| match io.form {
                GridForm::Chars => r.chars().count(),
                _ => r.split_whitespace().count(),
            };
            let w0 = l.rows.first().map_or(0, |r| width(r));
            if l.rows.is_empty() || l.rows.iter().any(|r| width(r) != w0) {
                self.invalid(
                    format!("the rows of layout `{}` are not all as wide", l.name),
                    l.span,
                    "rows of different widths",
                    "write one string per row, each with one symbol per column".into(),
                );
                continue;
            }
            let want = (
                io.rows.as_ref().and_then(Num::constant),
                io.cols.as_ref().and_then(Num::constant),
            );
            if let (Some(r), Some(c)) = want
                && (r as usize != l.rows.len() || c as usize != w0)
            {
                self.invalid(
                    format!(
                        "layout `{}` is {} x {w0}, but the grid is {r} x {c}",
                        l.name,
                        l.rows.len()
                    ),
                    l.span,
                    "a layout of another size",
                    "a layout is drawn like a map: one row per grid row".into(),
                );
            }
        }
    }

    /// Warnings for rules that can never matter.
    fn legend_warnings(
        &mut self,
        enter: &[EnterRule],
        on: &[OnEnter],
        on_move: &[OnMove],
        when: &[When],
        goal: Option<&Expr>,
    ) {
        let mut set = vec![false; self.states.len()];
        let mut read = vec![false; self.states.len()];
        for a in on
            .iter()
            .flat_map(|o| &o.actions)
            .chain(on_move.iter().flat_map(|o| &o.actions))
            .chain(when.iter().flat_map(|w| &w.actions))
        {
            if a.op != ActOp::Clear {
                set[a.state.ix()] = true;
            }
            // A counter without `wrap` that an action adds to or subtracts
            // from is read by its range: a step that would take it out is
            // no step (a bag that holds three keys), so removing it changes
            // answers.
            if matches!(a.op, ActOp::Add(_) | ActOp::Sub(_))
                && matches!(
                    self.states[a.state.ix()].kind,
                    StateKind::Counter { wrap: false, .. }
                )
            {
                read[a.state.ix()] = true;
            }
        }
        let conds = on
            .iter()
            .filter_map(|o| o.cond.as_ref())
            .chain(on_move.iter().filter_map(|o| o.cond.as_ref()))
            .chain(when.iter().filter_map(|w| w.cond.as_ref()));
        for e in enter.iter().map(|r| &r.cond).chain(goal).chain(conds) {
            e.visit_states(&mut |f| read[f.ix()] = true);
        }
        for (i, f) in self.states.iter().enumerate() {
            let counter = matches!(f.kind, StateKind::Counter { .. });
            let kind = if counter { "counter" } else { "flag" };
            if read[i] && !set[i] && !counter {
                self.errors.push(RuleError::Never {
                    message: format!("{kind} `{}` is read but nothing sets it", f.name),
                    span: f.span,
                    label: "never set".into(),
                    help: format!("add a rule such as `on enter TILE: set {}`", f.name),
                });
            } else if !read[i] {
                self.errors.push(RuleError::Never {
                    message: format!("{kind} `{}` is never read", f.name),
                    span: f.span,
                    label: "no goal or rule uses it".into(),
                    help: "use it in the goal or an `enter` rule, or remove it".into(),
                });
            }
        }
        // A rule on a move no agent makes never fires.
        for o in on_move {
            let makes = |a: &Agent| a.moves.iter().any(|m| m.kind == o.kind);
            let any = match o.agent {
                Some(a) => makes(&self.agents[a.ix()]),
                None => self.agents.iter().any(makes),
            };
            if !any {
                self.errors.push(RuleError::Never {
                    message: format!("no agent makes the move `{}`", o.kind.name()),
                    span: o.span,
                    label: "this rule never fires".into(),
                    help: "add the move to a `move` rule, or remove this rule".into(),
                });
            }
        }
    }
}

impl Expr {
    /// Whether the expression reads `moving` (the step's direction).
    pub fn reads_moving(&self) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(Expr::reads_moving),
            Expr::Not(e) => e.reads_moving(),
            Expr::Moving(_) | Expr::MovingBound => true,
            _ => false,
        }
    }

    /// Calls `f` on every state the expression reads.
    pub fn visit_states(&self, f: &mut impl FnMut(StateId)) {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().for_each(|e| e.visit_states(f)),
            Expr::Not(e) => e.visit_states(f),
            Expr::Flag { state, .. }
            | Expr::Cmp { state, .. }
            | Expr::AllFlags(state)
            | Expr::AnyFlag(state) => f(*state),
            Expr::On { .. }
            | Expr::Facing(..)
            | Expr::AtCell { .. }
            | Expr::Has { .. }
            | Expr::Moving(_)
            | Expr::MovingBound
            | Expr::Cell { .. }
            | Expr::Meets { .. }
            | Expr::PoseIs(..)
            | Expr::Pos { .. } => {}
        }
    }

    /// Whether a cell test asks for a member of `agent` (`cell ahead has
    /// NAME`).
    pub fn asks_has(&self, agent: AgentId) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(|e| e.asks_has(agent)),
            Expr::Not(e) => e.asks_has(agent),
            Expr::Cell {
                what: CellTest::Has(a),
                ..
            } => *a == agent,
            _ => false,
        }
    }

    /// Whether the expression reads a cell along the move's way (`ahead`,
    /// `beyond`).
    pub fn reads_way(&self) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(Expr::reads_way),
            Expr::Not(e) => e.reads_way(),
            Expr::Cell { at, .. } => matches!(at, ast::RelCell::Ahead | ast::RelCell::Beyond),
            _ => false,
        }
    }
}

fn items_span(items: &[ast::InputItem]) -> Span {
    items
        .first()
        .map(|i| match i {
            ast::InputItem::Cases(c) => c.span,
            ast::InputItem::Header(h) => h.first().map(|i| i.span).unwrap_or((0, 0).into()),
            ast::InputItem::Grid { span, .. } => *span,
            ast::InputItem::Fill(s) => s.span,
        })
        .unwrap_or((0, 0).into())
}
