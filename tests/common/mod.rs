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
    let opts = puzzle::run::Options {
        search,
        ..Default::default()
    };
    output(rules, input, &opts)
}

/// What `puzzle run` prints for `input` with `opts`.
pub fn output(rules: &puzzle::resolve::Rules, input: &str, opts: &puzzle::run::Options) -> String {
    let mut out = Vec::new();
    if let Err(e) = puzzle::run(rules, "input", input, opts, &mut out) {
        panic!("{:?}\ninput:\n{input}", miette::Report::new(e));
    }
    String::from_utf8(out).unwrap()
}

/// The task of the first case of `input`.
#[allow(dead_code)]
pub fn task_of(rules: &puzzle::resolve::Rules, input: &str) -> puzzle::task::Task {
    let case = puzzle::input::Reader::new(rules.io(), input, false, None)
        .next_case()
        .expect("a case")
        .expect("the case reads");
    puzzle::task::ground(rules, &case).expect("the case grounds")
}

/// Whether the first mover of `input`'s first case has the padded grid's
/// cells for positions (see `puzzle::task::Domain`).
#[allow(dead_code)]
pub fn on_padded_grid(rules: &puzzle::resolve::Rules, input: &str) -> bool {
    task_of(rules, input).movers()[0].domain().is_grid()
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
            v.push(Config {
                strategy,
                threads,
                count: false,
                cluster: None,
            });
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

/// A random `h` x `w` grid of mixed tiles: each cell draws one number in
/// `0..1` and takes the first of `mix`'s symbols whose share, added to
/// those before it, exceeds it, or `rest`.
pub fn mixed_grid<R: rand::Rng>(
    rng: &mut R,
    h: usize,
    w: usize,
    mix: &[(f64, u8)],
    rest: u8,
) -> Vec<Vec<u8>> {
    random_grid(rng, h, w, |r| {
        let x: f64 = r.r#gen();
        let mut below = 0.0;
        for &(share, sym) in mix {
            below += share;
            if x < below {
                return sym;
            }
        }
        rest
    })
}

/// A case of `n` robots (`a`.. to their targets `A`..) placed on a random
/// `h` x `w` grid of floor `.` and walls `#` (a fifth of the cells),
/// headed `n h w`; `None` where the grid has too few cells for them.
pub fn robots_case<R: rand::Rng>(rng: &mut R, h: usize, w: usize, n: usize) -> Option<String> {
    let mut g = random_grid(rng, h, w, |r| if r.gen_bool(0.2) { b'#' } else { b'.' });
    let cells = all_cells(&g);
    if cells.len() < 2 * n {
        return None;
    }
    place(rng, &mut g, cells, &family_markers(n));
    Some(case_text(&format!("{n} {h} {w}"), &g))
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
    let input = read(&dir.join(format!("{name}.in")));
    for config in configs() {
        assert_moves_hold(&rules, &input, config);
    }
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
    let config = all[turn % all.len()];
    assert_same(&run_with(rules, input, config), want, cases);
    assert_moves_hold(rules, input, config);
}

/// The moves `run --moves` prints for `input`, with a given strategy and
/// thread count.
pub fn moves_with(
    rules: &puzzle::resolve::Rules,
    input: &str,
    search: puzzle::search::Config,
) -> String {
    let opts = puzzle::run::Options {
        search,
        moves: true,
        ..Default::default()
    };
    output(rules, input, &opts)
}

/// Every case's moves, with `config`'s strategy and threads, are the same
/// as with breadth-first search on one thread, and `verify` finds them
/// legal, reaching a goal at the least cost (or `-` where no way exists;
/// the caller's differential test checks that least cost against its own
/// solver).
pub fn assert_moves_hold(
    rules: &puzzle::resolve::Rules,
    input: &str,
    config: puzzle::search::Config,
) {
    let moves = moves_with(rules, input, config);
    let plain = puzzle::search::Config {
        strategy: puzzle::search::Strategy::Bfs,
        threads: 1,
        count: false,
        cluster: None,
    };
    assert_eq!(
        moves,
        moves_with(rules, input, plain),
        "the moves depend on {config:?}\ninput:\n{input}"
    );
    let mut said = Vec::new();
    let opts = puzzle::run::Options {
        search: config,
        ..Default::default()
    };
    let file = puzzle::run::Input::from_text("input", input);
    let v = puzzle::run::verify_input(rules, &file, &moves, &opts, &mut said)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)));
    let said = String::from_utf8(said).unwrap();
    assert!(
        v.bad == 0 && v.stopped == 0 && v.good > 0,
        "{said}\nmoves:\n{moves}\ninput:\n{input}"
    );
}

/// How many random cases each differential test runs against its
/// independent solver.
pub const CASES: usize = 1000;

/// Runs random cases against their expected answers, in batches of 1 to
/// `max` cases (each batch with the next strategy and thread count of
/// [`configs`]), until at least `total` cases have run. `case` draws one
/// case: its text and its answer; `input` makes an input file of a batch's
/// case texts, `want` the expected output of its answers. Returns every
/// answer drawn, for the caller to check that they are mixed.
pub fn batches<A>(
    rules: &puzzle::resolve::Rules,
    rng: &mut rand::rngs::SmallRng,
    total: usize,
    max: usize,
    mut case: impl FnMut(&mut rand::rngs::SmallRng) -> (String, A),
    input: impl Fn(&[String]) -> String,
    want: impl Fn(&[A]) -> String,
) -> Vec<A> {
    use rand::Rng;
    let mut all = Vec::new();
    let mut done = 0;
    while done < total {
        let k = rng.gen_range(1..=max);
        let (cases, answers): (Vec<String>, Vec<A>) = (0..k).map(|_| case(rng)).unzip();
        check_batch(rules, &input(&cases), &want(&answers), &cases, done);
        all.extend(answers);
        done += k;
    }
    all
}

