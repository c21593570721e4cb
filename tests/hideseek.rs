//! Hide and seek (HDU 4528): the shipped rule file against an independent
//! solver on random valid inputs, plus the sample.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Which hiders the seeker sees from (r, c): look along the row and the
/// column; an obstacle or a hider stops the look.
fn sees(g: &[Vec<u8>], r: usize, c: usize) -> u8 {
    let mut found = 0;
    for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
        let (mut i, mut j) = (r as i64, c as i64);
        loop {
            i += dr;
            j += dc;
            if i < 0 || j < 0 || i >= g.len() as i64 || j >= g[0].len() as i64 {
                break;
            }
            match g[i as usize][j as usize] {
                b'X' => break,
                b'D' => {
                    found |= 1;
                    break;
                }
                b'E' => {
                    found |= 2;
                    break;
                }
                _ => {}
            }
        }
    }
    found
}

/// Straightforward BFS over (row, column, hiders found), up to t steps.
fn solve(g: &[Vec<u8>], t: u32) -> i64 {
    let (n, m) = (g.len(), g[0].len());
    let (sr, sc) = common::find(g, b'S');
    let mut dist = vec![vec![vec![u32::MAX; 4]; m]; n];
    let f0 = sees(g, sr, sc) as usize;
    dist[sr][sc][f0] = 0;
    let mut q = VecDeque::from([(sr, sc, f0)]);
    while let Some((i, j, f)) = q.pop_front() {
        let d = dist[i][j][f];
        if f == 3 {
            return d as i64;
        }
        if d == t {
            continue;
        }
        for (di, dj) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (ni, nj) = (i as i64 + di, j as i64 + dj);
            if ni < 0 || nj < 0 || ni >= n as i64 || nj >= m as i64 {
                continue;
            }
            let (ni, nj) = (ni as usize, nj as usize);
            if !matches!(g[ni][nj], b'.' | b'S') {
                continue;
            }
            let nf = f | sees(g, ni, nj) as usize;
            if dist[ni][nj][nf] == u32::MAX {
                dist[ni][nj][nf] = d + 1;
                q.push_back((ni, nj, nf));
            }
        }
    }
    -1
}

fn random_case(rng: &mut SmallRng) -> (String, i64) {
    let big = rng.gen_bool(0.05);
    let hi = if big { 100 } else { 20 };
    let (n, m) = (rng.gen_range(3..=hi), rng.gen_range(3..=hi));
    let t = if rng.gen_bool(0.8) {
        rng.gen_range(0..=40)
    } else {
        rng.gen_range(0..=100)
    };
    let wall = rng.gen_range(0.0..0.5);
    let mut g: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            (0..m)
                .map(|_| if rng.gen_bool(wall) { b'X' } else { b'.' })
                .collect()
        })
        .collect();
    let cells = common::all_cells(&g);
    common::place(rng, &mut g, cells, b"SDE");
    (common::case_text(&format!("{n} {m} {t}"), &g), solve(&g, t))
}

#[test]
fn sample_matches() {
    common::assert_sample("hideseek");
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("hideseek").rules;
    let mut rng = SmallRng::seed_from_u64(0x41de_5eec);
    let want = |a: &[i64]| {
        let case = |(i, a): (usize, &i64)| format!("Case {}:\n{a}\n", i + 1);
        a.iter().enumerate().map(case).collect()
    };
    common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        common::counted,
        want,
    );
}
