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
