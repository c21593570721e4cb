//! The catalogue of diagnostics. Every problem the tool can report about a
//! rule file or an input is one variant here, with a stable code
//! (`puzzle::<phase>::<what>`), a one-sentence message, labelled spans and,
//! where it helps, a hint. Codes never change meaning once published.
//!
//! Diagnostics are collected, not thrown: a phase returns all it found at
//! once, wrapped in [`Diagnostics`] with the source they point into.

use miette::{Diagnostic, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::Arc;
use thiserror::Error;

/// Problems in a rule file (`.puz`).
#[derive(Debug, Error, Diagnostic, Clone)]
pub enum RuleError {
    #[error("syntax error: {expected}")]
    #[diagnostic(code(puzzle::parse::syntax), help("{hint}"))]
    Syntax {
        expected: String,
        #[label("{found}")]
        span: SourceSpan,
        found: String,
        /// The `{` of a block still open where the error is, when that is
        /// the likely cause.
        #[label("this `{{` is not closed")]
        opener: Option<SourceSpan>,
        hint: String,
    },

    #[error("this byte is not UTF-8")]
    #[diagnostic(
        code(puzzle::parse::encoding),
        help("save the rule file as UTF-8 (plain ASCII is UTF-8)")
    )]
    Encoding {
        #[label("not UTF-8")]
        span: SourceSpan,
    },

    #[error("brackets nested deeper than {max} levels")]
    #[diagnostic(
        code(puzzle::parse::too_deep),
        help("write the condition or expression with fewer levels of brackets")
    )]
    TooDeep {
        #[label("one level too many")]
        span: SourceSpan,
        max: usize,
    },

    #[error("unknown tile `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_tile), help("{help}"))]
    UnknownTile {
        name: String,
        #[label("no tile is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown agent `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_agent), help("{help}"))]
    UnknownAgent {
        name: String,
        #[label("no agent is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown flag `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_flag), help("{help}"))]
    UnknownFlag {
        name: String,
        #[label("no flag is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown move `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_move), help("{help}"))]
    UnknownMove {
        name: String,
        #[label("no move or set of moves is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown domain `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_domain), help("{help}"))]
    UnknownDomain {
        name: String,
        #[label("no domain is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("`{name}` is not a value of domain `{domain}`")]
    #[diagnostic(code(puzzle::resolve::unknown_parameter), help("{help}"))]
    UnknownParameter {
        name: String,
        domain: String,
        #[label("not a value")]
        span: SourceSpan,
        help: String,
    },

    #[error("no variable `{name}` is bound here")]
    #[diagnostic(code(puzzle::resolve::unbound_variable), help("{help}"))]
    UnboundVariable {
        name: String,
        #[label("unbound")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown header field `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_field), help("{help}"))]
    UnknownField {
        name: String,
        #[label("not a header field")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown placeholder `{{{name}}}`")]
    #[diagnostic(code(puzzle::resolve::unknown_placeholder), help("{help}"))]
    UnknownPlaceholder {
        name: String,
        #[label("no value is called this")]
        span: SourceSpan,
        help: String,
    },

    #[error("{kind} `{name}` is defined twice")]
    #[diagnostic(
        code(puzzle::resolve::duplicate),
        help(
            "tiles, agents and flags share one namespace (domains have their own); rename one of them"
        )
    )]
    Duplicate {
        kind: &'static str,
        name: String,
        #[label("defined again here")]
        span: SourceSpan,
        #[label("first defined here")]
        first: SourceSpan,
    },

    #[error("the {symbol} is given twice in the legend")]
    #[diagnostic(
        code(puzzle::resolve::legend_conflict),
        help("each map symbol must stand for one thing: a tile, an agent's start or a target")
    )]
    LegendConflict {
        symbol: String,
        #[label("given to {what} here")]
        span: SourceSpan,
        what: String,
        #[label("first given to {first_what} here")]
        first: SourceSpan,
        first_what: String,
    },

    #[error("unknown property `{name}`")]
    #[diagnostic(code(puzzle::resolve::unknown_property), help("{help}"))]
    UnknownProperty {
        name: String,
        #[label("not a property of tiles")]
        span: SourceSpan,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::resolve::unused_binding), help("{help}"))]
    UnusedBinding {
        message: String,
        #[label("binds a value nothing uses")]
        span: SourceSpan,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::resolve::domain_mismatch), help("{help}"))]
    DomainMismatch {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::resolve::wrong_kind), help("{help}"))]
    WrongKind {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("the rule file has no {what}")]
    #[diagnostic(code(puzzle::resolve::missing), help("{help}"))]
    Missing { what: &'static str, help: String },

    #[error("{what} is given more than once")]
    #[diagnostic(code(puzzle::resolve::repeated), help("keep one of them"))]
    Repeated {
        what: &'static str,
        #[label("given again here")]
        span: SourceSpan,
        #[label("first given here")]
        first: SourceSpan,
    },

    #[error("this move has no letter, and others have")]
    #[diagnostic(
        code(puzzle::resolve::letter),
        help(
            "a way is written with every chosen move's letter: give this move one (`north 'n'`), \
             or drop them all"
        )
    )]
    Unlettered {
        #[label("no letter")]
        span: SourceSpan,
        #[label("a move with a letter")]
        first: SourceSpan,
    },

    /// A rule that says something the language cannot mean, coded by what
    /// it is about (see [`Topic`]).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<Invalid>),

    #[error("`{{steps}}` counts steps, and steps here have costs")]
    #[diagnostic(
        code(puzzle::check::steps_with_costs),
        severity(Warning),
        help(
            "the answer is the least total cost, `{{cost}}`; `{{steps}}` is the number of steps \
             of a least-cost way (the fewest among them)"
        )
    )]
    StepsWithCosts {
        #[label("prints the steps, not the answer's cost")]
        span: SourceSpan,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::check::never), severity(Warning), help("{help}"))]
    Never {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },
}

