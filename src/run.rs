//! Driving a whole input file: read each case, solve it, print its answer
//! with the rules' output templates. Each answer is written and flushed as
//! soon as it and every answer before it are known, whatever the number of
//! threads, so a run that is stopped or killed leaves every finished answer
//! on stdout, in order. The answers of the cases before a bad one are
//! printed before its report.

use crate::Answer;
use crate::error::{Diagnostics, InputError, Source, VerifyError};
use crate::input::{RawCase, Reader};
use crate::resolve::Rules;
use crate::show::Walk;
use crate::solution::Solution;
use std::io::Write;

/// Why a run stopped early.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum RunError {
    /// The input (or a map in it) is malformed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Input(#[from] Diagnostics<InputError>),
    /// Writing the answers failed.
    #[error("cannot write the answers: {0}")]
    #[diagnostic(code(puzzle::io::write))]
    Write(#[from] std::io::Error),
}

impl RunError {
    /// A resource limit of the engine was hit (as opposed to a malformed
    /// input): the state cannot be packed, or too many agents move at once.
    pub fn is_resource_limit(&self) -> bool {
        match self {
            RunError::Input(d) => d
                .errors
                .iter()
                .all(|e| matches!(e, InputError::TooWide { .. })),
            RunError::Write(_) => false,
        }
    }
}

/// Options of a run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The input is one bare grid; header values are given here by name.
    /// Grid sizes not given are taken from the grid.
    pub bare: Option<Vec<(String, i64)>>,
    /// Print search statistics for each case to stderr.
    pub stats: bool,
    /// The search strategy and threads.
    pub search: crate::search::Config,
    /// What each case may spend.
    pub limits: crate::budget::Limits,
    /// Print each case's moves instead of its answer (see [`crate::trace`]).
    pub moves: bool,
    /// Print each case's way after its answer, the board redrawn at every
    /// step (see [`crate::show::Walk::boards`]).
    pub trace: bool,
    /// How the answers are written.
    pub format: Format,
    /// Show a case's progress on stderr once it has run for half a second
    /// (for a terminal: see [`crate::progress`]).
    pub progress: bool,
    /// Write warnings about a case to stderr (a map on which no state is a
    /// goal); `puzzle test` compares outputs and leaves them out.
    pub warn: bool,
    /// Only this case of the input (from 1; `--case N`): the cases before
    /// it are read, not solved, and reading stops after it.
    pub case: Option<usize>,
    /// `explain --why`: after each plan, the states reachable from the
    /// start, explored (see [`crate::why`]).
    pub why: bool,
}

/// Whether a space is a map character of these rules (then trailing spaces
/// in a row are cells, not padding).
pub fn space_is_cell(rules: &Rules) -> bool {
    rules.legend.contains_key(" ")
}

/// An input file as read: the text the cases are read from, and what
/// reports show. A file that is not UTF-8 is read up to the line of its
/// first bad byte; the cases before it are solved, then the byte is
/// reported. A byte-order mark at the start is skipped.
pub struct Input {
    name: String,
    /// What reports show (bad bytes replaced); cases are read from its
    /// first `readable` bytes: all of it, or the lines before a bad byte.
    /// One copy of the text serves both.
    shown: Source,
    readable: usize,
    /// The offset of the first byte that is not UTF-8.
    bad: Option<usize>,
}

impl Input {
    /// An input from its bytes, kept as they are when they are UTF-8 (a
    /// large input is not copied).
    pub fn from_bytes(name: &str, mut bytes: Vec<u8>) -> Input {
        if bytes.starts_with(crate::mapped::BOM) {
            bytes.drain(..crate::mapped::BOM.len());
        }
        match String::from_utf8(bytes) {
            Ok(text) => Input {
                name: name.to_string(),
                readable: text.len(),
                shown: Source::owning(name, text),
                bad: None,
            },
            Err(e) => {
                let bad = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let readable = bytes[..bad]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                // The bytes before the bad one are UTF-8, and replacing bad
                // bytes leaves them as they are.
                let shown = String::from_utf8_lossy(&bytes).into_owned();
                Input {
                    name: name.to_string(),
                    readable,
                    shown: Source::owning(name, shown),
                    bad: Some(bad),
                }
            }
        }
    }

    /// The input file at `path`: mapped when it is large
    /// ([`crate::mapped`]), else read.
    pub fn open(name: &str, path: &std::path::Path) -> std::io::Result<Input> {
        let mut file = std::fs::File::open(path)?;
        if let Some(map) = crate::mapped::Mapped::open(&file) {
            return Ok(Input {
                name: name.to_string(),
                readable: map.text().len(),
                shown: Source::mapped(name, map),
                bad: None,
            });
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes)?;
        Ok(Input::from_bytes(name, bytes))
    }

