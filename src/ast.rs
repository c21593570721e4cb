//! The abstract syntax tree of a rule file: what was written, with a span on
//! every node and no meaning checked yet.
//!
//! Invariant: the tree matches the grammar (`grammar/puzzle.pest`) and nothing
//! more. Names are unresolved strings; any number of declarations of any kind
//! may appear, in any order. [`crate::resolve`] gives them meaning.

use miette::SourceSpan;

/// A byte range in the rule file.
pub type Span = SourceSpan;

/// A name as written, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A value with the span it was written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// An integer expression: numbers, header fields, `count(tile)`,
/// arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntExpr {
    Lit(Spanned<i64>),
    /// A header field, or (in output templates) `case`, `steps`, `cost`.
    Name(Ident),
    /// `count(TILE)`: how many cells of the map have the tile.
    Count(Ident, Span),
    /// `FIELD(AGENT)`: a field's number on the agent's cell (the field,
    /// then the agent).
    FieldAt(Box<[Ident; 2]>, Span),
    Neg(Box<IntExpr>, Span),
    Bin(Box<IntExpr>, BinOp, Box<IntExpr>, Span),
}

/// An arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl IntExpr {
    pub fn span(&self) -> Span {
        match self {
            IntExpr::Lit(s) => s.span,
            IntExpr::Name(i) => i.span,
            IntExpr::Count(_, s)
            | IntExpr::FieldAt(_, s)
            | IntExpr::Neg(_, s)
            | IntExpr::Bin(_, _, _, s) => *s,
        }
    }
}

/// A map symbol: a character (`'#'`) or a token (`"12"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub text: String,
    pub span: Span,
    /// Written as a character literal.
    pub is_char: bool,
}

/// A whole rule file.
#[derive(Debug, Clone, Default)]
pub struct File {
    pub decls: Vec<Decl>,
}

/// One top-level declaration.
#[derive(Debug, Clone)]
pub enum Decl {
    Puzzle(Spanned<String>),
    Input(Vec<InputItem>),
    Domain(DomainDecl),
    Tiles(Vec<TileDef>),
    Agent(AgentDecl),
    Flags(Vec<FlagDecl>),
    Counters(Vec<CounterDecl>),
    Layout(LayoutDecl),
    Move(MoveDecl),
    Moves(MovesDecl),
    Forbid(Spanned<Forbid>),
    /// `forbid COND`: no step ends in a state where it holds.
    ForbidIf(Pred),
    Poses(PosesDecl),
    Enter(EnterDecl),
    On(OnDecl),
    When(WhenDecl),
    Teleport(TeleportDecl),
    Carry(CarryDecl),
    Beam(BeamDecl),
    Field(FieldDecl),
    Push(PushDecl),
    Goal(Pred),
    Limit(LimitDecl),
    Output(Vec<OutputItem>),
    /// `minimise pushes then walks`: the parts of a cost, in order.
    Minimise(Vec<Ident>),
}

/// A cost: amounts, each of a part (`1 pushes + 2 walks`) or, without a
/// part, of the first (a plain number: `3`).
#[derive(Debug, Clone)]
pub struct Price {
    pub terms: Vec<(IntExpr, Option<Ident>)>,
    pub span: Span,
}

/// An item of the `input { ... }` block.
#[derive(Debug, Clone)]
pub enum InputItem {
    Cases(Spanned<Cases>),
    /// One header line.
    Header(Vec<Ident>),
    Grid {
        rows: IntExpr,
        cols: IntExpr,
        form: Option<Spanned<GridForm>>,
        /// `of '.'`: not drawn; every cell holds this symbol.
        blank: Option<Symbol>,
        span: Span,
    },
    /// `records k '#' row col from 1`: cells given by coordinates.
    Records(Records),
    /// `fill '.'`: short rows are filled with the symbol.
    Fill(Symbol),
}

/// `records COUNT SYMBOL row col from BASE`.
#[derive(Debug, Clone)]
pub struct Records {
    pub count: IntExpr,
    pub symbol: Symbol,
    /// The column comes first on a record's line (`col row`).
    pub col_first: bool,
    /// What the first row and column are counted as (0 or 1, checked
    /// later).
    pub base: Spanned<i64>,
    pub span: Span,
}

/// How a grid's cells are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GridForm {
    /// One character a cell, a line a row.
    Chars,
    /// Whitespace-separated tokens, a line a row.
    Tokens,
    /// Tokens, row by row, over any number of lines.
    List,
}

