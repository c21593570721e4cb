//! Pattern tables (additive pattern databases built from the rules): never
//! more than the fewest moves on every Eight board (an independent solver
//! gives those), and the same answers as an independent solver and as
//! plain breadth-first search where A* and IDA* use them from their first
//! state, on Eight, Fifteen and robots in turn.

use crate::common;
use crate::eight::{Board, distances, random_board};
use puzzle::budget::Budget;
use puzzle::plan::{Config, Plan, Strategy};
use puzzle::search::Heuristic;
use puzzle::task::Task;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The task of the one case `input` holds.
fn ground(rules: &puzzle::resolve::Rules, input: &str) -> Task {
    let case = puzzle::input::Reader::new(rules.io(), input, false, None)
        .next_case()
        .expect("a case")
        .expect("the case reads");
    puzzle::task::ground(rules, &case).expect("the case grounds")
}

fn plan(task: &Task, strategy: Strategy) -> Plan {
    let config = Config {
        strategy,
        threads: 1,
        count: false,
        cluster: None,
    };
    puzzle::plan::plan(task, config).expect("the plan")
}

/// The answer of a search of `task` under `plan`, as the fewest steps.
fn answer(task: &Task, plan: &Plan) -> Option<u64> {
    // No limit: nothing stops it.
    puzzle::search::run(task, plan, &Budget::unlimited()).cost()
}

fn eight_input(b: &Board) -> String {
    let cells: Vec<String> = b.iter().map(u8::to_string).collect();
    format!("1\n{}\n", cells.join(" "))
}

/// Every solvable Eight board: the bound with its pattern table (one group
/// of all eight pieces, following the free cell: 9! placements) is at most
/// the fewest moves, changes by at most one a move, and, as the group is
/// the whole board, is the fewest moves.
#[test]
fn pattern_tables_never_overestimate_on_eight() {
    let rules = common::puzzle("eight").rules;
    let dist = distances();
    let solved = [1, 2, 3, 4, 5, 6, 7, 8, 0];
    let task = ground(&rules, &eight_input(&solved));
    let plan = plan(&task, Strategy::Astar).patterns_after(0);
    let bound = plan.bound().expect("A*'s bound");
    assert_eq!(
        bound
            .partitions
            .iter()
            .flatten()
            .map(Vec::len)
            .collect::<Vec<_>>(),
        [8]
    );
    assert_eq!(bound.free, 1);
    let budget = Budget::unlimited();
    let mut h = Heuristic::new(&task, plan.layout(), bound, &budget).expect("the bound");
    assert!(h.build_patterns(&budget));
    let layout = plan.layout();
    let state = |b: &Board| -> u64 {
        let mut vals = vec![0i64; task.vars().len()];
        for m in task.movers() {
            // piece[k] stands where `k` is on the board.
            let k: u8 = m.name()["piece[".len()..m.name().len() - 1]
                .parse()
                .unwrap();
            let cell = b.iter().position(|&x| x == k).unwrap() as u32;
            vals[m.pos().ix()] = m.domain().position_of(cell).unwrap() as i64;
        }
        layout.encode(&vals)
    };
    let (mut exact, mut plain) = (0, 0);
    for (b, &d) in &dist {
        let v = h.of(state(b), u32::MAX - 1);
        assert!(v <= d, "{b:?}: bound {v}, fewest moves {d}");
        exact += usize::from(v == d);
        // Summed distances, for comparison.
        let manhattan: u32 = (0..9)
            .filter(|&i| b[i] != 0)
            .map(|i| {
                let g = usize::from(b[i]) - 1;
                ((i / 3).abs_diff(g / 3) + (i % 3).abs_diff(g % 3)) as u32
            })
            .sum();
        assert!(
            v >= manhattan,
            "{b:?}: {v} below the summed distances {manhattan}"
        );
        plain += usize::from(manhattan == d);
        // A move changes it by at most one.
        let z = b.iter().position(|&x| x == 0).unwrap();
        for n in [z.wrapping_sub(3), z + 3, z.wrapping_sub(1), z + 1] {
            let beside = n < 9 && (n / 3 == z / 3 || n % 3 == z % 3);
            if beside {
                let mut c = *b;
                c.swap(z, n);
                let w = h.of(state(&c), u32::MAX - 1);
                assert!(v.abs_diff(w) <= 1, "{b:?} {v} -> {c:?} {w}");
            }
        }
    }
    assert!(
        exact == dist.len() && plain < exact / 4,
        "exact on {exact} boards (summed distances on {plain}) of {}",
        dist.len()
    );
}