    /// An input from its text.
    pub fn from_text(name: &str, text: &str) -> Input {
        Input::from_bytes(name, text.as_bytes().to_vec())
    }

    /// The text cases are read from.
    fn text(&self) -> &str {
        &self.shown.text()[..self.readable]
    }

    /// The report of the first bad byte, if there is one.
    fn encoding_error(&self) -> Option<InputError> {
        self.bad.map(|at| InputError::Encoding {
            span: (at, 1).into(),
        })
    }

    /// The reports of a case (or of the input), located in it.
    pub fn fail(&self, errors: Vec<InputError>, case: Option<usize>) -> RunError {
        let what = match case {
            Some(n) => format!("{} (case {n})", self.name),
            None => self.name.clone(),
        };
        RunError::Input(Diagnostics::new(self.shown.clone(), errors, &what))
    }
}

/// The cases of an input, in order, then the error that stops reading, if
/// any. A file whose bytes stop being UTF-8 stops at the bad byte: the
/// reader's complaint about a case cut short there is that byte's.
fn cases<'a>(
    rules: &'a Rules,
    input: &'a Input,
    opts: &Options,
) -> Result<impl Iterator<Item = Result<RawCase, RunError>> + 'a, RunError> {
    let bare = match &opts.bare {
        None => None,
        Some(given) => Some(header_from(rules, given).map_err(|e| input.fail(vec![e], None))?),
    };
    let mut reader = Reader::new(&rules.io, input.text(), space_is_cell(rules), bare);
    let mut done = false;
    let only = opts.case;
    Ok(std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut next = reader.next_case();
        // `--case N`: the cases before N are read past.
        while let (Some(n), Some(Ok(case))) = (only, &next)
            && case.number < n
        {
            next = reader.next_case();
        }
        if matches!(next, Some(Ok(_))) && only.is_some() {
            done = true;
        }
        let n = reader.case_number();
        // What the reader has passed is read: only reports go back there.
        input.shown.release(reader.offset());
        match next {
            Some(Ok(case)) => Some(Ok(case)),
            Some(Err(e)) => {
                done = true;
                let cut_short = matches!(
                    e,
                    InputError::Truncated { .. } | InputError::FewerCases { .. }
                );
                let e = match input.encoding_error() {
                    Some(bad) if cut_short => bad,
                    _ => e,
                };
                Some(Err(input.fail(vec![e], Some(n))))
            }
            None => {
                done = true;
                let missed = only.map(|asked| {
                    let given = n - 1;
                    let end = input.text().len();
                    InputError::NoSuchCase {
                        asked,
                        given: format!("{given} case{}", if given == 1 { "" } else { "s" }),
                        span: (end.saturating_sub(1), usize::from(end > 0)).into(),
                    }
                });
                (input.encoding_error().or(missed)).map(|e| Err(input.fail(vec![e], None)))
            }
        }
    }))
}

/// Takes a case off the progress display when it is done, however it
/// ends.
struct Unwatch<'a>(&'a crate::progress::Progress, usize);

impl Drop for Unwatch<'_> {
    fn drop(&mut self) {
        self.0.unwatch(self.1);
    }
}

