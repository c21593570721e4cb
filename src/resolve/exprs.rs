//! The resolver's expressions: patterns of rules, state references,
//! conditions (`Expr`), actions, places; and what a checked condition reads.

use super::*;

impl Resolver {
    /// Whether `v` is the variable the rule's pattern binds, over a domain
    /// of direction words (reported when not; `example` shows a use).
    pub(super) fn direction_var(&mut self, v: &Ident, scope: &Scope, example: &str) -> bool {
        let Some((_, d, _)) = scope.bind.clone().filter(|(b, _, _)| *b == v.name) else {
            let help = match &scope.bind {
                Some((b, _, _)) => format!("this rule's pattern binds `{b}`"),
                None => format!("a variable is bound by the rule's pattern: `{example}`"),
            };
            self.err(RuleError::UnboundVariable {
                name: v.name.clone(),
                span: v.span,
                help,
            });
            return false;
        };
        let dom = &self.domains[d.ix()];
        if let Some(bad) = dom.values.iter().find(|x| ast::Dir::named(x).is_none()) {
            let (name, bad) = (dom.name.clone(), bad.clone());
            self.invalid(
                Topic::Direction,
                format!(
                    "`{}` ranges over `{name}`, whose value `{bad}` is no direction",
                    v.name
                ),
                v.span,
                "not a domain of directions",
                format!(
                    "a way given by a variable needs a domain of direction words (`domain way = \
                     north east south west`), as in `{example}`"
                ),
            );
            return false;
        }
        self.bound_used = true;
        true
    }

    /// A rule's condition and actions, with its pattern's scope; reports a
    /// binding neither uses.
    pub(super) fn rule_body(
        &mut self,
        cond: &Option<ast::Pred>,
        acts: &[ast::Action],
        scope: &Scope,
    ) -> (Option<Expr>, Vec<Action>) {
        self.bound_used = false;
        let before = self.errors.len();
        let cond = cond.as_ref().and_then(|c| self.expr(c, scope));
        let actions = self.actions(acts, scope);
        // A binding unused because its use has an error is that error's.
        if self.errors.len() == before {
            self.check_binding(scope);
        }
        (cond, actions)
    }

    /// A pattern's binding that nothing uses is most likely a misspelt
    /// value.
    pub(super) fn check_binding(&mut self, scope: &Scope) {
        if let Some((name, d, span)) = &scope.bind
            && !self.bound_used
        {
            let dom = &self.domains[d.ix()];
            let bare = &name[1..];
            let message = format!("`{name}` binds a value of `{}` that nothing uses", dom.name);
            let help = if dom.values.iter().any(|v| v == bare) {
                format!(
                    "to match `{bare}` alone, write it without `?`; or use `{name}` in the rule"
                )
            } else {
                format!(
                    "use `{name}` in the rule's condition or actions, or leave the parameter out"
                )
            };
            self.err(RuleError::UnusedBinding {
                message,
                span: *span,
                help,
            });
        }
    }

