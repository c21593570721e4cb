//! Seeded mutation testing: rule files and inputs derived from every
//! shipped puzzle and sample by small random edits (characters, tokens of
//! the seeds spliced in whole, numbers at the edges of what the engine
//! holds in every numeric slot, lines) go through
//! `check` (load) and `run`, rotating through the strategies and one and two
//! threads, each case within a budget of states and time. None may panic
//! or hang (a run may take at most a few seconds more than its cases'
//! limits allow), and every failure must be a diagnostic with a stable
//! code.
//!
//! Beside the mutants, rule files written from the language's grammar
//! (not derived from a seed) are loaded and run on random maps under every
//! strategy: they answer alike, or a limit stops them, or the map is
//! refused with a located report.
//!
//! The long mode is the fuzzer: `PUZZLE_FUZZ=N cargo test --release --test
//! mutation` runs N mutants a side and 5,000 written rule files (and
//! `PUZZLE_FUZZ_SEED=S` another seed).

use crate::common;
use miette::Diagnostic;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Every shipped puzzle with a sample beside it: the fuzzer's seeds.
fn puzzles() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(common::root().join("puzzles"))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let stem = p.file_stem()?.to_str()?.to_string();
            (p.extension()? == "puz" && p.with_extension("in").exists()).then_some(stem)
        })
        .collect();
    v.sort();
    v
}

/// Small inputs for each puzzle, so that a run stays fast even when the
/// mutated rules make the search larger.
fn small_input(puzzle: &str) -> String {
    let full = common::read(&common::root().join("puzzles").join(format!("{puzzle}.in")));
    match puzzle {
        // The first two datasets of the sample, without the large third.
        "halloween" => {
            let lines: Vec<&str> = full.lines().collect();
            format!("{}\n0 0 0\n", lines[..11].join("\n"))
        }
        // Two boards, one solved: mutants that keep them stay fast.
        "eight" => "2\n1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 0 7 8\n".into(),
        _ => full,
    }
}

/// Tokens that often matter to the grammar and the reader.
const TOKENS: &[&str] = &[
    "{",
    "}",
    ":",
    "'",
    "\"",
    "[",
    "]",
    "(",
    ")",
    ",",
    "..",
    "=",
    "#",
    " ",
    "\n",
    "0",
    "1",
    "-1",
    "99999",
    "on",
    "of",
    "all",
    "moving",
    "moving north",
    "moves",
    "moves m = (2, 1) east",
    "(-2, 1)",
    "slide (1, 2)",
    "if cell ahead is wall",
    "cell here",
    "cell (1, -1) has",
    "beyond",
    "carry",
    "carry floor east",
    "at once",
    "in turn",
    "together",
    "optional",
    "border",
    "rim '=' border",
    "by itself",
    "by itself 2 times",
    "move x by itself: east if column of x < its column",
    "row of",
    "its column",
    "column of hero > 1",
    "forbid row of hero == 1",
    "every 'q'",
    "any x at hero",
    "hero at x",
    "poses",
    "north { a -> a (0, 1) }",
    "hero is up",
    "follows hero",
    "agent tail every 't' on floor follows hero",
    "solid",
    "opaque",
    "every",
    "any",
    "not",
    "and",
    "or",
    "set",
    "toggle",
    "clear",
    "goal",
    "limit steps <= 2",
    "agent x 'q' on floor",
    "flag f",
    "stay",
    "'a'..",
    "{steps}",
    "{case}",
    "target",
    "when",
    "sees",
    "X",
    "*",
    "S",
    "D",
    "a",
    "A",
    "B",
    "counter c 0..3",
    "counter k[key] 0..2 wrap = 1",
    "+= 1",
    "-= 2",
    "= 0",
    "== 1",
    "> 0",
    "facing north",
    "forward",
    "back",
    "turn left",
    "costs 2",
    "any",
    "at (0, 0)",
    "at (r - 1, 99)",
    "fill '.'",
    "fill \"0\"",
    "tokens",
    "list",
    "layout l { \"1 2\" \"3 0\" }",
    "target in solved",
    "if",
    "count(floor)",
    "separator \"\"",
    "{cost}",
    "{t - 1}",
    "/ 0",
    "\"1\"..",
    "limit cost < 3",
    "minimise a then b",
    "minimize time then coins then c",
    "then",
    "costs 1 a + 2 b",
    "costs 0 a",
    "push x costs 1 b",
    "'n'",
    "'n' pushing 'N'",
    "pushing",
    "{path}",
    "{a}",
    "joiner \" \"",
    "joiner \"{case}\"",
    "records 2 '#' row col from 1",
    "records n 'x' col row from 0",
    "records",
    "row col",
    "col row",
    "from 1",
    "of '.'",
    "of \"0\"",
    "field f = distance from wall",
    "field g = distance from floor through floor, wall by north northeast else -5",
    "field",
    "distance from",
    "through",
    "else 99",
    "else 0 / 0",
    "f(hero) <= steps",
    "g(me) > 2",
    "f(x)",
];

