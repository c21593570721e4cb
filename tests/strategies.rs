//! Strategies against each other: on random reversible puzzles (agents
//! moving in turn or at once to their own targets), bidirectional search,
//! A* and breadth-first search, on one thread or two, give the same answers.

mod common;
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
        let mut g: Vec<Vec<u8>> = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| if rng.gen_bool(0.25) { b'#' } else { b'.' })
                    .collect()
            })
            .collect();
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
             on enter switch(c): toggle lit[c]\n\
             on enter dark: set dim\n\
             when bot on lamp(c): set lit[c]\n\
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
            let mut g: Vec<Vec<u8>> = (0..h)
                .map(|_| {
                    (0..w)
                        .map(|_| match rng.gen_range(0..20) {
                            0..=3 => b'#',
                            4 => b'l',
                            5 => b'm',
                            6 => b'S',
                            7 => b'T',
                            8 => b'x',
                            9 => b'G',
                            _ => b'.',
                        })
                        .collect()
                })
                .collect();
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
                },
            );
            assert_eq!(got, reference, "{mode} / {dirs} / {goal}: {strategy:?}");
        }
    }
}