    /// Resolves a tile pattern: the tile, which values it matches, and the
    /// scope it gives a rule.
    pub(super) fn pattern(&mut self, p: &ast::Pattern) -> Option<(TileId, ValueSel, Scope)> {
        let tile = self.tile(&p.tile)?;
        let domain = self.tiles[tile.ix()].domain;
        let scope = Scope {
            bind: None,
            tile: Some(tile),
        };
        match (&p.arg, domain) {
            (None, _) => Some((tile, ValueSel::Any, scope)),
            (Some(arg), None) => {
                self.err(RuleError::DomainMismatch {
                    message: format!("tile `{}` has no parameter", p.tile.name),
                    span: arg.span,
                    label: "nothing to bind".into(),
                    help: format!(
                        "write `{}` alone, or give the tile a domain with `of`",
                        p.tile.name
                    ),
                });
                None
            }
            (Some(arg), Some(d)) if arg.name.starts_with('?') => Some((
                tile,
                ValueSel::Bind,
                Scope {
                    bind: Some((arg.name.clone(), d, arg.span)),
                    tile: Some(tile),
                },
            )),
            (Some(arg), Some(d)) => {
                let dom = &self.domains[d.ix()];
                match dom.values.iter().position(|v| *v == arg.name) {
                    Some(v) => Some((tile, ValueSel::Value(v as u32), scope)),
                    None => {
                        // A bare name is a value, never a binding: a value
                        // that is not there is a mistake, whether misspelt or
                        // meant to bind (`door(c)` for `door(?c)`).
                        let near = did_you_mean(
                            &arg.name,
                            dom.values.iter().map(String::as_str),
                            "values",
                        );
                        let help = format!(
                            "{near}; to bind the tile's value for the rule, write `{}(?{})` and use \
                             it as `?{}`",
                            p.tile.name, arg.name, arg.name
                        );
                        self.err(RuleError::UnknownParameter {
                            name: arg.name.clone(),
                            domain: dom.name.clone(),
                            span: arg.span,
                            help,
                        });
                        None
                    }
                }
            }
        }
    }

