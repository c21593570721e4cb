//! Pieces larger than a cell: Klotski (pieces of four shapes, those of one
//! shape alike) and Rush Hour (vehicles that move only along their
//! length). Each rule file against an independent solver: breadth-first
//! over the positions of every piece, each piece told apart, on its sample
//! and on random boards.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashSet, VecDeque};

/// A piece: its cells as offsets from its first, and the ways it moves.
struct Piece {
    cells: Vec<(i32, i32)>,
    dirs: Vec<(i32, i32)>,
}

const COMPASS: [(i32, i32); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

/// Fewest one-cell moves of one piece at a time until piece `goal` has its
/// first cell at `target`, on an `h` x `w` board with walls `wall`. Pieces
/// of one shape that move alike are alike, but for the goal's: a state
/// lists their positions sorted.
#[allow(clippy::too_many_arguments)] // one search, every part of its problem
fn solve(
    h: i32,
    w: i32,
    wall: &HashSet<(i32, i32)>,
    pieces: &[Piece],
    start: Vec<(i32, i32)>,
    goal: usize,
    target: (i32, i32),
    slide: bool,
) -> Option<u32> {
    let covers = |p: usize, at: (i32, i32)| {
        pieces[p]
            .cells
            .iter()
            .map(move |o| (at.0 + o.0, at.1 + o.1))
    };
    // Pieces of one shape and one set of moves, by the first of them; the
    // goal's piece is a kind of its own.
    let alike = |p: usize, q: usize| {
        (p == q)
            || (p != goal && q != goal && pieces[q].cells == pieces[p].cells)
                && pieces[q].dirs == pieces[p].dirs
    };
    let kind: Vec<usize> = (0..pieces.len())
        .map(|p| (0..pieces.len()).find(|&q| alike(p, q)).unwrap())
        .collect();
    let sorted = |mut s: Vec<(i32, i32)>| {
        for k in 0..pieces.len() {
            let ix: Vec<usize> = (0..pieces.len()).filter(|&p| kind[p] == k).collect();
            let mut at: Vec<(i32, i32)> = ix.iter().map(|&p| s[p]).collect();
            at.sort_unstable();
            for (&p, a) in ix.iter().zip(at) {
                s[p] = a;
            }
        }
        s
    };
    let start = sorted(start);
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some((s, d)) = queue.pop_front() {
        if s[goal] == target {
            return Some(d);
        }
        // Which piece covers each cell (-1: none).
        let mut taken = vec![-1i32; (h * w) as usize];
        for (p, &at) in s.iter().enumerate() {
            for c in covers(p, at) {
                taken[(c.0 * w + c.1) as usize] = p as i32;
            }
        }
        let busy = |c: (i32, i32), me: usize| {
            c.0 < 0 || c.1 < 0 || c.0 >= h || c.1 >= w || wall.contains(&c) || {
                let t = taken[(c.0 * w + c.1) as usize];
                t >= 0 && t != me as i32
            }
        };
        for p in 0..pieces.len() {
            for &(dr, dc) in &pieces[p].dirs {
                let mut at = (s[p].0 + dr, s[p].1 + dc);
                if covers(p, at).any(|c| busy(c, p)) {
                    continue;
                }
                // A slide goes on while the piece fits.
                while slide && !covers(p, (at.0 + dr, at.1 + dc)).any(|c| busy(c, p)) {
                    at = (at.0 + dr, at.1 + dc);
                }
                let mut t = s.clone();
                t[p] = at;
                let t = sorted(t);
                if seen.insert(t.clone()) {
                    queue.push_back((t, d + 1));
                }
            }
        }
    }
    None
}

/// A board read: its walls, its pieces' letters, the pieces and where they
/// start.
struct Board {
    wall: HashSet<(i32, i32)>,
    letters: Vec<u8>,
    pieces: Vec<Piece>,
    start: Vec<(i32, i32)>,
}

impl Board {
    /// The fewest moves until the piece drawn `letter` is at `target`.
    fn solve(self, h: i32, w: i32, letter: u8, target: (i32, i32)) -> Option<u32> {
        self.solve_with(h, w, letter, target, false)
    }

    /// [`Self::solve`], with each move sliding as far as the piece fits
    /// when `slide`.
    fn solve_with(
        self,
        h: i32,
        w: i32,
        letter: u8,
        target: (i32, i32),
        slide: bool,
    ) -> Option<u32> {
        let goal = self.letters.iter().position(|&l| l == letter).unwrap();
        solve(
            h,
            w,
            &self.wall,
            &self.pieces,
            self.start,
            goal,
            target,
            slide,
        )
    }
}

/// The pieces of a board drawn with a letter per piece: each letter's
/// cells, the first in grid order its position.
fn read(g: &[Vec<u8>], lengthwise: bool) -> Board {
    let mut wall = HashSet::new();
    let mut letters: Vec<u8> = Vec::new();
    let mut cells: Vec<Vec<(i32, i32)>> = Vec::new();
    for (r, row) in g.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            let at = (r as i32, c as i32);
            if ch == b'#' {
                wall.insert(at);
            } else if ch.is_ascii_uppercase() {
                match letters.iter().position(|&l| l == ch) {
                    Some(i) => cells[i].push(at),
                    None => {
                        letters.push(ch);
                        cells.push(vec![at]);
                    }
                }
            }
        }
    }
    let mut pieces = Vec::new();
    let mut start = Vec::new();
    for cs in cells {
        let first = cs[0];
        let offs: Vec<(i32, i32)> = cs.iter().map(|c| (c.0 - first.0, c.1 - first.1)).collect();
        let tall = offs.iter().map(|o| o.0).max().unwrap();
        let wide =
            offs.iter().map(|o| o.1).max().unwrap() - offs.iter().map(|o| o.1).min().unwrap();
        let dirs = COMPASS
            .into_iter()
            .filter(|&(dr, dc)| {
                !lengthwise || (tall > wide && dc == 0) || (wide > tall && dr == 0) || tall == wide
            })
            .collect();
        pieces.push(Piece { cells: offs, dirs });
        start.push(first);
    }
    Board {
        wall,
        letters,
        pieces,
        start,
    }
}

