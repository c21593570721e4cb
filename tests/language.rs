//! Language features beyond the shipped puzzles, each on a small rule file
//! and map whose answer is worked out by hand in the comment beside it.

use crate::common;
use puzzle::run::Options;

fn answer_with(rules: &str, input: &str, opts: &Options) -> String {
    let loaded = match puzzle::load("test.puz", rules) {
        Ok(l) => l,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    };
    let mut out = Vec::new();
    if let Err(e) = puzzle::run(&loaded.rules, "map", input, opts, &mut out) {
        panic!("{:?}", miette::Report::new(e));
    }
    String::from_utf8(out).unwrap()
}

fn answer(rules: &str, input: &str) -> String {
    answer_with(rules, input, &Options::default())
}

const SIGHT: &str = r#"
tiles { floor '.'  lamp 'L' solid opaque }
agent hero 'H' on floor
agent guard 'G' on floor opaque
flag seen
move hero: north east south west
when hero sees lamp: set seen
goal seen
"#;

#[test]
fn an_opaque_agent_blocks_sight() {
    // From (0,1) the guard at (0,2) hides the lamp; from the guard's own
    // cell (agents may share cells here) the lamp is in view: 2 steps.
    assert_eq!(answer(SIGHT, "H.G.L\n.....\n"), "2\n");
    // Without sharing cells, the hero goes round below: (1,0) .. (1,3),
    // then up to (0,3), 5 steps; or to (1,4) under the lamp, also 5.
    let strict = format!("{SIGHT}\nforbid same cell\n");
    assert_eq!(answer(&strict, "H.G.L\n.....\n"), "5\n");
    // A guard that is not opaque hides nothing: seen from the start.
    let clear = SIGHT.replace("on floor opaque", "on floor");
    assert_eq!(answer(&clear, "H.G.L\n.....\n"), "0\n");
}

#[test]
fn toggles_and_when_on() {
    // Each entry onto the switch flips `lit`; the gate needs it on; the goal
    // is the pad. `H s G P`: step onto s (on), step onto G, onto P: 3 steps.
    let rules = r#"
tiles { floor '.'  switch 's'  gate 'G'  pad 'P'  wall '#' solid }
agent hero 'H' on floor
flag lit, done
move hero: east west
on enter switch: toggle lit
enter gate only if lit
when hero on pad: set done
goal done
"#;
    assert_eq!(answer(rules, "HsGP\n"), "3\n");
    // Two switches in a row: passing both leaves the gate shut, so the hero
    // steps back onto the second one to flip it on again: s s . G P, 7 steps.
    assert_eq!(answer(rules, "Hss.GP\n"), "7\n");
    // `on enter` needs a move: staying is not entering (no stay here anyway),
    // and the start cell does not count.
    assert_eq!(answer(rules, "H#GP\n"), "-1\n");
}

#[test]
fn every_any_not_and_parentheses() {
    let base = r#"
input { cases until eof  header n  grid 1 x 6 }
tiles { floor '.'  goal_tile 'X' }
agent bot[n] 'a'.. on floor
move bot in turn: east west
forbid same cell
"#;
    // a at 0, b at 1, X at 4 and 5. Every bot on X: b moves 4 (to 5), a 4
    // (to 4): 8 steps. Any bot on X: b moves 3: 3 steps.
    let every = format!("{base}goal every bot on goal_tile\n");
    let any = format!("{base}goal any bot on goal_tile\n");
    let input = "2\nab..XX\n";
    assert_eq!(answer(&every, input), "8\n");
    assert_eq!(answer(&any, input), "3\n");
    // Not: no bot on floor at all; the X cells are `goal_tile`: same as every.
    let none = format!("{base}goal not (any bot on floor)\n");
    assert_eq!(answer(&none, input), "8\n");
    // Several cases until the end of input, with a header each.
    assert_eq!(answer(&any, "2\nab..XX\n1\n.a..X.\n"), "3\n3\n");
}

/// Rules with a row of `k` coins, each its own flag value; the hero starts
/// at the left end and must collect all: the answer is `k` steps.
fn coins(k: usize) -> (String, String) {
    let chars: Vec<char> = (0..k)
        .map(|i| char::from_u32(0x100 + i as u32).unwrap())
        .collect();
    let values: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
    let lits: Vec<String> = chars.iter().map(|c| format!("'{c}'")).collect();
    let rules = format!(
        "domain coin = {}\ntiles {{ floor '.'  coin {} of coin }}\nagent hero 'H' on floor\nflag got[coin]\nmove hero: east west\non enter coin(?c): set got[?c]\ngoal all got\n",
        values.join(" "),
        lits.join(" ")
    );
    let map: String = std::iter::once('H').chain(chars).collect();
    (rules, format!("{map}\n"))
}

#[test]
fn wide_states_use_a_hash_set_and_then_wider_words() {
    // 33 coins: 6 position bits + 33 flags = 39 bits: a hash-set store.
    let (rules, map) = coins(33);
    assert_eq!(answer(&rules, &map), "33\n");
    // 70 coins: 7 + 70 = 77 bits: a u128 state.
    let (rules, map) = coins(70);
    assert_eq!(answer(&rules, &map), "70\n");
    // 130 coins: 8 + 130 = 138 bits: four words.
    let (rules, map) = coins(130);
    assert_eq!(answer(&rules, &map), "130\n");
    // 600 coins: 10 + 600 bits: sixteen words.
    let (rules, map) = coins(600);
    assert_eq!(answer(&rules, &map), "600\n");
}

#[test]
fn a_state_wider_than_1024_bits_is_a_diagnostic() {
    let (rules, map) = coins(1030);
    let loaded = puzzle::load("coins.puz", &rules).unwrap();
    let mut out = Vec::new();
    // The case is stopped, as a limit stops it; its report goes to stderr.
    let summary = puzzle::run(&loaded.rules, "map", &map, &Options::default(), &mut out).unwrap();
    assert_eq!(summary.stopped, 1);
    assert_eq!(String::from_utf8(out).unwrap(), "?\n");
    let dir = std::env::temp_dir().join(format!("puzzle-coins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("coins.puz"), &rules).unwrap();
    std::fs::write(dir.join("coins.txt"), &map).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_puzzle"))
        .arg("run")
        .arg(dir.join("coins.puz"))
        .arg(dir.join("coins.txt"))
        .arg("--map")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{text}");
    assert!(text.contains("needs 1041 bits"), "{text}");
    assert!(text.contains("got (1030 of them) 1 bits each"), "{text}");
}

#[test]
fn bare_maps_take_header_values_from_the_caller() {
    let rules = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/halloween.puz"
    ))
    .unwrap();
    let map = "#####\n#A#B#\n#   #\n#b#a#\n#####\n";
    let opts = Options {
        bare: Some(vec![("n".into(), 2)]),
        ..Options::default()
    };
    assert_eq!(answer_with(&rules, map, &opts), "7\n");
}

#[test]
fn limits_cut_answers_off() {
    let rules = r#"
input { cases until eof  header t  grid 1 x 4 }
tiles { floor '.'  exit 'X' }
agent hero 'H' on floor
move hero: east
limit steps <= t
goal hero on exit
output { solved "{steps} <= {t}"  unsolved "over {t}" }
"#;
    assert_eq!(answer(rules, "3\nH..X\n2\nH..X\n"), "3 <= 3\nover 2\n");
}

#[test]
fn diagonal_moves_and_stay() {
    // Eight neighbours: from the corner to the far corner of a 4x4 open
    // square in 3 diagonal steps.
    let rules = r#"
tiles { floor '.'  exit 'X' }
agent hero 'H' on floor
move hero: north south east west northeast northwest southeast southwest
goal hero on exit
"#;
    assert_eq!(answer(rules, "H...\n....\n....\n...X\n"), "3\n");
}

#[test]
fn back_keeps_the_heading_and_turns_wrap_round() {
    // Facing east, `back` walks west: three steps to the exit.
    let rules = r#"
tiles { floor '.'  exit 'X' }
agent hero 'H' on floor facing east
move hero: back
goal hero on exit
"#;
    assert_eq!(answer(rules, "X..H\n"), "3\n");
    // Four right turns face the start again; facing west takes three
    // (or one left turn, when allowed).
    let turns = r#"
tiles { floor '.' }
agent hero 'H' on floor facing north
move hero: turn right
goal hero facing west
"#;
    assert_eq!(answer(turns, "H\n"), "3\n");
    let both = turns.replace("turn right", "turn right, turn left");
    assert_eq!(answer(&both, "H\n"), "1\n");
}

#[test]
fn counters_set_add_subtract_and_wrap() {
    // A wheel of three: each step east takes one off, wrapping from 0 to
    // 2; the goal wants 1 on the exit four cells on: 4 = 1 (mod 3) steps.
    let rules = r#"
tiles { floor '.'  exit 'X'  reset 'r' }
agent hero 'H' on floor
counter c 0..2 wrap
move hero: east west
on hero east: c -= 1
on enter reset: c = 0
goal hero on exit and c == 1
"#;
    // Ending on X takes w steps west and 4 + w east, and c = -(4 + w)
    // mod 3, which is 1 for w = 1 (past X and back): 6 steps.
    assert_eq!(answer(rules, "H...X.\n"), "6\n");
    // A reset tile just before the exit sets c to 0, then one step east
    // makes c = 2; with it the hero must enter X with c = 1: reset, then
    // two more east steps... the map `HrX.`: H->r (c=0 by reset, after the
    // east rule: rules of the cell first, then the move's: c = 0 - 1 = 2),
    // -> X (c = 1): 2 steps.
    assert_eq!(answer(rules, "HrX.\n"), "2\n");
}

#[test]
fn a_counter_per_occurrence() {
    // Two crates of two apples each; entering a crate eats one if any is
    // left. Three apples need five steps on `Hc.c` (see the hand count:
    // crate, off, crate, off, other crate).
    let rules = r#"
tiles { floor '.'  crate 'c' }
agent hero 'H' on floor
counter apples[crate] 0..2 = 2
counter eaten 0..count(crate) * 2
move hero: east west
on enter crate if apples[crate] > 0: apples[crate] -= 1, eaten += 1
goal eaten == 3
"#;
    assert_eq!(answer(rules, "Hc.c\n"), "5\n");
    // One crate has only two apples: three cannot be eaten.
    assert_eq!(answer(rules, "Hc..\n"), "-1\n");
}

