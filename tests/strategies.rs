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

#[test]
fn all_strategies_agree() {
    use puzzle::search::{Config, Strategy};
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
        let reference = common::run_with(
            &loaded.rules,
            &input,
            Config {
                strategy: Strategy::Bfs,
                threads: 1,
            },
        );
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