/// Solves each case of `input` (several at a time on several threads) and
/// hands the results to `each` in the order of the cases, each as soon as
/// it and all before it are done. Stops at the first case that cannot be
/// read or grounded, after handing over every case before it.
fn solve_in_order(
    rules: &Rules,
    input: &Input,
    opts: &Options,
    mut each: impl FnMut(&RawCase, Answer, f64) -> std::io::Result<()>,
) -> Result<(), RunError> {
    let progress = crate::progress::Progress::new(opts.progress);
    let solve = |case: &mut RawCase| {
        let clock = std::time::Instant::now();
        let budget = std::sync::Arc::new(crate::budget::Budget::new(opts.limits));
        progress.watch(case.number, &budget);
        let _done = Unwatch(&progress, case.number);
        let show = crate::Show {
            moves: opts.moves || opts.trace,
        };
        // `--stats` counts the successors: the plan meters every expansion.
        let config = crate::plan::Config {
            count: opts.stats,
            ..opts.search
        };
        let sol = match crate::solve(rules, case, config, show, &budget) {
            // A case beyond the engine's size is stopped, as a limit stops
            // it: the run goes on with the next case.
            Err(errors) if errors.iter().all(InputError::is_engine_limit) => {
                let report = input.fail(errors, Some(case.number));
                Answer {
                    solution: refused(report, opts.format),
                    walk: None,
                }
            }
            other => other?,
        };
        Ok((sol, clock.elapsed().as_secs_f64()))
    };
    let threads = opts.search.threads.max(1);
    let mut cases = cases(rules, input, opts)?;
    let interrupted = || crate::budget::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed);
    if threads == 1 {
        for case in cases.by_ref() {
            let mut case = case?;
            let (sol, secs) = solve(&mut case).map_err(|e| input.fail(e, Some(case.number)))?;
            each(&case, sol, secs)?;
            if interrupted() {
                break;
            }
        }
        return Ok(());
    }
    // Enough cases in flight to keep every thread busy while one case is
    // slower than the rest.
    let window = threads * 4;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut outcome = Ok(());
    rayon::in_place_scope(|scope| {
        let mut pending = std::collections::BTreeMap::new();
        let (mut sent, mut next) = (0usize, 0usize);
        let mut read_error = None;
        loop {
            // Keep the window full while there are cases to read.
            while read_error.is_none() && !interrupted() && sent - next < window {
                match cases.next() {
                    Some(Ok(mut case)) => {
                        let tx = tx.clone();
                        let solve = &solve;
                        let i = sent;
                        scope.spawn(move |_| {
                            // A panic is a bug, but it must not leave the
                            // loop below waiting for this answer for ever:
                            // it is sent, and raised again there.
                            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                solve(&mut case)
                            }));
                            // The receiver outlives every task of the scope.
                            let _ = tx.send((i, case, r));
                        });
                        sent += 1;
                    }
                    Some(Err(e)) => read_error = Some(e),
                    None => break,
                }
            }
            if next == sent {
                break;
            }
            let (i, case, r) = rx.recv().expect("a task answers before the scope ends");
            let r = r.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pending.insert(i, (case, r));
            // Hand over every answer whose turn has come.
            while let Some((case, r)) = pending.remove(&next) {
                next += 1;
                let handed = match r {
                    Ok((sol, secs)) => each(&case, sol, secs).map_err(RunError::from),
                    Err(e) => Err(input.fail(e, Some(case.number))),
                };
                if let Err(e) = handed {
                    outcome = Err(e);
                    return;
                }
                if interrupted() {
                    return;
                }
            }
        }
        if let Some(e) = read_error {
            outcome = Err(e);
        }
    });
    outcome
}

/// What `puzzle render` found of a case.
#[derive(Debug)]
pub enum Rendered {
    /// A least-cost way.
    Way(Box<crate::show::Walk>),
    /// The case has no way to a goal.
    NoWay,
    /// A limit stopped its search.
    Stopped(crate::budget::Stopped),
    /// The input has fewer cases.
    NoCase(usize),
}

/// Solves case `n` (from 1) of `input` and shows its way.
pub fn render_case(
    rules: &Rules,
    input: &Input,
    opts: &Options,
    n: usize,
) -> Result<Rendered, RunError> {
    let mut case = match nth_case(rules, input, opts, n)? {
        Ok(case) => case,
        Err(read) => return Ok(Rendered::NoCase(read)),
    };
    let budget = crate::budget::Budget::new(opts.limits);
    let show = crate::Show { moves: true };
    let sol = crate::solve(rules, &mut case, opts.search, show, &budget)
        .map_err(|e| input.fail(e, Some(n)))?;
    Ok(match (sol.solution.stopped, sol.walk) {
        (Some(st), _) => Rendered::Stopped(st),
        (None, Some(w)) => Rendered::Way(Box::new(w)),
        (None, None) => Rendered::NoWay,
    })
}

/// Case `n` of an input (from 1), read; the number of cases there are,
/// when it has fewer.
pub fn nth_case(
    rules: &Rules,
    input: &Input,
    opts: &Options,
    n: usize,
) -> Result<Result<RawCase, usize>, RunError> {
    let mut read = 0;
    for case in cases(rules, input, opts)? {
        let case = case?;
        read = case.number;
        if case.number == n {
            return Ok(Ok(case));
        }
    }
    Ok(Err(read))
}

/// What `puzzle verify` found: cases whose moves hold, and those that do
/// not, each with its report located in the solution file.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    pub good: usize,
    pub bad: usize,
    /// Cases a limit stopped.
    pub stopped: usize,
    /// Why each bad case fails, in the solution file.
    pub errors: Vec<crate::error::VerifyError>,
}

