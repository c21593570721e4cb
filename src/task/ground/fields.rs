//! Fields on a map: each cell's number, worked out once per case in time
//! linear in the map's cells (a breadth-first spread from the `from`
//! cells), and the comparisons that read them at an agent's cell, grounded
//! as conditions on the agent's position (and the clock, where they read
//! the time too).

use super::*;
use crate::resolve::TimeRead;
use std::collections::VecDeque;

impl Grounder<'_> {
    /// Every field's number on every cell of the board.
    pub(super) fn fields(&mut self) {
        let rules = self.rules;
        for f in &rules.fields {
            let otherwise = self.num(&f.otherwise, "a field's number where it never reaches");
            let board = &self.board;
            let n = board.class.len();
            let class_is = |k: &Class, (t, v): (TileId, ValueSel)| self.class_matches(k, t, v);
            let crosses: Vec<bool> = (board.classes.iter())
                .map(|k| match f.through.is_empty() {
                    true => !k.solid,
                    false => f.through.iter().any(|&p| class_is(k, p)),
                })
                .collect();
            let mut dist = vec![-1i64; n];
            let mut queue = VecDeque::new();
            for cell in 0..n as u32 {
                if class_is(&board.classes[board.class(cell) as usize], f.from) {
                    dist[cell as usize] = 0;
                    queue.push_back(cell);
                }
            }
            let offsets: Vec<(i32, i32)> = f.by.iter().map(|d| (d.dr, d.dc)).collect();
            let mut farthest = 0;
            while let Some(cell) = queue.pop_front() {
                let d = dist[cell as usize] + 1;
                for &off in &offsets {
                    let Some(next) = board.shifted(cell, off) else {
                        continue;
                    };
                    if dist[next as usize] < 0 && crosses[board.class(next) as usize] {
                        dist[next as usize] = d;
                        farthest = d;
                        queue.push_back(next);
                    }
                }
            }
            let reached = dist.iter().filter(|&&d| d >= 0).count() as u64;
            for d in &mut dist {
                if *d < 0 {
                    *d = otherwise;
                }
            }
            self.field_values.push(dist);
            self.field_summaries.push(FieldSummary {
                name: f.name.clone(),
                reached,
                farthest,
                cells: n as u64,
                otherwise,
            });
        }
    }

    /// The least and largest number of field `f` on this map.
    pub(super) fn field_range(&self, f: usize) -> (i64, i64) {
        let v = &self.field_values[f];
        let lo = v.iter().copied().min().unwrap_or(0);
        let hi = v.iter().copied().max().unwrap_or(0);
        (lo, hi)
    }

    /// Comparison `i`, which reads fields at an agent's cell: per set of
    /// the numbers its fields have on a cell, the agent on such a cell
    /// and the clock's values where the comparison then holds.
    pub(super) fn field_read(&mut self, i: usize) -> Expr {
        if let Some(e) = self.field_reads.get(&i) {
            return e.clone();
        }
        let e = self.ground_field_read(i);
        self.field_reads.insert(i, e.clone());
        e
    }

    /// [`Grounder::field_read`], made: where it reads the clock and its
    /// rows are not too many, a row of times per group of positions that
    /// read the same numbers ([`crate::task::TimeTable`]), else a
    /// disjunction over the numbers its fields have; false where the agent
    /// is absent from the map (an optional one).
    fn ground_field_read(&mut self, i: usize) -> Expr {
        let t: &TimeRead = &self.rules.times[i];
        let agent = t.at.expect("a comparison that reads a field at an agent");
        let Some(inst) = (0..self.instances.len()).find(|&j| self.instances[j].agent == agent)
        else {
            // An optional agent absent from this map stands on no cell.
            return Expr::Const(false);
        };
        let mut reads = Vec::new();
        t.lhs.field_reads(&mut reads);
        t.rhs.field_reads(&mut reads);
        let mut reads: Vec<usize> = reads.iter().map(|r| r.0).collect();
        reads.sort_unstable();
        reads.dedup();
        // The agent's positions, grouped by the numbers read there.
        let d = &self.movers[inst].domain;
        let Groups { keys, of, len } = self.group_by_numbers(inst, &reads);
        let size = self.clock_var.map_or(1, |c| self.vars[c.ix()].size());
        let mut parts = Vec::new();
        // Where it reads the clock too, and the distinct rows of times are
        // not too many: a row of times per group, a group per position,
        // two look-ups.
        let times = size as usize;
        let positions = d.len();
        let keyed = self.clock_var.is_some() && (keys.len() as u64 + 1) * size <= MAX_TABLE_BITS;
        let words = positions.div_ceil(64);
        if keyed {
            let mut rows = vec![0u64; ((keys.len() + 1) * times).div_ceil(64)];
            let (mut falls, mut rises) = (true, true);
            for (g, numbers) in keys.iter().enumerate() {
                let value = |f: usize| reads.iter().position(|&r| r == f).map(|k| numbers[k]);
                let Ok(set) = self.times_where(t, size, &value) else {
                    return Expr::Const(false);
                };
                let (f, r) = crate::task::set_trend(&set, times);
                (falls, rises) = (falls && f, rises && r);
                // Row 0 never holds; the groups' rows follow.
                or_at(&mut rows, (g + 1) * times, &set);
            }
            if rows.iter().all(|&w| w == 0) {
                return Expr::Const(false);
            }
            // A position on no cell has group `u32::MAX`: row 0.
            let mut key = of;
            key.iter_mut().for_each(|g| *g = g.wrapping_add(1));
            return Expr::AtTime {
                mover: MoverId(inst as u32),
                clock: self.clock_var.expect("a clock where keyed"),
                table: crate::task::TimeTable::new(key, rows, times),
                falls,
                rises,
            };
        }
        // Else a disjunction over the groups, in the order of their numbers.
        let mut cells = vec![Vec::new(); keys.len()];
        for (p, &g) in of.iter().enumerate().filter(|(_, g)| **g != u32::MAX) {
            cells[g as usize].push(p as u32);
        }
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]));
        // The positions where it holds whatever the time, as one set.
        let mut always = vec![0u64; words];
        for g in order {
            let (numbers, cells) = (&keys[g], &cells[g]);
            let value = |f: usize| reads.iter().position(|&r| r == f).map(|k| numbers[k]);
            let Ok(set) = self.times_where(t, size, &value) else {
                return Expr::Const(false);
            };
            let ones: u64 = set.iter().map(|w| u64::from(w.count_ones())).sum();
            match self.clock_var {
                _ if ones == 0 => {}
                Some(c) if ones < size => parts.push(Expr::and(vec![
                    Expr::at_words(MoverId(inst as u32), set_bits(vec![0; words], cells), len),
                    Expr::In(c, set),
                ])),
                _ => always = set_bits(always, cells),
            }
        }
        parts.push(Expr::at_words(MoverId(inst as u32), always, len));
        Expr::or(parts)
    }
}

