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

/// A size: a number, or the name of a header field read from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Size {
    Lit(Spanned<u64>),
    Field(Ident),
}

impl Size {
    pub fn span(&self) -> Span {
        match self {
            Size::Lit(s) => s.span,
            Size::Field(i) => i.span,
        }
    }
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
    Move(MoveDecl),
    Forbid(Spanned<Forbid>),
    Enter(EnterDecl),
    On(OnDecl),
    When(WhenDecl),
    Goal(Pred),
    Limit(Spanned<Size>),
    Output(Vec<OutputItem>),
}

/// An item of the `input { ... }` block.
#[derive(Debug, Clone)]
pub enum InputItem {
    Cases(Spanned<Cases>),
    Header(Vec<Ident>),
    Grid { rows: Size, cols: Size, span: Span },
}

/// How an input file is cut into cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cases {
    /// Until a header equal to these values (e.g. `0 0 0`).
    UntilValues(Vec<Spanned<u64>>),
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
}

/// `key 'b' 'y' 'r' 'g' of colour`.
#[derive(Debug, Clone)]
pub struct TileDef {
    pub name: Ident,
    pub chars: Vec<Spanned<char>>,
    pub domain: Option<Ident>,
    pub props: Vec<Spanned<Property>>,
}

/// Marker characters: an explicit list, or a first character and `..`.
#[derive(Debug, Clone)]
pub struct Markers {
    pub chars: Vec<Spanned<char>>,
    pub range: bool,
    pub span: Span,
}

/// `agent bot[n] 'a'.. target 'A'.. on corridor`.
#[derive(Debug, Clone)]
pub struct AgentDecl {
    pub name: Ident,
    pub family: Option<Size>,
    pub starts: Markers,
    pub targets: Option<Markers>,
    pub on: Ident,
    pub props: Vec<Spanned<Property>>,
}

/// `flag have[colour]`.
#[derive(Debug, Clone)]
pub struct FlagDecl {
    pub name: Ident,
    pub domain: Option<Ident>,
}

/// How the agents of a step move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    AtOnce,
    InTurn,
}

/// A direction of a neighbourhood, as (row, column) offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dir {
    pub dr: i8,
    pub dc: i8,
}

/// `move all at once: stay north east south west`.
#[derive(Debug, Clone)]
pub struct MoveDecl {
    /// `None` for `all`.
    pub mover: Option<Ident>,
    pub mover_span: Span,
    pub mode: Option<Spanned<Mode>>,
    pub dirs: Vec<Spanned<Dir>>,
}

/// A constraint on every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbid {
    SameCell,
    Swap,
}

/// A tile, optionally with its parameter bound to a variable or fixed to a
/// value: `gate`, `gate(c)`, `gate(red)`.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub tile: Ident,
    pub arg: Option<Ident>,
    pub span: Span,
}

/// `enter gate(c) only if have[c]`.
#[derive(Debug, Clone)]
pub struct EnterDecl {
    pub pattern: Pattern,
    pub cond: Pred,
}

/// What an action does to a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Set,
    Clear,
    Toggle,
}

/// `set have[c]`.
#[derive(Debug, Clone)]
pub struct Action {
    pub verb: Verb,
    pub flag: FlagRef,
    pub span: Span,
}

/// `on enter key(c): set have[c]`, optionally for one agent: `on hero enter ...`.
#[derive(Debug, Clone)]
pub struct OnDecl {
    pub agent: Option<Ident>,
    pub pattern: Pattern,
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

/// `when watcher sees lamp(h): set seen[h]`.
#[derive(Debug, Clone)]
pub struct WhenDecl {
    pub agent: Ident,
    pub relation: Relation,
    pub pattern: Pattern,
    pub actions: Vec<Action>,
}

/// A flag, with an index if it is indexed: `have[c]`, `lit`.
#[derive(Debug, Clone)]
pub struct FlagRef {
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
    /// `any bot on exit`.
    Any(Ident, Place, Span),
    /// `hero on exit`.
    On(Ident, Place, Span),
    /// `all seen`.
    AllFlags(Ident, Span),
    /// `any have`.
    AnyFlag(Ident, Span),
    Flag(FlagRef),
}

impl Pred {
    pub fn span(&self) -> Span {
        match self {
            Pred::Or(_, s)
            | Pred::And(_, s)
            | Pred::Not(_, s)
            | Pred::Every(_, _, s)
            | Pred::Any(_, _, s)
            | Pred::On(_, _, s)
            | Pred::AllFlags(_, s)
            | Pred::AnyFlag(_, s) => *s,
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
}

/// `solved "Escape possible in {steps} steps."`.
#[derive(Debug, Clone)]
pub struct OutputItem {
    pub kind: Spanned<OutputKind>,
    pub text: Spanned<String>,
}
