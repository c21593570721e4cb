//! Levers, the fourth shipped puzzle (our own): the rule file against an
//! independent solver on its sample and on random maps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

type State = ((usize, usize), (usize, usize), u8);

/// Straightforward BFS: each step one robot moves; levers flip gates.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let start: State = (common::find(g, b'1'), common::find(g, b'2'), 0);
    let mut dist: HashMap<State, u32> = HashMap::from([(start, 0)]);
    let mut q = VecDeque::from([start]);
    while let Some(s) = q.pop_front() {
        let d = dist[&s];
        let (a, b, open) = s;
        if g[a.0][a.1] == b'P' && g[b.0][b.1] == b'P' {
            return Some(d);
        }
        for who in 0..2 {
            let (me, other) = if who == 0 { (a, b) } else { (b, a) };
            for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
                let (r, c) = (me.0 as i64 + dr, me.1 as i64 + dc);
                if r < 0 || c < 0 || r >= h as i64 || c >= w as i64 {
                    continue;
                }
                let to = (r as usize, c as usize);
                let ch = g[to.0][to.1];
                let gate_shut = match ch {
                    b'R' => open & 1 == 0,
                    b'B' => open & 2 == 0,
                    _ => false,
                };
                if ch == b'#' || gate_shut || to == other {
                    continue;
                }
                let flipped = match ch {
                    b'r' => open ^ 1,
                    b'b' => open ^ 2,
                    _ => open,
                };
                let t = if who == 0 {
                    (to, b, flipped)
                } else {
                    (a, to, flipped)
                };
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t) {
                    e.insert(d + 1);
                    q.push_back(t);
                }
            }
        }
    }
    None
}

fn answer(case: usize, g: &[Vec<u8>]) -> String {
    match solve(g) {
        Some(n) => format!("Map {case}:\n{n} moves\n"),
        None => format!("Map {case}:\nstuck\n"),
    }
}

fn grids(input: &str) -> Vec<Vec<Vec<u8>>> {
    let mut lines = input.lines().filter(|l| !l.trim().is_empty());
    let t: usize = lines.next().unwrap().trim().parse().unwrap();
    (0..t)
        .map(|_| {
            let dims: Vec<usize> = lines
                .next()
                .unwrap()
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            (0..dims[0])
                .map(|_| lines.next().unwrap().as_bytes()[..dims[1]].to_vec())
                .collect()
        })
        .collect()
}

#[test]
fn sample_agrees_with_independent_solver() {
    let rules = common::puzzle("levers").rules;
    let root = common::root().join("puzzles");
    let input = common::read(&root.join("levers.in"));
    let want: String = grids(&input)
        .iter()
        .enumerate()
        .map(|(i, g)| answer(i + 1, g))
        .collect();
    assert_eq!(want, common::read(&root.join("levers.out")));
    assert_eq!(common::run(&rules, &input), want);
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("levers").rules;
    let mut rng = SmallRng::seed_from_u64(0x1e7e5);
    let mut input = format!("{}\n", common::CASES);
    let mut want = String::new();
    let mut cases = Vec::new();
    for case in 1..=common::CASES {
        let (h, w) = (rng.gen_range(2..=7), rng.gen_range(2..=7));
        let mut g: Vec<Vec<u8>> = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| *b"...##PrbRB".get(rng.gen_range(0..10)).unwrap())
                    .collect()
            })
            .collect();
        let cells = common::all_cells(&g);
        common::place(&mut rng, &mut g, cells, b"12");
        let text = common::case_text(&format!("{h} {w}"), &g);
        input.push_str(&text);
        want.push_str(&answer(case, &g));
        cases.push(text);
    }
    common::assert_same(&common::run(&rules, &input), &want, &cases);
}