/// How an input file is cut into cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cases {
    /// Until a header equal to these values (e.g. `0 0 0`).
    UntilValues(Vec<Spanned<i64>>),
    /// Until the end of the input.
    UntilEof,
    /// A first line holds the number of cases.
    Counted,
    /// The whole input is one case.
    Single,
}

/// `domain colour = blue yellow red green`.
#[derive(Debug, Clone)]
pub struct DomainDecl {
    pub name: Ident,
    pub values: Vec<Ident>,
}

/// A static property of a tile or an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property {
    Solid,
    Opaque,
    /// An agent's marker may be absent from a map.
    Optional,
}

/// `key 'b' 'y' 'r' 'g' of colour`.
#[derive(Debug, Clone)]
pub struct TileDef {
    pub name: Ident,
    pub symbols: Vec<Symbol>,
    pub domain: Option<Ident>,
    /// Property words, checked when resolved.
    pub props: Vec<Ident>,
}

/// Marker symbols: an explicit list, or a first symbol and `..`.
#[derive(Debug, Clone)]
pub struct Markers {
    pub symbols: Vec<Symbol>,
    pub range: bool,
    pub span: Span,
}

/// Where an agent starts.
#[derive(Debug, Clone)]
pub enum StartDecl {
    /// One marker per member.
    Markers(Markers),
    /// `any 'S'`: any cell so marked (none: no start).
    Any(Symbol),
    /// `every 'G'`: a member on every cell so marked.
    Every(Symbol),
    /// `at (r, c)`: a row and column from 0.
    At(IntExpr, IntExpr, Span),
}

/// Where an agent's members belong.
#[derive(Debug, Clone)]
pub enum TargetDecl {
    Markers(Markers),
    /// `target in solved`: where each member's marker is in the layout.
    Layout(Ident),
}

/// `agent bot[n] 'a'.. target 'A'.. on corridor`, or `object box '$' on
/// floor, '*' on goal`.
#[derive(Debug, Clone)]
pub struct AgentDecl {
    /// Declared with `object`: no moves of its own, a member on every cell
    /// marked, pushed by agents.
    pub object: bool,
    /// Declared with `piece`: each member made of the cells of its marker;
    /// `Some(true)` with `lengthwise`.
    pub piece: Option<bool>,
    pub name: Ident,
    pub family: Option<IntExpr>,
    pub start: StartDecl,
    pub targets: Option<TargetDecl>,
    pub on: Ident,
    /// `, '+' on goal`: more start markers, each with the tile under it.
    pub also: Vec<(Symbol, Ident)>,
    pub props: Vec<Spanned<Property>>,
    /// `facing north`: a heading (0 north, 1 east, 2 south, 3 west).
    pub facing: Option<Spanned<u8>>,
    /// `follows head`: a body behind this agent.
    pub follows: Option<Ident>,
}

/// `flag have[colour]`, `flag taken[key]`.
#[derive(Debug, Clone)]
pub struct FlagDecl {
    pub name: Ident,
    /// A domain, or a tile (one flag per occurrence).
    pub index: Option<Ident>,
}

/// `counter keys 0..9`, `counter sector[colour] 0..4 wrap = 1`.
#[derive(Debug, Clone)]
pub struct CounterDecl {
    pub name: Ident,
    pub index: Option<Ident>,
    pub lo: IntExpr,
    pub hi: IntExpr,
    pub wrap: bool,
    pub init: Option<IntExpr>,
    pub span: Span,
}

/// `layout solved { "1 2 3" "4 5 6" "7 8 0" }`.
#[derive(Debug, Clone)]
pub struct LayoutDecl {
    pub name: Ident,
    pub rows: Vec<Spanned<String>>,
}

/// What a limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Steps,
    Cost,
}

/// `limit steps <= t`, `limit cost < t`.
#[derive(Debug, Clone)]
pub struct LimitDecl {
    pub measure: Measure,
    pub strict: bool,
    pub bound: IntExpr,
    pub span: Span,
}

/// How the agents of a step move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    AtOnce,
    InTurn,
    /// Every agent makes the same move, each as it can.
    Together,
    /// `by itself`: the agent moves after every step, on its own.
    ByItself,
}

/// The eight compass words, clockwise from north.
pub const COMPASS_WORDS: [&str; 8] = [
    "north",
    "northeast",
    "east",
    "southeast",
    "south",
    "southwest",
    "west",
    "northwest",
];

