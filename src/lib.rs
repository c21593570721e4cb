//! `puzzle`: a declarative language for grid state-space puzzles, and the
//! interpreter that solves them.
//!
//! The pipeline, one module and one type per phase:
//!
//! ```text
//! .puz text --syntax::parse--> ast::File --resolve::resolve--> resolve::Rules   (once per file)
//! input text --input::Reader--> input::RawCase                                   (one per case)
//! Rules + RawCase --task::ground--> task::Task --plan::plan--> plan::Plan
//! Task + Plan --search::run--> solution::Solution --show::walk--> show::Walk
//! ```
//!
//! Below the phases: [`budget`] (what a case may spend), [`pack`] (packed
//! states), [`mapped`], [`error`]. Modules import downward only
//! (`tests/house.rs` checks it).
//!
//! [`play`] is a case played by hand over the same phases: each step the
//! interpreter's, each hint a search from the position reached.
//!
//! [`load`] runs the first two phases on a rule file; [`solve`] runs the
//! rest on one case; [`run()`] drives a whole input file and prints the
//! answers.

/// Newtype ids, each an index into one table of a phase's output.
macro_rules! ids {
    ($($(#[$m:meta])* $name:ident),*) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn ix(self) -> usize { self.0 as usize }
        }
    )*};
}

pub mod ast;
pub mod budget;
pub mod error;
pub mod input;
pub mod kernel;
pub mod mapped;
pub mod outline;
pub mod pack;
pub mod plan;
pub mod play;
pub mod playground;
pub mod progress;
pub mod render;
pub mod resolve;
pub mod run;
pub mod search;
pub mod settle;
pub mod show;
pub mod solution;
pub mod syntax;
pub mod task;
pub mod testing;
pub mod trace;
pub mod why;

use error::{Diagnostics, InputError, RuleError};

pub use run::{RunError, run};

/// Checked rules, and the warnings found while checking them.
pub struct Loaded {
    pub rules: resolve::Rules,
    pub warnings: Vec<RuleError>,
    pub src: error::Source,
}

/// [`load`] on a file's bytes: a byte-order mark is skipped, and a byte
/// that is not UTF-8 is reported where it is.
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Loaded, Diagnostics<RuleError>> {
    let bytes = mapped::strip_bom(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => load(name, text),
        Err(e) => {
            let shown = String::from_utf8_lossy(bytes);
            let span = (e.valid_up_to(), 1).into();
            let src = error::Source::new(name, &shown);
            Err(Diagnostics::new(
                src,
                vec![RuleError::Encoding { span }],
                name,
            ))
        }
    }
}

/// Parses and checks a rule file: text -> AST -> rules.
pub fn load(name: &str, text: &str) -> Result<Loaded, Diagnostics<RuleError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let src = error::Source::new(name, text);
    let fail = |errors| Diagnostics::new(src.clone(), errors, name);
    let ast = syntax::parse(text).map_err(|e| fail(vec![e]))?;
    let (mut rules, warnings) = resolve::resolve(&ast).map_err(fail)?;
    // What `explain --why` names the goal's parts by: their text.
    rules.goal_part_texts = (rules.goal_part_spans.iter())
        .map(|s| {
            let part = text.get(s.offset()..s.offset() + s.len()).unwrap_or("");
            let code = part.lines().map(|l| l.split('#').next().unwrap_or(""));
            code.flat_map(str::split_whitespace)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    Ok(Loaded {
        rules,
        warnings,
        src,
    })
}

/// What `puzzle verify` finds of one case's moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Legal, reaching a goal, at the least cost.
    Optimal { steps: usize, cost: solution::Cost },
    /// `-`, and indeed no way exists.
    NoWay,
    /// Legal and reaching a goal, at more than the least cost (part by
    /// part, in order, where costs have parts).
    NotOptimal {
        cost: solution::Cost,
        least: solution::Cost,
    },
    /// Legal, but no goal at the end.
    NoGoal { steps: usize },
    /// Step `step` (from 0), `token`, cannot be taken: why.
    Illegal {
        step: usize,
        token: String,
        why: String,
    },
    /// `-`, but a way exists.
    WayExists { least: solution::Cost },
    /// The search for the least cost was stopped by a limit.
    Stopped,
}

