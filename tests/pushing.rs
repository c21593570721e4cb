//! Letters and costs in parts: `puzzles/pushing.puz` (fewest pushes, then
//! fewest walks; the way printed with the moves' letters, the least as
//! text among the best) against a hand-written search on random mazes,
//! under every strategy, and that search told apart from the same search
//! with the other order of costs or of letters (so the comparison can
//! fail on either).

use crate::common;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

type Cell = (usize, usize);

/// How the hand-written search ranks its ways: the shipped rules' order,
/// or one of two sabotaged ones.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// Fewest pushes, then fewest walks, then the least as text.
    Rules,
    /// Fewest walks first.
    WalksFirst,
    /// The greatest as text.
    Backwards,
}

/// `pushes walks path` for the best way to bring the box `B` onto `T`
/// (the keeper `S` walks with `n e s w`, pushes with `N E S W`, `#` is
/// rock), or `None`. Dijkstra's algorithm whose label is the whole
/// (cost, way): two ways of one cost have one length, so the order of
/// labels survives appending a letter, and the first label settled at a
/// goal is the best.
fn solve(g: &[Vec<u8>], order: Order) -> Option<String> {
    let find = |ch: u8| common::find(g, ch);
    let (keeper, boxed, target) = (find(b'S'), find(b'B'), find(b'T'));
    let open = |r: i64, c: i64| {
        r >= 0
            && c >= 0
            && (r as usize) < g.len()
            && (c as usize) < g[0].len()
            && g[r as usize][c as usize] != b'#'
    };
    let moves: [(i64, i64, u8); 4] = [(-1, 0, b'n'), (0, 1, b'e'), (1, 0, b's'), (0, -1, b'w')];
    // The label: the ranked costs, then the way as ranked text.
    let rank = |pushes: u32, walks: u32| match order {
        Order::WalksFirst => (walks, pushes),
        _ => (pushes, walks),
    };
    let text = |way: &[u8]| -> Vec<u8> {
        match order {
            Order::Backwards => way.iter().map(|&b| 255 - b).collect(),
            _ => way.to_vec(),
        }
    };
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((
        rank(0, 0),
        Vec::new(),
        0,
        0,
        keeper,
        boxed,
        Vec::new(),
    )));
    let mut settled: HashSet<(Cell, Cell)> = HashSet::new();
    while let Some(Reverse((_, _, pushes, walks, k, b, way))) = heap.pop() {
        if !settled.insert((k, b)) {
            continue;
        }
        if b == target {
            let way = String::from_utf8(way).unwrap();
            return Some(format!("{pushes} {walks} {way}"));
        }
        for &(dr, dc, letter) in &moves {
            let (r, c) = (k.0 as i64 + dr, k.1 as i64 + dc);
            if !open(r, c) {
                continue;
            }
            let ahead = (r as usize, c as usize);
            let (nb, np, nw, letter) = if ahead == b {
                if !open(r + dr, c + dc) {
                    continue;
                }
                let beyond = ((r + dr) as usize, (c + dc) as usize);
                (beyond, pushes + 1, walks, letter.to_ascii_uppercase())
            } else {
                (b, pushes, walks + 1, letter)
            };
            if settled.contains(&(ahead, nb)) {
                continue;
            }
            let mut next = way.clone();
            next.push(letter);
            heap.push(Reverse((
                rank(np, nw),
                text(&next),
                np,
                nw,
                ahead,
                nb,
                next,
            )));
        }
    }
    None
}

/// A maze of 2-8 rows by 3-9 columns, an eighth rock, with the keeper, the
/// box and the target on three of its cells.
fn maze(rng: &mut rand::rngs::SmallRng) -> Vec<Vec<u8>> {
    let (h, w) = (rng.gen_range(2..=8), rng.gen_range(3..=9));
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(0.12) { b'#' } else { b'.' });
    let cells = common::all_cells(&g);
    common::place(rng, &mut g, cells, b"SBT");
    g
}

/// The shipped rule file, reading mazes until the end of the input and
/// printing the parts and the way on one line.
fn rules() -> String {
    let text = std::fs::read_to_string(common::root().join("puzzles/pushing.puz")).unwrap();
    let head = &text[..text
        .find("output {")
        .expect("pushing.puz has an output block")];
    assert!(head.contains("cases until 0 0"));
    head.replace("cases until 0 0", "cases until eof")
        + "output { solved \"{pushes} {walks} {path}\" unsolved \"-1\" }\n"
}

