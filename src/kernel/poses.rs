//! The pose kernel: one piece whose cells depend on its pose (`poses`),
//! moved by the tables of its moves (a block that rolls, a log that
//! shifts and turns), with plain rules: entry conditions, flags set by
//! the cells it comes onto and by its moves. Per move and pose, the
//! table gives the pose it takes, its anchor's shift in padded cells and
//! the cells it comes to cover that it did not (as offsets from the new
//! anchor); a move looks up those cells' bytes on the padded grid (whose
//! border is wide enough for any shift and pose: see the board's `pad`),
//! as a hand-written solver would, and never the grid or the task again.
//!
//! Invariant: it gives exactly the successors of [`super::Generic`] on
//! every state (tested in `tests/kernels.rs` on random tasks). It can: the
//! interpreter's piece move asks the same of the same cells (each cell of
//! the new pose on the board; those it did not cover open, their entry
//! conditions holding in the state before the move), takes the anchor's
//! position in the domain, then fires the rules of the cells newly covered
//! in the order of the pose's cells, then the move's own; with one mover,
//! no derived facts and plain rules nothing else happens in a step.

use super::tables::{Effect, rules_effect};
use super::{Cond, Conds};
use crate::pack::{Field, Layout, Word};
use crate::task::{Domain, Expr, MoverId, Task, Way};

const NONE: u32 = u32::MAX;

/// What a move finds on a padded cell: whether it may cover it (on the
/// map, not closed for good), and whether covering it anew needs a
/// condition or fires rules (its class is then in [`PoseModel::class`]).
const OPEN: u8 = 1;
const RULED: u8 = 2;

/// The most moves a piece may have: a state's moves are a bitmask.
pub const MAX_MOVES: usize = 32;

/// One move from one pose.
#[derive(Debug, Clone)]
struct Turn {
    /// The anchor's shift, in padded cells.
    delta: isize,
    /// The pose taken, raw, in its field.
    pose: u64,
    /// The cells newly covered: `fresh[from..to]`.
    from: u32,
    to: u32,
}

/// The piece's cells and moves, ready to move.
#[derive(Debug)]
pub struct PoseModel<'t, W> {
    pos: Field,
    pose: Field,
    domain: &'t Domain,
    poses: usize,
    /// Padded cell -> what a move finds there.
    kind: Vec<u8>,
    /// Padded cell -> position (`NONE` outside the domain); empty when the
    /// positions are the padded cells.
    position: Vec<u32>,
    /// Per move, per pose (`move * poses + pose`): the move from that
    /// pose; `None` where its table has none.
    turns: Vec<Option<Turn>>,
    /// Offsets, in padded cells from the new anchor, of the cells moves
    /// come to cover (see [`Turn`]).
    fresh: Vec<isize>,
    /// Per move with a condition (`if`): the positions it is taken from
    /// (bit `p % 64` of word `p / 64`); empty for a move with none.
    guards: Vec<Vec<u64>>,
    /// Per move: the effect of its own rules.
    effects: Vec<Effect<W>>,
    /// Padded cell -> its class, for [`RULED`] cells (empty when none is).
    class: Vec<u16>,
    /// Per class: its entry condition, and the effect of the rules covering
    /// a cell of it anew fires.
    rules: Vec<(Cond<W>, Effect<W>)>,
    cx: Conds<W>,
}

/// Whether the kernel applies: one piece with poses, every move by its
/// tables, on conditions that read nothing but its position; steps of cost
/// 1, plain rules, no entry condition that reads the way in, no derived
/// facts, nothing forbidden and nothing that moves after a step.
pub fn fits(task: &Task) -> bool {
    let [m] = task.movers() else { return false };
    let Some((v, _)) = m.poses() else {
        return false;
    };
    task.var(v).lo() == 0
        && m.heading().is_none()
        && m.when().is_empty()
        && m.actions().len() <= MAX_MOVES
        && task.mode() != crate::task::Mode::Together
        && task.unit_costs()
        && task.plain_rules()
        && !task.reads_moving()
        && !task.forbids()
        && !task.moves_after()
        && task.static_guards()
        && task.actions().iter().all(|a| {
            let mo = a.motion();
            matches!(mo.way, Way::Table(_)) && mo.turn == 0 && !mo.far
        })
}

