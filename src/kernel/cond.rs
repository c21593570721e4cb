//! Conditions over packed states: a task's expressions compiled against a
//! layout, into a fast form (a mask and a value) where they can be, else a
//! node of a small expression table.

use crate::pack::{Layout, Word};
use crate::task::{Cmp, Expr, MoverId, Task};

/// A condition on a packed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond<W> {
    Always,
    Never,
    /// `s & mask == value`.
    Masked {
        mask: W,
        value: W,
    },
    Expr(NodeId),
}

/// Index into [`Conds`]' nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

/// A node of a compiled condition.
#[derive(Debug, Clone)]
pub enum Node<W> {
    /// `s & mask != 0`.
    AnyBits(W),
    /// The field at `offset` (of `bits` bits) is one of these raw values (a
    /// bitmap).
    At {
        offset: u32,
        bits: u32,
        set: std::sync::Arc<[u64]>,
    },
    /// Whether `table` holds at position `p` and time `v`, `p` the raw
    /// field `pos` and `v` the raw field `clock` ([`Expr::AtTime`]).
    AtTime {
        pos: (u32, u32),
        clock: (u32, u32),
        table: crate::task::TimeTable,
    },
    /// The raw field at `offset`, compared with `value`.
    Cmp {
        offset: u32,
        bits: u32,
        op: Cmp,
        value: i64,
    },
    /// The raw field at `b` is one of the values `want` lists for the raw
    /// field at `a` (`want[starts[a]..starts[a + 1]]`): mover `b` on the
    /// cell at an offset from mover `a` ([`Expr::Near`]).
    Near {
        a: (u32, u32),
        b: (u32, u32),
        starts: Vec<u32>,
        want: Vec<u32>,
    },
    /// Each term's raw field (`offset`, `bits`) looked up in its table
    /// (a row or column per position, times the term's factor), added up
    /// and compared with `k` ([`Expr::Pos`]).
    Pos {
        terms: Vec<(u32, u32, Vec<i64>)>,
        op: Cmp,
        k: i64,
    },
    /// [`Node::Pos`] of two terms (a mover's row or column against
    /// another's), without the loop.
    Pos2 {
        a: (u32, u32, Vec<i64>),
        b: (u32, u32, Vec<i64>),
        op: Cmp,
        k: i64,
    },
    /// `s & mask == value` for one of these `(mask, value)`.
    AnyOf(Vec<(W, W)>),
    And(Vec<Cond<W>>),
    Or(Vec<Cond<W>>),
    Not(Cond<W>),
}

/// The most masks a conjunction's parts are crossed into, and the most
/// a disjunction of masks holds ([`Node::AnyOf`]).
const MANY: usize = 64;

/// The most masks a conjunction crossed into masks may come to, to be
/// taken in place of its parts (a compare each).
const FEW: usize = 4;

/// The node table the compiled conditions of one case share.
#[derive(Debug, Clone, Default)]
pub struct Conds<W> {
    nodes: Vec<Node<W>>,
}

#[inline(always)]
fn field(s: impl Word, offset: u32, bits: u32) -> u64 {
    let m = if bits == 0 {
        0
    } else {
        u64::MAX >> (64 - bits)
    };
    (s >> offset).low() & m
}

impl<W: Word> Conds<W> {
    pub fn new() -> Self {
        Conds { nodes: Vec::new() }
    }

    #[inline(always)]
    pub fn holds(&self, c: Cond<W>, s: W) -> bool {
        // The two common forms first, each a compare and a branch that
        // predicts well, rather than a jump through a table.
        if let Cond::Masked { mask, value } = c {
            return s & mask == value;
        }
        if c == Cond::Always {
            return true;
        }
        match c {
            Cond::Expr(id) => self.eval(id, s),
            _ => false,
        }
    }

    #[inline(never)]
    fn eval(&self, id: NodeId, s: W) -> bool {
        match &self.nodes[id.0 as usize] {
            Node::AnyBits(m) => s & *m != W::ZERO,
            Node::At { offset, bits, set } => {
                let p = field(s, *offset, *bits) as usize;
                set[p / 64] >> (p % 64) & 1 == 1
            }
            Node::AtTime { pos, clock, table } => table.holds(
                field(s, pos.0, pos.1) as usize,
                field(s, clock.0, clock.1) as usize,
            ),
            Node::Cmp {
                offset,
                bits,
                op,
                value,
            } => op.holds(field(s, *offset, *bits) as i64, *value),
            Node::Near { a, b, starts, want } => {
                let pa = field(s, a.0, a.1) as usize;
                let pb = field(s, b.0, b.1) as u32;
                want[starts[pa] as usize..starts[pa + 1] as usize].contains(&pb)
            }
            Node::Pos { terms, op, k } => {
                let sum = (terms.iter())
                    .map(|(offset, bits, at)| at[field(s, *offset, *bits) as usize])
                    .fold(0i64, i64::wrapping_add);
                op.holds(sum, *k)
            }
            Node::Pos2 { a, b, op, k } => {
                let x = a.2[field(s, a.0, a.1) as usize];
                let y = b.2[field(s, b.0, b.1) as usize];
                op.holds(x.wrapping_add(y), *k)
            }
            Node::AnyOf(ms) => ms.iter().any(|&(m, v)| s & m == v),
            Node::And(cs) => cs.iter().all(|c| self.holds(*c, s)),
            Node::Or(cs) => cs.iter().any(|c| self.holds(*c, s)),
            Node::Not(c) => !self.holds(*c, s),
        }
    }

