//! The generic interpreter is the oracle of every specialised kernel: on
//! random maps of random rule files, for every state reachable (up to a
//! bound), each kernel that applies gives exactly the successors, with
//! their costs, and the start states the interpreter gives.

use crate::common;
use puzzle::kernel::Kernel;
use puzzle::kernel::KernelKind;
use puzzle::pack::{Layout, Wide, Word};
use puzzle::task::Task;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashSet};

/// The successors of `s` with their costs, as a set.
fn successors(k: &Kernel<'_, u64>, s: u64) -> BTreeSet<(u64, u32)> {
    let mut out = BTreeSet::new();
    k.successors().each_cost(s, |t, c| {
        out.insert((t, c));
        true
    });
    out
}

/// How many successors `s` has, duplicates counted.
fn count(k: &Kernel<'_, u64>, s: u64) -> usize {
    let mut n = 0;
    k.successors().each_cost(s, |_, _| {
        n += 1;
        true
    });
    n
}

/// The successors of `s` with their costs, as a set, in any word.
fn successor_set<W: Word>(k: &Kernel<'_, W>, s: W) -> HashSet<(W, u32)> {
    let mut out = HashSet::new();
    k.successors().each_cost(s, |t, c| {
        out.insert((t, c));
        true
    });
    out
}

/// Each kernel of `kinds`, and the interpreter, packing states in `W`
/// (narrower or wider), gives from each of `states` the successors the
/// interpreter gives in a `u64`, and the same start states.
fn wider<W: Word>(task: &Task, layout: &Layout, kinds: &[KernelKind], states: &[u64], what: &str) {
    let narrow = Kernel::<u64>::new(task, layout, KernelKind::Generic);
    let mut vals = vec![0i64; task.vars().len()];
    let mut widen = |s: u64| {
        layout.decode(s, &mut vals);
        layout.encode::<W>(&vals)
    };
    let starts: HashSet<W> = narrow.starts().iter().map(|&s| widen(s)).collect();
    for &kind in kinds.iter().chain(&[KernelKind::Generic]) {
        let k = Kernel::<W>::new(task, layout, kind);
        let got: HashSet<W> = k.starts().iter().copied().collect();
        assert_eq!(
            got,
            starts,
            "{kind:?} in {} bits: start states of {what}",
            W::BITS
        );
        for &s in states {
            let want: HashSet<(W, u32)> = successors(&narrow, s)
                .into_iter()
                .map(|(t, c)| (widen(t), c))
                .collect();
            assert_eq!(
                successor_set(&k, widen(s)),
                want,
                "{kind:?} in {} bits: successors of {s:#x} in {what}",
                W::BITS
            );
        }
    }
}

/// The kernels that apply to a task, besides the generic one: the
/// plan's list of patterns, every entry of it.
fn kinds(task: &Task) -> Vec<KernelKind> {
    puzzle::kernel::fits(task)
        .into_iter()
        .map(|f| f.kind)
        .filter(|&k| k != KernelKind::Generic)
        .collect()
}

/// Compares every applicable kernel with the interpreter on the states
/// the interpreter reaches from the start (at most `limit` of them).
/// Returns the kinds compared.
fn compare(task: &Task, limit: usize, what: &str) -> Vec<KernelKind> {
    let layout = Layout::new(task);
    let generic = Kernel::<u64>::new(task, &layout, KernelKind::Generic);
    let mut starts: Vec<u64> = generic.starts().to_vec();
    starts.sort_unstable();
    let mut seen: HashSet<u64> = starts.iter().copied().collect();
    let mut queue = starts.clone();
    let mut i = 0;
    while i < queue.len() && queue.len() < limit {
        let s = queue[i];
        i += 1;
        for (t, _) in successors(&generic, s) {
            if seen.insert(t) {
                queue.push(t);
            }
        }
    }
    // The plan's bound on the successors of a state (the room it makes
    // between two budget checks) holds for every kernel.
    let most = puzzle::plan::fan_out(task);
    for &s in &queue {
        assert!(count(&generic, s) <= most, "fan-out of {s:#x} in {what}");
    }
    let kinds = kinds(task);
    // Every kernel is generic over the word a state is packed in: the same
    // successors in the wider words the plan takes for larger states.
    let some = &queue[..queue.len().min(limit / 8)];
    if layout.bits() <= 32 {
        wider::<u32>(task, &layout, &kinds, some, what);
    }
    wider::<u128>(task, &layout, &kinds, some, what);
    wider::<Wide<4>>(task, &layout, &kinds, some, what);
    for &kind in &kinds {
        let k = Kernel::<u64>::new(task, &layout, kind);
        for &s in &queue {
            assert!(
                count(&k, s) <= most,
                "{kind:?}: fan-out of {s:#x} in {what}"
            );
        }
        let mut ks = k.starts().to_vec();
        ks.sort_unstable();
        assert_eq!(ks, starts, "{kind:?}: start states of {what}");
        for &s in &queue {
            assert_eq!(
                successors(&k, s),
                successors(&generic, s),
                "{kind:?}: successors of {s:#x} in {what}"
            );
        }
    }
    kinds
}

/// Every kernel of `kinds` was compared on some map.
fn all_compared(compared: &HashSet<String>, kinds: &[&str]) {
    for kind in kinds {
        assert!(
            compared.contains(*kind),
            "{kind} was never compared: {compared:?}"
        );
    }
}

fn ground(rules: &str, input: &str) -> Task {
    try_ground(rules, input).expect("the case grounds")
}

/// The task of the first case of `input` under `rules`, or `None` where
/// the map is reported (the rule file and the case must read).
fn try_ground(rules: &str, input: &str) -> Option<Task> {
    let loaded = puzzle::load("kernels.puz", rules).unwrap_or_else(|e| panic!("{e:?}\n{rules}"));
    let rules = loaded.rules;
    let case = puzzle::input::Reader::new(rules.io(), input, false, None)
        .next_case()
        .expect("a case")
        .expect("the case reads");
    puzzle::task::ground(&rules, &case).ok()
}

/// A random `h x w` map of `tiles` with bots `1`.. to `n` on it, and its
/// task under `rules` (none when the map has too few open cells).
fn random_map(
    rng: &mut SmallRng,
    rules: &str,
    n: usize,
    (h, w): (usize, usize),
    tiles: &[u8],
) -> Option<(String, Task)> {
    let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
    let cells = common::all_cells(&g);
    if cells.len() < n {
        return None;
    }
    let starts: Vec<u8> = (0..n as u8).map(|i| b'1' + i).collect();
    common::place(rng, &mut g, cells, &starts);
    let input = common::case_text(&format!("{n} {h} {w}"), &g);
    let task = ground(rules, &input);
    Some((input, task))
}

