//! The clock: where conditions read the time (`steps % 2 == 0`, `steps <
//! 10`), the state keeps it, in as few values as keep every such condition
//! exact. Each compared difference is `a * t + g(t)` with `g` periodic of
//! period `p` and bounded (worked out with this map's numbers); where `a`
//! is 0 the comparison is periodic in `t`, else its sign is fixed from the
//! time `a * t` outweighs `g` on. So with `from` the latest such time and
//! `period` the least common multiple of the periods, the time `t` can be
//! kept as `t` below `from + period` and as `from + (t - from) % period`
//! after: every comparison is the same at both. A `limit steps` bounds the
//! time outright, which serves where that is smaller or the shape is
//! another.

use super::*;
use crate::ast::{BinOp, CmpOp};
use crate::resolve::TimeRead;

/// The most values a clock may take.
pub const MAX_CLOCK: u64 = 1 << 20;

/// `a * t + g(t)`, `g` of period `p`, `lo <= g <= hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Form {
    a: i64,
    p: u64,
    lo: i64,
    hi: i64,
}

impl Form {
    fn constant(c: i64) -> Form {
        Form {
            a: 0,
            p: 1,
            lo: c,
            hi: c,
        }
    }

    fn value(self) -> Option<i64> {
        (self.a == 0 && self.lo == self.hi).then_some(self.lo)
    }

    fn neg(self) -> Option<Form> {
        Some(Form {
            a: self.a.checked_neg()?,
            p: self.p,
            lo: self.hi.checked_neg()?,
            hi: self.lo.checked_neg()?,
        })
    }

    fn add(self, o: Form) -> Option<Form> {
        Some(Form {
            a: self.a.checked_add(o.a)?,
            p: lcm(self.p, o.p)?,
            lo: self.lo.checked_add(o.lo)?,
            hi: self.hi.checked_add(o.hi)?,
        })
    }

    fn mul(self, o: Form) -> Option<Form> {
        if let Some(k) = o.value() {
            let (x, y) = (self.lo.checked_mul(k)?, self.hi.checked_mul(k)?);
            return Some(Form {
                a: self.a.checked_mul(k)?,
                p: self.p,
                lo: x.min(y),
                hi: x.max(y),
            });
        }
        if self.value().is_some() {
            return o.mul(self);
        }
        if self.a != 0 || o.a != 0 {
            return None;
        }
        let c = [
            self.lo.checked_mul(o.lo)?,
            self.lo.checked_mul(o.hi)?,
            self.hi.checked_mul(o.lo)?,
            self.hi.checked_mul(o.hi)?,
        ];
        Some(Form {
            a: 0,
            p: lcm(self.p, o.p)?,
            lo: *c.iter().min()?,
            hi: *c.iter().max()?,
        })
    }

    /// By a positive modulus `m` (Euclidean: from 0 to `m - 1`).
    fn rem(self, m: i64) -> Option<Form> {
        Some(Form {
            a: 0,
            p: lcm(self.p, m as u64)?,
            lo: 0,
            hi: m - 1,
        })
    }

    /// By a nonzero divisor `m` (Euclidean), of a periodic form.
    fn div(self, m: i64) -> Option<Form> {
        if self.a != 0 {
            return None;
        }
        let (x, y) = (self.lo.div_euclid(m), self.hi.div_euclid(m));
        Some(Form {
            a: 0,
            p: self.p,
            lo: x.min(y),
            hi: x.max(y),
        })
    }

