//! Visited stores against each other: on random puzzles, breadth-first and
//! bidirectional search give the same answers whether the states seen are
//! kept in a hash set, a dense bitset, or a hash set that hands over to a
//! bitset midway (`Growing`, here with a threshold low enough to cross on
//! small maps), on one thread or two.

use crate::common;
use puzzle::budget::Budget;
use puzzle::kernel::Kernel;
use puzzle::pack::{Layout, SetRanker};
use puzzle::plan::{Config, Engine, Plan, Strategy};
use puzzle::search::{
    Dense, Growing, How, Ranked, Sparse, Store, bfs, bfs_from, bfs_layered, bidir,
};
use puzzle::solution::Solution;
use puzzle::task::Task;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub(crate) fn rules(mode: &str) -> String {
    format!(
        "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
         tiles {{ floor '.'  wall '#' solid }}\n\
         agent bot[n] 'a'.. target 'A'.. on floor\n\
         move all {mode}: north east south west\n\
         forbid same cell\n\
         goal every bot on its target\n"
    )
}

/// Round `round`'s robots (in turn on even rounds, at once on odd ones,
/// with the rule lines `extra`) on a random map: the mode, the map and
/// the task.
pub(crate) fn random_task(
    rng: &mut SmallRng,
    round: usize,
    extra: &str,
) -> (&'static str, String, Task) {
    let mode = if round.is_multiple_of(2) {
        "in turn"
    } else {
        "at once"
    };
    let loaded = puzzle::load("stores.puz", &(rules(mode) + extra)).unwrap();
    let input = random_case(rng);
    let task = common::task_of(&loaded.rules, &input);
    (mode, input, task)
}

pub(crate) fn random_case(rng: &mut SmallRng) -> String {
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
    let strategy = if engine == Engine::Bidir {
        Strategy::Bidir
    } else {
        Strategy::Bfs
    };
    planned(task, strategy, threads, |_, k, how| {
        let budget = Budget::unlimited();
        if engine == Engine::Bidir {
            bidir::<u64, S>(k, how, &budget)
        } else {
            bfs::<u64, S>(k, how, &budget)
        }
    })
}