const DIRS: [&str; 9] = [
    "north",
    "south",
    "east",
    "west",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
    "stay",
];

/// Moves by offsets: a knight's jumps, a jump of two, a jump of three.
const LEAPS: [&str; 5] = ["(2,1)", "(-1,2)", "(0,-2)", "(-2,-2)", "(3,0)"];

/// A random set of directions (some always, so that things move), and
/// `stay` more often at once (where an agent must move otherwise) than in
/// turn (where it is a step that only fires rules).
fn dirs(rng: &mut SmallRng, at_once: bool) -> String {
    let mut v: Vec<String> = DIRS[..8]
        .iter()
        .map(|d| d.to_string())
        .filter(|_| rng.gen_bool(0.5))
        .collect();
    // Conditions on the cells around the mover, which the table kernels
    // hold per position.
    for d in v.iter_mut() {
        if rng.gen_bool(0.2) {
            let guard = [
                "cell here is floor",
                "not cell ahead is wall",
                "cell beyond is floor or cell (1, 1) is wall",
            ][rng.gen_range(0..3)];
            *d = format!("{d} if {guard}");
        }
    }
    if v.is_empty() {
        v.push("east".into());
    }
    // Offsets: leaps over the next cell (the kernels add them to a cell's
    // index like any step, and pad the board by the longest).
    if rng.gen_bool(0.25) {
        v.push(LEAPS[rng.gen_range(0..LEAPS.len())].into());
    }
    if rng.gen_bool(if at_once { 0.6 } else { 0.2 }) {
        v.push("stay".into());
    }
    v.join(", ")
}

/// Random rule files of several movers with gates, levers, lamps, pads
/// and sight, in turn or at once, with random constraints; random maps.
#[test]
fn table_kernels_give_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0x04ac1e);
    let mut compared = HashSet::new();
    for round in 0..240 {
        let at_once = round % 2 == 1;
        let n = rng.gen_range(1..=if at_once { 3 } else { 4 });
        // Every fourth file has no rules at all: the unconditional kernels.
        let plain = round % 4 < 2;
        let opaque = if rng.gen_bool(0.3) { "opaque" } else { "" };
        // Every third file rings its maps (`border`).
        let ring = if round % 3 == 2 { "rim '=' border" } else { "" };
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             domain colour = red blue\n\
             tiles {{ floor '.'  wall '#' solid  lever 'r' 'b' of colour  gate 'R' 'B' of colour  \
                      lamp 'L' solid opaque  pad 'P'  fog 'f' opaque {ring} }}\n\
             agent bot[n] '1'.. on floor {opaque}\n\
             flag open[colour], lit, on_pad\n\
             move all {}: {}\n",
            if at_once { "at once" } else { "in turn" },
            dirs(&mut rng, at_once)
        );
        if rng.gen_bool(0.6) {
            rules.push_str("forbid same cell\n");
        }
        if at_once && rng.gen_bool(0.6) {
            rules.push_str("forbid swap\n");
        }
        if !plain {
            rules.push_str("enter gate(?c) only if open[?c]\n");
            rules.push_str(
                [
                    "on enter lever(?c): toggle open[?c]\n",
                    "on enter lever(?c): set open[?c]\n",
                ][rng.gen_range(0..2)],
            );
            rules.push_str("when bot sees lamp: set lit\n");
            rules.push_str(
                [
                    "when bot on pad: toggle on_pad\n",
                    "when bot on pad: set on_pad, clear lit\n",
                ][rng.gen_range(0..2)],
            );
        }
        rules.push_str("goal every bot on pad and lit\n");
        let size = (rng.gen_range(1..=6), rng.gen_range(2..=7));
        let tiles: &[u8] = if plain { b"..#.P" } else { b"...#rbRBLPf" };
        let Some((input, task)) = random_map(&mut rng, &rules, n, size, tiles) else {
            continue;
        };
        for kind in compare(&task, 3000, &format!("{rules}\n{input}")) {
            compared.insert(
                format!("{kind:?}")
                    .split([' ', '('])
                    .next()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    all_compared(&compared, &["Lone", "InTurn", "AtOnce", "Nested", "Rows"]);
}

/// Moves that slide or teleport: on random maps of ice, stopping tiles,
/// walls and teleporters (forced or optional), with one mover or several
/// taking turns, with and without flags set on entering and entry
/// conditions on them, the slide kernel gives the interpreter's successors.
#[test]
fn the_slide_kernel_gives_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0x511de);
    let mut compared = 0;
    for round in 0..300 {
        let n = rng.gen_range(1..=3);
        let slides = ["slide north", "slide east", "slide south", "slide west"];
        let steps = ["north", "east", "south", "west", "northeast", "southwest"];
        let mut moves: Vec<&str> = Vec::new();
        for (i, s) in slides.iter().enumerate() {
            if rng.gen_bool(0.7) {
                moves.push(s);
            }
            if rng.gen_bool(0.4) {
                moves.push(steps[i]);
            }
        }
        if rng.gen_bool(0.3) {
            moves.push(steps[4 + rng.gen_range(0..2)]);
        }
        if rng.gen_bool(0.3) {
            moves.push(["slide (1,2)", "(-2,1)", "slide (0,-2)"][rng.gen_range(0..3)]);
        }
        if moves.is_empty() {
            moves.push("slide east");
        }
        let optional = if round % 3 == 0 { " optional" } else { "" };
        // Every fourth file rings its maps with snow (`border`).
        let ring = if round % 4 == 1 {
            "rim '=' border stops"
        } else {
            ""
        };
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             domain pair = a b\n\
             tiles {{ floor '.'  ice '~' slippery  snow '_' stops  wall '#' solid  \
                      portal 'a' 'b' of pair  mark 'X' {ring} }}\n\
             agent bot[n] '1'.. on floor\n\
             move all in turn: {}\n\
             teleport portal{optional}\n\
             goal any bot on mark\n",
            moves.join(", ")
        );
        if n > 1 || rng.gen_bool(0.5) {
            rules.push_str("forbid same cell\n");
        }
        // Rules the kernel takes: flags set on entering, entry conditions.
        if round % 2 == 1 {
            rules.push_str("flag lit, key\n");
            rules.push_str(
                [
                    "on enter ice: toggle lit\n",
                    "on enter snow: set lit\non enter mark: clear lit\n",
                    "on enter portal: toggle key\n",
                ][rng.gen_range(0..3)],
            );
            rules.push_str(
                [
                    "enter snow only if not lit\n",
                    "enter ice only if lit or key\n",
                    "enter portal only if not key\n",
                ][rng.gen_range(0..3)],
            );
        }
        let size = (rng.gen_range(1..=6), rng.gen_range(2..=7));
        let pairs = if rng.gen_bool(0.6) { "aabb" } else { "" };
        let mut tiles: Vec<u8> = b"..~~~_#X".to_vec();
        if rng.gen_bool(0.3) {
            tiles = b"~~~~#".to_vec();
        }
        let mut g = common::random_grid(&mut rng, size.0, size.1, |r| {
            tiles[r.gen_range(0..tiles.len())]
        });
        // The bots and the teleporters' ends, on cells drawn at random.
        let cells = common::all_cells(&g);
        let marks: Vec<u8> = (0..n as u8)
            .map(|i| b'1' + i)
            .chain(pairs.bytes())
            .collect();
        if cells.len() < marks.len() {
            continue;
        }
        common::place(&mut rng, &mut g, cells, &marks);
        let input = common::case_text(&format!("{n} {} {}", size.0, size.1), &g);
        let task = ground(&rules, &input);
        if compare(&task, 3000, &format!("{rules}\n{input}")).contains(&KernelKind::Slides) {
            compared += 1;
        }
    }
    assert!(
        compared > 200,
        "the slide kernel was compared on {compared} maps"
    );
}

