//! Robots: robots that slide until a wall, the edge or another robot
//! stops them; the red one must stop on the mark. The rule file (`slide`
//! moves, agents in turn) against an independent solver on its sample and
//! on random boards.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// Breadth-first search over the robots' cells (red first), a state kept
/// as a word of one byte per robot (its cell's index).
fn solve(g: &[Vec<u8>], helpers: usize) -> Option<u32> {
    let (h, w) = (g.len() as i64, g[0].len() as i64);
    let index = |(r, c): (usize, usize)| (r * w as usize + c) as u64;
    let cell = |i: u64| ((i / w as u64) as usize, (i % w as u64) as usize);
    let robots = helpers + 1;
    let pack = |s: &[(usize, usize)]| s.iter().rev().fold(0u64, |k, &p| k << 8 | index(p));
    let unpack = |k: u64| {
        (0..robots)
            .map(|i| cell(k >> (8 * i) & 0xff))
            .collect::<Vec<_>>()
    };
    let mut start = vec![common::find(g, b'R')];
    for k in 0..helpers {
        start.push(common::find(g, b'1' + k as u8));
    }
    let mut dist: HashMap<u64, u32> = HashMap::from([(pack(&start), 0)]);
    let mut queue = VecDeque::from([pack(&start)]);
    while let Some(key) = queue.pop_front() {
        let d = dist[&key];
        let s = unpack(key);
        let (r, c) = s[0];
        if g[r][c] == b'X' {
            return Some(d);
        }
        for i in 0..s.len() {
            for (dr, dc) in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
                let (mut r, mut c) = (s[i].0 as i64, s[i].1 as i64);
                loop {
                    let (nr, nc) = (r + dr, c + dc);
                    let free = nr >= 0
                        && nc >= 0
                        && nr < h
                        && nc < w
                        && g[nr as usize][nc as usize] != b'#'
                        && !s.contains(&(nr as usize, nc as usize));
                    if !free {
                        break;
                    }
                    (r, c) = (nr, nc);
                }
                let to = (r as usize, c as usize);
                if to == s[i] {
                    continue;
                }
                let mut t = s.clone();
                t[i] = to;
                let t = pack(&t);
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t) {
                    e.insert(d + 1);
                    queue.push_back(t);
                }
            }
        }
    }
    None
}

pub(crate) fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let helpers = rng.gen_range(1..=3usize);
    let most = if helpers == 3 { 4 } else { 6 };
    let (h, w) = (rng.gen_range(2..=most), rng.gen_range(2..=most));
    let wall = rng.gen_range(0.0..0.3);
    let mut g = common::random_grid(rng, h, w, |r| if r.gen_bool(wall) { b'#' } else { b'.' });
    let cells = common::all_cells(&g);
    if cells.len() < helpers + 2 {
        return random_case(rng);
    }
    let mut markers = vec![b'R', b'X'];
    markers.extend((0..helpers as u8).map(|k| b'1' + k));
    common::place(rng, &mut g, cells, &markers);
    let answer = solve(&g, helpers);
    (common::case_text(&format!("{h} {w} {helpers}"), &g), answer)
}

use common::or_minus_one as answer;

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("robots", true, None, 0);
    let want: String = maps
        .iter()
        .map(|(head, g)| answer(&solve(g, head[2] as usize)) + "\n")
        .collect();
    common::assert_sample_is("robots", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_boards() {
    let rules = common::puzzle("robots").rules;
    let mut rng = SmallRng::seed_from_u64(0x20b075);
    let all = common::batches(
        &rules,
        &mut rng,
        400,
        8,
        random_case,
        common::counted,
        common::lines(answer),
    );
    let reached = all.iter().filter(|a| a.is_some()).count();
    let long = all.iter().filter(|a| a.is_some_and(|n| n >= 4)).count();
    assert!(
        reached > 50 && reached < all.len() && long > 10,
        "mixed answers: {reached} reached, {long} of 4 moves or more, of {}",
        all.len()
    );
}

/// Five robots on boards of 17 to 32 open cells: 5 bits a robot, a state
/// of 25 bits, whose visited store starts as a hash set and would hand over
/// to a bitset of 4 MiB after 2^18 states (see `puzzle::plan::Store::Growing`;
/// these searches stay below that: `tests/stores.rs` crosses it). The
/// answers agree with the independent solver's with every engine that keeps
/// a visited set, on one thread or two.
#[test]
fn five_robots_agree_through_the_growing_store() {
    use puzzle::plan::{Config, Store};
    let rules = common::puzzle("robots").rules;
    let mut rng = SmallRng::seed_from_u64(0x4_20b075);
    let (mut input, mut want, mut boards) = (String::new(), String::new(), 0);
    while boards < 12 {
        let h = rng.gen_range(5..=6);
        let mut g = common::random_grid(
            &mut rng,
            h,
            6,
            |r| {
                if r.gen_bool(0.1) { b'#' } else { b'.' }
            },
        );
        let cells = common::all_cells(&g);
        common::place(&mut rng, &mut g, cells, b"RX1234");
        let case = common::case_text(&format!("{h} 6 4"), &g);
        let task = common::task_of(&rules, &format!("1\n{case}"));
        let plan = puzzle::plan::plan(&task, Config::default()).unwrap();
        if plan.layout().bits() != 25 {
            continue;
        }
        assert_eq!(plan.store(), Store::Growing, "{case}");
        boards += 1;
        input.push_str(&case);
        want.push_str(&answer(&solve(&g, 4)));
        want.push('\n');
    }
    let input = format!("{boards}\n{input}");
    // A* keeps no visited set: the engines that do.
    for config in common::configs() {
        if config.strategy != puzzle::search::Strategy::Astar {
            assert_eq!(common::run_with(&rules, &input, config), want, "{config:?}");
        }
    }
}
