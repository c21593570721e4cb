//! The `puzzle` command line. It only parses arguments and dispatches to the
//! library; all the work, and every diagnostic, lives there.

use clap::{CommandFactory, Parser, Subcommand};
use miette::Report;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
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

#[derive(Parser)]
#[command(
    name = "puzzle",
    version,
    about = "Solve grid puzzles described in a declarative rule file (.puz)",
    long_about = "Solve grid puzzles described in a declarative rule file (.puz).\n\n\
        A rule file says what the tiles of a map are, how agents move, what state they \
        carry (flags, counters, headings), what is forbidden, what things cost, and what \
        the goal is. `puzzle run` reads maps and prints the least cost (the fewest steps) \
        to the goal for each, in the output format the rule file gives. See README.md \
        for the language.",
    after_help = "Exit codes: 0 success; 1 malformed rule file or input (a report is printed); \
        2 wrong command line; 3 a resource limit: some case was stopped by --max-states, --max-memory or --timeout, or by the system running out of memory (the other cases were answered), or a map's state needs more than 1024 bits, or more than 16 agents move at once; 4 the output could not be written (a closed pipe ends quietly with 0); 5 `verify` found moves that do not hold, or `test` an output that is not its .out; 130 interrupted (Ctrl-C): the answers before the case running are printed.\n\n\
        Examples:\n  puzzle run rules.puz contest-input.txt\n  \
        puzzle run rules.puz - < contest-input.txt\n  \
        puzzle run rules.puz map.txt --set n=2      (a bare map; sizes read from it)\n  \
        puzzle check rules.puz"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// How answers and reports are written: `text`, or `json`: `run` and
    /// `verify` write one JSON object a line per case, and every command
    /// writes its errors and warnings to stderr as JSON lines (severity,
    /// code, message, file, line, column, labels, help).
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// No progress display on stderr (it only ever shows on a terminal,
    /// once a case has run for half a second).
    #[arg(long, short, global = true)]
    quiet: bool,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    Text,
    Json,
}

impl From<FormatArg> for puzzle::run::Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Text => Self::Text,
            FormatArg::Json => Self::Json,
        }
    }
}