/// Agents that move together (`move all together`), front first: one to
/// four bots stepping and sliding (by directions and by offsets) on
/// floor, ice and snow, each blocked by walls and by the others; the slide
/// kernel gives the interpreter's successors. A fifth of the files add a
/// flag set on entering the snow, which the kernel does not take.
#[test]
fn the_slide_kernel_moves_agents_together_as_the_interpreter_does() {
    let mut rng = SmallRng::seed_from_u64(0x7161);
    let (mut compared, mut crowded) = (0, 0);
    for round in 0..400 {
        let n = rng.gen_range(1..=4);
        let all = [
            "slide north",
            "slide east",
            "slide south",
            "slide west",
            "north",
            "east",
            "south",
            "west",
            "southeast",
            "slide northwest",
            "(2,1)",
            "slide (-1,2)",
        ];
        let mut moves: Vec<&str> = all.iter().copied().filter(|_| rng.gen_bool(0.4)).collect();
        if moves.is_empty() {
            moves.push("slide east");
        }
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  ice '~' slippery  snow '_' stops  wall '#' solid  mark 'X' }}\n\
             agent bot[n] '1'.. on floor\n\
             move all together: {}\n\
             goal every bot on mark\n",
            moves.join(", ")
        );
        if n > 1 || rng.gen_bool(0.5) {
            rules.push_str("forbid same cell\n");
        }
        let ruled = round % 5 == 4;
        if ruled {
            rules.push_str("flag cold\non enter snow: set cold\n");
        }
        let size = (rng.gen_range(1..=6), rng.gen_range(2..=7));
        let tiles: &[u8] = if rng.gen_bool(0.3) {
            b"~~~~#"
        } else {
            b"....~_#X"
        };
        let Some((input, task)) = random_map(&mut rng, &rules, n, size, tiles) else {
            continue;
        };
        let kinds = compare(&task, 3000, &format!("{rules}\n{input}"));
        // The rule is grounded only on a map with snow.
        let fired = ruled && input.contains('_');
        assert_eq!(
            kinds.contains(&KernelKind::Slides),
            !fired && (n == 1 || rules.contains("forbid same cell")),
            "the plan's fit of agents together:\n{rules}\n{input}"
        );
        if kinds.contains(&KernelKind::Slides) {
            compared += 1;
            crowded += usize::from(n >= 3);
        }
    }
    assert!(
        compared > 250 && crowded > 100,
        "agents together compared on {compared} maps, {crowded} of them with three or more"
    );
}

/// Tiles that carry (`carry`): a lone mover stepping, sliding or
/// teleporting onto arrows of four ways, a wind of its own way and rings
/// of arrows that carry round for ever, with doors opened by a pass that
/// may be carried over; the slide kernel, which carries it a cell a
/// round, gives the interpreter's successors.
#[test]
fn the_slide_kernel_carries_as_the_interpreter_does() {
    let mut rng = SmallRng::seed_from_u64(0xca77);
    let (mut compared, mut ringed) = (0, 0);
    for round in 0..300 {
        let steps = ["north", "east", "south", "west", "northeast", "southwest"];
        let mut moves: Vec<&str> = steps[..4]
            .iter()
            .copied()
            .filter(|_| rng.gen_bool(0.8))
            .collect();
        if rng.gen_bool(0.3) {
            moves.push(steps[4 + rng.gen_range(0..2)]);
        }
        if rng.gen_bool(0.3) {
            moves.push(["slide north", "slide east", "(2,1)"][rng.gen_range(0..3)]);
        }
        if moves.is_empty() {
            moves.push("east");
        }
        let wind = ["east", "southwest", "north"][rng.gen_range(0..3)];
        let optional = if round % 3 == 0 { " optional" } else { "" };
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             domain way = north east south west\n\
             domain pair = a b\n\
             tiles {{ floor '.'  wall '#' solid  arrow '^' '>' 'v' '<' of way  wind '~'  \
                      ice 'i' slippery  portal 'a' 'b' of pair  pass 'P'  door 'D'  mark 'X' }}\n\
             agent bot '1' on floor\n\
             move bot: {}\n\
             carry arrow(?w) ?w\n\
             carry wind {wind}\n\
             teleport portal{optional}\n\
             goal bot on mark\n",
            moves.join(", ")
        );
        if round % 2 == 1 {
            rules.push_str("flag boarding\non enter pass: set boarding\n");
            rules.push_str(
                [
                    "enter door only if boarding\n",
                    "on enter wind: toggle boarding\nenter door only if not boarding\n",
                    "enter arrow only if boarding\n",
                ][rng.gen_range(0..3)],
            );
        }
        let size = (rng.gen_range(2..=7), rng.gen_range(2..=8));
        let tiles: &[u8] = if rng.gen_bool(0.5) {
            b"....#^>v<~PDX"
        } else {
            b"..#^^>>vv<<~iPDX"
        };
        let mut g = common::random_grid(&mut rng, size.0, size.1, |r| {
            tiles[r.gen_range(0..tiles.len())]
        });
        // A ring of arrows here and there: carried round it for ever.
        let ring = rng.gen_bool(0.4);
        if ring {
            let (r, c) = (rng.gen_range(0..size.0 - 1), rng.gen_range(0..size.1 - 1));
            g[r][c] = b'>';
            g[r][c + 1] = b'v';
            g[r + 1][c + 1] = b'<';
            g[r + 1][c] = b'^';
        }
        let cells = common::all_cells(&g);
        let marks: &[u8] = if rng.gen_bool(0.5) { b"1aabb" } else { b"1" };
        if cells.len() < marks.len() {
            continue;
        }
        common::place(&mut rng, &mut g, cells, marks);
        let input = common::case_text(&format!("1 {} {}", size.0, size.1), &g);
        let task = ground(&rules, &input);
        if compare(&task, 3000, &format!("{rules}\n{input}")).contains(&KernelKind::Slides) {
            compared += 1;
            ringed += usize::from(ring);
        }
    }
    assert!(
        compared > 250 && ringed > 80,
        "the slide kernel carried on {compared} maps, {ringed} with a ring"
    );
}

