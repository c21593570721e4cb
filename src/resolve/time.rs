//! The time in conditions: `steps % 2 == 0`, `steps < 10`. A comparison of
//! numbers is resolved here, and whether the state can hold the time in
//! finitely many values is decided on its shape: where every read of
//! `steps` is under a `% N` or in a sum whose sign settles, its truth is
//! periodic from some time on (the grounding works out when, per map);
//! anything else needs a `limit steps`.

use super::*;

/// How a number depends on the time, `t` (read on its form alone; the
/// values of header fields and counts come with the map).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// It does not read the time.
    Constant,
    /// Periodic in `t`.
    Periodic,
    /// `a * t` plus something periodic, for a whole `a`.
    Linear,
    /// Anything else (`steps * steps`, `steps / 2`, `5 % steps`).
    Other,
}

impl Num {
    /// Whether it reads the time.
    pub fn reads_steps(&self) -> bool {
        self.time_shape() != Shape::Constant
    }

    /// The fields it reads and the agents it reads them at, in order
    /// (repeats included).
    pub fn field_reads(&self, out: &mut Vec<(usize, AgentId)>) {
        match self {
            Num::FieldAt(f, a) => out.push((*f, *a)),
            Num::Neg(e) => e.field_reads(out),
            Num::Bin(a, _, b) => {
                a.field_reads(out);
                b.field_reads(out);
            }
            _ => {}
        }
    }

    /// How it depends on the time.
    pub fn time_shape(&self) -> Shape {
        use Shape::*;
        match self {
            Num::Steps => Linear,
            Num::Neg(e) => e.time_shape(),
            Num::Bin(a, op, b) => {
                let (a, b) = (a.time_shape(), b.time_shape());
                match op {
                    BinOp::Add | BinOp::Sub => a.max(b),
                    BinOp::Mul if a == Constant || b == Constant => a.max(b),
                    BinOp::Mul if a.max(b) == Periodic => Periodic,
                    BinOp::Rem if b == Constant && a <= Linear => a.min(Periodic),
                    BinOp::Div if b == Constant && a <= Periodic => a,
                    _ => Other,
                }
            }
            _ => Constant,
        }
    }
}

impl Resolver {
    /// A name in a number that may read the time: `steps`, or (when it is
    /// no such name) the names to suggest besides the header's.
    pub(super) fn time_name(&mut self, f: &Ident) -> Result<Option<Num>, Vec<&'static str>> {
        match f.name.as_str() {
            "steps" => Ok(Some(Num::Steps)),
            "cost" => {
                self.invalid(
                    Topic::Time,
                    "the cost so far cannot be read in a condition".into(),
                    f.span,
                    "not a number of the state",
                    "read the time, `steps` (the steps taken so far), or count what costs in a \
                     counter"
                        .into(),
                );
                Ok(None)
            }
            name => {
                if let Some((Def::State(s), _)) = self.names.get(name)
                    && self.is_counter(*s)
                {
                    self.invalid(
                        Topic::Comparison,
                        format!("`{name}` is a counter: it is compared alone"),
                        f.span,
                        "a counter in arithmetic",
                        format!(
                            "compare the counter with a number, `{name} > 2`; a counter is \
                             not added to other numbers or the time"
                        ),
                    );
                    return Ok(None);
                }
                Err(vec!["steps"])
            }
        }
    }

    /// `steps % 2 == 0`, `count(TILE) > 2`: two numbers compared.
    pub(super) fn numbers(
        &mut self,
        lhs: &IntExpr,
        op: CmpOp,
        rhs: &IntExpr,
        span: Span,
    ) -> Option<Expr> {
        let l = self.num(lhs, Allow::Time, "a comparison");
        let r = self.num(rhs, Allow::Time, "a comparison");
        let (lhs, rhs) = (l?, r?);
        let settles = lhs.time_shape().max(rhs.time_shape()) < Shape::Other;
        let mut reads = Vec::new();
        lhs.field_reads(&mut reads);
        rhs.field_reads(&mut reads);
        let mut at: Vec<AgentId> = reads.iter().map(|r| r.1).collect();
        at.sort_by_key(|a| a.ix());
        at.dedup();
        if at.len() > 1 {
            self.invalid(
                Topic::Field,
                "this comparison reads fields at two agents".into(),
                span,
                "two agents' cells",
                "compare each agent's field with a number or the time, and join the \
                 comparisons with `and` or `or`"
                    .into(),
            );
            return None;
        }
        self.times.push(TimeRead {
            lhs,
            op,
            rhs,
            span,
            settles,
            at: at.first().copied(),
        });
        Some(Expr::Time(self.times.len() - 1))
    }

    /// A read of the time whose values never repeat needs a limit on the
    /// steps, or the state would grow without end.
    pub(super) fn time_checks(&mut self, limit: Option<&Limit>) {
        let bounded = limit.is_some_and(|l| l.measure == Measure::Steps);
        if bounded {
            return;
        }
        let loose: Vec<Span> = (self.times.iter())
            .filter(|t| !t.settles)
            .map(|t| t.span)
            .collect();
        for span in loose {
            self.invalid(
                Topic::Time,
                "this reads the time in a way that never repeats".into(),
                span,
                "the state would have to hold every time",
                "read the time through `% N` (`steps % 4 == 0`), compare it in a sum \
                 (`steps + 2 > count(TILE)`), or bound it: `limit steps <= N`"
                    .into(),
            );
        }
    }
}

impl Resolver {
    /// `beam NAME from PATTERN WAY [turning]`.
    pub(super) fn beam_decl(&mut self, b: &ast::BeamDecl) {
        self.bound_used = false;
        let Some((tile, value, scope)) = self.pattern(&b.pattern) else {
            return;
        };
        let way = match &b.way {
            ast::CarryWay::Dir(d, _) => {
                self.check_binding(&scope);
                CarryWay::Dir(*d)
            }
            ast::CarryWay::Var(v) => {
                // (Reported; the name is still known, for its readers.)
                self.direction_var(v, &scope, "beam NAME from TILE(?w) ?w");
                CarryWay::Bound
            }
        };
        if let Some(first) = self.beams.iter().find(|x| x.name == b.name.name) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a beam of this name",
                span: b.name.span,
                first,
            });
            return;
        }
        self.beams.push(Beam {
            name: b.name.name.clone(),
            tile,
            value,
            way,
            turning: b.turning,
            read: false,
            span: b.name.span,
        });
    }

    /// `AGENT in BEAM`: a single agent on a cell the beam lights.
    pub(super) fn in_beam(&mut self, who: &Ident, beam: &Ident) -> Option<Expr> {
        let agent = self.agent_in_pred(who);
        let b = self.beams.iter().position(|b| b.name == beam.name);
        if b.is_none() {
            let names = self.beams.iter().map(|b| b.name.as_str());
            let help = did_you_mean(&beam.name, names, "beams");
            self.invalid(
                Topic::Beam,
                format!("no beam is named `{}`", beam.name),
                beam.span,
                "not a beam",
                format!("{help} (declare one: `beam {} from TILE east`)", beam.name),
            );
        }
        let (agent, b) = (agent?, b?);
        self.beams[b].read = true;
        if self.agents[agent.ix()].several() {
            self.invalid(
                Topic::Beam,
                format!("`{}` has several members: `in` reads one agent", who.name),
                who.span,
                "not one agent",
                "name a single agent; a family's members are not tested in a beam".into(),
            );
            return None;
        }
        Some(Expr::InBeam(agent, b))
    }
}
