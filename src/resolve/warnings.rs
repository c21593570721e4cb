//! The resolver's warnings on the legend: markers never used, symbols
//! that could be read two ways.

use super::*;

impl Resolver {
    /// Warnings for rules that can never matter.
    pub(super) fn legend_warnings(
        &mut self,
        enter: &[EnterRule],
        on: &[OnEnter],
        on_move: &[OnMove],
        when: &[When],
        goal: Option<&Expr>,
    ) {
        let mut set = vec![false; self.states.len()];
        let mut read = vec![false; self.states.len()];
        for a in on
            .iter()
            .flat_map(|o| &o.actions)
            .chain(on_move.iter().flat_map(|o| &o.actions))
            .chain(when.iter().flat_map(|w| &w.actions))
        {
            if a.op != ActOp::Clear {
                set[a.state.ix()] = true;
            }
            // A counter without `wrap` that an action adds to or subtracts
            // from is read by its range: a step that would take it out is
            // no step (a bag that holds three keys), so removing it changes
            // answers.
            if matches!(a.op, ActOp::Add(_) | ActOp::Sub(_))
                && matches!(
                    self.states[a.state.ix()].kind,
                    StateKind::Counter { wrap: false, .. }
                )
            {
                read[a.state.ix()] = true;
            }
        }
        let conds = on
            .iter()
            .filter_map(|o| o.cond.as_ref())
            .chain(on_move.iter().filter_map(|o| o.cond.as_ref()))
            .chain(when.iter().filter_map(|w| w.cond.as_ref()));
        for e in enter.iter().map(|r| &r.cond).chain(goal).chain(conds) {
            e.visit_states(&mut |f| read[f.ix()] = true);
        }
        for (i, f) in self.states.iter().enumerate() {
            let counter = matches!(f.kind, StateKind::Counter { .. });
            let kind = if counter { "counter" } else { "flag" };
            if read[i] && !set[i] && !counter {
                self.errors.push(RuleError::Never {
                    message: format!("{kind} `{}` is read but nothing sets it", f.name),
                    span: f.span,
                    label: "never set".into(),
                    help: format!("add a rule such as `on enter TILE: set {}`", f.name),
                });
            } else if !read[i] {
                self.errors.push(RuleError::Never {
                    message: format!("{kind} `{}` is never read", f.name),
                    span: f.span,
                    label: "no goal or rule uses it".into(),
                    help: "use it in the goal or an `enter` rule, or remove it".into(),
                });
            }
        }
        // A rule on a move no agent makes never fires.
        for o in on_move {
            let makes = |a: &Agent| a.moves.iter().any(|m| m.kind == o.kind);
            let any = match o.agent {
                Some(a) => makes(&self.agents[a.ix()]),
                None => self.agents.iter().any(makes),
            };
            if !any {
                self.errors.push(RuleError::Never {
                    message: format!("no agent makes the move `{}`", o.kind.name()),
                    span: o.span,
                    label: "this rule never fires".into(),
                    help: "add the move to a `move` rule, or remove this rule".into(),
                });
            }
        }
    }

    /// A part of `minimise` that no cost spends: every way has none of it,
    /// so it orders nothing. Most often the costs were left off the moves
    /// that should spend it, and those moves then spend 1 of the first
    /// part (`minimise pushes then walks` whose walks have no cost counts
    /// them as pushes): an answer that is not the one meant, so it is said.
    pub(super) fn parts_warnings(&mut self, enter_costs: &[CostRule]) {
        let moves = self.agents.iter().flat_map(|a| &a.moves).map(|m| &m.cost);
        let pushes = self.agents.iter().filter_map(|a| a.push_cost.as_ref());
        let cells = enter_costs.iter().map(|r| &r.cost);
        let mut spent = vec![false; self.parts.len()];
        for price in moves.chain(pushes).chain(cells) {
            for (s, n) in spent.iter_mut().zip(&price.0) {
                *s |= n.constant() != Some(0);
            }
        }
        let never: Vec<usize> = (0..spent.len()).filter(|&i| !spent[i]).collect();
        for i in never {
            let (name, first) = (self.parts[i].clone(), self.parts[0].clone());
            self.errors.push(RuleError::Never {
                message: format!("no cost spends `{name}`"),
                span: self.part_spans[i],
                label: "never spent".into(),
                help: format!(
                    "every way has 0 `{name}`: give the steps that spend it their cost \
                     (`north costs 1 {name}`); a move with no cost spends 1 `{first}`"
                ),
            });
        }
    }
}
