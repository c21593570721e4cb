//! The state encoding: each variable of a task packed into a bit field of
//! one state, as many words wide as the fields need.
//!
//! Invariant of [`Layout`]: fields do not overlap and lie below `bits`; a
//! variable's field holds `value - lo` in `bits_for(size)` bits, so every
//! packed state of a reachable state is below `2^bits`. Positions come
//! first and the last mover's position has the lowest bits: a
//! simultaneous step varies it innermost, so the successors of a state lie
//! close together in a dense visited set (and the bitmask rows of
//! [`crate::kernel`] rely on it). Each variable is its own field; a group
//! of interchangeable objects would be one ranked field of several.

use super::word::{Word, ones};
use crate::task::{Task, VarId, VarKind};

/// Where one variable lives in a packed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub offset: u32,
    pub bits: u32,
    /// The value a zero field stands for.
    pub lo: i64,
    /// How many values it takes.
    pub size: u64,
}

impl Field {
    /// A field of no bits: a variable of one value, which every state
    /// holds as 0.
    pub const NONE: Field = Field {
        offset: 0,
        bits: 0,
        lo: 0,
        size: 1,
    };

    /// `bits` ones at `offset`.
    #[inline(always)]
    pub fn mask<W: Word>(&self) -> W {
        ones::<W>(self.bits) << self.offset
    }

    /// The raw field of a state.
    #[inline(always)]
    pub fn raw<W: Word>(&self, s: W) -> u64 {
        let m = if self.bits == 0 {
            0
        } else {
            u64::MAX >> (64 - self.bits)
        };
        (s >> self.offset).low() & m
    }

    /// A raw field value in place.
    #[inline(always)]
    pub fn place<W: Word>(&self, raw: u64) -> W {
        W::from_u64(raw) << self.offset
    }
}

/// The packed layout of a task's states.
#[derive(Debug, Clone)]
pub struct Layout {
    /// By variable.
    fields: Vec<Field>,
    /// Variables from the lowest field up.
    order: Vec<VarId>,
    bits: u32,
}

/// Bits to hold `n` values.
pub fn bits_for(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

impl Layout {
    pub fn new(task: &Task) -> Layout {
        let mut order: Vec<VarId> = task.movers().iter().rev().map(|m| m.pos()).collect();
        for (i, v) in task.vars().iter().enumerate() {
            if !matches!(v.kind(), VarKind::Position(_)) {
                order.push(VarId(i as u32));
            }
        }
        let mut fields = vec![Field::NONE; task.vars().len()];
        let mut off = 0u32;
        for &v in &order {
            let var = task.var(v);
            let bits = bits_for(var.size());
            fields[v.ix()] = Field {
                offset: off,
                bits,
                lo: var.lo(),
                size: var.size(),
            };
            off += bits;
        }
        Layout {
            fields,
            order,
            bits: off,
        }
    }

    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// A layout of variables of these sizes (from 0), the first lowest:
    /// for tests of what reads layouts.
    #[cfg(test)]
    pub(super) fn of_sizes(sizes: &[u64]) -> Layout {
        let mut off = 0;
        let fields = sizes
            .iter()
            .map(|&size| {
                let bits = bits_for(size);
                off += bits;
                Field {
                    offset: off - bits,
                    bits,
                    lo: 0,
                    size,
                }
            })
            .collect();
        Layout {
            fields,
            order: (0..sizes.len() as u32).map(VarId).collect(),
            bits: off,
        }
    }

    pub fn field(&self, v: VarId) -> Field {
        self.fields[v.ix()]
    }

    /// Variables from the lowest field up.
    pub fn order(&self) -> &[VarId] {
        &self.order
    }

    /// How many states the fields can describe (the product of the
    /// variables' sizes), saturating.
    pub fn bound(&self) -> u128 {
        self.fields
            .iter()
            .fold(1u128, |a, f| a.saturating_mul(f.size as u128))
    }

    /// Packs one value per variable.
    pub fn encode<W: Word>(&self, vals: &[i64]) -> W {
        let mut s = W::ZERO;
        for (f, &v) in self.fields.iter().zip(vals) {
            s = s | f.place::<W>((v - f.lo) as u64);
        }
        s
    }

    /// Unpacks into one value per variable.
    pub fn decode<W: Word>(&self, s: W, out: &mut [i64]) {
        for (f, o) in self.fields.iter().zip(out) {
            *o = f.lo + f.raw(s) as i64;
        }
    }
}
