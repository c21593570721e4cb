//! The `puzzle` command line. It only parses arguments and dispatches to
//! the library; all the work, and every diagnostic, lives there. The
//! commands' words are `cli`'s, what each does `commands`', what the process
//! sets up first `setup`'s, and what it says on stderr `say`'s.

mod cli;
mod commands;
mod lsp;
mod play;
mod say;
mod serve;
mod setup;

use clap::Parser;
use cli::{Cli, Cmd, FormatArg};
use miette::Report;
use say::{JSON, Notice, notice, say};
use std::process::ExitCode;
use std::sync::atomic::Ordering::Relaxed;

// Each map of an input file builds and drops tables of a few hundred KiB;
// glibc's allocator hands such blocks back to the kernel and faults them in
// again for the next map (tens of thousands of page faults on a long input).
// mimalloc keeps them.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit codes, documented in `--help` and README.md.
mod exit {
    pub const OK: u8 = 0;
    /// The rule file or the input is malformed.
    pub const BAD_INPUT: u8 = 1;
    /// A wrong command line (clap's own exit code for usage errors).
    pub const USAGE: u8 = 2;
    /// A resource limit of the engine: the state of a map cannot be packed.
    pub const LIMIT: u8 = 3;
    /// Writing the output failed (not a closed pipe: that ends quietly).
    pub const OUTPUT: u8 = 4;
    /// `verify`: some case's moves are illegal, reach no goal, or are not
    /// the least cost; `test`: some puzzle's output is not its `.out`.
    pub const WRONG: u8 = 5;
    /// Ctrl-C stopped the run (128 + SIGINT, as shells report it).
    pub const INTERRUPTED: u8 = 130;
}

/// How the command ended, for its exit code.
enum Outcome {
    Code(u8),
    /// A report for stderr, and the code to exit with.
    Report(Report, u8),
}

fn main() -> ExitCode {
    setup::allocator_setup();
    // Until the command line is parsed, `--format json` is read from the
    // words as given: a command line that does not parse is reported in
    // the format it asks for.
    JSON.store(cli::json_asked(std::env::args_os()), Relaxed);
    if setup::stdout_closed() {
        notice(
            Notice::Error,
            "puzzle::io::write",
            "cannot write the output: stdout is closed",
        );
        return ExitCode::from(exit::OUTPUT);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(say::command_line_error(&e)),
    };
    JSON.store(cli.format == FormatArg::Json, Relaxed);
    setup::colours(cli.color);
    // The one thread pool, and the Ctrl-C handler, for a command that
    // searches; started here, once.
    let threads = match cli.cmd.threads() {
        Some(asked) => {
            setup::on_interrupt();
            setup::on_lost_peer();
            setup::start_threads(asked)
        }
        None => 1,
    };
    let code = match dispatch(cli, threads) {
        Ok(Outcome::Code(code)) => code,
        // A report that cannot be written (stderr closed, or a pipe that
        // closed) does not turn a failure into a success: the code stands.
        Ok(Outcome::Report(report, code)) => {
            say(&report);
            code
        }
        Err(report) => {
            say(&report);
            exit::BAD_INPUT
        }
    };
    ExitCode::from(code)
}

/// Runs the command parsed, with the threads started for it.
fn dispatch(cli: Cli, threads: usize) -> Result<Outcome, Report> {
    let (format, quiet) = (cli.format, cli.quiet);
    match cli.cmd {
        Cmd::Run {
            rules,
            input,
            case,
            opts,
            stats,
            moves,
            trace,
        } => {
            let opts = puzzle::run::Options {
                moves,
                trace,
                case: case.map(|n| n as usize),
                ..opts.options(threads, stats)
            };
            commands::run(&rules, &input, opts, format, quiet)
        }
        Cmd::Explain {
            rules,
            input,
            why,
            case,
            opts,
        } => {
            let opts = puzzle::run::Options {
                case: case.map(|n| n as usize),
                why,
                format: format.into(),
                ..opts.options(threads, false)
            };
            commands::explain(&rules, &input, opts)
        }
        Cmd::Completions { shell } => Ok(commands::completions(shell)),
        Cmd::Man { command } => commands::man(command.as_deref()),
        Cmd::Test { path, opts } => commands::test(&path, opts.options(threads, false)),
        Cmd::Verify {
            rules,
            input,
            solution,
            case,
            opts,
        } => commands::verify(
            &rules,
            &input,
            &solution,
            puzzle::run::Options {
                case: case.map(|n| n as usize),
                ..opts.options(threads, false)
            },
            format,
        ),
        Cmd::Render {
            rules,
            input,
            case,
            svg,
            html,
            opts,
        } => commands::render(
            &rules,
            &input,
            commands::Drawings { case, svg, html },
            opts.options(threads, false),
        ),
        Cmd::Play {
            rules,
            input,
            case,
            opts,
        } => play::play(&rules, &input, case, opts.options(threads, false)),
        Cmd::Check { rules } => commands::check(&rules),
        Cmd::Lsp => lsp::serve(),
        Cmd::Serve {
            dir,
            port,
            host,
            timeout,
            max_memory,
            max_states,
        } => {
            let limits = puzzle::budget::Limits {
                max_states,
                max_memory: max_memory.map_or(puzzle::budget::default_max_memory(), |m| m.0),
                timeout: Some(timeout),
            };
            serve::serve(&dir, &host, port, limits)
        }
    }
}
