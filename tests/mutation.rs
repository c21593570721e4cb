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
//! The long mode is the fuzzer: `PUZZLE_FUZZ=N cargo test --release --test
//! mutation` runs N mutants a side (and `PUZZLE_FUZZ_SEED=S` another seed).

mod common;
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
    "at once",
    "in turn",
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
        limits: puzzle::search::Limits {
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