    fn push(&mut self, n: Node<W>) -> Cond<W> {
        self.nodes.push(n);
        Cond::Expr(NodeId(self.nodes.len() as u32 - 1))
    }

    /// Compiles a task's expression against a layout.
    /// Mover `b` on the cell at `off` from mover `a`'s ([`Expr::Near`]):
    /// per position of `a`, the positions of `b` that cover that cell. A
    /// piece with poses covers its pose's cells: one such table per pose,
    /// each under a test of the pose.
    fn near(
        &mut self,
        task: &Task,
        layout: &Layout,
        (a, b): (MoverId, MoverId),
        off: (i32, i32),
    ) -> Cond<W> {
        let Some((v, poses)) = task.mover(b).poses() else {
            let shape = task.mover(b).shape();
            return self.near_shape(task, layout, (a, b), off, shape);
        };
        let parts = (poses.iter().enumerate())
            .map(|(k, shape)| {
                let posed = self.compile(&Expr::Cmp(v, Cmp::Eq, k as i64), task, layout);
                let near = self.near_shape(task, layout, (a, b), off, shape);
                self.and(vec![posed, near])
            })
            .collect();
        self.or(parts)
    }

    /// [`Self::near`] for `b` covering `shape` (offsets from its anchor).
    fn near_shape(
        &mut self,
        task: &Task,
        layout: &Layout,
        (a, b): (MoverId, MoverId),
        off: (i32, i32),
        shape: &[(i32, i32)],
    ) -> Cond<W> {
        let (ma, mb) = (task.mover(a), task.mover(b));
        let (fa, fb) = (layout.field(ma.pos()), layout.field(mb.pos()));
        let board = task.board();
        let (mut starts, mut want) = (vec![0u32], Vec::new());
        for pa in 0..ma.domain().len() as u32 {
            let from = ma.domain().cell(pa);
            if let Some(c) = board.shifted(from, off) {
                // Where `b` stands when it covers `c`: on it, or
                // (a piece) so that one of its cells is.
                let anchors = std::iter::once((0, 0)).chain(shape.iter().copied());
                for (dr, dc) in anchors {
                    if let Some(at) = board.shifted(c, (-dr, -dc))
                        && let Some(pb) = mb.position_of(at)
                        && !want[*starts.last().unwrap() as usize..].contains(&pb)
                    {
                        want.push(pb);
                    }
                }
            }
            starts.push(want.len() as u32);
        }
        self.push(Node::Near {
            a: (fa.offset, fa.bits),
            b: (fb.offset, fb.bits),
            starts,
            want,
        })
    }