#[test]
fn strict_limits_and_short_rows() {
    let rules = r#"
input { cases until eof  header t  grid 2 x 4  fill '.' }
tiles { floor '.'  exit 'X'  wall '#' solid }
agent hero 'H' on floor
move hero: east west north south
limit steps < t
goal hero on exit
output { solved "{steps} < {t}"  unsolved "not before {t}"  separator "--" }
"#;
    // The second row is short: filled with floor. H..X is 3 steps.
    let input = "4\nH..X\n#\n3\nH..X\n#.\n";
    assert_eq!(answer(rules, input), "3 < 4\n--\nnot before 3\n");
}

#[test]
fn large_costs_use_a_heap_and_agree_with_small_ones() {
    // The same map with every cost multiplied by 1000: the answer is a
    // thousand times as large (a bucket queue, then a binary heap).
    let small = r#"
tiles { floor '.'  swamp '~'  exit 'X' }
agent hero 'H' on floor
move hero: east west north south
enter swamp costs 3
goal hero on exit
"#;
    let large = small.replace("costs 3", "costs 3000").replace(
        "move hero: east west north south",
        "move hero: east costs 1000, west costs 1000, north costs 1000, south costs 1000",
    );
    // Through the swamp 3 + 3 + 1; round it below (1, 1, 1, 1, 1, 1, 1) or
    // through one swamp cell (1 + 3 + 1 + 1 + 1): 7 each way.
    let map = "H~~X\n.~..\n....\n";
    assert_eq!(answer(small, map), "7\n");
    assert_eq!(answer(&large, map), "7000\n");
    // Without the way round: 3 + 3 + 1.
    assert_eq!(answer(small, "H~~X\n"), "7\n");
    assert_eq!(answer(small, "H~.X\n"), "5\n");
}

#[test]
fn starts_by_coordinates_and_goals_by_coordinates() {
    let rules = r#"
input { cases until eof  header r c  grid 3 x 3 }
tiles { floor '.'  wall '#' solid }
agent hero at (r, c) on floor
move hero: east west north south
goal hero at (2, 2)
"#;
    assert_eq!(
        answer(rules, "0 0\n...\n.#.\n...\n1 2\n...\n.#.\n...\n"),
        "4\n1\n"
    );
}

#[test]
fn conditional_rules_fire_only_when_their_condition_holds() {
    // A lamp lights only while the switch is on; the switch toggles.
    let rules = r#"
tiles { floor '.'  switch 's'  lamp 'L' }
agent hero 'H' on floor
flag power, lit
move hero: east west
on enter switch: toggle power
when hero on lamp if power: set lit
goal lit
"#;
    // H s L: switch on (1), lamp (2): lit.
    assert_eq!(answer(rules, "HsL\n"), "2\n");
    // H s s L: every entry to a switch toggles the power, so L needs an odd
    // number of entries: s1 (on), back to H, s1 (off), s2 (on), L: 5.
    assert_eq!(answer(rules, "HssL\n"), "5\n");
    // A wall cuts the lamp off: never lit.
    assert_eq!(
        answer(
            &rules.replace("tiles {", "tiles { wall '#' solid "),
            "Hs#L\n"
        ),
        "-1\n"
    );
}

#[test]
fn a_map_of_more_kinds_of_cell_than_a_map_may_have_is_a_diagnostic() {
    // Each coin holds a flag of its own, so each is a kind of cell: 66,000
    // of them are more than the 65,536 a map may have.
    let rules = "tiles { floor '.'  coin 'c' }\nagent hero 'H' on floor\nflag got[coin]\n\
                 move hero: east west north south\non enter coin: set got[coin]\ngoal all got\n";
    let loaded = puzzle::load("coins.puz", rules).unwrap();
    let row = |first: char| {
        std::iter::once(first)
            .chain(std::iter::repeat_n('c', 299))
            .collect::<String>()
    };
    let map: String = (0..220)
        .map(|r| row(if r == 0 { 'H' } else { 'c' }) + "\n")
        .collect();
    let mut out = Vec::new();
    let err = puzzle::run(&loaded.rules, "map", &map, &Options::default(), &mut out).unwrap_err();
    let text = format!("{:?}", miette::Report::new(err));
    assert!(
        text.contains("needs 66001 kinds of cell, more than the 65536"),
        "{text}"
    );
    assert!(text.contains("puzzle::input::size_range"), "{text}");
}

#[test]
fn a_grid_given_back_after_grounding_still_has_spans_for_its_cells() {
    let rules = puzzle::load(
        "t.puz",
        &common::read(&common::root().join("puzzles/ice.puz")),
    )
    .unwrap()
    .rules;
    let text = "1\n2 3\nS..\n.#E\n";
    let mut reader = puzzle::input::Reader::new(rules.io(), text, false, None);
    let mut case = reader.next_case().unwrap().unwrap();
    // Cell 4 is the rock, on the second row (offset 10).
    assert_eq!(case.cell_span(4).offset(), 11);
    case.forget_grid();
    assert_eq!(case.len(), 6, "the case keeps its size");
    assert_eq!(case.cell_span(4).offset(), 10, "the row's start");
    assert_eq!(case.cell_span(5).len(), 1);
}

#[test]
fn stay_in_a_lone_agents_list_is_a_step() {
    // `stay` counts: two stays make k == 2 (it was dropped in turn, and the
    // answer was -1). Stepping east does not count.
    let rules = r#"
tiles { floor '.' }
agent a 'A' on floor
counter k 0..5
move a: stay, east
on a stay: k += 1
goal k == 2
"#;
    assert_eq!(answer(rules, "A..\n"), "2\n");
    // A stay that costs more than a step is weighed as any move: the goal
    // `k == 1 and a on the end` costs a stay (5) plus two steps.
    let costly = rules
        .replace("stay, east", "stay costs 5, east")
        .replace("goal k == 2", "tiles { end 'E' }\ngoal k == 1 and a on end");
    assert_eq!(answer(&costly, "A.E\n"), "7\n");
    // A `when` rule that toggles runs after a stay too: the start applies
    // it once (lit); the first stay fires its rule while lit, then the
    // toggle darkens; the second stay lights it again: 2 steps.
    let toggling = r#"
tiles { floor '.'  lamp 'L' }
agent a 'A' on lamp
flag lit, stayed_lit
move a: stay
when a on lamp: toggle lit
on a stay if lit: set stayed_lit
goal stayed_lit and lit
"#;
    assert_eq!(answer(toggling, "A\n"), "2\n");
}

#[test]
fn steps_in_a_template_count_steps_when_steps_have_costs() {
    // Two ways cost 4: through the mud (3 + 1, two steps) or round it
    // below (four steps). `{steps}` is the fewest steps among the
    // least-cost ways, not the cost (it printed 4).
    let rules = r#"
tiles { floor '.'  mud 'm'  exit 'X' }
agent a 'A' on floor
move a: north east south west
enter mud costs 3
goal a on exit
output { solved "{steps} steps, cost {cost}" }
"#;
    assert_eq!(answer(rules, "AmX\n...\n"), "2 steps, cost 4\n");
    // A costlier mud: the way round, four steps at cost 4.
    let deep = rules.replace("costs 3", "costs 9");
    assert_eq!(answer(&deep, "AmX\n...\n"), "4 steps, cost 4\n");
    // Arithmetic on both.
    let both = rules.replace("{steps} steps, cost {cost}", "{cost - steps}");
    assert_eq!(answer(&both, "AmX\n...\n"), "2\n");
}

#[test]
fn a_counter_range_from_the_map_beyond_the_engine_is_a_report() {
    // The upper bound comes from the map: with no key it is 0, below the
    // lower bound near 2^62 (this panicked); with one key the range is one
    // value, the start, and the goal holds there.
    let rules = r#"
tiles { floor '.'  key 'k' }
agent a 'A' on floor
counter c 4611686018427387000..count(key) * 4611686018427387000
move a: east
on a east: c += 1
goal c > 0
"#;
    assert_eq!(answer(rules, "A.k\n"), "0\n");
    let loaded = puzzle::load("test.puz", rules).unwrap();
    let mut out = Vec::new();
    let err = puzzle::run(&loaded.rules, "map", "A..\n", &Options::default(), &mut out)
        .expect_err("an empty range is reported");
    let text = format!("{:?}", miette::Report::new(err));
    assert!(
        text.contains("has the range 4611686018427387000..0"),
        "{text}"
    );
}

#[test]
fn a_large_domain_is_checked_whole() {
    // 50,000 values (checked in linear time: it was quadratic), one of them
    // repeated at the end: the repeat is reported.
    let mut values: Vec<String> = (0..50_000).map(|i| format!("v{i}")).collect();
    values.push("v123".into());
    let rules = format!(
        "domain d = {}\ntiles {{ floor '.' }}\nagent a 'A' on floor\nflag f[d]\nmove a: east\n\
         on a east: set f[v1]\ngoal f[v1]\n",
        values.join(" ")
    );
    let err = puzzle::load("big.puz", &rules)
        .err()
        .expect("a repeated value");
    let text = format!("{:?}", miette::Report::new(err));
    assert!(
        text.contains("value `v123` appears twice in domain `d`"),
        "{text}"
    );
    let ok = rules.replace(" v123\n", "\n");
    assert!(puzzle::load("big.puz", &ok).is_ok());
}

#[test]
fn a_condition_that_ends_a_line_does_not_run_on_into_the_next_rule() {
    // `enter swamp only if not lit` then `on north: ...` on the next line:
    // `lit on north` would read as "an agent `lit` on tile `north`" (and
    // then fail at the `:`); `on` must be on the name's line to be a
    // position. Hero at the bottom of a column: north onto the swamp
    // needs `lit` clear, and going north sets it, so the first step (onto
    // the plain floor) lights it and the swamp above is closed: unsolved.
    // From right below the swamp, the step onto it is the first: 1.
    let rules = "tiles { floor '.'  swamp 'S' }\n\
                 agent hero '@' on floor\n\
                 flag lit\n\
                 domain colour = red\n\
                 flag have[colour]\n\
                 move hero: north\n\
                 enter swamp only if not lit and not any have\n\
                 on north: set lit\n\
                 on hero enter swamp: set have[red]\n\
                 goal hero on swamp\n";
    assert_eq!(answer(rules, "S\n.\n@\n"), "-1\n");
    assert_eq!(answer(rules, "S\n@\n"), "1\n");
    // A position split over two lines is no position: a report, not a
    // different reading.
    let split =
        "tiles { floor '.' }\nagent hero '@' on floor\nmove hero: north\ngoal hero\n  on floor\n";
    assert!(puzzle::load("split.puz", split).is_err());
}

