//! Playing a case by hand (`puzzle play`): a way built one step at a time
//! from the start, each step one the generic interpreter takes (the same
//! steps the search takes), with undo, restart, the reason a step is
//! refused, and a hint: the first step of a least-cost way from the state
//! now, found by a search started there.
//!
//! Invariant: `states.len() == steps.len() + 1 == spent.len()`; `states[0]`
//! is the task's first start state, and each later state is a successor of
//! the one before it by the step between them; `spent[i]` is the cost of
//! the way up to `states[i]`, part by part (one number where costs have no
//! parts).

use crate::budget::Budget;
use crate::error::InputError;
use crate::input::RawCase;
use crate::kernel::{Generic, Kernel, KernelKind};
use crate::pack::Word;
use crate::plan::{Config, Plan};
use crate::resolve::Rules;
use crate::show::Walk;
use crate::task::{Dir, Mode, Task};
use crate::trace::{Step, Way};

/// A case being played.
pub struct Game<'r> {
    rules: &'r Rules,
    case: RawCase,
    /// The case's task with every state kept ([`Task::unpruned`]): a
    /// player may make any legal step, also one after which no goal can
    /// be reached.
    task: Task,
    plan: Plan,
    /// The task as grounded, which the hints and the least cost search.
    searched: Task,
    config: Config,
    /// How many start states the case has (the game starts from the first).
    starts: usize,
    steps: Vec<Step>,
    states: Vec<Vec<i64>>,
    spent: Vec<Vec<u64>>,
}

/// A step that can be taken now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// As `puzzle run --moves` writes it.
    pub token: String,
    pub step: Step,
    /// The state it leads to.
    pub to: Vec<i64>,
    /// What it costs, part by part.
    pub cost: Vec<u64>,
}

/// Why a case cannot be played.
#[derive(Debug)]
pub enum NoGame {
    /// The case's map is wrong (located reports).
    Input(Vec<InputError>),
    /// Every start state is forbidden, or leaves a counter's range.
    NoStart,
}

/// What a hint found from the state now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// Take `choices()[choice]` (`token`): a least-cost way from here then
    /// costs `left` (part by part) in `steps` steps.
    Next {
        choice: usize,
        token: String,
        left: Vec<u64>,
        steps: usize,
    },
    /// The state now is a goal.
    Solved,
    /// No way to a goal from here (within the rule file's limit).
    NoWay,
    /// The search for it was stopped by a limit (said in words).
    Stopped(String),
}