    pub fn compile(&mut self, e: &Expr, task: &Task, layout: &Layout) -> Cond<W> {
        match e {
            Expr::Const(true) => Cond::Always,
            Expr::Const(false) => Cond::Never,
            Expr::Cmp(v, op, k) => {
                let f = layout.field(*v);
                let raw = k - f.lo;
                match (decide(*op, raw, f.size as i64), op) {
                    (Some(true), _) => Cond::Always,
                    (Some(false), _) => Cond::Never,
                    (None, Cmp::Eq) => Cond::Masked {
                        mask: f.mask(),
                        value: f.place(raw as u64),
                    },
                    (None, Cmp::Ne) => {
                        let eq = Cond::Masked {
                            mask: f.mask(),
                            value: f.place(raw as u64),
                        };
                        self.not(eq)
                    }
                    (None, _) => self.push(Node::Cmp {
                        offset: f.offset,
                        bits: f.bits,
                        op: *op,
                        value: raw,
                    }),
                }
            }
            Expr::At(m, set) => {
                let f = layout.field(task.mover(*m).pos());
                let ones_count: u32 = set.iter().map(|w| w.count_ones()).sum();
                if ones_count == 1 {
                    let w = set.iter().position(|w| *w != 0).expect("a set bit");
                    let p = w as u64 * 64 + set[w].trailing_zeros() as u64;
                    return Cond::Masked {
                        mask: f.mask(),
                        value: f.place(p),
                    };
                }
                self.push(Node::At {
                    offset: f.offset,
                    bits: f.bits,
                    set: set.clone(),
                })
            }
            Expr::In(v, set) => {
                let f = layout.field(*v);
                self.push(Node::At {
                    offset: f.offset,
                    bits: f.bits,
                    set: set.as_slice().into(),
                })
            }
            Expr::AtTime {
                mover,
                clock,
                table,
                ..
            } => {
                let (p, c) = (layout.field(task.mover(*mover).pos()), layout.field(*clock));
                self.push(Node::AtTime {
                    pos: (p.offset, p.bits),
                    clock: (c.offset, c.bits),
                    table: table.clone(),
                })
            }
            Expr::Near { a, b, off } => self.near(task, layout, (*a, *b), *off),
            Expr::Pos { terms, op, k } => {
                let mut terms: Vec<_> = terms
                    .iter()
                    .map(|&(f, row, m)| {
                        let mv = task.mover(m);
                        let fm = layout.field(mv.pos());
                        let at = (0..mv.domain().len() as u32)
                            .map(|p| {
                                let (r, c) = task.board().coords(mv.domain().cell(p));
                                f.wrapping_mul(if row { r } else { c })
                            })
                            .collect();
                        (fm.offset, fm.bits, at)
                    })
                    .collect();
                let (op, k) = (*op, *k);
                if terms.len() == 2 {
                    let b = terms.pop().expect("two terms");
                    let a = terms.pop().expect("two terms");
                    return self.push(Node::Pos2 { a, b, op, k });
                }
                self.push(Node::Pos { terms, op, k })
            }
            Expr::And(es) => {
                let parts = es.iter().map(|e| self.compile(e, task, layout)).collect();
                self.and(parts)
            }
            Expr::Or(es) => {
                let parts = es.iter().map(|e| self.compile(e, task, layout)).collect();
                self.or(parts)
            }
            Expr::Not(e) => {
                let c = self.compile(e, task, layout);
                self.not(c)
            }
        }
    }

    fn not(&mut self, c: Cond<W>) -> Cond<W> {
        match c {
            Cond::Always => Cond::Never,
            Cond::Never => Cond::Always,
            c => self.push(Node::Not(c)),
        }
    }