    /// From when on the sign of `self` is fixed or periodic, and its
    /// period from then.
    fn settles(self) -> Option<(u64, u64)> {
        let t = match self.a {
            0 => return Some((0, self.p)),
            // a * t + lo > 0 for every t past -lo / a.
            a if a > 0 => (-self.lo).div_euclid(a).checked_add(1)?,
            a => self.hi.div_euclid(a.checked_neg()?).checked_add(1)?,
        };
        Some((t.max(0) as u64, 1))
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> Option<u64> {
    (a / gcd(a, b)).checked_mul(b)
}

/// The form of `n` with this map's numbers (`range` gives each field's
/// least and largest on the map); `None` when it has none of the shape
/// above, or the arithmetic fails.
fn form(n: &Num, env: &NumEnv<'_>, range: &dyn Fn(usize) -> (i64, i64)) -> Option<Form> {
    let form = |n| form(n, env, range);
    Some(match n {
        Num::Steps => Form {
            a: 1,
            p: 1,
            lo: 0,
            hi: 0,
        },
        // A field's number is the same at every time, on each cell.
        Num::FieldAt(f, _) => {
            let (lo, hi) = range(*f);
            Form { a: 0, p: 1, lo, hi }
        }
        Num::Neg(e) => form(e)?.neg()?,
        Num::Bin(a, op, b) => {
            let (a, b) = (form(a)?, form(b)?);
            match op {
                BinOp::Add => a.add(b)?,
                BinOp::Sub => a.add(b.neg()?)?,
                BinOp::Mul => a.mul(b)?,
                BinOp::Rem => match b.value()? {
                    m if m > 0 => a.rem(m)?,
                    _ => return None,
                },
                BinOp::Div => match b.value()? {
                    0 => return None,
                    m => a.div(m)?,
                },
            }
        }
        n => Form::constant(n.eval(env)?),
    })
}

pub(super) fn holds(op: CmpOp, a: i64, b: i64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

impl Grounder<'_> {
    /// `f` of the numbers of this map, with the time `steps`.
    fn with_env<R>(&self, steps: Option<i64>, f: impl FnOnce(&NumEnv<'_>) -> R) -> R {
        self.with_fields(steps, &|_| None, f)
    }

    /// `f` of the numbers of this map, with the time `steps` and the
    /// fields' numbers `field` gives.
    fn with_fields<R>(
        &self,
        steps: Option<i64>,
        field: &dyn Fn(usize) -> Option<i64>,
        f: impl FnOnce(&NumEnv<'_>) -> R,
    ) -> R {
        let counts = &self.tile_count;
        f(&NumEnv {
            field,
            parts: &[],
            header: &self.case.header,
            count: &|t| counts[t.ix()],
            case: self.case.number as i64,
            cost: None,
            steps,
        })
    }

    /// The largest number of steps a limit allows, if the limit bounds
    /// steps.
    fn most_steps(&mut self) -> Option<u64> {
        let l = self.rules.limit.as_ref()?;
        if l.measure != crate::ast::Measure::Steps {
            return None;
        }
        let bound = self.num(&l.bound, "the limit");
        u64::try_from(bound - i64::from(l.strict)).ok()
    }

    /// The clock this map needs: `(from, period)`, or `None` when no
    /// condition reads the time.
    fn clock_shape(&mut self) -> Option<(u64, u64)> {
        let reads: Vec<&TimeRead> = self
            .rules
            .times
            .iter()
            .filter(|t| t.reads_steps())
            .collect();
        // A turning beam turns a quarter a step: it repeats every 4.
        let turning = self.rules.beams.iter().any(|b| b.turning && b.read);
        if reads.is_empty() && !turning {
            return None;
        }
        let mut settled = Some((0u64, if turning { 4 } else { 1 }));
        for t in &reads {
            let range = |f| self.field_range(f);
            let d = self.with_env(None, |env| {
                let (l, r) = (form(&t.lhs, env, &range)?, form(&t.rhs, env, &range)?);
                l.add(r.neg()?)?.settles()
            });
            settled = settled
                .zip(d)
                .and_then(|((f, p), (g, q))| Some((f.max(g), lcm(p, q)?)));
        }
        let exact = self.most_steps().map(|m| (m.saturating_add(1), 1u64));
        let size = |s: Option<(u64, u64)>| s.map_or(u64::MAX, |(f, p)| f.saturating_add(p));
        let best = if size(exact) < size(settled) {
            exact
        } else {
            settled
        };
        if size(best) > MAX_CLOCK {
            let e = case_error(
                self.case,
                format!(
                    "case {} would keep the time in more than {MAX_CLOCK} values",
                    self.case.number
                ),
                "the conditions that read `steps` repeat only after that long: read it \
                 through a smaller `% N`, or bound it with `limit steps <= N`"
                    .into(),
            );
            self.errors.push(e);
            return Some((0, 1));
        }
        best
    }

    /// The `size` values of the clock where comparison `t` holds (bit `v %
    /// 64` of word `v / 64`), its fields' numbers from `field`; reported
    /// (and `Err`) at a time it cannot be worked out.
    pub(super) fn times_where(
        &mut self,
        t: &TimeRead,
        size: u64,
        field: &dyn Fn(usize) -> Option<i64>,
    ) -> Result<Vec<u64>, ()> {
        let mut set = vec![0u64; size.div_ceil(64) as usize];
        // Where the difference of the sides is `k * steps + m` with this
        // map's numbers (a fire against the time: its form, `g` constant),
        // it is worked out once, not each side at each time.
        let exact = |f: usize| field(f).map_or((i64::MIN, i64::MAX), |v| (v, v));
        let diff = self.with_fields(None, field, |env| {
            form(&t.lhs, env, &exact)?.add(form(&t.rhs, env, &exact)?.neg()?)
        });
        if let Some(Form { a: k, p: 1, lo: m, hi }) = diff
            && hi == m
            // Monotone in the steps: within range at both ends, within
            // range between them.
            && [0, size.saturating_sub(1) as i64]
                .iter()
                .all(|&v| k.checked_mul(v).and_then(|x| x.checked_add(m)).is_some())
        {
            for v in 0..size {
                if holds(t.op, k * v as i64 + m, 0) {
                    set[v as usize / 64] |= 1 << (v % 64);
                }
            }
            return Ok(set);
        }
        for v in 0..size {
            let both = self.with_fields(Some(v as i64), field, |env| {
                t.lhs.eval(env).zip(t.rhs.eval(env))
            });
            match both {
                Some((a, b)) if holds(t.op, a, b) => set[v as usize / 64] |= 1 << (v % 64),
                Some(_) => {}
                None => {
                    let e = case_error(
                        self.case,
                        format!(
                            "a comparison cannot be worked out for case {}",
                            self.case.number
                        ),
                        format!(
                            "at time {v} it divides by zero or overflows with this case's \
                             numbers{}",
                            if t.at.is_some() {
                                " and its fields'"
                            } else {
                                ""
                            }
                        ),
                    );
                    self.errors.push(e);
                    return Err(());
                }
            }
        }
        Ok(set)
    }

    /// Makes the clock, where a condition reads the time, and works out
    /// every comparison of numbers: a set of the clock's values, or a
    /// constant.
    pub(super) fn clock(&mut self) {
        let shape = self.clock_shape();
        let clock = shape.map(|(from, period)| {
            let kind = VarKind::Clock {
                from: from as u32,
                period: period as u32,
            };
            self.var("steps".into(), kind, from + period)
        });
        let size = shape.map_or(1, |(f, p)| f + p);
        let mut out = Vec::new();
        for i in 0..self.rules.times.len() {
            let t = &self.rules.times[i];
            if t.at.is_some() {
                // Read at an agent's cell: grounded where it is used, on
                // the agent's positions ([`Grounder::field_read`]).
                out.push(Expr::Const(false));
                continue;
            }
            let Ok(set) = self.times_where(t, size, &|_| None) else {
                out.push(Expr::Const(false));
                continue;
            };
            let ones: u64 = set.iter().map(|w| u64::from(w.count_ones())).sum();
            out.push(match (clock, ones) {
                (_, 0) => Expr::Const(false),
                (_, n) if n == size => Expr::Const(true),
                (Some(c), _) => Expr::In(c, set),
                (None, _) => Expr::Const(true),
            });
        }
        self.times = out;
        self.clock_var = clock;
    }
}

impl Grounder<'_> {
    /// The cells of beam `b`'s tile, in order: one pass over the board
    /// for all of the beam's turns.
    fn beam_sources(&self, b: &crate::resolve::Beam) -> Vec<u32> {
        let board = &self.board;
        let source: Vec<bool> = (board.classes.iter())
            .map(|k| self.class_matches(k, b.tile, b.value))
            .collect();
        (board.class.iter().enumerate())
            .filter(|&(_, &k)| source[k as usize])
            .map(|(cell, _)| cell as u32)
            .collect()
    }

    /// The cells (of the board) beam `b` lights after `turns` quarter turns
    /// clockwise: from each cell of its tile (`sources`), the cells along
    /// its way up to the first solid or opaque one, or the board's edge.
    fn lit(&self, b: &crate::resolve::Beam, sources: &[u32], turns: u32) -> Vec<bool> {
        let board = &self.board;
        let mut lit = vec![false; board.class.len()];
        for &cell in sources {
            let k = &board.classes[board.class(cell) as usize];
            let Some(mut d) = self.way_of(b.way, k) else {
                continue;
            };
            for _ in 0..turns % 4 {
                d = Dir {
                    dr: d.dc,
                    dc: -d.dr,
                };
            }
            let mut at = cell;
            while let Some(next) = board.shifted(at, (i32::from(d.dr), i32::from(d.dc))) {
                let k = &board.classes[board.class(next) as usize];
                if k.solid || k.opaque {
                    break;
                }
                lit[next as usize] = true;
                at = next;
            }
        }
        lit
    }

    /// `AGENT in BEAM`: the agent's positions that a beam lights, per
    /// value of the clock where it turns.
    pub(super) fn in_beam(&mut self, agent: AgentId, beam: usize) -> Expr {
        let Some(i) = (0..self.instances.len()).find(|&j| self.instances[j].agent == agent) else {
            // An optional agent absent from this map is in no beam.
            return Expr::Const(false);
        };
        let b = &self.rules.beams[beam];
        let (Some(c), true) = (self.clock_var, b.turning) else {
            let lit = self.lit(b, &self.beam_sources(b), 0);
            return self.at_cells(i, |cell| lit[cell as usize]);
        };
        let size = self.vars[c.ix()].size();
        let sources = self.beam_sources(b);
        let parts = (0..4u32.min(size as u32))
            .map(|r| {
                let lit = self.lit(b, &sources, r);
                let mut set = vec![0u64; size.div_ceil(64) as usize];
                for v in (r as u64..size).step_by(4) {
                    set[v as usize / 64] |= 1 << (v % 64);
                }
                Expr::and(vec![
                    Expr::In(c, set),
                    self.at_cells(i, |cell| lit[cell as usize]),
                ])
            })
            .collect();
        Expr::or(parts)
    }
}

impl TimeRead {
    fn reads_steps(&self) -> bool {
        self.lhs.reads_steps() || self.rhs.reads_steps()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Num {
        Num::Steps
    }
    fn bin(a: Num, op: BinOp, b: Num) -> Num {
        Num::Bin(Box::new(a), op, Box::new(b))
    }
    fn lit(v: i64) -> Num {
        Num::Lit(v)
    }
    /// Numbers read on no map: case 1, no header, no field, no time.
    fn no_map() -> NumEnv<'static> {
        NumEnv {
            field: &|_| None,
            parts: &[],
            header: &[],
            count: &|_| 0,
            case: 1,
            cost: None,
            steps: None,
        }
    }

    /// The shape claimed is checked against the truth of the comparison
    /// at every time up to far past it: kept at `from + (t - from) %
    /// period`, every comparison reads the same as at `t`.
    #[test]
    fn the_clock_keeps_every_comparison_exact() {
        let env = no_map();
        let cases = [
            bin(steps(), BinOp::Rem, lit(3)),
            bin(bin(steps(), BinOp::Add, lit(7)), BinOp::Rem, lit(4)),
            bin(steps(), BinOp::Sub, lit(10)),
            bin(lit(5), BinOp::Sub, bin(steps(), BinOp::Mul, lit(2))),
            bin(
                bin(steps(), BinOp::Mul, lit(3)),
                BinOp::Add,
                bin(steps(), BinOp::Rem, lit(5)),
            ),
            bin(bin(steps(), BinOp::Rem, lit(6)), BinOp::Div, lit(2)),
            Num::Neg(Box::new(bin(steps(), BinOp::Rem, lit(2)))),
        ];
        for n in &cases {
            for k in -3..12 {
                let f = form(n, &env, &|_| (0, 0)).expect("a settling shape");
                let d = f.add(Form::constant(-k)).expect("no overflow");
                let (from, period) = d.settles().expect("settles");
                let at = |t: i64| {
                    let e = NumEnv {
                        field: &|_| None,
                        steps: Some(t),
                        ..env
                    };
                    n.eval(&e).unwrap()
                };
                for t in 0..200i64 {
                    let kept = if (t as u64) < from + period {
                        t
                    } else {
                        from as i64 + (t - from as i64) % period as i64
                    };
                    for op in [CmpOp::Lt, CmpOp::Eq, CmpOp::Gt] {
                        assert_eq!(
                            holds(op, at(t), k),
                            holds(op, at(kept), k),
                            "{n:?} {op:?} {k} at {t} (kept {kept})"
                        );
                    }
                }
            }
        }
        // Shapes that never repeat have no form.
        let none = |_| (0, 0);
        assert!(form(&bin(steps(), BinOp::Mul, steps()), &env, &none).is_none());
        assert!(form(&bin(steps(), BinOp::Div, lit(2)), &env, &none).is_none());
    }

    /// Where a form has period 1 and `lo == hi` (no remainder of the time
    /// in it), it is the value exactly: `a * t + lo` at every time, as
    /// `times_where` reads it without evaluating each time.
    #[test]
    fn a_form_of_period_one_and_no_spread_is_the_value() {
        use rand::{Rng, SeedableRng, rngs::SmallRng};
        fn tree(rng: &mut SmallRng, depth: u32) -> Num {
            match rng.gen_range(0..if depth == 0 { 2 } else { 9 }) {
                0 => steps(),
                1 => lit(rng.gen_range(-9..10)),
                2 => Num::Neg(Box::new(tree(rng, depth - 1))),
                3 => bin(tree(rng, depth - 1), BinOp::Add, tree(rng, depth - 1)),
                4 => bin(tree(rng, depth - 1), BinOp::Sub, tree(rng, depth - 1)),
                5 | 6 => bin(tree(rng, depth - 1), BinOp::Mul, tree(rng, depth - 1)),
                7 => bin(tree(rng, depth - 1), BinOp::Div, lit(rng.gen_range(1..5))),
                _ => bin(tree(rng, depth - 1), BinOp::Rem, lit(rng.gen_range(1..5))),
            }
        }
        let env = no_map();
        let mut rng = SmallRng::seed_from_u64(11);
        let mut exact = 0;
        for _ in 0..3000 {
            let n = tree(&mut rng, 3);
            let Some(Form { a, p: 1, lo, hi }) = form(&n, &env, &|_| (0, 0)) else {
                continue;
            };
            if lo != hi {
                continue;
            }
            exact += 1;
            for t in 0..50i64 {
                let e = NumEnv {
                    field: &|_| None,
                    steps: Some(t),
                    ..env
                };
                assert_eq!(n.eval(&e), Some(a * t + lo), "{n:?} at {t}");
            }
        }
        assert!(exact > 500, "too few exact forms: {exact}");
    }
}