impl RuleError {
    /// Whether this is only a warning (the file still runs).
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            RuleError::Never { .. } | RuleError::StepsWithCosts { .. }
        )
    }
}

/// What a rule that cannot mean what it says is about: its diagnostic's
/// code is `puzzle::resolve::TOPIC` (`puzzle::resolve::pose`), so that a
/// report can be looked up, filtered and tested by what it concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// An agent's or object's declaration: markers, starts, targets.
    Agent,
    /// A body that follows its leader (`follows`).
    Body,
    /// The board's edge (`border`).
    Border,
    /// Moves made by themselves (`by itself`).
    ByItself,
    /// A beam (`beam NAME from TILE(?d) ?d`, `AGENT in BEAM`).
    Beam,
    /// A cell test (`cell ahead is wall`).
    CellTest,
    /// A comparison of a counter.
    Comparison,
    /// A cost (`costs N`).
    Cost,
    /// A counter's declaration, or an effect on one.
    Counter,
    /// A direction read from a tile's value (`moving ?w`, `carry belt(?w) ?w`).
    Direction,
    /// A domain's declaration.
    Domain,
    /// A field (`field NAME = distance from ...`, `NAME(AGENT)`).
    Field,
    /// The input's header.
    Header,
    /// An agent's heading (`facing`).
    Heading,
    /// The `input` block.
    Input,
    /// A layout (`layout NAME { ... }`).
    Layout,
    /// How a move is written (`north 'n' pushing 'N'`, `{path}`).
    Letter,
    /// The `limit`.
    Limit,
    /// Agents meeting (`A at B`).
    Meets,
    /// How agents take their moves (`in turn`, `at once`, `together`).
    Mode,
    /// A move list, or a set of moves.
    Moves,
    /// `moving DIR`.
    Moving,
    /// A number, or an expression of the header and the map.
    Number,
    /// An `output` line.
    Output,
    /// A piece of several cells, and what it cannot go with.
    Piece,
    /// A place in a condition (`on TILE`, `its target`).
    Place,
    /// A piece's poses and its move tables.
    Pose,
    /// What a push costs (`push OBJECT costs N`).
    Push,
    /// Rows and columns compared (`row of hero < its row`).
    RowsColumns,
    /// A teleport.
    Teleport,
    /// A tile's declaration.
    Tile,
    /// The time (`steps`) read in a condition.
    Time,
}

