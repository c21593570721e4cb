//! Rendered diagnostics, as data: every rule file in `tests/ui/rules` and
//! every input in `tests/ui/inputs` (named `CASE.PUZZLE.in`, run with
//! `puzzles/PUZZLE.puz`) has its report snapshotted, rendered without colour
//! at a fixed width so the text is the same on every machine. Files are
//! read as bytes: some are not UTF-8 on purpose.

use puzzle::error::render;
use std::path::Path;

fn rel(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root).unwrap().display().to_string()
}

#[test]
fn rule_files() {
    insta::glob!("ui/rules/*.puz", |path| {
        let bytes = std::fs::read(path).unwrap();
        let report = match puzzle::load_bytes(&rel(path), &bytes) {
            Ok(loaded) => {
                assert!(
                    !loaded.warnings.is_empty(),
                    "{}: a ui case must produce a diagnostic",
                    rel(path)
                );
                let mut out = String::from("ok, with warnings:\n");
                for w in &loaded.warnings {
                    let r = miette::Report::new(w.clone()).with_source_code(loaded.src.clone());
                    out.push_str(&render(&*r));
                }
                out
            }
            Err(errors) => render(&errors),
        };
        insta::assert_snapshot!(report);
    });
}

#[test]
fn inputs() {
    insta::glob!("ui/inputs/*.in", |path| {
        let file = path.file_name().unwrap().to_str().unwrap();
        let puzzle = file.split('.').nth(1).unwrap();
        let rules_path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("puzzles/{puzzle}.puz"));
        let rules = puzzle::load(puzzle, &std::fs::read_to_string(rules_path).unwrap())
            .unwrap()
            .rules;
        let input = puzzle::run::Input::from_bytes(&rel(path), std::fs::read(path).unwrap());
        let mut out = Vec::new();
        let opts = puzzle::run::Options::default();
        let err = puzzle::run::run_input(&rules, &input, &opts, &mut out)
            .expect_err("a ui input must be rejected");
        let report = format!(
            "stdout:\n{}\nreport:\n{}",
            String::from_utf8(out).unwrap(),
            render(&err)
        );
        insta::assert_snapshot!(report);
    });
}

/// The plan of every shipped puzzle's sample, as `explain` prints it (two
/// threads, the default limits): a change of plan shows in review.
#[test]
fn plans_of_the_shipped_puzzles() {
    insta::glob!("../puzzles", "*.puz", |path| {
        let sample = path.with_extension("in");
        if !sample.exists() {
            return;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let rules = puzzle::load(&rel(path), &text).unwrap().rules;
        let input = puzzle::run::Input::from_bytes(&rel(&sample), std::fs::read(&sample).unwrap());
        let opts = puzzle::run::Options {
            search: puzzle::search::Config {
                strategy: puzzle::search::Strategy::Auto,
                threads: 2,
                count: false,
                cluster: None,
            },
            ..Default::default()
        };
        let mut out = Vec::new();
        puzzle::run::explain_input(&rules, &input, &opts, &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
    });
}