    /// A state reference and its index.
    pub(super) fn state_index_ref(
        &mut self,
        f: &ast::StateRef,
        scope: &Scope,
    ) -> Option<(StateId, IndexRef)> {
        let state = self.state(&f.name)?;
        let st = self.states[state.ix()].clone();
        match (&f.index, st.index) {
            (None, StateIndex::None) => Some((state, IndexRef::None)),
            (None, StateIndex::Domain(d)) => {
                let dn = self.domains[d.ix()].name.clone();
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "flag `{}` is indexed by `{dn}` but used without an index",
                        f.name.name
                    ),
                    span: f.span,
                    label: "index missing".into(),
                    help: format!(
                        "write `{0}[VALUE]`, or `all {0}` / `any {0}` in a goal",
                        f.name.name
                    ),
                });
                None
            }
            (_, StateIndex::Tile(t)) => {
                let tn = self.tiles[t.ix()].name.clone();
                let named = f.index.as_ref().is_some_and(|ix| ix.name == tn);
                if named && scope.tile == Some(t) {
                    return Some((state, IndexRef::Occurrence));
                }
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "`{}` has one value per `{tn}` of the map: only a rule matching `{tn}` \
                         can name one, as `{}[{tn}]`",
                        f.name.name, f.name.name
                    ),
                    span: f.span,
                    label: if scope.tile.is_some() {
                        format!("this rule does not match `{tn}`")
                    } else {
                        "no occurrence here".into()
                    },
                    help: format!(
                        "in a rule `on enter {tn}: ...` write `{0}[{tn}]`; in a goal write \
                         `all {0}` or `any {0}`",
                        f.name.name
                    ),
                });
                None
            }
            (Some(ix), StateIndex::None) => {
                self.err(RuleError::DomainMismatch {
                    message: format!("flag `{}` is not indexed", f.name.name),
                    span: ix.span,
                    label: "unexpected index".into(),
                    help: format!(
                        "write `{}` alone, or declare it `flag {}[DOMAIN]`",
                        f.name.name, f.name.name
                    ),
                });
                None
            }
            (Some(ix), StateIndex::Domain(d)) if ix.name.starts_with('?') => {
                self.bound_index(f, ix, d, scope).map(|r| (state, r))
            }
            (Some(ix), StateIndex::Domain(d)) => {
                match self.domains[d.ix()]
                    .values
                    .iter()
                    .position(|v| *v == ix.name)
                {
                    Some(v) => Some((state, IndexRef::Value(v as u32))),
                    None => {
                        let dom = &self.domains[d.ix()];
                        let mut cands: Vec<&str> = dom.values.iter().map(String::as_str).collect();
                        if let Some((var, _, _)) = &scope.bind {
                            cands.push(var);
                        }
                        let help = did_you_mean(&ix.name, cands, "values and variables");
                        self.err(RuleError::UnknownParameter {
                            name: ix.name.clone(),
                            domain: dom.name.clone(),
                            span: ix.span,
                            help,
                        });
                        None
                    }
                }
            }
        }
    }

    /// A flag indexed by the variable its rule's pattern binds: bound
    /// there, over the flag's domain.
    fn bound_index(
        &mut self,
        f: &ast::StateRef,
        ix: &Ident,
        d: DomainId,
        scope: &Scope,
    ) -> Option<IndexRef> {
        let Some((var, vd, _)) = scope.bind.clone().filter(|(v, _, _)| *v == ix.name) else {
            let help = match &scope.bind {
                Some((var, _, _)) => format!("this rule's pattern binds `{var}`"),
                None => format!(
                    "a variable is bound by a rule's pattern (`on enter key(?c): set \
                     have[?c]`); to name a value of `{}`, write it without `?`",
                    self.domains[d.ix()].name
                ),
            };
            self.err(RuleError::UnboundVariable {
                name: ix.name.clone(),
                span: ix.span,
                help,
            });
            return None;
        };
        if vd != d {
            let (want, got) = (
                self.domains[d.ix()].name.clone(),
                self.domains[vd.ix()].name.clone(),
            );
            self.err(RuleError::DomainMismatch {
                message: format!(
                    "flag `{}` is indexed by `{want}`, but `{var}` ranges over `{got}`",
                    f.name.name
                ),
                span: ix.span,
                label: format!("a `{got}` value"),
                help: format!("index `{}` with a value of `{want}`", f.name.name),
            });
            return None;
        }
        self.bound_used = true;
        Some(IndexRef::Bound)
    }

    pub(super) fn is_counter(&self, s: StateId) -> bool {
        matches!(self.states[s.ix()].kind, StateKind::Counter { .. })
    }

    pub(super) fn actions(&mut self, acts: &[ast::Action], scope: &Scope) -> Vec<Action> {
        let mut out = Vec::new();
        for a in acts {
            let Some((state, index)) = self.state_index_ref(&a.target, scope) else {
                continue;
            };
            let name = self.states[state.ix()].name.clone();
            let counter = self.is_counter(state);
            let op = match (&a.kind, counter) {
                (ast::ActionKind::Flag(v), false) => match v {
                    Verb::Set => ActOp::Set,
                    Verb::Clear => ActOp::Clear,
                    Verb::Toggle => ActOp::Toggle,
                },
                (ast::ActionKind::Counter(op, e), true) => {
                    let Some(n) = self.num(e, Allow::Map, "an amount") else {
                        continue;
                    };
                    self.check_effect(state, *op, &n, a);
                    match op {
                        AssignOp::Add => ActOp::Add(n),
                        AssignOp::Sub => ActOp::Sub(n),
                        AssignOp::Set => ActOp::Assign(n),
                    }
                }
                (ast::ActionKind::Flag(_), true) => {
                    self.err(RuleError::WrongKind {
                        message: format!("`{name}` is a counter, not a flag"),
                        span: a.span,
                        label: "set, clear and toggle are for flags".into(),
                        help: format!("change a counter with `{name} += 1`, `-=` or `=`"),
                    });
                    continue;
                }
                (ast::ActionKind::Counter(..), false) => {
                    self.err(RuleError::WrongKind {
                        message: format!("`{name}` is a flag, not a counter"),
                        span: a.span,
                        label: "arithmetic is for counters".into(),
                        help: format!("write `set {name}`, `clear {name}` or `toggle {name}`"),
                    });
                    continue;
                }
            };
            out.push(Action { state, index, op });
        }
        out
    }

    /// An effect that always leaves a counter's (known) range.
    pub(super) fn check_effect(&mut self, state: StateId, op: AssignOp, n: &Num, a: &ast::Action) {
        let StateKind::Counter { lo, hi, wrap, .. } = &self.states[state.ix()].kind else {
            return;
        };
        let (Some(lo), Some(hi), Some(v)) = (lo.constant(), hi.constant(), n.constant()) else {
            return;
        };
        let name = self.states[state.ix()].name.clone();
        let bad = match op {
            AssignOp::Set => !*wrap && !(lo..=hi).contains(&v),
            AssignOp::Add | AssignOp::Sub => {
                !*wrap && i128::from(v.unsigned_abs()) > i128::from(hi) - i128::from(lo)
            }
        };
        if bad {
            self.err(RuleError::from(Invalid {
                topic: Topic::Counter,
                message: format!("this effect always takes counter `{name}` out of {lo}..{hi}"),
                span: a.span,
                label: "out of range".into(),
                help: format!(
                    "a step that would take `{name}` out of its range is not taken; widen the \
                     range, or declare `wrap` for arithmetic modulo its size"
                ),
            }));
        }
    }

    pub(super) fn place(&mut self, agent: AgentId, p: &ast::Place) -> Option<PlaceRef> {
        match p {
            ast::Place::ItsTarget(sp) => {
                let a = &self.agents[agent.ix()];
                if a.targets == Targets::None {
                    let name = a.name.clone();
                    self.invalid(
                        Topic::Place,
                        format!("agent `{name}` has no targets"),
                        *sp,
                        "`its target` needs target markers",
                        format!("declare them: `agent {name}... target 'A'..`"),
                    );
                    return None;
                }
                Some(PlaceRef::Target)
            }
            ast::Place::Tile(pat) => {
                let (tile, value, scope) = self.pattern(pat)?;
                self.warn_if_solid(tile, pat.span, "standing on this tile");
                if scope.bind.is_some() {
                    self.bound_in_goal(tile, pat);
                    return None;
                }
                Some(PlaceRef::Tile(tile, value))
            }
        }
    }

    /// `moving` where nothing moves (a `when` rule, the goal).
    pub(super) fn moving_outside_enter(&mut self, span: Span) {
        self.invalid(
            Topic::Moving,
            "`moving` is read only where something moves".into(),
            span,
            "nothing moves here",
            "`moving DIR` is the way a step goes, which an `enter ... only if` condition, an \
             `on enter` rule's `if`, a move's `if` and an `on MOVE` rule read (one-way cells: \
             `enter arrow only if moving east`); `when` rules and the goal do not"
                .into(),
        );
    }

    /// A goal binds nothing: `gate(?x)` in a goal has no rule to use it.
    pub(super) fn bound_in_goal(&mut self, tile: TileId, pat: &ast::Pattern) {
        self.binds_nothing(tile, pat, "a goal");
    }

    /// `gate(?x)` where nothing binds (`what`: a goal, a cell test).
    pub(super) fn binds_nothing(&mut self, tile: TileId, pat: &ast::Pattern, what: &str) {
        let d = self.tiles[tile.ix()].domain.unwrap();
        let dom = &self.domains[d.ix()];
        let arg = pat.arg.as_ref().unwrap();
        self.err(RuleError::UnboundVariable {
            name: arg.name.clone(),
            span: arg.span,
            help: format!(
                "{what} binds nothing: write `{}` alone for any value, or a value of `{}` ({})",
                pat.tile.name,
                dom.name,
                crate::error::quote_list(
                    &dom.values.iter().map(String::as_str).collect::<Vec<_>>()
                )
            ),
        });
    }

    pub(super) fn expr(&mut self, p: &ast::Pred, scope: &Scope) -> Option<Expr> {
        use ast::Pred as P;
        Some(match p {
            P::Or(ps, _) | P::And(ps, _) => {
                let parts: Vec<Option<Expr>> = ps.iter().map(|q| self.expr(q, scope)).collect();
                let parts: Option<Vec<Expr>> = parts.into_iter().collect();
                if matches!(p, P::Or(..)) {
                    Expr::Or(parts?)
                } else {
                    Expr::And(parts?)
                }
            }
            P::Not(q, _) => Expr::Not(Box::new(self.expr(q, scope)?)),
            P::Every(who, place, _) | P::Any(who, place, _) | P::On(who, place, _) => {
                let agent = self.agent_in_pred(who)?;
                let place = self.place(agent, place)?;
                let members = self.members(p, who, agent)?;
                Expr::On {
                    agent,
                    members,
                    place,
                }
            }
            P::EveryHas(pat, who, _) => {
                let agent = self.agent_in_pred(who)?;
                let (tile, value, scope) = self.pattern(pat)?;
                self.warn_if_solid(tile, pat.span, "standing on this tile");
                if scope.bind.is_some() {
                    self.bound_in_goal(tile, pat);
                    return None;
                }
                Expr::Has { tile, value, agent }
            }
            P::At(who, r, c, _) => {
                let agent = self.agent_in_pred(who)?;
                self.members(p, who, agent)?;
                let row = self.num(r, Allow::Map, "a row");
                let col = self.num(c, Allow::Map, "a column");
                Expr::AtCell {
                    agent,
                    row: row?,
                    col: col?,
                }
            }
            P::PoseIs(who, pose, _) => {
                let agent = self.agent_in_pred(who)?;
                let poses = &self.agents[agent.ix()].poses;
                match poses.iter().position(|(n, _)| *n == pose.name) {
                    Some(k) => Expr::PoseIs(agent, k as u32),
                    None => {
                        let names: Vec<&str> = poses.iter().map(|(n, _)| n.as_str()).collect();
                        let help = if names.is_empty() {
                            format!(
                                "`{}` has no poses: declare them with `poses {} {{ NAME (0, 0) \
                                 ... }}`",
                                who.name, who.name
                            )
                        } else {
                            format!("its poses are {}", crate::error::quote_list(&names))
                        };
                        self.invalid(
                            Topic::Pose,
                            format!("`{}` has no pose `{}`", who.name, pose.name),
                            pose.span,
                            "no such pose",
                            help,
                        );
                        return None;
                    }
                }
            }
            P::Meets(quant, who, other, sp) => self.meets(*quant, who, other, *sp)?,
            P::Facing(who, h, sp) => {
                let agent = self.agent_in_pred(who)?;
                self.members(p, who, agent)?;
                if self.agents[agent.ix()].facing.is_none() {
                    let name = who.name.clone();
                    self.invalid(
                        Topic::Heading,
                        format!("agent `{name}` has no heading"),
                        *sp,
                        "it faces no way",
                        format!("give it one: `agent {name} ... on TILE facing north`"),
                    );
                    return None;
                }
                Expr::Facing(agent, *h)
            }
            P::Cell(at, what, sp) => self.cell(at, what, *sp)?,
            P::Moving(d, sp) => {
                if !self.in_enter && !self.in_move {
                    self.moving_outside_enter(*sp);
                    return None;
                }
                Expr::Moving(*d)
            }
            P::MovingAs(v, sp) => {
                if !self.in_enter && !self.in_move {
                    self.moving_outside_enter(*sp);
                    return None;
                }
                if !self.direction_var(v, scope, "enter arrow(?w) only if moving ?w") {
                    return None;
                }
                Expr::MovingBound
            }
            P::AllFlags(f, _) | P::AnyFlag(f, _) => {
                self.all_or_any(f, matches!(p, P::AllFlags(..)))?
            }
            P::Flag(f) => self.flag(f, scope)?,
            P::Pos(lhs, op, rhs, sp) => self.pos(lhs, *op, rhs, *sp)?,
            P::Compare(f, op, v, sp) => self.compare(f, *op, v, *sp, scope)?,
            P::Numbers(l, op, r, sp) => self.numbers(l, *op, r, *sp)?,
            P::InBeam(who, beam, _) => self.in_beam(who, beam)?,
        })
    }

    /// A counter compared with a number.
    fn compare(
        &mut self,
        f: &ast::StateRef,
        op: CmpOp,
        v: &IntExpr,
        sp: Span,
        scope: &Scope,
    ) -> Option<Expr> {
        let (state, index) = self.state_index_ref(f, scope)?;
        if !self.is_counter(state) {
            self.invalid(
                Topic::Comparison,
                format!("`{}` is a flag: it is set or not", f.name.name),
                sp,
                "a comparison needs a counter",
                format!("test the flag alone: `{0}` or `not {0}`", f.name.name),
            );
            return None;
        }
        let value = self.num(v, Allow::Map, "a comparison")?;
        Some(Expr::Cmp {
            state,
            index,
            op,
            value,
        })
    }

    /// `all FLAG`, `any FLAG`: of an indexed flag.
    fn all_or_any(&mut self, f: &Ident, all: bool) -> Option<Expr> {
        let state = self.flag_in_pred(f)?;
        if self.states[state.ix()].index == StateIndex::None {
            self.err(RuleError::DomainMismatch {
                message: format!("flag `{}` is not indexed", f.name),
                span: f.span,
                label: "`all` and `any` need an indexed flag".into(),
                help: format!("write `{}` alone", f.name),
            });
            return None;
        }
        if self.is_counter(state) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is a counter, not a flag", f.name),
                span: f.span,
                label: "`all` and `any` need flags".into(),
                help: format!("compare it: `{} > 0`", f.name),
            });
            return None;
        }
        Some(if all {
            Expr::AllFlags(state)
        } else {
            Expr::AnyFlag(state)
        })
    }

    /// A flag as a condition (not an agent, not a counter).
    fn flag(&mut self, f: &ast::StateRef, scope: &Scope) -> Option<Expr> {
        if let Some(Def::Agent(_)) = self.lookup(&f.name.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is an agent, not a condition", f.name.name),
                span: f.span,
                label: "an agent's position is not true or false".into(),
                help: format!("compare its position: `{} on TILE`", f.name.name),
            });
            return None;
        }
        let (state, index) = self.state_index_ref(f, scope)?;
        if self.is_counter(state) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is a counter, not a condition", f.name.name),
                span: f.span,
                label: "a number is not true or false".into(),
                help: format!("compare it: `{} > 0`", f.name.name),
            });
            return None;
        }
        Some(Expr::Flag { state, index })
    }

    /// A comparison of rows and columns (`row of hero < its row + 2`): its
    /// terms gathered, each agent's axis once.
    fn pos(
        &mut self,
        lhs: &[(i64, ast::PosTerm)],
        op: CmpOp,
        rhs: &[(i64, ast::PosTerm)],
        sp: Span,
    ) -> Option<Expr> {
        let mut terms: Vec<(i64, PosRef)> = Vec::new();
        let mut k = 0i64;
        let mut ok = true;
        for (side, sum) in [(1, lhs), (-1, rhs)] {
            for (sign, t) in sum {
                let f = side * sign;
                let (axis, agent) = match t {
                    ast::PosTerm::Num(n) => {
                        k = k.saturating_sub(f * n);
                        continue;
                    }
                    ast::PosTerm::Of(axis, who) => {
                        let Some(agent) = self.agent_in_pred(who) else {
                            ok = false;
                            continue;
                        };
                        let x = &self.agents[agent.ix()];
                        if x.several() || x.piece.is_some() {
                            self.invalid(
                                Topic::RowsColumns,
                                format!("`{}` is not one agent: whose row or column?", who.name),
                                who.span,
                                "several members",
                                "compare single agents' rows and columns; in a \
                                 member's own moves, `its row` is its own"
                                    .into(),
                            );
                            ok = false;
                            continue;
                        }
                        (*axis, Some(agent))
                    }
                    ast::PosTerm::Its(axis, tsp) => {
                        if !self.in_move {
                            self.invalid(
                                Topic::RowsColumns,
                                "`its row` and `its column` are the mover's, and none \
                                 moves here"
                                    .into(),
                                *tsp,
                                "no mover here",
                                "read them in a move's `if` (`move guard by itself: east \
                                 if column of hero > its column`) or an `on MOVE` rule's; \
                                 elsewhere name the agent: `row of guard`"
                                    .into(),
                            );
                            ok = false;
                            continue;
                        }
                        (*axis, None)
                    }
                };
                let r = PosRef { axis, agent };
                match terms.iter_mut().find(|(_, x)| *x == r) {
                    Some((c, _)) => *c += f,
                    None => terms.push((f, r)),
                }
            }
        }
        if !ok {
            return None;
        }
        terms.retain(|(c, _)| *c != 0);
        if terms.is_empty() {
            self.invalid(
                Topic::RowsColumns,
                "this comparison reads no row or column".into(),
                sp,
                "numbers only, or terms that cancel out",
                "compare agents' rows and columns: `row of hero < row of guard`".into(),
            );
            return None;
        }
        Some(Expr::Pos { terms, op, k })
    }

    /// `cell WHERE is TILE`, `cell WHERE has NAME`: read where a mover moves.
    fn cell(&mut self, at: &ast::RelCell, what: &ast::CellWhat, sp: Span) -> Option<Expr> {
        if !self.in_move {
            self.invalid(
                Topic::CellTest,
                "a cell test reads the cells around a mover, and none moves here".into(),
                sp,
                "no mover here",
                "`cell ahead is TILE`, `cell (r, c) has NAME` and the like are read in a \
                 move's `if` (`move hero: north if cell here is ladder`) and in `on \
                 MOVE` rules (`on hero north if cell here is bell: ...`)"
                    .into(),
            );
            return None;
        }
        if let ast::RelCell::Offset(d) = at
            && (d.dr.unsigned_abs() > MAX_REACH || d.dc.unsigned_abs() > MAX_REACH)
        {
            self.invalid(
                Topic::CellTest,
                format!(
                    "an offset of ({}, {}) is further than a cell test reads",
                    d.dr, d.dc
                ),
                sp,
                "too far",
                format!("a cell test reads at most {MAX_REACH} rows and columns away"),
            );
            return None;
        }
        let what = match what {
            ast::CellWhat::Is(pat) => {
                let (tile, value, scope) = self.pattern(pat)?;
                if scope.bind.is_some() {
                    self.binds_nothing(tile, pat, "a cell test");
                    return None;
                }
                CellTest::Tile(tile, value)
            }
            ast::CellWhat::Has(who) => CellTest::Has(self.agent_in_pred(who)?),
        };
        Some(Expr::Cell { at: *at, what })
    }

    /// `A at B`, `any A at B`, `every A at B`: agents meeting.
    fn meets(&mut self, quant: Option<bool>, who: &Ident, other: &Ident, sp: Span) -> Option<Expr> {
        let (agent, at) = (self.agent_in_pred(who), self.agent_in_pred(other));
        let (agent, at) = (agent?, at?);
        if self.agents[at.ix()].several() {
            self.invalid(
                Topic::Meets,
                format!("`{}` is not one agent: whose cell?", other.name),
                other.span,
                "several members",
                format!(
                    "name a single agent after `at`; for several, turn it round: \
                     `any {} at {}`",
                    other.name, who.name
                ),
            );
            return None;
        }
        if agent == at {
            self.invalid(
                Topic::Meets,
                format!("`{}` is always where it is", who.name),
                sp,
                "the same agent twice",
                "compare two agents: `guard at hero`".into(),
            );
            return None;
        }
        let members = match quant {
            Some(true) => Members::Every,
            Some(false) => Members::Any,
            None if self.agents[agent.ix()].several() => {
                self.err(RuleError::WrongKind {
                    message: format!("`{}` has several members; say which", who.name),
                    span: who.span,
                    label: "not one agent".into(),
                    help: format!(
                        "write `any {0} at {1}` or `every {0} at {1}`",
                        who.name, other.name
                    ),
                });
                return None;
            }
            None => Members::One,
        };
        Some(Expr::Meets { agent, members, at })
    }

    /// Which members a predicate on `who` speaks of; a family needs
    /// `every` or `any`.
    pub(super) fn members(
        &mut self,
        p: &ast::Pred,
        who: &Ident,
        agent: AgentId,
    ) -> Option<Members> {
        let a = &self.agents[agent.ix()];
        let family = a.several();
        let (what, label) = if a.object {
            (
                "an object, one member on every cell marked",
                "an object, not one agent",
            )
        } else if a.piece.is_some() {
            ("a set of pieces, one per marker", "pieces, not one piece")
        } else {
            ("a family of agents", "a family, not one agent")
        };
        Some(match p {
            ast::Pred::Every(..) => Members::Every,
            ast::Pred::Any(..) => Members::Any,
            _ if family => {
                self.err(RuleError::WrongKind {
                    message: format!("`{}` is {what}; say which members", who.name),
                    span: who.span,
                    label: label.into(),
                    help: format!("write `every {0} on ...` or `any {0} on ...`", who.name),
                });
                return None;
            }
            _ => Members::One,
        })
    }

    pub(super) fn agent_in_pred(&mut self, who: &Ident) -> Option<AgentId> {
        if let Some(Def::State(_)) = self.lookup(&who.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is a flag, not an agent", who.name),
                span: who.span,
                label: "a flag has no position".into(),
                help: format!("test the flag on its own: `{}`", who.name),
            });
            return None;
        }
        self.agent(who)
    }

    pub(super) fn flag_in_pred(&mut self, f: &Ident) -> Option<StateId> {
        if let Some(Def::Agent(_)) = self.lookup(&f.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is an agent, not a flag", f.name),
                span: f.span,
                label: "`all` and `any` take a flag here".into(),
                help: format!("for agents write `every {} on TILE`", f.name),
            });
            return None;
        }
        self.state(f)
    }
}

