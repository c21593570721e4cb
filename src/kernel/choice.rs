//! A mover's ordered preferences compiled into a decision table: the
//! distinct tests their conditions are made of, and for every combination
//! of those tests' values, which preferences' conditions hold.
//!
//! A mover that moves by itself takes the first of its preferences whose
//! condition holds and that it can make. The conditions of a chaser
//! (`northeast if row of hero < its row and column of hero > its column`,
//! ..., `north if row of hero < its row`, ...) share a few tests: tried one
//! condition after another, the same test is worked out again and again.
//! Here each test is worked out once, and one look-up says which
//! conditions hold, in the order they are preferred.

use crate::task::{ActionId, Expr, Task};

/// More distinct tests than this, and the conditions are tried one by one
/// (the table has 2^tests entries).
const MAX_TESTS: usize = 8;

/// The decision table of one mover's preferences.
#[derive(Debug, Clone)]
pub struct Choice {
    /// The distinct tests of the conditions: every part that is not a
    /// constant, a conjunction, a disjunction or a negation.
    tests: Vec<Expr>,
    /// Per combination of the tests' values (bit `i`: test `i` holds),
    /// bit `j` set where preference `j`'s condition holds.
    holds: Vec<u64>,
}

impl Choice {
    /// The table of `prefs`' conditions; `None` where they have more than
    /// [`MAX_TESTS`] distinct tests or share too few, or there are more
    /// than 64 of them.
    pub fn new(task: &Task, prefs: &[ActionId]) -> Option<Choice> {
        if prefs.len() > 64 {
            return None;
        }
        let (mut tests, mut uses) = (Vec::new(), 0);
        for &a in prefs {
            if !collect(task.action(a).guard(), &mut tests, &mut uses) {
                return None;
            }
        }
        // Every test is worked out for the table, where the conditions one
        // by one stop at the first that holds: the table pays only where
        // the conditions share their tests (a chaser's eight directions
        // read four), not where each reads its own (measured: a table for
        // four conditions of one test each made a search 13% slower).
        if uses < 2 * tests.len() {
            return None;
        }
        let holds = (0..1usize << tests.len())
            .map(|bits| {
                (prefs.iter().enumerate())
                    .filter(|(_, a)| value(task.action(**a).guard(), &tests, bits))
                    .fold(0u64, |m, (j, _)| m | 1 << j)
            })
            .collect();
        Some(Choice { tests, holds })
    }

    /// How many distinct tests the table works out.
    pub fn tests(&self) -> usize {
        self.tests.len()
    }

    /// The distinct tests, and per combination of their values (bit `i`:
    /// test `i` holds) which preferences' conditions hold: for a kernel
    /// that works the tests out on its own form of a state.
    pub fn parts(&self) -> (&[Expr], &[u64]) {
        (&self.tests, &self.holds)
    }

    /// Which preferences' conditions hold on `vals` (bit `j`: the `j`-th),
    /// each test worked out once.
    // Not inlined: the loop over a mover's preferences stays as small as
    // it was without tables (inlined, a search with no table was 5% slower).
    #[inline(never)]
    pub fn holding(&self, task: &Task, vals: &[i64]) -> u64 {
        let bits = (self.tests.iter().enumerate())
            .filter(|(_, t)| task.eval(t, vals))
            .fold(0usize, |b, (i, _)| b | 1 << i);
        self.holds[bits]
    }
}

/// Adds `e`'s tests not yet in `tests`, counting in `uses` every test it
/// reads; false when they would be more than [`MAX_TESTS`].
fn collect(e: &Expr, tests: &mut Vec<Expr>, uses: &mut usize) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::And(es) | Expr::Or(es) => es.iter().all(|e| collect(e, tests, uses)),
        Expr::Not(e) => collect(e, tests, uses),
        t if tests.contains(t) => {
            *uses += 1;
            true
        }
        t => {
            *uses += 1;
            tests.push(t.clone());
            tests.len() <= MAX_TESTS
        }
    }
}

/// `e`'s value where test `i` of `tests` has bit `i` of `bits`.
fn value(e: &Expr, tests: &[Expr], bits: usize) -> bool {
    match e {
        Expr::Const(b) => *b,
        Expr::And(es) => es.iter().all(|e| value(e, tests, bits)),
        Expr::Or(es) => es.iter().any(|e| value(e, tests, bits)),
        Expr::Not(e) => !value(e, tests, bits),
        t => {
            let i = tests.iter().position(|x| x == t).expect("a collected test");
            bits >> i & 1 == 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{Cmp, VarId};

    /// The table agrees with the conditions worked out directly, for every
    /// combination of the tests.
    #[test]
    fn the_table_says_which_conditions_hold() {
        let (a, b) = (
            Expr::Cmp(VarId(0), Cmp::Lt, 1),
            Expr::Cmp(VarId(1), Cmp::Gt, 2),
        );
        let guards = [
            Expr::And(vec![a.clone(), b.clone()]),
            Expr::Or(vec![a.clone(), Expr::Not(Box::new(b.clone()))]),
            a.clone(),
            Expr::Const(true),
        ];
        let (mut tests, mut uses) = (Vec::new(), 0);
        for g in &guards {
            assert!(collect(g, &mut tests, &mut uses));
        }
        assert_eq!(tests, vec![a, b]);
        assert_eq!(uses, 5);
        for bits in 0..4 {
            let (x, y) = (bits & 1 == 1, bits & 2 == 2);
            let want = [x && y, x || !y, x, true];
            for (g, w) in guards.iter().zip(want) {
                assert_eq!(value(g, &tests, bits), w, "{g:?} at {bits:b}");
            }
        }
    }
}
