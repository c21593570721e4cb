//! Eight, the sliding puzzle: a board read as a list of numbers, the solved
//! board a layout in the rule file, the pieces agents in turn. The rule
//! file against an independent solver on its sample and on random boards.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

pub(crate) type Board = [u8; 9];
const SOLVED: Board = [1, 2, 3, 4, 5, 6, 7, 8, 0];

/// The fewest moves from every solvable board to the solved one: one BFS
/// from the solved board, the blank swapping with a neighbour.
pub(crate) fn distances() -> HashMap<Board, u32> {
    let mut dist = HashMap::from([(SOLVED, 0)]);
    let mut q = VecDeque::from([SOLVED]);
    while let Some(b) = q.pop_front() {
        let d = dist[&b];
        let z = b.iter().position(|&x| x == 0).unwrap();
        let (r, c) = (z / 3, z % 3);
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if !(0..3).contains(&nr) || !(0..3).contains(&nc) {
                continue;
            }
            let mut n = b;
            n.swap(z, nr as usize * 3 + nc as usize);
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(n) {
                e.insert(d + 1);
                q.push_back(n);
            }
        }
    }
    dist
}

fn answer(dist: &HashMap<Board, u32>, b: &Board) -> String {
    match dist.get(b) {
        Some(d) => format!("{d}\n"),
        None => "unsolvable\n".into(),
    }
}

/// A board as nine tokens, broken over lines at random.
pub(crate) fn board_text(rng: &mut SmallRng, b: &Board) -> String {
    let mut s = String::new();
    for (i, x) in b.iter().enumerate() {
        s.push_str(&x.to_string());
        s.push(if i == 8 || rng.gen_bool(0.3) {
            '\n'
        } else {
            ' '
        });
    }
    s
}

pub(crate) fn random_board(rng: &mut SmallRng) -> Board {
    let mut b = SOLVED;
    if rng.gen_bool(0.1) {
        // Any arrangement: half of them cannot be solved.
        for i in (1..9).rev() {
            b.swap(i, rng.gen_range(0..=i));
        }
        return b;
    }
    for _ in 0..rng.gen_range(0..60) {
        let z = b.iter().position(|&x| x == 0).unwrap();
        let n: Vec<usize> = [
            z.wrapping_sub(3),
            z + 3,
            if z % 3 > 0 { z - 1 } else { 9 },
            if z % 3 < 2 { z + 1 } else { 9 },
        ]
        .into_iter()
        .filter(|&i| i < 9)
        .collect();
        b.swap(z, n[rng.gen_range(0..n.len())]);
    }
    b
}

#[test]
fn sample_agrees_with_independent_solver() {
    let dir = common::root().join("puzzles");
    let dist = distances();
    let input = common::read(&dir.join("eight.in"));
    let nums: Vec<u8> = input
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap())
        .collect();
    let want: String = nums
        .chunks(9)
        .map(|b| answer(&dist, &b.try_into().unwrap()))
        .collect();
    assert_eq!(common::read(&dir.join("eight.out")), want);
    common::assert_sample("eight");
}

#[test]
fn agrees_with_independent_solver_on_random_boards() {
    let rules = common::puzzle("eight").rules;
    let dist = distances();
    let mut rng = SmallRng::seed_from_u64(0x000e_1647);
    let case = |rng: &mut SmallRng| {
        let b = random_board(rng);
        (board_text(rng, &b), answer(&dist, &b))
    };
    let want = |a: &[String]| a.concat();
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        20,
        case,
        common::counted,
        want,
    );
    let unsolvable = all.iter().filter(|a| *a == "unsolvable\n").count();
    assert!(
        unsolvable > 0 && unsolvable < all.len() / 4,
        "{unsolvable} of {} unsolvable",
        all.len()
    );
}
