//! IDA*, asked for (`--strategy ida`) and turned to by A* when its states
//! come near the memory limit: the fewest steps, as an independent solver
//! (Eight) and plain breadth-first search (robots moving at once, where
//! ways of one length and the next both exist) find them, on random maps
//! that have a way (IDA* cannot tell that none exists: a time limit ends
//! it there).

use crate::common;
use crate::eight::{Board, board_text, distances, random_board};
use puzzle::budget::{Budget, Limits};
use puzzle::plan::{Config, Engine, Strategy};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

fn config(strategy: Strategy, threads: usize) -> Config {
    Config {
        strategy,
        threads,
        count: false,
        cluster: None,
    }
}

/// Solvable Eight boards, by IDA* on one thread and two, against the
/// fewest moves of a breadth-first search over every board.
#[test]
fn ida_agrees_with_an_independent_solver_on_eight() {
    let rules = common::puzzle("eight").rules;
    let dist = distances();
    let mut rng = SmallRng::seed_from_u64(0x1da_e1647);
    // Most random walks come back near the solved board: half the boards
    // are kept only when they are 16 moves or more from it.
    let mut boards: Vec<Board> = Vec::new();
    for deep in [false, true] {
        let more = std::iter::repeat_with(|| random_board(&mut rng))
            .filter(|b| dist.get(b).is_some_and(|&d| !deep || d >= 16))
            .take(30);
        boards.extend(more.collect::<Vec<_>>());
    }
    let mut input = format!("{}\n", boards.len());
    for b in &boards {
        input.push_str(&board_text(&mut rng, b));
    }
    let want: String = boards.iter().map(|b| format!("{}\n", dist[b])).collect();
    let deep = boards.iter().filter(|b| dist[*b] >= 16).count();
    assert!(deep > 25, "{deep} boards of 16 moves or more");
    for threads in [1, 2] {
        let got = common::run_with(&rules, &input, config(Strategy::Ida, threads));
        assert_eq!(got, want, "{threads} threads\n{input}");
    }
}

/// Robots at once (with `stay` and diagonals: a way one step longer than
/// the fewest may exist), some walls: A* that turns to IDA* after a few
/// states, against breadth-first search, where there is a way.
#[test]
fn astar_turned_to_ida_agrees_with_breadth_first_search() {
    let text = "input { cases until eof  header n rows cols  grid rows x cols }\n\
                tiles { floor '.'  wall '#' solid }\n\
                agent bot[n] 'a'.. target 'A'.. on floor\n\
                move all at once: stay north east south west northeast southwest\n\
                forbid same cell\n\
                goal every bot on its target\n";
    let loaded = puzzle::load("turn.puz", text).unwrap();
    let mut rng = SmallRng::seed_from_u64(0x7a27);
    // A time limit lets A* turn; one no test comes near.
    let budget = || {
        Budget::new(Limits {
            timeout: Some(Duration::from_secs(3600)),
            ..Limits::default()
        })
    };
    let (mut turned, mut compared) = (0, 0);
    while compared < 150 {
        let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=6));
        let n = rng.gen_range(1..=3usize);
        let Some(input) = common::robots_case(&mut rng, h, w, n) else {
            continue;
        };
        let task = common::task_of(&loaded.rules, &input);
        let bfs = puzzle::plan::plan(&task, config(Strategy::Bfs, 1)).unwrap();
        let Some(want) = puzzle::search::run(&task, &bfs, &budget()).cost() else {
            continue;
        };
        let plan = puzzle::plan::plan(&task, config(Strategy::Astar, 1)).unwrap();
        if plan.engine() != Engine::Astar {
            continue;
        }
        let Some(plan) = plan.turns_to_ida().map(|_| {
            let after = rng.gen_range(1..40);
            plan.turning_to_ida_after(after)
        }) else {
            panic!("A* turns to IDA*\n{input}");
        };
        let got = puzzle::search::run(&task, &plan, &budget());
        assert_eq!(got.cost(), Some(want), "{input}");
        turned += usize::from(got.ida_from().is_some());
        compared += 1;
    }
    assert!(
        turned > 60,
        "A* turned to IDA* on {turned} maps of {compared}"
    );
}

/// IDA* asked for where A*'s bound does not apply (steps with costs, a
/// goal that pins no agent): the plan says so and searches otherwise.
#[test]
fn ida_asked_for_where_no_bound_applies_says_why() {
    for (text, want) in [
        (
            "input { cases until eof  header rows cols  grid rows x cols }\n\
             tiles { floor '.'  mud '~'  exit 'G'  wall '#' solid }\n\
             agent me 'S' on floor\nmove me: north east south west\n\
             enter mud costs 3\ngoal me on exit\n",
            "IDA* was asked for, but steps cost from 1 to 3",
        ),
        (
            "input { cases until eof  header rows cols  grid rows x cols }\n\
             tiles { floor '.' '~' 'G'  wall '#' solid }\n\
             flag lit\nagent me 'S' on floor\nmove me: north east south west\n\
             goal not lit\n",
            "IDA* was asked for, but",
        ),
    ] {
        let loaded = puzzle::load("why.puz", text).unwrap();
        let task = common::task_of(&loaded.rules, "2 3\nS.G\n.~.\n");
        let plan = puzzle::plan::plan(&task, config(Strategy::Ida, 1)).unwrap();
        let said = plan.describe(&task);
        assert_ne!(plan.engine(), Engine::Ida, "{said}");
        assert!(said.contains(want), "{said}");
    }
}
