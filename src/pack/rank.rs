//! Ranked states: a packed state's fields above the lowest read as the
//! digits of one mixed-radix number, each field in its own base (its
//! number of values), so that a table with one entry per rank wastes
//! nothing on the values a field's bits can hold but its variable cannot.
//!
//! Invariant of [`Ranker`]: `rank` maps the packed states of its layout
//! one to one onto `0..rows()` (the lowest field left out: it is the
//! position within a row, kept as its raw bits), and `base` is its
//! inverse on states whose lowest field is zero.

use super::{Layout, Word};

/// The mixed-radix rank of the fields above a layout's lowest.
#[derive(Debug, Clone)]
pub struct Ranker {
    /// The lowest field's bits: a row's width is `2^low_bits` values.
    low_bits: u32,
    /// The fields above the lowest, lowest digit first: offset, bits,
    /// number of values, and the product of the numbers of values below.
    digits: Vec<Digit>,
    /// A bit of the packed state -> the digit whose field holds it.
    digit_at: [u8; 64],
    rows: u64,
}

#[derive(Debug, Clone, Copy)]
struct Digit {
    offset: u32,
    bits: u32,
    size: u64,
    weight: u64,
}

impl Ranker {
    /// The ranker of a layout; `None` when its ranks do not fit 63 bits,
    /// or the layout is wider than 64 bits.
    pub fn new(layout: &Layout) -> Option<Ranker> {
        let mut order = layout.order().iter().map(|&v| layout.field(v));
        let low_bits = order.next().map_or(0, |f| f.bits);
        let mut weight = 1u64;
        let mut digits = Vec::new();
        for f in order.filter(|f| f.size > 1) {
            digits.push(Digit {
                offset: f.offset,
                bits: f.bits,
                size: f.size,
                weight,
            });
            weight = weight.checked_mul(f.size)?;
        }
        if layout.bits() > 64 || digits.len() > u8::MAX as usize {
            return None;
        }
        let mut digit_at = [0; 64];
        for (i, d) in digits.iter().enumerate() {
            digit_at[d.offset as usize..(d.offset + d.bits) as usize].fill(i as u8);
        }
        (weight.checked_shl(low_bits)? < 1 << 62).then_some(Ranker {
            low_bits,
            digits,
            digit_at,
            rows: weight,
        })
    }

    /// How many rows: the product of the sizes of the fields above the
    /// lowest.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The lowest field's bits: a row holds `2^low_bits` values.
    pub fn low_bits(&self) -> u32 {
        self.low_bits
    }

    /// The row of a packed state (its lowest field ignored).
    #[inline(always)]
    pub fn rank<W: Word>(&self, s: W) -> u64 {
        self.digits.iter().fold(0, |r, d| {
            let raw = (s >> d.offset).low() & ((1u64 << d.bits) - 1);
            r + raw * d.weight
        })
    }

    /// The row of `t`, knowing that `base` (lowest field zero) is in row
    /// `row`: the fields that differ are read again, no others (a move
    /// changes one or two). For layouts of at most 64 bits.
    #[inline(always)]
    pub fn rank_near<W: Word>(&self, row: u64, base: W, t: W) -> u64 {
        let low = (1u64 << self.low_bits) - 1;
        let mut diff = (t ^ base).low() & !low;
        let mut rank = row;
        while diff != 0 {
            let d = self.digits[self.digit_at[diff.trailing_zeros() as usize] as usize];
            let ones = (1u64 << d.bits) - 1;
            let (old, new) = (
                (base.low() >> d.offset) & ones,
                (t.low() >> d.offset) & ones,
            );
            rank = rank.wrapping_add(new.wrapping_sub(old).wrapping_mul(d.weight));
            diff &= !(ones << d.offset);
        }
        rank
    }

    /// What a unit of the field at bit `offset` weighs in a rank, if a
    /// digit's field starts there.
    pub fn weight_at(&self, offset: u32) -> Option<u64> {
        self.digits
            .iter()
            .find(|d| d.offset == offset)
            .map(|d| d.weight)
    }