impl Grounder<'_> {
    /// Mover `inst`'s positions grouped by the numbers fields `reads` have
    /// on their cells: the distinct keys, each position's group (a table,
    /// not a list per group: a distance on a large map has hundreds of
    /// numbers, a million-cell map as many positions), and how many
    /// positions are on a cell (a grid's padding is not).
    fn group_by_numbers(&self, inst: usize, reads: &[usize]) -> Groups {
        let d = &self.movers[inst].domain;
        let mut keys: Vec<Vec<i64>> = Vec::new();
        let mut of = vec![u32::MAX; d.len()];
        let mut key: Vec<i64> = Vec::with_capacity(reads.len());
        let mut len = 0;
        // Where the keys are few (fields of small ranges: distances on a
        // map), a key's group found at its place in a table of every key,
        // no hashing; else by the key hashed.
        let ranges: Vec<(i64, i64)> = reads.iter().map(|&f| self.field_range(f)).collect();
        let count = (ranges.iter()).try_fold(1u64, |n, &(lo, hi)| {
            n.checked_mul(u64::try_from(hi.checked_sub(lo)?).ok()? + 1)
        });
        let mut dense = (count.filter(|&n| n <= 1 << 16)).map(|n| vec![u32::MAX; n as usize]);
        let mut hashed: hashbrown::HashMap<Vec<i64>, u32> = hashbrown::HashMap::new();
        d.for_each(|p, c, _| {
            len += 1;
            key.clear();
            key.extend(reads.iter().map(|&f| self.field_values[f][c as usize]));
            let fresh = keys.len() as u32;
            let g = match &mut dense {
                Some(slot) => {
                    let at = (key.iter().zip(&ranges))
                        .fold(0, |at, (&v, &(lo, hi))| at * (hi - lo + 1) + v - lo);
                    let g = &mut slot[at as usize];
                    if *g == u32::MAX {
                        *g = fresh;
                    }
                    *g
                }
                None => match hashed.get(key.as_slice()) {
                    Some(&g) => g,
                    None => *hashed.entry(key.clone()).or_insert(fresh),
                },
            };
            if g == fresh {
                keys.push(key.clone());
            }
            of[p as usize] = g;
        });
        Groups { keys, of, len }
    }
}

/// Positions grouped by a key of numbers: the distinct keys, each
/// position's group (`u32::MAX` for a position on no cell), and how many
/// positions are on a cell.
struct Groups {
    keys: Vec<Vec<i64>>,
    of: Vec<u32>,
    len: usize,
}

/// `words` with the bit of each position of `cells` set.
fn set_bits(mut words: Vec<u64>, cells: &[u32]) -> Vec<u64> {
    for &p in cells {
        words[p as usize / 64] |= 1 << (p % 64);
    }
    words
}

/// Sets in `table` the bits of `set` from bit `at` on, a word at a time.
fn or_at(table: &mut [u64], at: usize, set: &[u64]) {
    let (w, shift) = (at / 64, at % 64);
    for (k, &bits) in set.iter().enumerate().filter(|(_, b)| **b != 0) {
        table[w + k] |= bits << shift;
        if shift > 0 && w + k + 1 < table.len() {
            table[w + k + 1] |= bits >> (64 - shift);
        }
    }
}

/// The most bits of a comparison's rows of times (16 MiB: groups of
/// positions that read the same numbers, by times); more is a disjunction
/// over the fields' numbers.
const MAX_TABLE_BITS: u64 = 1 << 27;