/// Reports go to stderr as JSON lines: set once, from `--format`, before
/// anything is reported.
static JSON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[derive(Subcommand)]
enum Cmd {
    /// Solve every case of an input file and print the answers.
    Run {
        /// The rule file.
        rules: PathBuf,
        /// The input file, as the rule file's `input` block describes it; `-` reads stdin.
        input: PathBuf,
        #[command(flatten)]
        opts: RunOpts,
        /// Print per-case search statistics to stderr: states expanded and seen, time, rate, and the peak memory of the process so far.
        #[arg(long)]
        stats: bool,
        /// Print each case's moves instead of its answer: one line per case,
        /// one token per step (a lone agent's move, `AGENT:MOVE` for agents
        /// in turn, every agent's move joined by `,` at once); `-` when there
        /// is no way, `?` when a limit stopped the case. `puzzle verify`
        /// reads these lines back.
        #[arg(long)]
        moves: bool,
        /// Print each case's way after its answer: every step's moves, and
        /// the board redrawn after it with each agent's symbol, the
        /// headings, flags and counters. With `--format json`, the way is
        /// the `trace` field.
        #[arg(long, conflicts_with = "moves")]
        trace: bool,
    },
    /// Show the plan of each case of an input: the state's variables and
    /// their bits, the successor kernel, the search engine and the visited
    /// store, each with the reason it was chosen.
    Explain {
        /// The rule file.
        rules: PathBuf,
        /// The input file; `-` reads stdin.
        input: PathBuf,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Parse and check a rule file; report errors and warnings.
    Check {
        /// The rule file.
        rules: PathBuf,
    },
    /// Print a shell's completion script for `puzzle` to stdout; for bash:
    /// `puzzle completions bash > ~/.local/share/bash-completion/completions/puzzle`.
    Completions {
        /// The shell: bash, elvish, fish, powershell or zsh.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `puzzle man > puzzle.1; man ./puzzle.1`.
    Man,
    /// Run every rule file of a folder (default `puzzles`), or one rule
    /// file, on the `NAME.in` beside it and compare the output with
    /// `NAME.out`: `pass` or `FAIL` with a diff for each, then `N passed, M
    /// failed`. Exit 0 when all pass, 5 when one fails.
    Test {
        /// A folder of rule files, or one rule file.
        #[arg(default_value = "puzzles")]
        path: PathBuf,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Draw a case's least-cost way: `--svg FILE` writes a picture of
    /// the map with each agent's path in its own colour and its steps
    /// numbered; `--html FILE` a page that plays the way step by step
    /// (buttons, or the keys Space, Left, Right, Home, End), with no
    /// network needed. `-` writes to stdout.
    Render {
        /// The rule file.
        rules: PathBuf,
        /// The input file; `-` reads stdin.
        input: PathBuf,
        /// Which case of the input, from 1.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        case: u64,
        /// Write the SVG picture to FILE.
        #[arg(long, value_name = "FILE", required_unless_present = "html")]
        svg: Option<PathBuf>,
        /// Write the HTML player to FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Check each case's moves, as `run --moves` prints them: replays them
    /// from the start and says, per case, whether every step is legal, a
    /// goal is reached and the cost is the least (found by searching);
    /// `-` says no way exists, and is checked by searching too. Exit 0 only
    /// when every case holds, 5 when one does not.
    Verify {
        /// The rule file.
        rules: PathBuf,
        /// The input file; `-` reads stdin.
        input: PathBuf,
        /// The moves, one line per case.
        solution: PathBuf,
        #[command(flatten)]
        opts: RunOpts,
    },
}

/// Options shared by `run` and `explain`.
#[derive(clap::Args)]
struct RunOpts {
    /// Read INPUT as one bare map (no header lines). Header values come from
    /// `--set`; grid sizes not given are taken from the map itself.
    #[arg(long)]
    map: bool,
    /// A header value for a bare map, as NAME=VALUE (implies --map). Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    set: Vec<(String, i64)>,
    /// The search strategy. `auto` picks A* when the goal pins the agents and
    /// only other agents stand in their way, or when the goal asks for flags;
    /// else bidirectional search when the goal is one state and every step is
    /// reversible; else breadth-first. When moves or tiles have costs,
    /// Dijkstra's algorithm runs whatever is asked.
    #[arg(long, value_enum, default_value_t = StrategyArg::Auto)]
    strategy: StrategyArg,
    /// Threads: the cases of a file are solved several at a time, and large
    /// search levels are expanded in parallel [default: the number of cores].
    /// The answers, and their order, do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Stop a case that has visited more than N states. The case prints the
    /// rule file's `stopped` line (or `?`), the run goes on with the next
    /// case and exits with code 3.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Stop a case when the process holds more than SIZE of memory (`512M`,
    /// `4G`, a number of bytes; `none` for no limit) [default: three
    /// quarters of the machine's memory].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<MemoryLimit>,
    /// Stop a case that takes longer than DURATION (`10s`, `2m`, `1h 30m`).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    timeout: Option<std::time::Duration>,
}

/// `--max-memory`: a number of bytes, or none.
#[derive(Debug, Clone, Copy)]
struct MemoryLimit(Option<u64>);

/// A size in bytes: a number with an optional `K`, `M`, `G` or `T` (powers
/// of 1024; `KiB`, `MB` and the like are read the same), or `none`.
fn parse_size(s: &str) -> Result<MemoryLimit, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(MemoryLimit(None));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size like 512M or 4G"))?;
    let scale = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches(['B', 'I'])
    {
        "" => 1u64,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("`{s}`: the unit is K, M, G or T")),
    };
    Ok(MemoryLimit(Some((v * scale as f64) as u64)))
}

impl RunOpts {
    /// The library's options; starts the thread pool.
    fn options(self, stats: bool) -> Result<puzzle::run::Options, Report> {
        let threads = start_threads(self.threads);
        // Ctrl-C stops the case running at its next checkpoint; a second
        // one ends the process at once.
        let _ = ctrlc::set_handler(|| {
            if puzzle::budget::INTERRUPTED.swap(true, Relaxed) {
                std::process::exit(130);
            }
        });
        let default_memory = puzzle::budget::default_max_memory();
        Ok(puzzle::run::Options {
            bare: (self.map || !self.set.is_empty()).then_some(self.set),
            stats,
            search: puzzle::search::Config {
                strategy: self.strategy.into(),
                threads,
            },
            limits: puzzle::budget::Limits {
                max_states: self.max_states,
                max_memory: self.max_memory.map_or(default_memory, |m| m.0),
                timeout: self.timeout,
            },
            moves: false,
            trace: false,
            warn: false,
            format: puzzle::run::Format::Text,
            progress: false,
        })
    }
}

/// Starts the one thread pool of the run and says how many threads it has.
/// More threads than the machine has cores only take turns on them (a
/// thousand took seconds to start and to pass work between): they are cut
/// to the cores, with a note. Where the system cannot give the threads
/// asked (an address-space limit, `ulimit -v`, leaves no room for their
/// stacks), fewer are started, down to one, with a note: the run goes on.
/// One thread never uses the pool: it is not started (a thread spun up for
/// nothing costs a short run a millisecond).
fn start_threads(asked: Option<u16>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = asked.map_or(cores, usize::from);
    if threads > cores {
        notice(
            Notice::Note,
            "puzzle::run::threads",
            &format!("--threads {threads}: this machine has {cores} cores; using {cores}"),
        );
        threads = cores;
    }
    let pool = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            // The main thread's size: nothing a checked rule file holds
            // recurses deeper than its brackets (at most 64).
            .stack_size(8 << 20)
    };
    // Tried first as a pool of its own: rayon's global pool can be set
    // once, and a failed attempt leaves it unset for good (nothing of the
    // library touches it with one thread).
    while threads > 1 {
        match pool(threads).build() {
            Ok(trial) => {
                drop(trial);
                match pool(threads).build_global() {
                    Ok(()) => break,
                    Err(e) => {
                        notice(
                            Notice::Note,
                            "puzzle::run::threads",
                            &format!("cannot start {threads} threads ({e}); using 1"),
                        );
                        threads = 1;
                    }
                }
            }
            Err(e) => {
                let fewer = threads / 2;
                notice(
                    Notice::Note,
                    "puzzle::run::threads",
                    &format!("cannot start {threads} threads ({e}); trying {fewer}"),
                );
                threads = fewer;
            }
        }
    }
    threads.max(1)
}

/// `--strategy` values.
#[derive(Clone, Copy, clap::ValueEnum)]
enum StrategyArg {
    Auto,
    Bfs,
    Bidir,
    Astar,
}

impl From<StrategyArg> for puzzle::search::Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Auto => Self::Auto,
            StrategyArg::Bfs => Self::Bfs,
            StrategyArg::Bidir => Self::Bidir,
            StrategyArg::Astar => Self::Astar,
        }
    }
}