#[test]
fn the_bodies_kernel_gives_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0xb0d1e5);
    let (mut compared, mut twins, mut iced) = (0, 0, 0);
    for _ in 0..420 {
        let all = [
            "north",
            "east",
            "south",
            "west",
            "northeast",
            "southwest",
            "slide north",
            "slide east",
            "slide south",
            "slide west",
            "(2,1)",
            "(0,-2)",
            "slide (-1,2)",
        ];
        let mut moves: Vec<&str> = all.iter().copied().filter(|_| rng.gen_bool(0.4)).collect();
        if moves.is_empty() {
            moves.push("east");
        }
        let lengthwise = if rng.gen_bool(0.5) { " lengthwise" } else { "" };
        let hero = rng.gen_bool(0.3);
        let mut rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  snow '_' stops  ice '~' slippery  wall '#' solid }}\n\
             piece block 'A' 'B' 'C' 'D' 'E' on floor{lengthwise}\n\
             move all: {}\n\
             goal any block on snow\n",
            moves.join(", ")
        );
        if hero {
            rules.push_str("agent hero '@' on floor\n");
        }
        let (h, w) = (rng.gen_range(2..=7), rng.gen_range(2..=7));
        // Ice on half the maps, a third of their cells.
        let ice = if rng.gen_bool(0.5) { 0.35 } else { 0.0 };
        let mut g = common::mixed_grid(
            &mut rng,
            h,
            w,
            &[(0.1, b'#'), (0.1, b'_'), (ice, b'~')],
            b'.',
        );
        // Rectangles of letters on free cells: pieces, some of one shape.
        for &ch in b"ABCDE" {
            let (th, tw) = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3)][rng.gen_range(0..5)];
            if rng.gen_bool(0.8) {
                common::put_piece(&mut rng, &mut g, th, tw, ch, 1);
            }
        }
        if !g.iter().flatten().any(|ch| ch.is_ascii_uppercase()) {
            continue;
        }
        if hero {
            let free: Vec<(usize, usize)> = common::all_cells(&g)
                .into_iter()
                .filter(|&(r, c)| g[r][c] == b'.')
                .collect();
            let Some(&(r, c)) = free.first() else {
                continue;
            };
            g[r][c] = b'@';
        }
        let input = common::case_text(&format!("{h} {w}"), &g);
        let task = ground(&rules, &input);
        if task.has_twins() {
            twins += 1;
        }
        if compare(&task, 3000, &format!("{rules}\n{input}")).contains(&KernelKind::Bodies) {
            compared += 1;
            if g.iter().flatten().any(|&ch| ch == b'~') {
                iced += 1;
            }
        }
    }
    assert!(
        compared > 200 && twins > 30 && iced > 60,
        "the bodies kernel was compared on {compared} maps, {twins} with twins, {iced} with ice"
    );
}

/// The founding puzzles' own maps: each kernel the plan could pick agrees
/// with the interpreter there too.
#[test]
fn shipped_samples_agree_with_the_interpreter() {
    for name in ["keytask", "halloween", "hideseek", "levers"] {
        let rules = common::puzzle(name).rules;
        let input = common::read(&common::root().join(format!("puzzles/{name}.in")));
        let mut reader = puzzle::input::Reader::new(
            rules.io(),
            &input,
            puzzle::run::space_is_cell(&rules),
            None,
        );
        while let Some(case) = reader.next_case() {
            let task = puzzle::task::ground(&rules, &case.unwrap()).unwrap();
            assert!(
                !kinds(&task).is_empty(),
                "{name}: some table kernel applies"
            );
            compare(&task, 20_000, name);
        }
    }
}

/// `--stats` counts: on random tasks whose goal no state reaches (a flag
/// nothing sets), breadth-first search expands every reachable state, and
/// the successors it counts are those the plan's kernel gives for them,
/// its depth one more than the farthest state's distance, its peak
/// frontier the largest level: whatever the threads.
#[test]
fn the_statistics_count_every_successor_of_a_full_search() {
    use puzzle::plan::{Config, Strategy};
    let mut rng = SmallRng::seed_from_u64(0x57a75);
    let mut kernels = HashSet::new();
    for round in 0..120 {
        let at_once = round % 2 == 1;
        let n = rng.gen_range(1..=3);
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  lever 'r' }}\n\
             agent bot[n] '1'.. on floor\n\
             flag done, lit\n\
             move all {}: {}\n",
            if at_once { "at once" } else { "in turn" },
            dirs(&mut rng, at_once)
        );
        if round % 4 < 2 {
            rules.push_str("on enter lever: toggle lit\nenter floor only if not lit\n");
        }
        if rng.gen_bool(0.5) {
            rules.push_str("forbid same cell\n");
        }
        rules.push_str("goal done\n");
        let size = (rng.gen_range(1..=5), rng.gen_range(2..=6));
        let Some((input, task)) = random_map(&mut rng, &rules, n, size, b"...#r") else {
            continue;
        };
        for threads in [1, 2] {
            let config = Config {
                strategy: Strategy::Bfs,
                threads,
                count: true,
                cluster: None,
            };
            let plan = puzzle::plan::plan(&task, config).unwrap();
            kernels.insert(format!("{:?}", plan.kernel()));
            // Level by level with the plan's own kernel.
            let k = Kernel::<u64>::new(&task, plan.layout(), plan.kernel());
            let mut level: Vec<u64> = k.starts().to_vec();
            level.sort_unstable();
            level.dedup();
            let mut seen: HashSet<u64> = level.iter().copied().collect();
            let (mut generated, mut depth, mut widest) = (0u64, 0u64, level.len() as u64);
            while !level.is_empty() {
                let mut next = Vec::new();
                for &s in &level {
                    generated += count(&k, s) as u64;
                    for (t, _) in successors(&k, s) {
                        if seen.insert(t) {
                            next.push(t);
                        }
                    }
                }
                depth += 1;
                widest = widest.max(next.len() as u64);
                level = next;
            }
            let sol = puzzle::search::run(&task, &plan, &puzzle::budget::Budget::unlimited());
            let what = format!("{threads} threads, {:?}\n{rules}\n{input}", plan.kernel());
            assert_eq!(sol.cost(), None, "{what}");
            assert_eq!(sol.visited(), seen.len() as u64, "{what}");
            assert_eq!(sol.expanded(), seen.len() as u64, "{what}");
            assert_eq!(sol.generated(), generated, "{what}");
            assert_eq!(sol.depth(), depth, "{what}");
            assert_eq!(sol.frontier(), widest, "{what}");
        }
    }
    assert!(kernels.len() >= 3, "kernels tried: {kernels:?}");
}

