//! The time in conditions (`steps`): doors open on some minutes, cells
//! entered only from some time on, moves made only on some minutes, goals
//! reached only on even ones; against a hand-written search that keeps the
//! time whole (no period, no threshold: every minute up to a bound no
//! shortest way can pass), on random rules and maps, under every strategy.

use crate::common;
use puzzle::run::Options;
use rand::{Rng, SeedableRng};

/// The random parts of one rule file.
#[derive(Debug, Clone, Copy)]
struct Clocked {
    /// `enter door only if steps % door.0 == door.1`.
    door: (i64, i64),
    /// `enter late only if steps + 1 > late`.
    late: i64,
    /// `north if (steps + north.1) % north.0 < 1 + north.0 / 2`.
    north: (i64, i64),
    /// `goal ... and steps % 2 == 0`.
    even: bool,
    /// `stay` among the moves.
    wait: bool,
}

impl Clocked {
    fn draw(rng: &mut impl Rng) -> Clocked {
        let k = rng.gen_range(2..=4);
        let m = rng.gen_range(2..=3);
        Clocked {
            door: (k, rng.gen_range(0..k)),
            late: rng.gen_range(0..8),
            north: (m, rng.gen_range(0..m)),
            even: rng.gen_bool(0.5),
            wait: rng.gen_bool(0.7),
        }
    }

    fn rules(&self) -> String {
        let Clocked {
            door: (k, r),
            late,
            north: (m, s),
            even,
            wait,
        } = *self;
        let half = 1 + m / 2;
        format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  door 'D'  late 'L'  exit 'E' }}\n\
             agent me '@' on floor\n\
             move me: north if (steps + {s}) % {m} < {half}, south, east, west{}\n\
             enter door only if steps % {k} == {r}\n\
             enter late only if steps + 1 > {late}\n\
             goal me on exit{}\n\
             output {{ solved \"{{steps}}\" unsolved \"-1\" }}\n",
            if wait { ", stay" } else { "" },
            if even { " and steps % 2 == 0" } else { "" },
        )
    }

    /// The fewest steps, by a breadth-first search over (cell, minute)
    /// with the minute kept whole up to a bound past which no shortest
    /// way goes: every (cell, minute modulo 12) pair once, past the
    /// `late` threshold.
    fn solve(&self, g: &[Vec<u8>]) -> Option<u32> {
        let (h, w) = (g.len() as i64, g[0].len() as i64);
        let horizon = (h * w * 12 + self.late + 2) as usize;
        let at = |r: i64, c: i64| {
            (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize])
        };
        let start = common::all_cells(g)
            .into_iter()
            .find(|&(r, c)| g[r][c] == b'@')
            .map(|(r, c)| (r as i64, c as i64))?;
        let ix = |r: i64, c: i64, t: usize| (t * h as usize + r as usize) * w as usize + c as usize;
        let mut seen = vec![false; (horizon + 1) * (h * w) as usize];
        let mut now = vec![start];
        seen[ix(start.0, start.1, 0)] = true;
        for t in 0..horizon {
            for &(r, c) in &now {
                if at(r, c) == Some(b'E') && (!self.even || t % 2 == 0) {
                    return Some(t as u32);
                }
            }
            let mut next = Vec::new();
            let tt = t as i64;
            for &(r, c) in &now {
                let (m, s) = self.north;
                let mut moves = vec![(1, 0), (0, 1), (0, -1)];
                if (tt + s) % m < 1 + m / 2 {
                    moves.push((-1, 0));
                }
                if self.wait {
                    moves.push((0, 0));
                }
                for (dr, dc) in moves {
                    let (nr, nc) = (r + dr, c + dc);
                    let open = match at(nr, nc) {
                        None | Some(b'#') => false,
                        _ if (dr, dc) == (0, 0) => true,
                        Some(b'D') => tt % self.door.0 == self.door.1,
                        Some(b'L') => tt + 1 > self.late,
                        Some(_) => true,
                    };
                    if open && !std::mem::replace(&mut seen[ix(nr, nc, t + 1)], true) {
                        next.push((nr, nc));
                    }
                }
            }
            now = next;
        }
        None
    }
}

