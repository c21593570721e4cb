//! Strategies against each other: on random reversible puzzles (agents
//! moving in turn or at once to their own targets), bidirectional search,
//! A* and breadth-first search, on one thread or two, give the same answers.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn rules(mode: &str, dirs: &str, swap: bool) -> String {
    format!(
        "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
         tiles {{ floor '.'  wall '#' solid }}\n\
         agent bot[n] 'a'.. target 'A'.. on floor\n\
         move all {mode}: {dirs}\n\
         forbid same cell\n{}\
         goal every bot on its target\n",
        if swap { "forbid swap\n" } else { "" }
    )
}

fn random_input(rng: &mut SmallRng, cases: usize) -> String {
    let mut text = String::new();
    for _ in 0..cases {
        let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=6));
        let n = rng.gen_range(1..=3usize).min(h * w / 2);
        let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(0.25) { b'#' } else { b'.' });
        let cells = common::all_cells(&g);
        let markers = common::family_markers(n);
        common::place(rng, &mut g, cells, &markers);
        text.push_str(&common::case_text(&format!("{n} {h} {w}"), &g));
    }
    text
}

/// The answers of plain breadth-first search on one thread: the reference.
fn bfs_answers(rules: &puzzle::resolve::Rules, input: &str) -> String {
    let config = puzzle::search::Config {
        strategy: puzzle::search::Strategy::Bfs,
        threads: 1,
        count: false,
        cluster: None,
    };
    common::run_with(rules, input, config)
}

#[test]
fn all_strategies_agree() {
    let mut rng = SmallRng::seed_from_u64(0x5_7a7e);
    let variants = [
        ("in turn", "north east south west", false),
        (
            "in turn",
            "north south east west northeast southwest",
            false,
        ),
        ("at once", "stay north east south west", true),
        ("at once", "stay north east south west", false),
        (
            "at once",
            "stay north south east west northeast northwest southeast southwest",
            true,
        ),
    ];
    for (mode, dirs, swap) in variants {
        let loaded = puzzle::load("strategies.puz", &rules(mode, dirs, swap)).unwrap();
        let input = random_input(&mut rng, 60);
        let reference = bfs_answers(&loaded.rules, &input);
        assert!(
            reference.lines().any(|l| l != "-1"),
            "some cases must be solvable"
        );
        for config in common::configs() {
            let got = common::run_with(&loaded.rules, &input, config);
            assert_eq!(got, reference, "{mode} / {dirs} / swap {swap}: {config:?}");
        }
    }
}

/// Goals on flags: A* bounds each missing flag by the distance to a position
/// whose effects give it. Random maps with set, toggle and clear tiles,
/// one-way moves, gates, several movers and a step limit: A* and
/// breadth-first search agree.
#[test]
fn flag_goals_agree_with_breadth_first() {
    use puzzle::search::{Config, Strategy};
    let rules = |mode: &str, dirs: &str, goal: &str| {
        format!(
            "input {{ cases until eof  header n t rows cols  grid rows x cols }}\n\
             domain colour = red blue\n\
             tiles {{ floor '.'  wall '#' solid  lamp 'l' 'm' of colour  \
                      switch 'S' 'T' of colour  dark 'x'  gate 'G' }}\n\
             agent bot[n] '1'.. on floor\n\
             flag lit[colour]\nflag dim\n\
             move bot {mode}: {dirs}\n\
             forbid same cell\n\
             enter gate only if lit[red]\n\
             on enter switch(?c): toggle lit[?c]\n\
             on enter dark: set dim\n\
             when bot on lamp(?c): set lit[?c]\n\
             when bot on floor: clear dim\n\
             limit steps <= t\n\
             goal {goal}\n"
        )
    };
    let mut rng = SmallRng::seed_from_u64(0xf1a6);
    let variants = [
        ("in turn", "north east south west", "all lit"),
        ("in turn", "east south", "lit[blue] and not dim"),
        (
            "at once",
            "stay north east south west",
            "all lit and not dim",
        ),
        (
            "at once",
            "north east southwest",
            "lit[red] and not lit[blue]",
        ),
    ];
    for (mode, dirs, goal) in variants {
        let text = rules(mode, dirs, goal);
        let loaded = puzzle::load("flags.puz", &text).unwrap_or_else(|e| panic!("{e:?}"));
        let mut input = String::new();
        for _ in 0..80 {
            let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=6));
            let n = rng.gen_range(1..=2usize);
            let mut g = common::random_grid(&mut rng, h, w, |r| match r.gen_range(0..20) {
                0..=3 => b'#',
                4 => b'l',
                5 => b'm',
                6 => b'S',
                7 => b'T',
                8 => b'x',
                9 => b'G',
                _ => b'.',
            });
            let cells = common::all_cells(&g);
            let starts: Vec<u8> = (0..n as u8).map(|i| b'1' + i).collect();
            common::place(&mut rng, &mut g, cells, &starts);
            let t = rng.gen_range(0..=12);
            input.push_str(&common::case_text(&format!("{n} {t} {h} {w}"), &g));
        }
        let reference = bfs_answers(&loaded.rules, &input);
        assert!(
            reference.lines().any(|l| l != "-1") && reference.lines().any(|l| l == "-1"),
            "{goal}: the cases must be mixed"
        );
        for strategy in [Strategy::Auto, Strategy::Astar] {
            let got = common::run_with(
                &loaded.rules,
                &input,
                Config {
                    strategy,
                    threads: 1,
                    count: false,
                    cluster: None,
                },
            );
            assert_eq!(got, reference, "{mode} / {dirs} / {goal}: {strategy:?}");
        }
    }
}