/// A lone agent on a large map of mostly open cells has the padded grid's
/// cells for positions, not a list of them: every kernel that applies
/// gives the interpreter's successors there too, with steps (the table
/// kernels, with levers, gates, lamps in sight and pads) and with slides
/// and teleports (the slide kernel, with flags set on entering and entry
/// conditions), and with leaps on conditions of the cells passed and
/// `forbid` on cells and beams, fixed or turning (a lone agent's exits,
/// cleared where a leap is not made and where a step would end
/// forbidden).
#[test]
fn kernels_agree_on_the_padded_grid_of_a_large_map() {
    let steps = "input { cases until eof  header n rows cols  grid rows x cols }\n\
         domain colour = red blue\n\
         tiles { floor '.'  wall '#' solid  lever 'r' 'b' of colour  gate 'R' 'B' of colour  \
                 lamp 'L' solid opaque  pad 'P' }\n\
         agent bot[n] '1'.. on floor\n\
         flag open[colour], lit, on_pad\n\
         move all in turn: north east south west southwest\n\
         enter gate(?c) only if open[?c]\n\
         on enter lever(?c): toggle open[?c]\n\
         when bot sees lamp: set lit\n\
         when bot on pad: toggle on_pad\n\
         goal every bot on pad and lit\n";
    let slides = "input { cases until eof  header n rows cols  grid rows x cols }\n\
         domain pair = a b\n\
         tiles { floor '.'  ice '~' slippery  snow '_' stops  wall '#' solid  \
                 portal 'a' 'b' of pair  mark 'X' }\n\
         agent bot[n] '1'.. on floor\n\
         flag lit\n\
         move all in turn: slide north, slide east, south, west\n\
         teleport portal\n\
         on enter snow: toggle lit\n\
         enter ice only if not lit\n\
         goal any bot on mark\n";
    let beams = |turning: &str| {
        format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             domain way = north east south west\n\
             tiles {{ floor '.'  wall '#' solid  stone 'x' solid  \
                     turret '^' '>' 'v' '<' of way solid  lava '~'  door 'D' }}\n\
             agent bot '1' on floor\n\
             beam laser from turret(?w) ?w {turning}\n\
             moves hop = (2, 1) if not cell (0, 1) is stone, \
                         (-1, -2) if not cell (0, -1) is stone\n\
             move bot: north east south west stay hop\n\
             forbid bot in laser\n\
             forbid bot on lava\n\
             goal bot on door\n"
        )
    };
    let (fixed, turning) = (beams(""), beams("turning"));
    let mut rng = SmallRng::seed_from_u64(0x9a4d);
    let mut compared = HashSet::new();
    for round in 0..9 {
        let (rules, tiles): (&str, &[u8]) = match round % 3 {
            0 => (steps, b"..........#rbRBLP"),
            1 => (slides, b"....~~~~~_#X"),
            _ if round % 2 == 0 => (&fixed, b"..............xxx#~^>v<D"),
            _ => (&turning, b"..............xxx#~^>v<D"),
        };
        let size = (rng.gen_range(510..=530), rng.gen_range(510..=530));
        let mut g = common::random_grid(&mut rng, size.0, size.1, |r| {
            tiles[r.gen_range(0..tiles.len())]
        });
        let cells = common::all_cells(&g);
        let marks: &[u8] = if round % 3 == 1 { b"1aabb" } else { b"1" };
        common::place(&mut rng, &mut g, cells, marks);
        let input = common::case_text(&format!("1 {} {}", size.0, size.1), &g);
        let task = ground(rules, &input);
        assert!(task.movers()[0].domain().is_grid(), "round {round}");
        for kind in compare(&task, 3000, &format!("round {round}:\n{rules}")) {
            compared.insert(format!("{kind:?}"));
            if round % 3 == 2 {
                compared.insert(format!("{kind:?} with beams"));
            }
        }
    }
    all_compared(&compared, &["Lone", "InTurn", "Slides", "Lone with beams"]);
}

/// A kernel's tables are built in passes over the map, with a limit asked
/// between them (a map of millions of cells takes seconds): asked to stop
/// at its `k`-th question, the build stops there and asks no more; never
/// asked to stop, it gives the kernel of `Kernel::new`.
#[test]
fn a_kernels_build_stops_at_the_first_question_answered_yes() {
    let rules = "input { cases until eof  header n rows cols  grid rows x cols }\n\
         domain colour = red blue\n\
         tiles { floor '.'  wall '#' solid  lever 'r' 'b' of colour  gate 'R' 'B' of colour  pad 'P' }\n\
         agent bot[n] '1'.. on floor\n\
         flag open[colour], on_pad\n\
         move all in turn: north east south west\n\
         enter gate(?c) only if open[?c]\n\
         on enter lever(?c): toggle open[?c]\n\
         when bot on pad: toggle on_pad\n\
         goal every bot on pad\n";
    let input = "2 3 4\n1r.P\n.#R.\nb.2B\n";
    let task = ground(rules, input);
    let plan = puzzle::plan::plan(&task, puzzle::plan::Config::default()).expect("a plan");
    assert!(
        !matches!(plan.kernel(), KernelKind::Generic),
        "a table kernel is planned"
    );
    let asked = std::cell::Cell::new(0);
    let whole = Kernel::<u64>::within(&task, plan.layout(), plan.kernel(), &|| {
        asked.set(asked.get() + 1);
        false
    })
    .expect("nothing stops it");
    let questions = asked.get();
    assert!(questions >= 2 * 5, "{questions} questions for two movers");
    assert_eq!(
        whole.starts(),
        Kernel::<u64>::new(&task, plan.layout(), plan.kernel()).starts()
    );
    for k in 1..=questions {
        asked.set(0);
        let stopped = Kernel::<u64>::within(&task, plan.layout(), plan.kernel(), &|| {
            asked.set(asked.get() + 1);
            asked.get() == k
        });
        assert!(stopped.is_none(), "not stopped at question {k}");
        assert_eq!(asked.get(), k, "asked on after a yes at question {k}");
    }
}

