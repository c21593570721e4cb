//! Engine benchmarks (divan): compile and search on the shipped samples,
//! and on the worst-case inputs in `../shared/bench` when present.
//!
//! `cargo bench --bench engine`. For the side-by-side comparison with the
//! reference C++ solutions, see `benches/compare.sh`.

use puzzle::search::{Config, Strategy};
use std::path::PathBuf;

fn main() {
    divan::main();
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(puzzle: &str) -> puzzle::Loaded {
    let path = root().join(format!("puzzles/{puzzle}.puz"));
    puzzle::load(puzzle, &std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|_| panic!("{puzzle} loads"))
}

fn run(rules: &puzzle::resolve::Rules, input: &str, strategy: Strategy) -> usize {
    let mut out = Vec::new();
    let opts = puzzle::run::Options {
        search: Config {
            strategy,
            threads: 1,
            count: false,
            cluster: None,
        },
        ..Default::default()
    };
    puzzle::run(rules, "bench", input, &opts, &mut out).unwrap();
    out.len()
}

#[divan::bench(args = ["halloween", "keytask", "hideseek", "levers"])]
fn sample(bencher: divan::Bencher, puzzle: &str) {
    let rules = load(puzzle).rules;
    let input = std::fs::read_to_string(root().join(format!("puzzles/{puzzle}.in"))).unwrap();
    bencher.bench(|| run(&rules, &input, Strategy::Auto));
}

#[divan::bench(args = ["halloween-worst", "keytask-chain", "keytask-open", "hideseek-large"], sample_count = 5)]
fn shared_bench(bencher: divan::Bencher, name: &str) {
    let path = root().join(format!("../shared/bench/{name}.in"));
    let Ok(input) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED: {} is absent", path.display());
        return;
    };
    let rules = load(name.split('-').next().unwrap()).rules;
    bencher.bench(|| run(&rules, &input, Strategy::Auto));
}

#[divan::bench(sample_count = 5)]
fn halloween_worst_plain_bfs(bencher: divan::Bencher) {
    let path = root().join("../shared/bench/halloween-worst.in");
    let Ok(input) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED: {} is absent", path.display());
        return;
    };
    let rules = load("halloween").rules;
    bencher.bench(|| run(&rules, &input, Strategy::Bfs));
}
