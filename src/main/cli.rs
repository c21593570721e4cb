//! The command line's words: clap's definitions of the commands and their
//! options, and what they become for the library.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

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
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
    /// How answers and reports are written: `text`, or `json`: `run` and
    /// `verify` write one JSON object a line per case, and every command
    /// writes its errors and warnings to stderr as JSON lines (severity,
    /// code, message, file, line, column, labels, help).
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// No progress display on stderr (it only ever shows on a terminal,
    /// once a case has run for half a second).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Colours in reports: `auto` (on a terminal, unless `NO_COLOR` is
    /// set), `always` or `never`.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

/// `--color` values.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// `--format` values.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
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

#[derive(Subcommand)]
pub enum Cmd {
    /// Solve every case of an input file and print the answers.
    Run {
        /// The rule file.
        rules: PathBuf,
        /// The input file, as the rule file's `input` block describes it; `-` reads stdin.
        input: PathBuf,
        /// Only this case of the input, from 1 (the cases before it are
        /// read, not solved).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        case: Option<u64>,
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
        /// After each plan, why a case may have no answer: every state
        /// reachable from the start explored (within the limits), how many
        /// there are, whether one is a goal, the moves never taken, and the
        /// cells each mover stands on, drawn over the map.
        #[arg(long)]
        why: bool,
        /// Only this case of the input, from 1 (the cases before it are
        /// read, not solved).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        case: Option<u64>,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Parse and check a rule file; report errors and warnings.
    Check {
        /// The rule file.
        rules: PathBuf,
    },
    /// The playground: a local web app to write a rule file and a map side
    /// by side, with the reports of `check` at their spans as you type,
    /// `run` with the way animated, `explain`, and play with hints; files
    /// of DIR opened and saved. It prints its address; open it in a
    /// browser. Loopback only unless `--host` says otherwise.
    Serve {
        /// The folder whose files the playground opens and saves (only
        /// its .puz, .in, .out, .txt and .map files, inside it).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// The port (0: one the system chooses).
        #[arg(long, default_value_t = 7878)]
        port: u16,
        /// The address to listen on. Anything but loopback lets other
        /// machines read and write the files of DIR.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Stop a search that takes longer than DURATION.
        #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
        timeout: std::time::Duration,
        /// Stop a search when the process holds more than SIZE of memory
        /// [default: three quarters of the machine's memory].
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<MemoryLimit>,
        /// Stop a search that has visited more than N states.
        #[arg(long, value_name = "N")]
        max_states: Option<u64>,
    },
    /// A language server for rule files, on stdin and stdout (the Language
    /// Server Protocol): the reports of `check` as you type, hover, go to
    /// definition, completion and the file's symbols. Started by an editor,
    /// not by hand (see the README for each editor's setting).
    Lsp,
    /// Print a shell's completion script for `puzzle` to stdout; for bash:
    /// `puzzle completions bash > ~/.local/share/bash-completion/completions/puzzle`.
    Completions {
        /// The shell: bash, elvish, fish, powershell or zsh.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `puzzle man > puzzle.1; man
    /// ./puzzle.1`; `puzzle man run` prints the page of `puzzle run`
    /// (`puzzle-run(1)`), and so for each command.
    Man {
        /// A command whose page to print (`run`, `verify`, ...).
        command: Option<String>,
    },
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
    /// Play a case by hand. On a terminal: the arrow keys (or WASD) move
    /// the agent (Tab chooses the next, where several take turns), 1-9
    /// take a listed move, `:` types a move as `--moves` writes it (a line
    /// of every agent's moves, where they move at once), u (or Backspace)
    /// undoes, r restarts, h asks for a hint (the first move of a least-cost
    /// way from here, and how far the goal then is, searched within the
    /// limits; Esc stops the search), q quits. A refused move says why.
    /// Without a terminal, the commands are lines on stdin (a move, a
    /// number, `/undo`, `/restart`, `/hint`, `/next`, `/quit`), and the
    /// board is printed after each.
    Play {
        /// The rule file.
        rules: PathBuf,
        /// The input file; `-` reads stdin (on a terminal only: otherwise
        /// stdin holds the commands).
        input: PathBuf,
        /// Which case of the input, from 1.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        case: u64,
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
        /// The moves, one line per case (with `--case N`, the one line of
        /// that case); `-` reads stdin.
        solution: PathBuf,
        /// Only this case of the input, from 1 (the cases before it are
        /// read, not checked).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        case: Option<u64>,
        #[command(flatten)]
        opts: RunOpts,
    },
}

/// Options shared by `run` and `explain`.
#[derive(clap::Args)]
pub struct RunOpts {
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
    /// reversible; else breadth-first. `ida` is A*'s bound searched depth
    /// first (IDA*): memory for the way only, for spaces too large to keep
    /// (A* turns to it by itself near the memory limit). When moves or
    /// tiles have costs, Dijkstra's algorithm runs whatever is asked.
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
    /// Stop a case that takes longer than DURATION (`10s`, `2m`, `1h 30m`;
    /// a bare number is seconds: `90`, `0.5`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    timeout: Option<std::time::Duration>,
    /// Breadth-first search on N workers (threads of timely dataflow) in
    /// this process, and in each process of `--hostfile`: each state is
    /// owned by one worker, successors go to their owners level by level.
    /// For tasks whose steps all cost 1; others are searched here as
    /// usual (`explain` says which). Cases are solved one at a time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// The processes of a distributed search: one `host:port` a line, the
    /// same file for every process, each started with its own `--process`.
    /// Every process reads the same rule file and input; the first prints
    /// the answers.
    #[arg(long, value_name = "FILE")]
    hostfile: Option<std::path::PathBuf>,
    /// This process's line of `--hostfile`, from 0.
    #[arg(long, value_name = "I", requires = "hostfile")]
    process: Option<usize>,
    /// How many processes (checked against the lines of `--hostfile`).
    #[arg(long, value_name = "P", requires = "hostfile")]
    processes: Option<usize>,
}

/// A duration: a bare number of seconds (what `timeout(1)` and most tools
/// take), or a number with units as humantime reads them (`10s`, `2m`,
/// `1h 30m`, `500ms`).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return std::time::Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("`{s}` is not a number of seconds of 0 or more"));
    }
    humantime::parse_duration(t)
        .map_err(|e| format!("{e}: `{s}` is not a duration like 90, 10s, 2m or 1h 30m"))
}

