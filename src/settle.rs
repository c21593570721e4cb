//! Settling states in order of (cost, steps): Dijkstra's algorithm, each
//! state's least label and parent kept. The core of the engine of tasks
//! whose costs have parts ([`crate::search`]'s ordered engine: `minimise
//! pushes then walks` compares a way's cost part by part, so no one number
//! of the other engines weighs it), and of the search that finds a way
//! again after any engine ([`crate::trace`]). Below both, so neither
//! imports the other.
//!
//! A step's cost is a code ([`crate::task::Parts`]); a [`Label`] adds up
//! what the codes stand for, with the steps: one number, amounts per part,
//! or amounts per part packed into one word ([`Packing`]). The labels are
//! kept per state in a hash map, or in an array indexed by the packed state
//! where the layout is small (the plan chooses: [`Labels::new`]).

use crate::budget::Budget;
use crate::kernel::Kernel;
use crate::pack::{Field, Word};
use crate::resolve::MAX_PARTS;
use crate::task::Parts;
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A way's label: its cost and its steps, ordered as the task weighs ways
/// (the cost first, part by part where it has parts, then the steps).
pub trait Label: Copy + Ord + std::fmt::Debug {
    /// What a step's cost code stands for.
    type Scale: ?Sized;
    /// A start's label: nothing spent, no step taken.
    const START: Self;
    /// Greater than the label of any way: an empty entry of an array.
    const UNSEEN: Self;
    /// This label and one step of cost `code` more.
    fn after(self, code: u32, scale: &Self::Scale) -> Self;
    fn steps(self, scale: &Self::Scale) -> u64;
    /// The cost part by part (the cost alone, where it has no parts).
    fn parts(self, scale: &Self::Scale) -> Vec<u64>;
    /// The first part (the whole cost, where it has no parts).
    fn first(self, scale: &Self::Scale) -> u64 {
        self.parts(scale)[0]
    }
}

/// One number: a cost code is the cost.
impl Label for (u64, u64) {
    type Scale = ();
    const START: Self = (0, 0);
    const UNSEEN: Self = (u64::MAX, u64::MAX);

    fn after(self, code: u32, _: &()) -> Self {
        (self.0 + u64::from(code), self.1 + 1)
    }

    fn steps(self, _: &()) -> u64 {
        self.1
    }

    fn parts(self, _: &()) -> Vec<u64> {
        vec![self.0]
    }

    fn first(self, _: &()) -> u64 {
        self.0
    }
}

/// Amounts per part, compared in order (the parts a task does not have are
/// 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct InParts([u64; MAX_PARTS]);

impl Label for (InParts, u64) {
    type Scale = Parts;
    const START: Self = (InParts([0; MAX_PARTS]), 0);
    const UNSEEN: Self = (InParts([u64::MAX; MAX_PARTS]), u64::MAX);

    fn after(self, code: u32, parts: &Parts) -> Self {
        let mut out = self.0;
        for (o, a) in out.0.iter_mut().zip(parts.amounts(code)) {
            *o += a;
        }
        (out, self.1 + 1)
    }

    fn steps(self, _: &Parts) -> u64 {
        self.1
    }

    fn parts(self, parts: &Parts) -> Vec<u64> {
        self.0.0[..parts.names().len()].to_vec()
    }

    fn first(self, _: &Parts) -> u64 {
        self.0.0[0]
    }
}

/// Amounts per part, and the steps where they do not follow from the
/// parts, packed into one word as [`Packing`] lays them out: the word's
/// order is the order of the labels, and adding up never carries from one
/// field into the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Packed(u64);

impl Label for Packed {
    type Scale = Packing;
    const START: Self = Packed(0);
    const UNSEEN: Self = Packed(u64::MAX);

    #[inline]
    fn after(self, code: u32, p: &Packing) -> Self {
        Packed(self.0 + p.adds[code as usize])
    }

    fn steps(self, p: &Packing) -> u64 {
        match p.steps {
            Some(f) => f.get(self.0),
            None => p.fields.iter().map(|f| f.get(self.0)).sum::<u64>() / p.per_step,
        }
    }

    fn parts(self, p: &Packing) -> Vec<u64> {
        p.fields.iter().map(|f| f.get(self.0)).collect()
    }

    #[inline]
    fn first(self, p: &Packing) -> u64 {
        p.fields[0].get(self.0)
    }
}

/// Bits of a word, from `shift` up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bits {
    shift: u32,
    width: u32,
}

impl Bits {
    fn get(self, x: u64) -> u64 {
        (x >> self.shift) & ((1u64 << self.width) - 1)
    }
}

