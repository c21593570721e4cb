//! Ranks of whole states where some movers are interchangeable: the
//! positions of a set of twins (held in increasing order, see
//! [`crate::task::Task::canonical`]) are one digit, the rank of their
//! multiset in the combinatorial number system, and every other field a
//! digit of its own, all read as one mixed-radix number. Four boxes on
//! sixty cells pack into 24 bits (sixty values, four times); as a multiset
//! they are one of C(63, 4) = 595,665, 20 bits.
//!
//! A multiset, not a set: twins that never share a cell (pieces, an
//! object's members) would rank among C(n, k), a little fewer, but a rank
//! that does not rely on it holds whatever the rules allow.
//!
//! Invariant of [`SetRanker`]: `rank` maps the packed states of its layout
//! whose twins' positions are in increasing order one to one onto
//! `0..size()`, and `state` is its inverse.

use super::{Layout, Word, bits_for};
use crate::task::Task;

/// The rank of a whole state, twins' positions as multisets.
#[derive(Debug, Clone)]
pub struct SetRanker {
    digits: Vec<Digit>,
    /// `choose[j][d]` = C(d, j + 1), saturating (only values below a
    /// digit's size are ever read).
    choose: Vec<Vec<u64>>,
    size: u64,
}

/// A digit: the fields of one set of twins (one field for any other
/// variable), lowest mover first.
#[derive(Debug, Clone)]
struct Digit {
    offsets: Vec<u32>,
    bits: u32,
    /// Values of one field.
    n: u64,
    /// Values of the digit: C(n + k - 1, k) for k fields.
    size: u64,
    weight: u64,
}

impl SetRanker {
    /// The ranker of a task's layout, if some movers are twins and the
    /// ranks fit 63 bits.
    pub fn new(task: &Task, layout: &Layout) -> Option<SetRanker> {
        let movers = task.movers();
        let mut covered = vec![false; task.vars().len()];
        let mut groups: Vec<Vec<crate::task::VarId>> = Vec::new();
        for run in task.twin_runs() {
            let vars: Vec<_> = movers[run].iter().map(|m| m.pos()).collect();
            for v in &vars {
                covered[v.ix()] = true;
            }
            groups.push(vars);
        }
        if groups.is_empty() {
            return None;
        }
        let rest = layout.order().iter().filter(|v| !covered[v.ix()]);
        groups.extend(rest.map(|&v| vec![v]));
        let most_k = groups.iter().map(Vec::len).max()?;
        let most_n = groups.iter().map(|g| layout.field(g[0]).size).max()?;
        let width = usize::try_from(most_n).ok()? + most_k;
        // C(d, j) = C(d - 1, j) + C(d - 1, j - 1), row j from row j - 1
        // (row 0: C(d, 0) = 1).
        let mut choose: Vec<Vec<u64>> = Vec::with_capacity(most_k);
        let mut below = vec![1u64; width];
        for _ in 0..most_k {
            let mut row = vec![0u64; width];
            for d in 1..width {
                row[d] = row[d - 1].saturating_add(below[d - 1]);
            }
            choose.push(row.clone());
            below = row;
        }
        let mut weight = 1u64;
        let mut digits = Vec::new();
        for g in groups {
            let f = layout.field(g[0]);
            let k = g.len();
            let size = choose[k - 1][usize::try_from(f.size).ok()? + k - 1];
            if size == u64::MAX {
                return None;
            }
            if size > 1 {
                digits.push(Digit {
                    offsets: g.iter().map(|&v| layout.field(v).offset).collect(),
                    bits: f.bits,
                    n: f.size,
                    size,
                    weight,
                });
                weight = weight.checked_mul(size)?;
            }
        }
        (weight < 1 << 62).then_some(SetRanker {
            digits,
            choose,
            size: weight,
        })
    }

    /// How many ranks.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The bits a rank takes.
    pub fn bits(&self) -> u32 {
        bits_for(self.size)
    }

    /// The rank of a state whose twins are in increasing order.
    #[inline]
    pub fn rank<W: Word>(&self, s: W) -> u64 {
        let mut r = 0;
        for d in &self.digits {
            let ones = (1u64 << d.bits) - 1;
            let mut v = 0;
            for (i, &o) in d.offsets.iter().enumerate() {
                let c = (s >> o).low() & ones;
                v += self.choose[i][c as usize + i];
            }
            r += v * d.weight;
        }
        r
    }

    /// The state of a rank (below [`SetRanker::size`]).
    pub fn state<W: Word>(&self, r: u64) -> W {
        let mut s = W::ZERO;
        for d in &self.digits {
            let mut v = r / d.weight % d.size;
            for (i, &o) in d.offsets.iter().enumerate().rev() {
                // The largest `e` with C(e, i + 1) <= v: the row is
                // non-decreasing.
                let row = &self.choose[i][..d.n as usize + i];
                let e = row.partition_point(|&x| x <= v) - 1;
                v -= row[e];
                s = s | (W::from_u64((e - i) as u64) << o);
            }
        }
        s
    }

    /// What `explain` says of it: each set of twins and its values.
    pub fn describe(&self, layout: &Layout) -> String {
        let sets: Vec<String> = self
            .digits
            .iter()
            .filter(|d| d.offsets.len() > 1)
            .map(|d| {
                let (k, n) = (d.offsets.len(), d.n);
                format!("{k} alike on {n} values: {} multisets, not {n}^{k}", d.size)
            })
            .collect();
        format!(
            "{} ({} bits, where the packed state has {})",
            sets.join("; "),
            self.bits(),
            layout.bits()
        )
    }
}
