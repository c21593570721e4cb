//! `puzzle serve [DIR]`: the playground, a local web app. An HTTP server
//! (`tiny_http`: synchronous, as the engine is, and small to build) on
//! loopback unless told otherwise, a page embedded in the binary (nothing
//! fetched from the network), and a JSON interface over the library's
//! playground functions ([`puzzle::playground`]).
//!
//! Safe by default: requests are bounded in size, searches by the limits
//! (`--timeout`, `--max-memory`, `--max-states`), a client runs one search
//! at a time, files are read and written inside DIR only (no `..`, no
//! absolute path, no hidden file, nothing a link leads out to), and
//! nothing runs a shell.

use crate::Outcome;
use crate::exit;
use miette::Report;
use puzzle::budget::Limits;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use tiny_http::{Header, Method, Request, Response, Server};

/// The page: editors, reports, the way, play, the plan.
const PAGE: &str = include_str!("playground.html");

/// The TextMate grammar, which colours the page's rule file as editors
/// colour it.
const GRAMMAR: &str = include_str!("../../grammar/puzzle.tmLanguage.json");

/// The largest request body, and the largest file opened or saved.
const MAX_BODY: usize = 1 << 20;

/// Threads answering requests (and so the most searches at once).
const WORKERS: usize = 8;

/// What every request handler shares.
struct Shared {
    dir: PathBuf,
    limits: Limits,
    /// The clients with a search running.
    busy: Mutex<HashSet<String>>,
}

/// An answer: its status and its JSON.
type Reply = (u16, Value);

fn fail(status: u16, why: impl Into<String>) -> Reply {
    (status, json!({ "error": why.into() }))
}

/// `puzzle serve`.
pub fn serve(dir: &Path, host: &str, port: u16, limits: Limits) -> Result<Outcome, Report> {
    let dir = dir.canonicalize().map_err(|e| {
        miette::miette!(
            code = "puzzle::io::read",
            "cannot serve {}: {e}",
            dir.display()
        )
    })?;
    if !dir.is_dir() {
        return Err(miette::miette!(
            code = "puzzle::io::read",
            "cannot serve {}: not a folder",
            dir.display()
        ));
    }
    let server = Server::http((host, port)).map_err(|e| {
        miette::miette!(
            code = "puzzle::serve::listen",
            help = "another port: --port N (0 lets the system choose one)",
            "cannot listen on {host}:{port}: {e}"
        )
    })?;
    let addr = server.server_addr().to_ip().map(|a| a.to_string());
    let addr = addr.unwrap_or_else(|| format!("{host}:{port}"));
    let loopback = server
        .server_addr()
        .to_ip()
        .is_some_and(|a| a.ip().is_loopback());
    if !loopback {
        crate::say::notice(
            crate::say::Notice::Note,
            "puzzle::serve::public",
            &format!(
                "listening beyond this machine, on {addr}: anyone who can reach it may read and write the files of {}",
                dir.display()
            ),
        );
    }
    println!(
        "puzzle serve: http://{addr}/ (the files of {}; Ctrl-C stops)",
        dir.display()
    );
    let shared = Arc::new(Shared {
        dir,
        limits,
        busy: Mutex::new(HashSet::new()),
    });
    let server = Arc::new(server);
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, shared) = (Arc::clone(&server), Arc::clone(&shared));
            std::thread::spawn(move || {
                while let Ok(req) = server.recv() {
                    answer(&shared, req);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    Ok(Outcome::Code(exit::OK))
}

/// Answers one request; a handler that panicked is a 500, not a lost
/// worker.
fn answer(shared: &Shared, mut req: Request) {
    let replied =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(shared, &mut req)));
    let (status, body, kind) = match replied {
        Ok(Routed::Page) => (200, PAGE.to_string(), "text/html; charset=utf-8"),
        Ok(Routed::Grammar) => (200, GRAMMAR.to_string(), "application/json"),
        Ok(Routed::Json((status, v))) => (status, v.to_string(), "application/json"),
        Err(_) => (
            500,
            json!({"error": "the server failed on this request"}).to_string(),
            "application/json",
        ),
    };
    let header = |k: &str, v: &str| Header::from_bytes(k.as_bytes(), v.as_bytes()).ok();
    let mut resp = Response::from_string(body).with_status_code(status);
    for h in [
        header("Content-Type", kind),
        // The page runs its own script only, and fetches from here only.
        header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
        ),
        header("X-Content-Type-Options", "nosniff"),
    ]
    .into_iter()
    .flatten()
    {
        resp = resp.with_header(h);
    }
    // A client gone before its answer is nothing to report.
    let _ = req.respond(resp);
}

/// Every path the server answers (with some method).
const PATHS: [&str; 9] = [
    "/",
    "/index.html",
    "/grammar.json",
    "/api/files",
    "/api/file",
    "/api/check",
    "/api/run",
    "/api/explain",
    "/api/play",
];

enum Routed {
    Page,
    Grammar,
    Json(Reply),
}

fn route(shared: &Shared, req: &mut Request) -> Routed {
    let url = req.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let method = req.method().clone();
    let reply = match (path, &method) {
        ("/" | "/index.html", Method::Get) => return Routed::Page,
        ("/grammar.json", Method::Get) => return Routed::Grammar,
        ("/api/files", Method::Get) => files(&shared.dir),
        ("/api/file", Method::Get) => match confined(&shared.dir, query) {
            Ok((p, rel)) => open(&p, &rel),
            Err(r) => r,
        },
        ("/api/file", Method::Put) => match (confined(&shared.dir, query), body(req)) {
            (Ok((p, _)), Ok(text)) => save(&p, text),
            (Err(r), _) | (_, Err(r)) => r,
        },
        ("/api/check" | "/api/run" | "/api/explain" | "/api/play", Method::Post) => {
            match body(req).and_then(|b| parsed(&b)) {
                Ok(args) => search(shared, req, path, &args),
                Err(r) => r,
            }
        }
        _ if PATHS.contains(&path) => fail(405, format!("{method} is not a method of {path}")),
        _ => fail(404, format!("no such page: {path}")),
    };
    Routed::Json(reply)
}

