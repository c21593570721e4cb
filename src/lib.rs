//! `puzzle`: a declarative language for grid state-space puzzles, and the
//! interpreter that solves them.
//!
//! The pipeline, one module and one type per phase:
//!
//! ```text
//! .puz text --syntax::parse--> ast::File --resolve::resolve--> resolve::Rules
//! input text --input::Reader--> input::RawCase (one per case)
//! Rules + RawCase --compile::compile--> compile::Model<W> --search::search--> search::Outcome
//! ```
//!
//! [`load`] runs the first two phases on a rule file; [`solve`] runs the last
//! two on one case; [`run()`] drives a whole input file and prints the answers.

pub mod ast;
pub mod compile;
pub mod error;
pub mod input;
pub mod resolve;
pub mod run;
pub mod search;
pub mod syntax;

use error::{Diagnostics, InputError, RuleError};
use miette::NamedSource;

pub use run::{RunError, run};

/// Checked rules, and the warnings found while checking them.
pub struct Loaded {
    pub rules: resolve::Rules,
    pub warnings: Vec<RuleError>,
    pub src: NamedSource<String>,
}

/// Parses and checks a rule file: text -> AST -> rules.
pub fn load(name: &str, text: &str) -> Result<Loaded, Diagnostics<RuleError>> {
    let src = NamedSource::new(name, text.to_string());
    let fail = |errors| Diagnostics::new(src.clone(), errors, name);
    let ast = syntax::parse(text).map_err(|e| fail(vec![e]))?;
    let (rules, warnings) = resolve::resolve(&ast).map_err(fail)?;
    Ok(Loaded {
        rules,
        warnings,
        src,
    })
}

/// Compiles one case and searches it: rules + map -> model -> outcome. The
/// state word is `u64` when the layout fits, `u128` when it does not.
pub fn solve(
    rules: &resolve::Rules,
    case: &input::RawCase,
    config: search::Config,
) -> Result<search::Outcome, Vec<InputError>> {
    let prepared = compile::prepare(rules, case)?;
    match prepared.layout.bits {
        0..=64 => Ok(search::search(&compile::compile::<u64>(prepared), config)),
        65..=compile::MAX_BITS => Ok(search::search(&compile::compile::<u128>(prepared), config)),
        _ => Err(vec![run::too_wide(case, &prepared.layout)]),
    }
}