/// Numbers at the edges of what the engine holds, for numeric slots.
const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "4611686018427387904",
    "4611686018427387905",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "99999999999999999999999",
    "1000000",
];

/// One random edit of `text`; `words` are tokens of every seed, spliced in
/// whole so that a mutant gets past the parser more often than a random
/// character would let it.
fn mutate(rng: &mut SmallRng, text: &str, words: &[String]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let n = chars.len().max(1);
    match rng.gen_range(0..10) {
        7 | 8 => {
            // A number at an edge, in place of a number of the text: every
            // numeric slot (sizes, ranges, costs, limits, headers, cells).
            let spans = number_spans(text);
            if !spans.is_empty() {
                let (a, b) = spans[rng.gen_range(0..spans.len())];
                let x = EXTREMES[rng.gen_range(0..EXTREMES.len())];
                return format!("{}{x}{}", &text[..a], &text[b..]);
            }
        }
        9 => {
            // A valid token of some seed, at a token boundary.
            let cuts: Vec<usize> = text
                .char_indices()
                .filter(|&(_, c)| c.is_whitespace())
                .map(|(i, _)| i)
                .collect();
            if !cuts.is_empty() && !words.is_empty() {
                let at = cuts[rng.gen_range(0..cuts.len())];
                let w = &words[rng.gen_range(0..words.len())];
                return format!("{} {w}{}", &text[..at], &text[at..]);
            }
        }
        _ => {}
    }
    match rng.gen_range(0..7) {
        0 if !chars.is_empty() => {
            // Delete a span.
            let i = rng.gen_range(0..chars.len());
            let len = rng.gen_range(1..=8).min(chars.len() - i);
            chars.drain(i..i + len);
        }
        1 => {
            // Insert a token.
            let i = rng.gen_range(0..=chars.len());
            let t = TOKENS[rng.gen_range(0..TOKENS.len())];
            chars.splice(i..i, t.chars());
        }
        2 if !chars.is_empty() => {
            // Replace one character with a random printable one.
            let i = rng.gen_range(0..chars.len());
            chars[i] = rng.gen_range(b' '..=b'~') as char;
        }
        3 => {
            // Duplicate or drop a whole line.
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = rng.gen_range(0..lines.len());
                if rng.gen_bool(0.5) {
                    lines.insert(i, lines[i]);
                } else {
                    lines.remove(i);
                }
            }
            return lines.join("\n") + "\n";
        }
        4 => {
            // Swap two lines.
            let mut lines: Vec<&str> = text.lines().collect();
            if lines.len() > 1 {
                let (i, j) = (rng.gen_range(0..lines.len()), rng.gen_range(0..lines.len()));
                lines.swap(i, j);
            }
            return lines.join("\n") + "\n";
        }
        5 => {
            // Replace a word with another word of the same text.
            let words: Vec<&str> = text.split_whitespace().collect();
            if words.len() > 1 {
                let a = words[rng.gen_range(0..words.len())];
                let b = words[rng.gen_range(0..words.len())];
                return text.replacen(a, b, 1);
            }
        }
        _ => {
            // Truncate.
            chars.truncate(rng.gen_range(0..n));
        }
    }
    chars.into_iter().collect()
}

/// The byte spans of the numbers in `text` (digits, with a minus sign
/// before them).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            let mut j = i;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            v.push((start, j));
            i = j;
        } else {
            i += 1;
        }
    }
    v
}

/// Every diagnostic of a failure has a code and renders to some text.
fn assert_diagnostic(d: &dyn Diagnostic, what: &str) {
    let related: Vec<&dyn Diagnostic> = d.related().map(|r| r.collect()).unwrap_or_default();
    assert!(!related.is_empty(), "{what}: a failure with no diagnostic");
    for r in related {
        assert!(
            r.code().is_some(),
            "{what}: a diagnostic without a code: {r}"
        );
    }
    assert!(!puzzle::error::render(d).is_empty());
}