/// The request's body as text, within [`MAX_BODY`].
fn body(req: &mut Request) -> Result<String, Reply> {
    if req.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(fail(413, format!("a request is at most {MAX_BODY} bytes")));
    }
    let mut bytes = Vec::new();
    let read = req
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut bytes);
    if read.is_err() {
        return Err(fail(400, "the request's body could not be read"));
    }
    if bytes.len() > MAX_BODY {
        return Err(fail(413, format!("a request is at most {MAX_BODY} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| fail(400, "the request's body is not UTF-8"))
}

fn parsed(body: &str) -> Result<Value, Reply> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| fail(400, format!("the body is not JSON: {e}")))?;
    if !v.is_object() {
        return Err(fail(400, "the body is a JSON object"));
    }
    Ok(v)
}

/// A search (or a check) for one client, one at a time.
fn search(shared: &Shared, req: &Request, path: &str, args: &Value) -> Reply {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let Some(rules) = text("rules") else {
        return fail(400, "`rules` (the rule file's text) is missing");
    };
    if path == "/api/check" {
        return (200, puzzle::playground::check(rules));
    }
    let Some(input) = text("input") else {
        return fail(400, "`input` (the map's text) is missing");
    };
    let case = args.get("case").and_then(Value::as_u64).unwrap_or(1).max(1) as usize;
    let moves: Vec<String> = match args.get("moves") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(_) => return fail(400, "`moves` is a list of moves (strings)"),
    };
    let client = (req.headers().iter())
        .find(|h| h.field.equiv("X-Puzzle-Client"))
        .map(|h| h.value.as_str().to_string())
        .or_else(|| req.remote_addr().map(|a| a.ip().to_string()))
        .unwrap_or_default();
    if !shared
        .busy
        .lock()
        .map(|mut b| b.insert(client.clone()))
        .unwrap_or(false)
    {
        return fail(429, "a search of yours is running: one at a time");
    }
    let limits = shared.limits;
    let v = match path {
        "/api/run" => puzzle::playground::run(rules, input, case, limits),
        "/api/explain" => puzzle::playground::explain(rules, input, limits),
        _ => puzzle::playground::play(rules, input, case, &moves, text("command"), limits),
    };
    if let Ok(mut b) = shared.busy.lock() {
        b.remove(&client);
    }
    let status = if v.get("error").is_some() { 422 } else { 200 };
    (status, v)
}

/// The kinds of file the playground opens and saves.
fn wanted(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "puz" | "in" | "out" | "txt" | "map"))
}

/// A file of DIR named by `?path=`: relative, no `..`, no hidden part,
/// of a kind the playground edits, and (links followed) still inside DIR.
fn confined(dir: &Path, query: &str) -> Result<(PathBuf, String), Reply> {
    let raw = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("path="))
        .ok_or_else(|| fail(400, "`?path=` is missing"))?;
    let rel = decode(raw).ok_or_else(|| fail(400, "the path is not well encoded"))?;
    let p = Path::new(&rel);
    let plain = p.components().all(|c| match c {
        Component::Normal(s) => !s.to_string_lossy().starts_with('.'),
        _ => false,
    });
    if rel.is_empty() || !plain {
        return Err(fail(
            403,
            format!("`{rel}` is not a path inside the folder served"),
        ));
    }
    if !wanted(p) {
        return Err(fail(
            403,
            "only .puz, .in, .out, .txt and .map files are opened and saved",
        ));
    }
    let full = dir.join(p);
    // Links are followed as far as they exist: the file, else its folder.
    let real = full.canonicalize().or_else(|_| {
        full.parent()
            .map_or(Ok(dir.to_path_buf()), Path::canonicalize)
    });
    match real {
        Ok(r) if r.starts_with(dir) => Ok((full, rel)),
        _ => Err(fail(
            403,
            format!("`{rel}` is not a path inside the folder served"),
        )),
    }
}

/// `%2F` and `+` as the characters they stand for.
fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn files(dir: &Path) -> Reply {
    fn walk(dir: &Path, base: &Path, depth: usize, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let hidden = e.file_name().to_string_lossy().starts_with('.');
            if hidden || out.len() >= 2000 {
                continue;
            }
            // Links are not followed: what they lead to may lie outside.
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth > 0 {
                walk(&p, base, depth - 1, out);
            } else if kind.is_file()
                && wanted(&p)
                && let Ok(rel) = p.strip_prefix(base)
            {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, 2, &mut out);
    out.sort();
    (200, json!({ "files": out }))
}

fn open(p: &Path, rel: &str) -> Reply {
    match std::fs::metadata(p) {
        Ok(m) if m.len() > MAX_BODY as u64 => {
            return fail(
                413,
                format!("the playground opens files of at most {MAX_BODY} bytes"),
            );
        }
        Err(_) => return fail(404, "no such file"),
        Ok(_) => {}
    }
    match std::fs::read(p).map(String::from_utf8) {
        Ok(Ok(text)) => (200, json!({ "path": rel, "text": text })),
        Ok(Err(_)) => fail(415, "the file is not UTF-8 text"),
        Err(e) => fail(404, format!("cannot read it: {e}")),
    }
}

fn save(p: &Path, text: String) -> Reply {
    match std::fs::write(p, text) {
        Ok(()) => (200, json!({ "saved": true })),
        Err(e) => fail(500, format!("cannot save it: {e}")),
    }
}
