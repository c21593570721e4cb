//! Successor kernels: the steps of a task over packed states, as the plan
//! chose to generate them.
//!
//! [`generic`] interprets any task; the table kernels (`tables` and
//! `tables_succ`) compile tasks whose moves are fixed offsets and whose
//! rules only set flags into flat tables, with loops specialised for one
//! mover, two or three at once, and the last mover's moves as a bitmask.
//! Each is tested against the generic interpreter for identical successors.

pub mod bodies;
mod choice;
mod cond;
mod fit;
pub mod generic;
pub mod poses;
pub mod pushes;
pub mod script;
pub mod slides;
pub(crate) mod tables;
mod tables_succ;

pub use bodies::{Bodies, BodyModel};
pub use choice::Choice;
pub use cond::{Cond, Conds};
pub use fit::{Fit, fits};
pub use generic::Generic;
pub use poses::{PoseModel, Poses};
pub use pushes::{PushModel, Pushes};
pub use script::{ScriptModel, Scripts};
pub use slides::{SlideModel, Slides};
use tables::Model;
pub use tables_succ::Tables;

use crate::pack::{Field, Layout, Word};
use crate::task::Task;

/// How successors are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// The generic interpreter.
    Generic,
    /// One mover in turn, by a bitmask of exits per cell.
    Lone,
    /// Movers in turn, from their tables of moves.
    InTurn,
    /// Movers at once: every combination of their moves.
    AtOnce,
    /// Two or three unconditional movers at once, in nested loops.
    Nested(u8),
    /// The last mover's moves as a bitmask of `words` words.
    Rows { words: usize },
    /// Movers in turn whose moves slide or teleport, with no rules: where
    /// each move ends on an empty board, per position.
    Slides,
    /// Pieces of several cells in turn, with no rules: a mask of the cells
    /// each covers, per position.
    Bodies,
    /// One piece with poses moved by its tables: per move and pose, the
    /// cells it comes to cover, read on the padded grid.
    Poses,
    /// Agents in turn and movers by themselves, of one cell, with no
    /// rules: tables of moves per position, conditions over packed states.
    Script,
    /// One agent pushing objects of one cell, with no rules: per move,
    /// where the agent's step takes it and where a push takes an object.
    Pushes,
}

/// A task made ready for search with the plan's kernel: its compiled goal,
/// its start states (derived facts applied), and the tables or the
/// interpreter that give successors.
pub struct Kernel<'t, W> {
    task: &'t Task,
    layout: &'t Layout,
    compiled: Compiled<'t, W>,
    goal_cx: Conds<W>,
    goal: Cond<W>,
    starts: Vec<W>,
}