/// Klotski as shipped reads 4 x 5 boards; the random boards keep its
/// shapes (the large square `B`, tall, wide and small pieces) on boards of
/// that size with fewer pieces, so that their state spaces stay small.
pub(crate) fn random_klotski(rng: &mut SmallRng, slide: bool) -> (String, Option<u32>) {
    let (h, w) = (5, 4);
    let mut g = vec![vec![b'.'; w]; h];
    common::put_piece(rng, &mut g, 2, 2, b'B', 20);
    let letters = b"ACDEFGHIJKLM";
    let mut next = 0;
    for _ in 0..rng.gen_range(0..=8) {
        let (tall, wide) = [(2, 1), (1, 2), (1, 1), (1, 1)][rng.gen_range(0..4)];
        if common::put_piece(rng, &mut g, tall, wide, letters[next], 20) {
            next += 1;
        }
    }
    let answer = read(&g, false).solve_with(h as i32, w as i32, b'B', (3, 1), slide);
    (common::case_text("", &g).trim_start().to_string(), answer)
}

/// A random Rush Hour lot: the red car across the third row, up to
/// thirteen cars and trucks of two or three cells each way, a wall or two.
fn random_lot(rng: &mut SmallRng) -> (String, Option<u32>) {
    let mut g = vec![vec![b'.'; 6]; 6];
    let c = rng.gen_range(0..=3);
    g[2][c] = b'X';
    g[2][c + 1] = b'X';
    for _ in 0..rng.gen_range(0..=2) {
        let (r, c) = (rng.gen_range(0..6), rng.gen_range(0..6));
        if g[r][c] == b'.' && r != 2 {
            g[r][c] = b'#';
        }
    }
    let letters = b"ABCDEFGHIJKLM";
    let mut next = 0;
    for _ in 0..rng.gen_range(2..=13) {
        let len = rng.gen_range(2..=3);
        let (tall, wide) = if rng.gen_bool(0.6) {
            (len, 1)
        } else {
            (1, len)
        };
        if common::put_piece(rng, &mut g, tall, wide, letters[next], 20) {
            next += 1;
        }
    }
    let answer = read(&g, true).solve(6, 6, b'X', (2, 4));
    (common::case_text("", &g).trim_start().to_string(), answer)
}

