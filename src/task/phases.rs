//! A task that reads the time, seen one value of its clock at a time: at a
//! fixed time every condition that reads the clock is a constant, and what
//! is left is a task without the time, which a specialised kernel may run
//! (the kernel then sets the clock's next value on each successor). The
//! conditions read during a step (moves', `enter`, `on` rules) see the
//! time before it; `when` rules and `forbid` the time after.

use super::*;

/// The most values a clock may have for its task to be run a value at a
/// time (each is a copy of the task).
pub const MAX_PHASES: u64 = 16;

impl Expr {
    /// The expression with the clock `clock` at value `v` (less its
    /// smallest): every test of it a constant, folded.
    pub fn at_time(&self, clock: VarId, v: usize) -> Expr {
        match self {
            Expr::In(c, set) if *c == clock => Expr::Const(set[v / 64] >> (v % 64) & 1 == 1),
            Expr::AtTime {
                mover,
                clock: c,
                table,
                ..
            } if *c == clock => {
                // The positions where it holds at time `v`.
                let n = table.positions();
                let mut set = vec![0u64; n.div_ceil(64)];
                for p in 0..n {
                    set[p / 64] |= u64::from(table.holds(p, v)) << (p % 64);
                }
                Expr::At(*mover, set.into())
            }
            Expr::And(es) => Expr::and(es.iter().map(|e| e.at_time(clock, v)).collect()),
            Expr::Or(es) => Expr::or(es.iter().map(|e| e.at_time(clock, v)).collect()),
            Expr::Not(e) => Expr::not(e.at_time(clock, v)),
            e => e.clone(),
        }
    }

    /// Whether it reads the variable.
    pub fn reads_var(&self, var: VarId) -> bool {
        match self {
            Expr::In(v, _) | Expr::Cmp(v, _, _) => *v == var,
            Expr::AtTime { clock, .. } => *clock == var,
            Expr::And(es) | Expr::Or(es) => es.iter().any(|e| e.reads_var(var)),
            Expr::Not(e) => e.reads_var(var),
            _ => false,
        }
    }
}

impl Task {
    /// Per value of the clock, the task at that time (without a clock;
    /// its variables, and so its layout, the same), when the clock has at
    /// most [`MAX_PHASES`] values; else none. Made once, when first asked
    /// for.
    pub fn phases(&self) -> &[Task] {
        self.phases.get_or_init(|| {
            let Some(c) = self.clock else {
                return Vec::new();
            };
            let var = self.var(c);
            if var.size() > MAX_PHASES {
                return Vec::new();
            }
            // The copies share the board's and the domains' tables.
            for m in &self.movers {
                m.domain().cells();
            }
            (0..var.size() as i64)
                .map(|v| self.at_time(c, v, var.tick(v)))
                .collect()
        })
    }

    /// The task at time `now`, whose step ends at time `then`.
    fn at_time(&self, c: VarId, now: i64, then: i64) -> Task {
        let (now, then) = (now as usize, then as usize);
        let mut t = self.clone();
        t.clock = None;
        t.phases = Default::default();
        t.untimed = Default::default();
        // The rules fired after the tick: the derived facts.
        let mut after = vec![false; t.rules.len()];
        for m in &t.movers {
            for w in &m.when {
                for r in w.by_class.iter().flatten() {
                    after[r.ix()] = true;
                }
            }
        }
        for (r, late) in t.rules.iter_mut().zip(after) {
            r.cond = r.cond.at_time(c, if late { then } else { now });
            // A rule that cannot fire at this time does nothing.
            if r.cond == Expr::Const(false) {
                r.cond = Expr::Const(true);
                r.effects.clear();
            }
        }
        for a in &mut t.actions {
            a.guard = a.guard.at_time(c, now);
        }
        for e in &mut t.entry {
            *e = e.at_time(c, now);
        }
        for (_, es) in &mut t.entry_moving {
            for e in es {
                *e = e.at_time(c, now);
            }
        }
        t.forbid = t.forbid.at_time(c, then);
        t.goal = t.goal.at_time(c, then);
        t
    }
}

impl Task {
    /// The conditions a step is taken on: moves' conditions (`if`), and
    /// the `enter` conditions, for every way a cell is entered.
    fn step_conds(&self) -> impl Iterator<Item = &Expr> {
        let entries = (self.entry.iter()).chain(self.entry_moving.iter().flat_map(|(_, es)| es));
        (self.actions.iter().map(|a| &a.guard)).chain(entries)
    }

