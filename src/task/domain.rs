//! A mover's domain: the cells it may stand on, numbered. Its positions
//! are the values of its position variable.
//!
//! Two representations, chosen by size when the task is grounded:
//!
//! - *listed*: the cells, in grid order, each as a grid cell and as an
//!   index of the board's padded grid (8 bytes a position). Position `p`
//!   is the `p`-th cell of the list; a state space has no position a mover
//!   can never be on.
//! - *the padded grid*: every index of the board's padded grid is a
//!   position, itself (nothing stored). Chosen for a lone agent on a large
//!   map whose cells are mostly open: the lists would cost 8 bytes a cell
//!   (and a kernel's reverse table 4 more) for a few positions fewer.
//!   Positions on the border or on solid cells are never in a reachable
//!   state: nothing enters them.

use super::Board;

/// Grids of fewer cells than this get a table from cell to position
/// whatever the domain's size (4 bytes a cell, at most 256 KiB) instead
/// of a search of the list for every cell a move enters; larger grids get
/// one where the domain holds at least half of their cells (the table
/// then takes no more than the lists: 8 bytes a position).
const INVERSE_CELLS: u32 = 1 << 16;

#[derive(Debug, Clone)]
pub struct Domain {
    repr: Repr,
}

#[derive(Debug, Clone)]
enum Repr {
    /// Invariant: `cells` strictly increasing, `padded[p]` the padded index
    /// of `cells[p]`; `inverse`, on a small grid or for a dense domain
    /// (see [`INVERSE_CELLS`]), is grid cell -> position
    /// ([`Domain::OFF`] for a cell not in the list), else empty.
    Listed {
        cells: Vec<u32>,
        padded: Vec<u32>,
        inverse: Vec<u32>,
    },
    /// Invariant: `width == cols + 2 * pad`, `len == width * (rows + 2 * pad)`;
    /// `tables`, once a kernel asks for them, [`Domain::cells`] and
    /// [`Domain::padded_table`].
    Grid {
        rows: u32,
        cols: u32,
        pad: u32,
        width: u32,
        len: u32,
        tables: std::sync::OnceLock<std::sync::Arc<(Vec<u32>, Vec<u32>)>>,
    },
}

impl Domain {
    /// In [`Domain::cells`], a position off the grid (the padded grid's
    /// border): no cell, never in a reachable state.
    pub const OFF: u32 = u32::MAX;

    /// The cells `cells` (strictly increasing grid cells) of board `b`.
    pub fn listed(b: &Board, cells: Vec<u32>) -> Domain {
        let padded = cells.iter().map(|&c| b.padded(c) as u32).collect();
        Domain::from_lists(cells, padded)
    }

    /// `cells` with their padded indexes, both in grid order.
    pub(super) fn from_lists(mut cells: Vec<u32>, mut padded: Vec<u32>) -> Domain {
        debug_assert!(cells.windows(2).all(|w| w[0] < w[1]));
        debug_assert_eq!(cells.len(), padded.len());
        // Lists made as long as the grid, then cut: what is left over is
        // given back when it is much (a copy of the lists costs less).
        if cells.capacity() - cells.len() > 1 << 16 {
            cells.shrink_to_fit();
            padded.shrink_to_fit();
        }
        let inverse = match cells.last() {
            Some(&last) if last < INVERSE_CELLS || last as usize <= 2 * cells.len() => {
                let mut inv = vec![Domain::OFF; last as usize + 1];
                for (p, &c) in cells.iter().enumerate() {
                    inv[c as usize] = p as u32;
                }
                inv
            }
            _ => Vec::new(),
        };
        Domain {
            repr: Repr::Listed {
                cells,
                padded,
                inverse,
            },
        }
    }

    /// Every index of board `b`'s padded grid.
    pub fn grid(b: &Board) -> Domain {
        Domain {
            repr: Repr::Grid {
                rows: b.rows as u32,
                cols: b.cols as u32,
                pad: b.pad as u32,
                width: b.width as u32,
                len: b.open.len() as u32,
                tables: std::sync::OnceLock::new(),
            },
        }
    }

    /// Whether a lone agent on board `b` is better numbered by the padded
    /// grid: the map is large (the lists would take megabytes) and most of
    /// its padded grid is open (its state space grows by less than half).
    pub fn grid_pays(b: &Board) -> bool {
        const LARGE: usize = 1 << 18;
        let n = b.open.len();
        n >= LARGE && 2 * b.open.iter().filter(|&&o| o == 1).count() >= n
    }

    /// How many positions.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Listed { cells, .. } => cells.len(),
            Repr::Grid { len, .. } => *len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether positions are the padded grid's indexes.
    pub fn is_grid(&self) -> bool {
        matches!(self.repr, Repr::Grid { .. })
    }

    /// The grid cell of position `p`, a cell of the grid (every position a
    /// reachable state holds is).
    #[inline]
    pub fn cell(&self, p: u32) -> u32 {
        match &self.repr {
            Repr::Listed { cells, .. } => cells[p as usize],
            Repr::Grid {
                cols, pad, width, ..
            } => {
                let (r, c) = (p / width, p % width);
                debug_assert!(r >= *pad && c >= *pad && c - pad < *cols);
                (r - pad) * cols + (c - pad)
            }
        }
    }