impl<'r> Game<'r> {
    /// The case grounded and planned, at its first start state.
    pub fn new(rules: &'r Rules, case: RawCase, config: Config) -> Result<Game<'r>, NoGame> {
        let searched = crate::task::ground(rules, &case).map_err(NoGame::Input)?;
        let task = searched.unpruned();
        let plan = crate::plan::plan(&task, config)
            .map_err(|w| NoGame::Input(vec![w.report(&case, &task)]))?;
        let starts: Vec<Vec<i64>> = crate::plan::by_word!(plan.word(), starts_in(&task, &plan));
        let first = starts.first().cloned().ok_or(NoGame::NoStart)?;
        let parts = task.parts().map_or(1, |p| p.names().len());
        Ok(Game {
            rules,
            case,
            starts: starts.len(),
            task,
            plan,
            searched,
            config,
            steps: Vec::new(),
            states: vec![first],
            spent: vec![vec![0; parts]],
        })
    }

    pub fn task(&self) -> &Task {
        &self.task
    }

    /// How many start states the case has (the game is played from the
    /// first).
    pub fn starts(&self) -> usize {
        self.starts
    }

    /// The names of the cost's parts (empty: it is one number).
    pub fn part_names(&self) -> Vec<String> {
        self.task.parts().map_or(Vec::new(), |p| p.names().to_vec())
    }

    /// The steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// The cost of the way so far, part by part.
    pub fn spent(&self) -> &[u64] {
        self.spent.last().expect("a game has a state")
    }

    fn now(&self) -> &[i64] {
        self.states.last().expect("a game has a state")
    }

    /// The way so far, drawn: its last frame is the state now.
    pub fn walk(&self) -> Walk {
        let costs: Vec<u64> = self.spent.iter().map(|p| p[0]).collect();
        let way = Way {
            steps: &self.steps,
            states: &self.states,
            costs: &costs,
        };
        crate::show::walk(self.rules, &self.case, &self.task, way)
    }

    /// The steps that can be taken now, in the interpreter's order, each
    /// once (a step with several outcomes, such as a teleport that may be
    /// taken or not, once per outcome).
    pub fn choices(&self) -> Vec<Choice> {
        crate::plan::by_word!(
            self.plan.word(),
            choices_in(&self.task, &self.plan, self.now())
        )
    }

    /// Whether the state now is a goal, within the rule file's limit.
    pub fn solved(&self) -> bool {
        let within = (self.task.limit())
            .is_none_or(|l| l.spent(self.steps.len() as u64, self.spent()[0]) <= l.max);
        within
            && crate::plan::by_word!(
                self.plan.word(),
                goal_in(&self.task, &self.plan, self.now())
            )
    }

    /// Takes a choice (one of [`Self::choices`]).
    pub fn take(&mut self, c: Choice) {
        let spent = self.spent().iter().zip(&c.cost).map(|(a, b)| a + b);
        self.spent.push(spent.collect());
        self.states.push(c.to);
        self.steps.push(c.step);
    }

    /// Takes the step a token names (as `--moves` writes it); why not,
    /// when it cannot be taken now or leads to several states.
    pub fn take_token(&mut self, token: &str) -> Result<(), String> {
        // Where one agent chooses its moves and objects move too, `east`
        // is the agent's, as well as `keeper:east`.
        let choosers: Vec<&crate::task::Mover> = (self.task.movers().iter())
            .filter(|m| !m.actions().is_empty())
            .collect();
        let full;
        let token = match choosers.as_slice() {
            [m] if self.task.mode() == Mode::InTurn
                && !token.contains(':')
                && crate::trace::parse(&self.task, token).is_err() =>
            {
                full = format!("{}:{token}", m.name());
                &full
            }
            _ => token,
        };
        let step = crate::trace::parse(&self.task, token)?;
        let choices = self.choices();
        let same: Vec<&Choice> = choices.iter().filter(|c| c.step == step).collect();
        let written: Vec<&Choice> = if self.task.lettered() {
            same.iter().copied().filter(|c| c.token == token).collect()
        } else {
            same.clone()
        };
        match written.as_slice() {
            [c] => {
                let c = (*c).clone();
                self.take(c);
                Ok(())
            }
            [] if !same.is_empty() => Err(format!(
                "`{}` is not how this step is written: it is `{}` (a push has a letter of its own)",
                crate::error::raw(token),
                same[0].token
            )),
            [] => Err(self
                .refusal(&step)
                .unwrap_or_else(|| format!("`{}` cannot be taken here", crate::error::raw(token)))),
            several => Err(format!(
                "`{}` leads to {} different states here: choose one by its number",
                crate::error::raw(token),
                several.len()
            )),
        }
    }

    /// The choice that moves mover `m` towards `dir` (its one such step
    /// now, or, where every mover makes the same move, the step all make
    /// towards it); why not, where there is none or more than one.
    pub fn toward(&self, m: usize, dir: Dir) -> Result<Choice, String> {
        let task = &self.task;
        let mover = &task.movers()[m];
        let heading = mover.heading().map_or(0, |h| self.now()[h.ix()]);
        let goes = |a: crate::task::ActionId| task.action(a).motion().dir(heading) == Some(dir);
        let choices = self.choices();
        let found: Vec<usize> = (0..choices.len())
            .filter(|&i| {
                let step = &choices[i].step;
                match task.mode() {
                    Mode::Together => step.first().is_some_and(|&(_, a)| goes(a)),
                    _ => step.len() == 1 && step[0].0 == m && goes(step[0].1),
                }
            })
            .collect();
        let way = dir_name(dir);
        match found.as_slice() {
            [i] => Ok(choices[*i].clone()),
            [] => {
                let Some(&a) = mover.actions().iter().find(|&&a| goes(a)) else {
                    return Err(format!("{} has no move {way}", mover.name()));
                };
                let step: Step = match task.mode() {
                    Mode::Together => (0..task.movers().len())
                        .map(|i| {
                            let k = mover.actions().iter().position(|&x| x == a).unwrap_or(0);
                            (i, task.movers()[i].actions()[k])
                        })
                        .collect(),
                    _ => vec![(m, a)],
                };
                Err(self
                    .refusal(&step)
                    .unwrap_or_else(|| format!("{} cannot move {way} here", mover.name())))
            }
            several => Err(format!(
                "{} moves go {way} here ({}): choose one by its number",
                several.len(),
                (several.iter())
                    .map(|&i| format!("{} {}", i + 1, choices[i].token))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn refusal(&self, step: &Step) -> Option<String> {
        crate::plan::by_word!(
            self.plan.word(),
            refusal_in(&self.task, &self.plan, self.now(), step)
        )
    }

    /// Takes back the last step; false at the start.
    pub fn undo(&mut self) -> bool {
        if self.steps.is_empty() {
            return false;
        }
        self.steps.pop();
        self.states.pop();
        self.spent.pop();
        true
    }

    /// Back to the start.
    pub fn restart(&mut self) {
        self.steps.clear();
        self.states.truncate(1);
        self.spent.truncate(1);
    }

    /// The first step of a least-cost way to a goal from the state now,
    /// found within `budget` (the search from the start, when it is the
    /// state now).
    pub fn hint(&self, budget: &Budget) -> Hint {
        if self.solved() {
            return Hint::Solved;
        }
        let Some(task) = self.searched.resumed(
            self.now().to_vec(),
            self.steps.len() as u64,
            self.spent()[0],
        ) else {
            return Hint::NoWay;
        };
        let plan = match crate::plan::plan(&task, self.config) {
            Ok(p) => p,
            // The same variables as the task's: they were packed before.
            Err(_) => unreachable!("a task resumed packs as it did"),
        };
        let Some(way) = crate::search::way::trace(&task, &plan, budget, None) else {
            return match budget.stopped() {
                Some(l) => Hint::Stopped(l.describe(budget.limits())),
                None => Hint::NoWay,
            };
        };
        let choices = self.choices();
        let next = &way.states()[1];
        let choice = (choices.iter())
            .position(|c| &c.to == next && c.step == way.steps()[0])
            .expect("a least-cost way's first step is one of the steps now");
        Hint::Next {
            choice,
            token: choices[choice].token.clone(),
            left: way.parts().to_vec(),
            steps: way.steps().len(),
        }
    }

    /// The least cost from the start (part by part), found within
    /// `budget`; `None` when there is no way or the budget ran out.
    pub fn least(&self, budget: &Budget) -> Option<Vec<u64>> {
        let plan = match crate::plan::plan(&self.searched, self.config) {
            Ok(p) => p,
            Err(_) => unreachable!("the task searched packs as the task played"),
        };
        let found = crate::search::run(&self.searched, &plan, budget);
        let cost = found.cost?;
        Some(found.parts.unwrap_or_else(|| vec![cost]))
    }
}

/// A compass direction's name.
pub fn dir_name(d: Dir) -> &'static str {
    match (d.dr, d.dc) {
        (-1, 0) => "north",
        (0, 1) => "east",
        (1, 0) => "south",
        (0, -1) => "west",
        _ => "that way",
    }
}

fn starts_in<W: Word>(task: &Task, plan: &Plan) -> Vec<Vec<i64>> {
    (Generic::<W>::starts(task, plan.layout()).into_iter())
        .map(|s| {
            let mut vals = vec![0; task.vars().len()];
            plan.layout().decode(s, &mut vals);
            vals
        })
        .collect()
}

fn choices_in<W: Word>(task: &Task, plan: &Plan, now: &[i64]) -> Vec<Choice> {
    let layout = plan.layout();
    let mut generic = Generic::<W>::new(task, layout);
    let mut out: Vec<Choice> = Vec::new();
    let mut after = vec![0; task.vars().len()];
    generic.each_acted(layout.encode(now), |t, c, acted| {
        layout.decode(t, &mut after);
        if !out.iter().any(|o| o.step == acted && o.to == after) {
            let step = acted.to_vec();
            out.push(Choice {
                token: crate::trace::token(task, &step, crate::trace::pushed(task, now, &after)),
                step,
                to: after.clone(),
                cost: match task.parts() {
                    Some(p) => p.amounts(c).to_vec(),
                    None => vec![u64::from(c)],
                },
            });
        }
        true
    });
    out
}

fn goal_in<W: Word>(task: &Task, plan: &Plan, now: &[i64]) -> bool {
    let k = Kernel::<W>::new(task, plan.layout(), KernelKind::Generic);
    !k.goal_never() && k.is_goal(plan.layout().encode(now))
}

fn refusal_in<W: Word>(task: &Task, plan: &Plan, now: &[i64], step: &Step) -> Option<String> {
    let mut generic = Generic::<W>::new(task, plan.layout());
    generic.refusal(plan.layout().encode(now), step)
}

/// What a player asks, by a key or a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A step as `--moves` writes it (`east`, `me:east`, `east,west`).
    Move(String),
    /// The `n`-th of the steps listed now, from 1.
    Pick(usize),
    /// The step of the chosen agent towards a compass direction.
    Toward(Dir),
    /// Choose the next agent (where several take turns).
    NextAgent,
    Undo,
    Restart,
    Hint,
    Quit,
}

impl Command {
    /// A line as a command: `/undo`, `/restart`, `/hint`, `/next`,
    /// `/quit`, `/go SIDE` (the chosen agent towards north, east, south or
    /// west, as an arrow key); a number picks a listed step; anything else
    /// is a step.
    pub fn parse(line: &str) -> Result<Command, String> {
        let line = line.trim();
        if let Some(word) = line.strip_prefix('/') {
            // `/go east`: the chosen agent's move towards a side, as an
            // arrow key makes it.
            if let Some(side) = word.strip_prefix("go ") {
                let d = Dir::COMPASS
                    .into_iter()
                    .find(|&d| dir_name(d) == side.trim());
                return d.map(Command::Toward).ok_or_else(|| {
                    format!(
                        "`/go {}`: the sides are north, east, south and west",
                        crate::error::raw(side.trim())
                    )
                });
            }
            return match word {
                "undo" | "u" => Ok(Command::Undo),
                "restart" | "r" => Ok(Command::Restart),
                "hint" | "h" => Ok(Command::Hint),
                "next" | "n" => Ok(Command::NextAgent),
                "quit" | "q" => Ok(Command::Quit),
                _ => Err(format!(
                    "`/{}` is not a command: /undo, /restart, /hint, /next, /go SIDE or /quit",
                    crate::error::raw(word)
                )),
            };
        }
        if let Ok(n) = line.parse::<usize>() {
            return Ok(Command::Pick(n));
        }
        Ok(Command::Move(line.to_string()))
    }
}

/// What a command leaves for the caller to do: a search, which may take a
/// while (the caller runs it as it sees fit, then hands its result back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    Nothing,
    Quit,
    /// Run [`Game::hint`] and give it to [`Session::hinted`].
    Hint,
    /// The goal is reached: run [`Game::least`] and give it to
    /// [`Session::least_found`].
    Least,
}

/// A game with the agent chosen and the last thing said: what a player
/// sees.
pub struct Session<'r> {
    pub game: Game<'r>,
    /// The movers that choose their moves.
    choosers: Vec<usize>,
    /// Which of `choosers` the direction keys move.
    chosen: usize,
    message: String,
}

impl<'r> Session<'r> {
    pub fn new(game: Game<'r>) -> Self {
        let choosers: Vec<usize> = (0..game.task.movers().len())
            .filter(|&m| !game.task.movers()[m].actions().is_empty())
            .collect();
        let message = if game.starts > 1 {
            format!(
                "this map has {} start states: the game starts from the first",
                game.starts
            )
        } else {
            String::new()
        };
        Session {
            game,
            choosers,
            chosen: 0,
            message,
        }
    }