/// The time read in moves' conditions, entry conditions and the goal, on
/// 500 random maps (50 rule files of 10 maps), under every strategy,
/// against [`Clocked::solve`].
#[test]
fn the_time_in_conditions_matches_a_hand_written_search() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x7153);
    let (mut solved, mut unsolved) = (0, 0);
    for _ in 0..50 {
        let c = Clocked::draw(&mut rng);
        let map = tiles(b"....#DDL");
        let (s, u) = common::rounds_against(&c.rules(), &mut rng, (1, 10), map, |g| c.solve(g));
        (solved, unsolved) = (solved + s, unsolved + u);
    }
    eprintln!("{solved} solved, {unsolved} not");
    assert!(
        solved > 200 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// The visited states of each case of `input` under `rules` (breadth-first,
/// one thread), from `--format json --stats`.
fn visited(rules: &str, input: &str) -> Vec<u64> {
    let loaded = puzzle::load("time.puz", rules).expect("the rules load");
    let opts = Options {
        stats: true,
        format: puzzle::run::Format::Json,
        search: puzzle::search::Config {
            strategy: puzzle::search::Strategy::Bfs,
            threads: 1,
            count: false,
            cluster: None,
        },
        ..Default::default()
    };
    let mut out = Vec::new();
    puzzle::run(&loaded.rules, "map", input, &opts, &mut out).expect("the maps run");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["stats"]["visited"]
                .as_u64()
                .expect("a count of visited states")
        })
        .collect()
}

/// The state keeps the time modulo its period where the rules read it
/// only through `%`: a search whose rules read `steps % 4` visits at most
/// four times the states of the same search without the time (and more
/// than the same, on these maps, where waiting matters).
#[test]
fn the_time_modulo_a_period_multiplies_the_states_by_the_period_at_most() {
    let base = "input { cases until eof  header rows cols  grid rows x cols }\n\
                tiles { floor '.'  wall '#' solid  door 'D'  exit 'E' }\n\
                agent me '@' on floor\n\
                move me: north south east west stay\n\
                goal me on exit\n\
                output { solved \"{steps}\" unsolved \"-1\" }\n";
    let timed = format!("{base}enter door only if steps % 4 == 3\n");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x4e);
    let mut input = String::new();
    for _ in 0..20 {
        let mut g = common::random_grid(&mut rng, 12, 12, |r| b".....#DD"[r.gen_range(0..8)]);
        let cells = common::all_cells(&g);
        common::place(&mut rng, &mut g, cells, b"@E");
        input.push_str(&common::case_text("12 12", &g));
    }
    let (plain, timed) = (visited(base, &input), visited(&timed, &input));
    let mut more = 0;
    for (p, t) in plain.iter().zip(&timed) {
        assert!(*t <= 4 * p, "{t} states with the time, {p} without");
        more += usize::from(t > p);
    }
    assert!(
        more > 10,
        "the time made no difference: {plain:?} {timed:?}"
    );
}