/// What the plan's kernel compiled of the task, one per kind: the
/// interpreter compiles nothing.
enum Compiled<'t, W> {
    Tables(Model<'t, W>),
    Slides(SlideModel<'t, W>),
    Bodies(BodyModel),
    Poses(PoseModel<'t, W>),
    Script(ScriptModel<'t, W>),
    Pushes(PushModel),
    Generic,
    /// A task that reads the time: per value of its clock, what the kernel
    /// compiled of the task at that time.
    Phased(Box<Phases<'t, W>>),
}

/// Per value of a clock, a compiled kernel, and the clock's field with its
/// next value in place, per value. Or, where only `forbid` reads the time
/// ([`Task::untimed`]), one kernel of the task without it, and `forbid`
/// tested on each successor.
struct Phases<'t, W> {
    field: Field,
    parts: Vec<Compiled<'t, W>>,
    next: Vec<W>,
    forbid: Option<(Conds<W>, Cond<W>)>,
}

impl<'t, W: Word> Kernel<'t, W> {
    /// The kernel of the kind given (the plan's, or another a test
    /// compares with it).
    pub fn new(task: &'t Task, layout: &'t Layout, kind: KernelKind) -> Self {
        Self::build(task, layout, kind, &|| false).expect("nothing stops the build")
    }

    /// The kernel, or `None` when `stop` (a limit: the deadline, Ctrl-C,
    /// memory) says so while its tables are built: on a map of millions of
    /// cells that takes seconds.
    pub fn within(
        task: &'t Task,
        layout: &'t Layout,
        kind: KernelKind,
        stop: &dyn Fn() -> bool,
    ) -> Option<Self> {
        Self::build(task, layout, kind, stop)
    }

    fn build(
        task: &'t Task,
        layout: &'t Layout,
        kind: KernelKind,
        stop: &dyn Fn() -> bool,
    ) -> Option<Self> {
        let compiled = match task.clock() {
            Some(c) if kind != KernelKind::Generic => {
                let (var, field) = (task.var(c), layout.field(c));
                let (parts, forbid) = match task.untimed() {
                    Some(untimed) => {
                        let mut cx = Conds::new();
                        let forbid = cx.compile(task.forbid(), task, layout);
                        (
                            vec![Self::compile(untimed, layout, kind, stop)?],
                            Some((cx, forbid)),
                        )
                    }
                    None => {
                        let parts = (task.phases().iter())
                            .map(|p| Self::compile(p, layout, kind, stop))
                            .collect::<Option<Vec<_>>>()?;
                        (parts, None)
                    }
                };
                let next = (0..var.size() as i64)
                    .map(|v| field.place((var.tick(v) - var.lo()) as u64))
                    .collect();
                Compiled::Phased(Box::new(Phases {
                    field,
                    parts,
                    next,
                    forbid,
                }))
            }
            _ => Self::compile(task, layout, kind, stop)?,
        };
        let mut goal_cx = Conds::new();
        let goal = goal_cx.compile(task.goal(), task, layout);
        let starts = match &compiled {
            // (A start where `forbid` holds is no start: the interpreter's
            // starts leave it out.)
            Compiled::Tables(m) if !task.forbids() => {
                let mut v = Vec::new();
                for s in task.starts() {
                    let w = m.settle(layout.encode::<W>(s));
                    if !v.contains(&w) {
                        v.push(w);
                    }
                }
                v
            }
            _ => Generic::starts(task, layout),
        };
        Some(Kernel {
            task,
            layout,
            compiled,
            goal_cx,
            goal,
            starts,
        })
    }

    /// What a kernel of `kind` compiles of a task without a clock.
    fn compile(
        task: &'t Task,
        layout: &'t Layout,
        kind: KernelKind,
        stop: &dyn Fn() -> bool,
    ) -> Option<Compiled<'t, W>> {
        Some(match kind {
            KernelKind::Generic => Compiled::Generic,
            KernelKind::Slides => Compiled::Slides(SlideModel::new(task, layout)),
            KernelKind::Bodies => Compiled::Bodies(BodyModel::new(task, layout)),
            KernelKind::Poses => Compiled::Poses(PoseModel::new(task, layout)),
            KernelKind::Script => Compiled::Script(ScriptModel::new(task, layout)),
            KernelKind::Pushes => Compiled::Pushes(PushModel::new(task, layout)),
            KernelKind::Lone
            | KernelKind::InTurn
            | KernelKind::AtOnce
            | KernelKind::Nested(_)
            | KernelKind::Rows { .. } => Compiled::Tables(Model::new(task, layout, kind, stop)?),
        })
    }

    pub fn task(&self) -> &'t Task {
        self.task
    }

    pub fn layout(&self) -> &'t Layout {
        self.layout
    }

    /// The start states.
    pub fn starts(&self) -> &[W] {
        &self.starts
    }

    /// No state is a goal.
    pub fn goal_never(&self) -> bool {
        self.goal == Cond::Never
    }

    #[inline(always)]
    pub fn is_goal(&self, s: W) -> bool {
        self.goal_cx.holds(self.goal, s)
    }

    /// A successor generator (one per thread).
    pub fn successors(&self) -> Successors<'_, 't, W> {
        Successors {
            imp: self.imp(&self.compiled, self.task),
        }
    }

    fn imp<'k>(&'k self, c: &'k Compiled<'t, W>, task: &'t Task) -> Imp<'k, 't, W> {
        match c {
            Compiled::Tables(m) => Imp::Tables(Tables::new(m)),
            Compiled::Slides(m) => Imp::Slides(Slides::new(m)),
            Compiled::Bodies(m) => Imp::Bodies(Bodies::new(m)),
            Compiled::Poses(m) => Imp::Poses(Poses::new(m)),
            Compiled::Script(m) => Imp::Script(Scripts::new(m)),
            Compiled::Pushes(m) => Imp::Pushes(Pushes::new(m)),
            Compiled::Generic => Imp::Generic(Generic::new(task, self.layout)),
            Compiled::Phased(p) => Imp::Phased(Phased {
                field: p.field,
                mask: p.field.mask(),
                next: &p.next,
                forbid: p.forbid.as_ref().map(|(cx, c)| (cx, *c)),
                parts: (p.parts.iter())
                    .map(|c| match c {
                        Compiled::Tables(m) => Part::Tables(Box::new(Tables::new(m))),
                        Compiled::Slides(m) => Part::Slides(Slides::new(m)),
                        Compiled::Bodies(m) => Part::Bodies(Bodies::new(m)),
                        Compiled::Poses(m) => Part::Poses(Poses::new(m)),
                        Compiled::Script(m) => Part::Script(Scripts::new(m)),
                        Compiled::Pushes(m) => Part::Pushes(Pushes::new(m)),
                        Compiled::Generic | Compiled::Phased(_) => {
                            unreachable!("a phase has a specialised kernel")
                        }
                    })
                    .collect(),
            }),
        }
    }
}