impl Topic {
    /// Every topic.
    pub const ALL: [Topic; 32] = [
        Topic::Agent,
        Topic::Body,
        Topic::Beam,
        Topic::Border,
        Topic::ByItself,
        Topic::CellTest,
        Topic::Comparison,
        Topic::Cost,
        Topic::Counter,
        Topic::Direction,
        Topic::Domain,
        Topic::Field,
        Topic::Header,
        Topic::Heading,
        Topic::Input,
        Topic::Layout,
        Topic::Letter,
        Topic::Limit,
        Topic::Meets,
        Topic::Mode,
        Topic::Moves,
        Topic::Moving,
        Topic::Number,
        Topic::Output,
        Topic::Piece,
        Topic::Place,
        Topic::Pose,
        Topic::Push,
        Topic::RowsColumns,
        Topic::Teleport,
        Topic::Tile,
        Topic::Time,
    ];

    /// The diagnostic's code.
    pub fn code(self) -> &'static str {
        match self {
            Topic::Agent => "puzzle::resolve::agent",
            Topic::Body => "puzzle::resolve::body",
            Topic::Beam => "puzzle::resolve::beam",
            Topic::Border => "puzzle::resolve::border",
            Topic::ByItself => "puzzle::resolve::by_itself",
            Topic::CellTest => "puzzle::resolve::cell_test",
            Topic::Comparison => "puzzle::resolve::comparison",
            Topic::Cost => "puzzle::resolve::cost",
            Topic::Counter => "puzzle::resolve::counter",
            Topic::Direction => "puzzle::resolve::direction",
            Topic::Domain => "puzzle::resolve::domain",
            Topic::Field => "puzzle::resolve::field",
            Topic::Header => "puzzle::resolve::header",
            Topic::Heading => "puzzle::resolve::heading",
            Topic::Input => "puzzle::resolve::input",
            Topic::Layout => "puzzle::resolve::layout",
            Topic::Letter => "puzzle::resolve::letter",
            Topic::Limit => "puzzle::resolve::limit",
            Topic::Meets => "puzzle::resolve::meets",
            Topic::Mode => "puzzle::resolve::mode",
            Topic::Moves => "puzzle::resolve::moves",
            Topic::Moving => "puzzle::resolve::moving",
            Topic::Number => "puzzle::resolve::number",
            Topic::Output => "puzzle::resolve::output",
            Topic::Piece => "puzzle::resolve::piece",
            Topic::Place => "puzzle::resolve::place",
            Topic::Pose => "puzzle::resolve::pose",
            Topic::Push => "puzzle::resolve::push",
            Topic::RowsColumns => "puzzle::resolve::rows_columns",
            Topic::Teleport => "puzzle::resolve::teleport",
            Topic::Tile => "puzzle::resolve::tile",
            Topic::Time => "puzzle::resolve::time",
        }
    }
}

/// A rule that cannot mean what it says: the message, the span with its
/// label, a hint, and the [`Topic`] its code names.
#[derive(Debug, Error, Clone)]
#[error("{message}")]
pub struct Invalid {
    pub topic: Topic,
    pub message: String,
    pub span: SourceSpan,
    pub label: String,
    pub help: String,
}

impl Diagnostic for Invalid {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.topic.code()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let label = miette::LabeledSpan::new_with_span(Some(self.label.clone()), self.span);
        Some(Box::new(std::iter::once(label)))
    }
}

impl From<Invalid> for RuleError {
    fn from(i: Invalid) -> Self {
        RuleError::Invalid(Box::new(i))
    }
}

impl InputError {
    /// A grid row of `got` characters or tokens (`unit`) where the case
    /// has `want`, shown at `span`.
    pub fn row_width(
        (case, row): (usize, usize),
        unit: &'static str,
        (got, want): (usize, usize),
        span: SourceSpan,
        help: String,
    ) -> InputError {
        let label = if got < want {
            "row too short"
        } else {
            "row too long"
        };
        InputError::RowWidth {
            case,
            row,
            unit,
            got,
            want,
            span,
            label: label.into(),
            help,
        }
    }
}