/// The rules against the hand-written search on 2000 mazes; and on those
/// mazes the rules' order is told apart from the other order of costs and
/// from the other order of letters, so rules that ranked their ways either
/// way would fail.
#[test]
fn pushing_matches_a_hand_written_search() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x9475);
    let rules = rules();
    let (costs, letters) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let (solved, unsolved) = common::rounds_against(&rules, &mut rng, (200, 10), maze, |g| {
        let want = solve(g, Order::Rules);
        costs.set(costs.get() + usize::from(solve(g, Order::WalksFirst) != want));
        letters.set(letters.get() + usize::from(solve(g, Order::Backwards) != want));
        want
    });
    let (costs, letters) = (costs.get(), letters.get());
    eprintln!("{solved} solved, {unsolved} not; {costs} told apart by costs, {letters} by letters");
    assert!(
        solved > 500 && unsolved > 100 && costs > 10 && letters > 200,
        "{solved} solved, {unsolved} not; {costs} told apart by costs, {letters} by letters"
    );
}

/// The ordered engine's packed labels in an array (the plan's choice on
/// these small mazes) against labels unpacked in a hash map: on random
/// mazes and random costs in parts (steps that spend different totals, so
/// that the packing keeps the steps too, and steps that spend the same),
/// with and without letters, the same solution: cost, parts, steps, way,
/// statistics.
#[test]
fn packed_labels_in_an_array_match_wide_labels_in_a_map() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x9ac4);
    let (mut with_steps, mut without, mut solved) = (0, 0, 0);
    for _ in 0..300 {
        let cost = |rng: &mut rand::rngs::SmallRng| {
            let (p, w) = (rng.gen_range(0..3), rng.gen_range(1..3));
            format!("{p} pushes + {w} walks")
        };
        let lettered = rng.gen_bool(0.5);
        let letter = |l: &str| {
            if lettered {
                format!(" '{l}' pushing '{}'", l.to_uppercase())
            } else {
                String::new()
            }
        };
        let uniform = rng.gen_bool(0.3);
        let moves: Vec<String> = ["north", "east", "south", "west"]
            .iter()
            .map(|d| {
                let c = if uniform {
                    "1 walks".to_string()
                } else {
                    cost(&mut rng)
                };
                format!("{d}{} costs {c}", letter(&d[..1]))
            })
            .collect();
        let push = if uniform {
            "1 pushes".to_string()
        } else {
            cost(&mut rng)
        };
        let rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  rock '#' solid  spot 'T' }}\n\
             agent keeper 'S' on floor\n\
             object box 'B' on floor\n\
             minimise pushes then walks\n\
             move keeper: {}\n\
             push box costs {push}\n\
             goal every box on spot\n",
            moves.join(", ")
        );
        let g = maze(&mut rng);
        let input = common::case_text(&format!("{} {}", g.len(), g[0].len()), &g);
        let loaded = puzzle::load("pushing.puz", &rules).unwrap_or_else(|e| panic!("{e:?}"));
        let case = puzzle::input::Reader::new(loaded.rules.io(), &input, false, None)
            .next_case()
            .expect("a case")
            .expect("the case reads");
        let task = puzzle::task::ground(&loaded.rules, &case).expect("the case grounds");
        let plan = puzzle::plan::plan(&task, puzzle::plan::Config::default()).unwrap();
        let Some(labels) = plan.labels() else {
            continue; // No goal on this map: nothing is searched.
        };
        assert!(labels.packing.is_some() && labels.array.is_some());
        let explained = plan.describe(&task);
        if explained.contains("no steps (every step spends") {
            without += 1;
        } else {
            assert!(explained.contains(", steps ("), "{explained}");
            with_steps += 1;
        }
        let budget = puzzle::budget::Budget::unlimited();
        let packed = puzzle::search::run_finding_way(&task, &plan, &budget, true);
        let wide = plan.clone().with_wide_labels_in_a_map();
        let wide = puzzle::search::run_finding_way(&task, &wide, &budget, true);
        assert_eq!(packed, wide, "{rules}\n{input}");
        solved += usize::from(packed.cost().is_some());
    }
    assert!(
        with_steps > 100 && without > 50 && solved > 80,
        "{with_steps} with steps, {without} without, {solved} solved"
    );
}
