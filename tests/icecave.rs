//! Ice cave (`puzzles/icecave.puz`): objects compose with slippery tiles
//! and teleports. A pushed boulder slides over ice until something stops it
//! and comes out of a warp's other end; the walker that pushed it follows
//! onto its cell and slides on behind it; a sliding walker never pushes.
//! The rule file against an independent solver (breadth-first over the
//! walker and the set of boulders, the moves written out cell by cell, no
//! pruning) on its sample and on random caves with and without warps.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashSet, VecDeque};

type Cell = (usize, usize);

/// The fewest moves until every hole holds a boulder, or `None`; with
/// `optional` warps, whatever enters one may also stay on it.
fn solve(g: &[Vec<u8>], optional: bool) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let mut walker = (0, 0);
    let mut boulders = BTreeSet::new();
    let mut holes = BTreeSet::new();
    let mut warps: Vec<(u8, Cell)> = Vec::new();
    for (r, row) in g.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            match ch {
                b'S' | b's' => walker = (r, c),
                b'B' | b'b' => {
                    boulders.insert((r, c));
                }
                b'*' => {
                    boulders.insert((r, c));
                    holes.insert((r, c));
                }
                b'o' => {
                    holes.insert((r, c));
                }
                b'1' | b'2' => warps.push((ch, (r, c))),
                _ => {}
            }
        }
    }
    let ice = |(r, c): Cell| matches!(g[r][c], b'.' | b's' | b'b');
    // The other end of a warp, if the cell is one.
    let partner = |x: Cell| {
        let (ch, _) = *warps.iter().find(|(_, y)| *y == x)?;
        warps
            .iter()
            .find(|(k, y)| *k == ch && *y != x)
            .map(|&(_, y)| y)
    };
    // The next cell by `d`, if it is on the map and not rock.
    let next = |(r, c): Cell, (dr, dc): (i64, i64)| {
        let (nr, nc) = (r as i64 + dr, c as i64 + dc);
        (nr >= 0 && nc >= 0 && (nr as usize) < h && (nc as usize) < w)
            .then_some((nr as usize, nc as usize))
            .filter(|&(r, c)| g[r][c] != b'#')
    };
    let start = (walker, boulders);
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some(((k, b), d)) = queue.pop_front() {
        if holes.is_subset(&b) {
            return Some(d);
        }
        for dir in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
            let Some(t) = next(k, dir) else { continue };
            // Where the boulders may be once the boulder on `t`, if any,
            // is pushed.
            let mut after = vec![b.clone()];
            if b.contains(&t) {
                // The boulder first: on over ice, out of a warp's other
                // end, stopped before rock, the edge, the walker or another
                // boulder.
                let mut rest = b.clone();
                rest.remove(&t);
                let taken = |x: Cell| x == k || rest.contains(&x);
                let mut at = t;
                let mut ends = Vec::new();
                while let Some(n) = next(at, dir).filter(|&n| !taken(n)) {
                    at = n;
                    if let Some(o) = partner(at).filter(|&o| !taken(o)) {
                        if optional {
                            ends.push(at);
                        }
                        at = o;
                    }
                    if partner(at).is_some() || !ice(at) {
                        break;
                    }
                }
                if at == t {
                    continue;
                }
                ends.push(at);
                after = ends
                    .into_iter()
                    .map(|e| {
                        let mut nb = rest.clone();
                        nb.insert(e);
                        nb
                    })
                    .collect();
            }
            for nb in after {
                // Then the walker: onto `t`, through a warp, on over ice,
                // stopped before any boulder.
                let mut at = t;
                let mut ends = Vec::new();
                loop {
                    if let Some(o) = partner(at) {
                        if !nb.contains(&o) {
                            if optional {
                                ends.push(at);
                            }
                            at = o;
                        }
                        break;
                    }
                    if !ice(at) {
                        break;
                    }
                    match next(at, dir).filter(|n| !nb.contains(n)) {
                        Some(n) => at = n,
                        None => break,
                    }
                }
                ends.push(at);
                for e in ends {
                    let s = (e, nb.clone());
                    if seen.insert(s.clone()) {
                        queue.push_back((s, d + 1));
                    }
                }
            }
        }
    }
    None
}

