//! Machine words a packed state lives in: `u64`, `u128`, or several `u64`
//! for wider states. The search is generic over the word, so the choice is
//! made once per case.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// A packed state.
pub trait Word:
    Copy
    + Eq
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn from_u64(x: u64) -> Self;
    /// The low 64 bits.
    fn low(self) -> u64;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn low(self) -> u64 {
                self as u64
            }
        }
    };
}
word!(u32);
word!(u64);
word!(u128);

/// `N` 64-bit words, lowest first: states wider than 128 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> Word for Wide<N> {
    const BITS: u32 = 64 * N as u32;
    const ZERO: Self = Wide([0; N]);
    const ONE: Self = {
        let mut w = [0; N];
        w[0] = 1;
        Wide(w)
    };

    fn from_u64(x: u64) -> Self {
        let mut w = [0; N];
        w[0] = x;
        Wide(w)
    }

    fn low(self) -> u64 {
        self.0[0]
    }
}

macro_rules! wide_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<const N: usize> $tr for Wide<N> {
            type Output = Self;
            #[inline]
            fn $f(self, o: Self) -> Self {
                Wide(std::array::from_fn(|i| self.0[i] $op o.0[i]))
            }
        }
    };
}
wide_op!(BitAnd, bitand, &);
wide_op!(BitOr, bitor, |);
wide_op!(BitXor, bitxor, ^);

impl<const N: usize> Not for Wide<N> {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        Wide(self.0.map(|w| !w))
    }
}

impl<const N: usize> Shl<u32> for Wide<N> {
    type Output = Self;
    #[inline]
    fn shl(self, k: u32) -> Self {
        let (w, b) = ((k / 64) as usize, k % 64);
        Wide(std::array::from_fn(|i| {
            if i < w {
                return 0;
            }
            let src = i - w;
            let hi = self.0[src] << b;
            let lo = if b > 0 && src > 0 {
                self.0[src - 1] >> (64 - b)
            } else {
                0
            };
            hi | lo
        }))
    }
}

impl<const N: usize> Shr<u32> for Wide<N> {
    type Output = Self;
    #[inline]
    fn shr(self, k: u32) -> Self {
        let (w, b) = ((k / 64) as usize, k % 64);
        Wide(std::array::from_fn(|i| {
            let src = i + w;
            if src >= N {
                return 0;
            }
            let lo = self.0[src] >> b;
            let hi = if b > 0 && src + 1 < N {
                self.0[src + 1] << (64 - b)
            } else {
                0
            };
            hi | lo
        }))
    }
}

/// `n` one bits, lowest first.
pub fn ones<W: Word>(n: u32) -> W {
    if n == 0 {
        W::ZERO
    } else if n >= W::BITS {
        !W::ZERO
    } else {
        !W::ZERO >> (W::BITS - n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shifts of a wide word agree with shifts of a `u128` holding the
    /// same bits, at every distance.
    #[test]
    fn wide_shifts_agree_with_u128() {
        let x: u128 = 0x8000_0000_0000_0001_dead_beef_0123_4567;
        let w = Wide::<2>([x as u64, (x >> 64) as u64]);
        let back = |w: Wide<2>| w.0[0] as u128 | (w.0[1] as u128) << 64;
        for k in 0..128 {
            assert_eq!(back(w << k), x << k, "<< {k}");
            assert_eq!(back(w >> k), x >> k, ">> {k}");
        }
        assert_eq!(back(ones::<Wide<2>>(70)), (1u128 << 70) - 1);
        assert_eq!(ones::<u64>(0), 0);
        assert_eq!(ones::<u64>(64), u64::MAX);
    }
}