/// How costs in parts and steps pack into one word: the first part in the
/// highest bits, each part wide enough for the most a way of distinct
/// states can spend on it, then the steps (left out where every step
/// spends the same total on the parts: the steps are then the total over
/// it, and never break a tie the parts leave).
///
/// Invariant: the label a search compares is that of a least-label way to
/// a state settled before (a way through distinct states: a repeated state
/// would only add steps), plus one step: with at most `states` states,
/// every field stays below `states` times the most a step adds to it, and
/// its width holds that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packing {
    fields: Vec<Bits>,
    steps: Option<Bits>,
    /// The total every step spends on the parts, where it is the same.
    per_step: u64,
    /// What a step of each cost code adds, packed (by code; 0 costs
    /// nothing).
    adds: Vec<u64>,
}

impl Packing {
    /// The packing of `parts`' labels for a task of at most `states`
    /// states, if they fit in 63 bits (so that no label is
    /// [`Label::UNSEEN`]).
    pub fn new(parts: &Parts, states: u128) -> Option<Packing> {
        let n = parts.names().len();
        let rows: Vec<&[u64]> = (1..=parts.codes() as u32)
            .map(|c| parts.amounts(c))
            .collect();
        let width = |most: u64| -> Option<u32> {
            let top = states.checked_mul(u128::from(most.max(1)))?;
            Some(128 - top.leading_zeros())
        };
        let totals: Vec<u64> = rows.iter().map(|r| r[..n].iter().sum()).collect();
        let per_step = totals
            .first()
            .copied()
            .filter(|&t| t > 0 && totals.iter().all(|&u| u == t));
        let mut shift = 0;
        let steps = match per_step {
            Some(_) => None,
            None => {
                let w = width(1)?;
                shift = w;
                Some(Bits { shift: 0, width: w })
            }
        };
        let mut fields = Vec::with_capacity(n);
        for i in (0..n).rev() {
            let w = width(rows.iter().map(|r| r[i]).max().unwrap_or(0))?;
            fields.push(Bits { shift, width: w });
            shift += w;
        }
        if shift > 63 {
            return None;
        }
        fields.reverse();
        let one = steps.map_or(0, |f| 1u64 << f.shift);
        let adds = std::iter::once(one)
            .chain(rows.iter().map(|r| {
                fields
                    .iter()
                    .zip(*r)
                    .map(|(f, &a)| a << f.shift)
                    .sum::<u64>()
                    + one
            }))
            .collect();
        Some(Packing {
            fields,
            steps,
            per_step: per_step.unwrap_or(1),
            adds,
        })
    }

    /// The fields, for `explain`: `pushes (23 bits), walks (23 bits)`, and
    /// the steps' or why they are left out.
    pub fn describe(&self, names: &[String]) -> String {
        let mut s: Vec<String> = names
            .iter()
            .zip(&self.fields)
            .map(|(n, f)| format!("{n} ({} bits)", f.width))
            .collect();
        match self.steps {
            Some(f) => s.push(format!("steps ({} bits)", f.width)),
            None => s.push(format!(
                "no steps (every step spends {} in all: the parts order the ways alone)",
                self.per_step
            )),
        }
        s.join(", ")
    }
}

/// How a packed state indexes an array: its fields read out and numbered
/// in mixed radix, the first given lowest (the position of the mover that
/// moves every step, so that the states a step leads to sit near the
/// state it leaves), one entry per combination of the fields' values (not
/// per packed value: a field of 1344 cells takes 1344, not 2048).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// Each field and its stride, lowest digit first.
    digits: Vec<(Field, u64)>,
    len: usize,
}

impl Index {
    /// An index over the state's fields, lowest digit first (fields of
    /// one value are no digit).
    pub fn new(fields: &[Field]) -> Index {
        let mut stride = 1u64;
        let mut digits = Vec::new();
        for &f in fields.iter().filter(|f| f.size > 1) {
            digits.push((f, stride));
            stride *= f.size;
        }
        Index {
            digits,
            len: stride as usize,
        }
    }

    /// Entries of the array.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn of<W: Word>(&self, s: W) -> usize {
        let mut i = 0;
        for &(f, stride) in &self.digits {
            i += f.raw(s) * stride;
        }
        i as usize
    }
}

/// Each state's least label found, and the state it was reached from (a
/// start is its own): in a hash map, or in arrays indexed by the packed
/// state (parents kept only where asked for).
pub enum Labels<W, L> {
    Map(HashMap<W, (L, W)>),
    Array {
        index: Index,
        labels: Vec<L>,
        parents: Vec<W>,
        len: usize,
    },
}