    /// Where the time is read by `forbid` and the goal only (a hazard that
    /// spreads with the time), and the clock keeps too many values for a
    /// task per value ([`Task::phases`] is empty): the task without the
    /// clock and without `forbid`'s parts that read it.
    /// Its successors are the task's, the clock set to its next value,
    /// less those where the whole `forbid` holds at that time: a step's
    /// moves and rules do not depend on the time, and `forbid` is a test
    /// of the state a step ends in. Made once, when first asked for.
    pub fn untimed(&self) -> Option<&Task> {
        self.untimed
            .get_or_init(|| {
                let c = self.clock?;
                let rules = self.rules.iter().map(|r| &r.cond);
                if !self.phases().is_empty()
                    || self.step_conds().chain(rules).any(|e| e.reads_var(c))
                {
                    return None;
                }
                let mut t = self.clone();
                t.clock = None;
                t.phases = Default::default();
                t.untimed = Default::default();
                // The parts that read the time are tested on each successor.
                t.forbid = match &self.forbid {
                    Expr::Or(es) => {
                        Expr::or(es.iter().filter(|e| !e.reads_var(c)).cloned().collect())
                    }
                    e if e.reads_var(c) => Expr::Const(false),
                    e => e.clone(),
                };
                // (The goal is tested on whole states, by the task's own.)
                t.goal = Expr::Const(false);
                Some(Box::new(t))
            })
            .as_deref()
    }
}

/// Whether the set of a clock's `n` values (bit `v % 64` of word `v /
/// 64`) only ever turns false as the time passes (a prefix), and whether
/// only ever true (a suffix).
pub fn set_trend(set: &[u64], n: usize) -> (bool, bool) {
    let has = |v: usize| set[v / 64] >> (v % 64) & 1 == 1;
    let first_off = (0..n).find(|&v| !has(v)).unwrap_or(n);
    let first_on = (0..n).find(|&v| has(v)).unwrap_or(n);
    ((first_off..n).all(|v| !has(v)), (first_on..n).all(has))
}

/// How a condition changes as the time passes, all else the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Trend {
    /// True at a time, true at every earlier one.
    falls: bool,
    /// True at a time, true at every later one.
    rises: bool,
}

impl Expr {
    /// How it changes with the clock `c` of `n` values (kept whole: its
    /// values are the times, up to the last, which stands for every later
    /// one).
    fn trend(&self, c: VarId, n: usize) -> Trend {
        let both = Trend {
            falls: true,
            rises: true,
        };
        match self {
            Expr::In(v, set) if *v == c => {
                let (falls, rises) = set_trend(set, n);
                Trend { falls, rises }
            }
            Expr::AtTime {
                clock,
                falls,
                rises,
                ..
            } if *clock == c => Trend {
                falls: *falls,
                rises: *rises,
            },
            Expr::And(es) | Expr::Or(es) => es.iter().fold(both, |t, e| {
                let u = e.trend(c, n);
                Trend {
                    falls: t.falls && u.falls,
                    rises: t.rises && u.rises,
                }
            }),
            Expr::Not(e) => {
                let u = e.trend(c, n);
                Trend {
                    falls: u.rises,
                    rises: u.falls,
                }
            }
            e if e.reads_var(c) => Trend {
                falls: false,
                rises: false,
            },
            _ => both,
        }
    }
}

impl Task {
    /// The clock, where arriving sooner never hurts: the clock keeps the
    /// time whole (no period), every step costs 1, no mover moves by
    /// itself on a condition of the time, no rule's condition reads it,
    /// and every condition that lets a step be taken (moves', `enter`),
    /// and the goal, only ever turns false as the time passes, while
    /// `forbid` only ever turns true. Then a state reached at a time is as
    /// good as the same state reached later: every way on from the later
    /// one is a way on from the earlier, step for step, to a goal as soon.
    /// A breadth-first search may keep each state once, at its earliest,
    /// whatever its clock.
    pub fn earliest_is_best(&self) -> Option<VarId> {
        let c = self.clock?;
        if !matches!(self.var(c).kind(), VarKind::Clock { period: 1, .. }) || !self.unit_costs() {
            return None;
        }
        let scripted = |a: &Action| self.movers[a.mover.ix()].script.is_some();
        if (self.actions.iter()).any(|a| scripted(a) && a.guard.reads_var(c))
            || self.rules.iter().any(|r| r.cond.reads_var(c))
        {
            return None;
        }
        let allows = self.step_conds().chain(std::iter::once(&self.goal));
        let n = self.var(c).size() as usize;
        for e in allows {
            if !e.trend(c, n).falls {
                return None;
            }
        }
        self.forbid.trend(c, n).rises.then_some(c)
    }
}