/// Cell tests that read another mover (`cell ahead has bot`), compiled
/// for the kernels' packed states, hold exactly where the interpreter's
/// evaluation says, on every state reached of random maps (a piece's test
/// covers each of its cells).
#[test]
fn compiled_cell_tests_hold_where_the_interpreters_do() {
    let mut rng = SmallRng::seed_from_u64(0xce11);
    let rules = "input { cases until eof  header n rows cols  grid rows x cols }\n\
         tiles { floor '.'  wall '#' solid }\n\
         agent bot[n] '1'.. on floor\n\
         piece block 'B' on floor\n\
         move all: east if cell ahead has bot or cell beyond has block, \
                   north if cell (1, -1) has bot, south if not cell beyond has bot, \
                   west if cell (0, -2) has block\n\
         goal any bot on floor\n";
    let (mut checked, mut held) = (0, 0);
    for _ in 0..60 {
        let n = rng.gen_range(1..=3);
        let (h, w) = (rng.gen_range(2..=5), rng.gen_range(3..=6));
        let mut g = common::random_grid(&mut rng, h, w, |r| b"...#"[r.gen_range(0..4)]);
        // A block of two cells, where it fits.
        let r = rng.gen_range(0..h);
        let c = rng.gen_range(0..w - 1);
        g[r][c] = b'B';
        g[r][c + 1] = b'B';
        let cells: Vec<(usize, usize)> = common::all_cells(&g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'.')
            .collect();
        if cells.len() < n {
            continue;
        }
        let starts: Vec<u8> = (0..n as u8).map(|i| b'1' + i).collect();
        common::place(&mut rng, &mut g, cells, &starts);
        let input = common::case_text(&format!("{n} {h} {w}"), &g);
        let task = ground(rules, &input);
        let layout = Layout::new(&task);
        let generic = Kernel::<u64>::new(&task, &layout, KernelKind::Generic);
        let mut conds = puzzle::kernel::Conds::<u64>::new();
        let guards: Vec<_> = (0..task.actions().len())
            .map(|a| {
                let e = task
                    .action(puzzle::task::ActionId(a as u32))
                    .guard()
                    .clone();
                (conds.compile(&e, &task, &layout), e)
            })
            .collect();
        let mut seen: HashSet<u64> = generic.starts().iter().copied().collect();
        let mut queue: Vec<u64> = seen.iter().copied().collect();
        let mut vals = vec![0i64; task.vars().len()];
        while let Some(s) = queue.pop() {
            layout.decode(s, &mut vals);
            for (c, e) in &guards {
                let want = task.eval(e, &vals);
                assert_eq!(conds.holds(*c, s), want, "{e:?} on {vals:?}\n{input}");
                checked += 1;
                held += usize::from(want);
            }
            for (t, _) in successors(&generic, s) {
                if seen.insert(t) {
                    queue.push(t);
                }
            }
        }
    }
    assert!(
        checked > 2000 && held > 200,
        "{checked} checked, {held} held"
    );
}

/// Tasks that read the time: per value of the clock, the kernel of the
/// task at that time, the clock set to its next value on each successor,
/// gives the interpreter's successors. Doors open on some minutes, moves
/// made on some, facts derived on some; steps and slides, in turn and at
/// once, with `stay` (a step that only moves the time on).
#[test]
fn kernels_per_value_of_the_clock_give_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0xc10c);
    let mut compared = HashSet::new();
    for round in 0..160 {
        let at_once = round % 4 == 1;
        let slides = round % 4 == 3;
        let n = rng.gen_range(1..=if at_once { 2 } else { 3 });
        let k = rng.gen_range(2..=4);
        let mut moves = if slides {
            "slide north, slide east, south, west".to_string()
        } else {
            dirs(&mut rng, at_once)
        };
        // (The slide kernel takes no conditions on moves, and no `stay`.)
        if !slides && rng.gen_bool(0.5) {
            moves.push_str(&format!(", (-2, 0) if steps % {k} != 1"));
        }
        if !slides && !moves.contains("stay") && (rng.gen_bool(0.5) || !at_once) {
            moves.push_str(", stay");
        }
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  door 'D'  pad 'P'  {} }}\n\
             agent bot[n] '1'.. on floor\n\
             flag rested\n\
             move all {}: {moves}\n\
             enter door only if steps % {k} == {}\n",
            if slides { "ice 'i' slippery" } else { "" },
            if at_once { "at once" } else { "in turn" },
            rng.gen_range(0..k),
        );
        if rng.gen_bool(0.4) {
            rules.push_str("when bot on pad if steps % 2 == 0: set rested\n");
        }
        if slides || rng.gen_bool(0.5) {
            rules.push_str("forbid same cell\n");
        }
        rules.push_str("goal every bot on pad and steps % 3 == 0\n");
        let size = (rng.gen_range(1..=5), rng.gen_range(2..=6));
        let tiles: &[u8] = if slides { b"..#DPii" } else { b"...#DDP" };
        let Some((input, task)) = random_map(&mut rng, &rules, n, size, tiles) else {
            continue;
        };
        assert!(task.clock().is_some(), "{rules}");
        for kind in compare(&task, 3000, &format!("{rules}\n{input}")) {
            compared.insert(format!("{kind:?}"));
        }
    }
    all_compared(&compared, &["Lone", "InTurn", "AtOnce", "Slides"]);
}