    /// The packed state of a row, its lowest field zero.
    pub fn base<W: Word>(&self, mut row: u64) -> W {
        let mut s = W::ZERO;
        for d in &self.digits {
            s = s | (W::from_u64(row % d.size) << d.offset);
            row /= d.size;
        }
        s
    }

    /// The bits a packed state's layout spends on the fields above the
    /// lowest, and the bits a rank needs.
    pub fn bits_saved(&self, layout: &Layout) -> (u32, u32) {
        let packed = layout.bits() - self.low_bits;
        (packed, super::bits_for(self.rows))
    }
}

/// Walks the rows in order, with the packed base of each: the next row is
/// one addition with carries, a jump forward an addition to the lowest
/// digit with carries, a jump back a division per digit.
#[derive(Debug, Clone)]
pub struct Odometer<'r, W> {
    ranker: &'r Ranker,
    row: u64,
    digits: Vec<u64>,
    base: W,
}

impl<'r, W: Word> Odometer<'r, W> {
    pub fn new(ranker: &'r Ranker) -> Self {
        Odometer {
            ranker,
            row: 0,
            digits: vec![0; ranker.digits.len()],
            base: W::ZERO,
        }
    }

    /// The base of `row`. Forward, the gap is added to the lowest digit
    /// and carried up, dividing only where a digit overflows by more than
    /// its base: the frontier's rows come in order, most of them a few
    /// rows after the one before, and a division is tens of cycles.
    #[inline(always)]
    pub fn at(&mut self, row: u64) -> W {
        if row < self.row {
            self.row = row;
            let mut rest = row;
            for (i, d) in self.ranker.digits.iter().enumerate() {
                self.digits[i] = rest % d.size;
                rest /= d.size;
            }
            self.base = self.ranker.base(row);
            return self.base;
        }
        let mut carry = row - self.row;
        self.row = row;
        for (i, d) in self.ranker.digits.iter().enumerate() {
            if carry == 0 {
                break;
            }
            let v = self.digits[i] + carry;
            let digit = if v < d.size {
                carry = 0;
                v
            } else if v < 2 * d.size {
                carry = 1;
                v - d.size
            } else {
                carry = v / d.size;
                v % d.size
            };
            self.digits[i] = digit;
            let field = W::from_u64((1u64 << d.bits) - 1) << d.offset;
            self.base = (self.base & !field) | (W::from_u64(digit) << d.offset);
        }
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of a layout of odd sizes: `rank` numbers the bases
    /// `0..rows` one to one, `base` inverts it, and the odometer gives the
    /// same bases walking on by one and jumping back and forward.
    #[test]
    fn ranks_are_dense_and_the_odometer_agrees() {
        let layout = Layout::of_sizes(&[49, 3, 1, 5, 7]);
        let r = Ranker::new(&layout).expect("a small ranker");
        assert_eq!((r.rows(), r.low_bits()), (3 * 5 * 7, 6));
        let mut odo = Odometer::<u32>::new(&r);
        let mut seen = vec![false; r.rows() as usize];
        for row in 0..r.rows() {
            let base: u32 = r.base(row);
            assert_eq!(base & 63, 0, "a base has no lowest field");
            assert_eq!(r.rank(base | 17), row);
            for other in [0, row / 2, r.rows() - 1] {
                let near: u32 = r.base(other);
                assert_eq!(r.rank_near(other, near, base | 5), row, "from {other}");
            }
            assert!(!std::mem::replace(&mut seen[row as usize], true));
            assert_eq!(odo.at(row), base, "row {row} walking");
        }
        let mut odo = Odometer::<u32>::new(&r);
        for row in (0..r.rows()).rev().step_by(4) {
            assert_eq!(odo.at(row), r.base::<u32>(row), "row {row} jumping");
        }
        // Forward by gaps of every size up to past the whole: carries of
        // one, of more than a digit's base, over several digits.
        for gap in 1..=r.rows() + 1 {
            let mut odo = Odometer::<u32>::new(&r);
            for row in (gap % 5..r.rows()).step_by(gap as usize) {
                assert_eq!(odo.at(row), r.base::<u32>(row), "row {row} by {gap}");
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
