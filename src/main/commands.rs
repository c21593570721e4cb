//! The commands, each a function: its files read, the library called, and
//! how it ended. What they say on stderr is [`crate::say`]'s.

use crate::cli::{Cli, FormatArg};
use crate::say::{Notice, notice, say, stream_failed};
use crate::{Outcome, exit};
use clap::CommandFactory;
use miette::Report;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

fn read(path: &Path) -> Result<(String, Vec<u8>), Report> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    let r = if name == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    r.map_err(|e| miette::miette!(code = "puzzle::io::read", "cannot read {name}: {e}"))?;
    Ok((if name == "-" { "<stdin>".into() } else { name }, bytes))
}

/// Writes `bytes` to stdout: the exit code (a closed pipe is quiet).
fn write_out(bytes: &[u8]) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => exit::OK,
        Err(e) => stream_failed(&e),
    }
}

fn load(path: &Path) -> Result<Result<puzzle::Loaded, Outcome>, Report> {
    let (name, bytes) = read(path)?;
    let loaded = puzzle::load_bytes(&name, &bytes)?;
    for w in &loaded.warnings {
        say(&Report::new(w.clone()).with_source_code(loaded.src.clone()));
    }
    Ok(Ok(loaded))
}

/// [`load`] the rules, then read the input they are run on.
pub fn load_with(
    rules: &Path,
    input: &Path,
) -> Result<Result<(puzzle::Loaded, puzzle::run::Input), Outcome>, Report> {
    let loaded = match load(rules)? {
        Ok(l) => l,
        Err(o) => return Ok(Err(o)),
    };
    let input = if input == Path::new("-") {
        let (name, bytes) = read(input)?;
        puzzle::run::Input::from_bytes(&name, bytes)
    } else {
        let name = input.display().to_string();
        puzzle::run::Input::open(&name, input)
            .map_err(|e| miette::miette!(code = "puzzle::io::read", "cannot read {name}: {e}"))?
    };
    Ok(Ok((loaded, input)))
}

/// The end of a run: a resource limit, an interrupt and a failed stream
/// have codes of their own.
pub fn finish(r: Result<puzzle::run::Summary, puzzle::RunError>) -> Result<Outcome, Report> {
    match r {
        Ok(puzzle::run::Summary {
            interrupted: Some(at),
            ..
        }) => {
            let said = match at {
                puzzle::run::Interrupted::During(n) => {
                    format!("interrupted during case {n}; the answers before it are above")
                }
                puzzle::run::Interrupted::After(n) => {
                    format!("interrupted after case {n}; its answer and those before it are above")
                }
            };
            notice(Notice::Error, "puzzle::run::interrupted", &said);
            Ok(Outcome::Code(exit::INTERRUPTED))
        }
        Ok(s) if s.stopped > 0 => Ok(Outcome::Code(exit::LIMIT)),
        Ok(_) => Ok(Outcome::Code(exit::OK)),
        Err(puzzle::RunError::Write(e)) => Ok(Outcome::Code(stream_failed(&e))),
        Err(e) if e.is_resource_limit() => Ok(Outcome::Report(Report::new(e), exit::LIMIT)),
        Err(e) => Err(e.into()),
    }
}

/// `puzzle run`: every case's answer (or moves, or way) on stdout.
pub fn run(
    rules: &Path,
    input: &Path,
    opts: puzzle::run::Options,
    format: FormatArg,
    quiet: bool,
) -> Result<Outcome, Report> {
    let (loaded, input) = match load_with(rules, input)? {
        Ok(both) => both,
        Err(o) => return Ok(o),
    };
    if opts.search.strategy == puzzle::search::Strategy::Ida && opts.limits.timeout.is_none() {
        // Said before the search: a case with no way would run on silently.
        notice(
            Notice::Note,
            "puzzle::run::ida_without_timeout",
            "--strategy ida without --timeout: IDA* cannot tell that a case has no way to the \
             goal, so such a case runs until it is interrupted",
        );
    }
    let opts = puzzle::run::Options {
        warn: true,
        progress: !quiet && format == FormatArg::Text && std::io::stderr().is_terminal(),
        format: format.into(),
        ..opts
    };
    // Every process of a distributed search finds the same answers: the
    // first prints them (and their statistics).
    let silent = opts.search.cluster.is_some_and(|c| c.process > 0);
    let opts = puzzle::run::Options {
        stats: opts.stats && !silent,
        ..opts
    };
    let stdout = std::io::stdout();
    let mut out: Box<dyn std::io::Write> = if silent {
        Box::new(std::io::sink())
    } else {
        Box::new(std::io::BufWriter::new(stdout.lock()))
    };
    finish(puzzle::run::run_input(
        &loaded.rules,
        &input,
        &opts,
        &mut out,
    ))
}

