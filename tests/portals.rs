//! Portals: teleporter pairs, a key and doors. The rule file (`teleport`)
//! against an independent solver on its sample and on random mazes, with
//! forced teleporters as shipped and with optional ones (the same rule
//! file, `teleport portal optional`).

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Breadth-first search over (cell, holding the key). Stepping onto a
/// teleporter's end puts the walker on the other end (or, when
/// `optional`, it may stay).
fn solve(g: &[Vec<u8>], optional: bool) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let other = |r: usize, c: usize| {
        let ch = g[r][c];
        common::all_cells(g)
            .into_iter()
            .find(|&(r2, c2)| (r2, c2) != (r, c) && g[r2][c2] == ch)
            .expect("ends come in pairs")
    };
    let start = common::find(g, b'S');
    let mut dist = vec![u32::MAX; h * w * 2];
    dist[(start.0 * w + start.1) * 2] = 0;
    let mut queue = VecDeque::from([(start, false)]);
    while let Some(((r, c), key)) = queue.pop_front() {
        let d = dist[(r * w + c) * 2 + usize::from(key)];
        if g[r][c] == b'E' {
            return Some(d);
        }
        for (dr, dc) in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            let ch = g[nr][nc];
            if ch == b'#' || (ch == b'D' && !key) {
                continue;
            }
            let key = key || ch == b'k';
            let mut to = Vec::new();
            if ch.is_ascii_lowercase() && ch != b'k' {
                to.push(other(nr, nc));
                if optional {
                    to.push((nr, nc));
                }
            } else {
                to.push((nr, nc));
            }
            for (tr, tc) in to {
                let i = (tr * w + tc) * 2 + usize::from(key);
                if dist[i] == u32::MAX {
                    dist[i] = d + 1;
                    queue.push_back(((tr, tc), key));
                }
            }
        }
    }
    None
}

fn random_case(rng: &mut SmallRng, optional: bool) -> (String, Option<u32>) {
    let big = rng.gen_bool(0.05);
    let (h, w) = if big {
        (rng.gen_range(30..=80), rng.gen_range(30..=80))
    } else {
        (rng.gen_range(2..=9), rng.gen_range(2..=9))
    };
    let wall = rng.gen_range(0.0..0.45);
    maze(rng, (h, w), wall, optional)
}

/// A random `h x w` maze with about `wall` of its cells walls, and its
/// answer.
fn maze(
    rng: &mut SmallRng,
    (h, w): (usize, usize),
    wall: f64,
    optional: bool,
) -> (String, Option<u32>) {
    let door = rng.gen_range(0.0..0.1);
    let mut g = common::mixed_grid(rng, h, w, &[(wall, b'#'), (door, b'D')], b'.');
    let cells = common::all_cells(&g);
    let pairs = rng.gen_range(0..=5usize).min((cells.len() - 3) / 2);
    let mut markers = vec![b'S', b'E', b'k'];
    for p in 0..pairs as u8 {
        markers.extend([b'a' + p, b'a' + p]);
    }
    common::place(rng, &mut g, cells, &markers);
    let answer = solve(&g, optional);
    (common::case_text(&format!("{h} {w}"), &g), answer)
}

use common::or_minus_one as answer;

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("portals", false, Some(&[0, 0]), 0);
    let want: String = maps
        .iter()
        .map(|(_, g)| answer(&solve(g, false)) + "\n")
        .collect();
    common::assert_sample_is("portals", &want);
}

/// The shipped rules, with `teleport portal optional` if `optional`.
fn rules(optional: bool) -> puzzle::resolve::Rules {
    let path = common::root().join("puzzles/portals.puz");
    let text = common::read(&path);
    let text = if optional {
        let t = text.replace("teleport portal\n", "teleport portal optional\n");
        assert_ne!(t, text, "the rule file declares `teleport portal`");
        t
    } else {
        text
    };
    puzzle::load("portals.puz", &text)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)))
        .rules
}

#[test]
fn agrees_with_independent_solver_on_random_mazes() {
    for optional in [false, true] {
        let rules = rules(optional);
        let mut rng = SmallRng::seed_from_u64(0x7e1e + u64::from(optional));
        let all = common::batches(
            &rules,
            &mut rng,
            common::CASES / 2,
            12,
            |r| random_case(r, optional),
            common::until("0 0"),
            common::lines(answer),
        );
        let reached = all.iter().filter(|a| a.is_some()).count();
        assert!(
            reached > 50 && reached < all.len(),
            "optional {optional}: mixed answers: {reached} of {}",
            all.len()
        );
    }
}

/// Mazes of over 2^18 cells, mostly open: the walker's positions are the
/// padded grid's cells, not a list of them (checked), with the same
/// answers.
#[test]
fn agrees_with_independent_solver_on_large_mazes() {
    for optional in [false, true] {
        let rules = rules(optional);
        let mut rng = SmallRng::seed_from_u64(0x1a46e + u64::from(optional));
        let mut grid = 0;
        let all = common::batches(
            &rules,
            &mut rng,
            4,
            2,
            |rng| {
                let size = (rng.gen_range(510..=600), rng.gen_range(510..=600));
                let wall = rng.gen_range(0.0..0.35);
                let (text, answer) = maze(rng, size, wall, optional);
                let input = format!("{text}0 0\n");
                grid += usize::from(common::on_padded_grid(&rules, &input));
                (text, answer)
            },
            common::until("0 0"),
            common::lines(answer),
        );
        assert_eq!(
            grid,
            all.len(),
            "every large maze has the padded grid's positions"
        );
        assert!(all.iter().any(|a| a.is_some()), "{all:?}");
    }
}