    /// The padded index of position `p`.
    #[inline]
    pub fn padded(&self, p: u32) -> u32 {
        match &self.repr {
            Repr::Listed { padded, .. } => padded[p as usize],
            Repr::Grid { .. } => p,
        }
    }

    /// The position of grid cell `cell`, if it is in the domain.
    #[inline]
    pub fn position_of(&self, cell: u32) -> Option<u32> {
        match &self.repr {
            Repr::Listed { inverse, .. } if !inverse.is_empty() => inverse
                .get(cell as usize)
                .copied()
                .filter(|&p| p != Domain::OFF),
            Repr::Listed { cells, .. } => cells.binary_search(&cell).ok().map(|p| p as u32),
            Repr::Grid {
                cols, pad, width, ..
            } => Some((cell / cols + pad) * width + cell % cols + pad),
        }
    }

    /// [`Self::position_of`], searched from position `near` outward (a
    /// galloping search): a move's cell is a few positions from its
    /// mover's, where a search of the whole list would miss the cache.
    #[inline]
    pub fn position_near(&self, cell: u32, near: u32) -> Option<u32> {
        let Repr::Listed { cells, inverse, .. } = &self.repr else {
            return self.position_of(cell);
        };
        if !inverse.is_empty() {
            return self.position_of(cell);
        }
        let n = cells.len();
        let h = (near as usize).min(n.checked_sub(1)?);
        let (lo, hi) = match cells[h].cmp(&cell) {
            std::cmp::Ordering::Equal => return Some(h as u32),
            std::cmp::Ordering::Less => {
                let (mut lo, mut step) = (h, 1);
                loop {
                    let j = h + step;
                    if j >= n {
                        break (lo, n);
                    }
                    if cells[j] >= cell {
                        break (lo, j + 1);
                    }
                    (lo, step) = (j, step * 2);
                }
            }
            std::cmp::Ordering::Greater => {
                let (mut hi, mut step) = (h, 1);
                loop {
                    if step > h {
                        break (0, hi);
                    }
                    let j = h - step;
                    if cells[j] <= cell {
                        break (j, hi);
                    }
                    (hi, step) = (j, step * 2);
                }
            }
        };
        cells[lo..hi]
            .binary_search(&cell)
            .ok()
            .map(|p| (lo + p) as u32)
    }

    /// Calls `f(position, cell, padded)` on every position of a grid cell,
    /// in increasing order (plain loops: a large map's cells are millions).
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(u32, u32, u32)) {
        match &self.repr {
            Repr::Listed { cells, padded, .. } => {
                for (p, (&c, &pc)) in cells.iter().zip(padded).enumerate() {
                    f(p as u32, c, pc);
                }
            }
            Repr::Grid {
                rows,
                cols,
                pad,
                width,
                ..
            } => {
                for r in 0..*rows {
                    let row = (r + pad) * width + pad;
                    for c in 0..*cols {
                        f(row + c, r * cols + c, row + c);
                    }
                }
            }
        }
    }

    /// Position -> grid cell, as a table (the padded grid's is built the
    /// first time; its positions off the grid get [`Domain::OFF`]). For
    /// kernels that index one.
    pub fn cells(&self) -> &[u32] {
        match &self.repr {
            Repr::Listed { cells, .. } => cells,
            Repr::Grid { .. } => &self.grid_tables().0,
        }
    }

    /// Position -> padded index, as a table (the padded grid's is built
    /// the first time).
    pub fn padded_table(&self) -> &[u32] {
        match &self.repr {
            Repr::Listed { padded, .. } => padded,
            Repr::Grid { .. } => &self.grid_tables().1,
        }
    }

    fn grid_tables(&self) -> &(Vec<u32>, Vec<u32>) {
        let Repr::Grid { len, tables, .. } = &self.repr else {
            unreachable!("only the padded grid's tables are built")
        };
        tables.get_or_init(|| {
            let mut cells = vec![Domain::OFF; *len as usize];
            self.for_each(|p, c, _| cells[p as usize] = c);
            // Shared by the copies of a task (its phases: `Task::phases`).
            std::sync::Arc::new((cells, (0..*len).collect()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The galloping search finds what the whole list's search finds, from
    /// any position, for cells in the list and between and beyond them.
    #[test]
    fn a_search_from_near_finds_what_a_search_of_all_finds() {
        let mut x: u64 = 0x9e37_79b9;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [0usize, 1, 2, 3, 7, 64, 1000] {
            let mut cells: Vec<u32> = (0..n).map(|_| (next() % 5000) as u32).collect();
            cells.sort_unstable();
            cells.dedup();
            let padded = cells.clone();
            let d = Domain::from_lists(cells.clone(), padded);
            for _ in 0..2000 {
                let cell = (next() % 5100) as u32;
                let near = (next() % (cells.len() as u64 + 3)) as u32;
                assert_eq!(
                    d.position_near(cell, near),
                    d.position_of(cell),
                    "{cell} from {near}"
                );
            }
        }
    }
}