/// The lines of a text with the byte offset of each.
/// A solution file's bytes as the text `verify` reads, or the report that
/// it is not text: a byte that is not UTF-8, or a control character other
/// than a tab or a line break (a binary file, whose bytes would otherwise
/// be read as move names). A byte-order mark is skipped.
pub fn moves_text(name: &str, bytes: &[u8]) -> Result<String, Diagnostics<VerifyError>> {
    let bytes = crate::mapped::strip_bom(bytes);
    let fail = |text: &str, at: usize, what: String, label: &str| {
        let e = VerifyError::NotText {
            span: (at, 1).into(),
            what,
            label: label.into(),
        };
        Diagnostics::new(Source::new(name, text), vec![e], name)
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            // The bytes before the bad one are UTF-8, and replacing bad
            // bytes leaves them as they are.
            let at = e.valid_up_to();
            let what = format!("byte {} is 0x{:02X}, which is not UTF-8", at, bytes[at]);
            return Err(fail(&String::from_utf8_lossy(bytes), at, what, "not UTF-8"));
        }
    };
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| crate::error::is_hidden_control(c))
    {
        let what = format!("it holds the control character {c:?}");
        return Err(fail(text, at, what, "a control character"));
    }
    Ok(text.to_string())
}

fn lines_at(text: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|l| {
            let line = (at, l.trim_end_matches(['\n', '\r']));
            at += l.len();
            line
        })
        .collect()
}

/// The span of the `i`-th whitespace-separated token of a line starting at
/// byte `at`.
fn token_span(at: usize, line: &str, i: usize) -> miette::SourceSpan {
    let mut tokens = line
        .char_indices()
        .filter(|&(j, c)| {
            !c.is_whitespace()
                && line[..j]
                    .chars()
                    .next_back()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(j, _)| j);
    let start = tokens.nth(i).unwrap_or(0);
    let len = line[start..]
        .find(char::is_whitespace)
        .unwrap_or(line.len() - start);
    (at + start, len.max(1)).into()
}

/// Writes what `verify` says of a case (or, with no case, of the file):
/// `case N: ...`, or with `--format json` an object with the fields
/// `case`, `ok`, `verdict` (`ok`, `illegal`, `no-goal`, `not-optimal`,
/// `way-exists`, `missing`, `extra`, `stopped`) and `message`.
fn verdict_line<W: Write>(
    out: &mut W,
    opts: &Options,
    case: Option<usize>,
    error: Option<&crate::error::VerifyError>,
    said: &str,
) -> std::io::Result<()> {
    use crate::error::VerifyError as E;
    if opts.format == Format::Text {
        return match case {
            Some(n) => writeln!(out, "case {n}: {said}"),
            None => writeln!(out, "{said}"),
        };
    }
    let verdict = match error {
        None if said.starts_with('?') => "stopped",
        None => "ok",
        Some(E::Illegal { .. }) => "illegal",
        Some(E::NoGoal { .. }) => "no-goal",
        Some(E::NotOptimal { .. }) => "not-optimal",
        Some(E::WayExists { .. }) => "way-exists",
        Some(E::Missing { .. }) => "missing",
        Some(E::Extra { .. }) => "extra",
        Some(E::NotText { .. }) => "not-text",
    };
    let json = serde_json::json!({
        "case": case,
        "ok": error.is_none() && verdict == "ok",
        "verdict": verdict,
        "message": said,
    });
    writeln!(out, "{json}")
}

/// Checks each case's line of `moves` (the output of `run --moves`) and
/// writes a line per case to `out`.
pub fn verify_input<W: Write>(
    rules: &Rules,
    input: &Input,
    moves: &str,
    opts: &Options,
    out: &mut W,
) -> Result<Verified, RunError> {
    use crate::error::VerifyError as E;
    let lines = lines_at(moves);
    let mut v = Verified::default();
    let mut cases_read = 0;
    for case in cases(rules, input, opts)? {
        let case = case?;
        let n = case.number;
        cases_read = n;
        // With `--case N`, a file of one line is that case's; a longer one
        // is the whole input's, a line a case.
        let line_of = if opts.case.is_some() && lines.len() == 1 {
            1
        } else {
            n
        };
        let Some(&(at, line)) = lines.get(line_of - 1) else {
            let e = E::Missing {
                case: n,
                span: (moves.len(), 0).into(),
                lines: lines.len(),
            };
            let said = format!("no moves (the solution file has {} lines)", lines.len());
            verdict_line(out, opts, Some(n), Some(&e), &said)?;
            v.bad += 1;
            v.errors.push(e);
            continue;
        };
        let whole: miette::SourceSpan = (at, line.len().max(1)).into();
        let budget = crate::budget::Budget::new(opts.limits);
        let verdict = crate::verify(rules, &case, opts.search, line, &budget)
            .map_err(|e| input.fail(e, Some(n)))?;
        use crate::Verdict::*;
        let (error, said) = match verdict {
            Optimal { steps, cost } => (
                None,
                format!("ok: {steps} steps reach a goal at cost {cost}, the least"),
            ),
            NoWay => (None, "ok: no way to a goal, as `-` says".to_string()),
            NotOptimal { cost, least } => {
                let said = format!(
                    "not optimal: the moves reach a goal at cost {cost}, the least is {least}"
                );
                let e = E::NotOptimal {
                    case: n,
                    span: whole,
                    cost,
                    least,
                };
                (Some(e), said)
            }
            NoGoal { steps } => (
                Some(E::NoGoal {
                    case: n,
                    span: whole,
                    steps,
                }),
                format!("no goal: the {steps} steps are legal but end on no goal"),
            ),
            Illegal { step, token, why } => (
                Some(E::Illegal {
                    case: n,
                    step: step + 1,
                    span: token_span(at, line, step),
                    why: why.clone(),
                }),
                format!(
                    "illegal: step {} (`{}`): {why}",
                    step + 1,
                    crate::error::raw(&token)
                ),
            ),
            WayExists { least } => {
                let said = format!("wrong: `-` says no way, but one costs {least}");
                let e = E::WayExists {
                    case: n,
                    span: whole,
                    least,
                };
                (Some(e), said)
            }
            Stopped => {
                v.stopped += 1;
                let said = "? (a limit stopped the search for the least cost)";
                verdict_line(out, opts, Some(n), None, said)?;
                continue;
            }
        };
        verdict_line(out, opts, Some(n), error.as_ref(), &said)?;
        match error {
            None => v.good += 1,
            Some(e) => {
                v.bad += 1;
                v.errors.push(e);
            }
        }
    }
    // With `--case N`, the lines after N are other cases'.
    if let Some(&(at, line)) = lines.get(cases_read).filter(|_| opts.case.is_none()) {
        let e = E::Extra {
            cases: cases_read,
            span: (at, line.len().max(1)).into(),
        };
        let said = "the solution file has more lines than the input has cases";
        verdict_line(out, opts, None, Some(&e), said)?;
        v.bad += 1;
        v.errors.push(e);
    }
    out.flush()?;
    Ok(v)
}

/// How a run ended, when it read its whole input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Cases a limit stopped (each printed its `stopped` line).
    pub stopped: usize,
    /// An interrupt (Ctrl-C) ended the run: the case it stopped, or (when
    /// it came between two cases) the last case answered.
    pub interrupted: Option<Interrupted>,
}

