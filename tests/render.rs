//! `puzzle render`: the SVG picture's paths, and the HTML player in a real
//! browser (headless Chromium): the page is loaded, stepped through with
//! its keys and buttons, and each mover's drawn position is compared with
//! the way `puzzle run --format json --trace` gives for the same case.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn puzzle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_puzzle"))
}

fn path(p: &str) -> String {
    common::root().join(p).display().to_string()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("puzzle-render-{}-{name}", std::process::id()))
}

/// Every case of a shipped puzzle's sample, as `run --format json
/// --trace` writes it.
fn json_cases(name: &str) -> Vec<serde_json::Value> {
    let out = puzzle()
        .args(["run", &path(&format!("puzzles/{name}.puz"))])
        .arg(path(&format!("puzzles/{name}.in")))
        .args(["--format", "json", "--trace", "--threads", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (String::from_utf8(out.stdout).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The way of case `n` of a shipped puzzle's sample, as JSON.
fn way(name: &str, n: usize) -> serde_json::Value {
    let case = json_cases(name).swap_remove(n - 1);
    assert_eq!(case["status"], "solved", "{case}");
    case["trace"].clone()
}

/// Each mover's cell centre in frame `i`, as the pictures draw it.
fn centres(way: &serde_json::Value, i: usize) -> Vec<(f64, f64)> {
    let cell = puzzle::render::CELL as f64;
    way["frames"][i]["at"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let (r, c) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
            (c * cell + cell / 2.0, r * cell + cell / 2.0)
        })
        .collect()
}

/// The value of attribute `name` in a tag's text.
fn attr(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(tag[at..].split('"').next()?.to_string())
}

/// The tags `<NAME ...>` of a document that have `class="CLASS"`.
fn tags<'a>(doc: &'a str, name: &str, class: &str) -> Vec<&'a str> {
    doc.match_indices(&format!("<{name} "))
        .map(|(i, _)| &doc[i..i + doc[i..].find('>').unwrap()])
        .filter(|t| attr(t, "class").as_deref() == Some(class))
        .collect()
}

fn render(name: &str, n: usize, flag: &str) -> String {
    let file = temp(&format!("{name}-{n}.{}", flag.trim_start_matches('-')));
    let out = puzzle()
        .args(["render", &path(&format!("puzzles/{name}.puz"))])
        .arg(path(&format!("puzzles/{name}.in")))
        .args(["--case", &n.to_string(), flag])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    file.display().to_string()
}

#[test]
fn the_svg_draws_each_movers_path_through_every_cell_of_its_way() {
    for (name, n) in [("keytask", 3), ("halloween", 1), ("rescue", 1)] {
        let way = way(name, n);
        let svg = std::fs::read_to_string(render(name, n, "--svg")).unwrap();
        let frames = way["frames"].as_array().unwrap().len();
        let groups = tags(&svg, "g", "mover");
        assert_eq!(groups.len(), way["movers"].as_array().unwrap().len());
        // Each mover's polyline, in order, is the centres of its cells.
        let lines: Vec<&str> = svg
            .match_indices("<polyline ")
            .map(|(i, _)| &svg[i..])
            .collect();
        for (m, line) in lines.iter().enumerate() {
            let points = attr(line, "points").unwrap();
            let want: Vec<String> = (0..frames)
                .map(|i| {
                    let (x, y) = centres(&way, i)[m];
                    format!("{x},{y}")
                })
                .collect();
            assert_eq!(points, want.join(" "), "{name} case {n}, mover {m}");
        }
        let steps = way["steps"].as_array().unwrap().len();
        assert!(svg.contains(&format!("{steps} steps")), "{svg}");
    }
}

#[test]
fn the_svg_draws_every_cell_of_a_piece_where_it_ends() {
    // The classic Klotski board: pieces of 1, 2 and 4 cells.
    let way = way("klotski", 1);
    let svg = std::fs::read_to_string(render("klotski", 1, "--svg")).unwrap();
    let last = way["frames"].as_array().unwrap().len() - 1;
    let cell = puzzle::render::CELL as i64;
    let mut want = std::collections::BTreeSet::new();
    for (m, mover) in way["movers"].as_array().unwrap().iter().enumerate() {
        let at = &way["frames"][last]["at"][m];
        let (r, c) = (at[0].as_i64().unwrap(), at[1].as_i64().unwrap());
        for off in mover["shape"].as_array().into_iter().flatten() {
            let (dr, dc) = (off[0].as_i64().unwrap(), off[1].as_i64().unwrap());
            want.insert(((c + dc) * cell + 2, (r + dr) * cell + 2));
        }
    }
    let got: std::collections::BTreeSet<(i64, i64)> = tags(&svg, "rect", "body")
        .iter()
        .map(|t| {
            let n = |k| attr(t, k).unwrap().parse::<i64>().unwrap();
            (n("x"), n("y"))
        })
        .collect();
    // A large square, four tall pieces and a wide one: 4 + 8 + 2 cells.
    assert_eq!(want.len(), 14, "{way}");
    assert_eq!(got, want);
}

#[test]
fn render_says_why_there_is_nothing_to_draw() {
    let says = |case: &str| {
        let out = puzzle()
            .args([
                "render",
                &path("puzzles/keytask.puz"),
                &path("puzzles/keytask.in"),
            ])
            .args(["--case", case, "--svg", "-"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    // Keytask's second sample case has no way out; it has three cases.
    let err = says("2");
    assert!(err.contains("case 2 has no way to a goal"), "{err}");
    let err = says("99");
    assert!(err.contains("the input has 3 cases, not 99"), "{err}");
}

/// A browser to load pages in: `PUZZLE_CHROMIUM`, or Chromium or Chrome
/// on the PATH.
pub(crate) fn browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PUZZLE_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|b| std::env::split_paths(&path).map(move |d| d.join(b)))
    .find(|p| p.is_file())
}

/// The page's document after it ran `keys` (see the page's `#keys=`),
/// with `ms` of virtual time for its timers.
fn dom(browser: &Path, page: &str, keys: &str, ms: u64) -> String {
    dom_of(browser, &format!("file://{page}#keys={keys}"), ms)
}

/// The document at `url` after `ms` of virtual time (which does not pass
/// while the page waits for the network).
pub(crate) fn dom_of(browser: &Path, url: &str, ms: u64) -> String {
    // A profile of its own: browsers started at once do not share one.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = temp(&format!("profile-{n}"));
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--virtual-time-budget={ms}"))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    let doc = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(doc.contains("<body"), "the browser gave no page: {out:?}");
    doc
}

/// Each mover's disc as the page drew it.
fn drawn(doc: &str) -> Vec<(f64, f64)> {
    tags(doc, "circle", "mover")
        .iter()
        .map(|t| {
            let v = |a| attr(t, a).unwrap().parse::<f64>().unwrap();
            (v("cx"), v("cy"))
        })
        .collect()
}

#[test]
fn the_html_player_draws_every_step_in_a_browser() {
    let Some(browser) = browser() else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: no Chromium found (`.ci/run` installs it; or set PUZZLE_CHROMIUM): \
             the HTML player was not tried in a browser"
        );
        return;
    };
    for (name, n) in [("keytask", 3), ("halloween", 1), ("rescue", 1)] {
        let way = way(name, n);
        let page = render(name, n, "--html");
        let html = std::fs::read_to_string(&page).unwrap();
        // Self-contained: nothing is fetched.
        assert!(!html.contains("src=") && !html.contains("href="), "{html}");
        let last = way["frames"].as_array().unwrap().len() - 1;
        // Keys and buttons, and where each leaves the movers.
        let mut tries: Vec<(String, usize)> = vec![
            (String::new(), 0),
            ("n".repeat(last.min(3)), last.min(3)),
            ("nnnp".into(), last.min(3).saturating_sub(1)),
            ("ssb".into(), last.min(2).saturating_sub(1)),
            ("l".into(), last),
            ("lpf".into(), 0),
        ];
        // Play: the page steps every 400 ms until the end.
        tries.push(("P".into(), last));
        for (keys, step) in tries {
            let ms = if keys == "P" {
                400 * (last as u64 + 3)
            } else {
                100
            };
            let doc = dom(&browser, &page, &keys, ms);
            assert_eq!(
                attr(&doc, "data-step").as_deref(),
                Some(step.to_string().as_str()),
                "{name} case {n}, keys {keys:?}"
            );
            assert_eq!(
                drawn(&doc),
                centres(&way, step),
                "{name} case {n}: after keys {keys:?} the movers are drawn at step {step}'s cells"
            );
            let status = doc.split("id=\"status\">").nth(1).unwrap();
            assert!(
                status.starts_with(&format!("step {step} of {last}")),
                "{status}"
            );
        }
    }
}