/// A direction of a neighbourhood, or an offset as written, as (row,
/// column) offsets (an offset's range is checked when resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dir {
    pub dr: i32,
    pub dc: i32,
}

impl Dir {
    /// The direction a compass word names (`north`, ..., `northwest`).
    pub fn named(word: &str) -> Option<Dir> {
        let (dr, dc) = match word {
            "north" => (-1, 0),
            "northeast" => (-1, 1),
            "east" => (0, 1),
            "southeast" => (1, 1),
            "south" => (1, 0),
            "southwest" => (1, -1),
            "west" => (0, -1),
            "northwest" => (-1, -1),
            _ => return None,
        };
        Some(Dir { dr, dc })
    }
}

/// One kind of move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A fixed offset (`stay` is 0, 0).
    Dir(Dir),
    Forward,
    Back,
    TurnLeft,
    TurnRight,
    /// `slide DIR`: steps in the direction until the next cell stops it.
    Slide(Dir),
}

impl MoveKind {
    /// How it is written: a compass word for a step of one cell, the
    /// offset `(dr,dc)` for any other (no blank, so that it is one token
    /// of a `--moves` line).
    pub fn name(self) -> String {
        fn way(d: Dir) -> String {
            match (d.dr, d.dc) {
                (0, 0) => "stay".into(),
                (-1, 0) => "north".into(),
                (1, 0) => "south".into(),
                (0, 1) => "east".into(),
                (0, -1) => "west".into(),
                (-1, 1) => "northeast".into(),
                (-1, -1) => "northwest".into(),
                (1, 1) => "southeast".into(),
                (1, -1) => "southwest".into(),
                (dr, dc) => format!("({dr},{dc})"),
            }
        }
        match self {
            MoveKind::Dir(d) => way(d),
            MoveKind::Forward => "forward".into(),
            MoveKind::Back => "back".into(),
            MoveKind::TurnLeft => "turn left".into(),
            MoveKind::TurnRight => "turn right".into(),
            MoveKind::Slide(d) => format!("slide {}", way(d)),
        }
    }
}

/// `push box costs 2`.
#[derive(Debug, Clone)]
pub struct PushDecl {
    pub object: Ident,
    pub cost: Price,
    pub span: Span,
}

/// `carry belt(?w) ?w`, `carry wind east`.
#[derive(Debug, Clone)]
pub struct CarryDecl {
    pub pattern: Pattern,
    /// The way: a direction, or the variable the pattern binds.
    pub way: CarryWay,
    pub span: Span,
}

/// `beam NAME from TILE(?d) ?d turning`.
#[derive(Debug, Clone)]
pub struct BeamDecl {
    pub name: Ident,
    pub pattern: Pattern,
    /// The way it is cast: a direction, or the variable the pattern binds.
    pub way: CarryWay,
    /// A quarter turn clockwise after every step.
    pub turning: bool,
    pub span: Span,
}

/// `field NAME = distance from PATTERN through PATTERN, ... by DIR ... else N`.
#[derive(Debug, Clone)]
pub struct FieldDecl {
    pub name: Ident,
    /// Where the distance is 0.
    pub from: Pattern,
    /// The tiles it crosses (empty: every cell that is not solid).
    pub through: Vec<Pattern>,
    /// The steps it takes (empty: the four compass directions).
    pub by: Vec<(Dir, Span)>,
    /// The number of a cell it never reaches (none: -1).
    pub otherwise: Option<IntExpr>,
    pub span: Span,
}

/// Which way a `carry` rule carries.
#[derive(Debug, Clone)]
pub enum CarryWay {
    Dir(Dir, Span),
    Var(Ident),
}

/// `teleport portal [optional]`.
#[derive(Debug, Clone)]
pub struct TeleportDecl {
    pub tile: Ident,
    /// The mover chooses whether to go through.
    pub optional: bool,
    pub span: Span,
}

/// What a move list names: a move, or a set of moves declared with
/// `moves`.
#[derive(Debug, Clone)]
pub enum MoveWhat {
    Kind(Spanned<MoveKind>),
    Set(Ident),
}

impl MoveWhat {
    pub fn span(&self) -> Span {
        match self {
            MoveWhat::Kind(k) => k.span,
            MoveWhat::Set(i) => i.span,
        }
    }
}