/// The README's list of keywords is the grammar's: a word added to the
/// language is listed where users look for names they cannot take.
#[test]
fn the_readme_lists_every_keyword_of_the_grammar() {
    let words = |text: &str, open: &str, close: &str, quote: char| {
        let at = text.find(open).expect(open) + open.len();
        let body = &text[at..at + text[at..].find(close).expect(close)];
        let mut v: Vec<String> = body
            .split(quote)
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    let grammar = common::read(&common::root().join("grammar/puzzle.pest"));
    let readme = common::read(&common::root().join("README.md"));
    let want = words(&grammar, "keyword = @{", "}", '"');
    let listed = words(&readme, "The keywords:\n", ".\n", '`');
    assert!(want.len() > 40, "{want:?}");
    assert_eq!(listed, want);
}

/// At once, the `on enter` rules fire agent by agent in the order the
/// agents are declared (as the README says): `c = 2` then `c += 1` is 3,
/// the other way round 2.
#[test]
fn rules_of_agents_moving_at_once_fire_in_declaration_order() {
    let rules = |first: &str, second: &str, want: u8| {
        format!(
            "tiles {{ floor '.'  pad 'P' }}\n\
             agent {first} on floor\nagent {second} on floor\n\
             counter c 0..5\n\
             move all at once: east\n\
             on a enter pad: c = 2\n\
             on b enter pad: c += 1\n\
             goal c == {want}\n"
        )
    };
    let map = "aP\nbP\n";
    assert_eq!(answer(&rules("a 'a'", "b 'b'", 3), map), "1\n");
    assert_eq!(answer(&rules("a 'a'", "b 'b'", 2), map), "-1\n");
    assert_eq!(answer(&rules("b 'b'", "a 'a'", 2), map), "1\n");
    assert_eq!(answer(&rules("b 'b'", "a 'a'", 3), map), "-1\n");
}

/// `moving DIR` in `enter` conditions and `on enter` rules, against a
/// breadth-first search written here: on 500 seeded random maps of one-way
/// cells (each arrow entered only its way; stairs only north or south; a
/// diagonal arrow only going northeast) and switches that toggle a lamp
/// when entered going south (gates need it lit), a walker with four or
/// eight moves, under every strategy.
#[test]
fn one_way_cells_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    const DIRS: [(i32, i32, &str); 8] = [
        (-1, 0, "north"),
        (-1, 1, "northeast"),
        (0, 1, "east"),
        (1, 1, "southeast"),
        (1, 0, "south"),
        (1, -1, "southwest"),
        (0, -1, "west"),
        (-1, -1, "northwest"),
    ];
    // The ways a cell may be entered, by its symbol, with the lamp lit or
    // not (a gate needs it lit; entering a switch going south toggles it).
    let allowed = |sym: u8, d: (i32, i32), lit: bool| match sym {
        b'#' => false,
        b'G' => lit,
        b'^' => d == (-1, 0),
        b'>' => d == (0, 1),
        b'v' => d == (1, 0),
        b'<' => d == (0, -1),
        b'|' => d.1 == 0,
        b'z' => d == (-1, 1),
        _ => true,
    };
    let solve = |g: &[Vec<u8>], eight: bool| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let find = |c: u8| {
            (0..h)
                .flat_map(|r| (0..w).map(move |k| (r, k)))
                .find(|&(r, k)| g[r as usize][k as usize] == c)
                .unwrap()
        };
        let mut dist = std::collections::HashMap::new();
        let start = find(b'@');
        dist.insert((start.0, start.1, false), 0u32);
        let mut queue = std::collections::VecDeque::from([(start.0, start.1, false)]);
        while let Some((r, c, lit)) = queue.pop_front() {
            let here = dist[&(r, c, lit)];
            if g[r as usize][c as usize] == b'E' {
                return Some(here);
            }
            for &(dr, dc, _) in DIRS.iter().filter(|d| eight || d.0 == 0 || d.1 == 0) {
                let (nr, nc) = (r + dr, c + dc);
                if nr < 0 || nc < 0 || nr >= h || nc >= w {
                    continue;
                }
                let sym = g[nr as usize][nc as usize];
                if !allowed(sym, (dr, dc), lit) {
                    continue;
                }
                let lit = lit ^ (sym == b'S' && (dr, dc) == (1, 0));
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry((nr, nc, lit)) {
                    e.insert(here + 1);
                    queue.push_back((nr, nc, lit));
                }
            }
        }
        None
    };
    let rules = |eight: bool| {
        let moves: Vec<&str> = DIRS
            .iter()
            .filter(|d| eight || d.0 == 0 || d.1 == 0)
            .map(|d| d.2)
            .collect();
        format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  stairs '|'  slant 'z'  exit 'E'  \
                      switch 'S'  gate 'G' }}\n\
             agent walker '@' on floor\n\
             flag lit\n\
             on enter switch if moving south: toggle lit\n\
             enter gate only if lit\n\
             move walker: {}\n\
             {}\
             enter stairs only if moving north or moving south\n\
             enter slant only if not (moving north or moving east) and moving northeast\n\
             goal walker on exit\n",
            moves.join(" "),
            // The arrows as one tile of a domain of directions, or four.
            if eight {
                "domain way = north east south west\n\
                 tiles { arrow '^' '>' 'v' '<' of way }\n\
                 enter arrow(?w) only if moving ?w\n"
            } else {
                "tiles { up '^'  right '>'  down 'v'  left '<' }\n\
                 enter up only if moving north\n\
                 enter right only if moving east\n\
                 enter down only if moving south\n\
                 enter left only if moving west\n"
            }
        )
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x0e_a7_01);
    let (mut solved, mut unsolved) = (0, 0);
    for eight in [false, true] {
        let mut input = String::new();
        let mut want = String::new();
        for _ in 0..250 {
            let (h, w) = (rng.gen_range(2..=6), rng.gen_range(2..=7));
            let tiles = b"....#^>v<|zSSG";
            let mut g = common::random_grid(&mut rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
            let cells = common::all_cells(&g);
            common::place(&mut rng, &mut g, cells, b"@E");
            input.push_str(&common::case_text(&format!("{h} {w}"), &g));
            match solve(&g, eight) {
                Some(n) => {
                    want.push_str(&format!("{n}\n"));
                    solved += 1;
                }
                None => {
                    want.push_str("-1\n");
                    unsolved += 1;
                }
            }
        }
        for config in common::configs() {
            let opts = Options {
                search: config,
                ..Default::default()
            };
            assert_eq!(
                answer_with(&rules(eight), &input, &opts),
                want,
                "{config:?}, eight moves: {eight}"
            );
        }
    }
    assert!(
        solved > 100 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// `moving` on the cells a slide and a push enter, in `enter` conditions
/// and `on enter` rules, worked by hand.
#[test]
fn slides_and_pushes_enter_cells_their_way() {
    let slides = "tiles { floor '.'  left '<'  exit 'E' }\n\
                  agent hero '@' on floor\n\
                  move hero: slide east, slide west\n\
                  enter left only if moving west\n\
                  goal hero on exit\n";
    // Sliding east stops before `<` (it is entered going west only), and
    // a slide that enters no cell is no move: the exit is out of reach.
    assert_eq!(answer(slides, "@..<E\n"), "-1\n");
    // Sliding west goes over `<` to the exit at the edge: one move.
    assert_eq!(answer(slides, "E<..@\n"), "1\n");
    let pushes = "tiles { floor '.'  right '>' }\n\
                  agent keeper '@' on floor\n\
                  object box '$' on floor\n\
                  move keeper: east west\n\
                  enter right only if moving east\n\
                  goal every box on right\n";
    // The box is pushed east onto `>`: one move; pushed west, it may not
    // enter `>` going west, and nothing else brings it there.
    assert_eq!(answer(pushes, "@$>.\n"), "1\n");
    assert_eq!(answer(pushes, ".>$@\n"), "-1\n");
    // An object's `on enter` rule reads the way it is pushed in.
    let plates = "tiles { floor '.'  plate 'P' }\n\
                  agent keeper '@' on floor\n\
                  object box '$' on floor\n\
                  flag lit\n\
                  move keeper: east west\n\
                  on box enter plate if moving east: set lit\n\
                  goal lit\n";
    assert_eq!(answer(plates, "@$P.\n"), "1\n");
    assert_eq!(answer(plates, ".P$@\n"), "-1\n");
}

/// A flag only an object's rule gives (`on box enter plate`) has no bound
/// from the agents' distances: A* took the keeper's distance to the plate
/// (2) for a way of one push, and answered -1 (found while testing
/// `moving` on pushes). Every strategy answers 1.
#[test]
fn a_flag_given_by_an_object_is_not_bounded_by_the_agents_distances() {
    let rules = "tiles { floor '.'  plate 'P' }\n\
                 agent keeper '@' on floor\n\
                 object box '$' on floor\n\
                 flag lit\n\
                 move keeper: east west\n\
                 on box enter plate: set lit\n\
                 goal lit\n";
    for config in common::configs() {
        let opts = Options {
            search: config,
            ..Default::default()
        };
        assert_eq!(answer_with(rules, "@$P..\n", &opts), "1\n", "{config:?}");
    }
}

/// Moves by offsets (leaps that enter only the cell they land on, slides
/// by an offset, sets of moves named with `moves` and given a cost as a
/// whole), on random maps of walls, mud that costs 3 to enter and cells
/// entered only going north (a jump of two north goes north; a knight's
/// jump goes no compass way), against a hand-written Dijkstra, under
/// every strategy.
#[test]
fn leapers_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    // (offset, slides) -> how it is written.
    const POOL: [((i32, i32), bool, &str); 15] = [
        ((-2, -1), false, "(-2,-1)"),
        ((-2, 1), false, "(-2, 1)"),
        ((-1, 2), false, "(-1,2)"),
        ((1, 2), false, "(1,2)"),
        ((2, 1), false, "(2,1)"),
        ((2, -1), false, "(2,-1)"),
        ((1, -2), false, "(1,-2)"),
        ((-1, -2), false, "(-1,-2)"),
        ((-2, 0), false, "(-2,0)"),
        ((0, 2), false, "(0,2)"),
        ((-1, 0), false, "north"),
        ((0, -1), false, "(0,-1)"),
        ((1, 0), false, "south"),
        ((1, 2), true, "slide (1,2)"),
        ((-2, 0), true, "slide (-2,0)"),
    ];
    // Whether a cell may be entered going (dr, dc).
    let enters = |sym: u8, (dr, dc): (i32, i32)| match sym {
        b'#' => false,
        b'^' => dc == 0 && dr < 0,
        _ => true,
    };
    let solve = |g: &[Vec<u8>], moves: &[((i32, i32), bool, u32)]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at = |r: i32, c: i32| {
            (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize])
        };
        let start = (0..h)
            .flat_map(|r| (0..w).map(move |c| (r, c)))
            .find(|&(r, c)| g[r as usize][c as usize] == b'@')
            .unwrap();
        let mut dist = std::collections::HashMap::from([(start, 0u32)]);
        let mut heap = std::collections::BinaryHeap::from([std::cmp::Reverse((0u32, start))]);
        while let Some(std::cmp::Reverse((d, (r, c)))) = heap.pop() {
            if dist[&(r, c)] < d {
                continue;
            }
            if at(r, c) == Some(b'E') {
                return Some(d);
            }
            for &((dr, dc), slides, cost) in moves {
                let (mut nr, mut nc) = (r, c);
                loop {
                    match at(nr + dr, nc + dc) {
                        Some(s) if enters(s, (dr, dc)) => (nr, nc) = (nr + dr, nc + dc),
                        _ => break,
                    }
                    if !slides {
                        break;
                    }
                }
                if (nr, nc) == (r, c) {
                    continue;
                }
                let step = if at(nr, nc) == Some(b'm') { 3 } else { cost };
                let nd = d + step;
                if dist.get(&(nr, nc)).is_none_or(|&old| nd < old) {
                    dist.insert((nr, nc), nd);
                    heap.push(std::cmp::Reverse((nd, (nr, nc))));
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x1ea9e5);
    let (mut solved, mut unsolved, mut maps) = (0, 0, 0);
    for round in 0..50 {
        // Some moves in a set of their own, costing 2 as a whole; the
        // rest listed directly, each costing 1.
        let mut in_set = Vec::new();
        let mut direct = Vec::new();
        let mut moves = Vec::new();
        for &(d, slides, text) in &POOL {
            if rng.gen_bool(0.35) {
                if round % 2 == 0 && rng.gen_bool(0.5) {
                    in_set.push(text);
                    moves.push((d, slides, 2));
                } else {
                    direct.push(text);
                    moves.push((d, slides, 1));
                }
            }
        }
        if in_set.is_empty() && direct.is_empty() {
            direct.push("north");
            moves.push(((-1, 0), false, 1));
        }
        let mut list = direct.join(", ");
        let mut sets = String::new();
        if !in_set.is_empty() {
            sets = format!("moves jumps = {}\n", in_set.join(" "));
            if !list.is_empty() {
                list.push_str(", ");
            }
            list.push_str("jumps costs 2");
        }
        let rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  up '^'  mud 'm'  exit 'E' }}\n\
             agent leaper '@' on floor\n\
             {sets}\
             move leaper: {list}\n\
             enter up only if moving north\n\
             enter mud costs 3\n\
             goal leaper on exit\n\
             output {{ solved \"{{cost}}\" unsolved \"-1\" }}\n"
        );
        let mut input = String::new();
        let mut want = String::new();
        for _ in 0..10 {
            let (h, w) = (rng.gen_range(2..=7), rng.gen_range(2..=7));
            let tiles = b".....#^m";
            let mut g = common::random_grid(&mut rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
            let cells = common::all_cells(&g);
            common::place(&mut rng, &mut g, cells, b"@E");
            input.push_str(&common::case_text(&format!("{h} {w}"), &g));
            maps += 1;
            match solve(&g, &moves) {
                Some(n) => {
                    want.push_str(&format!("{n}\n"));
                    solved += 1;
                }
                None => {
                    want.push_str("-1\n");
                    unsolved += 1;
                }
            }
        }
        for config in common::configs() {
            let opts = Options {
                search: config,
                ..Default::default()
            };
            assert_eq!(
                answer_with(&rules, &input, &opts),
                want,
                "{config:?}\n{rules}\n{input}"
            );
        }
    }
    assert!(
        maps == 500 && solved > 150 && unsolved > 100,
        "{solved} solved, {unsolved} not"
    );
}

/// Moves on conditions (`if`) with cell tests relative to the mover
/// (`here`, `ahead`, `beyond`, offsets; `is TILE`, `has NAME`), `moving`
/// in a move's condition, and a cell test in an `on MOVE` rule, on random
/// maps, against a hand-written search, under every strategy: climbing
/// north only from a ladder, a step east only where the sleeper is not, a
/// step south only where the cell beyond is not a wall, jumps of two only
/// over a hole, and a bell rung by a step west onto it that opens gates.
#[test]
fn moves_on_conditions_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  wall '#' solid  ladder 'L'  hole 'o' solid  bell 'b'  gate 'G'  \
                 exit 'E' }\n\
         agent walker '@' on floor\n\
         agent sleeper 'S' on floor\n\
         flag rung\n\
         moves jumps = (0, 2) if cell (0, 1) is hole, \
                       (-2, 0) if cell (-1, 0) is hole and moving north\n\
         move walker: north if cell here is ladder, east if not cell ahead has sleeper, \
                      south if not cell beyond is wall, west, jumps\n\
         on walker west if cell here is bell: set rung\n\
         enter gate only if rung\n\
         goal walker on exit\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at = |r: i32, c: i32| {
            (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize])
        };
        let find = |x: u8| {
            (0..h)
                .flat_map(|r| (0..w).map(move |c| (r, c)))
                .find(|&(r, c)| g[r as usize][c as usize] == x)
                .unwrap()
        };
        let (start, sleeper) = (find(b'@'), find(b'S'));
        let mut dist = std::collections::HashMap::from([((start, false), 0u32)]);
        let mut queue = std::collections::VecDeque::from([(start, false)]);
        while let Some(((r, c), rung)) = queue.pop_front() {
            let d = dist[&((r, c), rung)];
            if at(r, c) == Some(b'E') {
                return Some(d);
            }
            let mut next = Vec::new();
            if at(r, c) == Some(b'L') {
                next.push((-1, 0));
            }
            if (r, c + 1) != sleeper {
                next.push((0, 1));
            }
            if at(r + 2, c) != Some(b'#') {
                next.push((1, 0));
            }
            next.push((0, -1));
            if at(r, c + 1) == Some(b'o') {
                next.push((0, 2));
            }
            if at(r - 1, c) == Some(b'o') {
                next.push((-2, 0));
            }
            for (dr, dc) in next {
                let (nr, nc) = (r + dr, c + dc);
                let open = match at(nr, nc) {
                    None | Some(b'#') | Some(b'o') => false,
                    Some(b'G') => rung,
                    _ => true,
                };
                if !open {
                    continue;
                }
                let rung = rung || ((dr, dc) == (0, -1) && at(nr, nc) == Some(b'b'));
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(((nr, nc), rung)) {
                    e.insert(d + 1);
                    queue.push_back(((nr, nc), rung));
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x9a2d5);
    let map = |rng: &mut rand::rngs::SmallRng| {
        let (h, w) = (rng.gen_range(2..=6), rng.gen_range(2..=7));
        let tiles = b"......#LLooobbGG";
        let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
        let cells = common::all_cells(&g);
        common::place(rng, &mut g, cells, b"@ES");
        g
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 100,
        "{solved} solved, {unsolved} not"
    );
}

/// Tiles that carry (`carry belt(?w) ?w`, `carry wind east`): after each
/// step, every mover on a carrying cell is carried a cell its way, in
/// mover order, round after round, blocked by walls, closed gates and
/// other movers; a coin entered while carried is taken; a loop of belts
/// makes the step no step. Random maps with a walker and a crate that
/// never moves by itself, against a hand-written search, under every
/// strategy.
#[test]
fn carrying_tiles_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         domain way = north east south west\n\
         tiles { floor '.'  wall '#' solid  belt '^' '>' 'v' '<' of way  wind '~'  coin '$'  \
                 gate 'G'  exit 'E' }\n\
         agent walker '@' on floor\n\
         agent crate 'C' on floor\n\
         flag got\n\
         move walker: north east south west\n\
         carry belt(?w) ?w\n\
         carry wind east\n\
         on walker enter coin: set got\n\
         enter gate only if got\n\
         goal walker on exit\n";
    type State = ((i32, i32), (i32, i32), bool);
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at = |(r, c): (i32, i32)| {
            (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize])
        };
        let way = |s: u8| match s {
            b'^' => Some((-1, 0)),
            b'>' | b'~' => Some((0, 1)),
            b'v' => Some((1, 0)),
            b'<' => Some((0, -1)),
            _ => None,
        };
        let open = |p: (i32, i32), got: bool| match at(p) {
            None | Some(b'#') => false,
            Some(b'G') => got,
            _ => true,
        };
        // After a step: carry until nothing moves; `None` for a loop (a
        // state after a round seen again).
        let carry = |mut s: State| -> Option<State> {
            let mut seen = std::collections::HashSet::new();
            loop {
                let mut moved = false;
                for who in 0..2 {
                    let (me, other) = if who == 0 { (s.0, s.1) } else { (s.1, s.0) };
                    let Some((dr, dc)) = at(me).and_then(way) else {
                        continue;
                    };
                    let to = (me.0 + dr, me.1 + dc);
                    if !open(to, s.2) || to == other {
                        continue;
                    }
                    if who == 0 {
                        s.0 = to;
                        s.2 |= at(to) == Some(b'$');
                    } else {
                        s.1 = to;
                    }
                    moved = true;
                }
                if !moved {
                    return Some(s);
                }
                if !seen.insert(s) {
                    return None;
                }
            }
        };
        let find = |x: u8| {
            (0..h)
                .flat_map(|r| (0..w).map(move |c| (r, c)))
                .find(|&(r, c)| g[r as usize][c as usize] == x)
                .unwrap()
        };
        let start: State = (find(b'@'), find(b'C'), false);
        let mut dist = std::collections::HashMap::from([(start, 0u32)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            if at(s.0) == Some(b'E') {
                return Some(d);
            }
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let to = (s.0.0 + dr, s.0.1 + dc);
                if !open(to, s.2) {
                    continue;
                }
                let t = (to, s.1, s.2 || at(to) == Some(b'$'));
                let Some(t) = carry(t) else { continue };
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t) {
                    e.insert(d + 1);
                    queue.push_back(t);
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xbe17);
    let map = |rng: &mut rand::rngs::SmallRng| {
        let (h, w) = (rng.gen_range(2..=6), rng.gen_range(2..=7));
        let tiles = b".....#^>v<~~$G";
        let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
        let cells = common::all_cells(&g);
        common::place(rng, &mut g, cells, b"@EC");
        g
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// Agents that move together (`move all together`): each step, one move
/// made by every agent as it can, front first (those further along the
/// move's way before those behind, so one may follow into a cell another
/// leaves), a blocked one staying, with steps or with slides (a tilt
/// maze), with and without `forbid same cell`; random maps against a
/// hand-written search, under every strategy.
#[test]
fn agents_moving_together_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    let solve = |g: &[Vec<u8>], n: usize, slide: bool, apart: bool| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let open =
            |(r, c): Pos| r >= 0 && c >= 0 && r < h && c < w && g[r as usize][c as usize] != b'#';
        let find = |x: u8| {
            (0..h)
                .flat_map(|r| (0..w).map(move |c| (r, c)))
                .find(|&(r, c)| g[r as usize][c as usize] == x)
                .unwrap()
        };
        let start: Vec<Pos> = (0..n).map(|i| find(b'1' + i as u8)).collect();
        let goal: Vec<Pos> = (0..n).map(|i| find(b'A' + i as u8)).collect();
        let mut dist = std::collections::HashMap::from([(start.clone(), 0u32)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            if s == goal {
                return Some(d);
            }
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let mut t = s.clone();
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| std::cmp::Reverse(t[i].0 * dr + t[i].1 * dc));
                let mut any = false;
                for i in order {
                    let mut at = t[i];
                    loop {
                        let to = (at.0 + dr, at.1 + dc);
                        // Another agent stops a slide, and a step where
                        // agents are kept apart.
                        let taken = (0..n).any(|j| j != i && t[j] == to);
                        if !open(to) || (taken && (slide || apart || at != t[i])) {
                            break;
                        }
                        at = to;
                        if !slide {
                            break;
                        }
                    }
                    any |= at != t[i];
                    t[i] = at;
                }
                if !any {
                    continue;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t.clone()) {
                    e.insert(d + 1);
                    queue.push_back(t);
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x70_9e7);
    let (mut solved, mut unsolved) = (0, 0);
    for round in 0..50 {
        let (slide, apart) = (round % 2 == 1, round % 4 >= 2);
        let n = 2 + round % 3 / 2;
        let moves = if slide {
            "slide north, slide east, slide south, slide west"
        } else {
            "north east south west"
        };
        let rules = format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid }}\n\
             agent bot[{n}] '1'.. target 'A'.. on floor\n\
             move all together: {moves}\n\
             {}\
             goal every bot on its target\n",
            if apart { "forbid same cell\n" } else { "" }
        );
        let marks: Vec<u8> = (0..n as u8).flat_map(|i| [b'1' + i, b'A' + i]).collect();
        let map = |rng: &mut rand::rngs::SmallRng| loop {
            let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=6));
            let mut g = common::random_grid(rng, h, w, |r| b"...#"[r.gen_range(0..4)]);
            let cells = common::all_cells(&g);
            if cells.len() >= marks.len() {
                common::place(rng, &mut g, cells, &marks);
                return g;
            }
        };
        let (s, u) = common::rounds_against(&rules, &mut rng, (1, 10), map, |g| {
            solve(g, n, slide, apart)
        });
        solved += s;
        unsolved += u;
    }
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// An `optional` agent: its marker may be absent from a map, and it is then
/// not on it (it blocks no cell, and `guard on exit` is false). Random
/// maps with and without the guard, against a hand-written search, under
/// every strategy.
#[test]
fn optional_agents_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  wall '#' solid  exit 'E' }\n\
         agent hero '@' on floor\n\
         agent guard 'G' on floor optional\n\
         move hero: north east south west\n\
         forbid same cell\n\
         goal hero on exit or guard on exit\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let find = |x: u8| {
            (0..h)
                .flat_map(|r| (0..w).map(move |c| (r, c)))
                .find(|&(r, c)| g[r as usize][c as usize] == x)
        };
        let (start, guard) = (find(b'@').unwrap(), find(b'G'));
        // The guard stands on the exit only if the exit is under it: a
        // marker's cell is the agent's tile, `floor`, so never.
        let mut dist = std::collections::HashMap::from([(start, 0u32)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some((r, c)) = queue.pop_front() {
            let d = dist[&(r, c)];
            if g[r as usize][c as usize] == b'E' {
                return Some(d);
            }
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let (nr, nc) = (r + dr, c + dc);
                if nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr as usize][nc as usize] == b'#' {
                    continue;
                }
                if Some((nr, nc)) == guard {
                    continue;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry((nr, nc)) {
                    e.insert(d + 1);
                    queue.push_back((nr, nc));
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x0971);
    let mut absent = 0;
    let map = |rng: &mut rand::rngs::SmallRng| {
        let (h, w) = (rng.gen_range(1..=5), rng.gen_range(3..=7));
        let mut g = common::random_grid(rng, h, w, |r| b"....#"[r.gen_range(0..5)]);
        let cells = common::all_cells(&g);
        let marks: &[u8] = if rng.gen_bool(0.5) { b"@EG" } else { b"@E" };
        absent += usize::from(marks.len() == 2);
        common::place(rng, &mut g, cells, marks);
        g
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 50 && absent > 150,
        "{solved} solved, {unsolved} not, {absent} without the guard"
    );
}

/// The board's edge (`border`): a ring of a tile around the map, entered
/// as any cell is. A skater slides on ice until a rock stops it or snow
/// catches it, and escapes over any edge (or onto a beach drawn inside);
/// random lakes against a hand-written search that knows no ring, only
/// moves off the map, under every strategy.
#[test]
fn the_edge_of_the_map_matches_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { ice '.' slippery  snow '_'  rock '#' solid  shore '~' border }\n\
         agent skater 'S' on snow\n\
         move skater: north east south west\n\
         goal skater on shore\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let start = common::find(g, b'S');
        // A place on the map, or `None`: over the edge.
        let start = Some((start.0 as i32, start.1 as i32));
        let mut dist = std::collections::HashMap::from([(start, 0u32)]);
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(s) = queue.pop_front() {
            let d = dist[&s];
            let Some(s) = s.filter(|s| g[s.0 as usize][s.1 as usize] != b'~') else {
                return Some(d);
            };
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let mut at = Some(s);
                while let Some(p) = at {
                    let to = (p.0 + dr, p.1 + dc);
                    if to.0 < 0 || to.1 < 0 || to.0 >= h || to.1 >= w {
                        at = None;
                        break;
                    }
                    let t = g[to.0 as usize][to.1 as usize];
                    if t == b'#' {
                        break;
                    }
                    at = Some(to);
                    if t != b'.' {
                        break;
                    }
                }
                if at != Some(s) && !dist.contains_key(&at) {
                    dist.insert(at, d + 1);
                    queue.push_back(at);
                }
            }
        }
        None
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xed9e);
    let map = |rng: &mut rand::rngs::SmallRng| {
        let (h, w) = (rng.gen_range(3..=7), rng.gen_range(3..=8));
        let mut g = common::random_grid(rng, h, w, |r| match r.gen_range(0..100) {
            0..30 => b'#',
            30..38 => b'_',
            38..40 => b'~',
            _ => b'.',
        });
        // A frame of rocks, broken here and there, so most lakes take a
        // few moves to leave and some cannot be left.
        for (r, row) in g.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                if (r == 0 || c == 0 || r == h - 1 || c == w - 1) && rng.gen_range(0..10) < 8 {
                    *cell = b'#';
                }
            }
        }
        let cells = common::all_cells(&g);
        common::place(rng, &mut g, cells, b"S");
        g
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 200 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// Objects pushed over the edge: a keeper pushes every crate off the map
/// onto the ring (which is floor like any other, so a crate there can be
/// pushed on along it); random yards against a hand-written search on the
/// map with the ring drawn in, under every strategy.
#[test]
fn objects_pushed_over_the_edge_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  wall '#' solid  out '~' border }\n\
         agent keeper '@' on floor\n\
         object crate '$' on floor\n\
         move keeper: north east south west\n\
         goal every crate on out\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        // The map inside a ring of floor marked '~'.
        let (h, w) = (g.len() as i32 + 2, g[0].len() as i32 + 2);
        let at = |(r, c): (i32, i32)| -> Option<u8> {
            if r < 0 || c < 0 || r >= h || c >= w {
                None
            } else if r == 0 || c == 0 || r == h - 1 || c == w - 1 {
                Some(b'~')
            } else {
                Some(g[r as usize - 1][c as usize - 1])
            }
        };
        let cells: Vec<(i32, i32)> = (0..h).flat_map(|r| (0..w).map(move |c| (r, c))).collect();
        let keeper = *cells.iter().find(|&&p| at(p) == Some(b'@')).unwrap();
        let crates: Vec<(i32, i32)> = cells
            .iter()
            .copied()
            .filter(|&p| at(p) == Some(b'$'))
            .collect();
        let open = |p| matches!(at(p), Some(x) if x != b'#');
        let goal = |s: &((i32, i32), Vec<(i32, i32)>)| s.1.iter().all(|&p| at(p) == Some(b'~'));
        common::bfs((keeper, crates), goal, |s| {
            let mut out = Vec::new();
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let to = (s.0.0 + dr, s.0.1 + dc);
                if !open(to) {
                    continue;
                }
                let mut crates = s.1.clone();
                if let Some(i) = crates.iter().position(|&p| p == to) {
                    let beyond = (to.0 + dr, to.1 + dc);
                    if !open(beyond) || crates.contains(&beyond) {
                        continue;
                    }
                    crates[i] = beyond;
                    crates.sort_unstable();
                }
                out.push((to, crates));
            }
            out
        })
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xc8a7e);
    let map = |rng: &mut rand::rngs::SmallRng| {
        let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=6));
        let mut g =
            common::random_grid(
                rng,
                h,
                w,
                |r| if r.gen_range(0..4) == 0 { b'#' } else { b'.' },
            );
        let n = rng.gen_range(1..=2);
        let cells = common::all_cells(&g);
        common::place(rng, &mut g, cells, &b"@$$"[..=n]);
        g
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 200 && unsolved > 30,
        "{solved} solved, {unsolved} not"
    );
}