/// Beams: fixed and turning, from tiles whose value gives the way or from
/// a tile of one way, stopped by walls and opaque tiles but not by glass;
/// read by `forbid` and by a move's condition, on random maps, under every
/// strategy, against a search over (cell, minute modulo 4) that casts the
/// beams itself.
#[test]
fn beams_match_a_hand_written_search() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xbea3);
    let (mut solved, mut unsolved) = (0, 0);
    for round in 0..50 {
        let turning = round % 3 != 0;
        // A lamp shines east always; turrets per their drawing, turning or not.
        let guard = rng.gen_bool(0.5);
        let rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             domain way = north east south west\n\
             tiles {{ floor '.'  wall '#' solid  smoke 's' opaque  turret '^' '>' 'v' '<' of way solid  \
                      lamp 'L' solid  exit 'E' }}\n\
             agent me '@' on floor\n\
             beam laser from turret(?w) ?w{}\n\
             beam light from lamp east\n\
             move me: north, east, south{}, west, stay\n\
             forbid me in laser\n\
             goal me on exit\n\
             output {{ solved \"{{steps}}\" unsolved \"-1\" }}\n",
            if turning { " turning" } else { "" },
            if guard { " if not me in light" } else { "" },
        );
        let map = tiles(b"......#s^>v<L");
        let (s, u) = common::rounds_against(&rules, &mut rng, (1, 10), map, |g| {
            beamed(g, turning, guard)
        });
        (solved, unsolved) = (solved + s, unsolved + u);
    }
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// A random map of the given tiles, 1-6 rows by 2-7 columns, with the
/// agent `@` and the exit `E` on two of its cells.
fn tiles(pool: &'static [u8]) -> impl FnMut(&mut rand::rngs::SmallRng) -> Vec<Vec<u8>> {
    move |rng| {
        let (h, w) = (rng.gen_range(1..=6), rng.gen_range(2..=7));
        let mut g = common::random_grid(rng, h, w, |r| pool[r.gen_range(0..pool.len())]);
        let cells = common::all_cells(&g);
        common::place(rng, &mut g, cells, b"@E");
        g
    }
}

/// The fewest steps on a map of [`beams_match_a_hand_written_search`]: a
/// breadth-first search over (cell, minute modulo 4) that casts the beams
/// itself.
fn beamed(g: &[Vec<u8>], turning: bool, guard: bool) -> Option<u32> {
    const WAYS: [(i64, i64); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];
    let (hh, ww) = (g.len() as i64, g[0].len() as i64);
    let at =
        |r: i64, c: i64| (r >= 0 && c >= 0 && r < hh && c < ww).then(|| g[r as usize][c as usize]);
    let stops = |x: u8| b"#s^>v<L".contains(&x);
    // Cells lit by `which` (the turrets or the lamps) at minute t.
    let lit = |r: i64, c: i64, t: usize, turrets: bool| {
        common::all_cells(g).into_iter().any(|(sr, sc)| {
            let k = g[sr][sc];
            let way = match (turrets, k) {
                (true, b'^') => 0,
                (true, b'>') => 1,
                (true, b'v') => 2,
                (true, b'<') => 3,
                (false, b'L') => 1,
                _ => return false,
            };
            let turn = if turrets && turning { t % 4 } else { 0 };
            let (dr, dc) = WAYS[(way + turn) % 4];
            let (mut y, mut x) = (sr as i64 + dr, sc as i64 + dc);
            while let Some(k) = at(y, x) {
                if stops(k) {
                    return false;
                }
                if (y, x) == (r, c) {
                    return true;
                }
                (y, x) = (y + dr, x + dc);
            }
            false
        })
    };
    let start = common::all_cells(g)
        .into_iter()
        .find(|&(r, c)| g[r][c] == b'@')
        .unwrap();
    let start = (start.0 as i64, start.1 as i64, 0usize);
    if lit(start.0, start.1, 0, true) {
        None
    } else {
        common::bfs(
            start,
            |&(r, c, _)| at(r, c) == Some(b'E'),
            |&(r, c, t)| {
                let mut out = Vec::new();
                for (i, (dr, dc)) in [(-1, 0), (0, 1), (1, 0), (0, -1), (0, 0)]
                    .into_iter()
                    .enumerate()
                {
                    if guard && i == 2 && lit(r, c, t, false) {
                        continue;
                    }
                    let (y, x) = (r + dr, c + dc);
                    match at(y, x) {
                        // Smoke hides, but is walked through.
                        Some(k) if (k == b's' || !stops(k)) && !lit(y, x, t + 1, true) => {
                            out.push((y, x, (t + 1) % 4))
                        }
                        _ => {}
                    }
                }
                out
            },
        )
    }
}
