//! Rescue (HDU 1242): several starts, a tile that costs two. The rule file
//! against an independent solver on its sample and on random maps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dijkstra from every friend at once; entering a guard's cell costs 2.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let mut dist = vec![u32::MAX; h * w];
    let mut heap = BinaryHeap::new();
    for (r, c) in common::all_cells(g) {
        if g[r][c] == b'r' {
            dist[r * w + c] = 0;
            heap.push(Reverse((0, r, c)));
        }
    }
    while let Some(Reverse((d, r, c))) = heap.pop() {
        if d > dist[r * w + c] {
            continue;
        }
        if g[r][c] == b'a' {
            return Some(d);
        }
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            let cost = match g[nr][nc] {
                b'#' => continue,
                b'x' => 2,
                _ => 1,
            };
            if d + cost < dist[nr * w + nc] {
                dist[nr * w + nc] = d + cost;
                heap.push(Reverse((d + cost, nr, nc)));
            }
        }
    }
    None
}

fn answer(a: Option<u32>) -> String {
    match a {
        Some(t) => format!("{t}\n"),
        None => "Poor ANGEL has to stay in the prison all his life.\n".into(),
    }
}

fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let big = rng.gen_bool(0.05);
    let (h, w) = if big {
        (rng.gen_range(50..=200), rng.gen_range(50..=200))
    } else {
        (rng.gen_range(1..=12), rng.gen_range(2..=12))
    };
    let (wall, guard) = (rng.gen_range(0.0..0.4), rng.gen_range(0.0..0.3));
    let mut g = common::mixed_grid(rng, h, w, &[(wall, b'#'), (guard, b'x')], b'.');
    let cells = common::all_cells(&g);
    let friends = rng.gen_range(0..=4usize).min(cells.len() - 1);
    let mut markers = vec![b'a'];
    markers.extend(std::iter::repeat_n(b'r', friends));
    common::place(rng, &mut g, cells, &markers);
    (common::case_text(&format!("{h} {w}"), &g), solve(&g))
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("rescue", false, None, 0);
    let want: String = maps.iter().map(|(_, g)| answer(solve(g))).collect();
    common::assert_sample_is("rescue", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_maps() {
    let rules = common::puzzle("rescue").rules;
    let mut rng = SmallRng::seed_from_u64(0x005e_5c0e);
    let input = |cases: &[String]| cases.concat();
    let want = |a: &[Option<u32>]| a.iter().map(|&a| answer(a)).collect();
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        input,
        want,
    );
    let reached = all.iter().filter(|a| a.is_some()).count();
    assert!(
        reached > 50 && reached < all.len(),
        "mixed answers: {reached} of {}",
        all.len()
    );
}
