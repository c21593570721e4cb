//! The generic interpreter: the steps of any task, computed from the task
//! itself on states unpacked into one value per variable. It is the
//! definition the specialised kernels are tested against (identical
//! successors on every reachable state), and the kernel of tasks no
//! specialisation fits.
//!
//! A step, in turn: one mover takes one of its actions. Its move (a fixed
//! offset, forward or back along its heading, a turn, or none) must stay on
//! the board, and entering a cell needs the cell's entry condition (on the
//! state before the step) and, with `forbid same cell`, no other mover on
//! it. Then, in order: the rules of the cell entered, the action's rules,
//! and the derived facts of every mover (its `on` facts, then its `sees`
//! facts). At once: every mover takes one action; no two end on one cell
//! (`forbid same cell`) or swap cells (`forbid swap`); the rules of the
//! cells entered fire mover by mover, then the actions' rules, then the
//! derived facts. A rule fires when its condition holds on the state as it
//! is then; an effect that would take a counter out of its range (one that
//! does not wrap) makes the step no step. A step costs its action's cost,
//! or the cost of the cell it enters when that cell has one; at once, the
//! largest of the movers' costs.

use crate::pack::{Layout, Word};
use crate::task::{Dir, MoverId, Op, Relation, RuleId, SIGHT, Task, VarKind, Way};

/// The interpreter's buffers, one per thread.
pub struct Generic<'k, W> {
    task: &'k Task,
    layout: &'k Layout,
    /// The state being expanded, unpacked.
    vals: Vec<i64>,
    /// A successor being built.
    next: Vec<i64>,
    /// Each mover's grid cell in `vals`.
    cells: Vec<u32>,
    /// At once: each mover's chosen action (an index into its actions), and
    /// where it takes it.
    choice: Vec<usize>,
    moved: Vec<Option<Move>>,
    /// Some step may go further than the next cell (see [`Self::far`]).
    far: bool,
    /// A successor's values kept while another is built from the same
    /// step (an optional teleport).
    spare: Vec<i64>,
    /// The values once an object is pushed, kept while the pusher's moves
    /// from there are built (an object through an optional teleport).
    pushed: Vec<i64>,
    /// Some mover is an object's member: steps push.
    objects: bool,
    /// Some mover is a piece of several cells: which mover covers each
    /// grid cell (its index + 1; 0 for none), and the cells marked.
    pieces: bool,
    occ: Vec<u32>,
    marked: Vec<u32>,
    /// Some movers are interchangeable: their positions are put in order.
    twins: bool,
    /// Some mover moves by itself after every step.
    scripted: bool,
    /// Mover -> its preferences' decision table, for a mover that moves
    /// by itself (where their conditions have few distinct tests).
    choices: Vec<Option<super::choice::Choice>>,
    /// Some movers are members of bodies, which follow their leaders.
    bodies: bool,
    /// Class -> whether its cells may be entered: never, always, or when
    /// its entry condition holds.
    entry: Vec<Entry>,
    /// Mover -> whether entering some class fires an `on enter` rule of
    /// it (a piece with none need not look for the cells it newly covers).
    enter_rules: Vec<bool>,
    /// A buffer for putting twins' positions in order.
    scratch: Vec<i64>,
    /// The state [`carry`] keeps to find a loop.
    snap: Vec<i64>,
    word: std::marker::PhantomData<W>,
}

/// Whether a class's cells may be entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Never,
    Always,
    If,
}

/// Where a mover's action takes it.
#[derive(Debug, Clone, Copy)]
struct Move {
    pos: i64,
    heading: i64,
    /// A piece with poses: the pose it takes, and the way its table's move
    /// goes (none, `(0, 0)`, for a turn), which its entry conditions and
    /// `on enter` rules read.
    pose: Option<(i64, Dir)>,
    /// The cell it enters, if it changes cell.
    enters: Option<u32>,
    cost: u32,
    /// The object member it pushes: the mover, its new position, the cell
    /// it enters.
    push: Option<(usize, i64, u32)>,
}

/// What came of a mover's move made by itself ([`Generic::prefer`]).
enum Tried {
    /// It was made.
    Made,
    /// It cannot be made: the next is tried.
    Not,
    /// An effect left a counter's range: the step is no step.
    Fails,
}

/// Where a mover's move that goes further than the next cell ended
/// ([`Generic::go_on`]).
#[derive(Debug, Clone, Copy)]
struct Went {
    /// The last cell it entered.
    at: u32,
    /// That cell's entering cost, if it has one.
    cost: Option<u32>,
    /// The other end of the teleport it ended on, that end's position, and
    /// whether going through is optional.
    through: Option<(u32, u32, bool)>,
}

impl<'k, W: Word> Generic<'k, W> {
    pub fn new(task: &'k Task, layout: &'k Layout) -> Self {
        let n = task.vars().len();
        let movers = task.movers().len();
        Generic {
            task,
            layout,
            vals: vec![0; n],
            next: vec![0; n],
            cells: vec![0; movers],
            choice: vec![0; movers],
            moved: vec![None; movers],
            far: task.far_moves(),
            spare: vec![0; n],
            pushed: vec![0; n],
            objects: task.has_objects(),
            pieces: task.has_pieces(),
            occ: if task.has_pieces() {
                vec![0; task.board().rows() * task.board().cols()]
            } else {
                Vec::new()
            },
            marked: Vec::new(),
            twins: task.has_twins(),
            scripted: task.scripted(),
            choices: (task.movers().iter())
                .map(|m| super::choice::Choice::new(task, m.script()?.1))
                .collect(),
            bodies: task.has_bodies(),
            entry: task
                .board()
                .class_ids()
                .map(|k| match task.entry(k) {
                    crate::task::Expr::Const(false) => Entry::Never,
                    // Open whichever way it is entered only where no
                    // condition reads the way.
                    crate::task::Expr::Const(true) if !task.reads_moving() => Entry::Always,
                    _ => Entry::If,
                })
                .collect(),
            enter_rules: (0..movers as u32)
                .map(|m| {
                    (task.board().class_ids())
                        .any(|k| task.on_enter_any(MoverId(m), k).next().is_some())
                })
                .collect(),
            scratch: Vec::new(),
            snap: Vec::new(),
            word: std::marker::PhantomData,
        }
    }