    /// A conjunction, folding constants and merging masks. Where two parts
    /// or more are each one of a few masks (a piece at one of a few
    /// anchors in one of its poses), the masks that agree, crossed, when
    /// they come to at most [`FEW`]: a goal that a piece covers three
    /// cells is the one place it does, one compare, where its parts were
    /// bitmaps over a large map's positions.
    pub fn and(&mut self, parts: Vec<Cond<W>>) -> Cond<W> {
        let (mut mask, mut value) = (W::ZERO, W::ZERO);
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Cond::Always => {}
                Cond::Never => return Cond::Never,
                Cond::Masked { mask: m, value: v } => {
                    if (mask & m) & (value ^ v) != W::ZERO {
                        return Cond::Never;
                    }
                    mask = mask | m;
                    value = value | v;
                }
                c => rest.push(c),
            }
        }
        let alts: Vec<Vec<(W, W)>> = rest.iter().filter_map(|&c| self.masks(c)).collect();
        if alts.len() >= 2
            && alts.len() == rest.len()
            && let Some(crossed) = cross(vec![(mask, value)], &alts)
            && crossed.len() <= FEW
        {
            let masked = crossed
                .into_iter()
                .map(|(mask, value)| Cond::Masked { mask, value })
                .collect();
            return self.or(masked);
        }
        let masked = (mask != W::ZERO).then_some(Cond::Masked { mask, value });
        match (masked, rest.len()) {
            (None, 0) => Cond::Always,
            (Some(m), 0) => m,
            (None, 1) => rest[0],
            (m, _) => {
                // The mask first: a compare that often decides alone.
                rest.splice(0..0, m);
                self.push(Node::And(rest))
            }
        }
    }

    /// `c` as one of at most [`MANY`] masks, where it is made of masks and
    /// of sets of at most [`MANY`] positions by conjunctions and
    /// disjunctions; else `None`. Worked out, not compiled: a set stays a
    /// bitmap wherever it is not crossed.
    fn masks(&self, c: Cond<W>) -> Option<Vec<(W, W)>> {
        let id = match c {
            Cond::Masked { mask, value } => return Some(vec![(mask, value)]),
            Cond::Expr(id) => id,
            _ => return None,
        };
        match &self.nodes[id.0 as usize] {
            Node::AnyOf(ms) => Some(ms.clone()),
            Node::At { offset, bits, set } => {
                let ones: u32 = set.iter().map(|w| w.count_ones()).sum();
                (ones as usize <= MANY).then(|| {
                    let mask = crate::pack::ones::<W>(*bits) << *offset;
                    (set.iter().enumerate())
                        .flat_map(|(w, &b)| {
                            (0..64)
                                .filter(move |i| b >> i & 1 == 1)
                                .map(move |i| w * 64 + i)
                        })
                        .map(|p| (mask, W::from_u64(p as u64) << *offset))
                        .collect()
                })
            }
            Node::And(cs) => {
                let parts: Vec<_> = cs.iter().map(|&c| self.masks(c)).collect::<Option<_>>()?;
                cross(vec![(W::ZERO, W::ZERO)], &parts)
            }
            Node::Or(cs) => {
                let mut all = Vec::new();
                for &c in cs {
                    self.masks(c)?.into_iter().for_each(|m| add(&mut all, m));
                }
                (all.len() <= MANY).then_some(all)
            }
            _ => None,
        }
    }

    /// A disjunction, folding constants; a disjunction of single set bits
    /// is one test of their mask, one of a few masks a node of them.
    pub fn or(&mut self, parts: Vec<Cond<W>>) -> Cond<W> {
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Cond::Always => return Cond::Always,
                Cond::Never => {}
                c => rest.push(c),
            }
        }
        let bit = |c: &Cond<W>| match *c {
            Cond::Masked { mask, value } if mask == value && single_bit(mask) => Some(mask),
            _ => None,
        };
        if rest.len() > 1 && rest.iter().all(|c| bit(c).is_some()) {
            let m = rest.iter().fold(W::ZERO, |a, c| a | bit(c).expect("a bit"));
            return self.push(Node::AnyBits(m));
        }
        // Masks only (not sets, which stay bitmaps): one node of them.
        let only_masks = |c: &Cond<W>| match *c {
            Cond::Masked { .. } => true,
            Cond::Expr(id) => matches!(self.nodes[id.0 as usize], Node::AnyOf(_)),
            _ => false,
        };
        if rest.len() > 1 && rest.iter().all(only_masks) {
            let mut all = Vec::new();
            for m in rest.iter().filter_map(|&c| self.masks(c)).flatten() {
                add(&mut all, m);
            }
            if all.len() <= MANY {
                return self.push(Node::AnyOf(all));
            }
        }
        match rest.len() {
            0 => Cond::Never,
            1 => rest[0],
            _ => self.push(Node::Or(rest)),
        }
    }
}

/// The masks of `acc` crossed with one of each of `parts`' (those that
/// agree on the bits both fix); `None` past [`MANY`], or when none agree
/// (the conjunction never holds: `Some` of none).
fn cross<W: Word>(mut acc: Vec<(W, W)>, parts: &[Vec<(W, W)>]) -> Option<Vec<(W, W)>> {
    for ms in parts {
        let mut out: Vec<(W, W)> = Vec::new();
        for &(m1, v1) in &acc {
            for &(m2, v2) in ms {
                if (m1 & m2) & (v1 ^ v2) == W::ZERO {
                    add(&mut out, (m1 | m2, v1 | v2));
                }
            }
        }
        if out.len() > MANY {
            return None;
        }
        acc = out;
    }
    Some(acc)
}

/// `x` added to `set` (a short list) unless it is there already.
fn add<T: PartialEq>(set: &mut Vec<T>, x: T) {
    if !set.contains(&x) {
        set.push(x);
    }
}

fn single_bit<W: Word>(m: W) -> bool {
    let mut low = W::ONE;
    for _ in 0..W::BITS {
        if m & low != W::ZERO {
            return m ^ low == W::ZERO;
        }
        low = low << 1;
    }
    false
}

/// Whether `x op k` holds for every `x` in `0..size` (`Some(true)`), for
/// none (`Some(false)`), or for some only.
fn decide(op: Cmp, k: i64, size: i64) -> Option<bool> {
    let (lo, hi) = (0, size - 1);
    let (all, none) = match op {
        Cmp::Eq => (lo == hi && lo == k, k < lo || k > hi),
        Cmp::Ne => (k < lo || k > hi, lo == hi && lo == k),
        Cmp::Lt => (hi < k, lo >= k),
        Cmp::Le => (hi <= k, lo > k),
        Cmp::Gt => (lo > k, hi <= k),
        Cmp::Ge => (lo >= k, hi < k),
    };
    if all {
        Some(true)
    } else if none {
        Some(false)
    } else {
        None
    }
}