/// The input of a batch terminated by a header line: `cases` then `end`.
pub fn until(end: &'static str) -> impl Fn(&[String]) -> String {
    move |cases| format!("{}{end}\n", cases.concat())
}

/// The input of a batch whose first line counts its cases.
pub fn counted(cases: &[String]) -> String {
    format!("{}\n{}", cases.len(), cases.concat())
}

/// An answer of the fewest steps, or `-1` when there is no way (the
/// output of the puzzles that say so).
pub fn or_minus_one(a: &Option<u32>) -> String {
    a.map_or("-1".into(), |n| n.to_string())
}

/// One output line per answer, as `line` renders it.
pub fn lines<A>(line: impl Fn(&A) -> String) -> impl Fn(&[A]) -> String {
    move |answers| answers.iter().map(|a| format!("{}\n", line(a))).collect()
}

/// The maps of a shipped sample (`puzzles/NAME.in`) whose cases are one
/// header line of integers and a grid of characters: each case's header
/// and rows. `counted`: a first line holds the number of cases; `end`: the
/// header that ends the input; `rows`: which header value counts the rows.
pub fn sample_maps(
    name: &str,
    counted: bool,
    end: Option<&[i64]>,
    rows: usize,
) -> Vec<(Vec<i64>, Vec<Vec<u8>>)> {
    let input = read(&root().join("puzzles").join(format!("{name}.in")));
    let mut lines = input.lines().skip(usize::from(counted));
    let mut maps = Vec::new();
    while let Some(head) = lines.next() {
        let head: Vec<i64> = head
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        if Some(head.as_slice()) == end {
            break;
        }
        let g = (0..head[rows])
            .map(|_| lines.next().unwrap().as_bytes().to_vec())
            .collect();
        maps.push((head, g));
    }
    maps
}

/// The shipped expected output of a puzzle's sample is `want`, worked out
/// by a test's own solver, and the tool prints it.
pub fn assert_sample_is(name: &str, want: &str) {
    let dir = root().join("puzzles");
    assert_eq!(read(&dir.join(format!("{name}.out"))), want, "{name}.out");
    assert_sample(name);
}

/// Draws a piece of `tall` x `wide` cells with `ch` at a random place
/// where every cell is `.`, trying at most `tries` places; whether it did.
pub fn put_piece(
    rng: &mut impl rand::Rng,
    g: &mut [Vec<u8>],
    tall: usize,
    wide: usize,
    ch: u8,
    tries: usize,
) -> bool {
    let (h, w) = (g.len(), g[0].len());
    if tall > h || wide > w {
        return false;
    }
    for _ in 0..tries {
        let (r, c) = (rng.gen_range(0..=h - tall), rng.gen_range(0..=w - wide));
        let free = (r..r + tall).all(|y| (c..c + wide).all(|x| g[y][x] == b'.'));
        if free {
            for row in g.iter_mut().skip(r).take(tall) {
                for cell in row.iter_mut().skip(c).take(wide) {
                    *cell = ch;
                }
            }
            return true;
        }
    }
    false
}

/// The fewest steps from `start` to a state `goal` accepts, breadth first,
/// `next` listing each state's successors (repeats allowed); `None` when
/// none is reachable. The hand-written searches of the differential tests
/// share it, each with its own rules in `next`.
pub fn bfs<S: Clone + Eq + std::hash::Hash>(
    start: S,
    goal: impl Fn(&S) -> bool,
    mut next: impl FnMut(&S) -> Vec<S>,
) -> Option<u32> {
    let mut dist = std::collections::HashMap::from([(start.clone(), 0u32)]);
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(s) = queue.pop_front() {
        let d = dist[&s];
        if goal(&s) {
            return Some(d);
        }
        for t in next(&s) {
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t.clone()) {
                e.insert(d + 1);
                queue.push_back(t);
            }
        }
    }
    None
}

/// Runs `rules` on `rounds` inputs of `maps` random maps each (`map` draws
/// one, `None` to draw again) under every strategy, each answer against
/// what `solve`, a hand-written solver, says (its answer's line, `-1` for
/// none); how many maps it solved and how many not.
pub fn rounds_against<T: std::fmt::Display>(
    rules: &str,
    rng: &mut rand::rngs::SmallRng,
    (rounds, maps): (usize, usize),
    mut map: impl FnMut(&mut rand::rngs::SmallRng) -> Vec<Vec<u8>>,
    solve: impl Fn(&[Vec<u8>]) -> Option<T>,
) -> (usize, usize) {
    let (mut solved, mut unsolved) = (0, 0);
    for _ in 0..rounds {
        let mut input = String::new();
        let mut want = String::new();
        for _ in 0..maps {
            let g = map(rng);
            input.push_str(&case_text(&format!("{} {}", g.len(), g[0].len()), &g));
            match solve(&g) {
                Some(n) => {
                    want.push_str(&format!("{n}\n"));
                    solved += 1;
                }
                None => {
                    want.push_str("-1\n");
                    unsolved += 1;
                }
            }
        }
        for config in configs() {
            let opts = puzzle::run::Options {
                search: config,
                warn: false,
                ..Default::default()
            };
            let loaded = puzzle::load("test.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
            let mut out = Vec::new();
            puzzle::run(&loaded.rules, "map", &input, &opts, &mut out).expect("the maps run");
            assert_eq!(
                String::from_utf8(out).unwrap(),
                want,
                "{config:?}\n{rules}\n{input}"
            );
        }
    }
    (solved, unsolved)
}