    /// Whether the direction keys need an agent chosen: several take
    /// turns.
    pub fn turns(&self) -> bool {
        self.choosers.len() > 1 && self.game.task.mode() == Mode::InTurn
    }

    /// Carries out a command; what is left for the caller.
    pub fn apply(&mut self, cmd: Command) -> Asked {
        self.message.clear();
        let taken = match cmd {
            Command::Quit => return Asked::Quit,
            Command::Hint => {
                self.message = "searching for a hint...".into();
                return Asked::Hint;
            }
            Command::Undo => {
                if !self.game.undo() {
                    self.message = "nothing to undo: this is the start".into();
                }
                return Asked::Nothing;
            }
            Command::Restart => {
                self.game.restart();
                self.message = "back at the start".into();
                return Asked::Nothing;
            }
            Command::NextAgent => {
                if self.turns() {
                    self.chosen = (self.chosen + 1) % self.choosers.len();
                    let m = self.choosers[self.chosen];
                    self.message = format!("{} chosen", self.game.task.movers()[m].name());
                } else {
                    self.message = "there is no other agent to choose".into();
                }
                return Asked::Nothing;
            }
            Command::Move(token) => self.game.take_token(&token),
            Command::Pick(n) => {
                let choices = self.game.choices();
                match n.checked_sub(1).and_then(|i| choices.get(i)) {
                    Some(c) => {
                        self.game.take(c.clone());
                        Ok(())
                    }
                    None => Err(format!(
                        "there is no move {n}: the moves now are numbered 1 to {}",
                        choices.len()
                    )),
                }
            }
            Command::Toward(dir) => self.toward(dir),
        };
        match taken {
            Err(why) => {
                self.message = format!("refused: {why}");
                Asked::Nothing
            }
            Ok(()) if self.game.solved() => Asked::Least,
            Ok(()) => Asked::Nothing,
        }
    }

