//! Sokoban: objects pushed by an agent, interchangeable boxes, a goal over
//! objects (`every spot has box`), dead positions pruned. The rule file
//! against an independent solver (breadth-first over the keeper and the
//! set of boxes, no pruning at all) on its sample and on random
//! warehouses, solvable and not, with more boxes than spots, fewer, and as
//! many.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};

type Cell = (usize, usize);

/// Least cost until a box stands on every spot, or `None`: a move costs 1,
/// a move that pushes `push` (Dijkstra's algorithm; breadth-first when
/// `push` is 1).
pub(crate) fn solve(rows: &[Vec<u8>], push: u32) -> Option<u32> {
    let h = rows.len();
    let w = rows.iter().map(Vec::len).max().unwrap_or(0);
    let at = |r: usize, c: usize| rows[r].get(c).copied().unwrap_or(b' ');
    let mut boxes = BTreeSet::new();
    let mut spots = BTreeSet::new();
    let mut keeper = (0, 0);
    for r in 0..h {
        for c in 0..w {
            match at(r, c) {
                b'$' => {
                    boxes.insert((r, c));
                }
                b'*' => {
                    boxes.insert((r, c));
                    spots.insert((r, c));
                }
                b'.' => {
                    spots.insert((r, c));
                }
                b'@' => keeper = (r, c),
                b'+' => {
                    keeper = (r, c);
                    spots.insert((r, c));
                }
                _ => {}
            }
        }
    }
    let done = |b: &BTreeSet<Cell>| spots.is_subset(b);
    let free = |r: i64, c: i64| {
        r >= 0
            && c >= 0
            && (r as usize) < h
            && (c as usize) < w
            && at(r as usize, c as usize) != b'#'
    };
    let start = (keeper, boxes);
    let mut best: HashMap<(Cell, BTreeSet<Cell>), u32> = HashMap::from([(start.clone(), 0)]);
    let mut queue = BinaryHeap::from([Reverse((0, start))]);
    while let Some(Reverse((d, (k, b)))) = queue.pop() {
        if best[&(k, b.clone())] < d {
            continue;
        }
        if done(&b) {
            return Some(d);
        }
        for (dr, dc) in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
            let (nr, nc) = (k.0 as i64 + dr, k.1 as i64 + dc);
            if !free(nr, nc) {
                continue;
            }
            let n = (nr as usize, nc as usize);
            let mut nb = b.clone();
            let mut cost = 1;
            if b.contains(&n) {
                let (br, bc) = (nr + dr, nc + dc);
                if !free(br, bc) || b.contains(&(br as usize, bc as usize)) {
                    continue;
                }
                nb.remove(&n);
                nb.insert((br as usize, bc as usize));
                cost = push;
            }
            let s = (n, nb);
            if best.get(&s).is_none_or(|&old| d + cost < old) {
                best.insert(s.clone(), d + cost);
                queue.push(Reverse((d + cost, s)));
            }
        }
    }
    None
}

/// A random warehouse in XSB characters: walls inside a wall border or
/// not, 1 to 3 boxes, as many spots or one more or one fewer, some boxes
/// and the keeper drawn on spots, floor written three ways, rows
/// sometimes cut short (filled with floor).
pub(crate) fn random_case(rng: &mut SmallRng, push: u32) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(3..=8), rng.gen_range(3..=8));
    let border = rng.gen_bool(0.5);
    let wall = rng.gen_range(0.0..0.2);
    let mut g = common::mixed_grid(rng, h, w, &[(wall, b'#')], b' ');
    if border {
        for (r, row) in g.iter_mut().enumerate() {
            for (c, ch) in row.iter_mut().enumerate() {
                if r == 0 || c == 0 || r == h - 1 || c == w - 1 {
                    *ch = b'#';
                }
            }
        }
    }
    let mut cells: Vec<Cell> = common::all_cells(&g)
        .into_iter()
        .filter(|&(r, c)| g[r][c] != b'#')
        .collect();
    let boxes = rng.gen_range(1..=3usize);
    let spots = match rng.gen_range(0..6) {
        0 if rng.gen_bool(0.5) => boxes + 1,
        1 => boxes.saturating_sub(1),
        _ => boxes,
    };
    if cells.len() < boxes + spots + 1 {
        cells = common::all_cells(&g);
        for &(r, c) in &cells {
            g[r][c] = b' ';
        }
    }
    // Draw the keeper, the boxes and the spots on distinct cells, then let
    // some boxes and the keeper share a spot.
    let mut marks = vec![b'@'];
    marks.extend(std::iter::repeat_n(b'$', boxes));
    marks.extend(std::iter::repeat_n(b'.', spots));
    common::place(rng, &mut g, cells, &marks);
    let on_spot: Vec<Cell> = common::all_cells(&g)
        .into_iter()
        .filter(|&(r, c)| g[r][c] == b'.')
        .collect();
    for (r, c) in on_spot {
        let first = |g: &[Vec<u8>], ch: u8| {
            common::all_cells(g)
                .into_iter()
                .find(|&(r, c)| g[r][c] == ch)
        };
        let moved = if rng.gen_bool(0.2) {
            first(&g, b'@').map(|at| (at, b'+'))
        } else if rng.gen_bool(0.25) {
            first(&g, b'$').map(|at| (at, b'*'))
        } else {
            None
        };
        if let Some(((fr, fc), ch)) = moved {
            g[fr][fc] = b' ';
            g[r][c] = ch;
        }
    }
    for ch in g.iter_mut().flatten() {
        if *ch == b' ' {
            *ch = [b' ', b' ', b'-', b'_'][rng.gen_range(0..4)];
        }
    }
    let answer = solve(&g, push);
    // Trailing floor may be left off a row (not the first: blank lines
    // before a grid separate cases).
    for row in g.iter_mut().skip(1) {
        if rng.gen_bool(0.3) {
            while row.last() == Some(&b' ') {
                row.pop();
            }
        }
    }
    (common::case_text(&format!("{h} {w}"), &g), answer)
}

