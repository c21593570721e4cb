//! What the browser playground (`puzzle serve`) asks of a rule file and a
//! map, each a function from texts to JSON: the reports of `check` placed
//! by line and column; the answers of `run` with the way of a case drawn
//! frame by frame; the plans of `explain`; and a move of `play`, replayed
//! from the start (the page keeps the moves; the server keeps nothing).
//!
//! Invariant: nothing here panics on any text, and every search runs
//! within the limits given.

use crate::budget::Limits;
use crate::error::Diagnostics;
use crate::play::{Command, Game, NoGame, Session};
use crate::run::{Input, Options};
use serde_json::{Value, json};

/// Reports as JSON objects: `severity`, `code`, `message`, and the span's
/// `start` and `end` (each `line` and `column` from 0, columns in UTF-16
/// units, as the page's editor counts them) and byte `offset` / `length`.
fn placed(text: &str, reports: &[crate::outline::Report]) -> Vec<Value> {
    (reports.iter())
        .map(|r| {
            let at = |o| {
                let p = crate::outline::position(text, o);
                json!({"line": p.line, "column": p.column})
            };
            json!({
                "severity": if r.warning { "warning" } else { "error" },
                "code": r.code,
                "message": r.message,
                "start": at(r.offset),
                "end": at(r.offset + r.len),
                "offset": r.offset,
                "length": r.len,
            })
        })
        .collect()
}

/// `check`: the rule file's reports.
pub fn check(rules: &str) -> Value {
    let checked = crate::outline::check("rules.puz", rules);
    json!({ "reports": placed(rules, &checked.reports) })
}

/// The rules loaded, or the reply that says why not.
fn loaded(rules: &str) -> Result<crate::Loaded, Value> {
    crate::load("rules.puz", rules).map_err(|_| {
        json!({
            "error": "the rule file has errors: see its reports",
            "reports": check(rules)["reports"],
        })
    })
}

/// A map's reports, placed in the map.
fn input_failed(input: &str, e: crate::run::RunError) -> Value {
    match e {
        crate::run::RunError::Input(d) => json!({
            "error": d.summary,
            "input_reports": placed(input, &input_reports(&d)),
        }),
        e => json!({ "error": e.to_string() }),
    }
}

fn input_reports(d: &Diagnostics<crate::error::InputError>) -> Vec<crate::outline::Report> {
    (d.errors.iter())
        .map(|e| crate::outline::report(e, false))
        .collect()
}

fn options(limits: Limits, case: Option<usize>) -> Options {
    Options {
        limits,
        case,
        search: crate::search::Config {
            threads: 1,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `run`: what `puzzle run` prints for the input, and the way of case
/// `case` (from 1) drawn, where it has one.
pub fn run(rules: &str, input: &str, case: usize, limits: Limits) -> Value {
    let loaded = match loaded(rules) {
        Ok(l) => l,
        Err(reply) => return reply,
    };
    let mut out = Vec::new();
    let opts = options(limits, None);
    let summary = match crate::run::run(&loaded.rules, "map", input, &opts, &mut out) {
        Ok(s) => s,
        Err(e) => return input_failed(input, e),
    };
    let text = Input::from_text("map", input);
    let way = match crate::run::render_case(&loaded.rules, &text, &opts, case.max(1)) {
        Ok(crate::run::Rendered::Way(w)) => serde_json::to_value(&*w).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    json!({
        "output": String::from_utf8_lossy(&out),
        "stopped": summary.stopped,
        "way": way,
    })
}

/// `explain`: the plan of every case.
pub fn explain(rules: &str, input: &str, limits: Limits) -> Value {
    let loaded = match loaded(rules) {
        Ok(l) => l,
        Err(reply) => return reply,
    };
    let mut out = Vec::new();
    let text = Input::from_text("map", input);
    match crate::run::explain_input(&loaded.rules, &text, &options(limits, None), &mut out) {
        Ok(()) => json!({ "output": String::from_utf8_lossy(&out) }),
        Err(e) => input_failed(input, e),
    }
}

/// `play`: case `case` after the moves `moves` (tokens, as `--moves`
/// writes them), then `command` (a line as `puzzle play` reads it: a move,
/// a number, `/undo`, `/restart`, `/hint`); the screen, the moves now and
/// the board's frame.
pub fn play(
    rules: &str,
    input: &str,
    case: usize,
    moves: &[String],
    command: Option<&str>,
    limits: Limits,
) -> Value {
    let loaded = match loaded(rules) {
        Ok(l) => l,
        Err(reply) => return reply,
    };
    let text = Input::from_text("map", input);
    let opts = options(limits, None);
    let raw = match crate::run::nth_case(&loaded.rules, &text, &opts, case.max(1)) {
        Ok(Ok(raw)) => raw,
        Ok(Err(read)) => {
            return json!({ "error": format!("the input has {read} cases, not {case}") });
        }
        Err(e) => return input_failed(input, e),
    };
    let game = match Game::new(&loaded.rules, raw, opts.search) {
        Ok(g) => g,
        Err(NoGame::Input(errors)) => {
            let d = Diagnostics::new(crate::error::Source::new("map", input), errors, "map");
            return json!({ "error": d.summary, "input_reports": placed(input, &input_reports(&d)) });
        }
        Err(NoGame::NoStart) => {
            return json!({ "error": "the start is forbidden, or leaves a counter's range" });
        }
    };
    let mut session = Session::new(game);
    for (i, token) in moves.iter().enumerate() {
        if let Err(why) = session.game.take_token(token) {
            return json!({ "error": format!("move {} (`{token}`): {why}", i + 1) });
        }
    }
    if let Some(line) = command {
        let asked = match Command::parse(line) {
            Ok(cmd) => session.apply(cmd),
            Err(why) => return json!({ "error": why }),
        };
        session.search(asked, &crate::budget::Budget::new(limits));
    }
    let walk = session.game.walk();
    let last = walk.frames.len() - 1;
    json!({
        "screen": session.screen(),
        "board": walk.board(last),
        "moves": walk.steps,
        "choices": session.game.choices().iter().map(|c| c.token.clone()).collect::<Vec<_>>(),
        "solved": session.game.solved(),
    })
}