/// Interchangeable movers keep their identity from frame to frame: in
/// every case of Sokoban's, Klotski's and Rush Hour's samples (boxes and
/// pieces alike, which the search holds sorted), each step moves each
/// mover by one cell at most, only the one its label names moves (a
/// push: the keeper and one box), and the label names a member the JSON
/// frames move. With the search's own order, a box that passes another
/// would swap places with it in the frames and jump.
#[test]
fn identical_movers_keep_their_identity_in_the_frames() {
    let mut steps_seen = 0;
    for name in ["sokoban", "klotski", "rushhour"] {
        for (k, case) in json_cases(name).iter().enumerate() {
            let n = k + 1;
            if case["status"] != "solved" {
                continue;
            }
            let way = &case["trace"];
            let movers: Vec<String> = (way["movers"].as_array().unwrap().iter())
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect();
            let frames = way["frames"].as_array().unwrap();
            for i in 1..frames.len() {
                let at = |f: usize, m: usize| {
                    let p = &frames[f]["at"][m];
                    (p[0].as_i64().unwrap(), p[1].as_i64().unwrap())
                };
                let label = way["labels"][i - 1].as_str().unwrap();
                let moved: Vec<usize> = (0..movers.len())
                    .filter(|&m| at(i, m) != at(i - 1, m))
                    .collect();
                for &m in &moved {
                    let ((r, c), (s, d)) = (at(i - 1, m), at(i, m));
                    assert!(
                        (r - s).abs() + (c - d).abs() == 1,
                        "{name} case {n} step {i}: {} jumps from {:?} to {:?}",
                        movers[m],
                        (r, c),
                        (s, d)
                    );
                }
                let named = (0..movers.len())
                    .filter(|&m| label.starts_with(&format!("{}:", movers[m])))
                    .count();
                if movers.len() > 1 && label.contains(':') {
                    assert_eq!(named, 1, "{name} case {n} step {i}: `{label}`");
                    let m = (0..movers.len())
                        .find(|&m| label.starts_with(&format!("{}:", movers[m])))
                        .unwrap();
                    assert!(
                        moved.contains(&m),
                        "{name} case {n} step {i}: `{label}` moved {moved:?}"
                    );
                }
                assert!(moved.len() <= 2, "{name} case {n} step {i}: {moved:?}");
                steps_seen += 1;
            }
        }
    }
    assert!(steps_seen > 200, "{steps_seen} steps");
}