/// Each case's time limit, and how much longer than the limits a run may
/// take before it counts as a hang.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
const SLACK: std::time::Duration = std::time::Duration::from_secs(5);

fn run_guarded(label: &str, rules: &str, input: &str, turn: usize) -> bool {
    let configs = common::configs();
    let opts = puzzle::run::Options {
        search: configs[turn % configs.len()],
        // Mutants may make searches large: a budget keeps each one short.
        limits: puzzle::budget::Limits {
            max_states: Some(200_000),
            // Numbers at the edges make maps of billions of cells: they
            // must stop cleanly, not take the machine.
            max_memory: Some(3 << 30),
            timeout: Some(TIMEOUT),
        },
        ..Default::default()
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let loaded = match puzzle::load("mutant.puz", rules) {
            Ok(l) => l,
            Err(e) => {
                assert_diagnostic(&e, "load");
                return false;
            }
        };
        let mut out = Vec::new();
        let start = std::time::Instant::now();
        match puzzle::run(&loaded.rules, "input", input, &opts, &mut out) {
            Ok(summary) => {
                // Every case ends within its budget: one that a limit
                // stopped soon after the time limit, the others sooner.
                let allowed = TIMEOUT * (summary.stopped as u32 + 1) + SLACK;
                let took = start.elapsed();
                assert!(took < allowed, "{label}: took {took:?}, over {allowed:?}");
                true
            }
            Err(puzzle::RunError::Input(e)) => {
                assert_diagnostic(&e, "run");
                false
            }
            Err(e) => panic!("unexpected failure: {e}"),
        }
    }));
    match outcome {
        Ok(ran) => ran,
        Err(_) => panic!("{label}: panicked on\n--- rules ---\n{rules}\n--- input ---\n{input}"),
    }
}

/// How many mutants a side: 4,000 in `cargo test` (a short run), or
/// `PUZZLE_FUZZ` (the fuzzer: a million executions is 500,000 a side).
fn mutants() -> usize {
    std::env::var("PUZZLE_FUZZ")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4_000)
}

/// Runs mutants of the rule files (`rules_side`) or of the inputs, and
/// returns how many there were and how many of them still ran.
fn fuzz(seed: u64, rules_side: bool) -> (usize, usize) {
    let seed = std::env::var("PUZZLE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map_or(seed, |s| seed ^ s);
    let mut rng = SmallRng::seed_from_u64(seed);
    let seeds: Vec<(String, String)> = puzzles()
        .iter()
        .map(|p| {
            (
                common::read(&common::root().join("puzzles").join(format!("{p}.puz"))),
                small_input(p),
            )
        })
        .collect();
    // The tokens of every seed of this side, spliced into the others.
    let mut words: Vec<String> = seeds
        .iter()
        .flat_map(|(r, i)| if rules_side { r } else { i }.split_whitespace())
        .map(String::from)
        .collect();
    words.sort();
    words.dedup();
    let (mut total, mut ran) = (0, 0);
    for i in 0..mutants() {
        let (rules, input) = &seeds[i % seeds.len()];
        let original = if rules_side { rules } else { input };
        let mut m = mutate(&mut rng, original, &words);
        for _ in 0..rng.gen_range(0..3) {
            m = mutate(&mut rng, &m, &words);
        }
        ran += if rules_side {
            run_guarded("rules", &m, input, i)
        } else {
            run_guarded("input", rules, &m, i)
        } as usize;
        total += 1;
    }
    (total, ran)
}

#[test]
fn mutated_rule_files_never_panic() {
    let (total, ran) = fuzz(0x00c0_ffee, true);
    eprintln!("{total} mutated rule files, {ran} of them still ran");
    assert!(
        ran > 0 && ran < total,
        "mutations should both break and keep rule files"
    );
}

#[test]
fn mutated_inputs_never_panic() {
    let (total, ran) = fuzz(0x0bad_1dea, false);
    eprintln!("{total} mutated inputs, {ran} of them still ran");
    assert!(
        ran > 0 && ran < total,
        "mutations should both break and keep inputs"
    );
}

/// A random rule file written from the language's grammar: tiles with
/// properties and parameters, one agent or a family (with targets and a
/// heading, or not), objects, flags and counters, moves of every kind
/// with costs, `forbid`, `enter` conditions and costs, `on` and `when`
/// rules, goals combined with `and`, `or` and `not`, a limit. Most are
/// valid; some are not (a slide at once, a push by agents at once, a
/// heading's moves without a heading), which `check` must report.
struct Written {
    rules: String,
    /// Map symbols a cell may hold, and the markers placed once each.
    ground: Vec<u8>,
    markers: Vec<u8>,
    /// Teleport ends, placed in pairs.
    pairs: Vec<u8>,
}

fn pick<'a, T>(rng: &mut SmallRng, items: &'a [T]) -> &'a T {
    &items[rng.gen_range(0..items.len())]
}