impl<W: Word, L: Label> Labels<W, L> {
    /// In arrays of one entry per index where an index is given, with
    /// the parents where `parents` says; else in a hash map (parents kept).
    pub fn new(array: Option<&Index>, parents: bool) -> Self {
        match array {
            Some(index) => Labels::Array {
                index: index.clone(),
                labels: vec![L::UNSEEN; index.len()],
                parents: if parents {
                    vec![W::ZERO; index.len()]
                } else {
                    Vec::new()
                },
                len: 0,
            },
            None => Labels::Map(HashMap::new()),
        }
    }

    #[inline]
    pub fn get(&self, s: W) -> Option<L> {
        match self {
            Labels::Map(m) => m.get(&s).map(|x| x.0),
            Labels::Array { index, labels, .. } => {
                let l = labels[index.of(s)];
                (l != L::UNSEEN).then_some(l)
            }
        }
    }

    #[inline]
    fn set(&mut self, s: W, l: L, from: W) {
        match self {
            Labels::Map(m) => {
                m.insert(s, (l, from));
            }
            Labels::Array {
                index,
                labels,
                parents,
                len,
            } => {
                let i = index.of(s);
                let slot = &mut labels[i];
                *len += usize::from(*slot == L::UNSEEN);
                *slot = l;
                if let Some(p) = parents.get_mut(i) {
                    *p = from;
                }
            }
        }
    }

    /// Asks for the cache line of `s`'s label where it is in an array: the
    /// next state off the queue, read when the present one is expanded.
    #[inline]
    fn prefetch(&self, s: W) {
        if let Labels::Array { index, labels, .. } = self
            && let Some(l) = labels.get(index.of(s))
        {
            crate::pack::prefetch(l);
        }
    }

    /// The state `s` was reached from (a start's is itself), where parents
    /// are kept.
    pub fn parent(&self, s: W) -> Option<W> {
        match self {
            Labels::Map(m) => m.get(&s).map(|x| x.1),
            Labels::Array { index, parents, .. } => parents.get(index.of(s)).copied(),
        }
    }