/// Where only `forbid` reads the time, and the clock keeps more values
/// than a kernel per value would be made for (a hazard that spreads, a
/// pad that closes for good), the kernel of the task without the time,
/// each successor given the clock's next value and left out where
/// `forbid` then holds, gives the interpreter's successors. Steps and
/// slides, one agent (a field read with the time) or several (in turn and
/// at once), with parts of `forbid` that do not read the time, and goals
/// that do.
#[test]
fn kernels_where_only_forbid_reads_the_time_give_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0xf17e);
    let mut compared = HashSet::new();
    let mut untimed = 0;
    for round in 0..200 {
        let lone = round % 3 == 0;
        let at_once = round % 3 == 1;
        let slides = round % 4 == 3 && !at_once;
        let n = if lone { 1 } else { rng.gen_range(1..=2) };
        let (who, any) = if lone {
            ("joe", "joe")
        } else {
            ("all", "any bot")
        };
        let mut moves = if slides {
            "slide north, slide east, south, west".to_string()
        } else {
            dirs(&mut rng, at_once)
        };
        if !slides && !at_once && !moves.contains("stay") && rng.gen_bool(0.5) {
            moves.push_str(", stay");
        }
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  lava 'L'  pad 'P'  {} }}\n\
             {}\n\
             move {who}{}: {moves}\n\
             field heat = distance from lava through floor, pad\n",
            if slides { "ice 'i' slippery" } else { "" },
            if lone {
                "agent joe '1' on floor"
            } else {
                "agent bot[n] '1'.. on floor"
            },
            match (lone, at_once) {
                (true, _) => "",
                (false, true) => " at once",
                (false, false) => " in turn",
            },
        );
        let k = rng.gen_range(14..=22);
        if lone {
            rules.push_str(&format!(
                "forbid heat(joe) + {k} <= steps and heat(joe) >= 0\n"
            ));
        }
        if !lone || rng.gen_bool(0.5) {
            rules.push_str(&format!("forbid {any} on pad and steps >= {}\n", k + 3));
        }
        // A part that does not read the time (the slide kernel takes none).
        if !slides && rng.gen_bool(0.4) {
            rules.push_str(&format!("forbid {any} on lava\n"));
        }
        if !lone && rng.gen_bool(0.5) {
            rules.push_str("forbid same cell\n");
        }
        rules.push_str(&format!(
            "goal {any} on pad{}\n",
            if rng.gen_bool(0.5) {
                " and steps % 2 == 0"
            } else {
                ""
            }
        ));
        let size = (rng.gen_range(2..=5), rng.gen_range(2..=6));
        let tiles: &[u8] = if slides { b"..#LPii" } else { b"....#LP" };
        let Some((input, task)) = random_map(&mut rng, &rules, n, size, tiles) else {
            continue;
        };
        let Some(c) = task.clock() else { continue };
        if task.var(c).size() <= puzzle::task::MAX_PHASES {
            continue;
        }
        assert!(task.untimed().is_some(), "{rules}");
        untimed += 1;
        for kind in compare(&task, 3000, &format!("{rules}\n{input}")) {
            compared.insert(format!("{kind:?}"));
        }
    }
    assert!(untimed >= 100, "only {untimed} maps kept the time whole");
    all_compared(&compared, &["Lone", "InTurn", "AtOnce", "Slides"]);
}

/// One agent pushing one to three alike boxes: the push kernel gives the
/// interpreter's successors and costs. Steps by random sets of the eight
/// directions, with costs of their own, a tile that costs more to enter,
/// a one-way tile, pushes weighed apart or not, and goals that make
/// positions dead (no push brings a box from there) or not, or read the
/// time.
#[test]
fn the_push_kernel_gives_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0x9054);
    let mut compared = 0;
    for round in 0..300 {
        let boxes = rng.gen_range(1..=3);
        let mut moves: Vec<String> = Vec::new();
        for d in &DIRS[..8] {
            if d == &"north" || rng.gen_bool(0.6) {
                moves.push(match rng.gen_range(0..4) {
                    0 => format!("{d} costs {}", rng.gen_range(1..=3)),
                    _ => d.to_string(),
                });
            }
        }
        let mut rules = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  spot 'T'  mud 'm'  oneway 'o' }}\n\
             agent keeper '1' on floor\n\
             object box 'B' on floor\n\
             move keeper: {}\n\
             enter oneway only if moving east or moving south\n",
            moves.join(", ")
        );
        if rng.gen_bool(0.5) {
            rules.push_str(&format!("enter mud costs {}\n", rng.gen_range(2..=4)));
        }
        if round % 3 == 0 {
            rules.push_str(&format!("push box costs {}\n", rng.gen_range(1..=5)));
        }
        rules.push_str(match round % 4 {
            0 | 1 => "goal every spot has box",
            2 => "goal any box on spot",
            _ => "goal keeper on spot",
        });
        // A goal that reads the time: the push kernel per value of the
        // clock, each successor given the clock's next value.
        rules.push_str(if round % 5 == 4 {
            " and steps % 2 == 0\n"
        } else {
            "\n"
        });
        let (h, w) = (rng.gen_range(2..=6), rng.gen_range(2..=6));
        let mut g = common::random_grid(&mut rng, h, w, |r| b"....#Tmo"[r.gen_range(0..8)]);
        let cells = common::all_cells(&g);
        if cells.len() < boxes + 1 {
            continue;
        }
        let marks: Vec<u8> = std::iter::once(b'1')
            .chain(std::iter::repeat_n(b'B', boxes))
            .collect();
        common::place(&mut rng, &mut g, cells, &marks);
        let input = common::case_text(&format!("1 {h} {w}"), &g);
        // (A map with no spot, or too few, is reported: not a case here.)
        let Some(task) = try_ground(&rules, &input) else {
            continue;
        };
        let kinds = compare(&task, 4000, &format!("{rules}\n{input}"));
        assert_eq!(kinds, [KernelKind::Pushes], "{rules}\n{input}");
        compared += 1;
    }
    assert!(compared >= 200, "only {compared} maps compared");
}

/// A random connected shape of one to three cells, `(0, 0)` among them.
fn random_pose(rng: &mut SmallRng) -> Vec<(i32, i32)> {
    let mut cells = vec![(0, 0)];
    for _ in 0..rng.gen_range(0..=2) {
        let (r, c) = cells[rng.gen_range(0..cells.len())];
        let d = [(0, 1), (1, 0), (0, -1), (-1, 0)][rng.gen_range(0..4)];
        let next = (r + d.0, c + d.1);
        if !cells.contains(&next) {
            cells.push(next);
        }
    }
    cells.sort_unstable();
    cells
}