/// Where an interrupt ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    During(usize),
    After(usize),
}

/// What stderr says of a case a limit stopped.
fn say_stopped(
    case: &RawCase,
    st: &crate::budget::Stopped,
    limits: &crate::budget::Limits,
    refused: bool,
) -> std::io::Result<()> {
    let limit = st.limit.describe(limits);
    let memory = crate::budget::size(st.memory);
    // A case refused before its search has its report above; one the
    // engine's size stopped during its search (a total cost past 32 bits)
    // is said as any limit is.
    if refused {
        return writeln!(
            std::io::stderr(),
            "puzzle: case {} stopped before its search: it is beyond the engine's size (the \
             report above says why); the run goes on",
            case.number
        );
    }
    match st.before_search {
        Some(need) => writeln!(
            std::io::stderr(),
            "puzzle: case {} stopped by {limit} before its search: its map of {} \
             cells needs about {} more, and {memory} is in use",
            case.number,
            case.rows * case.cols,
            crate::budget::size(need),
        ),
        None => writeln!(
            std::io::stderr(),
            "puzzle: case {} stopped by {limit}, at depth {} with {} states seen (the process \
             held at most {memory} in memory)",
            case.number,
            st.depth,
            st.states,
        ),
    }
}

/// The solution of a case beyond the engine's size: stopped, with its
/// located report rendered as the run's other reports are.
fn refused(report: RunError, format: Format) -> Solution {
    let text = match format {
        Format::Json => crate::error::json(&report)
            .iter()
            .map(|j| format!("{j}\n"))
            .collect(),
        Format::Text => format!("{:?}\n", miette::Report::new(report)),
    };
    let memory = crate::budget::resident();
    Solution {
        stopped: Some(crate::budget::Stopped {
            limit: crate::budget::Limit::Engine,
            depth: 0,
            states: 0,
            memory,
            before_search: None,
        }),
        refused: Some(text),
        ..Default::default()
    }
}

/// A case whose map makes the goal impossible is answered by the
/// `unsolved` line, and stderr says why (a JSON line with `--format json`):
/// most often a goal on a tile that this map does not have.
fn say_goal_never(case: &RawCase, format: Format) -> std::io::Result<()> {
    let message = format!(
        "case {}: no state of this map is a goal (no cell of it can satisfy the goal, or the \
         limit allows no step): the case is unsolved without a search",
        case.number
    );
    let mut err = std::io::stderr().lock();
    match format {
        Format::Json => {
            let json = serde_json::json!({
                "severity": "warning",
                "code": "puzzle::run::goal_never",
                "case": case.number,
                "message": message,
            });
            writeln!(err, "{json}")
        }
        Format::Text => writeln!(err, "puzzle: warning: {message}"),
    }
}

