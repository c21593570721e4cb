//! Visited stores against each other: on random puzzles, breadth-first and
//! bidirectional search give the same answers whether the states seen are
//! kept in a hash set, a dense bitset, or a hash set that hands over to a
//! bitset midway (`Growing`, here with a threshold low enough to cross on
//! small maps), on one thread or two.

use crate::common;
use puzzle::budget::Budget;
use puzzle::kernel::Kernel;
use puzzle::plan::{Config, Engine, Strategy};
use puzzle::search::{Dense, Growing, How, Sparse, Store, bfs, bfs_layered, bidir};
use puzzle::solution::Solution;
use puzzle::task::Task;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn rules(mode: &str) -> String {
    format!(
        "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
         tiles {{ floor '.'  wall '#' solid }}\n\
         agent bot[n] 'a'.. target 'A'.. on floor\n\
         move all {mode}: north east south west\n\
         forbid same cell\n\
         goal every bot on its target\n"
    )
}

fn random_case(rng: &mut SmallRng) -> String {
    let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=7));
    let n = rng.gen_range(2..=3usize);
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(0.2) { b'#' } else { b'.' });
    let cells = common::all_cells(&g);
    if cells.len() < 2 * n + 1 {
        return random_case(rng);
    }
    common::place(rng, &mut g, cells, &common::family_markers(n));
    common::case_text(&format!("{n} {h} {w}"), &g)
}

/// What must agree: the cost, and where every reachable state was seen
/// (no goal), how many there were.
fn answer(s: &Solution) -> (Option<u64>, Option<u64>) {
    (s.cost(), s.cost().is_none().then_some(s.visited()))
}

fn search<S: Store<u64>>(task: &Task, engine: Engine, threads: usize) -> Solution {
    let config = Config {
        strategy: if engine == Engine::Bidir {
            Strategy::Bidir
        } else {
            Strategy::Bfs
        },
        threads,
        count: false,
    };
    let plan = puzzle::plan::plan(task, config).expect("a plan");
    let k = Kernel::<u64>::new(task, plan.layout(), plan.kernel());
    let how = How {
        limit: None,
        threads,
        checks: plan.checks(),
        earliest: plan.earliest(),
    };
    let budget = Budget::unlimited();
    if engine == Engine::Bidir {
        bidir::<u64, S>(&k, how, &budget)
    } else {
        bfs::<u64, S>(&k, how, &budget)
    }
}

#[test]
fn every_store_gives_the_same_answers() {
    let mut rng = SmallRng::seed_from_u64(0x5704e5);
    let (mut crossed, mut solved, mut unsolved) = (0, 0, 0);
    for round in 0..160 {
        let mode = if round % 2 == 0 { "in turn" } else { "at once" };
        let loaded = puzzle::load("stores.puz", &rules(mode)).unwrap();
        let input = random_case(&mut rng);
        let task = common::task_of(&loaded.rules, &input);
        let bits = puzzle::plan::plan(&task, Config::default())
            .expect("a plan")
            .layout()
            .bits();
        let engines: &[Engine] = if task.goal_state().is_some() {
            &[Engine::Bfs, Engine::Bidir]
        } else {
            &[Engine::Bfs]
        };
        for &engine in engines {
            let want = answer(&search::<Sparse<u64>>(&task, engine, 1));
            for threads in [1, 2] {
                let runs = [
                    (
                        "dense",
                        answer(&search::<Dense<u64>>(&task, engine, threads)),
                    ),
                    (
                        "growing",
                        answer(&search::<Growing<u64>>(&task, engine, threads)),
                    ),
                    (
                        "growing/4",
                        answer(&search::<Growing<u64, 4>>(&task, engine, threads)),
                    ),
                    (
                        "growing/1",
                        answer(&search::<Growing<u64, 1>>(&task, engine, threads)),
                    ),
                ];
                for (store, got) in runs {
                    assert_eq!(got, want, "{store}, {engine:?}, {threads} threads\n{input}");
                }
            }
            let visited = search::<Sparse<u64>>(&task, engine, 1).visited();
            if visited > 2 * puzzle::plan::hash_until(bits, 4) {
                crossed += 1;
            }
            if want.0.is_some() {
                solved += 1;
            } else {
                unsolved += 1;
            }
        }
    }
    assert!(
        crossed > 40 && solved > 40 && unsolved > 10,
        "searches that passed the bitset's threshold: {crossed}; solved {solved}, unsolved {unsolved}"
    );
}

/// Breadth-first search that turns to bitset layers (`search::layers`)
/// from its first level, against the hash set alone, on random robots in
/// turn and at once: the same costs, and where no goal is reached, the
/// same number of states; on one thread and two, after a hash set or a
/// growing bitset, with the frontier in memory or in a file.
#[test]
fn layers_give_the_same_answers() {
    let mut rng = SmallRng::seed_from_u64(0x1a7e25);
    let (mut solved, mut unsolved) = (0, 0);
    for round in 0..200 {
        let mode = if round % 2 == 0 { "in turn" } else { "at once" };
        let loaded = puzzle::load("layers.puz", &rules(mode)).unwrap();
        let input = random_case(&mut rng);
        let task = common::task_of(&loaded.rules, &input);
        let want = answer(&search::<Sparse<u64>>(&task, Engine::Bfs, 1));
        for threads in [1, 2] {
            let config = Config {
                strategy: Strategy::Bfs,
                threads,
                count: false,
            };
            let plan = puzzle::plan::plan(&task, config).expect("a plan");
            if plan.engine() == Engine::Nothing {
                // No state is a goal: nothing to search.
                continue;
            }
            let Some(layers) = plan.layers() else {
                panic!("no layers: {}\n{input}", plan.describe(&task));
            };
            let layers = layers.clone().turning_at(1);
            let k = Kernel::<u64>::new(&task, plan.layout(), plan.kernel());
            let how = How {
                limit: None,
                threads,
                checks: plan.checks(),
                earliest: plan.earliest(),
            };
            let unlimited = &Budget::unlimited();
            let disk = layers.clone().frontier_on_disk();
            let runs = [
                (
                    "growing",
                    bfs_layered::<u64, Growing<u64>>(&k, how, unlimited, Some(&layers)),
                ),
                (
                    "hash set, frontier in a file",
                    bfs_layered::<u64, Sparse<u64>>(&k, how, unlimited, Some(&disk)),
                ),
            ];
            for (what, got) in runs {
                assert_eq!(
                    answer(&got),
                    want,
                    "{what}, {mode}, {threads} threads\n{input}"
                );
            }
        }
        if want.0.is_some() {
            solved += 1;
        } else {
            unsolved += 1;
        }
    }
    assert!(
        solved > 60 && unsolved > 10,
        "solved {solved}, unsolved {unsolved}"
    );
}
