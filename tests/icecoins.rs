//! Slides compose with the rest of the language: a walker on ice collects
//! every coin it slides over (`on enter` fires on each cell a slide
//! enters; one flag per coin of the map) and must then reach the exit. The
//! rule file, written here, against an independent solver on random lakes.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

const RULES: &str = "
puzzle \"Coins on ice\"
input { cases until eof  header rows cols  grid rows x cols }
tiles { ice '.' slippery  snow '_'  rock '#' solid  coin 'c' slippery  exit 'E' }
agent walker 'S' on snow
flag got[coin]
move walker: north east south west
on enter coin: set got[coin]
goal all got and walker on exit
output { solved \"{steps}\"  unsolved \"-1\" }
";

/// Breadth-first search over (cell, coins got), the coins as bits.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len() as i64, g[0].len() as i64);
    let coins: Vec<(usize, usize)> = common::all_cells(g)
        .into_iter()
        .filter(|&(r, c)| g[r][c] == b'c')
        .collect();
    let all = (1u32 << coins.len()) - 1;
    let start = (common::find(g, b'S'), 0u32);
    let mut dist = HashMap::from([(start, 0u32)]);
    let mut queue = VecDeque::from([start]);
    while let Some(((r, c), got)) = queue.pop_front() {
        let d = dist[&((r, c), got)];
        if got == all && g[r][c] == b'E' {
            return Some(d);
        }
        for (dr, dc) in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
            let (mut cr, mut cc, mut got2, mut moved) = (r as i64, c as i64, got, false);
            loop {
                let (nr, nc) = (cr + dr, cc + dc);
                if nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr as usize][nc as usize] == b'#' {
                    break;
                }
                (cr, cc, moved) = (nr, nc, true);
                let ch = g[cr as usize][cc as usize];
                if ch == b'c' {
                    let k = coins.iter().position(|&x| x == (cr as usize, cc as usize));
                    got2 |= 1 << k.unwrap();
                }
                if ch != b'.' && ch != b'c' {
                    break;
                }
            }
            let next = ((cr as usize, cc as usize), got2);
            if moved && !dist.contains_key(&next) {
                dist.insert(next, d + 1);
                queue.push_back(next);
            }
        }
    }
    None
}

fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(2..=8), rng.gen_range(2..=8));
    let (rock, snow) = (rng.gen_range(0.0..0.3), rng.gen_range(0.0..0.25));
    let mut g = common::mixed_grid(rng, h, w, &[(rock, b'#'), (snow, b'_')], b'.');
    let cells = common::all_cells(&g);
    let coins = rng.gen_range(0..=3usize).min(cells.len() - 2);
    let mut marks = vec![b'S', b'E'];
    marks.extend(std::iter::repeat_n(b'c', coins));
    common::place(rng, &mut g, cells, &marks);
    (common::case_text(&format!("{h} {w}"), &g), solve(&g))
}

#[test]
fn a_slide_collects_every_coin_it_passes() {
    let rules = puzzle::load("icecoins.puz", RULES)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)))
        .rules;
    let mut rng = SmallRng::seed_from_u64(0xc01e);
    let all = common::batches(
        &rules,
        &mut rng,
        400,
        10,
        random_case,
        |cases: &[String]| cases.concat(),
        common::lines(|a: &Option<u32>| a.map_or("-1".into(), |n| n.to_string())),
    );
    let reached = all.iter().filter(|a| a.is_some()).count();
    assert!(
        reached > 40 && reached < all.len(),
        "mixed answers: {reached} of {}",
        all.len()
    );
}
