//! Packed states: the words a state lives in and the layout of a task's
//! variables in them. Below the plan, which chooses a word by the layout's
//! size, and below the kernels and engines, which read and write fields;
//! it knows the task's variables and nothing of how they are searched.

mod encode;
mod rank;
mod sets;
mod word;

pub use encode::{Field, Layout, bits_for};
pub use rank::{Odometer, Ranker};
pub use sets::SetRanker;
pub use word::{Wide, Word, ones};

/// Asks the cache for the line that holds `x`, to be read soon: a look-up
/// in a large table started before the work that needs it, so that
/// several overlap. Does nothing where the target has no such hint.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is in every x86-64 target; a prefetch reads nothing
        // and cannot fault (and this address is a live reference's).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(x).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