fn parse_set(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not an integer"))?;
    Ok((k.trim().to_string(), v))
}

/// No transparent huge pages for this process. mimalloc asks for them on
/// its arenas (unless built with `no_thp`, as here), and then every heap
/// (one per thread) faults its memory in 2 MiB at a time: two threads on a
/// large search held 1.5 times the memory of one, and hide-and-seek's 199
/// small maps peaked at 20 MB. Without them it is 1.05 times, and 12 MB;
/// the time is the same. The flag also keeps a system whose huge pages are
/// `always` on from doing the same.
///
/// And memory freed goes back to the system after 10 ms, not a second: a
/// map of millions of cells frees its tables just before the next map
/// builds its own, and the delay held both (the ice benchmark peaked at 49
/// MB instead of 33). At once (0 ms) holds no less there, and costs time
/// where a search frees and grows its levels (portals: some 20%); small
/// maps reuse their freed pages before any purge, and the founding
/// benchmarks' page faults and times are the same with any of these.
fn allocator_setup() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    // (A delay set in the environment is mimalloc's own setting: kept.)
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: setting an option is allowed at any time.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 10) };
    }
    // Under an address-space limit (`ulimit -v`), mimalloc's first arena
    // (1 GiB of addresses) cannot be reserved, and the segments it takes
    // one by one instead fragment the little room there is: a 4 MiB
    // allocation then failed (an abort) under a 100 MB limit, one run in
    // a few. An arena of a quarter of the limit, reserved at once, holds
    // what the search's budget (half the limit) lets it allocate.
    if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none()
        && let Some(limit) = puzzle::budget::address_space()
    {
        let kib = (limit / 4 / 1024).max(1024);
        // SAFETY: setting an option is allowed at any time.
        unsafe { libmimalloc_sys::mi_option_set(ARENA_RESERVE, kib as std::ffi::c_long) };
    }
}