/// The kernel of a task at one value of its clock: a specialised one.
enum Part<'k, 't, W> {
    Tables(Box<Tables<'k, 't, W>>),
    Slides(Slides<'k, W>),
    Bodies(Bodies<'k, W>),
    Poses(Poses<'k, W>),
    Script(Scripts<'k, W>),
    Pushes(Pushes<'k, W>),
}

/// The successors of a task that reads the time: those of the kernel of
/// the task at the state's time, the clock set to its next value.
pub struct Phased<'k, 't, W> {
    field: Field,
    mask: W,
    next: &'k [W],
    parts: Vec<Part<'k, 't, W>>,
    /// With one part for every time: `forbid`, tested on its successors.
    forbid: Option<(&'k Conds<W>, Cond<W>)>,
}

impl<W: Word> Phased<'_, '_, W> {
    #[inline(always)]
    fn each_cost(&mut self, s: W, mut f: impl FnMut(W, u32) -> bool) {
        let v = self.field.raw(s) as usize;
        let (keep, next) = (!self.mask, self.next[v]);
        // Two loops, so that a kernel per value of the clock tests nothing
        // more per successor than the clock's next value.
        match self.forbid {
            None => run(&mut self.parts[v], s, |t, c| f(t & keep | next, c)),
            Some((cx, cond)) => run(&mut self.parts[0], s, |t, c| {
                let t = t & keep | next;
                cx.holds(cond, t) || f(t, c)
            }),
        }
    }
}

/// Calls `g` on every successor of `s` by the part's kernel, with its cost.
#[inline(always)]
fn run<W: Word>(part: &mut Part<'_, '_, W>, s: W, mut g: impl FnMut(W, u32) -> bool) {
    match part {
        Part::Tables(t) => t.each(s, |t| g(t, 1)),
        Part::Slides(t) => t.each(s, |t| g(t, 1)),
        Part::Bodies(t) => t.each(s, |t| g(t, 1)),
        Part::Poses(t) => t.each(s, |t| g(t, 1)),
        Part::Script(t) => t.each(s, |t| g(t, 1)),
        Part::Pushes(t) => t.each_cost(s, g),
    }
}

impl<W: Word> Gen<W> for Phased<'_, '_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        self.each_cost(s, |t, _| f(t))
    }
}

/// `s` with mover `i` of the alike movers `run` (their positions `at`,
/// increasing, indexed as the movers are, their fields `field`) at
/// position `q`, and their positions back in increasing order: only `i`
/// changed, so its value moves to its place, the others shifting by one.
#[inline(always)]
fn in_order<W: Word>(
    s: W,
    run: std::ops::Range<usize>,
    at: &[u32],
    field: impl Fn(usize) -> Field,
    i: usize,
    q: u32,
) -> W {
    let set = |t: W, j: usize, v: u32| {
        let f = field(j);
        (t & !f.mask::<W>()) | f.place::<W>(u64::from(v))
    };
    let mut j = i;
    let mut t = s;
    while j > run.start && at[j - 1] > q {
        t = set(t, j, at[j - 1]);
        j -= 1;
    }
    while j + 1 < run.end && at[j + 1] < q {
        t = set(t, j, at[j + 1]);
        j += 1;
    }
    set(t, j, q)
}

/// A successor loop of one kind: what a search's inner loop is generic
/// over, so that the kind is chosen once per batch of states.
pub trait Gen<W> {
    /// Calls `f` on every successor of `s` (duplicates possible), for a
    /// task whose steps all cost 1; stops early when `f` returns false.
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool);
}

impl<W: Word> Gen<W> for Tables<'_, '_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        Tables::each(self, s, f)
    }
}

impl<W: Word> Gen<W> for Slides<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        Slides::each(self, s, f)
    }
}