/// The SVG numbers each cell a mover enters with the steps that enter it
/// (from the JSON frames), and a cell entered more than twice with its
/// first and last (`5,…,40`), so a long way's numbers do not pile up.
#[test]
fn the_svg_numbers_a_cell_with_its_first_and_last_entry() {
    let way = way("klotski", 1);
    let svg = std::fs::read_to_string(render("klotski", 1, "--svg")).unwrap();
    // Each number label's text: from the end of its tag to the next.
    let mut got: Vec<String> = svg
        .match_indices(r#"class="num""#)
        .map(|(i, _)| {
            let text = &svg[i..];
            let from = text.find('>').unwrap() + 1;
            text[from..].split('<').next().unwrap().to_string()
        })
        .collect();
    let frames = way["frames"].as_array().unwrap();
    let mut want = Vec::new();
    for m in 0..way["movers"].as_array().unwrap().len() {
        let mut entered: Vec<(&serde_json::Value, Vec<usize>)> = Vec::new();
        for i in 1..frames.len() {
            let (a, b) = (&frames[i - 1]["at"][m], &frames[i]["at"][m]);
            if a != b {
                match entered.iter_mut().find(|(c, _)| *c == b) {
                    Some((_, s)) => s.push(i),
                    None => entered.push((b, vec![i])),
                }
            }
        }
        for (_, s) in entered {
            want.push(match s[..] {
                [a] => a.to_string(),
                [a, b] => format!("{a},{b}"),
                _ => format!("{},…,{}", s[0], s[s.len() - 1]),
            });
        }
    }
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert!(want.iter().any(|w| w.contains('…')), "{want:?}");
}

/// Identical movers share a style (a colour), other movers have their own:
/// Sokoban's boxes one, the keeper another; Klotski's pieces of one shape
/// one.
#[test]
fn identical_movers_share_a_style() {
    let boxes = way("sokoban", 6);
    let movers = boxes["movers"].as_array().unwrap();
    let style = |name: &str| {
        (movers.iter())
            .find(|m| m["name"] == name)
            .map(|m| m["style"].as_u64().unwrap())
            .unwrap_or_else(|| panic!("{name} in {boxes}"))
    };
    assert_eq!(style("box[1]"), style("box[2]"), "{boxes}");
    assert_ne!(style("keeper"), style("box[1]"), "{boxes}");
    let pieces = way("klotski", 1);
    let styles: std::collections::BTreeSet<u64> = (pieces["movers"].as_array().unwrap().iter())
        .map(|m| m["style"].as_u64().unwrap())
        .collect();
    let movers = pieces["movers"].as_array().unwrap().len();
    assert!(
        styles.len() > 1 && styles.len() < movers,
        "{styles:?} of {movers}"
    );
}
