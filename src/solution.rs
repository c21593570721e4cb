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
}