/// Runs `f` with the plan for `strategy` on `threads` threads, its
/// kernel, and the limits it gives.
pub(crate) fn planned<R>(
    task: &Task,
    strategy: Strategy,
    threads: usize,
    f: impl FnOnce(&Plan, &Kernel<'_, u64>, How) -> R,
) -> R {
    let config = Config {
        strategy,
        threads,
        count: false,
        cluster: None,
    };
    let plan = puzzle::plan::plan(task, config).expect("a plan");
    let k = Kernel::<u64>::new(task, plan.layout(), plan.kernel());
    let how = How {
        limit: None,
        threads,
        checks: plan.checks(),
        earliest: plan.earliest(),
        way: false,
    };
    f(&plan, &k, how)
}

#[test]
fn every_store_gives_the_same_answers() {
    let mut rng = SmallRng::seed_from_u64(0x5704e5);
    let (mut crossed, mut solved, mut unsolved) = (0, 0, 0);
    for round in 0..160 {
        let (_, input, task) = random_task(&mut rng, round, "");
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
        let (mode, input, task) = random_task(&mut rng, round, "");
        let want = answer(&search::<Sparse<u64>>(&task, Engine::Bfs, 1));
        for threads in [1, 2] {
            planned(&task, Strategy::Bfs, threads, |plan, k, how| {
                if plan.engine() == Engine::Nothing {
                    // No state is a goal: nothing to search.
                    return;
                }
                let Some(layers) = plan.layers() else {
                    panic!("no layers: {}\n{input}", plan.describe(&task));
                };
                let layers = layers.clone().turning_at(1);
                let unlimited = &Budget::unlimited();
                let disk = layers.clone().frontier_on_disk();
                let runs = [
                    (
                        "growing",
                        bfs_layered::<u64, Growing<u64>>(k, how, unlimited, Some(&layers)),
                    ),
                    (
                        "hash set, frontier in a file",
                        bfs_layered::<u64, Sparse<u64>>(k, how, unlimited, Some(&disk)),
                    ),
                ];
                for (what, got) in runs {
                    assert_eq!(
                        answer(&got),
                        want,
                        "{what}, {mode}, {threads} threads\n{input}"
                    );
                }
            });
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

/// States ranked with alike movers as multisets (`Ranked`), against the
/// hash set of packed states: breadth-first search on random Sokoban
/// warehouses (boxes alike) and boxes of sliding blocks (pieces of one
/// shape alike) gives the same answers, with the ranks in a hash set and
/// in a growing store that hands over to its bitset midway; and the ranker
/// is a bijection onto its ranks (every rank of a small space, and random
/// states of a large one, back and forth).
#[test]
fn ranked_states_give_the_same_answers() {
    let mut rng = SmallRng::seed_from_u64(0x5e7a);
    let sokoban = common::puzzle("sokoban").rules;
    let blocks = common::puzzle("blocks").rules;
    let (mut solved, mut unsolved, mut crossed) = (0, 0, 0);
    for round in 0..240 {
        let (rules, input) = if round % 2 == 0 {
            // A row of floor only (or left off) reads as the gap between
            // two cases: drawn again.
            let case = std::iter::repeat_with(|| crate::sokoban::random_case(&mut rng, 1).0)
                .find(|c| c.lines().all(|l| !l.trim().is_empty()))
                .unwrap();
            (&sokoban, format!("{case}0 0\n"))
        } else {
            (
                &blocks,
                format!("1\n{}", crate::pieces::random_box(&mut rng).0),
            )
        };
        let task = common::task_of(rules, &input);
        let plan = puzzle::plan::plan(&task, Config::default()).expect("a plan");
        let Some(ranker) = SetRanker::new(&task, plan.layout()) else {
            continue;
        };
        ranks_are_a_bijection(&task, plan.layout(), &ranker, &mut rng);
        if ranker.bits() > 32 {
            // Ranks past a `u32`: the plan keeps no such store.
            continue;
        }
        let want = answer(&search::<Sparse<u64>>(&task, Engine::Bfs, 1));
        for threads in [1, 2] {
            let hashed = ranked::<Sparse<u32>>(&task, &ranker, threads);
            let grown = ranked::<Growing<u32, 10>>(&task, &ranker, threads);
            assert_eq!(answer(&hashed), want, "ranks in a hash set\n{input}");
            assert_eq!(answer(&grown), want, "ranks in a growing store\n{input}");
        }
        let visited = search::<Sparse<u64>>(&task, Engine::Bfs, 1).visited();
        if visited > 2 * puzzle::plan::hash_until(ranker.bits(), 10) {
            crossed += 1;
        }
        if want.0.is_some() {
            solved += 1;
        } else {
            unsolved += 1;
        }
    }
    assert!(
        solved > 60 && unsolved > 10 && crossed > 20,
        "solved {solved}, unsolved {unsolved}, past the bitset's threshold {crossed}"
    );
}

/// Breadth-first search with the states kept as their ranks in `S`.
fn ranked<S: Store<u32>>(task: &Task, ranker: &SetRanker, threads: usize) -> Solution {
    planned(task, Strategy::Bfs, threads, |_, k, how| {
        let store = Ranked {
            inner: S::new(ranker.bits()),
            key: ranker.clone(),
        };
        bfs_from(k, how, &Budget::unlimited(), store, None)
    })
}

/// `state` inverts `rank`, and ranks lie below `size`: every rank where
/// there are few, else random states with the twins in increasing order.
fn ranks_are_a_bijection(task: &Task, layout: &Layout, ranker: &SetRanker, rng: &mut SmallRng) {
    if ranker.size() <= 1 << 16 {
        for r in 0..ranker.size() {
            let s: u64 = ranker.state(r);
            assert_eq!(ranker.rank(s), r, "rank {r} -> {s:#x}");
        }
        return;
    }
    for _ in 0..1000 {
        let mut vals: Vec<u64> = layout
            .order()
            .iter()
            .map(|&v| rng.gen_range(0..layout.field(v).size))
            .collect();
        let mut s = 0u64;
        let movers = task.movers();
        for m in movers {
            let t = m.twins();
            if t.len() > 1 && movers[t.start as usize].pos() == m.pos() {
                let ix: Vec<usize> = t
                    .map(|j| {
                        layout
                            .order()
                            .iter()
                            .position(|&v| v == movers[j as usize].pos())
                            .unwrap()
                    })
                    .collect();
                let mut group: Vec<u64> = ix.iter().map(|&i| vals[i]).collect();
                group.sort_unstable();
                for (&i, &x) in ix.iter().zip(&group) {
                    vals[i] = x;
                }
            }
        }
        for (&v, &x) in layout.order().iter().zip(&vals) {
            s |= x << layout.field(v).offset;
        }
        let r = ranker.rank(s);
        assert!(
            r < ranker.size(),
            "rank {r} of {s:#x} past {}",
            ranker.size()
        );
        assert_eq!(ranker.state::<u64>(r), s, "{s:#x} -> rank {r}");
    }
}