/// Problems in an input file, or in a map that the rules cannot run on.
#[derive(Debug, Error, Diagnostic, Clone)]
pub enum InputError {
    #[error("{message}")]
    #[diagnostic(code(puzzle::input::header), help("{help}"))]
    Header {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("the input ended inside case {case}: {missing}")]
    #[diagnostic(code(puzzle::input::truncated), help("{help}"))]
    Truncated {
        case: usize,
        missing: String,
        #[label("input ends here")]
        span: SourceSpan,
        /// The header that set the size, when it did.
        #[label("{size_label}")]
        size: Option<SourceSpan>,
        size_label: String,
        help: String,
    },

    #[error(
        "case {case}'s header says {rows} rows, but line {line} looks like the next case's header"
    )]
    #[diagnostic(
        code(puzzle::input::header_rows),
        help(
            "if the grid of case {case} ends before that line, its header should say {given_rows}: \
             the line is then read as the header (`{form}`) of case {next}"
        )
    )]
    HeaderRows {
        case: usize,
        rows: usize,
        /// The rows of the grid before the line that looks like a header
        /// (`1 row`, `2 rows`).
        given_rows: String,
        next: usize,
        /// That line's number in the input, from 1.
        line: usize,
        #[label("read as row {row} of case {case}")]
        span: SourceSpan,
        row: usize,
        #[label("the header says {rows} rows")]
        header: SourceSpan,
        form: String,
    },

    #[error("row {row} of case {case} is {got} {unit} wide, expected {want}")]
    #[diagnostic(code(puzzle::input::row_width), help("{help}"))]
    RowWidth {
        case: usize,
        row: usize,
        /// `characters` or `tokens`.
        unit: &'static str,
        got: usize,
        want: usize,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("the {symbol} is not in the legend")]
    #[diagnostic(code(puzzle::input::unknown_char), help("the legend defines {legend}"))]
    UnknownChar {
        symbol: String,
        #[label("unknown map symbol")]
        span: SourceSpan,
        legend: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::family_size), help("{help}"))]
    FamilySize {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::marker_missing), help("{help}"))]
    MarkerMissing {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::marker_repeated), help("{help}"))]
    MarkerRepeated {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("the input announces {announced} cases but ends after {given}")]
    #[diagnostic(
        code(puzzle::input::fewer_cases),
        help("give as many cases as the first line says, or correct the count")
    )]
    FewerCases {
        announced: usize,
        given: usize,
        #[label("the input ends here")]
        span: SourceSpan,
        #[label("the count")]
        count: SourceSpan,
    },

    #[error("the input announces {announced} cases but goes on after them")]
    #[diagnostic(
        code(puzzle::input::more_cases),
        help("correct the count on the first line, or remove what follows the last case")
    )]
    MoreCases {
        announced: usize,
        #[label("after the last case announced")]
        span: SourceSpan,
        #[label("the count")]
        count: SourceSpan,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::size_range), help("{help}"))]
    SizeRange {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("there is no case {asked}: the input has {given}")]
    #[diagnostic(
        code(puzzle::input::no_such_case),
        help("`--case N` counts the input's cases from 1")
    )]
    NoSuchCase {
        asked: usize,
        /// `3 cases`, `1 case`.
        given: String,
        #[label("the input ends here")]
        span: SourceSpan,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::record), help("{help}"))]
    Record {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::bare_header), help("{help}"))]
    BareHeader {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("this byte is not UTF-8")]
    #[diagnostic(
        code(puzzle::input::encoding),
        help(
            "save the file as UTF-8 (plain ASCII is UTF-8); the answers before this line were printed"
        )
    )]
    Encoding {
        #[label("not UTF-8")]
        span: SourceSpan,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::rules), help("{help}"))]
    Rules {
        message: String,
        #[label("{label}")]
        span: SourceSpan,
        label: String,
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(puzzle::input::too_wide), help("{help}"))]
    TooWide {
        message: String,
        #[label("in this case")]
        span: SourceSpan,
        help: String,
    },
}

impl InputError {
    /// Whether this is the engine's size, not a malformed input: such a
    /// case is stopped as a limit stops it, and the run goes on.
    pub fn is_engine_limit(&self) -> bool {
        matches!(self, InputError::TooWide { .. })
    }
}