    fn toward(&mut self, dir: Dir) -> Result<(), String> {
        if self.game.task.mode() == Mode::AtOnce && self.choosers.len() > 1 {
            return Err(
                "the agents move at once: type their moves as one line (`:`), or choose \
                 a listed move by its number"
                    .into(),
            );
        }
        let Some(&m) = self.choosers.get(self.chosen) else {
            return Err("no agent chooses its moves here".into());
        };
        let c = self.game.toward(m, dir)?;
        self.game.take(c);
        Ok(())
    }

    /// Runs what a command left to do ([`Asked`]): a hint's search, or
    /// the least cost's, within `budget`; then says what it found.
    pub fn search(&mut self, asked: Asked, budget: &Budget) {
        match asked {
            Asked::Hint => {
                let hint = self.game.hint(budget);
                self.hinted(hint);
            }
            Asked::Least => {
                let least = self.game.least(budget);
                self.least_found(least);
            }
            Asked::Nothing | Asked::Quit => {}
        }
    }

    /// What a hint found, said.
    pub fn hinted(&mut self, hint: Hint) {
        let costs = |parts: &[u64]| self.cost_words(parts);
        self.message = match hint {
            Hint::Next {
                choice,
                token,
                left,
                steps,
            } => format!(
                "hint: {} {token} (the goal is {steps} step{} away, at {})",
                choice + 1,
                if steps == 1 { "" } else { "s" },
                costs(&left)
            ),
            Hint::Solved => "hint: the goal is reached".into(),
            Hint::NoWay => "hint: no way leads to a goal from here (undo, or restart)".into(),
            Hint::Stopped(by) => format!("hint: the search was stopped by {by}"),
        };
    }

