//! "Key Task": the shipped rule file against an independent solver on
//! random valid inputs, plus the sample.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Straightforward BFS over (row, column, keys held).
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (r, c) = (g.len(), g[0].len());
    let (sr, sc) = common::find(g, b'*');
    let mut dist = vec![vec![vec![u32::MAX; 16]; c]; r];
    dist[sr][sc][0] = 0;
    let mut q = VecDeque::from([(sr, sc, 0usize)]);
    while let Some((i, j, keys)) = q.pop_front() {
        let d = dist[i][j][keys];
        if g[i][j] == b'X' {
            return Some(d);
        }
        for (di, dj) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (ni, nj) = (i as i64 + di, j as i64 + dj);
            if ni < 0 || nj < 0 || ni >= r as i64 || nj >= c as i64 {
                continue;
            }
            let (ni, nj) = (ni as usize, nj as usize);
            let ch = g[ni][nj];
            let mut k = keys;
            if ch == b'#' {
                continue;
            }
            if let Some(door) = b"BYRG".iter().position(|&d| d == ch)
                && keys & (1 << door) == 0
            {
                continue;
            }
            if let Some(key) = b"byrg".iter().position(|&d| d == ch) {
                k |= 1 << key;
            }
            if dist[ni][nj][k] == u32::MAX {
                dist[ni][nj][k] = d + 1;
                q.push_back((ni, nj, k));
            }
        }
    }
    None
}

pub(crate) fn random_case(rng: &mut SmallRng) -> (String, String) {
    let big = rng.gen_bool(0.05);
    let hi = if big { 100 } else { 25 };
    let (r, c) = (rng.gen_range(1..=hi), rng.gen_range(1..=hi));
    let wall = rng.gen_range(0.0..0.45);
    let mut g: Vec<Vec<u8>> = (0..r)
        .map(|_| {
            (0..c)
                .map(|_| {
                    let x: f64 = rng.r#gen();
                    if x < wall {
                        b'#'
                    } else if x < wall + 0.04 {
                        b"byrg"[rng.gen_range(0..4)]
                    } else if x < wall + 0.08 {
                        b"BYRG"[rng.gen_range(0..4)]
                    } else if x < wall + 0.095 {
                        b'X'
                    } else {
                        b'.'
                    }
                })
                .collect()
        })
        .collect();
    g[rng.gen_range(0..r)][rng.gen_range(0..c)] = b'*';
    let answer = match solve(&g) {
        Some(s) => format!("Escape possible in {s} steps.\n"),
        None => "The poor student is trapped!\n".to_string(),
    };
    // A blank line follows each map, as in the contest input.
    (common::case_text(&format!("{r} {c}"), &g) + "\n", answer)
}

#[test]
fn sample_matches() {
    common::assert_sample("keytask");
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("keytask").rules;
    let mut rng = SmallRng::seed_from_u64(0x6e7_7a5c);
    let want = |a: &[String]| a.concat();
    common::batches(
        &rules,
        &mut rng,
        common::CASES,
        20,
        random_case,
        common::until("0 0"),
        want,
    );
}
