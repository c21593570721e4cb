//! The task put together: rules per class of cell, entry conditions,
//! the pushes to the goal, the start states.

use super::*;

impl Grounder<'_> {
    pub(super) fn finish(mut self) -> (Task, Vec<InputError>) {
        let rules = self.rules;
        let nclasses = self.board.classes.len();
        let present = self.board.present.clone();
        // Entry conditions; where one reads `moving`, one set per
        // direction, and as the plain entry their union (a cell closed
        // whichever way it is entered is closed).
        let mut entry = self.entries(&present);
        let mut entry_moving = Vec::new();
        let (carry, carried_cells) = self.carry();
        // The ways a step goes: every offset some agent moves by (a jump
        // of two north is `moving north`; a knight's jump no compass way),
        // and the ways tiles carry.
        let ways = (rules.agents.iter().flat_map(agent_dirs))
            .chain(carry.iter().flatten().copied())
            .fold(Vec::new(), |mut v, d| {
                if !v.contains(&d) {
                    v.push(d);
                }
                v
            });
        if rules.enter_rules.iter().any(|r| r.cond.reads_moving()) {
            for &d in &ways {
                self.moving = Some(d);
                entry_moving.push((d, self.entries(&present)));
            }
            self.moving = None;
            entry = (0..nclasses)
                .map(|k| Expr::or(entry_moving.iter().map(|(_, e)| e[k].clone()).collect()))
                .collect();
        }
        let enter_cost = self.enter_costs(&present);
        // Rules fired on entering: grounded per class present on the map;
        // where one reads `moving`, one set per direction of a step.
        let mut on_enter = self.on_enter_rules(&present);
        let mut on_enter_moving = Vec::new();
        if rules
            .on_enter
            .iter()
            .any(|r| r.cond.as_ref().is_some_and(|c| c.reads_moving()))
        {
            for &d in &ways {
                self.moving = Some(d);
                on_enter_moving.push((d, self.on_enter_rules(&present)));
            }
            self.moving = None;
            // Without a way (no step enters): none of the rules that read
            // one fire.
            on_enter = vec![Vec::new(); self.movers.len() * nclasses];
        }
        self.move_rules();
        self.derived_facts(&present);
        self.board.cells_of = self.ruled_cells(&on_enter, &on_enter_moving);
        let (goal, limit) = self.goal_and_limit();
        let goal_parts = (rules.goal_parts.iter())
            .map(|e| self.expr(e, None))
            .collect();
        // Carried, an object needs no pushes to get somewhere: no bound.
        if rules.carries.is_empty() {
            self.pushes_to_goal(&goal);
        }
        let forbid = rules.forbid.iter().map(|e| self.expr(e, None)).collect();
        let forbid = Expr::or(forbid);
        let starts = self.starts();
        let parts = (!rules.parts.is_empty())
            .then(|| Parts::new(rules.parts.clone(), std::mem::take(&mut self.prices)));
        let task = Task {
            parts,
            board: self.board,
            vars: self.vars,
            movers: self.movers,
            actions: self.actions,
            rules: self.task_rules,
            entry,
            entry_moving,
            carry,
            carried_cells,
            enter_cost,
            on_enter,
            on_enter_moving,
            mode: match rules.mode {
                crate::ast::Mode::InTurn => Mode::InTurn,
                crate::ast::Mode::AtOnce => Mode::AtOnce,
                crate::ast::Mode::Together => Mode::Together,
                // Only movers move by themselves: never the rules' mode.
                crate::ast::Mode::ByItself => Mode::InTurn,
            },
            // Pieces are rigid bodies: no mover covers a cell another
            // covers, even where every piece of a map is one cell (then no
            // mover has a shape to tell the kernels so).
            forbid_same_cell: rules.forbid_same_cell
                || rules.agents.iter().any(|a| a.piece.is_some()),
            forbid_swap: rules.forbid_swap,
            forbid,
            coords: Vec::new(),
            coord_at: Vec::new(),
            starts,
            goal,
            goal_parts,
            limit,
            clock: self.clock_var,
            fields: std::mem::take(&mut self.field_summaries),
            phases: Default::default(),
            untimed: Default::default(),
        }
        .with_coords();
        (task, self.errors)
    }

    /// The cells of each class a rule fires on (on entering, or a
    /// mover's `when`), found in one pass; none where no rule fires.
    fn ruled_cells(
        &self,
        on_enter: &[Vec<RuleId>],
        on_enter_moving: &[(Dir, Vec<Vec<RuleId>>)],
    ) -> Vec<Vec<u32>> {
        let nclasses = self.board.classes.len();
        let mut ruled = vec![false; nclasses];
        for lists in std::iter::once(on_enter).chain(on_enter_moving.iter().map(|(_, l)| &l[..])) {
            for (i, slot) in lists.iter().enumerate() {
                ruled[i % nclasses] |= !slot.is_empty();
            }
        }
        for w in self.movers.iter().flat_map(|m| &m.when) {
            for (k, r) in w.by_class.iter().enumerate() {
                ruled[k] |= r.is_some();
            }
        }
        let mut cells_of = vec![Vec::new(); nclasses];
        if ruled.iter().any(|&r| r) {
            for (c, &k) in self.board.class.iter().enumerate() {
                if ruled[k as usize] {
                    cells_of[k as usize].push(c as u32);
                }
            }
        }
        cells_of
    }

    /// The way a `carry` or `beam` rule goes from a cell of class `k`: its
    /// own, or the direction the class's value names.
    pub(super) fn way_of(&self, way: resolve::CarryWay, k: &Class) -> Option<Dir> {
        match way {
            resolve::CarryWay::Dir(d) => Some(Dir::of(d)),
            resolve::CarryWay::Bound => {
                let rules = self.rules;
                let d = rules.tiles[k.tile.ix()].domain?;
                let word = &rules.domains[d.ix()].values[k.value? as usize];
                crate::ast::Dir::named(word).map(Dir::of)
            }
        }
    }

    /// What `carry` rules carry a mover on a cell of each class, if any
    /// (empty without them), and how many cells carry.
    fn carry(&self) -> (Vec<Option<Dir>>, u64) {
        let rules = self.rules;
        let carry: Vec<Option<Dir>> = if rules.carries.is_empty() {
            Vec::new()
        } else {
            (self.board.classes.iter())
                .map(|k| {
                    let c = rules
                        .carries
                        .iter()
                        .find(|c| self.class_matches(k, c.tile, c.value))?;
                    self.way_of(c.way, k)
                })
                .collect()
        };
        let carried_cells = if carry.iter().any(Option::is_some) {
            (self.board.class.iter())
                .filter(|&&k| carry[k as usize].is_some())
                .count() as u64
        } else {
            0
        };
        (carry, carried_cells)
    }

    /// What entering a cell of each class costs: the largest cost of the
    /// rules that match it, if any does.
    fn enter_costs(&mut self, present: &[bool]) -> Vec<Option<u32>> {
        let rules = self.rules;
        let nclasses = present.len();
        let mut enter_cost = vec![None; nclasses];
        for (k, slot) in enter_cost
            .iter_mut()
            .enumerate()
            .filter(|(k, _)| present[*k])
        {
            let class = self.board.classes[k];
            for r in &rules.enter_costs {
                if self.class_matches(&class, r.tile, r.value) {
                    let what = format!("entering `{}`", rules.tiles[class.tile.ix()].name);
                    let c = self.cost(&r.cost, &what);
                    *slot = Some(slot.map_or(c, |old: u32| old.max(c)));
                }
            }
        }
        enter_cost
    }

    /// Moves' conditions, and rules fired by moves: read with the mover
    /// and the way its move goes.
    fn move_rules(&mut self) {
        let rules = self.rules;
        for a in 0..self.actions.len() {
            let i = self.actions[a].mover.ix();
            let agent = self.instances[i].agent;
            let kind = self.action_kinds[a];
            let guard = rules.agents[agent.ix()]
                .moves
                .iter()
                .find(|m| m.kind == kind)
                .and_then(|m| m.guard.as_ref());
            if let Some(g) = guard {
                self.actions[a].guard = self.per_way(a, &mut |me| me.expr(g, None));
            }
            for r in &rules.on_move {
                if r.agent.is_none_or(|x| x == agent) && r.kind == kind {
                    let cond = match &r.cond {
                        Some(c) => self.per_way(a, &mut |me| me.expr(c, None)),
                        None => Expr::Const(true),
                    };
                    let effects = self.effects(&r.actions, None);
                    let id = self.rule(Rule { cond, effects });
                    self.actions[a].rules.push(id);
                }
            }
        }
    }

    /// Derived facts: per mover, its `on` rules, then its `sees` rules,
    /// per class present.
    fn derived_facts(&mut self, present: &[bool]) {
        let rules = self.rules;
        let nclasses = present.len();
        for i in 0..self.instances.len() {
            let agent = self.instances[i].agent;
            for relation in [Relation::On, Relation::Sees] {
                let rel = match relation {
                    Relation::On => crate::ast::Relation::On,
                    Relation::Sees => crate::ast::Relation::Sees,
                };
                for w in rules
                    .when
                    .iter()
                    .filter(|w| w.agent == agent && w.relation == rel)
                {
                    let mut by_class = vec![None; nclasses];
                    for k in (0..nclasses).filter(|&k| present[k]) {
                        let class = self.board.classes[k];
                        if self.class_matches(&class, w.tile, w.value) {
                            by_class[k] = Some(self.ground_rule(&w.cond, &w.actions, Some(&class)));
                        }
                    }
                    self.movers[i].when.push(When { relation, by_class });
                }
            }
        }
    }

    /// The goal, and the limit (a limit below 0 leaves no goal).
    fn goal_and_limit(&mut self) -> (Expr, Option<Limit>) {
        let rules = self.rules;
        let mut goal = self.expr(&rules.goal, None);
        let limit = rules.limit.as_ref().map(|l| {
            let max = self
                .num(&l.bound, "the limit")
                .saturating_sub(i64::from(l.strict));
            if max < 0 {
                // No answer is within the limit.
                goal = Expr::Const(false);
            }
            Limit {
                measure: match l.measure {
                    crate::ast::Measure::Steps => Measure::Steps,
                    crate::ast::Measure::Cost => Measure::Cost,
                },
                max: max.max(0) as u64,
            }
        });
        (goal, limit)
    }

    /// Mover by class, the rules fired on entering a cell of it, grounded
    /// for [`Self::moving`], in file order.
    pub(super) fn on_enter_rules(&mut self, present: &[bool]) -> Vec<Vec<RuleId>> {
        let rules = self.rules;
        let nclasses = present.len();
        let mut on_enter = vec![Vec::new(); self.movers.len() * nclasses];
        for k in (0..nclasses).filter(|&k| present[k]) {
            let class = self.board.classes[k];
            for i in 0..self.instances.len() {
                let agent = self.instances[i].agent;
                for r in &rules.on_enter {
                    if r.agent.is_some_and(|a| a != agent)
                        || !self.class_matches(&class, r.tile, r.value)
                    {
                        continue;
                    }
                    let id = self.ground_rule(&r.cond, &r.actions, Some(&class));
                    on_enter[i * nclasses + k].push(id);
                }
            }
        }
        on_enter
    }

    /// Each class's entry condition: solid never; else every `enter` rule
    /// matching, grounded for [`Self::moving`].
    pub(super) fn entries(&mut self, present: &[bool]) -> Vec<Expr> {
        let rules = self.rules;
        let mut entry = Vec::with_capacity(present.len());
        for (k, &here) in present.iter().enumerate() {
            let class = self.board.classes[k];
            // No cell of an absent class is ever entered.
            if class.solid || !here {
                entry.push(Expr::Const(false));
                continue;
            }
            let conds: Vec<&resolve::Expr> = rules
                .enter_rules
                .iter()
                .filter(|r| self.class_matches(&class, r.tile, r.value))
                .map(|r| &r.cond)
                .collect();
            let parts = conds
                .into_iter()
                .map(|c| self.expr(c, Some(&class)))
                .collect();
            entry.push(Expr::and(parts));
        }
        entry
    }

    /// For each object's member the goal puts on some positions (a
    /// conjunct of the goal), the fewest pushes from each position to one
    /// of them: a search backwards from them over pushes (the object from
    /// `y` to `y + d` with a pusher on `y - d`, each cell not solid), which
    /// ignores everything else on the board and every entry condition, so
    /// it never counts more pushes than are needed. A slide of a pushed
    /// object over slippery cells is such pushes one after another (the
    /// cell behind each is the one it left); an object pushed onto a
    /// teleport's end comes out at the other end with no push more, so an
    /// end is as near as its other end.
    pub(super) fn pushes_to_goal(&mut self, goal: &Expr) {
        let parts = match goal {
            Expr::And(ps) => ps.as_slice(),
            e => std::slice::from_ref(e),
        };
        let dirs = pusher_dirs(self.rules);
        for part in parts {
            let Expr::At(m, set) = part else { continue };
            let mover = &self.movers[m.ix()];
            if mover.object.is_none() {
                continue;
            }
            let b = &self.board;
            let n = mover.domain.len();
            let mut dist = vec![u32::MAX; n];
            // Breadth-first with edges of 0 pushes (teleports) taken first.
            let mut queue = std::collections::VecDeque::with_capacity(n);
            for (p, d) in dist.iter_mut().enumerate() {
                if set[p / 64] >> (p % 64) & 1 == 1 {
                    *d = 0;
                    queue.push_back(p);
                }
            }
            let open = |pc: usize| b.open[pc] == 1;
            // Padded cell -> position: a list domain's lookup is a binary
            // search, too slow for the millions of cells of a large map.
            let mut index = vec![u32::MAX; b.open.len()];
            mover.domain.for_each(|p, _, pc| index[pc as usize] = p);
            let mut done = vec![false; n];
            while let Some(p) = queue.pop_front() {
                if std::mem::replace(&mut done[p], true) {
                    continue;
                }
                let x = mover.domain.padded(p as u32) as usize;
                if let Some(e) = b
                    .teleport(mover.domain.cell(p as u32))
                    .and_then(|(e, _)| mover.position_of(e))
                    && dist[p] < dist[e as usize]
                {
                    dist[e as usize] = dist[p];
                    queue.push_front(e as usize);
                }
                for &d in &dirs {
                    let delta = b.delta(d);
                    let y = x.wrapping_add_signed(-delta);
                    let z = y.wrapping_add_signed(-delta);
                    if !open(y) || !open(z) {
                        continue;
                    }
                    let q = index[y];
                    if q == u32::MAX {
                        continue;
                    }
                    if dist[p] + 1 < dist[q as usize] {
                        dist[q as usize] = dist[p] + 1;
                        queue.push_back(q as usize);
                    }
                }
            }
            if let Some(o) = &mut self.movers[m.ix()].object {
                o.pushes_to_goal = Some(match o.pushes_to_goal.take() {
                    // Two conjuncts: the more pushes of the two.
                    Some(old) => old.iter().zip(&dist).map(|(a, b)| *a.max(b)).collect(),
                    None => dist,
                });
            }
        }
    }

    /// Every start state: each mover on one of its start cells (several
    /// when some may start on any of several), facing its heading, each
    /// counter at its start value, each flag clear.
    pub(super) fn starts(&mut self) -> Vec<Vec<i64>> {
        let rules = self.rules;
        let mut base = vec![0i64; self.vars.len()];
        for (si, st) in rules.states.iter().enumerate() {
            if let StateKind::Counter { init, .. } = &st.kind {
                let first = self.state_vars[si] as usize;
                let len = self.state_len(StateId(si as u32)) as usize;
                let vars: Vec<Var> = self.vars[first..first + len].to_vec();
                for (slot, var) in base[first..first + len].iter_mut().zip(vars) {
                    let value = match init {
                        Some(n) => self.num(n, "a counter's start"),
                        None => var.lo(),
                    };
                    if var.normal(value) != Some(value) {
                        let e = case_error(
                            self.case,
                            format!(
                                "counter `{}` starts at {value}, outside its range in case {}",
                                var.name(),
                                self.case.number
                            ),
                            "start it within its range".into(),
                        );
                        self.errors.push(e);
                    }
                    *slot = value;
                }
            }
        }
        for (i, inst) in self.instances.iter().enumerate() {
            if let Some(h) = self.movers[i].heading {
                base[h.ix()] = rules.agents[inst.agent.ix()].facing.unwrap_or(0) as i64;
            }
            if let (Some((v, _)), Some(p)) = (&self.movers[i].poses, inst.pose) {
                base[v.ix()] = i64::from(p);
            }
        }
        let mut out = vec![base];
        for (i, inst) in self.instances.iter().enumerate() {
            let m = &self.movers[i];
            let positions: Vec<i64> = inst
                .starts
                .iter()
                .map(|&c| m.position_of(c).expect("a start is in its domain") as i64)
                .collect();
            out = out
                .into_iter()
                .flat_map(|s| {
                    positions.iter().map(move |&p| {
                        let mut s = s.clone();
                        s[m.pos.ix()] = p;
                        s
                    })
                })
                .collect();
        }
        out
    }
}