impl<W: Word> Gen<W> for Bodies<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        Bodies::each(self, s, f)
    }
}

impl<W: Word> Gen<W> for Poses<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        Poses::each(self, s, f)
    }
}

impl<W: Word> Gen<W> for Scripts<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, f: impl FnMut(W) -> bool) {
        Scripts::each(self, s, f)
    }
}

impl<W: Word> Gen<W> for Pushes<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        Pushes::each_cost(self, s, |t, _| f(t))
    }
}

impl<W: Word> Gen<W> for Generic<'_, W> {
    #[inline(always)]
    fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        Generic::each(self, s, |t, _| f(t))
    }
}

/// A successor generator, as the loop it runs.
pub enum Split<'a, 'k, 't, W> {
    Tables(&'a mut Tables<'k, 't, W>),
    Slides(&'a mut Slides<'k, W>),
    Bodies(&'a mut Bodies<'k, W>),
    Poses(&'a mut Poses<'k, W>),
    Script(&'a mut Scripts<'k, W>),
    Pushes(&'a mut Pushes<'k, W>),
    Generic(&'a mut Generic<'k, W>),
    Phased(&'a mut Phased<'k, 't, W>),
}

/// Generates the successors of states, reusing its buffers.
/// The one field of a packed state a move changed: the field at bit
/// `offset`, from raw value `from` to `to` (a caller that ranks states
/// moves the rank by the difference, reading nothing else).
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    pub offset: u32,
    pub from: u32,
    pub to: u32,
}

/// Where [`Successors::rows_of`] puts the rows it makes (a trait, not a
/// closure, so that an implementation can ask to be inlined into the
/// kernel's loops).
pub trait RowSink<W, const R: usize> {
    /// A row of successors: `base` with the last mover's field zero,
    /// `moved` the one field it changed from the expanded row's base when
    /// it is one, `mask` the last mover's positions (bit `p % 64` of word
    /// `p / 64`).
    fn row(&mut self, base: W, moved: Option<Moved>, mask: [u64; R]);
}

pub struct Successors<'k, 't, W> {
    imp: Imp<'k, 't, W>,
}

