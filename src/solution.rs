//! Phase 7: what a search found for one case.

/// The answer of one case, and what finding it took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Solution {
    /// The least total cost of a way to a goal (the fewest steps when
    /// every step costs 1), if one exists within the limit.
    pub cost: Option<u64>,
    /// States taken off a frontier or queue and expanded.
    pub expanded: u64,
    /// Distinct states seen.
    pub visited: u64,
    /// Set when a limit ended the search before an answer was known: which
    /// one, and how far the search got.
    pub stopped: Option<crate::search::budget::Stopped>,
    /// The moves of a least-cost way, as tokens (when asked for, and there
    /// is one).
    pub moves: Option<String>,
}

impl Solution {
    /// The solution of a search that its budget stopped.
    pub fn stopped(budget: &crate::search::Budget) -> Solution {
        Solution {
            stopped: budget.report(),
            ..Default::default()
        }
    }
}
