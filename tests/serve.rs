//! `puzzle serve`: the playground. The server started on a port the
//! system chooses, in a folder of its own; the page driven in headless
//! Chromium (a mistake typed and reported at its span; fixed, run, its
//! way stepped; a move played by key, a hint); 1,000 malformed requests
//! and 20 clients searching at once, with the server answering each with a
//! clear error or its result, and still up after.

use crate::common;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A server on a port of the system's choosing; killed when dropped.
struct Served {
    child: Child,
    addr: String,
    dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Served {
    let dir = tempfile::tempdir().unwrap();
    for f in ["sokoban.puz", "sokoban.in"] {
        std::fs::copy(common::root().join("puzzles").join(f), dir.path().join(f)).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_puzzle"))
        .arg("serve")
        .arg(dir.path())
        .args(["--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(
        addr.starts_with("127.0.0.1:"),
        "loopback by default: {line}"
    );
    Served { child, addr, dir }
}

/// One request as raw bytes; the status and the body of the answer.
fn raw(addr: &str, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The server may answer (and close) before it has read a large body.
    let _ = s.write_all(request);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

fn request(addr: &str, method: &str, path: &str, client: &str, body: &str) -> (u16, Value) {
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nX-Puzzle-Client: {client}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (status, body) = raw(addr, req.as_bytes());
    let v = serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {status} {body:?}"));
    (status, v)
}

const MAZE: &str = "puzzle \"Maze\"\ninput {\n  cases until 0 0\n  header rows cols\n  grid rows x cols\n}\ntiles {\n  floor '.'\n  wall '#' solid\n  exit 'E'\n}\nagent hero 'S' on floor\nmove hero: north east south west\ngoal hero on exit\noutput {\n  solved \"{steps}\"\n  unsolved \"-1\"\n}\n";
const MAP: &str = "3 4\nS..#\n.#..\n...E\n0 0\n";

#[test]
fn bad_requests_are_clear_errors_and_the_server_holds() {
    let s = start(&[]);
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let huge = "x".repeat(2 << 20);
    let mut statuses = std::collections::BTreeMap::new();
    for i in 0..1000 {
        let (status, body) = match i % 10 {
            0 => raw(
                &s.addr,
                &(0..next() % 300).map(|_| next() as u8).collect::<Vec<u8>>(),
            ),
            1 => {
                let r = request(&s.addr, "POST", "/api/run", "c", "{\"rules\": [1, 2");
                (r.0, r.1.to_string())
            }
            2 => {
                let r = request(&s.addr, "POST", "/api/check", "c", &huge);
                (r.0, r.1.to_string())
            }
            3 => {
                let paths = [
                    "../../etc/passwd",
                    "%2Fetc%2Fpasswd",
                    "..%2F..%2Fx.puz",
                    ".hidden.puz",
                    "a/../../b.puz",
                    "sokoban.puz%00.txt",
                ];
                let p = paths[(next() % paths.len() as u64) as usize];
                let r = request(&s.addr, "GET", &format!("/api/file?path={p}"), "c", "");
                (r.0, r.1.to_string())
            }
            4 => {
                let r = request(&s.addr, "PUT", "/api/file?path=..%2Fescape.puz", "c", "x");
                (r.0, r.1.to_string())
            }
            5 => {
                let r = request(&s.addr, "GET", &format!("/nothing/{}", next()), "c", "");
                (r.0, r.1.to_string())
            }
            6 => {
                let r = request(&s.addr, "DELETE", "/api/run", "c", "");
                (r.0, r.1.to_string())
            }
            7 => {
                let r = request(
                    &s.addr,
                    "POST",
                    "/api/play",
                    "c",
                    "{\"rules\": \"\", \"input\": 5}",
                );
                (r.0, r.1.to_string())
            }
            8 => {
                let body = json!({"rules": MAZE, "input": "9 9\nS\n", "moves": ["north", 3]});
                let r = request(&s.addr, "POST", "/api/play", "c", &body.to_string());
                (r.0, r.1.to_string())
            }
            _ => {
                let body = json!({"rules": "tiles {", "input": MAP});
                let r = request(&s.addr, "POST", "/api/run", "c", &body.to_string());
                (r.0, r.1.to_string())
            }
        };
        *statuses.entry(status).or_insert(0) += 1;
        if i % 10 != 0 {
            assert!((400..500).contains(&status), "request {i}: {status} {body}");
            let v: Value = serde_json::from_str(&body).unwrap();
            assert!(
                v["error"].as_str().is_some_and(|e| !e.is_empty()),
                "request {i}: {body}"
            );
        }
    }
    // Nothing escaped the folder, and the server still answers.
    assert!(!s.dir.path().join("../escape.puz").exists());
    let (status, v) = request(
        &s.addr,
        "POST",
        "/api/run",
        "c",
        &json!({"rules": MAZE, "input": MAP}).to_string(),
    );
    assert_eq!(
        (status, v["output"].as_str()),
        (200, Some("5\n")),
        "{v} after {statuses:?}"
    );
}

#[test]
fn twenty_clients_search_at_once_each_to_its_limit() {
    let s = start(&["--max-states", "100000"]);
    // Five robots taking turns on an open floor, each to its own target
    // far away (840K states visited to the answer, 48): every search runs
    // until its limit.
    let rules = "puzzle \"Robots\"\ntiles { floor '.' }\nagent bot[5] 'a'.. target 'A'.. on floor\nmove bot in turn: north east south west\nforbid same cell\ngoal every bot on its target\n";
    let map = "abc....\nde.....\n.......\n.......\n.......\n.....BA\n....EDC\n";
    let body = json!({"rules": rules, "input": map}).to_string();
    let answers: Vec<(u16, Value)> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..20)
            .map(|i| {
                let (addr, body) = (&s.addr, &body);
                sc.spawn(move || request(addr, "POST", "/api/run", &format!("client{i}"), body))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (status, v) in &answers {
        assert_eq!(*status, 200, "{v}");
        assert_eq!(v["stopped"], 1, "each search is stopped by its limit: {v}");
        assert_eq!(v["output"], "?\n", "{v}");
    }
}

#[test]
fn a_client_runs_one_search_at_a_time() {
    // The server's default limit (10 s) is not this test's business: a debug
    // build on a loaded machine can take longer than that to the answer.
    let s = start(&["--timeout", "10m"]);
    // Six robots, 1.8M states to the answer: seconds of search.
    let rules = "puzzle \"Robots\"\ntiles { floor '.' }\nagent bot[6] 'a'.. target 'A'.. on floor\nmove bot in turn: north east south west\nforbid same cell\ngoal every bot on its target\n";
    let map = "abc.....\ndef.....\n........\n........\n........\n........\n.....DCB\n.....FEA\n";
    let body = json!({"rules": rules, "input": map}).to_string();
    let (first, second, other) = std::thread::scope(|sc| {
        let a = sc.spawn(|| request(&s.addr, "POST", "/api/run", "same", &body));
        std::thread::sleep(Duration::from_millis(300));
        let b = request(&s.addr, "POST", "/api/run", "same", &body);
        // Another client is not held up by it.
        let c = request(
            &s.addr,
            "POST",
            "/api/check",
            "other",
            &json!({"rules": rules}).to_string(),
        );
        (a.join().unwrap(), b, c)
    });
    // On a loaded machine the second request may reach the server first:
    // whichever came first answers, the other is turned away.
    let (ran, refused) = if first.0 == 429 {
        (second, first)
    } else {
        (first, second)
    };
    assert_eq!(
        (ran.0, ran.1["output"].as_str()),
        (200, Some("66\n")),
        "{}",
        ran.1
    );
    assert_eq!(refused.0, 429, "{}", refused.1);
    assert_eq!(other.0, 200, "{}", other.1);
}

#[test]
fn files_are_opened_and_saved_inside_the_folder_only() {
    let s = start(&[]);
    let (status, v) = request(&s.addr, "GET", "/api/files", "c", "");
    assert_eq!(
        (status, v["files"].clone()),
        (200, json!(["sokoban.in", "sokoban.puz"]))
    );
    let (_, v) = request(&s.addr, "GET", "/api/file?path=sokoban.puz", "c", "");
    assert!(v["text"].as_str().unwrap().contains("puzzle \"Sokoban\""));
    // The path said back is the file's, decoded, whatever else the query holds.
    let (_, v) = request(&s.addr, "GET", "/api/file?x=1&path=sokoban%2Epuz", "c", "");
    assert_eq!(v["path"], "sokoban.puz", "{v}");
    let (status, _) = request(&s.addr, "PUT", "/api/file?path=maze.puz", "c", MAZE);
    assert_eq!(status, 200);
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("maze.puz")).unwrap(),
        MAZE
    );
    // Not a kind of file it edits, not inside: refused.
    for p in ["run.sh", "../maze.puz", "%2Ftmp%2Fx.puz"] {
        let (status, v) = request(&s.addr, "PUT", &format!("/api/file?path={p}"), "c", "x");
        assert_eq!(status, 403, "{p}: {v}");
    }
    #[cfg(unix)]
    {
        // A link out of the folder is not followed.
        std::os::unix::fs::symlink("/etc", s.dir.path().join("out")).unwrap();
        let (status, v) = request(&s.addr, "GET", "/api/file?path=out%2Fhosts.txt", "c", "");
        assert_eq!(status, 403, "{v}");
    }
}

/// The page in headless Chromium, driven by its `#do=` steps.
#[test]
fn the_page_reports_runs_and_plays_in_a_browser() {
    let Some(browser) = crate::render::browser() else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: no Chromium found (`.ci/run` installs it; or set PUZZLE_CHROMIUM): \
             the playground was not tried in a browser"
        );
        return;
    };
    let s = start(&[]);
    let enc = |t: &str| {
        t.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    let page = |steps: &[String]| {
        let url = format!("http://{}/#do={}", s.addr, steps.join(";"));
        crate::render::dom_of(&browser, &url, 20_000)
    };
    // A misspelt tile: marked where it is written, listed with its line.
    let bad = MAZE.replace("goal hero on exit", "goal hero on exitt");
    let doc = page(&[format!("rules={}", enc(&bad))]);
    assert!(doc.contains("data-done=\"1\""), "{doc}");
    assert!(doc.contains("<mark class=\"error\">exitt</mark>"), "{doc}");
    assert!(doc.contains("data-line=\"14\" data-column=\"14\""), "{doc}");
    // Coloured by the TextMate grammar, as editors colour it.
    for (class, text) in [
        ("keyword", "goal"),
        ("string", "\"Maze\""),
        ("string", "'#'"),
        ("keyword", "solid"),
    ] {
        let want = format!("<span class=\"{class}\">{text}</span>");
        assert!(doc.contains(&want), "{want} in {doc}");
    }
    // Fixed, run, the way stepped to its end, a move by key, a hint.
    let doc = page(&[
        format!("rules={}", enc(MAZE)),
        format!("map={}", enc(MAP)),
        "run".into(),
        "last".into(),
        "play".into(),
        "key=ArrowRight".into(),
        "key=h".into(),
    ]);
    assert!(doc.contains("data-done=\"1\""), "{doc}");
    let shown = doc.split("<script>").next().unwrap();
    let marked: Vec<&str> = shown.split("<mark class=").skip(1).collect();
    assert!(marked.is_empty(), "no report left: {marked:?}");
    let output = doc.split("id=\"output\">").nth(1).unwrap();
    assert!(output.starts_with("5\n"), "{output}");
    assert!(doc.contains("data-step=\"5\">step 5 of 5: "), "{doc}");
    let screen = doc.split("id=\"screen\"").nth(1).unwrap();
    // A box on a spot is drawn with its marker for it, as `--trace` does.
    let sokoban = std::fs::read_to_string(common::root().join("puzzles/sokoban.puz")).unwrap();
    let doc2 = page(&[
        format!("rules={}", enc(&sokoban)),
        format!("map={}", enc("3 5\n#####\n#@$.#\n#####\n0 0\n")),
        "run".into(),
        "last".into(),
    ]);
    let board = doc2.split("id=\"way-board\">").nth(1).unwrap();
    assert!(board.starts_with("#####\n# @*#\n"), "{board}");
    assert!(screen.contains("steps 1, total cost 1"), "{screen}");
    assert!(screen.contains("hint: "), "{screen}");
    assert!(screen.contains("the goal is 4 steps away"), "{screen}");
}