/// Rows and columns count from the map's first cell with a ring around
/// it: the ring's are -1 and the map's size, in starts and in goals.
#[test]
fn the_ring_has_rows_and_columns_of_its_own() {
    let rules = |goal: &str| {
        format!(
            "tiles {{ floor '.'  out '~' border }}\n\
             agent walker at (1, 1) on floor\n\
             move walker: north east south west\n\
             goal {goal}\n"
        )
    };
    // From (1, 1) of a 2 x 3 map: north twice to the ring above.
    assert_eq!(answer(&rules("walker at (-1, 1)"), "...\n...\n"), "2\n");
    // The ring's far corner, (2, 3): south once, east twice.
    assert_eq!(answer(&rules("walker at (2, 3)"), "...\n...\n"), "3\n");
    // Off the ring too: no such cell, never.
    assert_eq!(answer(&rules("walker at (3, 1)"), "...\n...\n"), "-1\n");
    // Any cell of the ring: one step, north or south.
    assert_eq!(answer(&rules("walker on out"), "...\n...\n"), "1\n");
}

/// Movers that move by themselves (`by itself N times`): after every step
/// of the hero's, each chaser in turn, N times, takes the first of its
/// moves whose condition holds and that it can make (the columns first,
/// then the rows: Theseus and the Minotaur's rule), staying when it can
/// make none; a state where a chaser stands on the hero off the exit is
/// forbidden (`forbid COND`, comparing rows and columns). One or two
/// chasers, one or two moves a step, the hero waiting or not; random
/// mazes against a hand-written search, under every strategy.
#[test]
fn movers_by_themselves_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    // `chasers` agents of their own ('1', '2'), or 0: a family of one per
    // 'M' (`agent bull every 'M'`), in reading order.
    let rules = |chasers: usize, times: usize, wait: bool| {
        let mut r = String::from(
            "input { cases until eof  header rows cols  grid rows x cols }\n\
             tiles { floor '.'  wall '#' solid  exit 'E' }\n\
             agent hero 'H' on floor\n",
        );
        let names = ["bull", "cow"];
        for (i, name) in names.iter().take(chasers).enumerate() {
            r.push_str(&format!("agent {name} '{}' on floor\n", i + 1));
        }
        if chasers == 0 {
            r.push_str("agent bull every 'M' on floor\n");
        }
        r.push_str(&format!(
            "move hero: north east south west{}\n",
            if wait { " stay" } else { "" }
        ));
        if chasers == 0 {
            r.push_str(&format!(
                "move bull by itself {times} times:\n\
                   east if column of hero > its column, west if column of hero < its column,\n\
                   south if row of hero > its row, north if row of hero < its row\n\
                 forbid any bull at hero and not hero on exit\n"
            ));
        }
        for name in names.iter().take(chasers) {
            r.push_str(&format!(
                "move {name} by itself {times} times:\n\
                   east if column of hero > its column,\n\
                   west if column of hero < its column,\n\
                   south if row of hero > its row,\n\
                   north if its row - row of hero > 0\n\
                 forbid row of {name} == row of hero and column of hero - column of {name} == 0 \
                   and not hero on exit\n"
            ));
        }
        r.push_str("goal hero on exit\n");
        r
    };
    let solve = |g: &[Vec<u8>], chasers: usize, times: usize, wait: bool| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let open =
            |(r, c): Pos| r >= 0 && c >= 0 && r < h && c < w && g[r as usize][c as usize] != b'#';
        let find = |x: u8| {
            let (r, c) = common::find(g, x);
            (r as i32, c as i32)
        };
        let exit = find(b'E');
        let family = common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'M')
            .map(|(r, c)| (r as i32, c as i32));
        let start: Vec<Pos> = std::iter::once(find(b'H'))
            .chain((0..chasers).map(|i| find(b'1' + i as u8)))
            .chain(family)
            .collect();
        let chasers = start.len() - 1;
        let caught = |s: &[Pos]| s[0] != exit && s[1..].contains(&s[0]);
        if caught(&start) {
            return None;
        }
        let mut ways = vec![(-1, 0), (0, 1), (1, 0), (0, -1)];
        if wait {
            ways.push((0, 0));
        }
        common::bfs(
            start,
            |s: &Vec<Pos>| s[0] == exit,
            |s| {
                let mut out = Vec::new();
                for &(dr, dc) in &ways {
                    let to = (s[0].0 + dr, s[0].1 + dc);
                    if (dr, dc) != (0, 0) && !open(to) {
                        continue;
                    }
                    let mut t = s.clone();
                    t[0] = to;
                    for i in 1..=chasers {
                        for _ in 0..times {
                            let (hr, hc) = t[0];
                            let (mr, mc) = t[i];
                            let prefs = [
                                (hc > mc, (0, 1)),
                                (hc < mc, (0, -1)),
                                (hr > mr, (1, 0)),
                                (hr < mr, (-1, 0)),
                            ];
                            if let Some(&(_, (er, ec))) = prefs
                                .iter()
                                .find(|&&(want, (er, ec))| want && open((mr + er, mc + ec)))
                            {
                                t[i] = (mr + er, mc + ec);
                            }
                        }
                    }
                    if !caught(&t) {
                        out.push(t);
                    }
                }
                out
            },
        )
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x7e5e);
    let (mut solved, mut unsolved) = (0, 0);
    let configs = [
        (1, 2, true),
        (1, 1, false),
        (2, 1, true),
        (2, 2, false),
        (0, 2, true),
    ];
    for (chasers, times, wait) in configs {
        let rules = rules(chasers, times, wait);
        let map =
            |rng: &mut rand::rngs::SmallRng| {
                let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=7));
                let mut g = common::random_grid(rng, h, w, |r| {
                    if r.gen_range(0..4) == 0 { b'#' } else { b'.' }
                });
                let cells = common::all_cells(&g);
                let n = if chasers == 0 {
                    rng.gen_range(0..=3)
                } else {
                    0
                };
                let marks =
                    [&b"HE12"[..2 + chasers], &b"HEMMM"[..2 + n]][usize::from(chasers == 0)];
                common::place(rng, &mut g, cells, marks);
                g
            };
        let (s, u) = common::rounds_against(&rules, &mut rng, (11, 10), map, |g| {
            solve(g, chasers, times, wait)
        });
        solved += s;
        unsolved += u;
    }
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// Movers by themselves whose preferences share their tests (a Dalek's:
/// diagonally while the hero is off both its row and its column, else
/// straight; eight conditions over four comparisons, which the interpreter
/// works out once each through a decision table): a family of one per 'D'
/// and, on some maps, one or two moves a step; a preference blocked by a
/// wall or the map's edge gives way to the next; caught off the exit is
/// forbidden. Random yards against a hand-written search, under every
/// strategy.
#[test]
fn chasers_with_shared_tests_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    // Per preference: its way, and the signs of (hero's row - its row,
    // hero's column - its column) it needs (0: either).
    const PREFS: [((i32, i32), (i32, i32)); 8] = [
        ((-1, 1), (-1, 1)),
        ((1, 1), (1, 1)),
        ((1, -1), (1, -1)),
        ((-1, -1), (-1, -1)),
        ((-1, 0), (-1, 0)),
        ((1, 0), (1, 0)),
        ((0, 1), (0, 1)),
        ((0, -1), (0, -1)),
    ];
    let rules = |times: usize| {
        format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid  exit 'E' }}\n\
             agent hero 'H' on floor\n\
             agent dalek every 'D' on floor\n\
             move hero: north northeast east southeast south southwest west northwest stay\n\
             move dalek by itself {times} times:\n\
               northeast if row of hero < its row and column of hero > its column,\n\
               southeast if row of hero > its row and column of hero > its column,\n\
               southwest if row of hero > its row and column of hero < its column,\n\
               northwest if row of hero < its row and column of hero < its column,\n\
               north if row of hero < its row,\n\
               south if row of hero > its row,\n\
               east if column of hero > its column,\n\
               west if column of hero < its column\n\
             forbid any dalek at hero and not hero on exit\n\
             goal hero on exit\n"
        )
    };
    let solve = |g: &[Vec<u8>], times: usize| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let open =
            |(r, c): Pos| r >= 0 && c >= 0 && r < h && c < w && g[r as usize][c as usize] != b'#';
        let (er, ec) = common::find(g, b'E');
        let exit = (er as i32, ec as i32);
        let (hr, hc) = common::find(g, b'H');
        let mut daleks: Vec<Pos> = common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'D')
            .map(|(r, c)| (r as i32, c as i32))
            .collect();
        daleks.sort();
        let caught = |hero: Pos, d: &[Pos]| hero != exit && d.contains(&hero);
        let start = ((hr as i32, hc as i32), daleks);
        if caught(start.0, &start.1) {
            return None;
        }
        common::bfs(
            start,
            |s: &(Pos, Vec<Pos>)| s.0 == exit,
            |(hero, daleks)| {
                let mut out = Vec::new();
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        let to = (hero.0 + dr, hero.1 + dc);
                        if !open(to) {
                            continue;
                        }
                        let mut next: Vec<Pos> = daleks.clone();
                        for d in &mut next {
                            for _ in 0..times {
                                let signs = ((to.0 - d.0).signum(), (to.1 - d.1).signum());
                                let wants = |(r, c): (i32, i32)| {
                                    (r == 0 || r == signs.0) && (c == 0 || c == signs.1)
                                };
                                if let Some(&((mr, mc), _)) = PREFS.iter().find(|&&(way, need)| {
                                    wants(need) && open((d.0 + way.0, d.1 + way.1))
                                }) {
                                    *d = (d.0 + mr, d.1 + mc);
                                }
                            }
                        }
                        next.sort();
                        if !caught(to, &next) {
                            out.push((to, next));
                        }
                    }
                }
                out
            },
        )
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xda1e);
    let (mut solved, mut unsolved) = (0, 0);
    for times in [1, 2] {
        let map =
            |rng: &mut rand::rngs::SmallRng| {
                let (h, w) = (rng.gen_range(3..=7), rng.gen_range(3..=7));
                let mut g = common::random_grid(rng, h, w, |r| {
                    if r.gen_range(0..5) == 0 { b'#' } else { b'.' }
                });
                let n = rng.gen_range(1..=3);
                let cells = common::all_cells(&g);
                common::place(rng, &mut g, cells, &b"HEDDD"[..2 + n]);
                g
            };
        let (s, u) =
            common::rounds_against(&rules(times), &mut rng, (30, 10), map, |g| solve(g, times));
        solved += s;
        unsolved += u;
    }
    assert!(
        solved > 150 && unsolved > 100,
        "{solved} solved, {unsolved} not"
    );
}