/// How answers are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// The rule file's output lines.
    #[default]
    Text,
    /// One JSON object a line per case ([`CaseJson`]).
    Json,
}

/// What a search took, for `--stats`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Stats {
    pub expanded: u64,
    pub generated: u64,
    pub visited: u64,
    /// The most states waiting at once.
    pub frontier: u64,
    pub depth: u64,
    pub seconds: f64,
    /// States expanded per second.
    pub states_per_second: f64,
    /// The process's peak resident memory so far, in bytes.
    pub peak_memory: u64,
}

impl Stats {
    fn of(sol: &Solution, secs: f64) -> Stats {
        Stats {
            expanded: sol.expanded,
            generated: sol.generated,
            visited: sol.visited,
            frontier: sol.frontier,
            depth: sol.depth,
            seconds: secs,
            states_per_second: sol.expanded as f64 / secs.max(1e-9),
            peak_memory: crate::budget::peak(),
        }
    }
}

/// A case's line of `--format json`. The field names are stable.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseJson<'a> {
    /// The case's number, from 1.
    pub case: usize,
    /// `solved`, `unsolved` (no way to a goal) or `stopped` (by a limit).
    pub status: &'static str,
    /// The least cost, when solved (its first part, where it has parts).
    pub cost: Option<u64>,
    /// Where costs have parts (`minimise`): the least cost, part by part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<&'a [u64]>,
    /// The line the rule file's output block gives for the case.
    pub answer: String,
    /// With `--moves` or `--trace`: the tokens of a least-cost way (null
    /// when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Option<&'a [String]>>,
    /// With `--trace`: the way, state by state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<&'a crate::show::Walk>,
    /// When stopped: which limit, and how far the search got.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StoppedJson>,
    /// With `--stats`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
}

/// Where a limit stopped a case.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoppedJson {
    /// `states`, `memory`, `time`, `interrupt`, `system-memory` or `engine`.
    pub limit: &'static str,
    /// The limit in words.
    pub message: String,
    pub depth: u64,
    pub states: u64,
    /// The most the process had held in memory by then, in bytes.
    pub memory: u64,
    /// When it stopped before its search: the memory its map needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_search: Option<u64>,
}

impl<'a> CaseJson<'a> {
    fn of(
        case: &RawCase,
        sol: &'a Solution,
        walk: Option<&'a Walk>,
        answer: String,
        opts: &Options,
        stats: Option<Stats>,
    ) -> Self {
        use crate::budget::Limit;
        let status = match (&sol.stopped, sol.cost) {
            (Some(_), _) => "stopped",
            (None, Some(_)) => "solved",
            (None, None) => "unsolved",
        };
        let shown = sol.stopped.is_none() && (opts.moves || opts.trace);
        CaseJson {
            case: case.number,
            status,
            cost: sol.cost,
            parts: sol.parts.as_deref(),
            answer,
            moves: shown.then(|| walk.map(|w| &w.steps[..])),
            trace: if opts.trace { walk } else { None },
            stopped: sol.stopped.as_ref().map(|st| StoppedJson {
                limit: match st.limit {
                    Limit::States => "states",
                    Limit::Memory => "memory",
                    Limit::Time => "time",
                    Limit::Interrupted => "interrupt",
                    Limit::NoMemory => "system-memory",
                    Limit::Engine => "engine",
                    Limit::Peers => "peers",
                },
                message: st.limit.describe(&opts.limits),
                depth: st.depth,
                states: st.states,
                memory: st.memory,
                before_search: st.before_search,
            }),
            stats,
        }
    }
}

/// Reads `input`, solves each case and writes the answers to `out`. With
/// several threads, cases are solved several at a time (each answer is
/// still written in order, and is the same at any thread count).
pub fn run<W: Write>(
    rules: &Rules,
    input_name: &str,
    input: &str,
    opts: &Options,
    out: &mut W,
) -> Result<Summary, RunError> {
    run_input(rules, &Input::from_text(input_name, input), opts, out)
}

