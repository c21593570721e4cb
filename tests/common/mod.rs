//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the checkout, if present. Tests that need it call
/// this and skip, saying so loudly, when it is absent.
pub fn shared() -> Option<PathBuf> {
    let p = root().join("..").join("shared");
    if p.is_dir() {
        Some(p)
    } else {
        // Straight to stderr, past the test harness's capture, so the skip
        // shows in a passing run.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: ../shared is absent; the tests that read it did not run"
        );
        None
    }
}

/// Loads a shipped puzzle.
pub fn puzzle(name: &str) -> puzzle::Loaded {
    let path = root().join("puzzles").join(format!("{name}.puz"));
    let text = std::fs::read_to_string(&path).unwrap();
    match puzzle::load(&path.display().to_string(), &text) {
        Ok(l) => l,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    }
}

/// Runs rules on an input text through the library and returns stdout.
pub fn run(rules: &puzzle::resolve::Rules, input: &str) -> String {
    run_with(rules, input, puzzle::search::Config::default())
}

/// The same, with a given strategy and thread count.
pub fn run_with(
    rules: &puzzle::resolve::Rules,
    input: &str,
    search: puzzle::search::Config,
) -> String {
    let mut out = Vec::new();
    let opts = puzzle::run::Options {
        search,
        ..Default::default()
    };
    if let Err(e) = puzzle::run(rules, "input", input, &opts, &mut out) {
        panic!("{:?}\ninput:\n{input}", miette::Report::new(e));
    }
    String::from_utf8(out).unwrap()
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Compares engine output with expected output case by case, printing the
/// input of the first case that differs.
pub fn assert_same(got: &str, want: &str, cases: &[String]) {
    if got == want {
        return;
    }
    let g: Vec<&str> = got.lines().collect();
    let w: Vec<&str> = want.lines().collect();
    let i = g
        .iter()
        .zip(&w)
        .position(|(a, b)| a != b)
        .unwrap_or(g.len().min(w.len()));
    let per = (w.len() / cases.len().max(1)).max(1);
    let case = cases.get(i / per).map(String::as_str).unwrap_or("?");
    panic!(
        "output line {} differs: engine {:?}, reference {:?}\nthe case:\n{case}",
        i + 1,
        g.get(i),
        w.get(i)
    );
}

/// Every strategy and thread count worth comparing.
pub fn configs() -> Vec<puzzle::search::Config> {
    use puzzle::search::{Config, Strategy};
    let mut v = Vec::new();
    for strategy in [
        Strategy::Auto,
        Strategy::Bfs,
        Strategy::Bidir,
        Strategy::Astar,
    ] {
        for threads in [1, 2] {
            v.push(Config { strategy, threads });
        }
    }
    v
}

/// A case of a contest input: its header line, then the grid's rows.
pub fn case_text(header: &str, g: &[Vec<u8>]) -> String {
    let mut text = format!("{header}\n");
    for row in g {
        text.push_str(std::str::from_utf8(row).unwrap());
        text.push('\n');
    }
    text
}

/// The (row, column) of the first cell holding `ch`.
pub fn find(g: &[Vec<u8>], ch: u8) -> (usize, usize) {
    (0..g.len())
        .flat_map(|r| (0..g[r].len()).map(move |c| (r, c)))
        .find(|&(r, c)| g[r][c] == ch)
        .unwrap_or_else(|| panic!("no {:?} in the map", ch as char))
}

/// Writes each marker on its own random cell of `cells` (which must hold at
/// least as many cells as there are markers).
pub fn place(
    rng: &mut impl rand::Rng,
    g: &mut [Vec<u8>],
    mut cells: Vec<(usize, usize)>,
    markers: &[u8],
) {
    for (i, &ch) in markers.iter().enumerate() {
        let k = rng.gen_range(i..cells.len());
        cells.swap(i, k);
        let (r, c) = cells[i];
        g[r][c] = ch;
    }
}

/// A random `h` x `w` grid, each cell drawn by `cell`.
pub fn random_grid<R: rand::Rng>(
    rng: &mut R,
    h: usize,
    w: usize,
    mut cell: impl FnMut(&mut R) -> u8,
) -> Vec<Vec<u8>> {
    (0..h)
        .map(|_| (0..w).map(|_| cell(rng)).collect())
        .collect()
}

/// Every cell of a grid.
pub fn all_cells(g: &[Vec<u8>]) -> Vec<(usize, usize)> {
    (0..g.len())
        .flat_map(|r| (0..g[r].len()).map(move |c| (r, c)))
        .collect()
}

/// The start markers `a`, `b`, ... then the target markers `A`, `B`, ... of
/// a family of `n`.
pub fn family_markers(n: usize) -> Vec<u8> {
    (0..n as u8)
        .map(|i| b'a' + i)
        .chain((0..n as u8).map(|i| b'A' + i))
        .collect()
}

/// The shipped sample of a puzzle gives the shipped expected output.
pub fn assert_sample(name: &str) {
    let rules = puzzle(name).rules;
    let dir = root().join("puzzles");
    let got = run(&rules, &read(&dir.join(format!("{name}.in"))));
    assert_eq!(got, read(&dir.join(format!("{name}.out"))), "{name} sample");
}

/// Runs one batch of random cases with the strategy and thread count whose
/// turn it is (batches rotate through [`configs`]) and compares the output.
pub fn check_batch(
    rules: &puzzle::resolve::Rules,
    input: &str,
    want: &str,
    cases: &[String],
    turn: usize,
) {
    let all = configs();
    assert_same(&run_with(rules, input, all[turn % all.len()]), want, cases);
}