/// Pieces with poses (`poses`) moved by tables (`north { up -> long (-2,
/// 0), ... }`): the rolling block of Bloxorz, its cells those of its pose,
/// every cell it comes to cover tested (on the map, not void, a gap only
/// while the bridge is down), a switch toggling the bridge each time the
/// block comes to cover it; standing upright on the hole. Random boards,
/// the block starting upright or lying, against a hand-written search,
/// under every strategy.
#[test]
fn pieces_with_poses_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  void '#' solid  hole 'O'  switch 's'  gap 'g' }\n\
         piece block 'B' on floor\n\
         poses block { up (0, 0)  long (0, 0) (1, 0)  wide (0, 0) (0, 1) }\n\
         flag bridge\n\
         on enter switch: toggle bridge\n\
         enter gap only if bridge\n\
         move block:\n\
           north { up -> long (-2, 0), long -> up (-1, 0), wide -> wide (-1, 0) },\n\
           south { up -> long (1, 0), long -> up (2, 0), wide -> wide (1, 0) },\n\
           east  { up -> wide (0, 1), wide -> up (0, 2), long -> long (0, 1) },\n\
           west  { up -> wide (0, -2), wide -> up (0, -1), long -> long (0, -1) }\n\
         goal block on hole and block is up\n";
    let shapes: [&[(i32, i32)]; 3] = [&[(0, 0)], &[(0, 0), (1, 0)], &[(0, 0), (0, 1)]];
    // Per move, per pose: the pose it takes and the anchor's shift.
    let table: [[(usize, (i32, i32)); 3]; 4] = [
        [(1, (-2, 0)), (0, (-1, 0)), (2, (-1, 0))],
        [(1, (1, 0)), (0, (2, 0)), (2, (1, 0))],
        [(2, (0, 1)), (1, (0, 1)), (0, (0, 2))],
        [(2, (0, -2)), (1, (0, -1)), (0, (0, -1))],
    ];
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at = |(r, c): (i32, i32)| {
            (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize])
        };
        let marked: Vec<(i32, i32)> = common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'B')
            .map(|(r, c)| (r as i32, c as i32))
            .collect();
        let pose = match marked.len() {
            1 => 0,
            _ if marked[1].0 > marked[0].0 => 1,
            _ => 2,
        };
        let cells =
            |a: (i32, i32), p: usize| shapes[p].iter().map(move |&(r, c)| (a.0 + r, a.1 + c));
        let start = (marked[0], pose, false);
        let goal = |&(a, p, _): &_| p == 0 && at(a) == Some(b'O');
        common::bfs(start, goal, |&(a, p, bridge)| {
            let mut out = Vec::new();
            for row in &table {
                let (q, (dr, dc)) = row[p];
                let b = (a.0 + dr, a.1 + dc);
                let ok = cells(b, q).all(|x| match at(x) {
                    None | Some(b'#') => false,
                    Some(b'g') => bridge,
                    _ => true,
                });
                if !ok {
                    continue;
                }
                let mut nb = bridge;
                for x in cells(b, q) {
                    if at(x) == Some(b's') && !cells(a, p).any(|y| y == x) {
                        nb = !nb;
                    }
                }
                out.push((b, q, nb));
            }
            out
        })
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xb10c);
    let map = |rng: &mut rand::rngs::SmallRng| loop {
        let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=8));
        let tiles = b"........##sg";
        let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
        let (r, c) = (rng.gen_range(0..h), rng.gen_range(0..w));
        // Upright, lying north-south or lying east-west.
        let cells: &[(usize, usize)] = match rng.gen_range(0..3) {
            0 => &[(r, c)],
            1 if r + 1 < h => &[(r, c), (r + 1, c)],
            2 if c + 1 < w => &[(r, c), (r, c + 1)],
            _ => continue,
        };
        for &(r, c) in cells {
            g[r][c] = b'B';
        }
        let free: Vec<(usize, usize)> = common::all_cells(&g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] != b'B')
            .collect();
        if free.is_empty() {
            continue;
        }
        common::place(rng, &mut g, free, b"O");
        return g;
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// A piece that turns by a table (`turn right { flat -> tall (0, 0), ...
/// }`), and what a piece with poses covers asked by `every TILE has
/// PIECE`: a log three cells long (Baekjoon 1938) shifted a cell, or
/// turned a quarter about its middle when the 3 x 3 square around it is on
/// the map and free of trees (the rule file tests the corners; the table
/// tests the cells of the pose it comes to); a lamp it comes to cover,
/// turning too, toggles a light. Laid on every end cell (and, with lamps,
/// lit). Random woods against a hand-written search, under every strategy.
#[test]
fn pieces_that_turn_by_tables_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    let rules = |lamps: bool| {
        let (lamp, lit) = if lamps {
            (
                "lamp 'L'",
                "flag lit\n on enter lamp: toggle lit\n goal every end has log and lit\n",
            )
        } else {
            ("", "goal every end has log\n")
        };
        format!(
            "input {{ cases until eof  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  tree '#' solid  end 'E' {lamp} }}\n\
             piece log 'B' on floor\n\
             poses log {{ flat (0, -1) (0, 0) (0, 1)  tall (-1, 0) (0, 0) (1, 0) }}\n\
             move log:\n\
               north {{ flat -> flat (-1, 0), tall -> tall (-1, 0) }},\n\
               south {{ flat -> flat (1, 0), tall -> tall (1, 0) }},\n\
               east {{ flat -> flat (0, 1), tall -> tall (0, 1) }},\n\
               west {{ flat -> flat (0, -1), tall -> tall (0, -1) }},\n\
               turn left {{ flat -> tall (0, 0), tall -> flat (0, 0) }}\n\
                 if not cell (-1, -1) is tree and not cell (-1, 1) is tree\n\
                    and not cell (1, -1) is tree and not cell (1, 1) is tree\n\
             {lit}"
        )
    };
    let solve = |g: &[Vec<u8>], lamps: bool| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at =
            |(r, c): Pos| (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize]);
        let marked = |x: u8| -> Vec<Pos> {
            common::all_cells(g)
                .into_iter()
                .filter(|&(r, c)| g[r][c] == x)
                .map(|(r, c)| (r as i32, c as i32))
                .collect()
        };
        let log = marked(b'B');
        let ends = marked(b'E');
        // The middle cell, and whether it lies north-south.
        let start = (log[1], log[0].1 == log[1].1, false);
        let cells = |(r, c): Pos, tall: bool| -> [Pos; 3] {
            if tall {
                [(r - 1, c), (r, c), (r + 1, c)]
            } else {
                [(r, c - 1), (r, c), (r, c + 1)]
            }
        };
        let free = |p: Pos| !matches!(at(p), None | Some(b'#'));
        let goal = |&(m, tall, lit): &(Pos, bool, bool)| {
            ends.iter().all(|e| cells(m, tall).contains(e)) && (lit || !lamps)
        };
        common::bfs(start, goal, |&(m, tall, lit)| {
            let mut out = Vec::new();
            let mut to = vec![];
            for (dr, dc) in [(-1, 0), (1, 0), (0, 1), (0, -1)] {
                to.push(((m.0 + dr, m.1 + dc), tall));
            }
            let square = (-1..=1).all(|dr| (-1..=1).all(|dc| free((m.0 + dr, m.1 + dc))));
            if square {
                to.push((m, !tall));
            }
            for (n, t) in to {
                if !cells(n, t).iter().all(|&p| free(p)) {
                    continue;
                }
                let old = cells(m, tall);
                let toggles = cells(n, t)
                    .iter()
                    .filter(|p| !old.contains(p) && at(**p) == Some(b'L'))
                    .count();
                out.push((n, t, lit ^ (toggles % 2 == 1)));
            }
            out
        })
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x106);
    let (mut solved, mut unsolved) = (0, 0);
    for lamps in [false, true] {
        let map = |rng: &mut rand::rngs::SmallRng| loop {
            let (h, w) = (rng.gen_range(3..=7), rng.gen_range(3..=7));
            let tiles: &[u8] = if lamps { b"......#L" } else { b".....#" };
            let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
            // Three cells in a line, north-south or east-west.
            let line = |g: &[Vec<u8>], rng: &mut rand::rngs::SmallRng| {
                let tall = rng.gen_bool(0.5);
                let (r, c) = (rng.gen_range(0..h), rng.gen_range(0..w));
                let cells: Vec<(usize, usize)> = (0..3)
                    .map(|k| if tall { (r + k, c) } else { (r, c + k) })
                    .collect();
                cells
                    .iter()
                    .all(|&(r, c)| r < h && c < w && !b"BE".contains(&g[r][c]))
                    .then_some(cells)
            };
            let Some(log) = line(&g, rng) else { continue };
            for &(r, c) in &log {
                g[r][c] = b'B';
            }
            let Some(ends) = line(&g, rng) else { continue };
            for &(r, c) in &ends {
                g[r][c] = b'E';
            }
            return g;
        };
        let (s, u) =
            common::rounds_against(&rules(lamps), &mut rng, (30, 10), map, |g| solve(g, lamps));
        solved += s;
        unsolved += u;
    }
    eprintln!("{solved} solved, {unsolved} not");
    assert!(
        solved > 150 && unsolved > 100,
        "{solved} solved, {unsolved} not"
    );
}