fn write_rules(rng: &mut SmallRng) -> Written {
    let mut r = String::from("input { cases until eof  header rows cols  grid rows x cols }\n");
    let colours = rng.gen_bool(0.5);
    if colours {
        r.push_str("domain colour = red blue\n");
    }
    let mut ground = vec![b'.', b'.', b'.', b'#'];
    let mut tiles = vec!["floor '.'".to_string(), "wall '#' solid".to_string()];
    let mut names: Vec<&str> = vec!["floor", "wall"];
    let optional: [(&str, &str, &[u8]); 9] = [
        ("ice", "'~' slippery", b"~"),
        ("rim", "'=' border", b""),
        ("belt", "'>'", b">"),
        ("snow", "'_' stops", b"_"),
        ("pad", "'P'", b"P"),
        ("exit", "'E'", b"E"),
        ("swamp", "'S'", b"S"),
        ("lamp", "'L' solid opaque", b"L"),
        ("portal", "'o'", b""),
    ];
    let mut pairs = Vec::new();
    for (name, rest, syms) in optional {
        if rng.gen_bool(0.45) {
            tiles.push(format!("{name} {rest}"));
            names.push(name);
            ground.extend_from_slice(syms);
            if name == "portal" {
                pairs.push(b'o');
            }
        }
    }
    if colours {
        tiles.push("key 'k' 'm' of colour".into());
        tiles.push("door 'K' 'M' of colour".into());
        names.extend(["key", "door"]);
        ground.extend_from_slice(b"kmKM");
    }
    r.push_str(&format!("tiles {{ {} }}\n", tiles.join("  ")));
    let family = rng.gen_range(0..3usize);
    let targets = family > 0 && rng.gen_bool(0.6);
    let facing = family == 0 && rng.gen_bool(0.25);
    let mut markers = Vec::new();
    let who = if family == 0 {
        r.push_str(&format!(
            "agent hero '@' on floor{}\n",
            if facing { " facing north" } else { "" }
        ));
        markers.push(b'@');
        "hero".to_string()
    } else {
        let n = family + 1;
        r.push_str(&format!(
            "agent bot[{n}] '1'..{} on floor\n",
            if targets { " target 'A'.." } else { "" }
        ));
        for i in 0..n as u8 {
            markers.push(b'1' + i);
            if targets {
                markers.push(b'A' + i);
            }
        }
        if rng.gen_bool(0.5) { "all" } else { "bot" }.to_string()
    };
    let objects = rng.gen_bool(0.3);
    if objects {
        r.push_str("object box '$' on floor\n");
        markers.push(b'$');
        if rng.gen_bool(0.3) {
            r.push_str(&format!("push box costs {}\n", rng.gen_range(1..4)));
        }
    }
    let counter = rng.gen_bool(0.5);
    // Some flag or counter for conditions to read.
    let lit = rng.gen_bool(0.6) || !(colours || counter);
    if lit {
        r.push_str("flag lit\n");
    }
    if colours {
        r.push_str("flag have[colour]\n");
    }
    let top = rng.gen_range(1..5);
    if counter {
        let wrap = if rng.gen_bool(0.3) { " wrap" } else { "" };
        let start = if rng.gen_bool(0.3) {
            format!(" = {}", top)
        } else {
            String::new()
        };
        r.push_str(&format!("counter c 0..{top}{wrap}{start}\n"));
    }
    // Moves.
    let at_once = family > 0 && rng.gen_bool(0.4);
    let mode = match (family, at_once) {
        (0, _) => "",
        (_, true) if rng.gen_bool(0.3) => " together",
        (_, true) => " at once",
        (_, false) => {
            if rng.gen_bool(0.5) {
                " in turn"
            } else {
                ""
            }
        }
    };
    let mut moves: Vec<String> = Vec::new();
    let dirs = [
        "north",
        "east",
        "south",
        "west",
        "northeast",
        "southwest",
        "stay",
    ];
    for d in dirs {
        if rng.gen_bool(if d.len() <= 5 { 0.8 } else { 0.2 }) {
            moves.push(d.to_string());
        }
    }
    if rng.gen_bool(0.25) {
        moves.push(format!("slide {}", pick(rng, &dirs[..4])));
    }
    // Leaps, sometimes sliding, sometimes through a set of moves.
    if rng.gen_bool(0.2) {
        let leap = pick(rng, &["(2, 1)", "(-1, 2)", "(0, -2)", "(3, 3)"]).to_string();
        let leap = if rng.gen_bool(0.2) {
            format!("slide {leap}")
        } else {
            leap
        };
        if rng.gen_bool(0.5) {
            r.push_str(&format!("moves leaps = {leap} (-2, 0)\n"));
            moves.push("leaps".into());
        } else {
            moves.push(leap);
        }
    }
    if facing || rng.gen_bool(0.05) {
        moves.extend(["forward".into(), "turn left".into(), "turn right".into()]);
    }
    if moves.is_empty() {
        moves.push("east".into());
    }
    for m in moves.iter_mut() {
        // Conditions on the cells around the mover, and on the state.
        if rng.gen_bool(0.1) {
            let tile = pick(rng, &names).to_string();
            let guard = match rng.gen_range(0..4) {
                0 => format!("cell here is {tile}"),
                1 => format!("not cell ahead is {tile}"),
                2 => format!("cell (1, -1) is {tile} or cell beyond is {tile}"),
                _ => format!("not cell ahead has {who}"),
            };
            m.push_str(&format!(" if {guard}"));
        }
        if rng.gen_bool(0.15) {
            m.push_str(&format!(" costs {}", rng.gen_range(1..4)));
        }
    }
    // Agents move together only as `all`.
    let mover = if mode == " together" {
        "all"
    } else {
        who.as_str()
    };
    r.push_str(&format!("move {mover}{mode}: {}\n", moves.join(", ")));
    // A chaser that moves by itself after the hero's steps, columns first,
    // and sometimes may not be met.
    if family == 0 && !facing && rng.gen_bool(0.2) {
        r.push_str("agent chaser 'C' on floor\n");
        markers.push(b'C');
        r.push_str(&format!(
            "move chaser by itself {} times: east if column of hero > its column, \
             west if column of hero < its column, south if row of hero > its row, \
             north if row of hero < its row{}\n",
            rng.gen_range(1..3),
            if rng.gen_bool(0.3) { ", stay" } else { "" }
        ));
        if rng.gen_bool(0.6) {
            r.push_str("forbid chaser at hero\n");
        }
    }
    if family > 0 {
        if rng.gen_bool(0.5) {
            r.push_str("forbid same cell\n");
        }
        if rng.gen_bool(0.3) {
            r.push_str("forbid swap\n");
        }
    }
    if names.contains(&"belt") {
        let carry: &&str = pick(rng, &["carry belt east\n", "carry belt south\n", ""]);
        r.push_str(carry);
    }
    if names.contains(&"portal") {
        r.push_str(if rng.gen_bool(0.5) {
            "teleport portal\n"
        } else {
            "teleport portal optional\n"
        });
    }
    // A condition on the state, for `enter`, `if` and the goal.
    let cond = |rng: &mut SmallRng| -> String {
        let mut atoms: Vec<String> = Vec::new();
        if lit {
            atoms.push("lit".into());
        }
        if counter {
            let op = pick(rng, &["==", "!=", "<", "<=", ">", ">="]);
            atoms.push(format!("c {op} {}", rng.gen_range(0..=top)));
        }
        if colours {
            atoms.push("have[red]".into());
            atoms.push("any have".into());
        }
        // The time, through a period or a threshold.
        let k = rng.gen_range(2..=4);
        atoms.push(format!("steps % {k} == {}", rng.gen_range(0..k)));
        atoms.push(format!("steps + 1 > {}", rng.gen_range(0..6)));
        let a = pick(rng, &atoms).clone();
        match rng.gen_range(0..4) {
            0 => format!("not {a}"),
            1 => format!("({a} or {})", pick(rng, &atoms)),
            _ => a,
        }
    };
    for name in &names[2..] {
        match rng.gen_range(0..5) {
            0 => r.push_str(&format!("enter {name} only if {}\n", cond(rng))),
            1 => r.push_str(&format!("enter {name} costs {}\n", rng.gen_range(1..4))),
            2 => {
                // The way in: one direction, or one of two, or with the state.
                let d = *pick(rng, &dirs[..6]);
                let way = match rng.gen_range(0..3) {
                    0 => format!("moving {d}"),
                    1 => format!("moving {d} or moving {}", pick(rng, &dirs[..6])),
                    _ => format!("moving {d} and {}", cond(rng)),
                };
                r.push_str(&format!("enter {name} only if {way}\n"));
            }
            _ => {}
        }
    }
    if colours {
        r.push_str("enter door(?c) only if have[?c]\non enter key(?c): set have[?c]\n");
    }
    let effect = |rng: &mut SmallRng| -> String {
        let mut v = Vec::new();
        if lit {
            v.push(pick(rng, &["set lit", "clear lit", "toggle lit"]).to_string());
        }
        if counter {
            v.push(pick(rng, &["c += 1", "c -= 1", "c = 0"]).to_string());
        }
        v.join(", ")
    };
    for name in &names[2..] {
        if rng.gen_bool(0.4) {
            let e = effect(rng);
            if !e.is_empty() {
                let guard = match rng.gen_range(0..6) {
                    0 | 1 => format!(" if {}", cond(rng)),
                    2 => format!(" if moving {}", pick(rng, &dirs[..6])),
                    _ => String::new(),
                };
                // Whose entering: any mover's, or (where there are objects)
                // the object's alone.
                let who = if objects && rng.gen_bool(0.3) {
                    "box "
                } else {
                    ""
                };
                r.push_str(&format!("on {who}enter {name}{guard}: {e}\n"));
            }
        }
    }
    if rng.gen_bool(0.3) {
        let e = effect(rng);
        if !e.is_empty() {
            r.push_str(&format!(
                "on {}: {e}\n",
                moves[0].split(" costs").next().unwrap()
            ));
        }
    }
    if family == 0 && rng.gen_bool(0.3) {
        let e = effect(rng);
        let relation = if names.contains(&"lamp") && rng.gen_bool(0.5) {
            "sees lamp"
        } else {
            "on floor"
        };
        if !e.is_empty() {
            r.push_str(&format!("when hero {relation}: {e}\n"));
        }
    }
    // The goal.
    let mut goals: Vec<String> = Vec::new();
    let place = pick(
        rng,
        &names[2..]
            .iter()
            .copied()
            .chain(["floor"])
            .collect::<Vec<_>>(),
    )
    .to_string();
    if family == 0 {
        goals.push(format!("hero on {place}"));
        if facing {
            goals.push("hero facing south".into());
        }
        if rng.gen_bool(0.2) {
            goals.push(format!(
                "row of hero + column of hero > {}",
                rng.gen_range(0..6)
            ));
        }
    } else {
        goals.push(format!("any bot on {place}"));
        if targets {
            goals.push("every bot on its target".into());
        }
    }
    if objects {
        goals.push(format!("every box on {place}"));
    }
    goals.push(cond(rng));
    let mut goal = pick(rng, &goals).clone();
    if rng.gen_bool(0.5) {
        let op = pick(rng, &["and", "or"]);
        goal = format!("{goal} {op} {}", pick(rng, &goals));
    }
    r.push_str(&format!("goal {goal}\n"));
    if rng.gen_bool(0.3) {
        // Mostly `cost` where something costs (a limit on steps is then
        // reported), `steps` otherwise.
        let costs = r.contains("costs");
        let measure = if costs == rng.gen_bool(0.9) {
            "cost"
        } else {
            "steps"
        };
        r.push_str(&format!("limit {measure} <= {}\n", rng.gen_range(0..15)));
    }
    if rng.gen_bool(0.3) {
        r.push_str("output { solved \"{cost} {steps}\"  unsolved \"none\" }\n");
    }
    Written {
        rules: r,
        ground,
        markers,
        pairs,
    }
}

