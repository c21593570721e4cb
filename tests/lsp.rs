//! `puzzle lsp`, driven by a scripted client: the Language Server
//! Protocol's messages framed on the server's stdin and stdout. The
//! reports as a file is typed (placed where `puzzle check --format json`
//! places them, on every rule file of `tests/ui`), hover, go to
//! definition, completion, the symbols, a request it does not answer, and
//! a clean shutdown.

use crate::common;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_puzzle"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("puzzle lsp starts");
        let stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        // The server's messages, unframed, as they come.
        std::thread::spawn(move || {
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if out.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        len = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("a Content-Length header")];
                if out.read_exact(&mut body).is_err() {
                    return;
                }
                if tx
                    .send(serde_json::from_slice(&body).expect("JSON"))
                    .is_err()
                {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            messages,
            next_id: 1,
        };
        let init = c.request("initialize", json!({"capabilities": {}}));
        assert_eq!(
            init["result"]["capabilities"]["hoverProvider"], true,
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message the server sends (within ten seconds).
    fn receive(&mut self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(10))
            .expect("the server answers")
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.receive();
            if m["id"] == id {
                return m;
            }
        }
    }

    /// The diagnostics published next.
    fn diagnostics(&mut self) -> Vec<Value> {
        loop {
            let m = self.receive();
            if m["method"] == "textDocument/publishDiagnostics" {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "puzzle", "version": 1, "text": text}}),
        );
        self.diagnostics()
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    fn stop(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

const MAZE: &str = "\
puzzle \"Maze\"
input {
  cases until 0 0
  header rows cols
  grid rows x cols
}
# Where the walker may not go.
tiles {
  floor '.'
  wall '#' solid
  exit 'E'
}
agent hero 'S' on floor
move hero: north east south west
goal hero on exitt
";

#[test]
fn an_editor_gets_reports_hover_definitions_completion_and_symbols() {
    let mut c = Client::start();
    let uri = "file:///work/maze.puz";
    // A misspelt tile: one error, at the name, with its code.
    let found = c.open(uri, MAZE);
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d["severity"], 1);
    assert_eq!(
        d["range"]["start"],
        json!({"line": 14, "character": 13}),
        "{d}"
    );
    assert_eq!(
        d["range"]["end"],
        json!({"line": 14, "character": 18}),
        "{d}"
    );
    assert!(d["code"].as_str().unwrap().starts_with("puzzle::"), "{d}");
    assert!(d["message"].as_str().unwrap().contains("exitt"), "{d}");
    // Fixed as typed: no report.
    let fixed = MAZE.replace("exitt", "exit");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(c.diagnostics(), Vec::<Value>::new());
    // Hover on `wall`'s declaration: what it is, its line, the comment
    // above its block... and on a keyword.
    let h = c.at("textDocument/hover", uri, 9, 3);
    let text = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.starts_with("tile `wall`") && text.contains("wall '#' solid"),
        "{h}"
    );
    let h = c.at("textDocument/hover", uri, 13, 1);
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("keyword"),
        "{h}"
    );
    // `hero` in the goal: defined on line 12, columns 6 to 10.
    let g = c.at("textDocument/definition", uri, 14, 6);
    assert_eq!(g["result"]["uri"], uri, "{g}");
    assert_eq!(
        g["result"]["range"]["start"],
        json!({"line": 12, "character": 6}),
        "{g}"
    );
    assert_eq!(
        g["result"]["range"]["end"],
        json!({"line": 12, "character": 10}),
        "{g}"
    );
    // Nothing declares `north` in the file: no definition.
    let g = c.at("textDocument/definition", uri, 13, 13);
    assert_eq!(g["result"], Value::Null, "{g}");
    let items = c.at("textDocument/completion", uri, 14, 0);
    let labels: Vec<&str> = (items["result"].as_array().unwrap().iter())
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for want in ["hero", "wall", "exit", "rows", "agent", "goal", "tiles"] {
        assert!(labels.contains(&want), "{want} in {labels:?}");
    }
    let s = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = (s["result"].as_array().unwrap().iter())
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["rows", "cols", "floor", "wall", "exit", "hero"],
        "{s}"
    );
    // A line half typed: the reports say so, the names are the last
    // good ones'.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": fixed.replace("goal hero", "goal hero on on")}]}),
    );
    assert!(!c.diagnostics().is_empty());
    let g = c.at("textDocument/definition", uri, 14, 6);
    assert_eq!(g["result"]["range"]["start"]["line"], 12, "{g}");
    // Not a request it answers: an error, and it goes on.
    let r = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = c.at("textDocument/hover", "file:///not/open.puz", 0, 0);
    assert!(r.get("error").is_some(), "{r}");
    c.stop();
}

/// Every rule file of `tests/ui`: the server places each report where
/// `puzzle check --format json` does (its first label's line and column).
#[test]
fn reports_are_placed_as_check_places_them() {
    let dir = common::root().join("tests/ui/rules");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "puz"))
        .collect();
    files.sort();
    assert!(files.len() > 100, "{} rule files", files.len());
    let mut c = Client::start();
    let mut placed = 0;
    for (i, path) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue; // Not UTF-8: an editor does not send it.
        };
        let uri = format!("file:///ui/{i}.puz");
        let got = c.open(&uri, &text);
        let out = Command::new(env!("CARGO_BIN_EXE_puzzle"))
            .args(["check", "--format", "json"])
            .arg(path)
            .output()
            .unwrap();
        let want: Vec<Value> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .filter(|v: &Value| v["severity"].is_string())
            .collect();
        let what = path.display();
        assert_eq!(got.len(), want.len(), "{what}: {got:?} against {want:?}");
        for (g, w) in got.iter().zip(&want) {
            let start = &g["range"]["start"];
            assert_eq!(g["severity"], if w["severity"] == "error" { 1 } else { 2 });
            if !w["line"].is_u64() {
                // A report of the whole file: at its start.
                assert_eq!(*start, json!({"line": 0, "character": 0}), "{what}");
                placed += 1;
                continue;
            }
            let line_of = text.lines().nth(start["line"].as_u64().unwrap() as usize);
            // JSON columns count characters; the protocol's, UTF-16 units.
            let ascii = line_of.is_some_and(str::is_ascii);
            assert_eq!(start["line"].as_u64().unwrap() + 1, w["line"], "{what}");
            if ascii {
                assert_eq!(
                    start["character"].as_u64().unwrap() + 1,
                    w["column"],
                    "{what}"
                );
            }
            assert_eq!(g["code"], w["code"], "{what}");
            placed += 1;
        }
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(c.diagnostics(), Vec::<Value>::new());
    }
    assert!(placed > 100, "{placed} reports placed");
    c.stop();
}

/// The TextMate grammar (`grammar/puzzle.tmLanguage.json`, for editors'
/// highlighting) names every keyword the pest grammar has, and no other.
#[test]
fn the_highlighting_grammar_has_the_languages_keywords() {
    let path = common::root().join("grammar/puzzle.tmLanguage.json");
    let tm: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pattern = tm["repository"]["keyword"]["match"].as_str().unwrap();
    let inner = pattern
        .strip_prefix("\\b(")
        .and_then(|p| p.strip_suffix(")\\b"))
        .unwrap();
    let mut listed: Vec<&str> = inner.split('|').collect();
    listed.sort_unstable();
    assert_eq!(listed, puzzle::outline::keywords());
    assert_eq!(tm["scopeName"], "source.puzzle");
}
