//! Ice: one walker on a frozen lake, where ice carries it on until a rock
//! or the edge stops it, or snow or the exit catches it. The rule file
//! (`slippery` tiles) against an independent solver on its sample and on
//! random lakes.

use crate::common;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// Where a move from (r, c) by (dr, dc) ends: each cell entered is ice
/// (go on), snow or the exit (stop on it); a rock or the edge ahead stops
/// the walker where it is. `None` when it cannot move at all.
fn slide(g: &[Vec<u8>], (r, c): (usize, usize), (dr, dc): (i64, i64)) -> Option<(usize, usize)> {
    let (h, w) = (g.len() as i64, g[0].len() as i64);
    let (mut r, mut c) = (r as i64, c as i64);
    let mut moved = false;
    loop {
        let (nr, nc) = (r + dr, c + dc);
        if nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr as usize][nc as usize] == b'#' {
            break;
        }
        (r, c) = (nr, nc);
        moved = true;
        if g[r as usize][c as usize] != b'.' {
            break;
        }
    }
    moved.then_some((r as usize, c as usize))
}

/// Breadth-first search over the walker's cells.
fn solve(g: &[Vec<u8>]) -> Option<u32> {
    let w = g[0].len();
    let start = common::find(g, b'S');
    let mut dist = vec![u32::MAX; g.len() * w];
    dist[start.0 * w + start.1] = 0;
    let mut queue = VecDeque::from([start]);
    while let Some((r, c)) = queue.pop_front() {
        let d = dist[r * w + c];
        if g[r][c] == b'E' {
            return Some(d);
        }
        for dir in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
            if let Some((nr, nc)) = slide(g, (r, c), dir)
                && dist[nr * w + nc] == u32::MAX
            {
                dist[nr * w + nc] = d + 1;
                queue.push_back((nr, nc));
            }
        }
    }
    None
}

fn random_case(rng: &mut SmallRng) -> (String, Option<u32>) {
    let big = rng.gen_bool(0.05);
    let (h, w) = if big {
        (rng.gen_range(40..=120), rng.gen_range(40..=120))
    } else {
        (rng.gen_range(1..=10), rng.gen_range(2..=10))
    };
    lake(rng, (h, w))
}

/// A random `h x w` lake and its answer.
fn lake(rng: &mut SmallRng, (h, w): (usize, usize)) -> (String, Option<u32>) {
    let (rock, snow) = (rng.gen_range(0.0..0.3), rng.gen_range(0.0..0.2));
    let mut g = common::mixed_grid(rng, h, w, &[(rock, b'#'), (snow, b'_')], b'.');
    let cells = common::all_cells(&g);
    common::place(rng, &mut g, cells, b"SE");
    (common::case_text(&format!("{h} {w}"), &g), solve(&g))
}

use common::or_minus_one as answer;

#[test]
fn sample_agrees_with_independent_solver() {
    let maps = common::sample_maps("ice", true, None, 0);
    let want: String = maps.iter().map(|(_, g)| answer(&solve(g)) + "\n").collect();
    common::assert_sample_is("ice", &want);
}

#[test]
fn agrees_with_independent_solver_on_random_lakes() {
    let rules = common::puzzle("ice").rules;
    let mut rng = SmallRng::seed_from_u64(0x1ce);
    let all = common::batches(
        &rules,
        &mut rng,
        common::CASES,
        12,
        random_case,
        common::counted,
        common::lines(answer),
    );
    let reached = all.iter().filter(|a| a.is_some()).count();
    let long = all.iter().filter(|a| a.is_some_and(|n| n >= 4)).count();
    assert!(
        reached > 100 && reached < all.len() && long > 20,
        "mixed answers: {reached} reached, {long} of 4 moves or more, of {}",
        all.len()
    );
}

/// Lakes of over 2^18 cells: the walker's positions are the padded grid's
/// cells, not a list of them (checked), with the same answers.
#[test]
fn agrees_with_independent_solver_on_large_lakes() {
    let rules = common::puzzle("ice").rules;
    let mut rng = SmallRng::seed_from_u64(0x1ce1a4e);
    let mut grid = 0;
    let all = common::batches(
        &rules,
        &mut rng,
        8,
        2,
        |rng| {
            let size = (rng.gen_range(510..=600), rng.gen_range(510..=600));
            let (text, answer) = lake(rng, size);
            let input = common::counted(std::slice::from_ref(&text));
            grid += usize::from(common::on_padded_grid(&rules, &input));
            (text, answer)
        },
        common::counted,
        common::lines(answer),
    );
    assert_eq!(
        grid,
        all.len(),
        "every large lake has the padded grid's positions"
    );
    assert!(all.iter().any(|a| a.is_some_and(|n| n >= 4)), "{all:?}");
}

/// An input file of over a megabyte is mapped, not read (`puzzle::mapped`),
/// its pages given back as the cases are read: the answers are the
/// independent solver's, with and without a byte-order mark, on one thread
/// and two, and the mapped text is the file's.
#[test]
fn a_large_input_file_is_mapped_and_answered_as_read() {
    let mut rng = SmallRng::seed_from_u64(0x1ce_f11e);
    let lakes: Vec<(String, Option<u32>)> = (0..5)
        .map(|_| {
            let size = (rng.gen_range(500..=560), rng.gen_range(500..=560));
            lake(&mut rng, size)
        })
        .collect();
    let texts: Vec<String> = lakes.iter().map(|(t, _)| t.clone()).collect();
    let text = common::counted(&texts);
    let want: String = lakes.iter().map(|(_, a)| answer(a) + "\n").collect();
    assert!(want.lines().any(|l| l != "-1"), "{want}");
    let dir = std::env::temp_dir();
    for bom in [false, true] {
        let mut bytes = if bom {
            b"\xEF\xBB\xBF".to_vec()
        } else {
            Vec::new()
        };
        bytes.extend_from_slice(text.as_bytes());
        assert!(bytes.len() as u64 > puzzle::mapped::Mapped::MIN_LEN);
        let path = dir.join(format!("puzzle-ice-mapped-{}-{bom}.in", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let map = puzzle::mapped::Mapped::open(&std::fs::File::open(&path).unwrap())
            .expect("a large UTF-8 file is mapped");
        assert_eq!(
            map.text(),
            text,
            "the mapped text is the file's, after its mark"
        );
        // Given back, the text reads the same again.
        map.release(map.text().len());
        assert_eq!(map.text(), text);
        // Two threads: the reader runs ahead of the cases in flight, and
        // gives back the pages it has passed while they are solved.
        let threads = if bom { "2" } else { "1" };
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_puzzle"))
            .args(["run", "--threads", threads])
            .arg(common::root().join("puzzles/ice.puz"))
            .arg(&path)
            .output()
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "bom: {bom}");
    }
}