/// A rule file of one piece with two or three random poses, moved by
/// random tables (shifts of up to two cells, a turn that goes no way),
/// some moves on conditions of the cells around it, with entry conditions
/// and flags set by the cells it comes to cover and by its moves.
fn posed_rules(rng: &mut SmallRng) -> (String, Vec<Vec<(i32, i32)>>) {
    let mut poses: Vec<Vec<(i32, i32)>> = Vec::new();
    while poses.len() < rng.gen_range(2..=3) {
        let p = random_pose(rng);
        // Poses of their own (two laid out alike start as the first).
        if !poses.contains(&p) {
            poses.push(p);
        }
    }
    let show = |p: &[(i32, i32)]| {
        p.iter()
            .map(|(r, c)| format!("({r}, {c})"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let names = ["a", "b", "c"];
    let mut moves = Vec::new();
    for name in ["north", "east", "south", "west", "turn right"] {
        if rng.gen_bool(0.2) {
            continue;
        }
        let rows: Vec<String> = (0..poses.len())
            .map(|k| {
                let to = rng.gen_range(0..poses.len());
                let (dr, dc) = (rng.gen_range(-2..=2), rng.gen_range(-2..=2));
                format!("{} -> {} ({dr}, {dc})", names[k], names[to])
            })
            .collect();
        let guard = match rng.gen_range(0..4) {
            0 => format!(" if not cell ({}, {}) is wall", rng.gen_range(-1..=1), 1),
            1 => " if cell here is floor or cell (1, 0) is gap".to_string(),
            _ => String::new(),
        };
        moves.push(format!("{name} {{ {} }}{guard}", rows.join(", ")));
    }
    if moves.is_empty() {
        let rows: Vec<String> = (0..poses.len())
            .map(|k| format!("{} -> {} (0, 1)", names[k], names[k]))
            .collect();
        moves.push(format!("east {{ {} }}", rows.join(", ")));
    }
    let decl: Vec<String> = (poses.iter().enumerate())
        .map(|(k, p)| format!("{} {}", names[k], show(p)))
        .collect();
    let mut rules = format!(
        "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
         tiles {{ floor '.'  wall '#' solid  hole 'O'  switch 's'  gap 'g'  bell 'q' }}\n\
         piece block 'B' on floor\n\
         poses block {{ {} }}\n\
         flag down\nflag rung\n\
         move block:\n  {}\n\
         goal block on hole and block is a\n",
        decl.join("  "),
        moves.join(",\n  ")
    );
    match rng.gen_range(0..4) {
        0 => rules.push_str("on enter switch: toggle down\nenter gap only if down\n"),
        1 => rules.push_str("on enter bell: set rung\nenter gap only if not rung\n"),
        2 => rules.push_str("on block north: toggle down\nenter switch only if down\n"),
        _ => {}
    }
    (rules, poses)
}

/// Pieces with poses (`poses`) moved by their tables: the pose kernel,
/// which reads the cells a move comes to cover on the padded grid, gives
/// the interpreter's successors on random poses, tables, conditions and
/// rules, on small maps and on large ones (whose positions are the padded
/// grid's).
#[test]
fn the_pose_kernel_gives_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0x9053);
    let (mut compared, mut large) = (0, 0);
    for round in 0..500 {
        let (rules, poses) = posed_rules(&mut rng);
        let big = round % 100 == 99;
        let size = if big {
            (600, 600)
        } else {
            (rng.gen_range(3..=7), rng.gen_range(3..=8))
        };
        let tiles: &[u8] = if big {
            b"...............#sgq"
        } else {
            b"......##sgqO"
        };
        let mut g = common::random_grid(&mut rng, size.0, size.1, |r| {
            tiles[r.gen_range(0..tiles.len())]
        });
        // The piece in a random pose somewhere it fits on the map.
        let pose = &poses[rng.gen_range(0..poses.len())];
        let (r, c) = (rng.gen_range(0..size.0), rng.gen_range(0..size.1));
        let cells: Option<Vec<(usize, usize)>> = (pose.iter())
            .map(|&(dr, dc)| {
                let (r, c) = (r as i32 + dr, c as i32 + dc);
                (r >= 0 && c >= 0 && (r as usize) < size.0 && (c as usize) < size.1)
                    .then_some((r as usize, c as usize))
            })
            .collect();
        let Some(cells) = cells else { continue };
        for &(r, c) in &cells {
            g[r][c] = b'B';
        }
        let input = common::case_text(&format!("{} {}", size.0, size.1), &g);
        let task = ground(&rules, &input);
        let what = if big {
            format!("{rules}\n(a large map)")
        } else {
            format!("{rules}\n{input}")
        };
        if compare(&task, 3000, &what).contains(&KernelKind::Poses) {
            compared += 1;
            large += usize::from(big);
        }
    }
    assert!(
        compared > 300 && large >= 3,
        "the pose kernel was compared on {compared} maps, {large} large"
    );
}

/// Movers by themselves (`by itself`): an agent in turn and one to three
/// chasers (alike, or one of its own) with random preferences on the
/// rows and columns between them, a `stay` among them at times, moving
/// once or twice a step, with `forbid` on meeting and at times `forbid
/// same cell`; the script kernel gives the interpreter's successors.
#[test]
fn the_script_kernel_gives_the_interpreters_successors() {
    let mut rng = SmallRng::seed_from_u64(0x5c1d);
    let (mut compared, mut tabled) = (0, 0);
    let dirs = puzzle::ast::COMPASS_WORDS;
    let tests = [
        "row of hero < its row",
        "row of hero > its row",
        "column of hero < its column",
        "column of hero > its column",
        "row of hero == its row",
    ];
    for round in 0..500 {
        let hero: Vec<&str> = (dirs.iter().copied().chain(["stay"]))
            .filter(|_| rng.gen_bool(0.6))
            .collect();
        let hero = if hero.is_empty() { vec!["east"] } else { hero };
        // Distinct ways, in a random order.
        let mut ways = dirs;
        for i in (1..ways.len()).rev() {
            ways.swap(i, rng.gen_range(0..=i));
        }
        let mut prefs = Vec::new();
        for &d in &ways[..rng.gen_range(1..=8)] {
            let a = tests[rng.gen_range(0..tests.len())];
            let guard = match rng.gen_range(0..4) {
                0 => format!("{a} and {}", tests[rng.gen_range(0..tests.len())]),
                1 => format!("not {a} or {}", tests[rng.gen_range(0..tests.len())]),
                _ => a.to_string(),
            };
            prefs.push(format!("{d} if {guard}"));
        }
        if rng.gen_bool(0.2) {
            prefs.insert(rng.gen_range(0..prefs.len()), "stay".to_string());
        }
        let alike = round % 2 == 0;
        let times = rng.gen_range(1..=2);
        let mut rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  exit 'E' }}\n\
             agent hero 'H' on floor\n\
             agent ghost {}'G' on floor\n\
             move hero: {}\n\
             move ghost by itself {times} times:\n  {}\n\
             forbid any ghost at hero and not hero on exit\n\
             goal hero on exit\n",
            if alike { "every " } else { "" },
            hero.join(" "),
            prefs.join(",\n  ")
        );
        if rng.gen_bool(0.3) {
            rules.push_str("forbid same cell\n");
        }
        let size = (rng.gen_range(3..=7), rng.gen_range(3..=8));
        let mut g =
            common::random_grid(&mut rng, size.0, size.1, |r| b"......#E"[r.gen_range(0..8)]);
        let cells = common::all_cells(&g);
        let marks: &[u8] = if alike {
            &b"HGGG"[..rng.gen_range(2..=4)]
        } else {
            b"HG"
        };
        if cells.len() < marks.len() {
            continue;
        }
        common::place(&mut rng, &mut g, cells, marks);
        let input = common::case_text(&format!("{} {}", size.0, size.1), &g);
        let task = ground(&rules, &input);
        if compare(&task, 3000, &format!("{rules}\n{input}")).contains(&KernelKind::Script) {
            compared += 1;
            tabled += usize::from(prefs.len() >= 4);
        }
    }
    assert!(
        compared > 400 && tabled > 150,
        "the script kernel was compared on {compared} maps, {tabled} with four preferences or more"
    );
}
