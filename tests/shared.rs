//! The worst-case benchmark inputs in `../shared/bench` and the contest
//! samples in `../shared/problems/samples`. Skipped, loudly, when
//! `../shared` is absent.

use crate::common;

#[test]
fn bench_inputs_reproduce_expected_outputs() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("bench");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "in") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let puzzle = stem.split('-').next().unwrap();
        let rules = common::puzzle(puzzle).rules;
        let got = common::run(&rules, &common::read(&path));
        let want = common::read(&path.with_extension("out"));
        assert!(got == want, "{stem}: output differs from {stem}.out");
        ran += 1;
    }
    assert!(ran >= 4, "expected the four bench inputs, found {ran}");
}

#[test]
fn shipped_samples_are_the_contest_samples() {
    let Some(shared) = common::shared() else {
        return;
    };
    for p in ["halloween", "keytask", "hideseek"] {
        for ext in ["in", "out"] {
            let theirs = common::read(&shared.join("problems/samples").join(format!("{p}.{ext}")));
            let ours = common::read(&common::root().join("puzzles").join(format!("{p}.{ext}")));
            assert_eq!(
                ours, theirs,
                "puzzles/{p}.{ext} differs from the contest sample"
            );
        }
    }
}

#[test]
fn worst_halloween_maps_agree_across_strategies_and_threads() {
    let Some(shared) = common::shared() else {
        return;
    };
    use puzzle::search::{Config, Strategy};
    let path = shared.join("bench/halloween-worst.in");
    let input = common::read(&path);
    let want = common::read(&path.with_extension("out"));
    let rules = common::puzzle("halloween").rules;
    for (strategy, threads) in [
        (Strategy::Bfs, 2),
        (Strategy::Bidir, 2),
        (Strategy::Astar, 1),
    ] {
        let got = common::run_with(
            &rules,
            &input,
            Config {
                strategy,
                threads,
                count: false,
                cluster: None,
            },
        );
        assert!(got == want, "{strategy:?} on {threads} threads differs");
    }
}
