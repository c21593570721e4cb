//! What an editor needs of a rule file (`puzzle lsp`): its reports with
//! their byte spans (the same as `puzzle check`'s), the names it declares
//! with where and how, the words the language reserves (read from the
//! grammar itself, so they never drift from it), the name under a cursor,
//! and positions as an editor counts them (lines, and UTF-16 units).
//!
//! Invariant: every span is a byte range of the text it was taken from, on
//! character boundaries.

use crate::ast::{self, Decl, Span};
use miette::Diagnostic;

/// A report of a rule file, placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub warning: bool,
    pub code: Option<String>,
    /// The message, its first label and its help, as one text.
    pub message: String,
    /// Bytes: where its first label is (the file's start where it has
    /// none).
    pub offset: usize,
    pub len: usize,
}

/// What [`check`] finds: the reports, and the syntax tree where the file
/// parses.
pub struct Checked {
    pub reports: Vec<Report>,
    pub ast: Option<ast::File>,
}

/// Checks a rule file as `puzzle check` does: every error, or the
/// warnings of a file that holds.
pub fn check(name: &str, text: &str) -> Checked {
    let reports = match crate::load(name, text) {
        Ok(loaded) => loaded.warnings.iter().map(|w| report(w, true)).collect(),
        Err(all) => all
            .errors
            .iter()
            .map(|e| report(e, e.is_warning()))
            .collect(),
    };
    Checked {
        reports,
        ast: crate::syntax::parse(text).ok(),
    }
}

/// A report placed by its first label.
pub fn report(d: &dyn Diagnostic, warning: bool) -> Report {
    let label = d.labels().and_then(|mut l| l.next());
    let mut message = d.to_string();
    if let Some(text) = label.as_ref().and_then(|l| l.label()) {
        message.push_str(&format!(": {text}"));
    }
    if let Some(help) = d.help() {
        message.push_str(&format!("\nhelp: {help}"));
    }
    Report {
        warning,
        code: d.code().map(|c| c.to_string()),
        message,
        offset: label.as_ref().map_or(0, |l| l.offset()),
        len: label.as_ref().map_or(0, |l| l.len()),
    }
}

/// What a declared name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    Tile,
    Agent,
    Object,
    Piece,
    Flag,
    Counter,
    Domain,
    /// A value of a domain.
    Value,
    Layout,
    Field,
    Beam,
    /// A named set of moves.
    Moves,
    HeaderField,
    CostPart,
    Pose,
}

impl std::fmt::Display for DefKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DefKind::Tile => "tile",
            DefKind::Agent => "agent",
            DefKind::Object => "object",
            DefKind::Piece => "piece",
            DefKind::Flag => "flag",
            DefKind::Counter => "counter",
            DefKind::Domain => "domain",
            DefKind::Value => "value",
            DefKind::Layout => "layout",
            DefKind::Field => "field",
            DefKind::Beam => "beam",
            DefKind::Moves => "moves",
            DefKind::HeaderField => "header field",
            DefKind::CostPart => "cost part",
            DefKind::Pose => "pose",
        })
    }
}

/// A name the file declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// Where the name is written in its declaration.
    pub offset: usize,
    pub len: usize,
}