    /// The least cost from the start, said beside the way's.
    pub fn least_found(&mut self, least: Option<Vec<u64>>) {
        let spent = self.game.spent().to_vec();
        let steps = self.game.steps();
        let way = format!(
            "goal reached in {steps} step{}, at {}",
            if steps == 1 { "" } else { "s" },
            self.cost_words(&spent)
        );
        self.message = match least {
            Some(l) if l == spent => format!("{way}: the least there is. Solved!"),
            Some(l) => format!("{way}; the least is {}", self.cost_words(&l)),
            None => format!("{way} (the least was not found within the limits)"),
        };
    }

    /// A cost in words: `cost 5`, or its parts (`pushes 1, walks 4`).
    fn cost_words(&self, parts: &[u64]) -> String {
        let names = self.game.part_names();
        if names.is_empty() {
            return format!("cost {}", parts.first().copied().unwrap_or(0));
        }
        (names.iter().zip(parts))
            .map(|(n, v)| format!("{n} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The screen: the board now, its state, the way's length and cost,
    /// the moves that can be taken (numbered), the agent chosen, and the
    /// last thing said. One line a row, ending in a line break.
    pub fn screen(&self) -> String {
        use std::fmt::Write;
        let walk = self.game.walk();
        let last = walk.frames.len() - 1;
        let mut out = walk.board(last);
        let state = walk.state_line(last);
        if !state.is_empty() {
            let _ = writeln!(out, "  {state}");
        }
        let spent = self.game.spent().to_vec();
        let _ = writeln!(
            out,
            "steps {}, total {}{}",
            self.game.steps(),
            self.cost_words(&spent),
            if self.game.solved() {
                " (goal reached)"
            } else {
                ""
            }
        );
        let choices = self.game.choices();
        if choices.is_empty() {
            let _ = writeln!(out, "moves: none");
        } else {
            let listed: Vec<String> = (choices.iter().enumerate())
                .map(|(i, c)| format!("{} {}", i + 1, c.token))
                .collect();
            let _ = writeln!(out, "moves: {}", listed.join("  "));
        }
        if self.turns() {
            let m = self.choosers[self.chosen];
            let _ = writeln!(out, "agent: {}", self.game.task.movers()[m].name());
        }
        if !self.message.is_empty() {
            let _ = writeln!(out, "{}", self.message);
        }
        out
    }
}