fn answer(a: &Option<u32>) -> String {
    a.map_or("unsolvable".into(), |n| n.to_string())
}

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("sokoban", false, Some(&[0, 0]), 0);
    let want: String = maps
        .iter()
        .map(|(_, g)| answer(&solve(g, 1)) + "\n")
        .collect();
    common::assert_sample_is("sokoban", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_warehouses() {
    let rules = common::puzzle("sokoban").rules;
    let mut rng = SmallRng::seed_from_u64(0x50c0);
    let all = common::batches(
        &rules,
        &mut rng,
        600,
        10,
        |r| random_case(r, 1),
        common::until("0 0"),
        common::lines(answer),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    let far = all.iter().filter(|a| a.is_some_and(|n| n >= 8)).count();
    eprintln!("{solved} of {} solved, {far} in 8 moves or more", all.len());
    assert!(
        solved > 120 && solved < all.len() - 120 && far > 40,
        "mixed answers: {solved} of {} solved, {far} in 8 moves or more",
        all.len()
    );
}

#[test]
fn pushes_weighed_apart_from_moves() {
    let text = common::read(&common::root().join("puzzles/sokoban.puz"));
    // The reference weighs pushes: the answer is the cost.
    let text = text
        .replace("move keeper:", "push box costs 3\nmove keeper:")
        .replace("{steps}", "{cost}");
    let rules = puzzle::load("sokoban.puz", &text)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)))
        .rules;
    let mut rng = SmallRng::seed_from_u64(0x9054);
    let all = common::batches(
        &rules,
        &mut rng,
        200,
        10,
        |r| random_case(r, 3),
        common::until("0 0"),
        common::lines(answer),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    assert!(solved > 40, "{solved} of {} solved", all.len());
}

/// The Sokoban rules with a plate that toggles gates when a box is pushed
/// onto it, and an exit the keeper must reach.
const PLATES: &str = r#"
puzzle "Plates"
input { cases until 0 0  header rows cols  grid rows x cols }
tiles {
  floor '.'
  wall  '#' solid
  plate '^'
  gate  'G'
  exit  'E'
}
flag open
agent keeper '@' on floor
object box '$' on floor, '*' on plate
move keeper: north east south west
on box enter plate: toggle open
enter gate only if open
goal keeper on exit
output { solved "{steps}" unsolved "-1" }
"#;

/// Fewest moves for the keeper to reach the exit, where a box pushed onto
/// a plate toggles whether the gates are open (boxes, too, pass gates only
/// when open).
fn solve_plates(g: &[Vec<u8>]) -> Option<u32> {
    let (h, w) = (g.len(), g[0].len());
    let mut boxes = BTreeSet::new();
    for (r, c) in common::all_cells(g) {
        if matches!(g[r][c], b'$' | b'*') {
            boxes.insert((r, c));
        }
    }
    let start = (common::find(g, b'@'), boxes, false);
    let enter = |r: i64, c: i64, open: bool| {
        if r < 0 || c < 0 || r >= h as i64 || c >= w as i64 {
            return None;
        }
        let ch = g[r as usize][c as usize];
        (ch != b'#' && (ch != b'G' || open)).then_some((r as usize, c as usize))
    };
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0)]);
    while let Some(((k, b, open), d)) = queue.pop_front() {
        if g[k.0][k.1] == b'E' {
            return Some(d);
        }
        for (dr, dc) in [(-1i64, 0i64), (0, 1), (1, 0), (0, -1)] {
            let Some(n) = enter(k.0 as i64 + dr, k.1 as i64 + dc, open) else {
                continue;
            };
            let (mut nb, mut now) = (b.clone(), open);
            if b.contains(&n) {
                let Some(m) = enter(n.0 as i64 + dr, n.1 as i64 + dc, open) else {
                    continue;
                };
                if b.contains(&m) {
                    continue;
                }
                nb.remove(&n);
                nb.insert(m);
                now ^= matches!(g[m.0][m.1], b'^' | b'*');
            }
            let s = (n, nb, now);
            if seen.insert(s.clone()) {
                queue.push_back((s, d + 1));
            }
        }
    }
    None
}

