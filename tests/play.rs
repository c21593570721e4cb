//! `puzzle play`: a case played by hand. The game against an independent
//! warehouse written here (the keeper and the set of boxes) on random
//! Sokoban maps: every key's step, refusal, undo and restart leaves the
//! same keeper and boxes, the same moves to choose from and the same
//! goal; every hint is the first step of a least-cost way, its distance
//! the independent solver's. Then the terminal itself, driven through
//! tmux with scripted keys.

use crate::common;
use puzzle::play::{Asked, Command, Game, Hint, Session};
use puzzle::task::Dir;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

type Cell = (usize, usize);

/// The warehouse as this test keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Warehouse {
    walls: Vec<Vec<bool>>,
    spots: BTreeSet<Cell>,
    keeper: Cell,
    boxes: BTreeSet<Cell>,
}

impl Warehouse {
    /// From a case's text: a header line, then the rows (short ones filled
    /// with floor).
    fn read(text: &str) -> Warehouse {
        let mut lines = text.lines();
        let header: Vec<usize> = (lines.next().unwrap().split_whitespace())
            .map(|x| x.parse().unwrap())
            .collect();
        let (h, w) = (header[0], header[1]);
        let rows: Vec<&[u8]> = lines.take(h).map(str::as_bytes).collect();
        let mut wh = Warehouse {
            walls: vec![vec![false; w]; h],
            spots: BTreeSet::new(),
            keeper: (0, 0),
            boxes: BTreeSet::new(),
        };
        for (r, row) in rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                match ch {
                    b'#' => wh.walls[r][c] = true,
                    b'.' | b'*' | b'+' => {
                        wh.spots.insert((r, c));
                    }
                    _ => {}
                }
                match ch {
                    b'@' | b'+' => wh.keeper = (r, c),
                    b'$' | b'*' => {
                        wh.boxes.insert((r, c));
                    }
                    _ => {}
                }
            }
        }
        wh
    }

    fn free(&self, r: i64, c: i64) -> Option<Cell> {
        let inside = r >= 0
            && c >= 0
            && (r as usize) < self.walls.len()
            && (c as usize) < self.walls[0].len();
        (inside && !self.walls[r as usize][c as usize]).then_some((r as usize, c as usize))
    }

    /// The keeper's step towards `(dr, dc)`, pushing a box; `None` where
    /// it cannot.
    fn step(&self, (dr, dc): (i64, i64)) -> Option<Warehouse> {
        let (r, c) = (self.keeper.0 as i64 + dr, self.keeper.1 as i64 + dc);
        let to = self.free(r, c)?;
        let mut next = self.clone();
        if self.boxes.contains(&to) {
            let beyond = self.free(r + dr, c + dc)?;
            if self.boxes.contains(&beyond) {
                return None;
            }
            next.boxes.remove(&to);
            next.boxes.insert(beyond);
        }
        next.keeper = to;
        Some(next)
    }

    fn solved(&self) -> bool {
        self.spots.is_subset(&self.boxes)
    }

    /// The warehouse drawn in XSB characters, for the solver.
    fn rows(&self) -> Vec<Vec<u8>> {
        let mut g: Vec<Vec<u8>> = (self.walls.iter())
            .map(|row| row.iter().map(|&w| if w { b'#' } else { b' ' }).collect())
            .collect();
        for &(r, c) in &self.spots {
            g[r][c] = b'.';
        }
        for &(r, c) in &self.boxes {
            g[r][c] = if self.spots.contains(&(r, c)) {
                b'*'
            } else {
                b'$'
            };
        }
        let (r, c) = self.keeper;
        g[r][c] = if self.spots.contains(&(r, c)) {
            b'+'
        } else {
            b'@'
        };
        g
    }

    /// The fewest steps to a goal, by the independent solver.
    fn distance(&self) -> Option<u32> {
        crate::sokoban::solve(&self.rows(), 1)
    }
}

const DIRS: [(i64, i64); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];