/// The text a report points into, with its name. A line longer than
/// [`MAX_SHOWN`] bytes is shown as a window around the span, without the
/// lines around it: a report stays short whatever the input.
#[derive(Debug, Clone)]
pub struct Source {
    name: String,
    /// Shared, not copied (an input file of 9 MB was once held twice).
    text: Arc<Text>,
}

/// A source's text: held, or a file mapped into memory (a large input:
/// see [`crate::mapped`]).
#[derive(Debug)]
enum Text {
    Held(String),
    Mapped(crate::mapped::Mapped),
}

/// The longest stretch of a source a report shows.
pub const MAX_SHOWN: usize = 400;

/// The most problems one report lists; the rest are counted.
pub const MAX_REPORTS: usize = 20;

impl Source {
    pub fn new(name: &str, text: &str) -> Self {
        Source::owning(name, text.to_string())
    }

    /// A source of `text` as it is, not copied.
    pub fn owning(name: &str, text: String) -> Self {
        Source {
            name: name.to_string(),
            text: Arc::new(Text::Held(text)),
        }
    }

    /// A source of a mapped file's text.
    pub fn mapped(name: &str, text: crate::mapped::Mapped) -> Self {
        Source {
            name: name.to_string(),
            text: Arc::new(Text::Mapped(text)),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        match &*self.text {
            Text::Held(s) => s,
            Text::Mapped(m) => m.text(),
        }
    }

    /// Tells that the text before offset `upto` is read, and will only be
    /// read again by a report: a mapped file's pages there go back to the
    /// kernel ([`crate::mapped::Mapped::release`]).
    pub fn release(&self, upto: usize) {
        if let Text::Mapped(m) = &*self.text {
            m.release(upto);
        }
    }
}

impl SourceCode for Source {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text: &'a str = self.text();
        let whole = text.read_span(span, before, after)?;
        if whole.data().len() <= MAX_SHOWN {
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                shown(whole.data()),
                *whole.span(),
                whole.line(),
                whole.column(),
                whole.line_count(),
            )));
        }
        // A window on the span's own line: a little before it, and the
        // span's start and a little after.
        let start = span.offset().min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let mut from = start.saturating_sub(MAX_SHOWN / 4).max(line_start);
        let mut to = (start + span.len().clamp(1, MAX_SHOWN / 2) + MAX_SHOWN / 4).min(line_end);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        while !text.is_char_boundary(to) {
            to += 1;
        }
        let line = text.as_bytes()[..line_start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let column = text[line_start..from].chars().count();
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            shown(&text.as_bytes()[from..to]),
            (from, to - from).into(),
            line,
            column,
            1,
        )))
    }
}

/// The stand-in a report shows for a control character of its source.
pub const CONTROL_SHOWN: char = '?';