// One per thread, never moved about: the size difference does not matter.
#[allow(clippy::large_enum_variant)]
enum Imp<'k, 't, W> {
    Tables(Tables<'k, 't, W>),
    Slides(Slides<'k, W>),
    Bodies(Bodies<'k, W>),
    Poses(Poses<'k, W>),
    Script(Scripts<'k, W>),
    Pushes(Pushes<'k, W>),
    Generic(Generic<'k, W>),
    Phased(Phased<'k, 't, W>),
}

impl<W: Word> Imp<'_, '_, W> {
    /// Calls `f` on every successor of `s` with the cost of its step.
    #[inline(always)]
    fn each_cost(&mut self, s: W, mut f: impl FnMut(W, u32) -> bool) {
        match self {
            Imp::Tables(t) => t.each(s, |t| f(t, 1)),
            Imp::Slides(t) => t.each(s, |t| f(t, 1)),
            Imp::Bodies(t) => t.each(s, |t| f(t, 1)),
            Imp::Poses(t) => t.each(s, |t| f(t, 1)),
            Imp::Script(t) => t.each(s, |t| f(t, 1)),
            Imp::Pushes(t) => t.each_cost(s, f),
            Imp::Generic(g) => g.each(s, f),
            Imp::Phased(p) => p.each_cost(s, f),
        }
    }
}

impl<'k, 't, W: Word> Successors<'k, 't, W> {
    /// Calls `f` on every successor of `s` (duplicates possible), for a
    /// task whose steps all cost 1; stops early when `f` returns false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W) -> bool) {
        match &mut self.imp {
            Imp::Tables(t) => t.each(s, f),
            Imp::Slides(t) => t.each(s, f),
            Imp::Bodies(t) => t.each(s, f),
            Imp::Poses(t) => t.each(s, f),
            Imp::Script(t) => t.each(s, f),
            Imp::Pushes(t) => t.each_cost(s, |t, _| f(t)),
            Imp::Generic(g) => g.each(s, |t, _| f(t)),
            Imp::Phased(p) => p.each(s, f),
        }
    }

    /// Calls `f` on every successor of `s` with the cost of its step.
    #[inline(always)]
    pub fn each_cost(&mut self, s: W, f: impl FnMut(W, u32) -> bool) {
        self.imp.each_cost(s, f)
    }

    /// The loop it runs, for a search to be generic over.
    pub fn split(&mut self) -> Split<'_, 'k, 't, W> {
        match &mut self.imp {
            Imp::Tables(t) => Split::Tables(t),
            Imp::Slides(t) => Split::Slides(t),
            Imp::Bodies(t) => Split::Bodies(t),
            Imp::Poses(t) => Split::Poses(t),
            Imp::Script(t) => Split::Script(t),
            Imp::Pushes(t) => Split::Pushes(t),
            Imp::Generic(g) => Split::Generic(g),
            Imp::Phased(p) => Split::Phased(p),
        }
    }

    /// The words of the last mover's masks when [`Self::rows`] applies, else
    /// 0.
    pub fn row_words(&self) -> usize {
        match &self.imp {
            Imp::Tables(t) => t.row_words(),
            Imp::Slides(_)
            | Imp::Bodies(_)
            | Imp::Poses(_)
            | Imp::Script(_)
            | Imp::Pushes(_)
            | Imp::Generic(_)
            | Imp::Phased(_) => 0,
        }
    }

    /// The successors of `s` in rows (see `tables_succ`): `row(base,
    /// mask)` for each allowed choice of the moves of the movers before the
    /// last, `mask` holding the positions the last mover may then take.
    /// False, with no call, for a kernel that has no rows (only the table
    /// kernels have them, where [`Self::row_words`] is not 0).
    #[inline(always)]
    pub fn rows<const R: usize>(&mut self, s: W, row: impl FnMut(W, [u64; R]) -> bool) -> bool {
        match &mut self.imp {
            Imp::Tables(t) => {
                t.rows::<R>(s, row);
                true
            }
            Imp::Slides(_)
            | Imp::Bodies(_)
            | Imp::Poses(_)
            | Imp::Script(_)
            | Imp::Pushes(_)
            | Imp::Generic(_)
            | Imp::Phased(_) => false,
        }
    }

    /// The successors of a row of states (`base | p` for each bit `p` of
    /// `mask`), as rows (see `tables_succ`), each with the one field its
    /// base changed from `base` when it is one, and how many successors
    /// they are state by state; `None`, with no call, for a kernel that
    /// has no rows.
    #[inline(always)]
    pub fn rows_of<const R: usize>(
        &mut self,
        base: W,
        mask: [u64; R],
        row: &mut impl RowSink<W, R>,
    ) -> Option<u64> {
        match &mut self.imp {
            Imp::Tables(t) => Some(t.rows_of::<R>(base, mask, row)),
            Imp::Slides(_)
            | Imp::Bodies(_)
            | Imp::Poses(_)
            | Imp::Script(_)
            | Imp::Pushes(_)
            | Imp::Generic(_)
            | Imp::Phased(_) => None,
        }
    }
}