/// Checks one case's moves (a line of `puzzle run --moves`): replays them
/// and compares their cost with the search's least.
pub fn verify(
    rules: &resolve::Rules,
    case: &input::RawCase,
    config: plan::Config,
    line: &str,
    budget: &budget::Budget,
) -> Result<Verdict, Vec<InputError>> {
    let task = task::ground(rules, case)?;
    let plan = plan::plan(&task, config).map_err(|w| vec![w.report(case, &task)])?;
    let tokens: Vec<&str> = line.split_whitespace().collect();
    // The replay first: moves that do not hold need no search.
    let replayed = if tokens == ["-"] {
        None
    } else {
        match trace::replay(&task, &plan, &tokens) {
            trace::Replay::Illegal { step, why } => {
                let token = tokens[step].to_string();
                return Ok(Verdict::Illegal { step, token, why });
            }
            trace::Replay::Done { goal: false, .. } => {
                return Ok(Verdict::NoGoal {
                    steps: tokens.len(),
                });
            }
            trace::Replay::Done { cost, goal: true } => {
                Some(solution::Cost::of(&part_names(&task), cost))
            }
        }
    };
    let least = search::run(&task, &plan, budget);
    if least.stopped.is_some() {
        return Ok(Verdict::Stopped);
    }
    let least = least.cost.map(|c| {
        let amounts = least.parts.unwrap_or_else(|| vec![c]);
        solution::Cost::of(&part_names(&task), amounts)
    });
    Ok(match (replayed, least) {
        (None, None) => Verdict::NoWay,
        (None, Some(least)) => Verdict::WayExists { least },
        (Some(cost), Some(l)) if l < cost => Verdict::NotOptimal { cost, least: l },
        (Some(cost), _) => Verdict::Optimal {
            steps: tokens.len(),
            cost,
        },
    })
}

/// What a case's solution carries besides its cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Show {
    /// The moves of a least-cost way, and the states along it
    /// ([`solution::Solution::path`], shown as [`Answer::walk`]).
    pub moves: bool,
}

/// About the most memory a case takes per cell of its map before its
/// search starts, besides the input read (measured: 28 bytes on a 10,000
/// x 10,000 map of one agent and four flags), with room to spare for more
/// agents.
pub const BYTES_PER_CELL: u64 = 40;

/// A case's answer: what the search found, and its way shown when asked
/// for.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub solution: solution::Solution,
    /// The way of [`solution::Solution::path`], drawn on the case's map.
    pub walk: Option<show::Walk>,
}

impl From<solution::Solution> for Answer {
    fn from(solution: solution::Solution) -> Self {
        Answer {
            solution,
            walk: None,
        }
    }
}

/// Solves one case within a budget: rules + map -> task -> plan ->
/// solution.
pub fn solve(
    rules: &resolve::Rules,
    case: &mut input::RawCase,
    config: plan::Config,
    show: Show,
    budget: &budget::Budget,
) -> Result<Answer, Vec<InputError>> {
    // A map's tables (the task's, the kernel's, one entry per cell or
    // more) are built before the search can check its budget: a map too
    // large for the memory left ends its case cleanly instead of aborting
    // in an allocation.
    let need = ((case.rows * case.cols) as u64).saturating_mul(BYTES_PER_CELL);
    if !budget.afford(need) {
        let mut stopped = solution::Solution::stopped(budget);
        if let Some(st) = &mut stopped.stopped {
            st.before_search = Some(need);
        }
        return Ok(stopped.into());
    }
    let task = task::ground(rules, case)?;
    // A limit (the deadline, Ctrl-C, memory) may pass while a large map's
    // tables are built: each phase ends with a check of the budget.
    if budget.poll() {
        return Ok(solution::Solution::stopped(budget).into());
    }
    if !show.moves {
        // Nothing draws this map: its characters are not held through the
        // search.
        case.forget_grid();
    }
    let plan = plan::plan(&task, config).map_err(|w| vec![w.report(case, &task)])?;
    if budget.poll() {
        return Ok(solution::Solution::stopped(budget).into());
    }
    // The way is wanted to show it or to print it; the count of its steps,
    // where steps have costs and a template prints them.
    let write = rules.io.solved.uses_path();
    let want_way = show.moves || write;
    let mut sol = search::run_finding_way(&task, &plan, budget, want_way);
    sol.goal_never = *task.goal() == task::Expr::Const(false);
    if task.unit_costs() {
        sol.steps = sol.cost;
    }
    // Unless the search found it (the plan says when), the way is found
    // again, with parents kept and within the same budget.
    let count = sol.steps.is_none() && rules.io.solved.uses_steps();
    if (want_way || count) && sol.cost.is_some() && sol.stopped.is_none() {
        let found = sol.path.take();
        match found.or_else(|| search::way::trace(&task, &plan, budget, sol.cost)) {
            Some(t) if Some(t.cost()) == sol.cost => {
                sol.steps = Some(t.steps().len() as u64);
                if write {
                    sol.written = t.written(&task, &rules.io.joiner);
                }
                sol.path = show.moves.then_some(t);
            }
            Some(_) => unreachable!("the search and the trace agree on the least cost"),
            None => sol.stopped = budget.report(),
        }
    }
    // Showing the way is a phase of its own, on the way the search found.
    let walk = sol
        .path
        .as_ref()
        .map(|p| show::walk(rules, case, &task, p.way()));
    Ok(Answer {
        solution: sol,
        walk,
    })
}

/// The names of the task's cost parts (none: its cost is one number).
fn part_names(task: &task::Task) -> Vec<String> {
    task.parts().map_or(Vec::new(), |p| p.names().to_vec())
}