/// The keeper and the boxes where the game draws them.
fn seen(game: &Game<'_>) -> (Cell, BTreeSet<Cell>) {
    let walk = game.walk();
    let last = walk.frames.last().unwrap();
    let mut keeper = None;
    let mut boxes = BTreeSet::new();
    for (m, &[r, c]) in walk.movers.iter().zip(&last.at) {
        if m.name == "keeper" {
            keeper = Some((r, c));
        } else {
            boxes.insert((r, c));
        }
    }
    (keeper.expect("a keeper"), boxes)
}

fn assert_same(game: &Game<'_>, wh: &Warehouse, steps: usize, what: &str) {
    assert_eq!(seen(game), (wh.keeper, wh.boxes.clone()), "{what}");
    assert_eq!(game.steps(), steps, "{what}: steps");
    assert_eq!(game.spent(), &[steps as u64], "{what}: cost");
    assert_eq!(game.solved(), wh.solved(), "{what}: goal");
    let can = DIRS.iter().filter(|&&d| wh.step(d).is_some()).count();
    assert_eq!(game.choices().len(), can, "{what}: the moves listed");
}

/// A random warehouse (the Sokoban tests'), as the text of an input and
/// the game on it.
fn warehouse(rng: &mut SmallRng) -> (String, Warehouse) {
    let (case, _) = crate::sokoban::random_case(rng, 1);
    let wh = Warehouse::read(&case);
    (format!("{case}0 0\n"), wh)
}

fn game_of<'r>(rules: &'r puzzle::resolve::Rules, input: &str) -> Game<'r> {
    let input = puzzle::run::Input::from_bytes("input", input.as_bytes().to_vec());
    let opts = puzzle::run::Options::default();
    let case = puzzle::run::nth_case(rules, &input, &opts, 1)
        .expect("the input reads")
        .expect("a first case");
    match Game::new(rules, case, opts.search) {
        Ok(g) => g,
        Err(e) => panic!("no game: {e:?}"),
    }
}

#[test]
fn keys_move_as_an_independent_warehouse() {
    let rules = common::puzzle("sokoban").rules;
    let mut rng = SmallRng::seed_from_u64(0x9a7e);
    let (mut moved, mut refused, mut undone, mut solved) = (0, 0, 0, 0);
    for map in 0..150 {
        let (input, start) = warehouse(&mut rng);
        let mut session = Session::new(game_of(&rules, &input));
        // The way so far, as this test keeps it.
        let mut way = vec![start];
        for key in 0..40 {
            let what = format!("map {map}, key {key}:\n{input}");
            let roll = rng.gen_range(0..20);
            let asked = if roll == 0 {
                way.truncate(1);
                session.apply(Command::Restart)
            } else if roll < 4 {
                undone += usize::from(way.len() > 1);
                if way.len() > 1 {
                    way.pop();
                }
                session.apply(Command::Undo)
            } else {
                let d = rng.gen_range(0..4);
                let [north, east, south, west] = Dir::COMPASS;
                let dir = [north, east, south, west][d];
                let now = way.last().unwrap().clone();
                let asked = session.apply(Command::Toward(dir));
                match now.step(DIRS[d]) {
                    Some(next) => {
                        moved += 1;
                        solved += usize::from(next.solved());
                        assert_eq!(asked == Asked::Least, next.solved(), "{what}");
                        way.push(next);
                    }
                    None => {
                        refused += 1;
                        assert!(session.screen().contains("refused: "), "{what}");
                    }
                }
                asked
            };
            assert_ne!(asked, Asked::Quit);
            assert_same(&session.game, way.last().unwrap(), way.len() - 1, &what);
        }
    }
    assert!(
        moved > 1500 && refused > 500 && undone > 300 && solved > 20,
        "{moved} moves, {refused} refused, {undone} undone, {solved} solved"
    );
}