impl Expr {
    /// Whether the expression reads `moving` (the step's direction).
    pub fn reads_moving(&self) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(Expr::reads_moving),
            Expr::Not(e) => e.reads_moving(),
            Expr::Moving(_) | Expr::MovingBound => true,
            _ => false,
        }
    }

    /// Calls `f` on every state the expression reads.
    pub fn visit_states(&self, f: &mut impl FnMut(StateId)) {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().for_each(|e| e.visit_states(f)),
            Expr::Not(e) => e.visit_states(f),
            Expr::Flag { state, .. }
            | Expr::Cmp { state, .. }
            | Expr::AllFlags(state)
            | Expr::AnyFlag(state) => f(*state),
            Expr::On { .. }
            | Expr::Facing(..)
            | Expr::AtCell { .. }
            | Expr::Has { .. }
            | Expr::Moving(_)
            | Expr::MovingBound
            | Expr::Cell { .. }
            | Expr::Meets { .. }
            | Expr::PoseIs(..)
            | Expr::Pos { .. }
            | Expr::Time(_)
            | Expr::InBeam(..) => {}
        }
    }

    /// Whether a cell test asks for a member of `agent` (`cell ahead has
    /// NAME`).
    pub fn asks_has(&self, agent: AgentId) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(|e| e.asks_has(agent)),
            Expr::Not(e) => e.asks_has(agent),
            Expr::Cell {
                what: CellTest::Has(a),
                ..
            } => *a == agent,
            _ => false,
        }
    }

    /// Whether the expression reads a cell along the move's way (`ahead`,
    /// `beyond`).
    pub fn reads_way(&self) -> bool {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().any(Expr::reads_way),
            Expr::Not(e) => e.reads_way(),
            Expr::Cell { at, .. } => matches!(at, ast::RelCell::Ahead | ast::RelCell::Beyond),
            _ => false,
        }
    }
}