/// `cell ... has PIECE` of a piece with poses asks what it covers in the
/// pose it is in: a hero steps north only while the cell north-west of it
/// is not under the log, and the log (shifted, or turned when the corners
/// around its middle are no trees) is in the way of the hero, and the hero
/// in the log's; in turn. Random woods against a hand-written search,
/// under every strategy.
#[test]
fn cell_tests_find_what_a_posed_piece_covers() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  tree '#' solid  exit 'E' }\n\
         agent hero 'H' on floor\n\
         piece log 'B' on floor\n\
         poses log { flat (0, -1) (0, 0) (0, 1)  tall (-1, 0) (0, 0) (1, 0) }\n\
         move hero: north if not cell (-1, -1) has log, east, south, west\n\
         move log:\n\
           north { flat -> flat (-1, 0), tall -> tall (-1, 0) },\n\
           south { flat -> flat (1, 0), tall -> tall (1, 0) },\n\
           east { flat -> flat (0, 1), tall -> tall (0, 1) },\n\
           west { flat -> flat (0, -1), tall -> tall (0, -1) },\n\
           turn right { flat -> tall (0, 0), tall -> flat (0, 0) }\n\
             if not cell (-1, -1) is tree and not cell (-1, 1) is tree\n\
                and not cell (1, -1) is tree and not cell (1, 1) is tree\n\
         goal hero on exit\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at =
            |(r, c): Pos| (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize]);
        let free = |p: Pos| !matches!(at(p), None | Some(b'#'));
        let cells = |(r, c): Pos, tall: bool| -> [Pos; 3] {
            if tall {
                [(r - 1, c), (r, c), (r + 1, c)]
            } else {
                [(r, c - 1), (r, c), (r, c + 1)]
            }
        };
        let log: Vec<Pos> = common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'B')
            .map(|(r, c)| (r as i32, c as i32))
            .collect();
        let (hr, hc) = common::find(g, b'H');
        let start = ((hr as i32, hc as i32), log[1], log[0].1 == log[1].1);
        let goal = |s: &(Pos, Pos, bool)| at(s.0) == Some(b'E');
        common::bfs(start, goal, |&(hero, m, tall)| {
            let mut out = Vec::new();
            let under = cells(m, tall);
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let to = (hero.0 + dr, hero.1 + dc);
                let nw = (hero.0 - 1, hero.1 - 1);
                if free(to) && !under.contains(&to) && !(dr == -1 && under.contains(&nw)) {
                    out.push((to, m, tall));
                }
            }
            let corners = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
            let turn = corners
                .iter()
                .all(|&(dr, dc)| at((m.0 + dr, m.1 + dc)) != Some(b'#'));
            let mut to = vec![];
            for (dr, dc) in [(-1, 0), (1, 0), (0, 1), (0, -1)] {
                to.push(((m.0 + dr, m.1 + dc), tall));
            }
            if turn {
                to.push((m, !tall));
            }
            for (n, t) in to {
                if cells(n, t).iter().all(|&p| free(p) && p != hero) {
                    out.push((hero, n, t));
                }
            }
            out
        })
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0xce11);
    let map = |rng: &mut rand::rngs::SmallRng| loop {
        let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=6));
        let mut g =
            common::random_grid(
                rng,
                h,
                w,
                |r| if r.gen_range(0..6) == 0 { b'#' } else { b'.' },
            );
        let tall = rng.gen_bool(0.5);
        let (r, c) = (rng.gen_range(0..h), rng.gen_range(0..w));
        let log: Vec<(usize, usize)> = (0..3)
            .map(|k| if tall { (r + k, c) } else { (r, c + k) })
            .collect();
        if log.iter().any(|&(r, c)| r >= h || c >= w) {
            continue;
        }
        for &(r, c) in &log {
            g[r][c] = b'B';
        }
        let rest: Vec<(usize, usize)> = common::all_cells(&g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] != b'B')
            .collect();
        if rest.len() < 2 {
            continue;
        }
        common::place(rng, &mut g, rest, b"HE");
        return g;
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 30,
        "{solved} solved, {unsolved} not"
    );
}