/// Whether a report shows `c` as [`CONTROL_SHOWN`]: a control character
/// other than a tab or a line break, which would act on the terminal the
/// report is printed to (an escape sequence recolours it or moves the
/// cursor).
pub fn is_hidden_control(c: char) -> bool {
    c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Text from an input quoted in a message: each hidden control character
/// written as its escape (`\u{1b}`), so that the message cannot act on the
/// terminal it is printed to.
pub fn raw(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hidden_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if is_hidden_control(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// The bytes of a source a report shows, each hidden control character
/// replaced by [`CONTROL_SHOWN`]: one byte for one, so that every span
/// keeps its place (the report's message names the character). The copy
/// is made only when there is one, and is kept for the process's life (a
/// report's window borrows from its source): at most [`MAX_SHOWN`] bytes a
/// window, a few windows a report, [`MAX_REPORTS`] reports a run.
fn shown(data: &[u8]) -> &[u8] {
    if !data.iter().any(|&b| is_hidden_control(b as char)) {
        return data;
    }
    let copy: Box<[u8]> = data
        .iter()
        .map(|&b| {
            if is_hidden_control(b as char) {
                CONTROL_SHOWN as u8
            } else {
                b
            }
        })
        .collect();
    Box::leak(copy)
}

/// All diagnostics of one phase, with the source they point into (at most
/// [`MAX_REPORTS`] of them; the summary counts the rest).
#[derive(Debug, Error, Diagnostic)]
#[error("{summary}")]
pub struct Diagnostics<E: Diagnostic + Send + Sync + 'static> {
    pub summary: String,
    #[source_code]
    pub src: Source,
    #[related]
    pub errors: Vec<E>,
}

impl<E: Diagnostic + Send + Sync + 'static> Diagnostics<E> {
    pub fn new(src: Source, mut errors: Vec<E>, what: &str) -> Self {
        let n = errors.len();
        let summary = match n {
            1 => format!("1 problem in {what}"),
            _ if n > MAX_REPORTS => {
                errors.truncate(MAX_REPORTS);
                format!("{n} problems in {what} (the first {MAX_REPORTS} shown)")
            }
            _ => format!("{n} problems in {what}"),
        };
        Diagnostics {
            summary,
            src,
            errors,
        }
    }
}

/// A map symbol as reports show it: `character '#'` or `token "12"`.
pub fn shown_symbol(sym: &str, is_char: bool) -> String {
    if is_char {
        format!("character {:?}", sym.chars().next().unwrap_or(' '))
    } else {
        format!("token {sym:?}")
    }
}

/// A did-you-mean hint: the closest of `candidates` to `name`, if any is close.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    what: &str,
) -> String {
    let mut all: Vec<&str> = candidates.into_iter().collect();
    all.sort_unstable();
    all.dedup();
    let best = all
        .iter()
        .map(|c| (strsim::jaro_winkler(name, c), *c))
        .filter(|(score, _)| *score > 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, c)) => format!("did you mean `{c}`?"),
        None if all.is_empty() => format!("no {what} are declared"),
        None => format!("the {what} are: {}", quote_list(&all)),
    }
}

/// `a`, `b` and `c`.
pub fn quote_list(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// Renders a diagnostic as the terminal shows it, without colours and at a
/// fixed width, so the text is the same on every machine (for snapshots and
/// for tools that capture it).
pub fn render(diag: &dyn Diagnostic) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100);
    let mut out = String::new();
    handler
        .render_report(&mut out, diag)
        .expect("writing to a String cannot fail");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_picks_the_closest_name_or_lists_them() {
        assert_eq!(
            did_you_mean("flor", ["wall", "floor"], "tiles"),
            "did you mean `floor`?"
        );
        assert_eq!(
            did_you_mean("zzz", ["b", "a"], "tiles"),
            "the tiles are: `a` and `b`"
        );
        assert_eq!(did_you_mean("x", [], "flags"), "no flags are declared");
    }
}

/// A report as JSON objects, one per problem (a report of several
/// problems gives one for each): `severity`, `code`, `message`, `file`,
/// `line` and `column` (from 1, of the first label), `labels` (each with
/// its `label`, `line`, `column`, byte `offset` and `length`), and `help`.
/// For `--format json`: the field names are stable.
pub fn json(d: &dyn Diagnostic) -> Vec<serde_json::Value> {
    let related: Vec<&dyn Diagnostic> = d.related().map(|r| r.collect()).unwrap_or_default();
    let src = d.source_code();
    if related.is_empty() {
        return vec![json_one(d, src)];
    }
    related
        .into_iter()
        .map(|r| json_one(r, r.source_code().or(src)))
        .collect()
}

fn json_one(d: &dyn Diagnostic, src: Option<&dyn miette::SourceCode>) -> serde_json::Value {
    use serde_json::json;
    let mut file = None;
    let labels: Vec<serde_json::Value> = d
        .labels()
        .into_iter()
        .flatten()
        .map(|l| {
            let at = src.and_then(|s| s.read_span(l.inner(), 0, 0).ok());
            if file.is_none() {
                file = at.as_ref().and_then(|c| c.name().map(str::to_string));
            }
            json!({
                "label": l.label(),
                "line": at.as_ref().map(|c| c.line() + 1),
                "column": at.as_ref().map(|c| c.column() + 1),
                "offset": l.offset(),
                "length": l.len(),
            })
        })
        .collect();
    let severity = match d.severity() {
        Some(miette::Severity::Warning) => "warning",
        Some(miette::Severity::Advice) => "advice",
        _ => "error",
    };
    json!({
        "severity": severity,
        "code": d.code().map(|c| c.to_string()),
        "message": d.to_string(),
        "file": file,
        "line": labels.first().and_then(|l| l["line"].as_u64()),
        "column": labels.first().and_then(|l| l["column"].as_u64()),
        "labels": labels,
        "help": d.help().map(|h| h.to_string()),
    })
}