#[test]
fn hints_are_first_steps_of_least_ways() {
    let rules = common::puzzle("sokoban").rules;
    let mut rng = SmallRng::seed_from_u64(0x4147);
    let budget = puzzle::budget::Budget::unlimited();
    let (mut next, mut no_way, mut at_goal) = (0, 0, 0);
    for map in 0..300 {
        let (input, mut wh) = warehouse(&mut rng);
        let mut game = game_of(&rules, &input);
        // A few random steps first: hints are from where the player is.
        for _ in 0..rng.gen_range(0..6) {
            let d = rng.gen_range(0..4);
            if let Some(n) = wh.step(DIRS[d]) {
                let c = game.toward(0, Dir::COMPASS[d]).expect("a legal step");
                game.take(c);
                wh = n;
            }
        }
        let what = format!(
            "map {map} at\n{}",
            String::from_utf8_lossy(&wh.rows().join(&b'\n'))
        );
        match (game.hint(&budget), wh.distance()) {
            (Hint::Solved, Some(0)) => at_goal += 1,
            (Hint::NoWay, None) => no_way += 1,
            (
                Hint::Next {
                    choice,
                    left,
                    steps,
                    ..
                },
                Some(d),
            ) if d > 0 => {
                assert_eq!((left, steps), (vec![u64::from(d)], d as usize), "{what}");
                let c = game.choices()[choice].clone();
                game.take(c);
                let (keeper, boxes) = seen(&game);
                let after = Warehouse {
                    keeper,
                    boxes,
                    ..wh.clone()
                };
                assert!(
                    DIRS.iter().any(|&s| wh.step(s) == Some(after.clone())),
                    "{what}"
                );
                assert_eq!(after.distance(), Some(d - 1), "{what}: the hinted step");
                next += 1;
            }
            (hint, d) => panic!("{what}: hint {hint:?}, distance {d:?}"),
        }
    }
    assert!(
        next >= 40 && no_way >= 100 && at_goal >= 10,
        "{next} hints, {no_way} with no way, {at_goal} at a goal"
    );
}

/// `puzzle play` on a terminal: tmux runs it in a pane of known size,
/// keys are sent, the pane is read back.
#[test]
fn the_terminal_plays_with_keys() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: tmux is absent; `puzzle play` on a terminal was not tested"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map.txt");
    std::fs::write(
        &map,
        "5 7\n#######\n#@ $ .#\n#  #  #\n#     #\n#######\n0 0\n",
    )
    .unwrap();
    let done = dir.path().join("done");
    let socket = dir.path().join("tmux");
    let tmux = |args: &[&str]| {
        let out = std::process::Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let command = format!(
        "{} play {} {}; echo $? > {}",
        env!("CARGO_BIN_EXE_puzzle"),
        common::root().join("puzzles/sokoban.puz").display(),
        map.display(),
        done.display()
    );
    tmux(&["new-session", "-d", "-x", "90", "-y", "24", &command]);
    // The pane, once it shows `want` (within ten seconds: the machine may
    // be busy with the other tests).
    let pane_with = |want: &str| {
        for _ in 0..200 {
            let pane = tmux(&["capture-pane", "-p"]);
            if pane.contains(want) {
                return pane;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!(
            "the pane never showed `{want}`:\n{}",
            tmux(&["capture-pane", "-p"])
        );
    };
    let keys = |k: &[&str]| {
        let mut args = vec!["send-keys"];
        args.extend(k);
        tmux(&args);
    };
    let start = pane_with("steps 0");
    assert!(start.contains("#@ $ .#"), "{start}");
    keys(&["Right"]);
    pane_with("# @$ .#");
    // Into the wall: refused, with the reason.
    keys(&["Up"]);
    pane_with("refused: ");
    keys(&["u"]);
    let back = pane_with("#@ $ .#");
    assert!(back.contains("steps 0"), "{back}");
    keys(&["h"]);
    pane_with("hint: 1 keeper:east (the goal is 3 steps away, at cost 3)");
    // Typed, as `--moves` writes it.
    keys(&[":", "keeper:east", "Enter"]);
    pane_with("steps 1");
    keys(&["d", "d"]);
    let solved = pane_with("goal reached in 3 steps, at cost 3: the least there is");
    assert!(solved.contains("#   @*#"), "{solved}");
    keys(&["q"]);
    for _ in 0..200 {
        if let Ok(code) = std::fs::read_to_string(&done) {
            assert_eq!(code.trim(), "0");
            tmux(&["kill-server"]);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    tmux(&["kill-server"]);
    panic!("`q` did not end the game");
}