/// A move (or a set of moves), its condition and its cost.
#[derive(Debug, Clone)]
pub struct MoveItem {
    pub what: MoveWhat,
    /// `north { up -> long (-2, 0), ... }`: for a piece with poses, the
    /// move from each pose (empty for other moves).
    pub table: Vec<TableRow>,
    /// `if COND`: made only when this holds.
    pub guard: Option<Pred>,
    pub cost: Option<Price>,
    /// `'n' pushing 'N'`: how the move is written in a way.
    pub letter: Option<Letter>,
}

/// How a move is written in `{path}` and `--moves`: `'n'`, and `'N'` for
/// a step of it that pushes an object (`'n' pushing 'N'`).
#[derive(Debug, Clone)]
pub struct Letter {
    pub walk: Symbol,
    pub push: Option<Symbol>,
}

/// `up -> long (-2, 0)`: from pose `from`, the piece takes pose `to` with
/// its anchor shifted by `off`.
#[derive(Debug, Clone)]
pub struct TableRow {
    pub from: Ident,
    pub to: Ident,
    pub off: Dir,
    pub span: Span,
}

/// `poses block { up (0, 0)  long (0, 0) (1, 0) }`.
#[derive(Debug, Clone)]
pub struct PosesDecl {
    pub piece: Ident,
    /// Each pose: its name and its cells (offsets from the anchor).
    pub poses: Vec<(Ident, Vec<Dir>)>,
}

/// Which cell a cell test reads, relative to the mover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelCell {
    /// The mover's own cell.
    Here,
    /// One move's way on from the mover.
    Ahead,
    /// Two moves' way on.
    Beyond,
    /// So many rows and columns from the mover's cell.
    Offset(Dir),
}

/// What a cell test asks of its cell.
#[derive(Debug, Clone)]
pub enum CellWhat {
    /// `is TILE`.
    Is(Pattern),
    /// `has NAME`: an agent or object stands there.
    Has(Ident),
}

/// `moves knight = (-2, -1) (-2, 1) ...`: a named set of moves.
#[derive(Debug, Clone)]
pub struct MovesDecl {
    pub name: Ident,
    pub moves: Vec<MoveItem>,
}

/// `move all at once: stay north east south west`.
#[derive(Debug, Clone)]
pub struct MoveDecl {
    /// `None` for `all`.
    pub mover: Option<Ident>,
    pub mover_span: Span,
    pub mode: Option<Spanned<Mode>>,
    /// `by itself N times`: how many moves it makes a step (`None`: one).
    pub times: Option<IntExpr>,
    pub moves: Vec<MoveItem>,
}

/// A constraint on every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbid {
    SameCell,
    Swap,
}

/// A tile, optionally with its parameter bound to a variable or fixed to a
/// value: `gate`, `gate(?c)` (binds: the name keeps its `?`), `gate(red)`.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub tile: Ident,
    pub arg: Option<Ident>,
    pub span: Span,
}

/// What an `enter` rule says.
#[derive(Debug, Clone)]
pub enum EnterWhat {
    /// `only if COND`.
    If(Pred),
    /// `costs N`.
    Costs(Price),
}

/// `enter gate(?c) only if have[?c]`, `enter swamp costs 3`.
#[derive(Debug, Clone)]
pub struct EnterDecl {
    pub pattern: Pattern,
    pub what: EnterWhat,
}

/// What an action does to a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Set,
    Clear,
    Toggle,
}

/// An assignment to a counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    Add,
    Sub,
    Set,
}

/// What an action does.
#[derive(Debug, Clone)]
pub enum ActionKind {
    Flag(Verb),
    Counter(AssignOp, IntExpr),
}

/// `set have[c]`, `keys += 1`.
#[derive(Debug, Clone)]
pub struct Action {
    pub kind: ActionKind,
    pub target: StateRef,
    pub span: Span,
}

/// What fires an `on` rule.
#[derive(Debug, Clone)]
pub enum Trigger {
    Enter(Pattern),
    Move(Spanned<MoveKind>),
}

/// `on enter key(?c): set have[?c]`, optionally for one agent (`on hero enter
/// ...`) and with a condition (`on enter key if not taken[key]: ...`).
#[derive(Debug, Clone)]
pub struct OnDecl {
    pub agent: Option<Ident>,
    pub trigger: Trigger,
    pub cond: Option<Pred>,
    pub actions: Vec<Action>,
}

/// How a `when` rule relates its agent to a tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Line of sight along the agent's row or column.
    Sees,
    /// The agent's own cell.
    On,
}

