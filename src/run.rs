//! Driving a whole input file: read each case, solve it, print its answer
//! with the rules' output templates. The answers of the cases before a bad
//! one are printed (and flushed) before the error is returned.

use crate::error::{Diagnostics, InputError};
use crate::input::{RawCase, Reader};
use crate::plan::Layout;
use crate::resolve::Rules;
use crate::task::Task;
use miette::NamedSource;
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
}

/// Whether a space is a map character of these rules (then trailing spaces
/// in a row are cells, not padding).
pub fn space_is_cell(rules: &Rules) -> bool {
    rules.legend.contains_key(" ")
}

/// Reads `input` case by case and calls `each` on batches of up to `batch`
/// cases, in order; a malformed case stops the loop with a report naming it
/// (the cases read before it are handed over first). `each` returns the
/// errors of the first bad case of its batch, with that case's number.
fn for_each_batch(
    rules: &Rules,
    input_name: &str,
    input: &str,
    opts: &Options,
    batch: usize,
    mut each: impl FnMut(&[RawCase]) -> Result<(), (Vec<InputError>, usize)>,
) -> Result<(), RunError> {
    let src = || NamedSource::new(input_name, input.to_string());
    let fail = |errors: Vec<InputError>, n: usize| {
        let what = format!("{input_name} (case {n})");
        RunError::Input(Diagnostics::new(src(), errors, &what))
    };
    let bare = match &opts.bare {
        None => None,
        Some(given) => Some(
            header_from(rules, given).map_err(|e| Diagnostics::new(src(), vec![e], input_name))?,
        ),
    };
    let mut reader = Reader::new(&rules.io, input, space_is_cell(rules), bare);
    let mut cases = Vec::with_capacity(batch);
    loop {
        let (stop, bad) = match reader.next_case() {
            Some(Ok(case)) => {
                cases.push(case);
                (false, None)
            }
            Some(Err(e)) => (true, Some(fail(vec![e], reader.case_number()))),
            None => (true, None),
        };
        if !cases.is_empty() && (stop || cases.len() == batch) {
            each(&cases).map_err(|(e, n)| fail(e, n))?;
            cases.clear();
        }
        if stop {
            return bad.map_or(Ok(()), Err);
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
) -> Result<(), RunError> {
    let mut written: std::io::Result<()> = Ok(());
    let write = |out: &mut W,
                 case: &RawCase,
                 outcome: &crate::solution::Solution,
                 secs: f64|
     -> std::io::Result<()> {
        if case.number > 1
            && let Some(sep) = &rules.io.separator
        {
            writeln!(out, "{}", sep.render(case.number, None, &case.header))?;
        }
        if let Some(b) = &rules.io.before {
            writeln!(out, "{}", b.render(case.number, None, &case.header))?;
        }
        let line = match outcome.cost {
            Some(n) => rules.io.solved.render(case.number, Some(n), &case.header),
            None => rules.io.unsolved.render(case.number, None, &case.header),
        };
        writeln!(out, "{line}")?;
        if opts.stats {
            // The answer first, then its statistics.
            out.flush()?;
            eprintln!(
                "case {}: {}, expanded {}, visited {}, {secs:.3} s, {:.2} M states/s",
                case.number,
                outcome
                    .cost
                    .map_or("unsolved".to_string(), |n| format!("{n} steps")),
                outcome.expanded,
                outcome.visited,
                outcome.expanded as f64 / secs.max(1e-9) / 1e6
            );
        }
        Ok(())
    };
    let solve = |case: &RawCase| {
        let clock = std::time::Instant::now();
        crate::solve(rules, case, opts.search).map(|o| (o, clock.elapsed().as_secs_f64()))
    };
    // Enough cases a batch to keep every thread busy while one case is
    // slower than the rest; one at a time on one thread.
    let threads = opts.search.threads.max(1);
    let batch = if threads == 1 { 1 } else { threads * 4 };
    for_each_batch(rules, input_name, input, opts, batch, |cases| {
        let solved: Vec<_> = if cases.len() == 1 {
            vec![solve(&cases[0])]
        } else {
            use rayon::prelude::*;
            cases.par_iter().map(solve).collect()
        };
        // The answers up to the first bad case, flushed before its report.
        let mut bad = None;
        for (case, result) in cases.iter().zip(solved) {
            match result {
                Ok((outcome, secs)) if written.is_ok() => {
                    written = write(out, case, &outcome, secs);
                }
                Ok(_) => {}
                Err(e) => {
                    bad = Some((e, case.number));
                    break;
                }
            }
        }
        if written.is_ok() {
            written = out.flush();
        }
        bad.map_or(Ok(()), Err)
    })?;
    Ok(written?)
}

/// Writes, for each case, how it is compiled and searched: the packed
/// layout, the state-space bound, the visited store and the strategy.
pub fn explain(
    rules: &Rules,
    input_name: &str,
    input: &str,
    opts: &Options,
    out: &mut impl Write,
) -> Result<(), RunError> {
    let mut text = String::new();
    for_each_batch(rules, input_name, input, opts, 1, |cases| {
        for case in cases {
            text.push_str(&describe(rules, case, opts.search).map_err(|e| (e, case.number))?);
        }
        Ok(())
    })?;
    out.write_all(text.as_bytes())?;
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

/// The error for a state that does not fit the widest word.
pub fn too_wide(case: &RawCase, task: &Task, layout: &Layout) -> InputError {
    let parts: Vec<String> = layout
        .order()
        .iter()
        .map(|&v| (task.var(v).name(), layout.field(v).bits))
        .filter(|(_, bits)| *bits > 0)
        .map(|(name, bits)| format!("{name} {bits} bits"))
        .collect();
    InputError::TooWide {
        message: format!(
            "the state of case {} needs {} bits, more than the {} the engine packs",
            case.number,
            layout.bits(),
            crate::plan::MAX_BITS
        ),
        span: case.span(),
        help: format!("bits per part: {}", parts.join(", ")),
    }
}

/// How one case is grounded and would be searched, in words (for
/// `puzzle explain`).
pub fn describe(
    rules: &Rules,
    case: &RawCase,
    config: crate::plan::Config,
) -> Result<String, Vec<InputError>> {
    let task = crate::task::ground(rules, case)?;
    let plan = crate::plan::plan(&task, config).map_err(|w| vec![too_wide(case, &task, &w.0)])?;
    Ok(format!(
        "case {}: {} x {} map\n{}",
        case.number,
        case.rows,
        case.cols,
        plan.describe(&task)
    ))
}
