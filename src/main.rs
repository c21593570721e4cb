//! The `puzzle` command line. It only parses arguments and dispatches to the
//! library; all the work, and every diagnostic, lives there.

use clap::{Parser, Subcommand};
use miette::Report;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    // 2, a wrong command line, is clap's own exit code for usage errors.
    /// A resource limit of the engine: the state of a map cannot be packed.
    pub const LIMIT: u8 = 3;
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
        2 wrong command line; 3 a resource limit (a map's state needs more than 1024 bits, or more than 16 agents move at once).\n\n\
        Examples:\n  puzzle run rules.puz contest-input.txt\n  \
        puzzle run rules.puz - < contest-input.txt\n  \
        puzzle run rules.puz map.txt --set n=2      (a bare map; sizes read from it)\n  \
        puzzle check rules.puz"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

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
        /// Print per-case search statistics (states expanded, time) to stderr.
        #[arg(long)]
        stats: bool,
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
}

impl RunOpts {
    /// The library's options; starts the thread pool.
    fn options(self, stats: bool) -> Result<puzzle::run::Options, Report> {
        let threads = self.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        );
        // One pool for the whole run; levels too small to share stay on the
        // calling thread. One thread never uses the pool: it is not started
        // (a thread spun up for nothing costs a short run a millisecond).
        if threads > 1 {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build_global()
                .map_err(|e| miette::miette!("cannot start {threads} threads: {e}"))?;
        }
        Ok(puzzle::run::Options {
            bare: (self.map || !self.set.is_empty()).then_some(self.set),
            stats,
            search: puzzle::search::Config {
                strategy: self.strategy.into(),
                threads,
            },
        })
    }
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

fn read(path: &Path) -> Result<(String, String), Report> {
    let name = path.display().to_string();
    let mut text = String::new();
    let r = if name == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    r.map_err(|e| miette::miette!(code = "puzzle::io::read", "cannot read {name}: {e}"))?;
    Ok((if name == "-" { "<stdin>".into() } else { name }, text))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}

fn load(path: &Path) -> Result<puzzle::Loaded, Report> {
    let (name, text) = read(path)?;
    let loaded = puzzle::load(&name, &text)?;
    for w in &loaded.warnings {
        let r = Report::new(w.clone()).with_source_code(loaded.src.clone());
        eprintln!("{r:?}");
    }
    Ok(loaded)
}

/// The exit code of a run: a resource limit has its own.
fn finish(r: Result<(), puzzle::RunError>) -> Result<u8, Report> {
    match r {
        Ok(()) => Ok(exit::OK),
        Err(e) if e.is_resource_limit() => {
            eprintln!("{:?}", Report::new(e));
            Ok(exit::LIMIT)
        }
        Err(e) => Err(e.into()),
    }
}

fn dispatch(cli: Cli) -> Result<u8, Report> {
    match cli.cmd {
        Cmd::Run {
            rules,
            input,
            opts,
            stats,
        } => {
            let loaded = load(&rules)?;
            let (name, text) = read(&input)?;
            let opts = opts.options(stats)?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            finish(puzzle::run(&loaded.rules, &name, &text, &opts, &mut out))
        }
        Cmd::Explain { rules, input, opts } => {
            let loaded = load(&rules)?;
            let (name, text) = read(&input)?;
            let opts = opts.options(false)?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            finish(puzzle::run::explain(
                &loaded.rules,
                &name,
                &text,
                &opts,
                &mut out,
            ))
        }
        Cmd::Check { rules } => {
            let loaded = load(&rules)?;
            let r = &loaded.rules;
            let counters = r
                .states
                .iter()
                .filter(|s| matches!(s.kind, puzzle::resolve::StateKind::Counter { .. }))
                .count();
            println!(
                "{}: ok ({} tiles, {} agents, {} flags, {} counters, {} warnings)",
                rules.display(),
                r.tiles.len(),
                r.agents.len(),
                r.states.len() - counters,
                counters,
                loaded.warnings.len()
            );
            Ok(exit::OK)
        }
    }
}