/// Every name the file declares, in the order written.
pub fn definitions(file: &ast::File) -> Vec<Def> {
    let mut out = Vec::new();
    let mut add = |id: &ast::Ident, kind: DefKind| {
        out.push(Def {
            name: id.name.clone(),
            kind,
            offset: id.span.offset(),
            len: id.span.len(),
        })
    };
    for d in &file.decls {
        match d {
            Decl::Tiles(tiles) => tiles.iter().for_each(|t| add(&t.name, DefKind::Tile)),
            Decl::Agent(a) => {
                let kind = match (a.object, a.piece) {
                    (true, _) => DefKind::Object,
                    (_, Some(_)) => DefKind::Piece,
                    _ => DefKind::Agent,
                };
                add(&a.name, kind);
            }
            Decl::Flags(flags) => flags.iter().for_each(|f| add(&f.name, DefKind::Flag)),
            Decl::Counters(cs) => cs.iter().for_each(|c| add(&c.name, DefKind::Counter)),
            Decl::Domain(dom) => {
                add(&dom.name, DefKind::Domain);
                dom.values.iter().for_each(|v| add(v, DefKind::Value));
            }
            Decl::Layout(l) => add(&l.name, DefKind::Layout),
            Decl::Field(f) => add(&f.name, DefKind::Field),
            Decl::Beam(b) => add(&b.name, DefKind::Beam),
            Decl::Moves(m) => add(&m.name, DefKind::Moves),
            Decl::Poses(p) => p.poses.iter().for_each(|(n, _)| add(n, DefKind::Pose)),
            Decl::Minimise(parts) => parts.iter().for_each(|p| add(p, DefKind::CostPart)),
            Decl::Input(items) => {
                for item in items {
                    if let ast::InputItem::Header(names) = item {
                        names.iter().for_each(|n| add(n, DefKind::HeaderField));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The words of the language: every keyword the grammar spells out,
/// sorted (read once).
pub fn keywords() -> &'static [&'static str] {
    static WORDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    WORDS.get_or_init(grammar_words)
}

fn grammar_words() -> Vec<&'static str> {
    const GRAMMAR: &str = include_str!("../grammar/puzzle.pest");
    let mut words: Vec<&'static str> = Vec::new();
    for line in GRAMMAR
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
    {
        // A literal is a quote, letters, a quote; what lies between two
        // literals (` | `) is not letters, and realigns the pairs.
        let mut rest = line;
        while let Some(open) = rest.find('"') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('"') else { break };
            let word = &after[..close];
            if word.len() > 1 && word.chars().all(|c| c.is_ascii_alphabetic()) {
                words.push(word);
                rest = &after[close + 1..];
            } else {
                rest = after;
            }
        }
    }
    words.sort_unstable();
    words.dedup();
    words
}

/// The name (letters, digits, `_`) at or just before byte `offset`, as a
/// byte range.
pub fn word_at(text: &str, offset: usize) -> Option<std::ops::Range<usize>> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = offset
        + text[offset..]
            .find(|c: char| !is_word(c))
            .unwrap_or(text.len() - offset);
    (start < end).then_some(start..end)
}

/// The declaration a name at `offset` refers to: the first of that name
/// (a name a file declares twice is reported by the checks).
pub fn definition_at<'d>(defs: &'d [Def], text: &str, offset: usize) -> Option<&'d Def> {
    let word = &text[word_at(text, offset)?];
    defs.iter().find(|d| d.name == word)
}

/// The line of the text a declaration is on, and the comment lines just
/// above it (without their `#`): what a hover shows.
pub fn described(text: &str, def: &Def) -> (String, Vec<String>) {
    let start = text[..def.offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[def.offset..]
        .find('\n')
        .map_or(text.len(), |i| def.offset + i);
    let line = text[start..end].trim().to_string();
    let mut comments: Vec<String> = text[..start]
        .lines()
        .rev()
        .take_while(|l| l.trim_start().starts_with('#'))
        .map(|l| l.trim_start().trim_start_matches('#').trim().to_string())
        .collect();
    comments.reverse();
    (line, comments)
}

/// A position as an editor counts it: a line from 0, and a column in
/// UTF-16 units from 0 (the Language Server Protocol's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// The position of byte `offset` (clamped to the text).
pub fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: before.matches('\n').count() as u32,
        column: before[line_start..].encode_utf16().count() as u32,
    }
}

/// The byte offset of a position (a column past its line's end is the
/// end; a line past the text's is its end).
pub fn offset(text: &str, p: Position) -> usize {
    let mut start = 0;
    for _ in 0..p.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= p.column as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    start + line.len()
}

/// A span's byte range.
pub fn range(span: Span) -> std::ops::Range<usize> {
    span.offset()..span.offset() + span.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_utf16_units() {
        let text = "ab\nt\u{e9}\u{1f600}x\n";
        for (off, line, column) in [
            (0, 0, 0),
            (2, 0, 2),
            (3, 1, 0),
            (4, 1, 1),
            (6, 1, 2),
            (10, 1, 4),
        ] {
            let p = position(text, off);
            assert_eq!((p.line, p.column), (line, column), "offset {off}");
            assert_eq!(offset(text, p), off, "back from {p:?}");
        }
    }

    #[test]
    fn a_word_is_found_at_its_end_too() {
        let text = "goal hero on exit";
        assert_eq!(word_at(text, 6), Some(5..9));
        assert_eq!(word_at(text, 9), Some(5..9));
        assert_eq!(word_at(text, 4), Some(0..4));
        assert_eq!(word_at("  ", 1), None);
    }

    #[test]
    fn the_keywords_are_the_grammars() {
        let k = keywords();
        for w in ["agent", "tiles", "goal", "move", "solid", "forbid"] {
            assert!(k.contains(&w), "{w} in {k:?}");
        }
    }
}