/// A random cave: rock, ice and snow; none, one or two pairs of warps; one
/// to three boulders, as many holes or one fewer (sometimes a boulder
/// already in a hole); the walker and the boulders drawn on ice or snow.
fn random_case(rng: &mut SmallRng, optional: bool) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=6));
    let (rock, ice) = (rng.gen_range(0.0..0.2), rng.gen_range(0.2..0.7));
    let mut g = common::mixed_grid(rng, h, w, &[(rock, b'#'), (ice, b'.')], b'_');
    let boulders = rng.gen_range(1..=3usize);
    let holes = boulders - usize::from(rng.gen_bool(0.2));
    let mut marks: Vec<u8> = Vec::new();
    for pair in [b'1', b'2'] {
        if rng.gen_bool(if pair == b'1' { 0.5 } else { 0.2 }) {
            marks.extend([pair, pair]);
        }
    }
    marks.push(b'S');
    marks.extend(std::iter::repeat_n(b'B', boulders));
    marks.extend(std::iter::repeat_n(b'o', holes));
    let mut cells = common::all_cells(&g);
    if cells.len() < marks.len() {
        marks.truncate(cells.len());
    }
    // Markers on open cells where there are enough, keeping what is under
    // the walker and the boulders.
    let open: Vec<Cell> = cells
        .iter()
        .copied()
        .filter(|&(r, c)| g[r][c] != b'#')
        .collect();
    if open.len() >= marks.len() {
        cells = open;
    }
    let under = g.clone();
    common::place(rng, &mut g, cells, &marks);
    for (r, c) in common::all_cells(&g) {
        let on_ice = under[r][c] == b'.';
        g[r][c] = match g[r][c] {
            b'S' if on_ice => b's',
            b'B' if on_ice => b'b',
            ch => ch,
        };
    }
    // Sometimes a boulder starts in a hole: it takes one hole's place,
    // which becomes what was under it.
    if rng.gen_bool(0.2)
        && let Some(&(r, c)) = common::all_cells(&g)
            .iter()
            .find(|&&(r, c)| g[r][c] == b'B')
        && let Some(&(hr, hc)) = common::all_cells(&g)
            .iter()
            .find(|&&(r, c)| g[r][c] == b'o')
    {
        g[r][c] = b'*';
        g[hr][hc] = if under[hr][hc] == b'.' { b'.' } else { b'_' };
    }
    let answer = solve(&g, optional);
    (common::case_text(&format!("{h} {w}"), &g), answer)
}

use common::or_minus_one as answer;

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("icecave", true, None, 0);
    let want: String = maps
        .iter()
        .map(|(_, g)| answer(&solve(g, false)) + "\n")
        .collect();
    common::assert_sample_is("icecave", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_caves() {
    // Warps as shipped, and optional: then whatever enters a warp may also
    // stay on it, a boulder as well as the walker.
    let shipped = common::read(&common::root().join("puzzles/icecave.puz"));
    let optional = shipped.replace("teleport warp", "teleport warp optional");
    assert_ne!(shipped, optional);
    for (seed, text, opt) in [(0x1ce_ca5e, &shipped, false), (0x0e7_ca5e, &optional, true)] {
        let rules = puzzle::load("icecave.puz", text).unwrap().rules;
        let mut rng = SmallRng::seed_from_u64(seed);
        let all = common::batches(
            &rules,
            &mut rng,
            common::CASES / 2,
            12,
            |rng| random_case(rng, opt),
            common::counted,
            common::lines(answer),
        );
        let solved = all.iter().filter(|a| a.is_some()).count();
        let far = all.iter().filter(|a| a.is_some_and(|n| n >= 4)).count();
        assert!(
            solved > all.len() / 5 && solved < all.len(),
            "{solved} of {} solved",
            all.len()
        );
        assert!(far > 20, "{far} answers of 4 moves or more");
    }
}
