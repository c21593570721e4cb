//! The Monocycle (UVa 10047): a heading and a wheel of five sectors. The
//! rule file against an independent solver on its sample and on random
//! maps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// BFS over (row, column, heading, sector): ride forward (the sector turns
/// on), or turn a quarter either way.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let (sr, sc) = common::find(g, b'S');
    const DIRS: [(i64, i64); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];
    let mut dist = vec![[[u32::MAX; 5]; 4]; h * w];
    dist[sr * w + sc][0][0] = 0;
    let mut q = VecDeque::from([(sr, sc, 0usize, 0usize)]);
    while let Some((r, c, d, s)) = q.pop_front() {
        let t = dist[r * w + c][d][s];
        if g[r][c] == b'T' && s == 0 {
            return Some(t);
        }
        let mut next = vec![(r, c, (d + 1) % 4, s), (r, c, (d + 3) % 4, s)];
        let (nr, nc) = (r as i64 + DIRS[d].0, c as i64 + DIRS[d].1);
        if nr >= 0 && nc >= 0 && (nr as usize) < h && (nc as usize) < w {
            let (nr, nc) = (nr as usize, nc as usize);
            if g[nr][nc] != b'#' {
                next.push((nr, nc, d, (s + 1) % 5));
            }
        }
        for (nr, nc, nd, ns) in next {
            if dist[nr * w + nc][nd][ns] == u32::MAX {
                dist[nr * w + nc][nd][ns] = t + 1;
                q.push_back((nr, nc, nd, ns));
            }
        }
    }
    None
}

fn answer(i: usize, a: Option<u32>) -> String {
    let line = match a {
        Some(t) => format!("minimum time = {t} sec"),
        None => "destination not reachable".into(),
    };
    format!("Case #{}\n{line}\n", i + 1)
}

/// The answers of several cases, a blank line between two.
fn answers(a: &[Option<u32>]) -> String {
    let v: Vec<String> = a.iter().enumerate().map(|(i, &a)| answer(i, a)).collect();
    v.join("\n")
}

fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(1..=12), rng.gen_range(2..=12));
    let wall = rng.gen_range(0.0..0.4);
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(wall) { b'#' } else { b'.' });
    let cells = common::all_cells(&g);
    common::place(rng, &mut g, cells, b"ST");
    (common::case_text(&format!("{h} {w}"), &g), solve(&g))
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("monocycle", false, Some(&[0, 0]), 0);
    let solved: Vec<Option<u32>> = maps.iter().map(|(_, g)| solve(g)).collect();
    common::assert_sample_is("monocycle", &answers(&solved));
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("monocycle").rules;
    let mut rng = SmallRng::seed_from_u64(0x0030_0c1e);
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        common::until("0 0"),
        answers,
    );
    let reached = all.iter().filter(|a| a.is_some()).count();
    assert!(
        reached > 50 && reached < all.len(),
        "mixed answers: {reached} of {}",
        all.len()
    );
}
