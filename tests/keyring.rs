//! Keyring (our own): keys all alike, each picked up once; a door takes one
//! key to open and stays open. The rule file against an independent solver
//! on its sample and on random maps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// BFS over (cell, keys taken, doors opened); the keys in hand are those
/// taken less those spent.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let index = |ch: u8| -> HashMap<(usize, usize), u32> {
        common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == ch)
            .enumerate()
            .map(|(i, p)| (p, i as u32))
            .collect()
    };
    let (keys, doors) = (index(b'k'), index(b'D'));
    let start = (common::find(g, b'@'), 0u32, 0u32);
    let mut dist = HashMap::from([(start, 0u32)]);
    let mut q = VecDeque::from([start]);
    while let Some(s) = q.pop_front() {
        let d = dist[&s];
        let ((r, c), taken, opened) = s;
        if g[r][c] == b'E' {
            return Some(d);
        }
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let p = (nr as usize, nc as usize);
            let (mut t, mut o) = (taken, opened);
            match g[p.0][p.1] {
                b'#' => continue,
                b'k' => t |= 1 << keys[&p],
                b'D' => {
                    let bit = 1 << doors[&p];
                    if o & bit == 0 {
                        let in_hand = t.count_ones() - o.count_ones();
                        if in_hand == 0 {
                            continue;
                        }
                        o |= bit;
                    }
                }
                _ => {}
            }
            let n = (p, t, o);
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(n) {
                e.insert(d + 1);
                q.push_back(n);
            }
        }
    }
    None
}

fn answer(a: Option<u32>) -> String {
    a.map_or("locked in\n".into(), |d| format!("{d}\n"))
}

fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(1..=8), rng.gen_range(2..=9));
    let wall = rng.gen_range(0.0..0.35);
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(wall) { b'#' } else { b'.' });
    let cells = common::all_cells(&g);
    let (k, d) = (rng.gen_range(0..=4usize), rng.gen_range(0..=5usize));
    let mut markers = vec![b'@', b'E'];
    markers.extend(std::iter::repeat_n(b'k', k));
    markers.extend(std::iter::repeat_n(b'D', d));
    markers.truncate(cells.len());
    common::place(rng, &mut g, cells, &markers);
    if markers.len() < 2 {
        return random_case(rng);
    }
    (common::case_text(&format!("{h} {w}"), &g), solve(&g))
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("keyring", true, None, 0);
    let want: String = maps.iter().map(|(_, g)| answer(solve(g))).collect();
    common::assert_sample_is("keyring", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("keyring").rules;
    let mut rng = SmallRng::seed_from_u64(0x06e7_11e6);
    let want = |a: &[Option<u32>]| a.iter().map(|&a| answer(a)).collect();
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        common::counted,
        want,
    );
    let locked = all.iter().filter(|a| a.is_none()).count();
    assert!(
        locked > 10 && locked < all.len() - 50,
        "mixed answers: {locked} of {} locked in",
        all.len()
    );
}