/// `when watcher sees lamp(?h): set seen[?h]`.
#[derive(Debug, Clone)]
pub struct WhenDecl {
    pub agent: Ident,
    pub relation: Relation,
    pub pattern: Pattern,
    pub cond: Option<Pred>,
    pub actions: Vec<Action>,
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A flag or counter, with an index if it is indexed: `have[c]`, `lit`.
#[derive(Debug, Clone)]
pub struct StateRef {
    pub name: Ident,
    pub index: Option<Ident>,
    pub span: Span,
}

/// Where an agent stands, in a predicate.
#[derive(Debug, Clone)]
pub enum Place {
    /// `its target`.
    ItsTarget(Span),
    Tile(Pattern),
}

/// A predicate over a state.
#[derive(Debug, Clone)]
pub enum Pred {
    Or(Vec<Pred>, Span),
    And(Vec<Pred>, Span),
    Not(Box<Pred>, Span),
    /// `every bot on its target`.
    Every(Ident, Place, Span),
    /// `every goal has box`.
    EveryHas(Pattern, Ident, Span),
    /// `any bot on exit`.
    Any(Ident, Place, Span),
    /// `hero on exit`.
    On(Ident, Place, Span),
    /// `all seen`.
    AllFlags(Ident, Span),
    /// `any have`.
    AnyFlag(Ident, Span),
    Flag(StateRef),
    /// `keys > 0`.
    Compare(StateRef, CmpOp, IntExpr, Span),
    /// `steps % 2 == 0`: numbers compared, which may read the time.
    Numbers(IntExpr, CmpOp, IntExpr, Span),
    /// `bike facing north`.
    Facing(Ident, u8, Span),
    /// `hero at (r, c)`.
    At(Ident, IntExpr, IntExpr, Span),
    /// `block is up`: a piece's pose.
    PoseIs(Ident, Ident, Span),
    /// `guard at hero` (`None`), `every ghost at hero` (`Some(true)`),
    /// `any ghost at hero` (`Some(false)`).
    Meets(Option<bool>, Ident, Ident, Span),
    /// `moving north`: the direction of the step being taken.
    Moving(Dir, Span),
    /// `AGENT in BEAM`: the agent stands on a cell the beam lights.
    InBeam(Ident, Ident, Span),
    /// `moving ?w`: the direction the value bound to `?w` names.
    MovingAs(Ident, Span),
    /// `cell ahead is wall`: a cell relative to the mover.
    Cell(RelCell, CellWhat, Span),
    /// `column of hero > its column + 1`: sums of signed terms compared.
    Pos(Vec<(i64, PosTerm)>, CmpOp, Vec<(i64, PosTerm)>, Span),
}

/// Which coordinate of an agent's cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Row,
    Column,
}

/// A term of a comparison of positions.
#[derive(Debug, Clone)]
pub enum PosTerm {
    /// `row of hero`.
    Of(Axis, Ident),
    /// `its column`: the mover's own.
    Its(Axis, Span),
    Num(i64),
}

impl Pred {
    pub fn span(&self) -> Span {
        match self {
            Pred::Or(_, s)
            | Pred::And(_, s)
            | Pred::Not(_, s)
            | Pred::Every(_, _, s)
            | Pred::EveryHas(_, _, s)
            | Pred::Any(_, _, s)
            | Pred::On(_, _, s)
            | Pred::AllFlags(_, s)
            | Pred::AnyFlag(_, s)
            | Pred::Compare(_, _, _, s)
            | Pred::Numbers(_, _, _, s)
            | Pred::Facing(_, _, s)
            | Pred::At(_, _, _, s)
            | Pred::Meets(_, _, _, s)
            | Pred::PoseIs(_, _, s)
            | Pred::Moving(_, s)
            | Pred::InBeam(_, _, s)
            | Pred::MovingAs(_, s)
            | Pred::Cell(_, _, s)
            | Pred::Pos(_, _, _, s) => *s,
            Pred::Flag(f) => f.span,
        }
    }
}

/// Which output line a template is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    Before,
    Solved,
    Unsolved,
    /// Printed between two cases, not after the last.
    Separator,
    /// Printed for a case a limit stopped (`--max-states` and the like).
    Stopped,
    /// Printed once, after the last case.
    After,
    /// Put between two letters of `{path}`.
    Joiner,
}

/// `solved "Escape possible in {steps} steps."`.
#[derive(Debug, Clone)]
pub struct OutputItem {
    pub kind: Spanned<OutputKind>,
    pub text: Spanned<String>,
}