/// A random map for a written rule file: its ground symbols, each marker
/// once, teleport ends in pairs (now and then one alone).
fn write_map(rng: &mut SmallRng, w: &Written) -> String {
    let (h, wd) = (rng.gen_range(2..=5), rng.gen_range(3..=6));
    let mut g = common::random_grid(rng, h, wd, |r| w.ground[r.gen_range(0..w.ground.len())]);
    let mut cells = common::all_cells(&g);
    let mut marks = w.markers.clone();
    for &p in &w.pairs {
        let n = if rng.gen_bool(0.9) { 2 } else { 1 };
        marks.extend(std::iter::repeat_n(p, n));
    }
    if cells.len() < marks.len() {
        return write_map(rng, w);
    }
    // The markers on cells of their own, the rest left as drawn.
    use rand::seq::SliceRandom;
    cells.shuffle(rng);
    for (m, (r, c)) in marks.iter().zip(cells) {
        g[r][c] = *m;
    }
    common::case_text(&format!("{h} {wd}"), &g)
}

/// Rule files written from the grammar never make `check` panic; where one
/// loads, every strategy (on one thread and two) gives each random map the
/// same answer, or a limit stops it, or the map is refused with a located
/// report.
#[test]
fn rule_files_from_the_grammar_answer_alike_under_every_strategy() {
    let mut rng = SmallRng::seed_from_u64(0x06a4_a3a4);
    let (mut loaded_n, mut compared, mut refused) = (0, 0, 0);
    let files = if std::env::var("PUZZLE_FUZZ").is_ok() {
        5_000
    } else {
        300
    };
    for round in 0..files {
        let w = write_rules(&mut rng);
        let loaded = catch_unwind(|| puzzle::load("grammar.puz", &w.rules))
            .unwrap_or_else(|_| panic!("round {round}: check panicked on\n{}", w.rules));
        let loaded = match loaded {
            Ok(l) => l,
            Err(e) => {
                assert_diagnostic(&e, &format!("round {round}: load"));
                continue;
            }
        };
        loaded_n += 1;
        let mut input = String::new();
        for _ in 0..3 {
            input.push_str(&write_map(&mut rng, &w));
        }
        let mut reference: Option<(String, Vec<serde_json::Value>)> = None;
        for config in common::configs() {
            let opts = puzzle::run::Options {
                search: config,
                format: puzzle::run::Format::Json,
                limits: puzzle::budget::Limits {
                    max_states: Some(100_000),
                    max_memory: None,
                    timeout: Some(TIMEOUT),
                },
                ..Default::default()
            };
            let what = format!("round {round}, {config:?}\n{}\n{input}", w.rules);
            let mut out = Vec::new();
            let ran = catch_unwind(AssertUnwindSafe(|| {
                puzzle::run(&loaded.rules, "input", &input, &opts, &mut out)
            }))
            .unwrap_or_else(|_| panic!("{what}: run panicked"));
            match ran {
                Ok(_) => {}
                Err(puzzle::RunError::Input(e)) => {
                    // A map the rules cannot run on: a located report,
                    // the same under every strategy.
                    assert_diagnostic(&e, &what);
                    let located = e
                        .related()
                        .into_iter()
                        .flatten()
                        .all(|d| d.labels().is_some_and(|mut l| l.next().is_some()));
                    assert!(
                        located,
                        "{what}: a report with no place: {}",
                        puzzle::error::render(&e)
                    );
                    refused += 1;
                }
                Err(e) => panic!("{what}: {e}"),
            }
            let answers: Vec<serde_json::Value> = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let Some((first, want)) = &reference else {
                reference = Some((format!("{config:?}"), answers));
                continue;
            };
            assert_eq!(
                answers.len(),
                want.len(),
                "{what}: cases answered, against {first}"
            );
            for (a, b) in answers.iter().zip(want) {
                if a["status"] == "stopped" || b["status"] == "stopped" {
                    continue;
                }
                assert_eq!(
                    (&a["status"], &a["cost"], &a["answer"]),
                    (&b["status"], &b["cost"], &b["answer"]),
                    "{what}: case {}, against {first}",
                    a["case"]
                );
                compared += 1;
            }
        }
    }
    eprintln!(
        "{files} rule files, {loaded_n} loaded, {compared} answers compared, {refused} maps refused"
    );
    assert!(
        loaded_n > files / 3,
        "too few rule files load: {loaded_n} of {files}"
    );
    assert!(compared > files, "too few answers compared: {compared}");
}
