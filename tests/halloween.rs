//! "The Morning after Halloween": the shipped rule file against an
//! independent solver on random valid inputs, plus the sample.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// A random map obeying the statement: walls all round, corridors and walls
/// each connected, a `#` in every 2x2 block. Rows of bytes, ' ' or '#'.
fn random_map(rng: &mut SmallRng, w: usize, h: usize) -> Vec<Vec<u8>> {
    let mut g = vec![vec![b'#'; w]; h];
    // A perfect maze over the odd cells, by randomised depth-first search.
    let odd = |x: usize, lim: usize| x % 2 == 1 && x < lim - 1;
    let (sr, sc) = (1, 1);
    g[sr][sc] = b' ';
    let mut stack = vec![(sr, sc)];
    while let Some(&(r, c)) = stack.last() {
        let mut next = Vec::new();
        for (dr, dc) in [(0i64, 2i64), (0, -2), (2, 0), (-2, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr > 0
                && nc > 0
                && odd(nr as usize, h)
                && odd(nc as usize, w)
                && g[nr as usize][nc as usize] == b'#'
            {
                next.push((nr as usize, nc as usize));
            }
        }
        if next.is_empty() {
            stack.pop();
            continue;
        }
        let (nr, nc) = next[rng.gen_range(0..next.len())];
        g[(r + nr) / 2][(c + nc) / 2] = b' ';
        g[nr][nc] = b' ';
        stack.push((nr, nc));
    }
    // Open more cells where the statement's constraints still hold.
    for _ in 0..rng.gen_range(0..w * h) {
        let (r, c) = (rng.gen_range(1..h - 1), rng.gen_range(1..w - 1));
        if g[r][c] != b'#' {
            continue;
        }
        let touches = [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)]
            .iter()
            .any(|(dr, dc)| g[(r as i64 + dr) as usize][(c as i64 + dc) as usize] == b' ');
        if !touches {
            continue;
        }
        g[r][c] = b' ';
        let blocks_ok = (r - 1..=r)
            .all(|a| (c - 1..=c).all(|b| (0..2).any(|i| (0..2).any(|j| g[a + i][b + j] == b'#'))));
        if !blocks_ok || !connected(&g, b'#') {
            g[r][c] = b'#';
        }
    }
    g
}

fn connected(g: &[Vec<u8>], ch: u8) -> bool {
    let (h, w) = (g.len(), g[0].len());
    let cells: Vec<(usize, usize)> = (0..h)
        .flat_map(|r| (0..w).map(move |c| (r, c)))
        .filter(|&(r, c)| g[r][c] == ch)
        .collect();
    let Some(&first) = cells.first() else {
        return true;
    };
    let mut seen = vec![vec![false; w]; h];
    seen[first.0][first.1] = true;
    let mut q = VecDeque::from([first]);
    let mut n = 1;
    while let Some((r, c)) = q.pop_front() {
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            if g[nr][nc] == ch && !seen[nr][nc] {
                seen[nr][nc] = true;
                n += 1;
                q.push_back((nr, nc));
            }
        }
    }
    n == cells.len()
}

/// Straightforward BFS over the ghosts' (row, column) tuples: try every
/// combination of five moves, then reject collisions and swaps.
fn solve(g: &[Vec<u8>], n: usize) -> Option<u32> {
    let find = |ch: u8| common::find(g, ch);
    let start: Vec<(usize, usize)> = (0..n).map(|i| find(b'a' + i as u8)).collect();
    let goal: Vec<(usize, usize)> = (0..n).map(|i| find(b'A' + i as u8)).collect();
    let key = |s: &[(usize, usize)]| s.iter().fold(0usize, |k, &(r, c)| k * 256 + r * 16 + c);
    let mut dist = vec![u32::MAX; 1 << (8 * n)];
    dist[key(&start)] = 0;
    let mut q = VecDeque::from([start]);
    let moves = [(0i64, 0i64), (0, 1), (0, -1), (1, 0), (-1, 0)];
    while let Some(s) = q.pop_front() {
        let d = dist[key(&s)];
        if s == goal {
            return Some(d);
        }
        let combos = 5usize.pow(n as u32);
        'combo: for mut k in 0..combos {
            let mut t = s.clone();
            for p in t.iter_mut() {
                let (dr, dc) = moves[k % 5];
                k /= 5;
                let (nr, nc) = ((p.0 as i64 + dr) as usize, (p.1 as i64 + dc) as usize);
                if g[nr][nc] == b'#' {
                    continue 'combo;
                }
                *p = (nr, nc);
            }
            for i in 0..n {
                for j in i + 1..n {
                    if t[i] == t[j] || (t[i] == s[j] && t[j] == s[i]) {
                        continue 'combo;
                    }
                }
            }
            let kt = key(&t);
            if dist[kt] == u32::MAX {
                dist[kt] = d + 1;
                q.push_back(t);
            }
        }
    }
    None
}

/// A random valid dataset and its answer.
fn random_case(rng: &mut SmallRng) -> (String, u32) {
    loop {
        let big = rng.gen_bool(0.1);
        let hi = if big { 16 } else { 11 };
        let (w, h) = (rng.gen_range(4..=hi), rng.gen_range(4..=hi));
        let n = rng.gen_range(1..=3);
        let mut g = random_map(rng, w, h);
        let free: Vec<(usize, usize)> = (0..h)
            .flat_map(|r| (0..w).map(move |c| (r, c)))
            .filter(|&(r, c)| g[r][c] == b' ')
            .collect();
        if free.len() < 2 * n || !connected(&g, b' ') {
            continue;
        }
        let markers = common::family_markers(n);
        common::place(rng, &mut g, free, &markers);
        // The statement promises a solution: keep only solvable maps.
        let Some(ans) = solve(&g, n) else { continue };
        let pad = if rng.gen_bool(0.3) { " " } else { "" };
        return (common::case_text(&format!("{w} {h} {n}{pad}"), &g), ans);
    }
}

#[test]
fn sample_matches() {
    common::assert_sample("halloween");
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("halloween").rules;
    let mut rng = SmallRng::seed_from_u64(0x4a11_0e3e);
    // Inputs of up to ten datasets, as the statement allows; every strategy
    // and thread count must give the same answers.
    let want = common::lines(|a: &u32| a.to_string());
    common::batches(
        &rules,
        &mut rng,
        common::CASES,
        10,
        random_case,
        common::until("0 0 0"),
        want,
    );
}