fn answer(none: &'static str) -> impl Fn(&Option<u32>) -> String {
    move |a| a.map_or(none.to_string(), |n| n.to_string())
}

/// The boards of a shipped sample: counted, `h` rows each.
fn sample_boards(name: &str, h: usize) -> Vec<Vec<Vec<u8>>> {
    let text = common::read(&common::root().join(format!("puzzles/{name}.in")));
    let lines: Vec<&str> = text.lines().skip(1).collect();
    lines
        .chunks(h)
        .map(|b| b.iter().map(|l| l.as_bytes().to_vec()).collect())
        .collect()
}

#[test]
fn klotski_sample_agrees_with_independent_solver() {
    let want: String = sample_boards("klotski", 5)
        .iter()
        .map(|g| answer("unsolvable")(&read(g, false).solve(5, 4, b'B', (3, 1))) + "\n")
        .collect();
    common::assert_sample_is("klotski", &want);
}

#[test]
fn rushhour_sample_agrees_with_independent_solver() {
    let want: String = sample_boards("rushhour", 6)
        .iter()
        .map(|g| answer("-1")(&read(g, true).solve(6, 6, b'X', (2, 4))) + "\n")
        .collect();
    common::assert_sample_is("rushhour", &want);
}

#[test]
fn klotski_agrees_with_independent_solver_on_random_boards() {
    let rules = common::puzzle("klotski").rules;
    let mut rng = SmallRng::seed_from_u64(0xc105);
    let all = common::batches(
        &rules,
        &mut rng,
        200,
        10,
        |r| random_klotski(r, false),
        common::counted,
        common::lines(answer("unsolvable")),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    let far = all.iter().filter(|a| a.is_some_and(|n| n >= 10)).count();
    assert!(
        solved > 100 && solved < all.len() && far > 20,
        "mixed answers: {solved} of {} solved, {far} in 10 moves or more",
        all.len()
    );
}

/// A box of sliding blocks for `blocks.puz`: 3 to 5 rows and columns (not
/// both 5),
/// the large square, up to eight pieces of Klotski's shapes, and a random
/// cell for the square's top left corner to reach.
pub(crate) fn random_box(rng: &mut SmallRng) -> (String, Option<u32>) {
    // At most 5 x 4 or 4 x 5: a 5 x 5 box of few pieces has millions of
    // states, and the independent solver takes seconds on each.
    let (h, w) = (rng.gen_range(3..=5usize), rng.gen_range(3..=5usize));
    let (h, w) = if h * w > 20 { (h, 4) } else { (h, w) };
    let mut g = vec![vec![b'.'; w]; h];
    common::put_piece(rng, &mut g, 2, 2, b'B', 20);
    let letters = b"ACDEFGHIJ";
    let mut next = 0;
    for _ in 0..rng.gen_range(0..=8) {
        let (tall, wide) = [(2, 1), (1, 2), (1, 1), (1, 1)][rng.gen_range(0..4)];
        if common::put_piece(rng, &mut g, tall, wide, letters[next], 20) {
            next += 1;
        }
    }
    let goal = (rng.gen_range(0..h - 1), rng.gen_range(0..w - 1));
    let answer = read(&g, false).solve(h as i32, w as i32, b'B', (goal.0 as i32, goal.1 as i32));
    let header = format!("{h} {w} {} {}", goal.0, goal.1);
    (common::case_text(&header, &g), answer)
}

#[test]
fn blocks_sample_agrees_with_independent_solver() {
    let text = common::read(&common::root().join("puzzles/blocks.in"));
    let mut lines = text.lines().skip(1);
    let mut want = String::new();
    while let Some(header) = lines.next() {
        let n: Vec<i32> = header.split(' ').map(|x| x.parse().unwrap()).collect();
        let g: Vec<Vec<u8>> = (0..n[0])
            .map(|_| lines.next().unwrap().as_bytes().to_vec())
            .collect();
        let a = read(&g, false).solve(n[0], n[1], b'B', (n[2], n[3]));
        want += &(answer("unsolvable")(&a) + "\n");
    }
    common::assert_sample_is("blocks", &want);
}

#[test]
fn blocks_agree_with_independent_solver_on_random_boxes() {
    let rules = common::puzzle("blocks").rules;
    let mut rng = SmallRng::seed_from_u64(0xb10c);
    let all = common::batches(
        &rules,
        &mut rng,
        200,
        10,
        random_box,
        common::counted,
        common::lines(answer("unsolvable")),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    let far = all.iter().filter(|a| a.is_some_and(|n| n >= 10)).count();
    assert!(
        solved > 80 && solved < all.len() && far > 10,
        "mixed answers: {solved} of {} solved, {far} in 10 moves or more",
        all.len()
    );
}

/// Klotski boxes whose pieces are all single squares: they never share a
/// cell either. (They once did: with no piece of several cells on a map,
/// nothing told the engine that its movers keep apart, and a square moved
/// onto another.)
#[test]
fn single_square_pieces_never_share_a_cell() {
    let rules = common::puzzle("klotski").rules;
    let mut rng = SmallRng::seed_from_u64(0x5c1);
    let all = common::batches(
        &rules,
        &mut rng,
        100,
        10,
        |rng| {
            let mut g = vec![vec![b'.'; 4]; 5];
            for &ch in &b"BACDEFGHIJKLM"[..rng.gen_range(1..=13)] {
                common::put_piece(rng, &mut g, 1, 1, ch, 20);
            }
            let answer = read(&g, false).solve(5, 4, b'B', (3, 1));
            (common::case_text("", &g).trim_start().to_string(), answer)
        },
        common::counted,
        common::lines(answer("unsolvable")),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    let far = all.iter().filter(|a| a.is_some_and(|n| n >= 6)).count();
    assert!(
        solved > 50 && far > 3,
        "mixed answers: {solved} of {} solved, {far} in 6 moves or more",
        all.len()
    );
}

#[test]
fn rushhour_agrees_with_independent_solver_on_random_lots() {
    let rules = common::puzzle("rushhour").rules;
    let mut rng = SmallRng::seed_from_u64(0x4054);
    let all = common::batches(
        &rules,
        &mut rng,
        300,
        10,
        random_lot,
        common::counted,
        common::lines(answer("-1")),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    let far = all.iter().filter(|a| a.is_some_and(|n| n >= 8)).count();
    assert!(
        solved > 100 && solved < all.len() - 30 && far > 20,
        "mixed answers: {solved} of {} solved, {far} in 8 moves or more",
        all.len()
    );
}

#[test]
fn sliding_pieces_agree_with_independent_solver() {
    let text = common::read(&common::root().join("puzzles/klotski.puz"));
    let text = text.replace(
        "move all: north east south west",
        "move all: slide north, slide east, slide south, slide west",
    );
    let rules = puzzle::load("klotski.puz", &text)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)))
        .rules;
    let mut rng = SmallRng::seed_from_u64(0x511de);
    let all = common::batches(
        &rules,
        &mut rng,
        200,
        10,
        |r| random_klotski(r, true),
        common::counted,
        common::lines(answer("unsolvable")),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    assert!(solved > 100, "{solved} of {} solved", all.len());
}
