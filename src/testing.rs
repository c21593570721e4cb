//! `puzzle test`: every rule file of a folder (or one rule file) run on
//! the `NAME.in` kept beside it, its output compared with `NAME.out`.

use crate::run::{Input, Options};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How a `puzzle test` went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tested {
    pub passed: usize,
    pub failed: usize,
    /// Rule files with no `.in` or no `.out` beside them.
    pub skipped: usize,
}

/// The rule files `path` names: itself when it is a file, else the `.puz`
/// files in it, sorted.
pub fn rule_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "puz"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs each rule file on its `.in` and compares with its
/// `.out`: a line a file on `out` (`pass`, `FAIL` with a diff, or `skip`
/// and why), then `N passed, M failed`.
/// The rule files are `files` (see [`rule_files`]); an error is one of
/// writing to `out`.
pub fn test(files: &[PathBuf], opts: &Options, out: &mut impl Write) -> std::io::Result<Tested> {
    let mut t = Tested::default();
    for rules in files {
        let (input, want) = (rules.with_extension("in"), rules.with_extension("out"));
        let name = rules.display();
        let (Ok(text), Ok(want)) = (std::fs::read(&input), std::fs::read_to_string(&want)) else {
            writeln!(
                out,
                "skip {name}: no {} and {} beside it",
                input.display(),
                want_name(rules)
            )?;
            t.skipped += 1;
            continue;
        };
        match outcome(rules, &input, &text, opts) {
            Ok(got) if got == want => {
                writeln!(out, "pass {name}")?;
                t.passed += 1;
            }
            Ok(got) => {
                writeln!(
                    out,
                    "FAIL {name}: the output differs from {}",
                    want_name(rules)
                )?;
                let diff = similar::TextDiff::from_lines(&want, &got);
                let shown = diff
                    .unified_diff()
                    .context_radius(2)
                    .header(&want_name(rules), "output")
                    .to_string();
                write!(out, "{shown}")?;
                t.failed += 1;
            }
            Err(why) => {
                writeln!(out, "FAIL {name}: {why}")?;
                t.failed += 1;
            }
        }
    }
    writeln!(
        out,
        "{} passed, {} failed{}",
        t.passed,
        t.failed,
        if t.skipped > 0 {
            format!(", {} skipped", t.skipped)
        } else {
            String::new()
        }
    )?;
    out.flush()?;
    Ok(t)
}

fn want_name(rules: &Path) -> String {
    rules.with_extension("out").display().to_string()
}

/// What running `rules` on `input` prints, or the report of why it could
/// not run.
fn outcome(rules: &Path, input: &Path, text: &[u8], opts: &Options) -> Result<String, String> {
    let bytes = std::fs::read(rules).map_err(|e| format!("cannot read it: {e}"))?;
    let name = rules.display().to_string();
    let loaded =
        crate::load_bytes(&name, &bytes).map_err(|d| format!("{:?}", miette::Report::new(d)))?;
    let input = Input::from_bytes(&input.display().to_string(), text.to_vec());
    let mut got = Vec::new();
    let opts = Options {
        warn: false,
        ..opts.clone()
    };
    crate::run::run_input(&loaded.rules, &input, &opts, &mut got)
        .map_err(|e| format!("{:?}", miette::Report::new(e)))?;
    Ok(String::from_utf8_lossy(&got).into_owned())
}
