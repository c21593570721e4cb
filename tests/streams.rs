//! Under pressure nothing is lost: the command line's streams and signals
//! (a full disk, a closed pipe, SIGTERM mid-file) and inputs built to hurt
//! (deep nesting, very long lines, thousands of unknown symbols, byte-order
//! marks).

use crate::common;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

fn puzzle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_puzzle"))
}

fn path(p: &str) -> String {
    common::root().join(p).display().to_string()
}

/// The third map of the Halloween sample, `n` times: about 0.1 s each with
/// plain BFS.
fn slow_input(n: usize) -> (String, String) {
    let sample = common::read(&common::root().join("puzzles/halloween.in"));
    let lines: Vec<&str> = sample.lines().collect();
    let case = lines[11..28].join("\n") + "\n";
    (format!("{}0 0 0\n", case.repeat(n)), "77\n".repeat(n))
}

fn write_temp(name: &str, text: &[u8]) -> String {
    let p = std::env::temp_dir().join(format!("puzzle-streams-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn a_full_disk_is_an_error_with_its_own_exit_code() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full on this machine");
        return;
    }
    let keytask = path("puzzles/keytask.puz");
    let input = path("puzzles/keytask.in");
    for args in [
        vec!["check", &keytask],
        vec!["explain", &keytask, &input],
        vec!["run", &keytask, &input],
        vec!["run", &keytask, &input, "--threads", "2"],
    ] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = puzzle().args(&args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(err.contains("cannot write the output"), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let (input, _) = slow_input(40);
    let file = write_temp("pipe.in", input.as_bytes());
    for threads in ["1", "2"] {
        let mut child = puzzle()
            .args([
                "run",
                &path("puzzles/halloween.puz"),
                &file,
                "--strategy",
                "bfs",
            ])
            .args(["--threads", threads])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is dropped here: the pipe closes.
        assert_eq!(first, "77\n");
        let status = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(0), "{threads} threads: {err}");
        assert_eq!(err, "", "{threads} threads: nothing on stderr");
    }
}

/// `puzzle run` on a slow input (see [`slow_input`]) with breadth-first
/// search on `threads` threads, once its first two answers are out: the
/// child, its stdout, and those answers.
fn slow_run(
    file: &str,
    args: &[&str],
    stderr: Stdio,
) -> (
    std::process::Child,
    BufReader<std::process::ChildStdout>,
    String,
) {
    let mut child = puzzle()
        .args(["run", &path("puzzles/halloween.puz"), file])
        .args(["--strategy", "bfs"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut got = String::new();
    for _ in 0..2 {
        out.read_line(&mut got).unwrap();
    }
    (child, out, got)
}

#[test]
fn a_run_killed_mid_file_leaves_every_finished_answer_in_order() {
    let (input, want) = slow_input(60);
    let file = write_temp("kill.in", input.as_bytes());
    for threads in ["1", "2"] {
        let (mut child, mut out, mut got) =
            slow_run(&file, &["--threads", threads], Stdio::inherit());
        // SAFETY: `kill` only sends a signal to the child's process id.
        let sent = unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        assert_eq!(sent, 0, "the signal is sent");
        out.read_to_string(&mut got).unwrap();
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "{threads} threads: the run was cut short"
        );
        assert!(
            got.len() >= 6 && got.len() < want.len(),
            "{threads} threads: {got:?}"
        );
        assert!(
            want.starts_with(&got),
            "{threads} threads: whole answers, in order: {got:?}"
        );
    }
}

#[test]
fn deep_nesting_is_a_report_not_a_crash() {
    let rules = format!(
        "tiles {{ floor '.' }}\nagent hero 'H' on floor\nflag f\nmove hero: east\n\
         when hero on floor: set f\ngoal {}f{}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let err = puzzle::load("deep.puz", &rules).err().expect("rejected");
    let text = puzzle::error::render(&err);
    assert!(text.contains("nested deeper than 64"), "{text}");
    assert!(text.len() < 4000, "a short report: {} bytes", text.len());
    // A hundred thousand `not`s and minus signs are no nesting at all.
    let nots = format!(
        "input {{ header t  grid 1 x 1 }}\ntiles {{ floor '.' }}\nagent hero 'H' on floor\n\
         flag f\nmove hero: east\nwhen hero on floor: set f\nlimit steps <= {}t\ngoal {}f\n",
        "- ".repeat(100_000),
        "not ".repeat(100_000)
    );
    let loaded = puzzle::load("nots.puz", &nots).unwrap();
    let mut out = Vec::new();
    let opts = puzzle::run::Options {
        search: puzzle::search::Config {
            threads: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    // 100,000 is even: `not ... not f` is `f`, and `- ... - t` is `t`.
    puzzle::run(&loaded.rules, "in", "0\nH\n", &opts, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "0\n");
}

#[test]
fn reports_stay_short_on_long_lines_and_many_problems() {
    let rules = common::puzzle("keytask").rules;
    // A row of ten million characters.
    let long = format!("1 3\n*{}\n0 0\n", ".".repeat(10_000_000));
    let mut out = Vec::new();
    let err = puzzle::run(&rules, "long.in", &long, &Default::default(), &mut out).unwrap_err();
    let text = puzzle::error::render(&err);
    assert!(text.contains("10000001 characters wide"), "{text}");
    assert!(text.len() < 4000, "a short report: {} bytes", text.len());
    // Twenty thousand distinct unknown symbols in one map.
    let row = |from: u32| -> String {
        (from..from + 10_000)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect()
    };
    let many = format!("2 10000\n{}\n{}\n0 0\n", row(0), row(10_000));
    let err = puzzle::run(&rules, "many.in", &many, &Default::default(), &mut out).unwrap_err();
    let text = puzzle::error::render(&err);
    let head: String = text.chars().take(200).collect();
    // Each distinct symbol once, and the student's missing start.
    assert!(text.contains("20001 problems"), "{head}");
    assert!(text.contains("the first 20 shown"), "{head}");
    assert!(
        text.len() < 40_000,
        "a bounded report: {} bytes",
        text.len()
    );
}

#[test]
fn byte_order_marks_are_skipped() {
    let bom = |p: &str| {
        let mut b = b"\xEF\xBB\xBF".to_vec();
        b.extend(std::fs::read(common::root().join(p)).unwrap());
        b
    };
    let rules = write_temp("bom.puz", &bom("puzzles/keytask.puz"));
    let input = write_temp("bom.in", &bom("puzzles/keytask.in"));
    let out = puzzle().args(["run", &rules, &input]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = common::read(&common::root().join("puzzles/keytask.out"));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
}

/// A run with limits: its stdout, stderr and exit code.
fn limited(puz: &str, input: &str, args: &[&str]) -> (String, String, Option<i32>) {
    let out = puzzle()
        .args(["run", &path(puz), &path(input)])
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

#[test]
fn a_state_limit_ends_a_case_and_the_run_goes_on() {
    for threads in ["1", "2"] {
        let args = [
            "--strategy",
            "bfs",
            "--max-states",
            "20000",
            "--threads",
            threads,
        ];
        let (out, err, code) = limited("puzzles/halloween.puz", "puzzles/halloween.in", &args);
        // The first two maps need fewer states; the third is stopped, and
        // its line is `?` (the rule file has no `stopped` line).
        assert_eq!(out, "7\n36\n?\n", "{threads} threads");
        assert_eq!(code, Some(3), "{threads} threads: {err}");
        assert!(
            err.contains("case 3 stopped by the limit of 20000 states (--max-states)"),
            "{err}"
        );
        assert!(err.contains("at depth"), "{err}");
    }
}

#[test]
fn a_state_limit_counts_both_sides_of_a_bidirectional_search() {
    let args = ["--strategy", "bidir", "--max-states", "3000"];
    let (out, err, code) = limited("puzzles/eight.puz", "puzzles/eight.in", &args);
    assert_eq!(out, "0\n2\n?\n?\n");
    assert_eq!(code, Some(3), "{err}");
    // Both sides' stores, not just their frontiers, count: the search stops
    // at the first level past the limit (a count of the frontiers alone
    // let it go on three levels more).
    for (case, depth) in [(3, 23), (4, 24)] {
        let line = err
            .lines()
            .find(|l| l.contains(&format!("case {case} stopped")))
            .unwrap_or_else(|| panic!("case {case} not stopped: {err}"));
        assert_eq!(reported(line, "at depth "), depth, "{line}");
        assert!(reported(line, "with ") < 3000 + 2 * 4096, "{line}");
    }
}

#[test]
fn a_time_limit_ends_a_case_and_the_run_goes_on() {
    let (input, _) = slow_input(3);
    let file = write_temp("time.in", input.as_bytes());
    let rules = write_temp(
        "time.puz",
        format!(
            "{}\noutput {{ solved \"{{steps}}\"  stopped \"too slow\" }}\n",
            common::read(&common::root().join("puzzles/halloween.puz"))
        )
        .as_bytes(),
    );
    for threads in ["1", "2"] {
        let out = puzzle()
            .args([
                "run",
                &rules,
                &file,
                "--strategy",
                "bfs",
                "--timeout",
                "2ms",
            ])
            .args(["--threads", threads])
            .output()
            .unwrap();
        let (stdout, err) = (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        );
        // Each map takes about a tenth of a second with plain BFS.
        assert_eq!(stdout, "too slow\n".repeat(3), "{threads} threads: {err}");
        assert_eq!(out.status.code(), Some(3), "{threads} threads");
        assert!(err.contains("the time limit of 2ms (--timeout)"), "{err}");
    }
}

#[test]
fn a_memory_limit_ends_a_case_and_the_run_goes_on() {
    // Five robots on an open floor, each a step from its target (5 steps),
    // then far apart: hundreds of millions of states, far more than 20 MiB
    // of frontier (and bitset layers that do not fit either).
    let near = "aA......\nbB......\ncC......\ndD......\neE......\n........\n........\n........\n";
    let far = common::read(&common::root().join("benches/synthetic/robots.txt"))
        .replacen("........", "e.......", 1)
        .replacen("........", ".......E", 1);
    let input = write_temp("mem.in", format!("{near}\n{far}").as_bytes());
    let rules = common::read(&common::root().join("benches/synthetic/robots.puz"))
        .replace("bot[4]", "bot[5]")
        .replace("tiles {", "input { cases until eof  grid 8 x 8 }\ntiles {");
    let rules = write_temp("mem.puz", rules.as_bytes());
    for threads in ["1", "2"] {
        let out = puzzle()
            .args([
                "run",
                &rules,
                &input,
                "--strategy",
                "bfs",
                "--max-memory",
                "20M",
            ])
            .args(["--threads", threads])
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stdout, "5\n?\n", "{threads} threads: {err}");
        assert_eq!(out.status.code(), Some(3), "{threads} threads");
        assert!(
            err.contains("case 2 stopped by the memory limit of 20.0 MiB (--max-memory)"),
            "{err}"
        );
    }
}

/// A run some limit stopped: it printed `stdout` and exited with 3. Its
/// stderr, and `context` with it for the messages of further checks.
fn stopped(out: std::process::Output, stdout: &str, context: String) -> (String, String) {
    let err = String::from_utf8(out.stderr).unwrap();
    let what = format!("{context}: {err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), stdout, "{what}");
    assert_eq!(out.status.code(), Some(3), "{what}");
    (err, what)
}

/// The number after `word` in a `stopped by` report.
fn reported(err: &str, word: &str) -> u64 {
    let at = err
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {err}"));
    err[at + word.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {word:?} in {err}"))
}

#[test]
fn a_deep_search_of_thin_levels_meets_its_limits() {
    // Found by the fuzzer: the Monocycle with a million wheel sectors. Its
    // answer lies 1,285,713 levels deep, each level a few dozen states; the
    // budget used to be checked once per 4096 states of one level, so never
    // until the search ended.
    let rules = common::read(&common::root().join("puzzles/monocycle.puz"))
        .replace("counter sector 0..4 wrap", "counter sector 0..999994 wrap");
    assert!(
        rules.contains("999994"),
        "the Monocycle's counter line moved"
    );
    let rules = write_temp("deep.puz", rules.as_bytes());
    let map = "10 10\n#S.......#\n#..#.##.##\n#.##.##.##\n.#....##.#\n##.##..#.#\n\
               #..#.##...\n#......##.\n..##.##...\n#.###...#.\n#.....###T\n0 0\n";
    let input = write_temp("deep.in", map.as_bytes());
    for threads in ["1", "2"] {
        for limit in [["--max-states", "200000"], ["--timeout", "300ms"]] {
            let out = puzzle()
                .args(["run", &rules, &input, "--threads", threads])
                .args(limit)
                .output()
                .unwrap();
            let (err, what) = stopped(out, "Case #1\n?\n", format!("{threads} threads, {limit:?}"));
            // Stopped near the limit, far from the answer's depth.
            assert!(reported(&err, "at depth ") < 1_000_000, "{what}");
            if limit[0] == "--max-states" {
                assert!(reported(&err, "with ") < 200_000 + 2 * 4096, "{what}");
            }
        }
    }
}

/// Sixteen movers at once: every state has up to 5^16 successors, so one
/// expansion is far more than any limit allows.
fn sixteen_at_once(costs: bool) -> (String, String) {
    let mut rules = String::from(
        "puzzle \"Sixteen at once\"\ntiles { floor '.' mud '~' }\n\
         agent bot[16] 'a'.. target 'A'.. on floor\n\
         move bot at once: north east south west stay\n\
         forbid same cell\ngoal every bot on its target\n",
    );
    if costs {
        rules.push_str("enter mud costs 2\n");
    }
    let mut map = String::from("abcdefghijklmnop\n");
    for row in 0..14 {
        map.push_str(if row == 7 {
            "~~~~~~~~~~~~~~~~\n"
        } else {
            "................\n"
        });
    }
    map.push_str("ABCDEFGHIJKLMNOP\n");
    let name = if costs { "sixteen-costs" } else { "sixteen" };
    (
        write_temp(&format!("{name}.puz"), rules.as_bytes()),
        write_temp(&format!("{name}.in"), map.as_bytes()),
    )
}

#[test]
fn a_state_with_billions_of_successors_meets_every_limit() {
    // Found when trying many movers at once: the successors of one state
    // were gathered without a check, and A* grew past any memory limit
    // until the system killed it; breadth-first search overshot the time
    // limit tenfold.
    for costs in [false, true] {
        let (rules, input) = sixteen_at_once(costs);
        let plan = puzzle().args(["explain", &rules, &input]).output().unwrap();
        let plan = String::from_utf8(plan.stdout).unwrap();
        assert!(
            plan.contains(
                "budget checks: after every 65536 successors: a state may have 152587890625 of them"
            ),
            "{plan}"
        );
        let strategies: &[&str] = if costs { &["auto"] } else { &["auto", "bfs"] };
        for strategy in strategies {
            for threads in ["1", "2"] {
                for limit in [
                    ["--max-states", "100000"],
                    ["--max-memory", "100M"],
                    ["--timeout", "300ms"],
                ] {
                    let start = std::time::Instant::now();
                    let out = puzzle()
                        .args(["run", &rules, &input, "--strategy", strategy])
                        .args(["--threads", threads])
                        .args(limit)
                        .output()
                        .unwrap();
                    let took = start.elapsed();
                    let context =
                        format!("costs {costs}, {strategy}, {threads} threads, {limit:?}");
                    let (err, what) = stopped(out, "?\n", context);
                    let flag = limit[0].trim_start_matches('-');
                    assert!(err.contains(&format!("(--{flag})")), "{what}");
                    // Loose: a hang or a runaway is minutes, not seconds.
                    assert!(took.as_secs() < 30, "took {took:?}: {what}");
                    if limit[0] == "--max-states" {
                        assert!(reported(&err, "with ") < 100_000 + (1 << 17), "{what}");
                    }
                    if limit[0] == "--max-memory" {
                        let mib: f64 = err
                            .split("held at most ")
                            .nth(1)
                            .and_then(|m| m.split(' ').next())
                            .and_then(|m| m.parse().ok())
                            .unwrap_or(f64::MAX);
                        assert!(mib < 150.0, "{what}");
                    }
                }
            }
        }
    }
}

/// A Key Task input: a map of 9,000,000 cells, then one of three.
fn huge_keytask_map() -> String {
    let mut map = String::from("3000 3000\n*");
    for r in 0..3000 {
        let row = if r == 2999 {
            format!("{}X", ".".repeat(2999))
        } else {
            ".".repeat(3000 - usize::from(r == 0))
        };
        map.push_str(&row);
        map.push('\n');
    }
    map.push_str("1 3\n*.X\n0 0\n");
    write_temp("huge-map.in", map.as_bytes())
}

#[test]
fn a_time_limit_ends_the_build_of_a_large_maps_tables() {
    // The tables of a large map take about a second: a limit is checked
    // between their passes, not only once the search starts (it stopped a
    // 1s limit after 4.8 s). How soon is the machine's to say; that it
    // stops there, with the case's `?` and the next case answered, is
    // asserted.
    let input = huge_keytask_map();
    let rules = path("puzzles/keytask.puz");
    for threads in ["1", "2"] {
        let out = puzzle()
            .args([
                "run",
                &rules,
                &input,
                "--timeout",
                "20ms",
                "--threads",
                threads,
            ])
            .output()
            .unwrap();
        let (err, what) = stopped(out, "?\nEscape possible in 2 steps.\n", threads.into());
        assert!(
            err.contains("case 1 stopped by the time limit of 20ms (--timeout), at depth 0"),
            "{what}"
        );
    }
}

#[test]
fn a_map_too_large_for_the_memory_left_stops_before_its_search() {
    // A Key Task map of 9,000,000 cells: its tables are built before the
    // search can check its budget, and used to abort the process when the
    // system had no memory for them. The small map after it is answered.
    let input = huge_keytask_map();
    let rules = path("puzzles/keytask.puz");
    for threads in ["1", "2"] {
        // The memory limit, and the system's own (an address-space limit
        // that the tables' allocations would overrun: the default memory
        // limit is then half of it, 400,000 KiB / 2).
        let runs = [
            (
                format!(
                    "'{}' run '{rules}' '{input}' --threads {threads} --max-memory 150M",
                    env!("CARGO_BIN_EXE_puzzle")
                ),
                "the memory limit of 150.0 MiB (--max-memory)",
            ),
            (
                format!(
                    "ulimit -v 400000; '{}' run '{rules}' '{input}' --threads {threads}",
                    env!("CARGO_BIN_EXE_puzzle")
                ),
                "the memory limit of 195.3 MiB (--max-memory)",
            ),
        ];
        for (script, limit) in runs {
            let out = Command::new("sh").args(["-c", &script]).output().unwrap();
            let (err, what) = stopped(out, "?\nEscape possible in 2 steps.\n", script);
            assert!(
                err.contains(&format!("case 1 stopped by {limit} before its search: its map of 9000000 cells needs about")),
                "{what}"
            );
        }
    }
}

#[test]
fn an_interrupt_stops_cleanly_and_says_which_case() {
    let (input, want) = slow_input(60);
    let file = write_temp("int.in", input.as_bytes());
    for threads in ["1", "2"] {
        let (mut child, mut out, mut got) =
            slow_run(&file, &["--threads", threads], Stdio::piped());
        // SAFETY: `kill` only sends a signal to the child's process id.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        out.read_to_string(&mut got).unwrap();
        let status = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(130), "{threads} threads: {err}");
        let n = got.lines().count();
        assert!(
            want.starts_with(&got) && (2..60).contains(&n),
            "{threads} threads: {got:?}"
        );
        // The case running, or (between two cases) the last one answered.
        let during = format!("interrupted during case {}", n + 1);
        let after = format!("interrupted after case {n}");
        assert!(
            err.contains(&during) || err.contains(&after),
            "{threads} threads: {n} answers, then {err}"
        );
    }
}

#[test]
fn an_interrupt_is_a_json_line_with_format_json() {
    let (input, _) = slow_input(60);
    let file = write_temp("int-json.in", input.as_bytes());
    let (mut child, mut out, mut got) = slow_run(&file, &["--format", "json"], Stdio::piped());
    // SAFETY: `kill` only sends a signal to the child's process id.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    out.read_to_string(&mut got).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    let mut stderr = child.stderr.take().unwrap();
    stderr.read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    for line in got.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON answer");
        assert_eq!(v["status"], "solved", "{line}");
    }
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("a JSON line");
    assert_eq!(v["code"], "puzzle::run::interrupted", "{err}");
    assert_eq!(v["severity"], "error", "{err}");
    assert!(
        v["message"].as_str().unwrap().starts_with("interrupted "),
        "{err}"
    );
}

/// Three agents at once on an open 13 x 13 board: about a second of
/// breadth-first search.
fn three_at_once() -> (String, String) {
    let rules = "puzzle \"Three at once\"\ntiles { floor '.' }\n\
                 agent bot[3] 'a'.. target 'A'.. on floor\n\
                 move bot at once: north east south west stay\n\
                 forbid same cell\ngoal every bot on its target\n";
    let n = 13;
    let mut g = vec![vec![b'.'; n]; n];
    g[0][..3].copy_from_slice(b"abc");
    g[n - 1][n - 3..].copy_from_slice(b"CBA");
    let map: String = g
        .iter()
        .map(|r| String::from_utf8(r.clone()).unwrap() + "\n")
        .collect();
    (
        write_temp("three.puz", rules.as_bytes()),
        write_temp("three.in", map.as_bytes()),
    )
}

#[test]
fn progress_shows_on_a_terminal_only_and_not_with_quiet() {
    let (rules, map) = three_at_once();
    let args = [
        "run",
        &rules,
        &map,
        "--map",
        "--strategy",
        "bfs",
        "--threads",
        "1",
    ];
    // Not a terminal: stderr stays empty.
    let out = puzzle().args(args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "24\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // A terminal, from `script`: the display says how far the search is.
    let Ok(script) = which("script") else {
        eprintln!("SKIPPED: no `script` to give the run a terminal");
        return;
    };
    let command = |extra: &str| {
        let line = format!(
            "{} {} {extra}",
            env!("CARGO_BIN_EXE_puzzle"),
            args.join(" ")
        );
        let out = Command::new(&script)
            .args(["-qec", &line, "/dev/null"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let shown = command("");
    assert!(
        shown.contains("case 1: ") && shown.contains("frontier") && shown.contains("states"),
        "{shown:?}"
    );
    // The display is cleared before the answer is written.
    assert!(shown.contains("\u{1b}[2K24"), "{shown:?}");
    let quiet = command("--quiet");
    assert_eq!(quiet.trim(), "24", "{quiet:?}");
}

/// A program on the PATH.
fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}

/// Two open lakes of 800 x 800 (1.3 MB): a walker at one corner, the exit
/// at the other, rocks on a pattern.
fn large_lakes() -> Vec<u8> {
    let n = 800;
    let mut text = String::from("2\n");
    for _ in 0..2 {
        text += &format!("{n} {n}\n");
        for r in 0..n {
            let row: String = (0..n)
                .map(|c| match (r, c) {
                    (0, 0) => 'S',
                    _ if r == n - 1 && c == n - 1 => 'E',
                    _ if (r * 7 + c * 3) % 29 == 0 => '#',
                    _ if (r + c) % 13 == 0 => '_',
                    _ => '.',
                })
                .collect();
            text += &row;
            text.push('\n');
        }
    }
    text.into_bytes()
}

/// A large input file is mapped (`puzzle::mapped`) and its pages given back
/// as cases are read; a report about a case far into it, or about a bad
/// byte, is the one the same input read whole (from stdin) gets: a
/// character cut by the end of a piece checked for UTF-8 is one character,
/// and text given back is read again for the report.
#[test]
fn a_large_mapped_input_reports_as_one_read_whole() {
    let ice = path("puzzles/ice.puz");
    let lakes = large_lakes();
    // An unknown three-byte character across the first megabyte's end, in
    // the second map; and a byte that is not UTF-8 there.
    let at = (1 << 20) - 2;
    assert!(lakes[at] != b'\n' && lakes[at + 1] != b'\n');
    let mut arrow = lakes.clone();
    arrow.splice(at..at + 1, "→".bytes());
    let mut bad = lakes.clone();
    bad[at] = 0xFF;
    let run = |text: &[u8], stdin: bool| {
        let file = write_temp("stdin.x", text);
        let mut cmd = puzzle();
        cmd.args(["run", "--threads", "1", &ice])
            .arg(if stdin { "-" } else { &file })
            .stdin(if stdin {
                Stdio::from(std::fs::File::open(&file).unwrap())
            } else {
                Stdio::null()
            });
        let out = cmd.output().unwrap();
        std::fs::remove_file(&file).unwrap();
        let err = String::from_utf8(out.stderr)
            .unwrap()
            .replace(&file, "<stdin>");
        (
            String::from_utf8(out.stdout).unwrap(),
            err,
            out.status.code(),
        )
    };
    // The arrow's file is mapped (its three bytes checked together), the
    // bad byte's read whole.
    let mapped = |text: &[u8]| {
        let file = write_temp("mapped.in", text);
        let m = puzzle::mapped::Mapped::open(&std::fs::File::open(&file).unwrap());
        std::fs::remove_file(&file).unwrap();
        m.map(|m| m.text().len())
    };
    assert_eq!(mapped(&arrow), Some(arrow.len()));
    assert_eq!(mapped(&bad), None);
    let whole = run(&lakes, true);
    assert_eq!(run(&lakes, false), whole);
    assert_eq!(whole.0.lines().count(), 2, "{whole:?}");
    assert!(whole.0.lines().all(|l| l != "-1"), "{whole:?}");
    let first = format!("{}\n", whole.0.lines().next().unwrap());
    for (text, says) in [(&arrow, "'→'"), (&bad, "not UTF-8")] {
        let mapped = run(text, false);
        assert_eq!(mapped, run(text, true));
        let (out, err, code) = mapped;
        // The first map is answered, then the second reported.
        assert_eq!(out, first);
        assert_ne!(code, Some(0));
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_case_beyond_the_engines_size_is_stopped_and_the_run_goes_on() {
    // Case 2 has 17 ghosts moving at once: it is stopped (`?`), its report
    // located on stderr, and case 3 is still answered; exit code 3. On one
    // thread and on two, and as JSON.
    let input = path("tests/cli/issues/seventeen.in");
    let rules = path("puzzles/halloween.puz");
    for threads in ["1", "2"] {
        let out = puzzle()
            .args(["run", &rules, &input, "--threads", threads])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "7\n?\n7\n", "{err}");
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(err.contains("17 agents moving at once"), "{err}");
        assert!(err.contains("case 2 stopped before its search"), "{err}");
    }
    let out = puzzle()
        .args(["run", &rules, &input, "--format", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[1].contains(r#""limit":"engine""#), "{stdout}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(r#""code":"puzzle::input::too_wide""#), "{err}");
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_closed_stdout_is_a_failed_stream() {
    // `>&-`: the runtime would put /dev/null there and the answers would be
    // lost with exit 0. Exit 4, with a message.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec '{}' run '{}' '{}' >&-",
            env!("CARGO_BIN_EXE_puzzle"),
            path("puzzles/keytask.puz"),
            path("puzzles/keytask.in")
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdout is closed"));
    // /dev/null itself is a place to write to: exit 0.
    let out = puzzle()
        .args([
            "run",
            &path("puzzles/keytask.puz"),
            &path("puzzles/keytask.in"),
        ])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_failure_told_to_a_closed_pipe_keeps_its_exit_code() {
    // The report goes to a pipe that is closed after ten bytes: the exit
    // code is still the failure's (it was 0 in some runs).
    let bad = path("tests/ui/rules/many-errors.puz");
    for _ in 0..20 {
        let mut child = puzzle()
            .args(["check", &bad])
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut ten = [0u8; 10];
        child.stderr.take().unwrap().read_exact(&mut ten).unwrap();
        // The pipe's reading end is dropped here.
        assert_eq!(child.wait().unwrap().code(), Some(1));
    }
}

#[test]
fn threads_the_system_cannot_give_are_fewer_threads_not_a_failure() {
    // Under an address-space limit two threads' stacks may not fit: the run
    // falls back to one (it exited 1, or aborted in an allocation).
    let (rules, input) = (path("puzzles/sokoban.puz"), path("puzzles/sokoban.in"));
    let want = common::read(&common::root().join("puzzles/sokoban.out"));
    for limit in ["100000", "150000"] {
        for _ in 0..5 {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "ulimit -v {limit} && exec '{}' run '{rules}' '{input}' --threads 2",
                    env!("CARGO_BIN_EXE_puzzle")
                ))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            // Every answer, or (on a machine under load) a case the default
            // memory limit, half the address space, stopped cleanly: `?`,
            // exit 3. Never exit 1, never an abort, never a wrong answer.
            let got = String::from_utf8_lossy(&out.stdout).into_owned();
            match out.status.code() {
                Some(0) => assert_eq!(got, want, "{err}"),
                Some(3) => {
                    assert_eq!(got.lines().count(), want.lines().count(), "{err}");
                    for (g, w) in got.lines().zip(want.lines()) {
                        assert!(g == w || g == "?", "{g} for {w}: {err}");
                    }
                }
                code => panic!("ulimit -v {limit}: exit {code:?}: {err}"),
            }
        }
    }
}

#[test]
fn threads_beyond_the_cores_are_cut_with_a_note() {
    let out = puzzle()
        .args([
            "run",
            &path("puzzles/keytask.puz"),
            &path("puzzles/keytask.in"),
            "--threads",
            "65535",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        common::read(&common::root().join("puzzles/keytask.out"))
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 65535 {
        assert!(err.contains("--threads 65535: this machine has"), "{err}");
    }
}

/// `--color always` colours a report even into a pipe; `never` (and
/// `auto`, into a pipe) leaves it plain.
#[test]
fn reports_are_coloured_as_asked() {
    let bad = crate::common::root().join("tests/ui/rules/header-after-grid.puz");
    for (choice, coloured) in [("always", true), ("never", false), ("auto", false)] {
        let out = puzzle()
            .args(["check", bad.to_str().unwrap(), "--color", choice])
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("puzzle::resolve::input"), "{err}");
        assert_eq!(
            err.contains('\u{1b}'),
            coloured,
            "--color {choice}: {err:?}"
        );
        assert_eq!(out.status.code(), Some(1));
    }
}
