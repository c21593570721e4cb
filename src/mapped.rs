//! A large input file mapped into memory instead of read into it.
//!
//! An input of millions of cells is read once, case by case, and then only
//! by the reports that point into it. Read into a `String`, all of it stays
//! in memory until the run ends (9 MB of a 9 MB input of four large maps,
//! more than a case's own tables). Mapped, its pages come in as the reader
//! reaches them and go back once it has passed them ([`Mapped::release`]):
//! the run holds about one case's text at a time. A report that points
//! back into text given back reads those pages from the file again.
//!
//! Only a regular file of at least [`Mapped::MIN_LEN`] bytes, all of them
//! UTF-8, is mapped; any other input is read as before (a file with a bad
//! byte is read whole, so that the cases before the byte are solved and the
//! byte reported).

use memmap2::Mmap;
#[cfg(unix)]
use memmap2::UncheckedAdvice;
use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A file's bytes, mapped read-only, known to be UTF-8 (after a byte-order
/// mark, which is skipped).
#[derive(Debug)]
pub struct Mapped {
    map: Mmap,
    /// Where the text starts in the map: after a byte-order mark.
    start: usize,
    /// The map's bytes below this offset were given back to the kernel.
    released: AtomicUsize,
}

/// Text read at a time when checking that a mapped file is UTF-8: its pages
/// are given back after each piece.
const PIECE: usize = 1 << 20;

impl Mapped {
    /// The least size of a file worth mapping: below it, reading costs
    /// less than the pages a map holds on to.
    pub const MIN_LEN: u64 = 1 << 20;

    /// `file` mapped, when it is a regular file of at least [`Self::MIN_LEN`]
    /// bytes and UTF-8 throughout; `None` when it should be read instead.
    pub fn open(file: &File) -> Option<Mapped> {
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() < Self::MIN_LEN {
            return None;
        }
        // SAFETY: the map is read-only and private. Like every reader of a
        // mapped file (ripgrep's, a linker's), this relies on the file not
        // being changed while the run reads it: one rewritten under the
        // run could give its cases text that differs from what was checked.
        let map = unsafe { Mmap::map(file) }.ok()?;
        let start = if map.starts_with(BOM) { BOM.len() } else { 0 };
        let mapped = Mapped {
            map,
            start,
            released: AtomicUsize::new(0),
        };
        // UTF-8 piece by piece, each piece's pages given back after it: a
        // check of the whole would hold the whole file at once.
        let bytes = &mapped.map[start..];
        let mut at = 0;
        while at < bytes.len() {
            let end = (at + PIECE).min(bytes.len());
            let checked = match std::str::from_utf8(&bytes[at..end]) {
                Ok(_) => end,
                // A character cut by the piece's end: checked with the next.
                Err(e) if e.error_len().is_none() && end < bytes.len() => at + e.valid_up_to(),
                Err(_) => return None,
            };
            mapped.give_back(start + at, start + checked);
            at = checked;
        }
        mapped.released.store(0, Ordering::Relaxed);
        Some(mapped)
    }

    /// The text.
    pub fn text(&self) -> &str {
        // SAFETY: `open` checked every byte after `start` is UTF-8, and the
        // map is read-only.
        unsafe { std::str::from_utf8_unchecked(&self.map[self.start..]) }
    }

    /// Tells that the text before offset `upto` (of [`Self::text`]) is
    /// read: its pages go back to the kernel, a megabyte or more at a time.
    /// Reading there again is still right: the pages come back from the
    /// file.
    pub fn release(&self, upto: usize) {
        let upto = (self.start + upto).min(self.map.len());
        let from = self.released.load(Ordering::Relaxed);
        if upto >= from + PIECE {
            self.give_back(from, upto);
            self.released.store(upto, Ordering::Relaxed);
        }
    }

    /// Gives back the whole pages of the map within `from..to`.
    fn give_back(&self, from: usize, to: usize) {
        let page = page_size();
        let from = from.div_ceil(page) * page;
        let to = to / page * page;
        #[cfg(unix)]
        if to > from {
            // SAFETY: the map is read-only: no page holds changes of ours
            // that dropping it would lose; a page read again comes from the
            // file. A failure only leaves the pages where they are.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, from, to - from)
            };
        }
    }
}

#[cfg(unix)]
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as usize } else { 4096 }
}

#[cfg(not(unix))]
pub(crate) fn page_size() -> usize {
    4096
}

/// A file's bytes without a UTF-8 byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// UTF-8's byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";