/// `--max-memory`: a number of bytes, or none.
#[derive(Debug, Clone, Copy)]
pub struct MemoryLimit(pub Option<u64>);

/// A size in bytes: a number with an optional `K`, `M`, `G` or `T` (powers
/// of 1024; `KiB`, `MB` and the like are read the same), or `none`.
pub fn parse_size(s: &str) -> Result<MemoryLimit, String> {
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

impl Cmd {
    /// The threads asked for by a command that searches (`--threads`, or
    /// none given: `Some(None)`); `None` for one that does not search.
    pub fn threads(&self) -> Option<Option<u16>> {
        match self {
            Cmd::Run { opts, .. }
            | Cmd::Explain { opts, .. }
            | Cmd::Test { opts, .. }
            | Cmd::Render { opts, .. }
            | Cmd::Play { opts, .. }
            | Cmd::Verify { opts, .. } => Some(opts.threads),
            Cmd::Check { .. }
            | Cmd::Completions { .. }
            | Cmd::Man { .. }
            | Cmd::Lsp
            | Cmd::Serve { .. } => None,
        }
    }
}

impl RunOpts {
    /// The library's options, with the threads of the run's pool.
    pub fn options(self, threads: usize, stats: bool) -> puzzle::run::Options {
        let default_memory = puzzle::budget::default_max_memory();
        let cluster = self.cluster();
        puzzle::run::Options {
            bare: (self.map || !self.set.is_empty()).then_some(self.set),
            stats,
            search: puzzle::search::Config {
                strategy: self.strategy.into(),
                // Each case's workers connect anew: one case at a time.
                threads: if cluster.is_some() { 1 } else { threads },
                count: false,
                cluster,
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
            case: None,
            why: false,
        }
    }
}

impl RunOpts {
    /// The workers of `--workers` and `--hostfile`, for the whole run; a
    /// hostfile that cannot be read, or a `--process` not in it, is a
    /// usage error (exit 2).
    fn cluster(&self) -> Option<&'static puzzle::plan::Cluster> {
        if self.workers.is_none() && self.hostfile.is_none() {
            return None;
        }
        let fail = |msg: String| -> ! {
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{msg}\n")).exit()
        };
        let addresses: Vec<String> = match &self.hostfile {
            None => Vec::new(),
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => (text.lines().map(str::trim))
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string)
                    .collect(),
                Err(e) => fail(format!("cannot read the hostfile {}: {e}", path.display())),
            },
        };
        if self.hostfile.is_some() && addresses.is_empty() {
            fail("the hostfile names no process (one `host:port` a line)".into());
        }
        if let Some(p) = self.processes
            && p != addresses.len()
        {
            fail(format!(
                "--processes {p}, but the hostfile has {} line{}",
                addresses.len(),
                if addresses.len() == 1 { "" } else { "s" }
            ));
        }
        let process = self.process.unwrap_or(0);
        if self.hostfile.is_some() && process >= addresses.len() {
            fail(format!(
                "--process {process}: the hostfile's lines are 0 to {}",
                addresses.len() - 1
            ));
        }
        let cluster = puzzle::plan::Cluster {
            workers: self.workers.map_or(1, usize::from),
            process,
            addresses,
        };
        // One for the whole run, which every case's plan refers to.
        Some(Box::leak(Box::new(cluster)))
    }
}

/// `--strategy` values.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum StrategyArg {
    Auto,
    Bfs,
    Bidir,
    Astar,
    Ida,
}

impl From<StrategyArg> for puzzle::search::Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Auto => Self::Auto,
            StrategyArg::Bfs => Self::Bfs,
            StrategyArg::Bidir => Self::Bidir,
            StrategyArg::Astar => Self::Astar,
            StrategyArg::Ida => Self::Ida,
        }
    }
}

pub fn parse_set(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not an integer"))?;
    Ok((k.trim().to_string(), v))
}

/// Whether the words of a command line ask for `--format json` (before
/// `--`, after which words are operands).
pub fn json_asked(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
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
