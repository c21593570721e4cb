//! Language features beyond the shipped puzzles, each on a small rule file
//! and map whose answer is worked out by hand in the comment beside it.

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
        "domain coin = {}\ntiles {{ floor '.'  coin {} of coin }}\nagent hero 'H' on floor\nflag got[coin]\nmove hero: east west\non enter coin(c): set got[c]\ngoal all got\n",
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
    let err = puzzle::run(&loaded.rules, "map", &map, &Options::default(), &mut out).unwrap_err();
    let text = format!("{:?}", miette::Report::new(err));
    assert!(text.contains("needs 1041 bits"), "{text}");
    assert!(text.contains("got[c0] 1 bits"), "{text}");
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