/// `puzzle explain`: each case's plan.
pub fn explain(rules: &Path, input: &Path, opts: puzzle::run::Options) -> Result<Outcome, Report> {
    let (loaded, input) = match load_with(rules, input)? {
        Ok(both) => both,
        Err(o) => return Ok(o),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let explained = puzzle::run::explain_input(&loaded.rules, &input, &opts, &mut out);
    finish(explained.map(|()| puzzle::run::Summary::default()))
}

/// `puzzle completions SHELL`.
pub fn completions(shell: clap_complete::Shell) -> Outcome {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "puzzle", &mut out);
    Outcome::Code(write_out(&out))
}

/// `puzzle man`.
/// `puzzle man [COMMAND]`: the top page, or a command's (`puzzle-run`).
pub fn man(command: Option<&str>) -> Result<Outcome, Report> {
    let top = Cli::command();
    let page = match command {
        None => top,
        Some(name) => {
            let Some(sub) = top.find_subcommand(name) else {
                let names: Vec<&str> = top.get_subcommands().map(|c| c.get_name()).collect();
                let report = miette::miette!(
                    code = "puzzle::usage",
                    help = format!("the commands are: {}", names.join(", ")),
                    "`{name}` is not a command of puzzle"
                );
                return Ok(Outcome::Report(report, exit::USAGE));
            };
            // The page's name, `puzzle-run`: clap takes a `'static` name, and
            // this is the one page the process prints.
            let page: &'static str = Box::leak(format!("puzzle-{name}").into_boxed_str());
            sub.clone().name(page)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .expect("rendering into memory does not fail");
    Ok(Outcome::Code(write_out(&out)))
}

/// `puzzle test`: each rule file's output against its `.out`.
pub fn test(path: &Path, opts: puzzle::run::Options) -> Result<Outcome, Report> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let files = puzzle::testing::rule_files(path).map_err(|e| {
        miette::miette!(
            code = "puzzle::io::read",
            "cannot read {}: {e}",
            path.display()
        )
    })?;
    Ok(match puzzle::testing::test(&files, &opts, &mut out) {
        Ok(t) if t.failed > 0 => Outcome::Code(exit::WRONG),
        Ok(_) => Outcome::Code(exit::OK),
        Err(e) => Outcome::Code(stream_failed(&e)),
    })
}

/// `puzzle verify`: each case's moves replayed and checked.
pub fn verify(
    rules: &Path,
    input: &Path,
    solution: &Path,
    opts: puzzle::run::Options,
    format: FormatArg,
) -> Result<Outcome, Report> {
    let (loaded, input) = match load_with(rules, input)? {
        Ok(both) => both,
        Err(o) => return Ok(o),
    };
    let (moves_name, moves) = read(solution)?;
    let moves = puzzle::run::moves_text(&moves_name, &moves)?;
    let opts = puzzle::run::Options {
        format: format.into(),
        ..opts
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match puzzle::run::verify_input(&loaded.rules, &input, &moves, &opts, &mut out) {
        Ok(v) if v.bad > 0 => {
            if let Err(e) = out.flush() {
                return Ok(Outcome::Code(stream_failed(&e)));
            }
            let src = puzzle::error::Source::new(&moves_name, &moves);
            let report = puzzle::error::Diagnostics::new(src, v.errors, &moves_name);
            Ok(Outcome::Report(Report::new(report), exit::WRONG))
        }
        Ok(v) if v.stopped > 0 => Ok(Outcome::Code(exit::LIMIT)),
        Ok(_) => Ok(Outcome::Code(exit::OK)),
        Err(puzzle::RunError::Write(e)) => Ok(Outcome::Code(stream_failed(&e))),
        Err(e) if e.is_resource_limit() => Ok(Outcome::Report(Report::new(e), exit::LIMIT)),
        Err(e) => Err(e.into()),
    }
}

/// Where `puzzle render` draws a case's way.
pub struct Drawings {
    pub case: u64,
    pub svg: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// `puzzle render`: a case's way as a picture, a page, or both.
pub fn render(
    rules: &Path,
    input: &Path,
    to: Drawings,
    opts: puzzle::run::Options,
) -> Result<Outcome, Report> {
    let (loaded, input) = match load_with(rules, input)? {
        Ok(both) => both,
        Err(o) => return Ok(o),
    };
    let n = to.case as usize;
    let walk = match puzzle::run::render_case(&loaded.rules, &input, &opts, n) {
        Ok(puzzle::run::Rendered::Way(w)) => w,
        Ok(puzzle::run::Rendered::NoWay) => {
            return Err(miette::miette!(
                code = "puzzle::render::no_way",
                "case {n} has no way to a goal: there is nothing to draw"
            ));
        }
        Ok(puzzle::run::Rendered::Stopped(st)) => {
            let limit = st.limit.describe(&opts.limits);
            return Ok(Outcome::Report(
                miette::miette!(
                    code = "puzzle::render::stopped",
                    "case {n} was stopped by {limit}: there is nothing to draw"
                ),
                exit::LIMIT,
            ));
        }
        Ok(puzzle::run::Rendered::NoCase(read)) => {
            return Err(miette::miette!(
                code = "puzzle::render::no_case",
                help = "--case counts from 1",
                "the input has {read} cases, not {n}"
            ));
        }
        Err(e) => return finish(Err(e)),
    };
    let title = format!("{}: case {n}", loaded.rules.title());
    for (path, text) in [(to.svg, walk.svg(&title)), (to.html, walk.html(&title))] {
        let Some(path) = path else { continue };
        if path.as_os_str() == "-" {
            let code = write_out(text.as_bytes());
            if code != exit::OK {
                return Ok(Outcome::Code(code));
            }
        } else if let Err(e) = std::fs::write(&path, text) {
            notice(
                Notice::Error,
                "puzzle::io::write",
                &format!("cannot write {}: {e}", path.display()),
            );
            return Ok(Outcome::Code(exit::OUTPUT));
        }
    }
    Ok(Outcome::Code(exit::OK))
}

/// `puzzle check`: the rule file checked, and what it declares counted.
pub fn check(rules: &Path) -> Result<Outcome, Report> {
    let loaded = match load(rules)? {
        Ok(l) => l,
        Err(o) => return Ok(o),
    };
    let r = &loaded.rules;
    let counters = r
        .states()
        .iter()
        .filter(|s| matches!(s.kind, puzzle::resolve::StateKind::Counter { .. }))
        .count();
    let mut out = std::io::stdout().lock();
    // `1 agent`, `2 agents`.
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    // Fields only where there are some (most files have none).
    let fields = match r.fields().len() {
        0 => String::new(),
        n => format!(", {}", count(n, "field")),
    };
    let said = writeln!(
        out,
        "{}: ok ({}, {}, {}, {}{fields}, {})",
        rules.display(),
        count(r.tiles().len(), "tile"),
        count(r.agents().len(), "agent"),
        count(r.states().len() - counters, "flag"),
        count(counters, "counter"),
        count(loaded.warnings.len(), "warning")
    )
    .and_then(|()| out.flush());
    Ok(Outcome::Code(match said {
        Ok(()) => exit::OK,
        Err(e) => stream_failed(&e),
    }))
}
