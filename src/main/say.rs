//! What the command says on stderr of its own: notices, reports (as text
//! or JSON lines), a command line clap cannot take, and a failed write.

use crate::exit;
use miette::Report;
use std::io::Write;
use std::sync::atomic::Ordering::Relaxed;

/// Reports go to stderr as JSON lines: set once, from `--format`, before
/// anything is reported.
pub static JSON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A command line clap cannot take: help and version are printed as clap
/// prints them; an error is a JSON line under `--format json`, else
/// clap's own text. The exit code is clap's (2 for an error).
pub fn command_line_error(e: &clap::Error) -> u8 {
    if !e.use_stderr() || !JSON.load(Relaxed) {
        // Nothing is done when it cannot be printed: the code tells it.
        let _ = e.print();
        return u8::try_from(e.exit_code()).unwrap_or(exit::USAGE);
    }
    // clap's text: `error: MESSAGE`, its indented continuation (the
    // arguments missing), then tips and usage.
    let text = e.render().to_string();
    let mut lines = text.lines().peekable();
    let mut message = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_string();
    while let Some(more) = lines.next_if(|l| l.starts_with(' ')) {
        message.push(' ');
        message.push_str(more.trim());
    }
    let help: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
    let json = serde_json::json!({
        "severity": "error",
        "code": format!("puzzle::cli::{}", kebab(&format!("{:?}", e.kind()))),
        "message": message,
        "help": help.join("\n"),
    });
    let _ = writeln!(std::io::stderr(), "{json}");
    exit::USAGE
}

/// `UnknownArgument` as `unknown-argument`.
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// What a [`notice`] is.
#[derive(Clone, Copy)]
pub enum Notice {
    /// Told as `puzzle: MESSAGE`; `error` in JSON.
    Error,
    /// Told as `puzzle: note: MESSAGE`; `advice` in JSON (the run goes on).
    Note,
}

/// A message of the command's own on stderr (not a report on a file): a
/// line of text, or with `--format json` a JSON line with a severity and a
/// code, as reports are. Nothing is done when stderr cannot take it.
pub fn notice(kind: Notice, code: &str, message: &str) {
    let mut err = std::io::stderr().lock();
    let _ = if JSON.load(Relaxed) {
        let severity = match kind {
            Notice::Error => "error",
            Notice::Note => "advice",
        };
        let json = serde_json::json!({"severity": severity, "code": code, "message": message});
        writeln!(err, "{json}")
    } else {
        match kind {
            Notice::Error => writeln!(err, "puzzle: {message}"),
            Notice::Note => writeln!(err, "puzzle: note: {message}"),
        }
    };
}

/// Writes a report to stderr, as text or JSON lines. Nothing is done when
/// that fails: stderr is where a failure would be told, and the exit code
/// still tells it.
pub fn say(report: &Report) {
    let mut err = std::io::stderr().lock();
    let _ = if JSON.load(Relaxed) {
        puzzle::error::json(report.as_ref())
            .iter()
            .try_for_each(|j| writeln!(err, "{j}"))
    } else {
        writeln!(err, "{report:?}")
    };
}

/// The exit code for a failed write: 0 for a closed pipe (as other Unix
/// tools do), else [`exit::OUTPUT`] after a message, if stderr takes one.
pub fn stream_failed(e: &std::io::Error) -> u8 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return exit::OK;
    }
    notice(
        Notice::Error,
        "puzzle::io::write",
        &format!("cannot write the output: {e}"),
    );
    exit::OUTPUT
}