/// A lone walker against a search written here, independent of the engine:
/// walls, a key that opens doors, an exit; moves from the 4-neighbourhood,
/// a one-way pair, and the 8-neighbourhood. Every strategy, on one thread
/// and two.
#[test]
fn a_lone_walker_matches_a_hand_written_search() {
    const DIRS: [(&str, (i32, i32)); 8] = [
        ("north", (-1, 0)),
        ("south", (1, 0)),
        ("east", (0, 1)),
        ("west", (0, -1)),
        ("northeast", (-1, 1)),
        ("northwest", (-1, -1)),
        ("southeast", (1, 1)),
        ("southwest", (1, -1)),
    ];
    let rules = |dirs: &str| {
        format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  key 'k'  door 'D'  exit 'X' }}\n\
             agent walker '@' on floor\n\
             flag has\n\
             move walker: {dirs}\n\
             enter door only if has\n\
             on enter key: set has\n\
             goal walker on exit\n\
             output {{ solved \"{{steps}}\"  unsolved \"-1\" }}\n"
        )
    };
    // Fewest steps from '@' to 'X', over (cell, key held).
    let reference = |g: &[Vec<u8>], moves: &[(i32, i32)]| -> i64 {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let start = common::find(g, b'@');
        let mut dist = vec![vec![[-1i64; 2]; g[0].len()]; g.len()];
        dist[start.0][start.1][0] = 0;
        let mut queue = std::collections::VecDeque::from([(start.0, start.1, 0usize)]);
        while let Some((r, c, k)) = queue.pop_front() {
            let d = dist[r][c][k];
            if g[r][c] == b'X' {
                return d;
            }
            for &(dr, dc) in moves {
                let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                if nr < 0 || nc < 0 || nr >= h || nc >= w {
                    continue;
                }
                let (nr, nc) = (nr as usize, nc as usize);
                let t = g[nr][nc];
                if t == b'#' || (t == b'D' && k == 0) {
                    continue;
                }
                let nk = k | usize::from(t == b'k');
                if dist[nr][nc][nk] < 0 {
                    dist[nr][nc][nk] = d + 1;
                    queue.push_back((nr, nc, nk));
                }
            }
        }
        -1
    };
    let four: Vec<_> = DIRS[..4].to_vec();
    let one_way = vec![DIRS[1], DIRS[2]];
    let eight = DIRS.to_vec();
    let mut rng = SmallRng::seed_from_u64(0x10e);
    for moves in [four, one_way, eight] {
        let names: Vec<&str> = moves.iter().map(|m| m.0).collect();
        let steps: Vec<(i32, i32)> = moves.iter().map(|m| m.1).collect();
        let loaded = puzzle::load("walker.puz", &rules(&names.join(" "))).unwrap();
        let (mut input, mut want) = (String::new(), String::new());
        for _ in 0..150 {
            let (h, w) = (rng.gen_range(1..=7), rng.gen_range(2..=8));
            let mut g = common::random_grid(&mut rng, h, w, |r| match r.gen_range(0..12) {
                0..=2 => b'#',
                3 => b'k',
                4 | 5 => b'D',
                _ => b'.',
            });
            let cells = common::all_cells(&g);
            common::place(&mut rng, &mut g, cells, b"@X");
            input.push_str(&common::case_text(&format!("{h} {w}"), &g));
            want.push_str(&format!("{}\n", reference(&g, &steps)));
        }
        assert!(want.lines().any(|l| l == "-1") && want.lines().any(|l| l != "-1"));
        for config in common::configs() {
            let got = common::run_with(&loaded.rules, &input, config);
            assert_eq!(got, want, "{names:?}: {config:?}");
        }
    }
}

