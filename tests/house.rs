//! The house's rules, checked on the source: the phases import one another
//! downward only (no cycle among `src/`'s modules), and functions stay
//! short enough to read (at most [`MAX_LINES`] lines).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a function may be, its signature and closing brace counted.
const MAX_LINES: usize = 120;

fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("src/ is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).expect("a source file"))
        })
        .collect()
}

/// A file's top-level module: `pack` for `pack/mod.rs` and `pack/word.rs`,
/// `lib` for the crate's root.
fn module_of(rel: &str) -> String {
    rel.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

/// The code of a line without its comment (a `//` outside a string).
fn code(line: &str) -> &str {
    let mut in_str = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// The names that follow `prefix` in `text` (`crate::plan::Plan` gives
/// `plan` for `crate::`).
fn after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        out.push(&rest[..end]);
    }
    out
}

/// Which top-level modules each module uses: `crate::m`, `super::m` in a
/// top-level file, `m::` in the crate's root (its `mod` and `pub use`
/// lines aside: declaring and re-exporting is not depending), and `lib`
/// for the root's own items.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let files = sources();
    let modules: BTreeSet<String> = files.iter().map(|(r, _)| module_of(r)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in &files {
        let me = module_of(rel);
        if me == "main" {
            continue;
        }
        let top = !rel.contains('/') || rel.ends_with("/mod.rs");
        let mut named = Vec::new();
        for line in text.lines() {
            let line = code(line);
            let t = line.trim_start();
            if me == "lib" {
                if t.starts_with("pub mod ") || t.starts_with("mod ") || t.starts_with("pub use ") {
                    continue;
                }
                for m in &modules {
                    if !after(line, &format!("{m}::")).is_empty() {
                        named.push(m.clone());
                    }
                }
            }
            for n in after(line, "crate::") {
                named.push(if modules.contains(n) {
                    n.to_string()
                } else {
                    "lib".into()
                });
            }
            if top {
                named.extend(after(line, "super::").into_iter().map(String::from));
            }
        }
        for n in named {
            if n != me && modules.contains(&n) && n != "main" {
                edges.entry(me.clone()).or_default().insert(n);
            }
        }
    }
    edges
}

/// A cycle of `edges`, if there is one, as the modules along it.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        path.push(v.to_string());
        for w in edges.get(v).into_iter().flatten() {
            match state.get(w.as_str()) {
                Some(1) => {
                    let from = path.iter().position(|p| p == w).unwrap();
                    let mut c = path[from..].to_vec();
                    c.push(w.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(w, edges, state, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in edges.keys() {
        if !state.contains_key(v.as_str())
            && let Some(c) = visit(v, edges, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_phases_import_one_another_downward_only() {
    let edges = imports();
    // The check sees what it must: the pipeline's known downward edges.
    for (from, to) in [
        ("plan", "kernel"),
        ("search", "plan"),
        ("kernel", "task"),
        ("run", "lib"),
    ] {
        assert!(
            edges.get(from).is_some_and(|t| t.contains(to)),
            "{from} -> {to} not seen: {edges:?}"
        );
    }
    if let Some(c) = cycle(&edges) {
        panic!(
            "an import cycle among src/'s modules: {}\n(each arrow is a `crate::` path; \
             move the shared part below both)",
            c.join(" -> ")
        );
    }
}

#[test]
fn a_cycle_is_found() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        edges.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(cycle(&edges).unwrap(), ["a", "b", "c", "a"]);
    edges.get_mut("c").unwrap().remove("a");
    assert_eq!(cycle(&edges), None);
}

/// Every function's length, as `(file::name, lines)`: from its `fn` line
/// to the closing brace at its indentation (the source is `rustfmt`ed).
fn lengths(files: &[(String, String)]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            let indent = line.len() - t.len();
            let mut rest = t;
            for word in [
                "pub(crate) ",
                "pub(super) ",
                "pub ",
                "const ",
                "unsafe ",
                "async ",
            ] {
                rest = rest.strip_prefix(word).unwrap_or(rest);
            }
            let Some(sig) = rest.strip_prefix("fn ") else {
                continue;
            };
            let name: String = sig
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // The signature ends at a line ending in `{` (a body) or `;`.
            let Some(open) = (i..lines.len()).find(|&j| {
                let l = lines[j].trim_end();
                l.ends_with('{') || l.ends_with(';')
            }) else {
                continue;
            };
            if lines[open].trim_end().ends_with(';') {
                continue;
            }
            let close = format!("{}}}", " ".repeat(indent));
            if let Some(end) = (open + 1..lines.len()).find(|&j| lines[j].trim_end() == close) {
                out.push((format!("{rel}::{name}"), end - i + 1));
            }
        }
    }
    out
}

#[test]
fn functions_are_at_most_120_lines() {
    let all = lengths(&sources());
    assert!(
        all.len() > 500,
        "the functions were not found: {}",
        all.len()
    );
    // Functions of one name in one file (methods of several types) are
    // held to the longest of them.
    let mut longest: BTreeMap<String, usize> = BTreeMap::new();
    for (name, n) in all {
        let e = longest.entry(name).or_default();
        *e = (*e).max(n);
    }
    let found: Vec<(String, usize)> = longest.into_iter().collect();
    let bad: Vec<String> = found
        .iter()
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(name, n)| format!("{name}: {n} lines, over {MAX_LINES}: split it"))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_function_is_measured_from_its_line_to_its_brace() {
    let text = "fn a() {\n    x;\n}\n\n    pub(crate) fn b(\n        y: u8,\n    ) -> u8 {\n        if y {\n        }\n    }\nfn c();\n";
    let got = lengths(&[("f.rs".into(), text.into())]);
    assert_eq!(
        got,
        [("f.rs::a".to_string(), 3), ("f.rs::b".to_string(), 6)]
    );
}
