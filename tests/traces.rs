//! `verify` says why an illegal step is illegal, for each way a step can
//! be refused. (That moves hold for every shipped puzzle, strategy and
//! thread count is checked by every differential test: see
//! `common::assert_moves_hold`.)

/// What `verify` says of `moves` for one case of `rules` on `map`.
fn verdict(rules: &str, map: &str, moves: &str) -> String {
    let loaded = puzzle::load("t.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
    let input = puzzle::run::Input::from_text("t.in", map);
    let mut out = Vec::new();
    let opts = puzzle::run::Options {
        bare: Some(Vec::new()),
        ..Default::default()
    };
    puzzle::run::verify_input(&loaded.rules, &input, moves, &opts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const IN_TURN: &str = "tiles { floor '.' wall '#' solid  gate 'G'  exit 'X' }\n\
    agent bot[2] '1'.. on floor\nflag open\n\
    move bot in turn: north east south west\nforbid same cell\n\
    enter gate only if open\ngoal any bot on exit\n";

#[test]
fn each_refusal_is_said() {
    let map = "12.X\n.#G.\n";
    for (moves, said) in [
        ("bot[1]:east", "bot[2] stands at row 1, column 2"),
        ("bot[1]:north", "bot[1] would leave the map"),
        (
            "bot[2]:south",
            "bot[2] would walk into a solid tile at row 2, column 2",
        ),
        (
            "bot[2]:east bot[2]:south",
            "bot[2] may not enter row 2, column 3 now (its entry condition)",
        ),
        ("bot[3]:east", "`bot[3]` is not an agent of this map"),
        (
            "bot[1]:up",
            "`up` is not a move of bot[1] (its moves: north, east, south, west)",
        ),
        (
            "east",
            "a step is MOVER:MOVE when several agents take turns",
        ),
    ] {
        let got = verdict(IN_TURN, map, moves);
        assert!(got.contains(said), "{moves}: {got}");
        assert!(got.starts_with("case 1: illegal: step "), "{moves}: {got}");
    }
    let at_once = "tiles { floor '.' exit 'X' }\nagent bot[2] '1'.. on floor\n\
        move bot at once: east west stay\nforbid same cell\ngoal any bot on exit\n";
    let got = verdict(at_once, "1.2X\n", "east,west");
    assert!(
        got.contains("bot[2] would end on another agent's cell, or swap with one"),
        "{got}"
    );
    let got = verdict(at_once, "1.2X\n", "east");
    assert!(
        got.contains("a step names the moves of all 2 agents"),
        "{got}"
    );
}

/// A one-cell agent refused a cell that a piece covers is told which piece
/// covers it, whether or not the cell is the piece's first.
#[test]
fn a_refusal_names_the_piece_that_covers_the_cell() {
    let rules = "tiles { floor '.' }\npiece block 'A' on floor\nagent hero '@' on floor\n\
        move all: north east south west\ngoal hero on floor\n";
    let map = "@...\n.AA.\n.AA.\n";
    for (moves, said) in [
        ("hero:east hero:south", "block stands at row 2, column 2"),
        (
            "hero:east hero:east hero:south",
            "block stands at row 2, column 3",
        ),
    ] {
        let got = verdict(rules, map, moves);
        assert!(got.contains(said), "{moves}: {got}");
    }
}

/// `--trace` draws a mover on a tile with its marker for that tile (a box
/// on a spot `*`, a walker on a spot its own), so the spot stays seen, and
/// says the cost is the way's total so far.
#[test]
fn a_trace_keeps_the_tile_under_a_mover_seen() {
    let opts = puzzle::run::Options {
        trace: true,
        ..Default::default()
    };
    let sokoban = crate::common::puzzle("sokoban");
    let got = crate::common::output(&sokoban.rules, "3 5\n#####\n#@$.#\n#####\n0 0\n", &opts);
    assert!(
        got.contains("step 1: keeper:east (total cost 1)\n  #####\n  # @*#\n"),
        "{got}"
    );
    let rules = "tiles { floor '.' spot 'x' exit 'E' }\n\
                 agent hero '@' on floor, 'H' on spot\n\
                 move hero: east\ngoal hero on exit\n";
    let walker = puzzle::load("t.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
    let got = crate::common::output(&walker.rules, "@xE\n", &opts);
    assert!(
        got.contains("step 1: east (total cost 1)\n  .HE\n"),
        "{got}"
    );
    assert!(
        got.contains("step 2: east (total cost 2)\n  .x@\n"),
        "{got}"
    );
}

/// Where agents move at once, `--trace` names each agent's move (`ghost[1]:stay
/// ghost[2]:north`), and the moves are the token `--moves` writes
/// (`stay,north`), step by step.
#[test]
fn a_trace_names_each_move_made_at_once() {
    let loaded = crate::common::puzzle("halloween");
    let input = crate::common::read(&crate::common::root().join("puzzles/halloween.in"));
    let trace = puzzle::run::Options {
        trace: true,
        ..Default::default()
    };
    let moves = puzzle::run::Options {
        moves: true,
        ..Default::default()
    };
    let traced = crate::common::output(&loaded.rules, &input, &trace);
    let tokens = crate::common::output(&loaded.rules, &input, &moves);
    let labels: Vec<&str> = traced
        .lines()
        .filter_map(|l| l.strip_prefix("step "))
        .map(|l| {
            l.split_once(": ")
                .unwrap()
                .1
                .split(" (total cost")
                .next()
                .unwrap()
        })
        .collect();
    let tokens: Vec<&str> = tokens
        .lines()
        .filter(|l| l.contains(','))
        .flat_map(|l| l.split(' '))
        .collect();
    assert_eq!(labels.len(), tokens.len(), "{traced}");
    for (label, token) in labels.iter().zip(&tokens) {
        let parts: Vec<&str> = label.split(' ').collect();
        assert!(parts.iter().all(|p| p.starts_with("ghost[")), "{label}");
        let moves: Vec<&str> = parts.iter().map(|p| p.split_once(':').unwrap().1).collect();
        assert_eq!(moves.join(","), *token, "{label}");
    }
    assert!(labels.len() > 20, "{} steps", labels.len());
}

/// `explain --why` explores every state reachable from the start: how
/// many, whether one is a goal, the moves never taken, and each mover's
/// cells drawn over the map; a limit says the walk was cut short.
#[test]
fn why_shows_what_the_start_can_reach() {
    let rules = "tiles { floor '.' wall '#' solid exit 'E' }\n\
                 agent hero '@' on floor\n\
                 move hero: north east south west\n\
                 goal hero on exit\n";
    let loaded = puzzle::load("t.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
    let explain = |map: &str, max_states: Option<u64>| {
        let input = puzzle::run::Input::from_text("t.in", map);
        let mut opts = puzzle::run::Options {
            why: true,
            bare: Some(Vec::new()),
            ..Default::default()
        };
        opts.limits.max_states = max_states;
        let mut out = Vec::new();
        puzzle::run::explain_input(&loaded.rules, &input, &opts, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        out[out.find("why:").expect("a why")..].to_string()
    };
    assert_eq!(
        explain("@.#.E\n", None),
        "why: 2 states reached (every state reachable from the start), none of them a goal\n  \
         moves never taken: hero:north, hero:south\n  \
         cells hero stands on (2, drawn `+`):\n    ++#.E\n"
    );
    let open = explain("@...E\n.....\n", None);
    assert!(open.starts_with("why: 10 states reached (every"), "{open}");
    assert!(open.contains("some of them a goal"), "{open}");
    assert!(open.contains("    +++++\n    +++++\n"), "{open}");
    let cut = explain("@...E\n.....\n", Some(3));
    assert!(cut.contains("(a limit stopped the walk"), "{cut}");
    // A goal of two parts: the exit is reached, the key never.
    let rules = "tiles { floor '.' wall '#' solid exit 'E' key 'k' }\n\
                 agent hero '@' on floor\nflag got\non enter key: set got\n\
                 move hero: north east south west\n\
                 goal hero on exit and got\n";
    let loaded = puzzle::load("t.puz", rules).unwrap_or_else(|e| panic!("{e:?}"));
    let input = puzzle::run::Input::from_text("t.in", "@.#k\n.E#.\n");
    let opts = puzzle::run::Options {
        why: true,
        bare: Some(Vec::new()),
        ..Default::default()
    };
    let mut out = Vec::new();
    puzzle::run::explain_input(&loaded.rules, &input, &opts, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let never = "of the goal's 2 (joined by `and`, in the order written) is never true";
    assert!(out.contains(&format!("part 2 {never}: `got`\n")), "{out}");
    assert!(!out.contains(&format!("part 1 {never}")), "{out}");
    // The same as JSON, a line a case.
    let opts = puzzle::run::Options {
        format: puzzle::run::Format::Json,
        ..opts
    };
    let mut out = Vec::new();
    puzzle::run::explain_input(&loaded.rules, &input, &opts, &mut out).unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let why = &line["why"];
    assert_eq!(why["states"], 4, "{line}");
    assert_eq!(why["goal"], false, "{line}");
    assert_eq!(why["parts_never_true"], serde_json::json!([2]), "{line}");
    assert_eq!(
        why["parts_never_true_text"],
        serde_json::json!(["got"]),
        "{line}"
    );
    assert_eq!(why["moves_never_taken"], serde_json::json!([]), "{line}");
    assert_eq!(
        why["cells"]["hero"],
        serde_json::json!([[0, 0], [0, 1], [1, 0], [1, 1]]),
        "{line}"
    );
}
