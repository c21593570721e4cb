//! Records: `puzzles/burrow.puz` (Holedox Moving: the burrow is not
//! drawn; the body's squares and the stones are given by their
//! coordinates, the body in order from the head) against a hand-written
//! breadth-first search on random burrows, under every strategy, with the
//! records laid out one to a line or several to a line. The same burrows
//! tell the rules' reading apart from a body read tail first and from a
//! head that may enter the tail's square, so a file planted either way
//! would fail.

use crate::common;
use rand::{Rng, SeedableRng};
use std::collections::{HashSet, VecDeque};

type Square = (i64, i64);

/// A burrow: its size, the body from the head, the stones.
struct Burrow {
    rows: i64,
    cols: i64,
    body: Vec<Square>,
    stones: Vec<Square>,
}

/// How the hand-written search reads the rules: as the shipped file
/// does, or one of two sabotaged ways.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    Rules,
    /// The body listed from the tail.
    TailFirst,
    /// The head may enter the square the tail leaves.
    IntoTail,
}

/// The fewest moves that bring the head to (0, 0), or `None`.
fn solve(b: &Burrow, reading: Reading) -> Option<u32> {
    let mut start = b.body.clone();
    if reading == Reading::TailFirst {
        start.reverse();
    }
    let stones: HashSet<Square> = b.stones.iter().copied().collect();
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0u32)]);
    while let Some((body, d)) = queue.pop_front() {
        if body[0] == (0, 0) {
            return Some(d);
        }
        for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
            let head = (body[0].0 + dr, body[0].1 + dc);
            let blocking = if reading == Reading::IntoTail {
                &body[..body.len() - 1]
            } else {
                &body[..]
            };
            if !(0..b.rows).contains(&head.0)
                || !(0..b.cols).contains(&head.1)
                || stones.contains(&head)
                || blocking.contains(&head)
            {
                continue;
            }
            let mut next = vec![head];
            next.extend_from_slice(&body[..body.len() - 1]);
            if seen.insert(next.clone()) {
                queue.push_back((next, d + 1));
            }
        }
    }
    None
}

/// A burrow of 2-6 by 2-6 squares, a body of 2-6 squares laid by a random
/// walk that never crosses itself, a fifth of the other squares stone.
fn burrow(rng: &mut rand::rngs::SmallRng) -> Burrow {
    loop {
        let (rows, cols) = (rng.gen_range(2..=6), rng.gen_range(2..=6));
        let len = rng.gen_range(2..=6usize.min((rows * cols / 2) as usize));
        let mut body = vec![(rng.gen_range(0..rows), rng.gen_range(0..cols))];
        while body.len() < len {
            let last = *body.last().unwrap();
            let next: Vec<Square> = [(-1, 0), (0, 1), (1, 0), (0, -1)]
                .iter()
                .map(|(dr, dc)| (last.0 + dr, last.1 + dc))
                .filter(|s| (0..rows).contains(&s.0) && (0..cols).contains(&s.1))
                .filter(|s| !body.contains(s))
                .collect();
            if next.is_empty() {
                break;
            }
            body.push(next[rng.gen_range(0..next.len())]);
        }
        if body.len() < len {
            continue;
        }
        let stones = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter(|s| !body.contains(s) && *s != (0, 0) && rng.gen_bool(0.2))
            .collect();
        return Burrow {
            rows,
            cols,
            body,
            stones,
        };
    }
}

/// A case as the input gives it: squares from 1, one to a line or all on
/// one line.
fn text(b: &Burrow, rng: &mut rand::rngs::SmallRng) -> String {
    let pairs = |squares: &[Square], rng: &mut rand::rngs::SmallRng| {
        let each: Vec<String> = squares
            .iter()
            .map(|(r, c)| format!("{} {}", r + 1, c + 1))
            .collect();
        if each.is_empty() {
            String::new()
        } else if rng.gen_bool(0.5) {
            each.join("\n") + "\n"
        } else {
            each.join(" ") + "\n"
        }
    };
    format!(
        "{} {} {}\n{}{}\n{}\n",
        b.rows,
        b.cols,
        b.body.len(),
        pairs(&b.body, rng),
        b.stones.len(),
        pairs(&b.stones, rng)
    )
}

#[test]
fn burrow_matches_a_hand_written_search() {
    let loaded = common::puzzle("burrow");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x1324);
    let (tail_first, into_tail) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let answers = common::batches(
        &loaded.rules,
        &mut rng,
        600,
        8,
        |rng| {
            let b = burrow(rng);
            let want = solve(&b, Reading::Rules);
            tail_first.set(tail_first.get() + usize::from(solve(&b, Reading::TailFirst) != want));
            into_tail.set(into_tail.get() + usize::from(solve(&b, Reading::IntoTail) != want));
            (text(&b, rng), want)
        },
        common::until("0 0 0"),
        |answers: &[Option<u32>]| {
            (answers.iter().enumerate())
                .map(|(k, a)| format!("Case {}: {}\n", k + 1, common::or_minus_one(a)))
                .collect()
        },
    );
    let solved = answers.iter().filter(|a| a.is_some()).count();
    assert!(
        solved > 150 && answers.len() - solved > 50,
        "{solved} of {} solved",
        answers.len()
    );
    assert!(
        tail_first.get() > 20 && into_tail.get() > 20,
        "told apart: tail first {}, into the tail {}",
        tail_first.get(),
        into_tail.get()
    );
}

#[test]
fn burrow_sample() {
    common::assert_sample("burrow");
}

/// A family sized by the map (`every`) whose members are placed by
/// records is numbered in the order the records list them, not in
/// reading order: the member listed first is `bot[1]`, wherever it is.
#[test]
fn members_placed_by_records_are_numbered_as_listed() {
    let rules = "input { header n  records n 'B' row col from 0  records 1 'E' row col from 0  \
                 grid 2 x 3 of '.' }\n\
                 tiles { floor '.' exit 'E' }\n\
                 agent bot every 'B' on floor\n\
                 move bot in turn: east\n\
                 goal any bot on exit\n";
    let loaded = puzzle::load("t.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = puzzle::run::Options {
        moves: true,
        ..Default::default()
    };
    // The bot on the exit's row is listed first, then second.
    for (input, mover) in [
        ("2\n1 0\n0 0\n1 2\n", "bot[1]"),
        ("2\n0 0\n1 0\n1 2\n", "bot[2]"),
    ] {
        let got = common::output(&loaded.rules, input, &opts);
        assert_eq!(got, format!("{mover}:east {mover}:east\n"), "{input}");
    }
}
