//! Ice blocks: pieces of several cells on a rink that is partly ice, a
//! piece carried on while every cell under it is ice. The rule file
//! against an independent solver (breadth-first over the position of
//! every block, each block told apart, each move shifted cell by cell) on
//! its sample and on random rinks, rotating strategies and thread counts.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// A rink read from its map: its cells, and each block's cells (the first
/// in reading order first) with its letter.
struct Rink {
    g: Vec<Vec<u8>>,
    blocks: Vec<(u8, Vec<(i32, i32)>)>,
}

impl Rink {
    fn read(g: &[Vec<u8>]) -> Rink {
        let mut blocks: Vec<(u8, Vec<(i32, i32)>)> = Vec::new();
        for (r, row) in g.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                if ch.is_ascii_uppercase() && ch != b'X' {
                    let at = (r as i32, c as i32);
                    match blocks.iter_mut().find(|b| b.0 == ch) {
                        Some(b) => b.1.push(at),
                        None => blocks.push((ch, vec![at])),
                    }
                }
            }
        }
        Rink {
            g: g.to_vec(),
            blocks,
        }
    }

    /// The tile under a cell: blocks stand on planks.
    fn tile(&self, (r, c): (i32, i32)) -> Option<u8> {
        let ch = *self.g.get(r as usize)?.get(c as usize)?;
        Some(if ch.is_ascii_uppercase() && ch != b'X' {
            b'.'
        } else {
            ch
        })
    }

    /// Fewest moves until the big block's first cell is on an exit, and
    /// whether some move the search made rode the ice (went on past its
    /// first cell).
    fn solve(&self) -> (Option<u32>, bool) {
        let big = self.blocks.iter().position(|b| b.0 == b'B').unwrap();
        let mut rode = false;
        // Each block's cells as offsets from its first.
        let shapes: Vec<Vec<(i32, i32)>> = self
            .blocks
            .iter()
            .map(|(_, cs)| cs.iter().map(|c| (c.0 - cs[0].0, c.1 - cs[0].1)).collect())
            .collect();
        let covers =
            |b: usize, at: (i32, i32)| shapes[b].iter().map(move |o| (at.0 + o.0, at.1 + o.1));
        let w = self.g[0].len() as i32;
        let start: Vec<(i32, i32)> = self.blocks.iter().map(|b| b.1[0]).collect();
        let mut dist = HashMap::from([(start.clone(), 0u32)]);
        let mut queue = VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            if self.tile(s[big]) == Some(b'X') {
                return (Some(d), rode);
            }
            // Which block covers each cell (-1: none).
            let mut under = vec![-1i32; self.g.len() * w as usize];
            for (b, &at) in s.iter().enumerate() {
                for c in covers(b, at) {
                    under[(c.0 * w + c.1) as usize] = b as i32;
                }
            }
            for b in 0..s.len() {
                // Whether block `b` fits at `at`: every cell on the rink,
                // not a wall, under no other block.
                let fits = |at: (i32, i32)| {
                    covers(b, at).all(|c| {
                        self.tile(c).is_some_and(|t| t != b'#') && {
                            let o = under[(c.0 * w + c.1) as usize];
                            o == -1 || o == b as i32
                        }
                    })
                };
                for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                    let mut at = s[b];
                    loop {
                        let next = (at.0 + dr, at.1 + dc);
                        if !fits(next) {
                            break;
                        }
                        at = next;
                        if !covers(b, at).all(|c| self.tile(c) == Some(b'_')) {
                            break;
                        }
                    }
                    if at == s[b] {
                        continue;
                    }
                    rode |= at != (s[b].0 + dr, s[b].1 + dc);
                    let mut t = s.clone();
                    t[b] = at;
                    if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t.clone()) {
                        e.insert(d + 1);
                        queue.push_back(t);
                    }
                }
            }
        }
        (None, rode)
    }
}

/// A random rink: up to 5 x 6 cells of planks, ice (often most of them)
/// and walls, one or two exits, the big block (2 x 2, 1 x 2, 2 x 1 or a
/// square) and up to three others.
fn random_rink(rng: &mut SmallRng) -> (String, (Option<u32>, bool)) {
    let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=6));
    let ice = rng.gen_range(0.2..0.8);
    let mut g = common::mixed_grid(rng, h, w, &[(0.1, b'#'), (ice, b'_')], b'.');
    let (bh, bw) = [(2, 2), (1, 2), (2, 1), (1, 1)][rng.gen_range(0..4)];
    // Blocks are put down on planks: the cells under them turn to planks.
    for row in g.iter_mut() {
        for cell in row.iter_mut() {
            if *cell == b'_' && rng.gen_bool(0.15) {
                *cell = b'.';
            }
        }
    }
    if !common::put_piece(rng, &mut g, bh, bw, b'B', 20) {
        return random_rink(rng);
    }
    for &ch in &b"ACD"[..rng.gen_range(0..=3)] {
        let (th, tw) = [(1, 1), (1, 2), (2, 1), (2, 2)][rng.gen_range(0..4)];
        common::put_piece(rng, &mut g, th, tw, ch, 10);
    }
    let free: Vec<(usize, usize)> = common::all_cells(&g)
        .into_iter()
        .filter(|&(r, c)| matches!(g[r][c], b'.' | b'_'))
        .collect();
    if free.is_empty() {
        return random_rink(rng);
    }
    for _ in 0..rng.gen_range(1..=2) {
        let (r, c) = free[rng.gen_range(0..free.len())];
        g[r][c] = b'X';
    }
    let answer = Rink::read(&g).solve();
    (common::case_text(&format!("{h} {w}"), &g), answer)
}

fn answer(a: &(Option<u32>, bool)) -> String {
    a.0.map_or("stuck".into(), |n| n.to_string())
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("iceblocks", true, None, 0);
    let want: String = maps
        .iter()
        .map(|(_, g)| answer(&Rink::read(g).solve()) + "\n")
        .collect();
    common::assert_sample_is("iceblocks", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_rinks() {
    let rules = common::puzzle("iceblocks").rules;
    let mut rng = SmallRng::seed_from_u64(0x1ceb10c5);
    let all = common::batches(
        &rules,
        &mut rng,
        1000,
        10,
        random_rink,
        common::counted,
        common::lines(answer),
    );
    let solved = all.iter().filter(|a| a.0.is_some()).count();
    let long = all.iter().filter(|a| a.0.is_some_and(|n| n >= 4)).count();
    let iced = all.iter().filter(|a| a.1).count();
    assert!(
        solved > 200 && solved < all.len() - 100 && long > 50 && iced > 200,
        "mixed answers: {solved} solved, {long} of 4 moves or more, {iced} ridden on ice, of {}",
        all.len()
    );
}