/// A case's moves that do not hold (`puzzle verify`), located in the
/// solution file.
#[derive(Debug, Error, Diagnostic, Clone)]
pub enum VerifyError {
    #[error("case {case}: step {step} cannot be taken")]
    #[diagnostic(
        code(puzzle::verify::illegal),
        help("the steps before it are legal; `puzzle run --moves` prints a way that holds")
    )]
    Illegal {
        case: usize,
        step: usize,
        #[label("{why}")]
        span: SourceSpan,
        why: String,
    },

    #[error("case {case}: the moves end on no goal")]
    #[diagnostic(
        code(puzzle::verify::no_goal),
        help("every step is legal, but the state they reach is not a goal")
    )]
    NoGoal {
        case: usize,
        #[label("after these {steps} steps")]
        span: SourceSpan,
        steps: usize,
    },

    #[error("case {case}: the moves cost {cost}, the least is {least}")]
    #[diagnostic(
        code(puzzle::verify::not_optimal),
        help("`puzzle run --moves` prints a way of the least cost")
    )]
    NotOptimal {
        case: usize,
        #[label("a way of cost {cost}")]
        span: SourceSpan,
        cost: Cost,
        least: Cost,
    },

    #[error("case {case}: `-` says there is no way, but one costs {least}")]
    #[diagnostic(
        code(puzzle::verify::way_exists),
        help("`puzzle run --moves` prints it")
    )]
    WayExists {
        case: usize,
        #[label("no way, it says")]
        span: SourceSpan,
        least: Cost,
    },

    #[error("case {case} has no line of moves")]
    #[diagnostic(
        code(puzzle::verify::missing),
        help("the solution file has a line per case, in order: `puzzle run --moves` writes it")
    )]
    Missing {
        case: usize,
        #[label("the file ends here, after {lines} lines")]
        span: SourceSpan,
        lines: usize,
    },

    #[error("the solution file is not text: {what}")]
    #[diagnostic(
        code(puzzle::verify::not_text),
        help(
            "a solution file is a line of move names per case, in UTF-8, as `puzzle run --moves` \
             writes it: is this the right file?"
        )
    )]
    NotText {
        #[label("{label}")]
        span: SourceSpan,
        what: String,
        label: String,
    },

    #[error("the solution file has more lines than the input has cases ({cases})")]
    #[diagnostic(
        code(puzzle::verify::extra),
        help("is it the solution of another input?")
    )]
    Extra {
        cases: usize,
        #[label("no case for this line")]
        span: SourceSpan,
    },
}

#[cfg(test)]
mod topic_tests {
    use super::Topic;

    /// Each topic has a code of its own, `puzzle::resolve::` and a word.
    #[test]
    fn topics_have_codes_of_their_own() {
        let mut codes: Vec<&str> = Topic::ALL.iter().map(|t| t.code()).collect();
        for c in &codes {
            let word = c
                .strip_prefix("puzzle::resolve::")
                .expect("a resolver's code");
            assert!(
                word.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'),
                "{c}"
            );
        }
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Topic::ALL.len());
    }
}

/// A way's cost as `verify` speaks of it: one number, or amounts of the
/// parts of a cost (`2 pushes, 5 walks`), compared in order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cost {
    amounts: Vec<u64>,
    /// The parts' names (empty: one number).
    names: Vec<String>,
}

impl Cost {
    /// The cost `amounts`, of the parts `names` (none: one number).
    pub fn of(names: &[String], amounts: Vec<u64>) -> Cost {
        Cost {
            amounts,
            names: names.to_vec(),
        }
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.names.is_empty() {
            return write!(f, "{}", self.amounts.first().copied().unwrap_or(0));
        }
        let shown: Vec<String> = self
            .amounts
            .iter()
            .zip(&self.names)
            .map(|(a, n)| format!("{a} {n}"))
            .collect();
        write!(f, "{}", shown.join(", "))
    }
}