    /// The task's start states with their derived facts, packed (those
    /// whose facts leave a counter's range dropped), without repeats.
    pub fn starts(task: &Task, layout: &Layout) -> Vec<W> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for s in task.starts() {
            let mut vals = s.clone();
            task.canonical(&mut vals, &mut scratch);
            if settle(task, &mut vals) && !task.dead(&vals) && !task.forbidden(&vals) {
                let w = layout.encode(&vals);
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
        out
    }

    /// Calls `f` on every successor of `s` with its cost (duplicates
    /// possible); stops early when `f` returns false.
    #[inline(always)]
    pub fn each(&mut self, s: W, mut f: impl FnMut(W, u32) -> bool) {
        self.each_acted(s, |t, c, _| f(t, c))
    }

    /// [`Self::each`], with the actions taken for each successor: `(mover,
    /// action)`, one in turn, every mover's in order at once.
    pub fn each_acted(
        &mut self,
        s: W,
        mut f: impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) {
        let task = self.task;
        self.layout.decode(s, &mut self.vals);
        self.locate();
        match task.mode() {
            crate::task::Mode::InTurn => {
                for (i, m) in task.movers().iter().enumerate() {
                    for &a in m.actions() {
                        if !task.eval(task.action(a).guard(), &self.vals) {
                            continue;
                        }
                        if self.far
                            && let Some((dir, slide)) = self.direction(i, a)
                        {
                            if !self.far(i, a, dir, slide, &mut f) {
                                return;
                            }
                            continue;
                        }
                        let Some(mv) = self.motion(i, a) else {
                            continue;
                        };
                        // (An object on the cell is pushed, or the move
                        // is none: `motion` saw to it.)
                        if let Some(c) = mv.enters
                            && mv.push.is_none()
                            && ((task.forbid_same_cell() && self.taken(i, c)) || self.blocked(c))
                        {
                            continue;
                        }
                        self.moved.fill(None);
                        self.moved[i] = Some(mv);
                        let acted = [(i, a)];
                        if let Some(t) = self.finish(&acted)
                            && !f(t, mv.cost, &acted)
                        {
                            return;
                        }
                    }
                }
            }
            crate::task::Mode::AtOnce => self.at_once(&mut f),
            crate::task::Mode::Together => self.together(&mut f),
        }
    }

    /// Together: every mover makes the move of the same index (the rules
    /// give them one list), each as it can, front first: movers further
    /// along the move's way move before those behind them, so one may
    /// follow into the cell another leaves. Each goes as a step goes
    /// ([`Self::go_on`]: its entry conditions and rules, slides, slippery
    /// cells); one blocked, or whose move's condition fails, stays. The
    /// step costs the most a mover's move costs; it is no step when no
    /// one moves (unless the move is `stay`).
    fn together(&mut self, f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool) {
        let task = self.task;
        let movers = task.movers();
        let Some(first) = movers.first() else { return };
        let b = task.board();
        let mut acted = Vec::with_capacity(movers.len());
        let mut order: Vec<usize> = (0..movers.len()).collect();
        for k in 0..first.actions().len() {
            acted.clear();
            acted.extend((0..movers.len()).map(|i| (i, movers[i].actions()[k])));
            self.next.copy_from_slice(&self.vals);
            let Some((dir, slide)) = self.direction(0, acted[0].1) else {
                // `stay`: only the rules change the state.
                let cost = task.action(acted[0].1).cost();
                if !self.emit(&acted, cost, f) {
                    return;
                }
                continue;
            };
            let ahead = |c: u32| {
                let (r, col) = (
                    (c as usize / b.cols()) as i64,
                    (c as usize % b.cols()) as i64,
                );
                r * i64::from(dir.dr) + col * i64::from(dir.dc)
            };
            let cells = &self.cells;
            order.sort_by_key(|&i| std::cmp::Reverse(ahead(cells[i])));
            let (mut cost, mut any, mut ok) = (0, false, true);
            for &i in &order {
                let a = acted[i].1;
                if !task.eval(task.action(a).guard(), &self.vals) {
                    continue;
                }
                // `go_on` fails when a rule leaves a counter's range.
                let before = self.next[movers[i].pos().ix()];
                match self.go_on(i, self.cells[i], dir, slide) {
                    Some(went) => {
                        let mut at = went.at;
                        if let Some((other, q, _)) = went.through {
                            self.next[movers[i].pos().ix()] = q as i64;
                            at = other;
                        }
                        self.cells[i] = at;
                        any = true;
                        cost = cost.max(went.cost.unwrap_or(task.action(a).cost()));
                    }
                    None if self.next[movers[i].pos().ix()] != before => {
                        ok = false;
                        break;
                    }
                    None => {}
                }
            }
            // Each mover's cell as the state before the step has it.
            self.locate();
            if ok && any && !self.emit(&acted, cost, f) {
                return;
            }
        }
    }

    /// Every combination of the movers' actions, as an odometer whose
    /// last digit turns fastest. A mover that cannot make its move, or two
    /// movers that may not end as they would, rule out every combination
    /// that shares the digits up to the later of them: the odometer skips
    /// past them all (sixteen movers have 5^16 combinations, most of them
    /// ruled out by a few digits).
    fn at_once(&mut self, f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool) {
        let task = self.task;
        let n = task.movers().len();
        if n == 0 || task.movers().iter().any(|m| m.actions().is_empty()) {
            return;
        }
        self.choice.fill(0);
        let mut acted = Vec::with_capacity(n);
        loop {
            acted.clear();
            let mut cost = 0;
            let mut blocked = None;
            for i in 0..n {
                let a = task.movers()[i].actions()[self.choice[i]];
                acted.push((i, a));
                if !task.eval(task.action(a).guard(), &self.vals) {
                    blocked = Some(i);
                    break;
                }
                match self.motion(i, a) {
                    Some(mv) => {
                        cost = cost.max(mv.cost);
                        self.moved[i] = Some(mv);
                        if self.clashes(i) {
                            blocked = Some(i);
                            break;
                        }
                    }
                    None => {
                        blocked = Some(i);
                        break;
                    }
                }
            }
            if blocked.is_none()
                && let Some(t) = self.finish(&acted)
                && !f(t, cost, &acted)
            {
                return;
            }
            if !self.advance(blocked.unwrap_or(n - 1)) {
                return;
            }
        }
    }

    /// Turns the odometer at digit `at` (the digits after it back to 0);
    /// false when it has gone round.
    fn advance(&mut self, at: usize) -> bool {
        let task = self.task;
        self.choice[at + 1..].fill(0);
        for i in (0..=at).rev() {
            self.choice[i] += 1;
            if self.choice[i] < task.movers()[i].actions().len() {
                return true;
            }
            self.choice[i] = 0;
        }
        false
    }

    /// Whether a mover before `j` may not end as it would with mover `j`'s
    /// move (on one cell, or swapping cells, where forbidden).
    fn clashes(&self, j: usize) -> bool {
        let task = self.task;
        if !task.forbid_same_cell() && !task.forbid_swap() {
            return false;
        }
        let new_cell = |i: usize| {
            let mv = self.moved[i].expect("every mover before has a move");
            task.movers()[i].domain().cell(mv.pos as u32)
        };
        let (nj, oj) = (new_cell(j), self.cells[j]);
        (0..j).any(|i| {
            let (ni, oi) = (new_cell(i), self.cells[i]);
            (task.forbid_same_cell() && ni == nj)
                || (task.forbid_swap() && oi != oj && ni == oj && nj == oi)
        })
    }

    /// Why `step` (the actions of a step, as [`Self::each_acted`] gives
    /// them) is no step from `s`, in words; `None` when it is one.
    pub fn refusal(&mut self, s: W, step: &[(usize, crate::task::ActionId)]) -> Option<String> {
        let task = self.task;
        self.layout.decode(s, &mut self.vals);
        self.locate();
        let b = task.board();
        let at = |c: u32| {
            let (r, c) = b.coords(c);
            format!("row {}, column {}", r + 1, c + 1)
        };
        self.moved.fill(None);
        if task.mode() == crate::task::Mode::Together {
            let name = step.first().map_or("", |&(_, a)| task.action(a).name());
            return Some(format!(
                "no agent can {name} now (each is blocked, or its condition fails), or a rule \
                 would leave a counter's range"
            ));
        }
        for (k, &(i, a)) in step.iter().enumerate() {
            let who = task.movers()[i].name();
            if !task.eval(task.action(a).guard(), &self.vals) {
                return Some(format!(
                    "{who} may not {} now (its condition, `if`, does not hold)",
                    task.action(a).name()
                ));
            }
            let Some(mv) = self.motion(i, a) else {
                let action = task.action(a);
                let h = task.movers()[i].heading().map_or(0, |h| self.vals[h.ix()]);
                let Some(dir) = action.motion().dir(h) else {
                    return Some(format!("{who} cannot {}", action.name()));
                };
                let Some(to) = b.step(self.cells[i], dir) else {
                    return Some(format!("{who} would leave the map"));
                };
                let class = b.class(to);
                if self.objects
                    && let Some(j) = self.object_on(to)
                {
                    return Some(format!(
                        "{who} cannot push {} at {}: the cell beyond is blocked",
                        task.movers()[j].name(),
                        at(to)
                    ));
                }
                return Some(if b.classes()[class as usize].solid {
                    format!("{who} would walk into a solid tile at {}", at(to))
                } else if !task.eval(task.entry_going(class, dir), &self.vals) {
                    format!("{who} may not enter {} now (its entry condition)", at(to))
                } else {
                    format!("{who} may not stand at {}", at(to))
                });
            };
            if task.mode() == crate::task::Mode::InTurn
                && (task.forbid_same_cell() || (self.far && task.action(a).motion().far))
                && mv.push.is_none()
                && let Some(c) = mv.enters
                && let Some(j) = self.other_on(i, c)
            {
                return Some(format!("{} stands at {}", task.movers()[j].name(), at(c)));
            }
            self.moved[i] = Some(mv);
            if task.mode() == crate::task::Mode::AtOnce && k == i && self.clashes(i) {
                return Some(format!(
                    "{who} would end on another agent's cell, or swap with one"
                ));
            }
        }
        if self.finish(step).is_none() {
            return Some("a counter would leave its range".into());
        }
        None
    }

    /// The way action `a` of mover `i` moves it from `vals`, and whether it
    /// is a slide; `None` for an action that keeps it on its cell.
    fn direction(&self, i: usize, a: crate::task::ActionId) -> Option<(Dir, bool)> {
        let m = &self.task.movers()[i];
        let heading = m.heading().map_or(0, |h| self.vals[h.ix()]);
        // A piece with poses moves by its table, one move a step.
        let motion = self.task.action(a).motion();
        motion.dir(heading).map(|d| (d, motion.far))
    }

    /// In turn, in a task where a step may go further than the next cell:
    /// mover `i` takes action `a`, moving by `dir` cell after cell. Each
    /// cell is entered as a step enters it (not solid, its entry condition
    /// holding on the state as it is then, its rules fired on entering);
    /// another mover on it stops a slide before it (and a plain step, with
    /// `forbid same cell`). The move goes on from a slippery cell, and for
    /// a slide from any cell that does not stop slides; it ends on a
    /// teleport's end, which puts the mover on the other end (unless
    /// another mover stands there and `forbid same cell` holds; an
    /// optional teleport gives both successors). It costs the cost of the
    /// last cell a step entered, if that has one, else the action's. A move
    /// that enters no cell is no move. A plain step into an object pushes
    /// it first ([`Self::far_push`]); a slide never pushes. Hands each
    /// successor to `f`; false when `f` asks to stop.
    fn far(
        &mut self,
        i: usize,
        a: crate::task::ActionId,
        dir: Dir,
        slide: bool,
        f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) -> bool {
        let task = self.task;
        let m = &task.movers()[i];
        self.next.copy_from_slice(&self.vals);
        if !m.shape().is_empty() {
            return self.far_piece(i, a, dir, slide, f);
        }
        if self.objects
            && !slide
            && let Some(to) = task.board().step(self.cells[i], dir)
            && let Some(j) = self.object_on(to)
        {
            return self.far_push(i, a, j, to, dir, f);
        }
        self.walk(i, a, dir, slide, None, f)
    }

    /// Mover `i` pushes object member `j`, standing on `to`, by `dir`: the
    /// object moves first, as any mover does ([`Self::go_on`]), stopping
    /// before anything in its way; an object that cannot move one cell is
    /// not pushed, and the step is no step. Then the pusher moves onto `to`
    /// and on from there ([`Self::walk`]), at the object's push cost if it
    /// has one.
    fn far_push(
        &mut self,
        i: usize,
        a: crate::task::ActionId,
        j: usize,
        to: u32,
        dir: Dir,
        f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) -> bool {
        let Some(went) = self.go_on(j, to, dir, false) else {
            return true;
        };
        let o = &self.task.movers()[j];
        let cost = o.object().and_then(|x| x.push_cost);
        let mut ok = true;
        if went.through.is_none_or(|(_, _, optional)| optional) {
            self.pushed.copy_from_slice(&self.next);
            self.cells[j] = went.at;
            ok = self.walk(i, a, dir, false, cost, f);
            self.next.copy_from_slice(&self.pushed);
        }
        if ok && let Some((other, q, _)) = went.through {
            self.next[o.pos().ix()] = q as i64;
            self.cells[j] = other;
            ok = self.walk(i, a, dir, false, cost, f);
        }
        self.cells[j] = to;
        ok
    }

    /// [`Self::far`]'s move of a one-cell mover from its cell, on the state
    /// in `next`; a step that pushed costs `push_cost` if given.
    fn walk(
        &mut self,
        i: usize,
        a: crate::task::ActionId,
        dir: Dir,
        slide: bool,
        push_cost: Option<u32>,
        f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) -> bool {
        let Some(went) = self.go_on(i, self.cells[i], dir, slide) else {
            return true;
        };
        let m = &self.task.movers()[i];
        let cost = push_cost
            .or(went.cost)
            .unwrap_or(self.task.action(a).cost());
        let acted = [(i, a)];
        match went.through {
            None => self.emit(&acted, cost, f),
            Some((_, q, optional)) => {
                if optional {
                    self.spare.copy_from_slice(&self.next);
                    if !self.emit(&acted, cost, f) {
                        return false;
                    }
                    self.next.copy_from_slice(&self.spare);
                }
                self.next[m.pos().ix()] = q as i64;
                self.emit(&acted, cost, f)
            }
        }
    }

    /// One-cell mover `i` goes by `dir` from `from`, cell after cell, in
    /// `next`: each cell entered as a step enters it (not solid, its entry
    /// condition holding on the state as it is then, its rules fired); on
    /// from a slippery cell, and for a slide from any cell that does not
    /// stop slides; ending on a teleport's end, with the other end to go
    /// to unless another mover keeps it out. Another mover on a cell stops
    /// it before the cell, except a plain first step of an agent onto an
    /// agent without `forbid same cell`; objects always stop movers and are
    /// always stopped. `None` when it enters no cell, or a rule leaves a
    /// counter's range.
    fn go_on(&mut self, i: usize, from: u32, dir: Dir, slide: bool) -> Option<Went> {
        let task = self.task;
        let b = task.board();
        let m = &task.movers()[i];
        // Whether another mover on `c` keeps `i` out.
        let kept_out = |me: &Self, c: u32, strict: bool| {
            me.taken(i, c)
                && (strict || task.forbid_same_cell() || m.object().is_some() || me.blocked(c))
        };
        let mut went = Went {
            at: from,
            cost: None,
            through: None,
        };
        while let Some(to) = b.step(went.at, dir) {
            let class = b.class(to);
            let k = b.classes()[class as usize];
            if k.solid
                || !task.eval(task.entry_going(class, dir), &self.next)
                || kept_out(self, to, went.at != from || slide)
            {
                break;
            }
            let Some(p) = m.position_from(to, &self.next) else {
                break;
            };
            self.next[m.pos().ix()] = p as i64;
            went.at = to;
            went.cost = task.enter_cost(class);
            for &r in task.on_enter_going(MoverId(i as u32), class, dir) {
                if !fire(task, r, &mut self.next) {
                    return None;
                }
            }
            if let Some((other, optional)) = b.teleport(to) {
                if !kept_out(self, other, false)
                    && let Some(q) = m.position_of(other)
                {
                    went.through = Some((other, q, optional));
                }
                break;
            }
            if !k.carries(slide) {
                break;
            }
        }
        (went.at != from).then_some(went)
    }

    /// [`Self::far`] for a piece: it shifts cell by cell while every cell
    /// it would cover is free (see [`Self::piece_to`], the conditions on
    /// the state as it is then), the rules of the cells newly covered
    /// firing each time. A step goes on while every cell it covers is
    /// slippery; a slide goes on until it covers a cell that stops slides,
    /// or it could not go on.
    fn far_piece(
        &mut self,
        i: usize,
        a: crate::task::ActionId,
        dir: Dir,
        slide: bool,
        f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) -> bool {
        let task = self.task;
        let b = task.board();
        let m = &task.movers()[i];
        let base = task.action(a).cost();
        let (mut at, mut cost, mut entered) = (self.cells[i], base, false);
        while let Some((p, c)) = self.piece_to(i, at, dir, &self.next, base) {
            let Some(next) = b.step(at, dir) else { break };
            self.next[m.pos().ix()] = p;
            if !self.piece_enters(i, at, next, dir) {
                return true;
            }
            (at, cost, entered) = (next, c, true);
            // A cell on the floor catches the whole piece.
            let carried = m
                .shape()
                .iter()
                .filter_map(|&o| b.shifted(next, o))
                .all(|c| b.class_of(c).carries(slide));
            if !carried {
                break;
            }
        }
        if !entered {
            return true;
        }
        self.emit(&[(i, a)], cost, f)
    }

    /// Each mover's grid cell in `vals`, and with pieces which mover
    /// covers each cell.
    fn locate(&mut self) {
        let task = self.task;
        for (i, m) in task.movers().iter().enumerate() {
            self.cells[i] = m.domain().cell(self.vals[m.pos().ix()] as u32);
        }
        if self.pieces {
            for &c in &self.marked {
                self.occ[c as usize] = 0;
            }
            self.marked.clear();
            let b = task.board();
            for (i, m) in task.movers().iter().enumerate() {
                let at = self.cells[i];
                let shape = m.shape_in(&self.vals);
                if shape.is_empty() {
                    self.occ[at as usize] = i as u32 + 1;
                    self.marked.push(at);
                }
                for &off in shape {
                    if let Some(c) = b.shifted(at, off) {
                        self.occ[c as usize] = i as u32 + 1;
                        self.marked.push(c);
                    }
                }
            }
        }
    }

    /// Whether a mover other than `i` stands on `cell` (with pieces, covers
    /// it).
    fn taken(&self, i: usize, cell: u32) -> bool {
        self.other_on(i, cell).is_some()
    }

    /// The first mover other than `i` that stands on `cell` (with pieces,
    /// the one that covers it).
    fn other_on(&self, i: usize, cell: u32) -> Option<usize> {
        if self.pieces {
            let o = self.occ[cell as usize] as usize;
            return (o != 0 && o != i + 1).then(|| o - 1);
        }
        (0..self.cells.len()).find(|&j| j != i && self.cells[j] == cell)
    }

    /// Where piece `i` goes moving by `dir` from its cell `at`: every
    /// cell it enters (covers, and did not) on the board, open by its
    /// entry condition on `state` (never when solid), and covered by no
    /// other mover. Its new position and the cost: the largest of the
    /// cells entered that have a cost, else `cost`.
    fn piece_to(
        &self,
        i: usize,
        at: u32,
        dir: Dir,
        state: &[i64],
        cost: u32,
    ) -> Option<(i64, u32)> {
        let m = &self.task.movers()[i];
        let off = (i32::from(dir.dr), i32::from(dir.dc));
        self.piece_fits(i, at, off, m.shape(), dir, state, cost)
    }

    /// Where piece `i` goes when its anchor at `at` shifts by `shift` and
    /// it covers `shape` there, entering its cells going `way`: as
    /// [`Self::piece_to`] says.
    #[allow(clippy::too_many_arguments)]
    fn piece_fits(
        &self,
        i: usize,
        at: u32,
        shift: (i32, i32),
        shape: &[(i32, i32)],
        dir: Dir,
        state: &[i64],
        cost: u32,
    ) -> Option<(i64, u32)> {
        let task = self.task;
        let b = task.board();
        let m = &task.movers()[i];
        let anchor = b.shifted(at, shift)?;
        let rc = b.rc(anchor);
        let me = i as u32 + 1;
        let mut worst: Option<u32> = None;
        for &off in shape {
            let to = b.shifted_rc(rc, off)?;
            match self.occ[to as usize] {
                0 => {}
                o if o == me => continue,
                _ => return None,
            }
            let class = b.class(to);
            let open = match self.entry[class as usize] {
                Entry::Never => false,
                Entry::Always => true,
                Entry::If => task.eval(task.entry_going(class, dir), state),
            };
            if !open {
                return None;
            }
            if let Some(c) = task.enter_cost(class) {
                worst = Some(worst.map_or(c, |w| w.max(c)));
            }
        }
        let p = m.position_from(anchor, state)?;
        Some((p as i64, worst.unwrap_or(cost)))
    }

    /// Fires the `on enter` rules of the cells piece `i` covers at `to` and
    /// did not at `from`, in the order of its shape; false if an effect
    /// leaves a counter's range.
    fn piece_enters(&mut self, i: usize, from: u32, to: u32, dir: Dir) -> bool {
        if !self.enter_rules[i] {
            return true;
        }
        let task = self.task;
        let b = task.board();
        let m = &task.movers()[i];
        // With poses, the shape it had (in `vals`) and the one it takes.
        let (old, new) = (m.shape_in(&self.vals), m.shape_in(&self.next));
        let (fr, fc) = b.rc(from);
        let (tr, tc) = b.rc(to);
        // The shift from the old anchor to the new, in rows and columns.
        let (dr, dc) = (tr as i32 - fr as i32, tc as i32 - fc as i32);
        for &off in new {
            let Some(c) = b.shifted_rc((tr, tc), off) else {
                continue;
            };
            // Covered before: the cell is an old cell's, off the old anchor.
            if old.contains(&(off.0 + dr, off.1 + dc)) {
                continue;
            }
            for &r in task.on_enter_going(MoverId(i as u32), b.class(c), dir) {
                if !fire(task, r, &mut self.next) {
                    return false;
                }
            }
        }
        true
    }

    /// The successor in `next` once the actions' rules and the derived
    /// facts are applied, handed to `f` (none when an effect leaves a
    /// counter's range); false when `f` asks to stop.
    fn emit(
        &mut self,
        acted: &[(usize, crate::task::ActionId)],
        cost: u32,
        f: &mut impl FnMut(W, u32, &[(usize, crate::task::ActionId)]) -> bool,
    ) -> bool {
        match self.conclude(acted) {
            Some(t) => f(t, cost, acted),
            None => true,
        }
    }

    /// Where action `a` of mover `i` takes it from `vals`, if it may take
    /// it (for a move that goes further, where its first cell is).
    fn motion(&self, i: usize, a: crate::task::ActionId) -> Option<Move> {
        let task = self.task;
        let m = &task.movers()[i];
        let action = task.action(a);
        let pos = self.vals[m.pos().ix()];
        let heading = m.heading().map_or(0, |h| self.vals[h.ix()]);
        if let Way::Table(way) = action.motion().way {
            let (v, poses) = m.poses()?;
            let (to, off) = *action.table().get(self.vals[v.ix()] as usize)?;
            let at = self.cells[i];
            let shape = &poses[to as usize];
            let (p, cost) = self.piece_fits(i, at, off, shape, way, &self.vals, action.cost())?;
            return Some(Move {
                pos: p,
                heading,
                pose: Some((i64::from(to), way)),
                enters: task.board().shifted(at, off),
                cost,
                push: None,
            });
        }
        // The turn first, then the shift, from the heading turned to.
        let motion = action.motion();
        let turned = (heading + i64::from(motion.turn)).rem_euclid(4);
        let Some(dir) = motion.dir(heading) else {
            return Some(Move {
                pos,
                heading: turned,
                pose: None,
                enters: None,
                cost: action.cost(),
                push: None,
            });
        };
        let b = task.board();
        if !m.shape().is_empty() {
            let at = self.cells[i];
            let (p, cost) = self.piece_to(i, at, dir, &self.vals, action.cost())?;
            return Some(Move {
                pos: p,
                heading: turned,
                pose: None,
                enters: b.step(at, dir),
                cost,
                push: None,
            });
        }
        let to = b.step(self.cells[i], dir)?;
        let class = b.class(to);
        if b.classes()[class as usize].solid || !task.eval(task.entry_going(class, dir), &self.vals)
        {
            return None;
        }
        let p = m.position_from(to, &self.vals)?;
        let mut cost = task.enter_cost(class).unwrap_or(action.cost());
        let mut push = None;
        if self.objects
            && let Some(j) = self.object_on(to)
        {
            let (q, beyond) = self.push_to(j, to, dir)?;
            cost = task.movers()[j]
                .object()
                .and_then(|o| o.push_cost)
                .unwrap_or(cost);
            push = Some((j, q, beyond));
        }
        Some(Move {
            pos: p as i64,
            heading: turned,
            pose: None,
            enters: Some(to),
            cost,
            push,
        })
    }

    /// The object's member standing on `cell`, if one does.
    fn object_on(&self, cell: u32) -> Option<usize> {
        let movers = self.task.movers();
        (0..self.cells.len()).find(|&j| self.cells[j] == cell && movers[j].object().is_some())
    }

    /// Where object member `j` on `at` goes when pushed by `dir`: its new
    /// position and cell, if the cell beyond is on the board, not solid,
    /// open by its entry condition, in its domain, and free of every other
    /// mover.
    fn push_to(&self, j: usize, at: u32, dir: Dir) -> Option<(i64, u32)> {
        let task = self.task;
        let b = task.board();
        let beyond = b.step(at, dir)?;
        let class = b.class(beyond);
        if b.classes()[class as usize].solid
            || !task.eval(task.entry_going(class, dir), &self.vals)
            || self.taken(j, beyond)
        {
            return None;
        }
        let q = task.movers()[j].position_from(beyond, &self.vals)?;
        Some((q as i64, beyond))
    }

    /// The successor once the moves in `moved` are made: the rules of the
    /// cells entered, the actions' rules, the derived facts; `None` if an
    /// effect leaves a counter's range.
    fn finish(&mut self, acted: &[(usize, crate::task::ActionId)]) -> Option<W> {
        let task = self.task;
        self.next.copy_from_slice(&self.vals);
        for (i, mv) in self.moved.iter().enumerate() {
            if let Some(mv) = mv {
                let m = &task.movers()[i];
                self.next[m.pos().ix()] = mv.pos;
                if let Some(h) = m.heading() {
                    self.next[h.ix()] = mv.heading;
                }
                if let (Some((v, _)), Some((p, _))) = (m.poses(), mv.pose) {
                    self.next[v.ix()] = p;
                }
                if let Some((j, q, _)) = mv.push {
                    self.next[task.movers()[j].pos().ix()] = q;
                }
            }
        }
        for i in 0..self.moved.len() {
            let mv = &self.moved[i].clone();
            // An object pushed enters its cell as the pusher enters the
            // object's: the object's rules fire first.
            if let Some(Move {
                push: Some((j, _, c)),
                enters: Some(from),
                ..
            }) = mv
            {
                // The object goes from the cell its pusher enters.
                let class = task.board().class(*c);
                let dir = way(task.board(), *from, *c);
                for &r in task.on_enter_going(MoverId(*j as u32), class, dir) {
                    if !fire(task, r, &mut self.next) {
                        return None;
                    }
                }
            }
            if let Some(Move {
                enters: Some(c),
                pose,
                ..
            }) = mv
                && task.movers()[i].is_piece()
            {
                let from = self.cells[i];
                // A table's move goes the way it is named, whatever its
                // anchor's shift.
                let dir = pose.map_or_else(|| way(task.board(), from, *c), |(_, w)| w);
                if !self.piece_enters(i, from, *c, dir) {
                    return None;
                }
                continue;
            }
            if let Some(Move {
                enters: Some(c), ..
            }) = mv
            {
                let class = task.board().class(*c);
                let dir = way(task.board(), self.cells[i], *c);
                for &r in task.on_enter_going(MoverId(i as u32), class, dir) {
                    if !fire(task, r, &mut self.next) {
                        return None;
                    }
                }
            }
        }
        self.conclude(acted)
    }

    /// The successor in `next` once the actions' rules and the derived
    /// facts are applied; `None` if an effect leaves a counter's range.
    fn conclude(&mut self, acted: &[(usize, crate::task::ActionId)]) -> Option<W> {
        let task = self.task;
        for &(_, a) in acted {
            for &r in task.action(a).rules() {
                if !fire(task, r, &mut self.next) {
                    return None;
                }
            }
        }
        if self.bodies && !self.follow() {
            return None;
        }
        if !carry(task, &mut self.next, &mut self.snap) {
            return None;
        }
        if self.scripted && !self.by_themselves() {
            return None;
        }
        // The step is over: the time moves on, before the derived facts,
        // `forbid` and the goal read it.
        if let Some(c) = task.clock() {
            self.next[c.ix()] = task.var(c).tick(self.next[c.ix()]);
        }
        if self.twins {
            task.canonical(&mut self.next, &mut self.scratch);
        }
        if !settle(task, &mut self.next)
            || (self.objects && task.dead(&self.next))
            || task.forbidden(&self.next)
        {
            return None;
        }
        Some(self.layout.encode(&self.next))
    }

    /// After a step: each member of a body (in mover order: a body's in
    /// order from its leader) whose mover before it left its cell takes
    /// that cell, its `on enter` rules firing. False when an effect leaves
    /// a counter's range.
    fn follow(&mut self) -> bool {
        let task = self.task;
        let b = task.board();
        let movers = task.movers();
        for (i, m) in movers.iter().enumerate() {
            let Some(p) = m.follows() else { continue };
            let before = &movers[p.ix()];
            let (was, now) = (self.vals[before.pos().ix()], self.next[before.pos().ix()]);
            if was == now {
                continue;
            }
            let to = before.domain().cell(was as u32);
            let Some(q) = m.position_from(to, &self.next) else {
                continue;
            };
            self.next[m.pos().ix()] = i64::from(q);
            let dir = way(b, self.cells[i], to);
            for &r in task.on_enter_going(MoverId(i as u32), b.class(to), dir) {
                if !fire(task, r, &mut self.next) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether a mover that blocks every mover (an object's member, a
    /// body's) stands on `cell`.
    fn blocked(&self, cell: u32) -> bool {
        let movers = self.task.movers();
        (self.objects || self.bodies)
            && (0..self.cells.len()).any(|j| self.cells[j] == cell && movers[j].blocks())
    }

    /// Each mover's cell (and with pieces, who covers each cell) as `next`
    /// has them.
    fn locate_next(&mut self) {
        std::mem::swap(&mut self.vals, &mut self.next);
        self.locate();
        std::mem::swap(&mut self.vals, &mut self.next);
    }

    /// After a step and its carrying: each mover that moves by itself, in
    /// mover order, makes its moves (`by itself N times`): each time the
    /// first of its moves whose condition holds on the state as it is then
    /// and that it can make, as a step in turn makes it ([`Self::go_on`]:
    /// entry conditions, `on enter` rules, slippery cells, teleports, never
    /// pushing), then that move's rules; `stay` is always made, and with
    /// none it can make it stays. False when an effect leaves a counter's
    /// range: the step is then no step.
    fn by_themselves(&mut self) -> bool {
        let task = self.task;
        self.locate_next();
        let mut ok = true;
        'movers: for (i, m) in task.movers().iter().enumerate() {
            let Some((times, acts)) = m.script() else {
                continue;
            };
            for _ in 0..times {
                // Which conditions hold, from the table where there is
                // one (the state changes only once a move is made); else
                // each condition in turn, up to the first move made.
                let mut tried = Tried::Not;
                match self.choices[i]
                    .as_ref()
                    .map(|c| c.holding(task, &self.next))
                {
                    Some(mut holding) => {
                        while holding != 0 && matches!(tried, Tried::Not) {
                            let j = holding.trailing_zeros() as usize;
                            holding &= holding - 1;
                            tried = self.prefer(i, acts[j]);
                        }
                    }
                    None => {
                        for &a in acts {
                            if task.eval(task.action(a).guard(), &self.next) {
                                tried = self.prefer(i, a);
                                if !matches!(tried, Tried::Not) {
                                    break;
                                }
                            }
                        }
                    }
                }
                if matches!(tried, Tried::Fails) {
                    ok = false;
                    break 'movers;
                }
            }
        }
        // Each mover's cell as the state being expanded has it.
        self.locate();
        ok
    }

    /// Mover `i` that moves by itself makes its move `a`, whose condition
    /// holds, if it can: the move and then its rules.
    #[inline(always)]
    fn prefer(&mut self, i: usize, a: crate::task::ActionId) -> Tried {
        let task = self.task;
        let m = &task.movers()[i];
        if let Some((dir, slide)) = task.action(a).motion().shift() {
            let before = self.next[m.pos().ix()];
            match self.go_on(i, self.cells[i], dir, slide) {
                Some(went) => {
                    let mut at = went.at;
                    if let Some((other, q, _)) = went.through {
                        self.next[m.pos().ix()] = q as i64;
                        at = other;
                    }
                    // Pieces mark the cells they cover anew.
                    if self.pieces {
                        self.locate_next();
                    } else {
                        self.cells[i] = at;
                    }
                }
                // It moved, and a rule left a counter's range.
                None if self.next[m.pos().ix()] != before => return Tried::Fails,
                None => return Tried::Not,
            }
        }
        for &r in task.action(a).rules() {
            if !fire(task, r, &mut self.next) {
                return Tried::Fails;
            }
        }
        Tried::Made
    }
}

/// Fires rule `r` on `vals`: its effects if its condition holds. False if
/// an effect leaves a counter's range.
/// After a step and its rules: each mover of one cell that stands on a
/// cell that carries (`carry`), in mover order, is carried a cell its way
/// when it could step there (on the board, not solid, its entry condition
/// holding for that way, no other mover on it, in its domain), the cell's
/// `on enter` rules firing; round after round, until a round carries
/// none. Pieces are not carried. False when an effect leaves a counter's
/// range, or when the rounds go round a loop (a state after a round comes
/// again: found by Brent's method, with `snap` for the state kept), which
/// makes the step no step.
pub fn carry(task: &Task, vals: &mut [i64], snap: &mut Vec<i64>) -> bool {
    if !task.carries() {
        return true;
    }
    let b = task.board();
    let movers = task.movers();
    let cell = |vals: &[i64], m: &crate::task::Mover| m.domain().cell(vals[m.pos().ix()] as u32);
    // Brent's method from the state after the first round that carries
    // (a step with no one on a carrying cell copies nothing).
    let mut rounds = Brent::new();
    loop {
        let mut moved = false;
        for (i, m) in movers.iter().enumerate() {
            // A body moves behind its leader only.
            if m.is_piece() || m.follows().is_some() {
                continue;
            }
            let at = cell(vals, m);
            let Some(dir) = task.carry_way(b.class(at)) else {
                continue;
            };
            let Some(to) = b.step(at, dir) else { continue };
            let class = b.class(to);
            if b.classes()[class as usize].solid
                || !task.eval(task.entry_going(class, dir), vals)
                || (0..movers.len()).any(|j| j != i && task.covers(MoverId(j as u32), to, vals))
            {
                continue;
            }
            let Some(p) = m.position_from(to, vals) else {
                continue;
            };
            vals[m.pos().ix()] = p as i64;
            for &r in task.on_enter_going(MoverId(i as u32), class, dir) {
                if !fire(task, r, vals) {
                    return false;
                }
            }
            moved = true;
        }
        if !moved {
            return true;
        }
        // A round is a function of the state: a state seen again is a loop.
        if rounds.looped(&vals[..], snap) {
            return false;
        }
    }
}

/// Brent's method for finding a loop in a sequence of states each a
/// function of the one before (rounds of carrying): one state kept,
/// compared with each state after it, kept anew at powers of two.
pub(crate) struct Brent {
    power: u64,
    lam: u64,
    kept: bool,
}

impl Brent {
    pub(crate) fn new() -> Brent {
        Brent {
            power: 1,
            lam: 0,
            kept: false,
        }
    }

    /// After a round that led to `now`: whether `now` is the state kept
    /// in `kept`, which a loop has come back to; else `now` is kept when
    /// the method says so.
    #[inline(always)]
    pub(crate) fn looped<S: ?Sized + PartialEq + ToOwned>(
        &mut self,
        now: &S,
        kept: &mut S::Owned,
    ) -> bool {
        use std::borrow::Borrow;
        if !self.kept {
            now.clone_into(kept);
            self.kept = true;
            return false;
        }
        self.lam += 1;
        if now == (*kept).borrow() {
            return true;
        }
        if self.lam == self.power {
            now.clone_into(kept);
            self.power *= 2;
            self.lam = 0;
        }
        false
    }
}

fn fire(task: &Task, r: RuleId, vals: &mut [i64]) -> bool {
    let rule = task.rule(r);
    if !task.eval(&rule.cond, vals) {
        return true;
    }
    for e in &rule.effects {
        let var = task.var(e.var);
        let old = vals[e.var.ix()];
        let new = match e.op {
            Op::Set(v) => v,
            Op::Add(k) => old + k,
            Op::Toggle => 1 - old,
        };
        match var.normal(new) {
            Some(v) => vals[e.var.ix()] = v,
            None => return false,
        }
    }
    true
}

/// Applies the derived facts to a state: per mover, its `on` facts, then
/// its `sees` facts (along each ray in [`SIGHT`] order, nearest cell
/// first; an opaque mover on a cell hides it and what lies behind). False
/// if an effect leaves a counter's range.
pub fn settle(task: &Task, vals: &mut [i64]) -> bool {
    let b = task.board();
    let cell = |vals: &[i64], m: &crate::task::Mover| m.domain().cell(vals[m.pos().ix()] as u32);
    for (i, m) in task.movers().iter().enumerate() {
        for w in m.when() {
            let here = cell(vals, m);
            match w.relation {
                Relation::On => {
                    if let Some(r) = w.by_class[b.class(here) as usize]
                        && !fire(task, r, vals)
                    {
                        return false;
                    }
                }
                Relation::Sees => {
                    for d in SIGHT {
                        for c in b.sight_line(here, d) {
                            let blocked = task
                                .movers()
                                .iter()
                                .enumerate()
                                .any(|(j, o)| j != i && o.opaque() && cell(vals, o) == c);
                            if blocked {
                                break;
                            }
                            if let Some(r) = w.by_class[b.class(c) as usize]
                                && !fire(task, r, vals)
                            {
                                return false;
                            }
                        }
                    }
                }
            }
        }
    }
    // Headings of movers are in range by construction; counters by `fire`.
    debug_assert!(
        task.vars()
            .iter()
            .zip(vals.iter())
            .all(|(v, &x)| match v.kind() {
                VarKind::Counter { .. } | VarKind::Flag => v.normal(x) == Some(x),
                _ => true,
            })
    );
    true
}

/// The way from cell `from` to cell `to` on a straight line (a step, a
/// slide, a piece's move): the sign of each difference.
fn way(b: &crate::task::Board, from: u32, to: u32) -> Dir {
    let ((fr, fc), (tr, tc)) = (b.coords(from), b.coords(to));
    Dir {
        dr: (tr - fr).signum() as i8,
        dc: (tc - fc).signum() as i8,
    }
}
