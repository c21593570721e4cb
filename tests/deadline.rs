//! Deadline (our own): a maze of numbers separated by spaces with short
//! rows filled in, a second header line with the start and target, mud
//! that costs two, and a strict limit on the cost. The rule file against an
//! independent solver on its sample and on random mazes.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A maze: cells 0 open, 1 wall, 2 mud.
struct Maze {
    g: Vec<Vec<u8>>,
    t: i64,
    start: (usize, usize),
    target: (usize, usize),
}

/// Dijkstra; the answer only if it is below the deadline.
fn solve(m: &Maze) -> Option<i64> {
    let (h, w) = (m.g.len(), m.g[0].len());
    let mut dist = vec![i64::MAX; h * w];
    let (sr, sc) = m.start;
    dist[sr * w + sc] = 0;
    let mut heap = BinaryHeap::from([Reverse((0i64, sr, sc))]);
    while let Some(Reverse((d, r, c))) = heap.pop() {
        if d > dist[r * w + c] {
            continue;
        }
        if (r, c) == m.target {
            return (d < m.t).then_some(d);
        }
        for (dr, dc) in [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)] {
            let (nr, nc) = (r as i64 + dr, c as i64 + dc);
            if nr < 0 || nc < 0 || nr >= h as i64 || nc >= w as i64 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            let cost = match m.g[nr][nc] {
                1 => continue,
                2 => 2,
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

fn answer(m: &Maze) -> String {
    match solve(m) {
        Some(d) => format!("arrives at minute {d}, {} to spare\n", m.t - 1 - d),
        None => "too late\n".into(),
    }
}

/// The case as the contest writes it: rows stop short where the rest is 0.
fn text(rng: &mut SmallRng, m: &Maze) -> String {
    let (h, w) = (m.g.len(), m.g[0].len());
    let mut s = format!(
        "{h} {w} {}\n{} {} {} {}\n",
        m.t,
        m.start.0 + 1,
        m.start.1 + 1,
        m.target.0 + 1,
        m.target.1 + 1
    );
    for row in &m.g {
        let mut end = w;
        if rng.gen_bool(0.4) {
            while end > 1 && row[end - 1] == 0 {
                end -= 1;
            }
        }
        let cells: Vec<String> = row[..end].iter().map(|x| x.to_string()).collect();
        s.push_str(&cells.join(" "));
        s.push('\n');
    }
    s
}

fn random_maze(rng: &mut SmallRng) -> Maze {
    let (h, w) = (rng.gen_range(1..=10), rng.gen_range(2..=10));
    let (wall, mud) = (rng.gen_range(0.0..0.4), rng.gen_range(0.0..0.3));
    let mut g: Vec<Vec<u8>> = (0..h)
        .map(|_| {
            (0..w)
                .map(|_| {
                    let x: f64 = rng.r#gen();
                    if x < wall {
                        1
                    } else if x < wall + mud {
                        2
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect();
    let start = (rng.gen_range(0..h), rng.gen_range(0..w));
    g[start.0][start.1] = 0;
    let target = (rng.gen_range(0..h), rng.gen_range(0..w));
    Maze {
        g,
        t: rng.gen_range(0..=25),
        start,
        target,
    }
}

#[test]
fn sample_agrees_with_independent_solver() {
    let dir = common::root().join("puzzles");
    let input = common::read(&dir.join("deadline.in"));
    let mut lines = input.lines().skip(1);
    let mut want = String::new();
    while let Some(head) = lines.next() {
        let nums =
            |l: &str| -> Vec<i64> { l.split_whitespace().map(|x| x.parse().unwrap()).collect() };
        let (head, pos) = (nums(head), nums(lines.next().unwrap()));
        let (h, w) = (head[0] as usize, head[1] as usize);
        let g: Vec<Vec<u8>> = (0..h)
            .map(|_| {
                let mut row: Vec<u8> = nums(lines.next().unwrap())
                    .iter()
                    .map(|&x| x as u8)
                    .collect();
                row.resize(w, 0);
                row
            })
            .collect();
        let m = Maze {
            g,
            t: head[2],
            start: (pos[0] as usize - 1, pos[1] as usize - 1),
            target: (pos[2] as usize - 1, pos[3] as usize - 1),
        };
        want.push_str(&answer(&m));
    }
    assert_eq!(common::read(&dir.join("deadline.out")), want);
    common::assert_sample("deadline");
}

#[test]
fn agrees_with_independent_solver_on_random_mazes() {
    let rules = common::puzzle("deadline").rules;
    let mut rng = SmallRng::seed_from_u64(0x00de_ad1e);
    let case = |rng: &mut SmallRng| {
        let m = random_maze(rng);
        (text(rng, &m), answer(&m))
    };
    let want = |a: &[String]| a.concat();
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        case,
        common::counted,
        want,
    );
    let late = all.iter().filter(|a| *a == "too late\n").count();
    assert!(
        late > 20 && late < all.len() - 50,
        "mixed answers: {late} of {} too late",
        all.len()
    );
}