    /// States with a label.
    pub fn len(&self) -> usize {
        match self {
            Labels::Map(m) => m.len(),
            Labels::Array { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A state waiting in the queue with its label, and when it was queued:
/// ordered by the label, then first in, first out (the state itself is
/// never compared).
struct Queued<L, W>(L, u64, W);

impl<L: Ord, W> PartialEq for Queued<L, W> {
    fn eq(&self, other: &Self) -> bool {
        (&self.0, self.1) == (&other.0, other.1)
    }
}

impl<L: Ord, W> Eq for Queued<L, W> {}

impl<L: Ord, W> PartialOrd for Queued<L, W> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<L: Ord, W> Ord for Queued<L, W> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.0, self.1).cmp(&(&other.0, other.1))
    }
}

/// What [`settle`] found.
pub struct Settled<W, L> {
    pub best: Labels<W, L>,
    /// The states settled (expanded), in order.
    pub settled: Vec<W>,
    /// The goals at the least label, the first found first.
    pub goals: Vec<W>,
    /// Successors generated, and the most labels queued at once.
    pub generated: u64,
    pub frontier: u64,
}

/// Dijkstra on labels up to the first goal, from `best` (empty): each
/// state's least label and parent, the states settled in order, and the
/// goals settled at the least label (with `all_goals`, every one of them;
/// else the first). Ties are settled first in, first out, so what it finds
/// does not depend on where the labels are kept. `None` when no goal is
/// reached, or the budget ran out (it says which).
pub fn settle<W: Word, L: Label>(
    k: &Kernel<'_, W>,
    budget: &Budget,
    all_goals: bool,
    scale: &L::Scale,
    mut best: Labels<W, L>,
) -> Option<Settled<W, L>> {
    let task = k.task();
    let limit = task.limit().map_or(u64::MAX, |l| l.max);
    let mut queue = BinaryHeap::new();
    let mut seq = 0u64;
    for &s in k.starts() {
        if best.get(s).is_none() {
            best.set(s, L::START, s);
            queue.push(Reverse(Queued(L::START, seq, s)));
            seq += 1;
        }
    }
    let mut succ = k.successors();
    let mut settled = Vec::new();
    let mut goals: Vec<W> = Vec::new();
    let mut least = L::UNSEEN;
    let mut next: Vec<(W, L)> = Vec::new();
    let (mut generated, mut frontier) = (0u64, queue.len() as u64);
    while let Some(Reverse(Queued(g, _, s))) = queue.pop() {
        if let Some(Reverse(Queued(_, _, after))) = queue.peek() {
            best.prefetch(*after);
        }
        if best.get(s).is_some_and(|b| b < g) {
            continue;
        }
        if !goals.is_empty() {
            // Only the goals at the first goal's label are left.
            if g > least {
                break;
            }
            if k.is_goal(s) {
                goals.push(s);
            }
            continue;
        }
        if k.is_goal(s) {
            goals.push(s);
            least = g;
            if !all_goals {
                break;
            }
            continue;
        }
        settled.push(s);
        if (settled.len() as u64).is_multiple_of(crate::budget::CHECK_EVERY)
            && budget.check(best.len() as u64, g.first(scale))
        {
            return None;
        }
        frontier = frontier.max(queue.len() as u64 + 1);
        // The successors first, their labels asked for all at once: where
        // the labels are an array, those reads miss the cache, and made
        // one after another, each would wait for the one before.
        next.clear();
        succ.each_cost(s, |t, c| {
            best.prefetch(t);
            next.push((t, g.after(c, scale)));
            true
        });
        generated += next.len() as u64;
        for &(t, gt) in &next {
            if gt.first(scale) <= limit && best.get(t).is_none_or(|b| gt < b) {
                best.set(t, gt, s);
                queue.push(Reverse(Queued(gt, seq, t)));
                seq += 1;
            }
        }
    }
    (!goals.is_empty()).then_some(Settled {
        best,
        settled,
        goals,
        generated,
        frontier,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(table: Vec<Vec<u64>>) -> Parts {
        Parts::new(vec!["a".into(), "b".into()], table)
    }

    /// The most a way of distinct states can add up, in every field, is
    /// read back whole (no field carries into the next), and packed labels
    /// order as the unpacked ones do.
    #[test]
    fn packed_fields_hold_the_most_a_way_spends() {
        let p = parts(vec![vec![0, 1], vec![3, 0], vec![2, 5]]);
        let states = 1000u128;
        let k = Packing::new(&p, states).expect("fits");
        assert!(k.steps.is_some(), "totals differ: the steps are kept");
        let (mut packed, mut wide) = (Packed::START, <(InParts, u64)>::START);
        for i in 0..states as u32 {
            let code = 1 + i % 3;
            packed = packed.after(code, &k);
            wide = wide.after(code, &p);
        }
        assert_eq!(packed.parts(&k), wide.parts(&p));
        assert_eq!(packed.steps(&k), wide.1);
        let mut labels = Vec::new();
        for codes in [[1, 1, 1], [2, 1, 1], [1, 3, 1], [3, 3, 2], [1, 2, 3]] {
            let (mut a, mut b) = (Packed::START, <(InParts, u64)>::START);
            for c in codes {
                (a, b) = (a.after(c, &k), b.after(c, &p));
            }
            labels.push((a, b));
        }
        for x in &labels {
            for y in &labels {
                assert_eq!(x.0.cmp(&y.0), x.1.cmp(&y.1), "{x:?} {y:?}");
            }
        }
    }

    /// An index numbers the fields' values in mixed radix, the first
    /// field lowest: each combination its own entry.
    #[test]
    fn an_index_numbers_each_combination_once() {
        // A field of 3 values at bit 0 (2 bits), one of 5 at bit 2 (3
        // bits), one of 1 value, and the 5 first.
        let field = |offset, bits, size| Field {
            offset,
            bits,
            lo: 0,
            size,
        };
        let ix = Index::new(&[field(2, 3, 5), field(7, 0, 1), field(0, 2, 3)]);
        assert_eq!(ix.len(), 15);
        let mut seen = Vec::new();
        for a in 0..3u64 {
            for b in 0..5u64 {
                seen.push(ix.of(a | (b << 2)));
            }
        }
        assert_eq!(ix.of(1u64 << 2), 1, "the first field is the lowest digit");
        seen.sort_unstable();
        assert_eq!(seen, (0..15).collect::<Vec<_>>());
    }

    /// Every step spending the same total: no steps field. Too many
    /// states for 63 bits: no packing.
    #[test]
    fn the_steps_are_left_out_or_the_packing_refused() {
        let p = parts(vec![vec![1, 0], vec![0, 1]]);
        let k = Packing::new(&p, 1 << 20).expect("fits");
        assert_eq!(k.steps, None);
        assert_eq!(
            k.fields.iter().map(|f| f.width).collect::<Vec<_>>(),
            [21, 21]
        );
        assert!(Packing::new(&p, 1 << 40).is_none());
        let uneven = parts(vec![vec![1 << 20, 0], vec![0, 1]]);
        assert!(Packing::new(&uneven, 1 << 30).is_none());
    }
}
