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
                times,
                bits,
            } if *c == clock => {
                // The positions where it holds at time `v`.
                let n = bits.len() * 64 / times;
                let mut set = vec![0u64; n.div_ceil(64)];
                for p in 0..n {
                    set[p / 64] |= u64::from(table_bit(bits, p * times + v)) << (p % 64);
                }
                Expr::At(*mover, set)
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