/// Agents on a floor with walls, each to its own target, moving at once
/// (each may stay) or in turn, with or without each constraint; `-1` when
/// no way exists.
fn bots(at_once: bool, same: bool, swap: bool) -> String {
    format!(
        "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
         tiles {{ floor '.'  wall '#' solid }}\n\
         agent bot[n] 'a'.. target 'A'.. on floor\n\
         move all {}\n\
         {}{}goal every bot on its target\n\
         output {{ solved \"{{steps}}\"  unsolved \"-1\" }}\n",
        if at_once {
            "at once: stay north east south west"
        } else {
            "in turn: north east south west"
        },
        if same { "forbid same cell\n" } else { "" },
        if swap { "forbid swap\n" } else { "" },
    )
}

/// Agents moving at once or in turn against a search written here: one to
/// three agents, with and without each of `forbid same cell` and `forbid
/// swap`,
/// on maps from a few cells (one machine word of the visited set per row of
/// the last agent's moves) to more than 256 (too many for a row). Every
/// strategy, on one thread and two.
#[test]
fn movers_match_a_hand_written_search() {
    const MOVES: [(i32, i32); 5] = [(0, 0), (-1, 0), (0, 1), (1, 0), (0, -1)];
    // Fewest steps over the tuples of the agents' cells. In turn, a step
    // moves exactly one agent.
    let reference = |g: &[Vec<u8>], n: usize, at_once: bool, same: bool, swap: bool| -> i64 {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let start: Vec<_> = (0..n).map(|i| common::find(g, b'a' + i as u8)).collect();
        let goal: Vec<_> = (0..n).map(|i| common::find(g, b'A' + i as u8)).collect();
        let mut dist = std::collections::HashMap::from([(start.clone(), 0i64)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            if s == goal {
                return d;
            }
            'combo: for k in 0..MOVES.len().pow(n as u32) {
                let mut t = s.clone();
                let mut k = k;
                let mut moved = 0;
                for p in t.iter_mut() {
                    moved += usize::from(k % MOVES.len() != 0);
                    let (dr, dc) = MOVES[k % MOVES.len()];
                    k /= MOVES.len();
                    let (r, c) = (p.0 as i32 + dr, p.1 as i32 + dc);
                    if r < 0 || c < 0 || r >= h || c >= w || g[r as usize][c as usize] == b'#' {
                        continue 'combo;
                    }
                    *p = (r as usize, c as usize);
                }
                if !at_once && moved != 1 {
                    continue;
                }
                for i in 0..n {
                    for j in i + 1..n {
                        let swapped = s[i] != s[j] && t[i] == s[j] && t[j] == s[i];
                        if (same && t[i] == t[j]) || (swap && swapped) {
                            continue 'combo;
                        }
                    }
                }
                if !dist.contains_key(&t) {
                    dist.insert(t.clone(), d + 1);
                    queue.push_back(t);
                }
            }
        }
        -1
    };
    let mut rng = SmallRng::seed_from_u64(0xa7_0ce);
    let mut unsolvable = 0;
    let variants = [
        (true, true, true),
        (true, true, false),
        (true, false, true),
        (true, false, false),
        (false, true, false),
        (false, false, false),
    ];
    for (at_once, same, swap) in variants {
        let loaded = puzzle::load("bots.puz", &bots(at_once, same, swap)).unwrap();
        let (mut input, mut want, mut cases) = (String::new(), String::new(), Vec::new());
        for i in 0..40 {
            let n = rng.gen_range(1..=3usize);
            // Every tenth map is large: more than 256 cells for two agents.
            // Every fifth is one row, where only a swap lets agents pass.
            let (h, w) = match (n, i % 10) {
                (1 | 2, 0) => (rng.gen_range(17..=19), rng.gen_range(17..=19)),
                (_, 5) => (1, rng.gen_range(4..=9)),
                (1 | 2, _) => (rng.gen_range(1..=12), rng.gen_range(2..=12)),
                _ => (rng.gen_range(2..=6), rng.gen_range(2..=7)),
            };
            let walls = match i % 10 {
                0 => 0.05,
                5 => 0.0,
                _ => rng.gen_range(0.1..0.5),
            };
            let mut g =
                common::random_grid(
                    &mut rng,
                    h,
                    w,
                    |r| {
                        if r.gen_bool(walls) { b'#' } else { b'.' }
                    },
                );
            let cells = common::all_cells(&g);
            if cells.len() < 2 * n {
                continue;
            }
            common::place(&mut rng, &mut g, cells, &common::family_markers(n));
            let case = common::case_text(&format!("{n} {h} {w}"), &g);
            input.push_str(&case);
            cases.push(case);
            want.push_str(&format!("{}\n", reference(&g, n, at_once, same, swap)));
        }
        assert!(
            want.lines().any(|l| l != "-1"),
            "some cases must be solvable"
        );
        unsolvable += want.lines().filter(|&l| l == "-1").count();
        for config in common::configs() {
            let got = common::run_with(&loaded.rules, &input, config);
            common::assert_same(&got, &want, &cases);
        }
    }
    assert!(unsolvable > 0, "some cases must be unsolvable");
}

/// The successors of `s` by rows, one state each.
fn by_rows<const R: usize>(succ: &mut puzzle::kernel::Successors<'_, '_, u64>, s: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let has = succ.rows::<R>(s, |base, mask| {
        for p in 0..64 * R as u64 {
            if mask[p as usize / 64] >> (p % 64) & 1 == 1 {
                out.push(base | p);
            }
        }
        true
    });
    assert!(has, "a table kernel with rows");
    out
}

/// On random maps, agents at once (with and without each constraint) and in
/// turn, for every state reachable within a bound: the states
/// `Successors::rows` gives (the last agent's moves as a bitmask) are
/// exactly those `Successors::each` gives, with no repeats.
#[test]
fn rows_give_the_successors_each_gives() {
    use std::collections::HashSet;
    let mut rng = SmallRng::seed_from_u64(0x50_75);
    let mut words_seen = HashSet::new();
    for round in 0..60 {
        let at_once = round % 3 != 0;
        let (same, swap) = (rng.gen_bool(0.7), at_once && rng.gen_bool(0.7));
        let n = rng.gen_range(2..=if at_once { 3 } else { 4 });
        // Up to 25 positions (a row inside a word), 81, and 225.
        let side = [5, 9, 15][round / 3 % 3];
        let mut g = common::random_grid(&mut rng, side, side, |r| {
            if r.gen_bool(0.1) { b'#' } else { b'.' }
        });
        let cells = common::all_cells(&g);
        common::place(&mut rng, &mut g, cells, &common::family_markers(n));
        let input = common::case_text(&format!("{n} {side} {side}"), &g);
        let rules = puzzle::load("bots.puz", &bots(at_once, same, swap))
            .unwrap()
            .rules;
        let case = puzzle::input::Reader::new(rules.io(), &input, false, None)
            .next_case()
            .expect("a case")
            .expect("the case reads");
        let task = puzzle::task::ground(&rules, &case).expect("the case grounds");
        let config = puzzle::plan::Config {
            strategy: puzzle::plan::Strategy::Bfs,
            threads: 1,
            count: false,
            cluster: None,
        };
        let plan = puzzle::plan::plan(&task, config).expect("the state packs");
        let puzzle::kernel::KernelKind::Rows { words } = plan.kernel() else {
            panic!("rows apply to {n} free agents with no effects:\n{input}");
        };
        words_seen.insert(words);
        let k = puzzle::kernel::Kernel::<u64>::new(&task, plan.layout(), plan.kernel());
        let mut succ = k.successors();
        let start = k.starts()[0];
        let mut seen = HashSet::from([start]);
        let mut queue = vec![start];
        let mut i = 0;
        while i < queue.len() && i < 2000 {
            let s = queue[i];
            i += 1;
            let mut want = Vec::new();
            succ.each(s, |t| {
                want.push(t);
                true
            });
            let got = match words {
                1 => by_rows::<1>(&mut succ, s),
                2 => by_rows::<2>(&mut succ, s),
                _ => by_rows::<4>(&mut succ, s),
            };
            let got_set: HashSet<u64> = got.iter().copied().collect();
            assert_eq!(got.len(), got_set.len(), "a row repeats a state");
            let want_set: HashSet<u64> = want.iter().copied().collect();
            assert_eq!(got_set, want_set, "state {s:#x} of\n{input}");
            for t in want {
                if seen.insert(t) {
                    queue.push(t);
                }
            }
        }
    }
    assert_eq!(
        words_seen.len(),
        3,
        "rows of 1, 2 and 4 words: {words_seen:?}"
    );
}