impl<'t, W: Word> PoseModel<'t, W> {
    pub fn new(task: &'t Task, layout: &Layout) -> PoseModel<'t, W> {
        let b = task.board();
        let m = &task.movers()[0];
        let (v, shapes) = m.poses().expect("the kernel fits a piece with poses");
        let mut cx = Conds::new();
        // Each class's entry condition and rules, compiled once: classes
        // are few, cells many.
        let rules: Vec<(Cond<W>, Effect<W>)> = b
            .class_ids()
            .map(|k| {
                let fx = rules_effect(task, layout, task.on_enter(MoverId(0), k));
                (cx.compile(task.entry(k), task, layout), fx)
            })
            .collect();
        let class_kind: Vec<u8> = (rules.iter())
            .map(|&(c, fx)| match c {
                Cond::Never => 0,
                Cond::Always if fx == Effect::default() => OPEN,
                _ => OPEN | RULED,
            })
            .collect();
        let n = b.open().len();
        let mut kind = vec![0u8; n];
        let ruled = class_kind.iter().any(|&k| k & RULED != 0);
        let mut class = if ruled { vec![0u16; n] } else { Vec::new() };
        for c in 0..(b.rows() * b.cols()) as u32 {
            let (pc, k) = (b.padded(c), b.class(c));
            kind[pc] = class_kind[k as usize];
            if let Some(x) = class.get_mut(pc) {
                *x = k;
            }
        }
        let d = m.domain();
        let position = if d.is_grid() {
            Vec::new()
        } else {
            let mut position = vec![NONE; n];
            d.for_each(|p, _, pc| position[pc as usize] = p);
            position
        };
        let width = b.delta(crate::task::Dir { dr: 1, dc: 0 });
        let delta = |(dr, dc): (i32, i32)| dr as isize * width + dc as isize;
        let far = |a: i32, b: i32| (i64::from(a) + i64::from(b)).unsigned_abs() as usize;
        let (mut turns, mut fresh) = (Vec::new(), Vec::new());
        for &a in m.actions() {
            let table = task.action(a).table();
            for (k, old) in shapes.iter().enumerate() {
                // A cell further than the border from the anchor is off
                // the map (the border is as wide as the map, or as far as
                // a shift and a pose reach): no move.
                let near = |&(to, (dr, dc)): &(u32, (i32, i32))| {
                    (shapes[to as usize].iter())
                        .all(|&(r, c)| far(r, dr) <= b.pad() && far(c, dc) <= b.pad())
                };
                turns.push(table.get(k).filter(|e| near(e)).map(|&(to, (dr, dc))| {
                    let from = fresh.len() as u32;
                    // A cell of the new pose is an old one's when its
                    // offset from the old anchor is in the old pose.
                    for &(r, c) in &shapes[to as usize] {
                        if !old.contains(&(r + dr, c + dc)) {
                            fresh.push(delta((r, c)));
                        }
                    }
                    Turn {
                        delta: delta((dr, dc)),
                        pose: u64::from(to),
                        from,
                        to: fresh.len() as u32,
                    }
                }));
            }
        }
        let guards = (m.actions().iter())
            .map(|&a| match task.action(a).guard() {
                Expr::Const(true) => Vec::new(),
                _ => task.guard_positions(a),
            })
            .collect();
        let effects = (m.actions().iter())
            .map(|&a| rules_effect(task, layout, task.action(a).rules()))
            .collect();
        PoseModel {
            pos: layout.field(m.pos()),
            pose: layout.field(v),
            domain: d,
            poses: shapes.len(),
            kind,
            position,
            turns,
            fresh,
            guards,
            effects,
            class,
            rules,
            cx,
        }
    }

    /// The position of padded cell `pc`, `NONE` outside the domain.
    #[inline(always)]
    fn position(&self, pc: usize) -> u32 {
        if self.position.is_empty() {
            pc as u32
        } else {
            self.position[pc]
        }
    }
}

/// The pose kernel's successor loop (it keeps no buffers).
pub struct Poses<'k, W> {
    m: &'k PoseModel<'k, W>,
}

impl<'k, W: Word> Poses<'k, W> {
    pub fn new(m: &'k PoseModel<'k, W>) -> Self {
        Poses { m }
    }

    /// Calls `f` on every successor of `s`; stops early when `f` returns
    /// false.
    #[inline(always)]
    pub fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        // With no cell that has a condition or rules, a move only reads
        // bytes: a loop of its own.
        if self.m.class.is_empty() {
            self.moves::<false>(s, f)
        } else {
            self.moves::<true>(s, f)
        }
    }

    #[inline(always)]
    fn moves<const RULED_CELLS: bool>(&self, s: W, mut f: impl FnMut(W) -> bool) {
        let m = self.m;
        let p = m.pos.raw(s) as u32;
        let pose = m.pose.raw(s) as usize;
        let at = m.domain.padded(p) as usize;
        let base = s & !(m.pos.mask::<W>() | m.pose.mask::<W>());
        'moves: for (i, turn) in m.turns.iter().skip(pose).step_by(m.poses).enumerate() {
            let Some(turn) = turn else { continue };
            let guard = &m.guards[i];
            if !guard.is_empty() && guard[p as usize / 64] >> (p % 64) & 1 == 0 {
                continue;
            }
            let to = at.wrapping_add_signed(turn.delta);
            let fresh = &m.fresh[turn.from as usize..turn.to as usize];
            for &off in fresh {
                let k = m.kind[to.wrapping_add_signed(off)];
                if k & OPEN == 0 {
                    continue 'moves;
                }
                if RULED_CELLS && k & RULED != 0 {
                    let class = m.class[to.wrapping_add_signed(off)];
                    if !m.cx.holds(m.rules[class as usize].0, s) {
                        continue 'moves;
                    }
                }
            }
            let q = m.position(to);
            if q == NONE {
                continue;
            }
            let mut t = base | m.pos.place::<W>(u64::from(q)) | m.pose.place::<W>(turn.pose);
            if RULED_CELLS {
                for &off in fresh {
                    let c = to.wrapping_add_signed(off);
                    if m.kind[c] & RULED != 0 {
                        t = m.rules[m.class[c] as usize].1.apply(t);
                    }
                }
            }
            t = m.effects[i].apply(t);
            if !f(t) {
                return;
            }
        }
    }
}