fn random_plates(rng: &mut SmallRng) -> (String, Option<u32>) {
    let (h, w) = (rng.gen_range(2..=7), rng.gen_range(2..=7));
    let mix = [
        (rng.gen_range(0.0..0.25), b'#'),
        (rng.gen_range(0.0..0.2), b'G'),
    ];
    let mut g = common::mixed_grid(rng, h, w, &mix, b'.');
    let cells = common::all_cells(&g);
    let mut marks = vec![b'@', b'E'];
    let extra = (cells.len() - 2).min(4);
    for _ in 0..rng.gen_range(0..=extra) {
        marks.push([b'$', b'^', b'*'][rng.gen_range(0..3)]);
    }
    common::place(rng, &mut g, cells, &marks);
    let answer = solve_plates(&g);
    (common::case_text(&format!("{h} {w}"), &g), answer)
}

#[test]
fn pushing_onto_a_plate_toggles_the_gates() {
    let rules = puzzle::load("plates.puz", PLATES)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)))
        .rules;
    let mut rng = SmallRng::seed_from_u64(0x91a7e);
    let all = common::batches(
        &rules,
        &mut rng,
        400,
        10,
        random_plates,
        common::until("0 0"),
        common::lines(|a: &Option<u32>| a.map_or("-1".into(), |n| n.to_string())),
    );
    let solved = all.iter().filter(|a| a.is_some()).count();
    assert!(
        solved > 100 && solved < all.len() - 50,
        "mixed answers: {solved} of {} solved",
        all.len()
    );
}

/// The cells of a warehouse from which no push can bring a box to a spot,
/// walls aside: a search pulling a box back from the spots.
fn dead_cells(g: &[Vec<u8>]) -> BTreeSet<Cell> {
    let h = g.len() as i64;
    let w = g.iter().map(Vec::len).max().unwrap_or(0) as i64;
    let open = |r: i64, c: i64| {
        r >= 0 && c >= 0 && r < h && c < w && {
            let row = &g[r as usize];
            row.get(c as usize).copied().unwrap_or(b' ') != b'#'
        }
    };
    let mut live: BTreeSet<(i64, i64)> = BTreeSet::new();
    let mut todo = Vec::new();
    for r in 0..h {
        for c in 0..w {
            if open(r, c) && matches!(g[r as usize].get(c as usize), Some(b'.' | b'*' | b'+')) {
                live.insert((r, c));
                todo.push((r, c));
            }
        }
    }
    while let Some((r, c)) = todo.pop() {
        for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
            let (y, z) = ((r - dr, c - dc), (r - 2 * dr, c - 2 * dc));
            if open(y.0, y.1) && open(z.0, z.1) && live.insert(y) {
                todo.push(y);
            }
        }
    }
    let mut dead = BTreeSet::new();
    for r in 0..h {
        for c in 0..w {
            if open(r, c) && !live.contains(&(r, c)) {
                dead.insert((r as usize, c as usize));
            }
        }
    }
    dead
}

#[test]
fn dead_cells_are_those_no_push_leads_from() {
    let rules = common::puzzle("sokoban").rules;
    let mut rng = SmallRng::seed_from_u64(0xdead);
    let mut with_dead = 0;
    for _ in 0..300 {
        let (text, _) = random_case(&mut rng, 1);
        let input = format!("{text}0 0\n");
        let spaces = puzzle::run::space_is_cell(&rules);
        let case = puzzle::input::Reader::new(rules.io(), &input, spaces, None)
            .next_case()
            .expect("a case")
            .expect("the case reads");
        let task = puzzle::task::ground(&rules, &case).expect("the case grounds");
        let rows: Vec<Vec<u8>> = text
            .lines()
            .skip(1)
            .map(|l| l.as_bytes().to_vec())
            .collect();
        let cols = task.board().cols();
        for m in task.movers() {
            let Some(o) = m.object() else { continue };
            // The goal places each box when there are as many spots as
            // boxes or more; otherwise nothing is pruned.
            let Some(d) = &o.pushes_to_goal else { continue };
            let mut got: BTreeSet<Cell> = BTreeSet::new();
            m.domain().for_each(|p, c, _| {
                if d[p as usize] == u32::MAX {
                    got.insert((c as usize / cols, c as usize % cols));
                }
            });
            let want: BTreeSet<Cell> = dead_cells(&rows)
                .into_iter()
                .filter(|&(r, c)| m.position_of((r * cols + c) as u32).is_some())
                .collect();
            assert_eq!(got, want, "dead cells of\n{text}");
            with_dead += usize::from(!got.is_empty());
        }
    }
    assert!(with_dead > 100, "{with_dead} boxes had dead cells");
}