/// Bodies that follow (`agent body every 'o' ... follows head`): the
/// members, in order from the head along the marked line, each take the
/// cell the one before it left when it leaves it; the head never enters
/// its body (the tail's cell neither: the tail leaves after); a lamp each
/// body member comes onto toggles a light the exit needs. Random yards
/// with bodies of one to three cells against a hand-written search, under
/// every strategy.
#[test]
fn bodies_that_follow_match_a_hand_written_search() {
    use rand::{Rng, SeedableRng};
    type Pos = (i32, i32);
    let rules = "input { cases until eof  header rows cols  grid rows x cols }\n\
         tiles { floor '.'  wall '#' solid  exit 'E'  lamp 'L' }\n\
         agent head 'H' on floor\n\
         agent body every 'o' on floor follows head\n\
         flag lit\n\
         move head: north east south west\n\
         on body enter lamp: toggle lit\n\
         goal head on exit and lit\n";
    let solve = |g: &[Vec<u8>]| -> Option<u32> {
        let (h, w) = (g.len() as i32, g[0].len() as i32);
        let at =
            |(r, c): Pos| (r >= 0 && c >= 0 && r < h && c < w).then(|| g[r as usize][c as usize]);
        let find = |x: u8| {
            let (r, c) = common::find(g, x);
            (r as i32, c as i32)
        };
        // The chain from the head: the cell of 'o' beside the last one.
        let mut chain = vec![find(b'H')];
        let mut left: Vec<Pos> = common::all_cells(g)
            .into_iter()
            .filter(|&(r, c)| g[r][c] == b'o')
            .map(|(r, c)| (r as i32, c as i32))
            .collect();
        while let Some(k) = left.iter().position(|&p| {
            let q = *chain.last().unwrap();
            (p.0 - q.0).abs() + (p.1 - q.1).abs() == 1
        }) {
            chain.push(left.remove(k));
        }
        let goal = |(cells, lit): &(Vec<Pos>, bool)| at(cells[0]) == Some(b'E') && *lit;
        common::bfs((chain, false), goal, |(cells, lit)| {
            let mut out = Vec::new();
            for (dr, dc) in [(-1, 0), (0, 1), (1, 0), (0, -1)] {
                let to = (cells[0].0 + dr, cells[0].1 + dc);
                if matches!(at(to), None | Some(b'#')) || cells[1..].contains(&to) {
                    continue;
                }
                let mut next = vec![to];
                next.extend_from_slice(&cells[..cells.len() - 1]);
                let mut l = *lit;
                for &p in &next[1..] {
                    if at(p) == Some(b'L') {
                        l = !l;
                    }
                }
                out.push((next, l));
            }
            out
        })
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(0x5a4e);
    let map = |rng: &mut rand::rngs::SmallRng| loop {
        let (h, w) = (rng.gen_range(3..=6), rng.gen_range(3..=7));
        let tiles = b"......#L";
        let mut g = common::random_grid(rng, h, w, |r| tiles[r.gen_range(0..tiles.len())]);
        // A body of 1 to 3 cells laid as a random walk from the head.
        let (mut r, mut c) = (rng.gen_range(0..h), rng.gen_range(0..w));
        g[r][c] = b'H';
        let mut ok = true;
        for _ in 0..rng.gen_range(1..=3) {
            let (dr, dc) = [(-1i32, 0i32), (0, 1), (1, 0), (0, -1)][rng.gen_range(0..4)];
            let (nr, nc) = (r as i32 + dr, c as i32 + dc);
            if nr < 0 || nc < 0 || nr >= h as i32 || nc >= w as i32 {
                ok = false;
                break;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            // Beside the last cell only: the chain has one order.
            let beside = [(-1i32, 0i32), (0, 1), (1, 0), (0, -1)]
                .iter()
                .any(|(dr, dc)| {
                    let (a, b) = (nr as i32 + dr, nc as i32 + dc);
                    (a, b) != (r as i32, c as i32)
                        && a >= 0
                        && b >= 0
                        && a < h as i32
                        && b < w as i32
                        && matches!(g[a as usize][b as usize], b'H' | b'o')
                });
            if matches!(g[nr][nc], b'H' | b'o') || beside {
                ok = false;
                break;
            }
            g[nr][nc] = b'o';
            (r, c) = (nr, nc);
        }
        let free: Vec<(usize, usize)> = common::all_cells(&g)
            .into_iter()
            .filter(|&(r, c)| !matches!(g[r][c], b'H' | b'o'))
            .collect();
        if !ok || free.is_empty() {
            continue;
        }
        common::place(rng, &mut g, free, b"E");
        return g;
    };
    let (solved, unsolved) = common::rounds_against(rules, &mut rng, (50, 10), map, solve);
    assert!(
        solved > 150 && unsolved > 50,
        "{solved} solved, {unsolved} not"
    );
}

/// A lone agent of more than eight moves (a king's steps and leaps besides)
/// is searched like any other: up to 16 by its bitmask of exits per cell,
/// more by its table of moves (nine panicked in the kernel once).
#[test]
fn a_lone_agent_of_many_moves() {
    let input = "1\n4 5\nA....\n.....\n.....\n....X\n";
    for (moves, want) in [
        (
            "north south east west northeast northwest southeast southwest (2, 1)",
            "4\n",
        ),
        (
            "north south east west northeast northwest southeast southwest (2, 1) (1, 2) \
             (-2, 1) (-1, 2) (2, -1) (1, -2) (-2, -1) (-1, -2) (3, 3)",
            "2\n",
        ),
    ] {
        let rules = format!(
            "input {{ cases counted  header rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  exit 'X' }}\n\
             agent a 'A' on floor\n\
             move a: {moves}\n\
             goal a on exit\n\
             output {{ solved \"{{steps}}\" unsolved \"-1\" }}\n"
        );
        assert_eq!(answer(&rules, input), want, "{moves}");
    }
}

/// Escapes in output lines (`\n`, `\t`, `\"`, `\\`, `\{`, `\}`) and the
/// `after` line, printed once after the last case.
#[test]
fn output_lines_take_escapes_and_an_after_line() {
    let rules = "input { cases counted  header rows cols  grid rows x cols }\n\
                 tiles { floor '.'  exit 'X' }\n\
                 agent a 'A' on floor\n\
                 move a: north east south west\n\
                 goal a on exit\n\
                 output { before \"Case {case}:\\t\\\"maze\\\"\" solved \"{cost} \\{cost\\}\\n\" \
                          unsolved \"none\\\\\" after \"end\" }\n";
    let input = "2\n1 3\nA.X\n1 2\nA.\n";
    assert_eq!(
        answer(rules, input),
        "Case 1:\t\"maze\"\n2 {cost}\n\nCase 2:\t\"maze\"\nnone\\\nend\n"
    );
}
