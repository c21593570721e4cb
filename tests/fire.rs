//! Fields: `puzzles/fire.puz` (Fire!: Joe escapes a maze while a fire
//! spreads a cell a minute; the spread is a field read with the time)
//! against a hand-written search on random mazes, under every strategy;
//! and a variant whose fire spreads by the eight directions, with `else`
//! for the cells it never reaches, against the same search told so. The
//! mazes tell the rules' reading apart from one a minute off (Joe on a
//! cell the minute the fire comes) and from no fire at all, so a file
//! planted either way would fail.

use crate::common;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// How the hand-written search reads the rules.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    Rules,
    /// Joe may stand on a cell the minute the fire reaches it.
    MinuteLate,
    /// The fire never spreads.
    NoFire,
}

const FOUR: [(i64, i64); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];
const EIGHT: [(i64, i64); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// Each cell's minute of burning (from the `F` cells through `.` and
/// `J`, by `spread`), `None` where the fire never comes.
fn burning(g: &[Vec<u8>], spread: &[(i64, i64)]) -> Vec<Vec<Option<i64>>> {
    let (h, w) = (g.len() as i64, g[0].len() as i64);
    let mut t = vec![vec![None; w as usize]; h as usize];
    let mut queue = VecDeque::new();
    for (r, c) in common::all_cells(g) {
        if g[r][c] == b'F' {
            t[r][c] = Some(0);
            queue.push_back((r as i64, c as i64));
        }
    }
    while let Some((r, c)) = queue.pop_front() {
        let d = t[r as usize][c as usize].unwrap() + 1;
        for &(dr, dc) in spread {
            let (y, x) = (r + dr, c + dc);
            if (0..h).contains(&y) && (0..w).contains(&x) {
                let (yu, xu) = (y as usize, x as usize);
                if t[yu][xu].is_none() && matches!(g[yu][xu], b'.' | b'J') {
                    t[yu][xu] = Some(d);
                    queue.push_back((y, x));
                }
            }
        }
    }
    t
}

/// The fewest minutes for Joe to step out of the maze, or `None`.
fn escape(g: &[Vec<u8>], spread: &[(i64, i64)], reading: Reading) -> Option<u32> {
    let (h, w) = (g.len() as i64, g[0].len() as i64);
    let fire = burning(g, spread);
    let safe = |r: i64, c: i64, minute: i64| match (reading, fire[r as usize][c as usize]) {
        (Reading::NoFire, _) | (_, None) => true,
        (Reading::Rules, Some(f)) => minute < f,
        (Reading::MinuteLate, Some(f)) => minute <= f,
    };
    let (r, c) = common::find(g, b'J');
    // Joe's state is his cell and the minute, while the fire spreads: once
    // it is done, every later minute is the same (kept as the last).
    let done = (fire.iter().flatten().flatten().max()).map_or(0, |&m| m + 1);
    common::bfs(
        (r as i64, c as i64, 0i64, false),
        |&(.., out)| out,
        |&(r, c, t, _)| {
            let mut next = Vec::new();
            for (dr, dc) in FOUR {
                let (y, x) = (r + dr, c + dc);
                if !(0..h).contains(&y) || !(0..w).contains(&x) {
                    next.push((y, x, t + 1, true));
                } else if g[y as usize][x as usize] == b'.' && safe(y, x, t + 1) {
                    next.push((y, x, (t + 1).min(done), false));
                }
            }
            next
        },
    )
}

/// A random maze of 1-10 rows by 1-10 columns: walls, open cells, one to
/// four fires and Joe, mostly away from the edge (where the fire has time
/// to matter).
fn maze(rng: &mut rand::rngs::SmallRng) -> Vec<Vec<u8>> {
    let (h, w) = (rng.gen_range(1..=10), rng.gen_range(1..=10));
    let wall = rng.gen_range(0.15..0.5);
    let mut g = common::mixed_grid(rng, h, w, &[(wall, b'#')], b'.');
    let cells = common::all_cells(&g);
    let inner: Vec<_> = (cells.iter().copied())
        .filter(|&(r, c)| r > 0 && c > 0 && r + 1 < h && c + 1 < w)
        .collect();
    let joe = if inner.is_empty() || rng.gen_bool(0.1) {
        &cells
    } else {
        &inner
    };
    let at = joe[rng.gen_range(0..joe.len())];
    g[at.0][at.1] = b'J';
    let rest: Vec<_> = cells.into_iter().filter(|&x| x != at).collect();
    let fires = rng.gen_range(0..=4usize).min(rest.len());
    common::place(rng, &mut g, rest, &vec![b'F'; fires]);
    g
}

fn answer(a: &Option<u32>) -> String {
    a.map_or("IMPOSSIBLE".into(), |n| n.to_string())
}

/// Runs `rules` on `total` random mazes against `escape` by `spread`;
/// how many mazes the readings told apart.
fn against(rules: &puzzle::resolve::Rules, seed: u64, total: usize, spread: &'static [(i64, i64)]) {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let (mut late, mut nofire, mut out) = (0, 0, 0);
    let answers = common::batches(
        rules,
        &mut rng,
        total,
        6,
        |rng| {
            let g = maze(rng);
            let a = escape(&g, spread, Reading::Rules);
            late += usize::from(a != escape(&g, spread, Reading::MinuteLate));
            nofire += usize::from(a != escape(&g, spread, Reading::NoFire));
            let text = common::case_text(&format!("{} {}", g.len(), g[0].len()), &g);
            (text, a)
        },
        common::counted,
        common::lines(answer),
    );
    out += answers.iter().filter(|a| a.is_some()).count();
    assert!(
        late > total / 30 && nofire > total / 20,
        "the mazes tell the readings apart too rarely: {late} a minute late, {nofire} without fire"
    );
    assert!(
        out > total / 4 && out < total - total / 20,
        "{out} of {total} escaped"
    );
}

#[test]
fn fire_matches_a_hand_written_search() {
    let rules = common::puzzle("fire").rules;
    against(&rules, 0xf12e, 600, &FOUR);
}

#[test]
fn a_field_by_eight_directions_with_else_matches_a_hand_written_search() {
    let text = common::read(&common::root().join("puzzles/fire.puz"))
        .replace(
            "field burnt = distance from fire through open",
            "field burnt = distance from fire through open \
             by north northeast east southeast south southwest west northwest else 999",
        )
        .replace(
            "forbid burnt(joe) <= steps and burnt(joe) >= 0",
            "forbid burnt(joe) <= steps",
        );
    assert!(text.contains("else 999") && text.contains("forbid burnt(joe) <= steps\n"));
    let rules = puzzle::load("fire8.puz", &text)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .rules;
    against(&rules, 0xf128, 300, &EIGHT);
}

/// Two fields read in one comparison: Joe's cells grouped by pairs of
/// numbers, few of them or many. The second field, times 0, changes no
/// answer; grouping pairs wrongly (two pairs taken for one) would.
#[test]
fn two_fields_in_one_comparison_match_a_hand_written_search() {
    let text = common::read(&common::root().join("puzzles/fire.puz"))
        .replace(
            "field burnt = distance from fire through open",
            "field burnt = distance from fire through open\n\
             field near = distance from wall through open",
        )
        .replace(
            "forbid burnt(joe) <= steps and",
            "forbid burnt(joe) + 0 * near(joe) <= steps and",
        );
    assert!(text.contains("field near") && text.contains("0 * near(joe) <= steps"));
    // Pairs of small numbers, found in a table of every pair; with `near`
    // 100,000 where it never comes, too many pairs for one: hashed.
    let far = text.replace(
        "field near = distance from wall through open",
        "field near = distance from wall through open else 100000",
    );
    assert!(far.contains("else 100000"));
    for (seed, text) in [(0xf122, &text), (0xf123, &far)] {
        let rules = puzzle::load("fire2.puz", text)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .rules;
        against(&rules, seed, 300, &FOUR);
    }
}

#[test]
fn the_fire_sample_is_worked_out_by_the_hand_written_search() {
    let maps = common::sample_maps("fire", true, None, 0);
    let want: String = (maps.iter())
        .map(|(_, g)| format!("{}\n", answer(&escape(g, &FOUR, Reading::Rules))))
        .collect();
    common::assert_sample_is("fire", &want);
}

/// The plan keeps each state at its earliest only where that cannot
/// change an answer: a fire that closes in (the shipped file), not a cell
/// that is safe only at one minute, nor one safe only from some minute on
/// (where waiting for it matters).
#[test]
fn the_earliest_arrival_is_kept_only_where_the_time_only_hurts() {
    let shipped = common::read(&common::root().join("puzzles/fire.puz"));
    let input = common::read(&common::root().join("puzzles/fire.in"));
    let earliest = |text: &str| {
        let rules = puzzle::load("f.puz", text)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .rules;
        let task = common::task_of(&rules, &input);
        let plan = puzzle::plan::plan(&task, puzzle::search::Config::default()).expect("a plan");
        plan.earliest().is_some()
    };
    assert!(earliest(&shipped));
    let at = shipped.replace("burnt(joe) <= steps and", "burnt(joe) == steps and");
    assert!(!earliest(&at), "a forbid true at one minute only");
    let later = shipped.replace("burnt(joe) <= steps and", "burnt(joe) > steps and");
    assert!(!earliest(&later), "a forbid that lifts as the time passes");
    let rising = format!("{shipped}\nenter open only if steps >= 1\n");
    assert!(!earliest(&rising), "an entry that opens as the time passes");
}
