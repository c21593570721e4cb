//! Cleaning Robot (POJ 2688): one flag per dirty tile of the map. The rule
//! file against an independent solver on its sample and on random maps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// BFS over (cell, the dirty tiles cleaned so far).
fn solve(g: &[Vec<u8>]) -> i64 {
    let (h, w) = (g.len(), g[0].len());
    let dirty: Vec<(usize, usize)> = common::all_cells(g)
        .into_iter()
        .filter(|&(r, c)| g[r][c] == b'*')
        .collect();
    let all = (1usize << dirty.len()) - 1;
    let (sr, sc) = common::find(g, b'o');
    let mut dist = vec![vec![-1i64; all + 1]; h * w];
    dist[sr * w + sc][0] = 0;
    let mut q = VecDeque::from([(sr, sc, 0usize)]);
    while let Some((r, c, m)) = q.pop_front() {
        let d = dist[r * w + c][m];
        if m == all {
            return d;
        }
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            if g[nr][nc] == b'x' {
                continue;
            }
            let nm = m | dirty
                .iter()
                .position(|&p| p == (nr, nc))
                .map_or(0, |i| 1 << i);
            if dist[nr * w + nc][nm] < 0 {
                dist[nr * w + nc][nm] = d + 1;
                q.push_back((nr, nc, nm));
            }
        }
    }
    -1
}

fn random_case(rng: &mut SmallRng) -> (String, i64) {
    let (h, w) = (rng.gen_range(1..=10), rng.gen_range(1..=12));
    let wall = rng.gen_range(0.0..0.35);
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(wall) { b'x' } else { b'.' });
    let cells = common::all_cells(&g);
    let n = rng.gen_range(0..=7usize).min(cells.len() - 1);
    let mut markers = vec![b'o'];
    markers.extend(std::iter::repeat_n(b'*', n));
    common::place(rng, &mut g, cells, &markers);
    // The header is `w h`.
    (common::case_text(&format!("{w} {h}"), &g), solve(&g))
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("cleaning", false, Some(&[0, 0]), 1);
    let want: String = maps
        .iter()
        .map(|(_, g)| format!("{}\n", solve(g)))
        .collect();
    common::assert_sample_is("cleaning", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("cleaning").rules;
    let mut rng = SmallRng::seed_from_u64(0xc1ea0);
    let want = common::lines(|a: &i64| a.to_string());
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        common::until("0 0"),
        want,
    );
    let stuck = all.iter().filter(|&&a| a < 0).count();
    assert!(
        stuck > 10 && stuck < all.len() - 50,
        "mixed answers: {stuck} of {} stuck",
        all.len()
    );
}