/// [`run`] on an input as read.
pub fn run_input<W: Write>(
    rules: &Rules,
    input: &Input,
    opts: &Options,
    out: &mut W,
) -> Result<Summary, RunError> {
    let io = &rules.io;
    let mut summary = Summary::default();
    let mut last = 0;
    let mut last_header = Vec::new();
    solve_in_order(rules, input, opts, |case, answer, secs| {
        let Answer {
            solution: sol,
            walk,
        } = answer;
        if let Some(st) = &sol.stopped
            && st.limit == crate::budget::Limit::Interrupted
        {
            // Not an answer: nothing for this case, and the run ends.
            summary.interrupted = Some(Interrupted::During(case.number));
            return Ok(());
        }
        last = case.number;
        last_header.clone_from(&case.header);
        if let Some(st) = &sol.stopped {
            summary.stopped += 1;
            if let Some(report) = &sol.refused {
                // stderr is told what it can be; answers go on regardless.
                let _ = std::io::stderr().lock().write_all(report.as_bytes());
            }
            if opts.format == Format::Text {
                let _ = say_stopped(case, st, &opts.limits, sol.refused.is_some());
            }
        }
        if sol.goal_never && opts.warn {
            let _ = say_goal_never(case, opts.format);
        }
        let answer = answer_line(io, case, &sol);
        let stats = opts.stats.then(|| Stats::of(&sol, secs));
        if opts.format == Format::Json {
            let json = CaseJson::of(case, &sol, walk.as_ref(), answer, opts, stats);
            serde_json::to_writer(&mut *out, &json).map_err(std::io::Error::from)?;
            writeln!(out)?;
            out.flush()?;
            return Ok(());
        }
        // Moves are a line per case and nothing else, as `verify` reads them.
        if !opts.moves {
            if case.number > 1
                && let Some(sep) = &io.separator
            {
                writeln!(
                    out,
                    "{}",
                    sep.render(case.number, Default::default(), &case.header)
                )?;
            }
            if let Some(b) = &io.before {
                writeln!(
                    out,
                    "{}",
                    b.render(case.number, Default::default(), &case.header)
                )?;
            }
        }
        let line = match (&sol.stopped, &walk) {
            // The moves: `?` when stopped, `-` when there is no way.
            (Some(_), _) if opts.moves => "?".to_string(),
            (None, walk) if opts.moves => walk
                .as_ref()
                .map_or_else(|| "-".into(), crate::show::Walk::line),
            _ => answer,
        };
        writeln!(out, "{line}")?;
        if opts.trace && !opts.moves {
            match (&sol.stopped, &walk) {
                (None, Some(walk)) => {
                    let steps = walk.steps.len();
                    let cost = walk.frames.last().map_or(0, |f| f.cost);
                    writeln!(out, "case {}: {steps} steps, cost {cost}", case.number)?;
                    out.write_all(walk.boards().as_bytes())?;
                }
                (None, None) => writeln!(out, "case {}: no way to a goal", case.number)?,
                (Some(_), _) => writeln!(out, "case {}: stopped by a limit", case.number)?,
            }
        }
        // The answer first, then what is said about it.
        out.flush()?;
        if let Some(st) = stats {
            say_stats(case, &sol, &st)?;
        }
        Ok(())
    })?;
    if summary.interrupted.is_none()
        && crate::budget::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed)
    {
        summary.interrupted = Some(Interrupted::After(last));
    }
    // After the last case of a run that went to its end: text, not an
    // answer (so not with `--moves` or JSON).
    if let Some(after) = &io.after
        && summary.interrupted.is_none()
        && !opts.moves
        && opts.format == Format::Text
    {
        writeln!(
            out,
            "{}",
            after.render(last, Default::default(), &last_header)
        )?;
        out.flush()?;
    }
    Ok(summary)
}

/// A case's answer, by the rule file's output lines: solved, unsolved,
/// or stopped.
fn answer_line(io: &crate::resolve::Io, case: &RawCase, sol: &Solution) -> String {
    match (&sol.stopped, sol.cost) {
        (Some(_), _) => io.stopped.as_ref().map_or("?".to_string(), |t| {
            t.render(case.number, Default::default(), &case.header)
        }),
        (None, Some(n)) => {
            let answer = crate::resolve::Answer {
                cost: Some(n),
                steps: sol.steps,
                path: sol.written.as_deref(),
                parts: sol.parts.as_deref().unwrap_or_default(),
            };
            io.solved.render(case.number, answer, &case.header)
        }
        (None, None) => io
            .unsolved
            .render(case.number, Default::default(), &case.header),
    }
}

/// A case's search statistics, on stderr (`--stats`).
fn say_stats(case: &RawCase, sol: &Solution, st: &Stats) -> std::io::Result<()> {
    let cost = sol
        .cost
        .map_or("unsolved".to_string(), |n| format!("cost {n}"));
    writeln!(
        std::io::stderr(),
        "case {}: {cost}, expanded {}, generated {}, visited {}, peak frontier {}, \
         depth {}, {:.3} s, {:.2} M states/s, peak memory {}{}{}",
        case.number,
        st.expanded,
        st.generated,
        st.visited,
        st.frontier,
        st.depth,
        st.seconds,
        st.states_per_second / 1e6,
        crate::budget::size(st.peak_memory),
        sol.ida_from.map_or(String::new(), |f| format!(
            ", A* turned to IDA* at f {f} (near the memory limit)"
        )),
        sol.exchanged.map_or(String::new(), |x| format!(
            ", sent between workers {} ({} in the largest level)",
            crate::budget::size(x.bytes),
            crate::budget::size(x.most)
        )),
    )
}