/// A* and IDA* with the tables from the first state against an
/// independent solver on random Eight boards.
#[test]
fn pattern_tables_keep_the_answers_on_eight() {
    let rules = common::puzzle("eight").rules;
    let dist = distances();
    let mut rng = SmallRng::seed_from_u64(0x9a77e);
    let mut boards = 0;
    while boards < 40 {
        let b = random_board(&mut rng);
        let Some(&d) = dist.get(&b) else { continue };
        boards += 1;
        let task = ground(&rules, &eight_input(&b));
        for strategy in [Strategy::Astar, Strategy::Ida] {
            let p = plan(&task, strategy).patterns_after(0);
            assert_eq!(answer(&task, &p), Some(u64::from(d)), "{b:?} {strategy:?}");
        }
    }
}

/// Fifteen boards a random walk from the solved one: A* and IDA* with
/// pattern tables of five pieces each against plain breadth-first search.
#[test]
fn pattern_tables_keep_the_answers_on_fifteen() {
    let rules = common::puzzle("fifteen").rules;
    let mut rng = SmallRng::seed_from_u64(0xf1f7ee7);
    for _ in 0..8 {
        let mut b: Vec<u8> = (1..16).chain([0]).collect();
        let mut z = 15usize;
        for _ in 0..rng.gen_range(10..=22) {
            let (r, c) = (z / 4, z % 4);
            let mut next = Vec::new();
            if r > 0 {
                next.push(z - 4);
            }
            if r < 3 {
                next.push(z + 4);
            }
            if c > 0 {
                next.push(z - 1);
            }
            if c < 3 {
                next.push(z + 1);
            }
            let n = next[rng.gen_range(0..next.len())];
            b.swap(z, n);
            z = n;
        }
        let cells: Vec<String> = b.iter().map(u8::to_string).collect();
        let task = ground(&rules, &format!("1\n{}\n", cells.join(" ")));
        let bfs = answer(&task, &plan(&task, Strategy::Bfs));
        assert!(bfs.is_some());
        for strategy in [Strategy::Astar, Strategy::Ida] {
            let p = plan(&task, strategy).patterns_after(0);
            let bound = p.bound().expect("A*'s bound");
            assert_eq!((bound.partitions[0].len(), bound.free), (3, 1));
            assert_eq!(answer(&task, &p), bfs, "{b:?} {strategy:?}");
        }
    }
}

/// Robots in turn on open maps with walls, with pattern tables from the
/// first state, against plain breadth-first search, ways or none: on maps
/// of at most 64 cells the tables follow the many free cells, on larger
/// ones they leave the other robots out.
#[test]
fn pattern_tables_keep_the_answers_for_robots_in_turn() {
    let text = "input { cases until eof  header n rows cols  grid rows x cols }\n\
                tiles { floor '.'  wall '#' solid }\n\
                agent bot[n] 'a'.. target 'A'.. on floor\n\
                move bot in turn: north east south west\n\
                forbid same cell\n\
                goal every bot on its target\n";
    let rules = puzzle::load("robots.puz", text).unwrap().rules;
    let mut rng = SmallRng::seed_from_u64(0x20b075);
    let (mut grouped, mut compared, mut followed) = (0, 0, 0);
    while compared < 60 {
        // One map in six larger than 64 cells, with fewer robots.
        let large = compared % 6 == 5;
        let (h, w, n) = if large {
            (9, 9, 2)
        } else {
            (
                rng.gen_range(2..=5),
                rng.gen_range(2..=5),
                rng.gen_range(2..=4),
            )
        };
        let walls = if large { 12 } else { 4 };
        let mut g = common::random_grid(&mut rng, h, w, |r| {
            if r.gen_range(0..walls) == 0 {
                b'#'
            } else {
                b'.'
            }
        });
        let mut cells: Vec<usize> = (0..h * w).filter(|&i| g[i / w][i % w] == b'.').collect();
        if cells.len() < 2 * n {
            continue;
        }
        for i in 0..2 * n {
            let j = rng.gen_range(i..cells.len());
            cells.swap(i, j);
        }
        // The robots on the first cells drawn, their targets on the next.
        for i in 0..n {
            let (a, t) = (cells[i], cells[n + i]);
            g[a / w][a % w] = b'a' + i as u8;
            g[t / w][t % w] = b'A' + i as u8;
        }
        let map: String = g
            .iter()
            .map(|r| format!("{}\n", String::from_utf8_lossy(r)))
            .collect();
        let task = ground(&rules, &format!("{n} {h} {w}\n{map}"));
        let bfs = answer(&task, &plan(&task, Strategy::Bfs));
        let p = plan(&task, Strategy::Astar).patterns_after(0);
        if let Some(b) = p.bound().filter(|b| !b.partitions.is_empty()) {
            grouped += 1;
            followed += usize::from(b.free > 0);
        }
        assert_eq!(answer(&task, &p), bfs, "{map}");
        compared += 1;
    }
    // A map where some robot cannot reach its target has no bound.
    assert!(grouped > 40, "{grouped} of {compared} maps had groups");
    assert!(
        followed > 30 && grouped - followed >= 5,
        "{followed} of {grouped} tables followed the free cells"
    );
}