/// `mi_option_arena_reserve` (in KiB), which the bindings do not name: in
/// mimalloc.h (v2 and v3) seven places after `mi_option_use_numa_nodes`
/// (tested below by its default, 1 GiB).
const ARENA_RESERVE: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes + 7;

/// `mi_option_purge_delay`, which the bindings do not name: in mimalloc.h
/// (v2 and v3) it is the option just before `mi_option_use_numa_nodes`
/// (tested below by its default).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes - 1;

/// Whether the process was started with no stdout at all (`>&-`). Rust's
/// runtime opens `/dev/null` in place of a closed standard descriptor
/// before `main`, so the answers would be written to nothing with exit
/// code 0; the descriptor is therefore looked at before the runtime starts,
/// by a function the C library runs first (`.init_array`).
fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Relaxed)
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static LOOK_AT_STDOUT: extern "C" fn() = {
    extern "C" fn look() {
        // SAFETY: F_GETFD only reads the descriptor's flags.
        let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, Relaxed);
    }
    look
};

/// A file's bytes and the name reports give it (`-` is stdin).
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

/// How the command ended, for its exit code.
enum Outcome {
    Code(u8),
    /// A report for stderr, and the code to exit with.
    Report(Report, u8),
}

fn main() -> ExitCode {
    allocator_setup();
    // Until the command line is parsed, `--format json` is read from the
    // words as given: a command line that does not parse is reported in
    // the format it asks for.
    JSON.store(json_asked(std::env::args_os()), Relaxed);
    if stdout_closed() {
        notice(
            Notice::Error,
            "puzzle::io::write",
            "cannot write the output: stdout is closed",
        );
        return ExitCode::from(exit::OUTPUT);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(command_line_error(&e)),
    };
    JSON.store(cli.format == FormatArg::Json, Relaxed);
    let code = match dispatch(cli) {
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

/// Whether the words of a command line ask for `--format json` (before
/// `--`, after which words are operands).
fn json_asked(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    let words: Vec<std::ffi::OsString> = args.into_iter().collect();
    let words = words.iter().take_while(|w| w.as_os_str() != "--");
    let mut last_was_format = false;
    let mut json = false;
    for w in words {
        if last_was_format {
            json = w.as_os_str() == "json";
        } else if let Some(v) = w.to_str().and_then(|w| w.strip_prefix("--format=")) {
            json = v == "json";
        }
        last_was_format = w.as_os_str() == "--format";
    }
    json
}

/// A command line clap cannot take: help and version are printed as clap
/// prints them; an error is a JSON line under `--format json`, else
/// clap's own text. The exit code is clap's (2 for an error).
fn command_line_error(e: &clap::Error) -> u8 {
    if !e.use_stderr() || !JSON.load(Relaxed) {
        // Nothing is done when it cannot be printed: the code tells it.
        let _ = e.print();
        return u8::try_from(e.exit_code()).unwrap_or(exit::USAGE);
    }
    // clap's text: `error: MESSAGE`, its indented continuation (the
    // arguments missing), then tips and usage.
    let text = e.render().to_string();
    let mut lines = text.lines().peekable();
    let mut message = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_string();
    while let Some(more) = lines.next_if(|l| l.starts_with(' ')) {
        message.push(' ');
        message.push_str(more.trim());
    }
    let help: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
    let json = serde_json::json!({
        "severity": "error",
        "code": format!("puzzle::cli::{}", kebab(&format!("{:?}", e.kind()))),
        "message": message,
        "help": help.join("\n"),
    });
    let _ = writeln!(std::io::stderr(), "{json}");
    exit::USAGE
}

/// `UnknownArgument` as `unknown-argument`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// What a [`notice`] is.
#[derive(Clone, Copy)]
enum Notice {
    /// Told as `puzzle: MESSAGE`; `error` in JSON.
    Error,
    /// Told as `puzzle: note: MESSAGE`; `advice` in JSON (the run goes on).
    Note,
}

/// A message of the command's own on stderr (not a report on a file): a
/// line of text, or with `--format json` a JSON line with a severity and a
/// code, as reports are. Nothing is done when stderr cannot take it.
fn notice(kind: Notice, code: &str, message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = if JSON.load(Relaxed) {
        let severity = match kind {
            Notice::Error => "error",
            Notice::Note => "advice",
        };
        let json = serde_json::json!({"severity": severity, "code": code, "message": message});
        writeln!(err, "{json}")
    } else {
        match kind {
            Notice::Error => writeln!(err, "puzzle: {message}"),
            Notice::Note => writeln!(err, "puzzle: note: {message}"),
        }
    };
}

/// Writes a report to stderr, as text or JSON lines. Nothing is done when
/// that fails: stderr is where a failure would be told, and the exit code
/// still tells it.
fn say(report: &Report) {
    let mut err = std::io::stderr().lock();
    let _ = if JSON.load(Relaxed) {
        puzzle::error::json(report.as_ref())
            .iter()
            .try_for_each(|j| writeln!(err, "{j}"))
    } else {
        writeln!(err, "{report:?}")
    };
}

/// The exit code for a failed write: 0 for a closed pipe (as other Unix
/// tools do), else [`exit::OUTPUT`] after a message, if stderr takes one.
fn stream_failed(e: &std::io::Error) -> u8 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return exit::OK;
    }
    notice(
        Notice::Error,
        "puzzle::io::write",
        &format!("cannot write the output: {e}"),
    );
    exit::OUTPUT
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
fn load_with(
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
fn finish(r: Result<puzzle::run::Summary, puzzle::RunError>) -> Result<Outcome, Report> {
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

fn dispatch(cli: Cli) -> Result<Outcome, Report> {
    match cli.cmd {
        Cmd::Run {
            rules,
            input,
            opts,
            stats,
            moves,
            trace,
        } => {
            let (loaded, input) = match load_with(&rules, &input)? {
                Ok(both) => both,
                Err(o) => return Ok(o),
            };
            let opts = puzzle::run::Options {
                moves,
                trace,
                warn: true,
                progress: !cli.quiet
                    && cli.format == FormatArg::Text
                    && std::io::stderr().is_terminal(),
                format: cli.format.into(),
                ..opts.options(stats)?
            };
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            finish(puzzle::run::run_input(
                &loaded.rules,
                &input,
                &opts,
                &mut out,
            ))
        }
        Cmd::Explain { rules, input, opts } => {
            let (loaded, input) = match load_with(&rules, &input)? {
                Ok(both) => both,
                Err(o) => return Ok(o),
            };
            let opts = opts.options(false)?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let explained = puzzle::run::explain_input(&loaded.rules, &input, &opts, &mut out);
            finish(explained.map(|()| puzzle::run::Summary::default()))
        }
        Cmd::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "puzzle", &mut out);
            Ok(Outcome::Code(write_out(&out)))
        }
        Cmd::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .expect("rendering into memory does not fail");
            Ok(Outcome::Code(write_out(&out)))
        }
        Cmd::Test { path, opts } => {
            let opts = opts.options(false)?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let files = puzzle::testing::rule_files(&path).map_err(|e| {
                miette::miette!(
                    code = "puzzle::io::read",
                    "cannot read {}: {e}",
                    path.display()
                )
            })?;
            match puzzle::testing::test(&files, &opts, &mut out) {
                Ok(t) if t.failed > 0 => Ok(Outcome::Code(exit::WRONG)),
                Ok(_) => Ok(Outcome::Code(exit::OK)),
                Err(e) => Ok(Outcome::Code(stream_failed(&e))),
            }
        }
        Cmd::Verify {
            rules,
            input,
            solution,
            opts,
        } => {
            let (loaded, input) = match load_with(&rules, &input)? {
                Ok(both) => both,
                Err(o) => return Ok(o),
            };
            let (moves_name, moves) = read(&solution)?;
            let moves = puzzle::run::moves_text(&moves_name, &moves)?;
            let opts = puzzle::run::Options {
                format: cli.format.into(),
                ..opts.options(false)?
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
        Cmd::Render {
            rules,
            input,
            case,
            svg,
            html,
            opts,
        } => {
            let (loaded, input) = match load_with(&rules, &input)? {
                Ok(both) => both,
                Err(o) => return Ok(o),
            };
            let opts = opts.options(false)?;
            let n = case as usize;
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
            let title = format!("{}: case {n}", loaded.rules.title);
            for (path, text) in [(svg, walk.svg(&title)), (html, walk.html(&title))] {
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
        Cmd::Check { rules } => {
            let loaded = match load(&rules)? {
                Ok(l) => l,
                Err(o) => return Ok(o),
            };
            let r = &loaded.rules;
            let counters = r
                .states
                .iter()
                .filter(|s| matches!(s.kind, puzzle::resolve::StateKind::Counter { .. }))
                .count();
            let mut out = std::io::stdout().lock();
            let said = writeln!(
                out,
                "{}: ok ({} tiles, {} agents, {} flags, {} counters, {} warnings)",
                rules.display(),
                r.tiles.len(),
                r.agents.len(),
                r.states.len() - counters,
                counters,
                loaded.warnings.len()
            )
            .and_then(|()| out.flush());
            Ok(Outcome::Code(match said {
                Ok(()) => exit::OK,
                Err(e) => stream_failed(&e),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    /// The option set is the purge delay: the only one whose default is
    /// mimalloc v3's second (1000 ms), unless the environment sets it.
    #[test]
    fn the_purge_delay_is_the_option_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            eprintln!("MIMALLOC_PURGE_DELAY is set: its default cannot be read");
            return;
        }
        // SAFETY: reading an option is allowed at any time.
        let got = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        assert_eq!(got, 1000);
    }

    /// The arena reserve is the option its name says: its default is
    /// 1 GiB, in KiB.
    #[test]
    fn the_arena_reserve_is_the_option_set() {
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_some() {
            eprintln!("MIMALLOC_ARENA_RESERVE is set: its default cannot be read");
            return;
        }
        // SAFETY: reading an option is allowed at any time.
        let got = unsafe { libmimalloc_sys::mi_option_get(super::ARENA_RESERVE) };
        assert_eq!(got, 1 << 20);
    }
}