/// Writes, for each case as it is read, how it would be searched: the
/// plan (see [`describe`]). A bad case is reported after the earlier
/// cases' plans are written.
pub fn explain(
    rules: &Rules,
    input_name: &str,
    input: &str,
    opts: &Options,
    out: &mut impl Write,
) -> Result<(), RunError> {
    explain_input(rules, &Input::from_text(input_name, input), opts, out)
}

/// [`explain`] on an input as read.
pub fn explain_input(
    rules: &Rules,
    input: &Input,
    opts: &Options,
    out: &mut impl Write,
) -> Result<(), RunError> {
    for case in cases(rules, input, opts)? {
        let case = case?;
        let mut text =
            describe(rules, &case, opts.search).map_err(|e| input.fail(e, Some(case.number)))?;
        if opts.why {
            let (said, json) =
                why(rules, &case, opts).map_err(|e| input.fail(e, Some(case.number)))?;
            if opts.format == Format::Json {
                // One line a case: its number, the plan as text, the why.
                let line = serde_json::json!({"case": case.number, "plan": text, "why": json});
                text = format!("{line}\n");
            } else {
                text.push_str(&said);
            }
        }
        out.write_all(text.as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// The header of a bare map, from `--set name=value` pairs.
fn header_from(rules: &Rules, given: &[(String, i64)]) -> Result<Vec<Option<i64>>, InputError> {
    let io = &rules.io;
    let mut header = vec![None; io.header.len()];
    for (name, v) in given {
        match io.header.iter().position(|h| h == name) {
            Some(i) => header[i] = Some(*v),
            None => {
                return Err(InputError::BareHeader {
                    message: format!("`--set {name}=...` names no header field"),
                    span: (0, 0).into(),
                    label: "this map".into(),
                    help: crate::error::did_you_mean(
                        name,
                        io.header.iter().map(String::as_str),
                        "header fields",
                    ),
                });
            }
        }
    }
    let dims: Vec<usize> = [&io.rows, &io.cols]
        .into_iter()
        .flatten()
        .filter_map(|s| match s {
            crate::resolve::Num::Field(i) => Some(*i),
            _ => None,
        })
        .collect();
    let missing: Vec<&str> = (0..header.len())
        .filter(|i| header[*i].is_none() && !dims.contains(i))
        .map(|i| io.header[i].as_str())
        .collect();
    if !missing.is_empty() {
        return Err(InputError::BareHeader {
            message: format!(
                "this bare map needs a value for {}",
                crate::error::quote_list(&missing)
            ),
            span: (0, 0).into(),
            label: "this map".into(),
            help: format!(
                "give it on the command line: {}",
                missing
                    .iter()
                    .map(|m| format!("--set {m}=VALUE"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        });
    }
    Ok(header)
}

/// How one case is grounded and would be searched, in words (for
/// `puzzle explain`).
/// What `explain --why` adds for a case: its reachable states explored
/// within the run's limits, each mover's cells drawn over the map; and the
/// same as JSON.
fn why(
    rules: &Rules,
    case: &RawCase,
    opts: &Options,
) -> Result<(String, serde_json::Value), Vec<InputError>> {
    let task = crate::task::ground(rules, case)?;
    let plan = crate::plan::plan(&task, opts.search).map_err(|w| vec![w.report(case, &task)])?;
    let budget = crate::budget::Budget::new(opts.limits);
    let found = crate::why::why(&task, &plan, &budget);
    let ground = crate::show::ground(rules, case, &task);
    let symbol = |cell: usize| ground[cell].clone();
    let cols = task.board().cols();
    let texts = &rules.goal_part_texts;
    Ok((
        found.describe(cols, &symbol, texts),
        found.json(cols, texts),
    ))
}

pub fn describe(
    rules: &Rules,
    case: &RawCase,
    config: crate::plan::Config,
) -> Result<String, Vec<InputError>> {
    let task = crate::task::ground(rules, case)?;
    let plan = crate::plan::plan(&task, config).map_err(|w| vec![w.report(case, &task)])?;
    let ring = match rules.tiles.iter().find(|t| t.border) {
        Some(t) => format!(", in a ring of `{}`", t.name),
        None => String::new(),
    };
    Ok(format!(
        "case {}: {} x {} map{ring}\n{}",
        case.number,
        case.rows,
        case.cols,
        plan.describe(&task)
    ))
}
