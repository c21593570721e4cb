//! The resolver's movers: agents, objects and pieces, their move lists
//! (sets expanded, offsets, slides, tables of poses), their conditions,
//! bodies and moves made by themselves.

use super::*;

impl Resolver {
    /// `moves NAME = ...`: a set of moves, kept by name to be expanded
    /// where a move list names it.
    pub(super) fn moves_decl(&mut self, m: &ast::MovesDecl) {
        let name = &m.name.name;
        if is_move_word(name) {
            self.invalid(
                Topic::Moves,
                format!("`{name}` is a move: a set of moves needs a name of its own"),
                m.name.span,
                "the name of a move",
                format!(
                    "`move ... : {name}` would be read as the move, never as this set: rename it"
                ),
            );
            return;
        }
        if let Some((_, first)) = self.move_sets.get(name) {
            let first = *first;
            self.err(RuleError::Repeated {
                what: "a set of moves of one name",
                span: m.name.span,
                first,
            });
            return;
        }
        self.move_sets
            .insert(name.clone(), (m.moves.clone(), m.name.span));
    }

    /// The moves a move list's items name, sets expanded in place, each
    /// with its cost (the item's own, else the cost written after the set
    /// that holds it) and its conditions (its own and those of the sets
    /// that hold it). `stack` holds the sets being expanded, to stop at a
    /// set that names itself. What is wrong is reported once: an unknown
    /// name among the items `report` sets deep (0 for a move list's own
    /// items, 1 when a declared set is checked), a set that contains
    /// itself only when declared sets are checked, once per cycle.
    pub(super) fn expand_moves(
        &mut self,
        items: &[ast::MoveItem],
        outer: (Option<&ast::Price>, &[ast::Pred]),
        stack: &mut Vec<String>,
        out: &mut Vec<Expanded>,
        report: usize,
    ) {
        for item in items {
            let cost = item.cost.as_ref().or(outer.0);
            let mut guards = outer.1.to_vec();
            guards.extend(item.guard.iter().cloned());
            match &item.what {
                ast::MoveWhat::Kind(k) => out.push((
                    k.clone(),
                    cost.cloned(),
                    guards,
                    item.table.clone(),
                    item.letter.clone(),
                )),
                ast::MoveWhat::Set(id) => {
                    if let Some(l) = &item.letter
                        && stack.len() == report
                    {
                        self.invalid(
                            Topic::Letter,
                            format!("a letter after the set of moves `{}`", id.name),
                            l.walk.span,
                            "a letter for several moves",
                            "a letter writes one move: give each move of the set its own \
                             (`moves walk = north 'n', east 'e', ...`)"
                                .into(),
                        );
                    }
                    let Some((inner, _)) = self.move_sets.get(&id.name).cloned() else {
                        if stack.len() != report {
                            continue;
                        }
                        let sets: Vec<String> = self.move_sets.keys().cloned().collect();
                        let near = did_you_mean(
                            &id.name,
                            (ast::COMPASS_WORDS.iter().chain(&MOVE_WORDS[..3]))
                                .copied()
                                .chain(sets.iter().map(String::as_str)),
                            "moves",
                        );
                        let known = if sets.is_empty() {
                            "no set of moves is declared (`moves NAME = ...`)".to_string()
                        } else {
                            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
                            format!("the sets of moves are {}", crate::error::quote_list(&sets))
                        };
                        let near = if near.starts_with("did you mean") {
                            format!("{near} ")
                        } else {
                            String::new()
                        };
                        self.err(RuleError::UnknownMove {
                            name: id.name.clone(),
                            span: id.span,
                            help: format!(
                                "{near}a move is a direction, `stay`, `forward`, `back`, \
                                 `turn left`, `turn right`, an offset `(rows, columns)`, \
                                 `slide DIRECTION` or a set of moves; {known}"
                            ),
                        });
                        continue;
                    };
                    if let Some(k) = stack.iter().position(|x| *x == id.name) {
                        let mut cycle = stack[k..].to_vec();
                        cycle.sort();
                        if report == 0 || self.cycles.contains(&cycle) {
                            continue;
                        }
                        self.cycles.push(cycle);
                        self.invalid(
                            Topic::Moves,
                            format!("the set of moves `{}` contains itself", id.name),
                            id.span,
                            "the cycle closes here",
                            format!(
                                "a set lists moves or other sets; `{}` is reached again \
                                 through `{}` -> `{}`",
                                id.name,
                                stack.join("` -> `"),
                                id.name
                            ),
                        );
                        continue;
                    }
                    stack.push(id.name.clone());
                    self.expand_moves(&inner, (cost, &guards), stack, out, report);
                    stack.pop();
                }
            }
        }
    }

    /// A move's `if` condition, resolved once (a set's conditions are
    /// met wherever the set is used, and reported once).
    pub(super) fn guard(&mut self, p: &ast::Pred) -> Option<Expr> {
        let key = (p.span().offset(), p.span().len());
        if let Some(e) = self.guards.get(&key) {
            return e.clone();
        }
        self.in_move = true;
        let e = self.expr(p, &Scope::default());
        self.in_move = false;
        self.guards.insert(key, e.clone());
        e
    }

    /// `ahead` and `beyond` lie along the way a move goes; a move that
    /// goes no way (`stay`, a turn) reads them along the heading, which
    /// each of `agents` must then have.
    pub(super) fn check_way(
        &mut self,
        kind: &ast::Spanned<MoveKind>,
        cond: &Expr,
        agents: &[AgentId],
    ) {
        let wayless = matches!(kind.value, MoveKind::TurnLeft | MoveKind::TurnRight)
            || kind.value == MoveKind::Dir(ast::Dir { dr: 0, dc: 0 });
        if !wayless || !cond.reads_way() {
            return;
        }
        if let Some(a) = agents
            .iter()
            .find(|a| !self.agents[a.ix()].object && self.agents[a.ix()].facing.is_none())
        {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                Topic::Moves,
                format!(
                    "`{}` goes no way, so `ahead` and `beyond` would be along a heading, and agent \
                     `{name}` has none",
                    kind.value.name()
                ),
                kind.span,
                "a move that goes no way",
                format!(
                    "give the agent a heading (`agent {name} ... facing north`), or name the cell \
                     by its offset: `cell (-1, 0)` is the cell north of the mover"
                ),
            );
        }
    }

    /// `cell ... has NAME` in a lone agent's own move finds it nowhere (the
    /// mover is not counted): `cell here has hero` would be read as true by
    /// a reader and is always false, so it is an error.
    pub(super) fn check_has_self(
        &mut self,
        kind: &ast::Spanned<MoveKind>,
        cond: &Expr,
        agents: &[AgentId],
    ) {
        if let Some(a) = agents.iter().find(|&&a| {
            let x = &self.agents[a.ix()];
            // Pieces of one declaration are several, one per marker.
            !x.several() && x.piece.is_none() && cond.asks_has(a)
        }) {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                Topic::Moves,
                format!("`has {name}` in `{name}`'s own move never holds"),
                kind.span,
                "the mover's own move",
                format!(
                    "`cell ... has NAME` looks for others than the mover, and `{name}` is one \
                     agent: test its cell with `cell here is TILE`, or name another agent"
                ),
            );
        }
    }

    /// An offset's reach is at most [`MAX_REACH`] cells, and a slide goes
    /// somewhere; false (reported) when not.
    pub(super) fn check_offset(&mut self, kind: &ast::Spanned<MoveKind>) -> bool {
        let (MoveKind::Dir(d) | MoveKind::Slide(d)) = kind.value else {
            return true;
        };
        if d.dr.unsigned_abs() > MAX_REACH || d.dc.unsigned_abs() > MAX_REACH {
            self.invalid(
                Topic::Moves,
                format!(
                    "an offset of ({}, {}) is further than a move reaches",
                    d.dr, d.dc
                ),
                kind.span,
                "too far",
                format!("a move goes at most {MAX_REACH} rows and {MAX_REACH} columns at once"),
            );
            return false;
        }
        if matches!(kind.value, MoveKind::Slide(_)) && (d.dr, d.dc) == (0, 0) {
            self.invalid(
                Topic::Moves,
                "a slide by (0, 0) never moves".into(),
                kind.span,
                "no way to slide",
                "give a slide a direction or an offset other than (0, 0); `stay` is the move \
                 that waits"
                    .into(),
            );
            return false;
        }
        true
    }

    /// Letters are for chosen moves (one made by itself is no one's
    /// step), each written once in a list, so that `--moves` reads them
    /// back; which chosen moves have one is kept for the check that all
    /// or none do.
    fn letter_checks(&mut self, items: &[Expanded], by_itself: bool) {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (kind, .., letter) in items {
            if by_itself {
                if let Some(l) = letter {
                    self.invalid(
                        Topic::Letter,
                        "a move made by itself has no letter".into(),
                        l.walk.span,
                        "never written",
                        "a way writes the moves chosen in it; drop the letter".into(),
                    );
                }
                continue;
            }
            self.lettered.push((letter.is_some(), kind.span));
            // A push written as its walk is said so by `letter`, not twice.
            for s in letter.iter().flat_map(|l| {
                let own = l.push.as_ref().filter(|p| p.text != l.walk.text);
                std::iter::once(&l.walk).chain(own)
            }) {
                if let Some(&first) = seen.get(s.text.as_str()) {
                    self.err(RuleError::Repeated {
                        what: "a letter in one move list",
                        span: s.span,
                        first,
                    });
                } else {
                    seen.insert(&s.text, s.span);
                }
            }
        }
    }

    /// A move's letter: not empty, no space in it (`--moves` separates
    /// steps by spaces), its two forms told apart.
    fn letter(&mut self, l: &ast::Letter) -> Option<Letter> {
        let mut ok = true;
        for s in std::iter::once(&l.walk).chain(&l.push) {
            if s.text.is_empty() || s.text.chars().any(char::is_whitespace) {
                self.invalid(
                    Topic::Letter,
                    format!("`{}` cannot write a move", s.text.escape_debug()),
                    s.span,
                    if s.text.is_empty() {
                        "empty"
                    } else {
                        "a space in it"
                    },
                    "a move's letter is one or more characters, none a space (`--moves` \
                     separates steps by spaces): `'n'`, `\"up\"`"
                        .into(),
                );
                ok = false;
            }
        }
        if let Some(p) = &l.push
            && p.text == l.walk.text
        {
            self.invalid(
                Topic::Letter,
                format!("a push is written `{}` as the walk is", p.text),
                p.span,
                "the same letter",
                "give a push a letter of its own (`'n' pushing 'N'`), or leave out `pushing`"
                    .into(),
            );
            ok = false;
        }
        ok.then(|| Letter {
            walk: l.walk.text.clone(),
            push: l.push.as_ref().map(|p| p.text.clone()),
        })
    }

    /// What a move with no cost costs: 1 (of the first part).
    pub(super) fn unit_price(&self) -> Price {
        let mut v = vec![Num::Lit(0); self.parts.len().max(1)];
        v[0] = Num::Lit(1);
        Price(v)
    }

    /// `minimise A then B`: two to [`MAX_PARTS`] parts, each named once,
    /// declared once.
    pub(super) fn minimise(&mut self, names: &[ast::Ident]) {
        let span = names[0].span;
        if let Some(&first) = self.part_spans.first() {
            self.err(RuleError::Repeated {
                what: "`minimise`",
                span,
                first,
            });
            return;
        }
        self.part_spans = vec![span];
        for (i, n) in names.iter().enumerate() {
            if let Some(first) = names[..i].iter().find(|m| m.name == n.name) {
                self.err(RuleError::Repeated {
                    what: "a part of `minimise`",
                    span: n.span,
                    first: first.span,
                });
                return;
            }
        }
        if names.len() > MAX_PARTS {
            self.invalid(
                Topic::Cost,
                format!("{} parts of a cost", names.len()),
                names[MAX_PARTS].span,
                "one too many",
                format!("a cost has at most {MAX_PARTS} parts"),
            );
            return;
        }
        self.parts = names.iter().map(|n| n.name.clone()).collect();
        self.part_spans = names.iter().map(|n| n.span).collect();
    }

    /// A cost: its amounts by part. A plain number is at least 1 (of the
    /// first part, where costs have parts); amounts of parts at least 0
    /// and not all 0; at most [`MAX_COST`] each, where known now.
    pub(super) fn cost(&mut self, c: &ast::Price) -> Option<Price> {
        let nparts = self.parts.len().max(1);
        let mut amounts = vec![Num::Lit(0); nparts];
        let mut given = vec![false; nparts];
        let plain = c.terms.len() == 1 && c.terms[0].1.is_none();
        let mut ok = true;
        for (e, part) in &c.terms {
            let i = match part {
                None => 0,
                Some(p) => match self.parts.iter().position(|x| *x == p.name) {
                    Some(i) => i,
                    None => {
                        self.unknown_part(p);
                        ok = false;
                        continue;
                    }
                },
            };
            if given[i] {
                self.invalid(
                    Topic::Cost,
                    format!("`{}` twice in one cost", self.parts[i]),
                    part.as_ref().map_or(e.span(), |p| p.span),
                    "again",
                    "give each part of a cost once".into(),
                );
                ok = false;
            }
            given[i] = true;
            let Some(n) = self.amount(e, plain) else {
                ok = false;
                continue;
            };
            amounts[i] = n;
        }
        if ok && amounts.iter().all(|n| n.constant() == Some(0)) {
            self.invalid(
                Topic::Cost,
                "a cost of nothing".into(),
                c.span,
                "every part 0",
                "every step costs something: give some part an amount of 1 or more".into(),
            );
            ok = false;
        }
        ok.then_some(Price(amounts))
    }

    /// An amount: a plain cost at least 1, a part's at least 0; at most
    /// [`MAX_COST`].
    fn amount(&mut self, c: &IntExpr, plain: bool) -> Option<Num> {
        let n = self.num(c, Allow::Map, "a cost")?;
        let least = i64::from(plain);
        if n.constant().is_some_and(|v| v < least) {
            let (message, label, help) = if plain {
                (
                    "a cost must be at least 1",
                    "0 or less",
                    "every step takes time: give a cost of 1 or more (the default is 1)",
                )
            } else {
                (
                    "an amount of a part is at least 0",
                    "less than 0",
                    "a step cannot give back what another cost: give 0 or more",
                )
            };
            self.err(RuleError::from(Invalid {
                topic: Topic::Cost,
                message: message.into(),
                span: c.span(),
                label: label.into(),
                help: help.into(),
            }));
            return None;
        }
        if let Some(v) = n.constant().filter(|&v| v > i64::from(MAX_COST)) {
            self.err(RuleError::from(Invalid {
                topic: Topic::Cost,
                message: format!("a cost of {v} is more than the engine weighs"),
                span: c.span(),
                label: "too large".into(),
                help: format!("a cost is at most {MAX_COST}"),
            }));
            return None;
        }
        Some(n)
    }

    /// A part that `minimise` does not declare (or no `minimise` at all: a
    /// name after a cost may be a move that lost its comma).
    fn unknown_part(&mut self, p: &ast::Ident) {
        let help = if self.parts.is_empty() {
            format!(
                "no `minimise` declares parts of costs: if `{0}` is the next move, put a comma \
                 before it (`costs 2, {0}`); for costs in parts, declare them \
                 (`minimise {0} then ...`)",
                p.name
            )
        } else {
            let parts: Vec<&str> = self.parts.iter().map(String::as_str).collect();
            format!(
                "{} (the parts are {}; if `{}` is the next move, put a comma before it)",
                did_you_mean(&p.name, parts.iter().copied(), "parts"),
                crate::error::quote_list(&parts),
                p.name
            )
        };
        self.invalid(
            Topic::Cost,
            format!("`{}` is no part of a cost", p.name),
            p.span,
            "not a part",
            help,
        );
    }

    pub(super) fn agent_decl(&mut self, a: &ast::AgentDecl) {
        let on = self.tile(&a.on);
        let on_tile = on.unwrap_or(TileId(0));
        let family = a
            .family
            .as_ref()
            .map(|s| self.num(s, Allow::Header, "a family size"));
        let id = AgentId(self.agents.len() as u32);
        if !self.define(&a.name, Def::Agent(id)) {
            return;
        }
        if let Some(t) = on {
            self.check_under(a, t, a.on.span);
        }
        let kind = if a.object { "object" } else { "agent" };
        let mut also = Vec::new();
        for (sym, tile) in &a.also {
            if let Some(t) = self.tile(tile) {
                self.check_under(a, t, tile.span);
                also.push((sym, t));
            }
        }
        let lit_size = match &family {
            Some(Some(n)) => n.constant().map(|n| n.max(0) as usize),
            _ => None,
        };
        if lit_size == Some(0)
            && let Some(f) = &a.family
        {
            self.invalid(
                Topic::Agent,
                format!("the family `{}` has no members", a.name.name),
                f.span(),
                "a size below 1",
                "a family has at least one member; for none, remove the agent".into(),
            );
        }
        let (start, mut max_members, markers) = self.start_decl(a, id, on_tile, lit_size);
        let members = a.family.is_some() || matches!(start, Start::Every);
        if !also.is_empty() && (members || matches!(start, Start::At(..))) {
            let how = if members {
                "a family's members each have one marker"
            } else {
                "an agent placed by row and column has no marker"
            };
            self.invalid(
                Topic::Agent,
                format!("`{}` cannot have markers on other tiles", a.name.name),
                a.also[0].0.span,
                "another marker",
                format!("{how}; drop the `, 'X' on TILE` part"),
            );
        } else {
            for (sym, t) in also {
                let glyph = match start {
                    Start::Markers if !a.object => Glyph::Start(id, 0, t),
                    _ => Glyph::AnyStart(id, t),
                };
                self.claim(sym, glyph, format!("{kind} `{}`", a.name.name));
            }
        }
        let start = if a.object {
            Start::Every
        } else if a.piece.is_some() {
            Start::Pieces
        } else {
            start
        };
        let targets = self.targets_decl(a, id, &start, &mut max_members, lit_size);
        let optional = a.props.iter().find(|p| p.value == Property::Optional);
        if let Some(p) = optional
            && !matches!(start, Start::Markers)
        {
            self.invalid(
                Topic::Agent,
                format!(
                    "`optional` is for an agent placed by its marker, and `{}` is not",
                    a.name.name
                ),
                p.span,
                "not placed by a marker",
                "an agent at `(r, c)` is always on the map, one with `any 'S'` starts on any of \
                 its cells: give it a marker of its own (`agent guard 'G' on floor optional`)"
                    .into(),
            );
        }
        let optional = optional.is_some();
        self.agents.push(Agent {
            name: a.name.name.clone(),
            family: family.flatten(),
            max_members,
            start,
            targets,
            markers,
            on: on.unwrap_or(TileId(0)),
            opaque: a.props.iter().any(|p| p.value == Property::Opaque),
            optional,
            moves: Vec::new(),
            script: None,
            poses: Vec::new(),
            follows: None,
            facing: a.facing.as_ref().map(|f| f.value),
            object: a.object,
            push_cost: None,
            piece: a.piece,
            span: a.name.span,
        });
    }

    /// How an agent starts (its markers claimed), the most members its
    /// markers allow, and the markers.
    fn start_decl(
        &mut self,
        a: &ast::AgentDecl,
        id: AgentId,
        on_tile: TileId,
        lit_size: Option<usize>,
    ) -> (Start, u32, Vec<String>) {
        let mut max_members = 1;
        let mut markers = Vec::new();
        let start =
            match &a.start {
                ast::StartDecl::Markers(m) => {
                    let starts = expand(m, lit_size);
                    if a.family.is_none() && !a.object && a.piece.is_none() && starts.len() != 1 {
                        let msg = format!(
                            "agent `{}` is one agent but has {} markers",
                            a.name.name,
                            starts.len()
                        );
                        self.invalid(
                            Topic::Agent,
                        msg,
                        m.span,
                        "one marker expected",
                        format!(
                            "for a family of agents write `agent {}[n] 'a'..`; for one agent that \
                             may start on any of several cells, `agent {} any 'S'`",
                            a.name.name, a.name.name
                        ),
                    );
                    }
                    if m.range && lit_size.is_some_and(|n| n > starts.len()) {
                        self.invalid(
                            Topic::Agent,
                            format!("the family `{}` has more members than markers", a.name.name),
                            m.span,
                            &format!("only {} markers follow this symbol", starts.len()),
                            "start the range earlier, or list the markers".into(),
                        );
                    }
                    max_members = starts.len() as u32;
                    for (i, c) in starts.iter().enumerate() {
                        let (what, under) = if a.object {
                            (
                                format!("object `{}`", a.name.name),
                                Glyph::AnyStart(id, on_tile),
                            )
                        } else {
                            (
                                format!("the start of agent `{}`", a.name.name),
                                Glyph::Start(id, i as u32, on_tile),
                            )
                        };
                        self.claim(c, under, what);
                    }
                    markers = starts.iter().map(|s| s.text.clone()).collect();
                    Start::Markers
                }
                ast::StartDecl::Any(sym) => {
                    if a.family.is_some() {
                        self.invalid(
                            Topic::Agent,
                            format!("the family `{}` cannot start on `any` cell", a.name.name),
                            sym.span,
                            "one marker for all members",
                            "give each member its own marker: `'a'..`".into(),
                        );
                    }
                    let what = format!("the starts of agent `{}`", a.name.name);
                    self.claim(sym, Glyph::AnyStart(id, on_tile), what);
                    Start::Any
                }
                ast::StartDecl::Every(sym) => {
                    if a.family.is_some() {
                        self.invalid(
                            Topic::Agent,
                        format!("the family `{}` is sized by its markers already", a.name.name),
                        sym.span,
                        "a member on every cell so marked",
                        format!(
                            "drop the `[...]`: `agent {} every 'X' ...` has a member per marker",
                            a.name.name
                        ),
                    );
                    }
                    let what = format!("the members of agent `{}`", a.name.name);
                    self.claim(sym, Glyph::AnyStart(id, on_tile), what);
                    Start::Every
                }
                ast::StartDecl::At(r, c, sp) => {
                    if a.family.is_some() {
                        self.invalid(
                            Topic::Agent,
                            format!("the family `{}` cannot start `at` one cell", a.name.name),
                            *sp,
                            "one cell for all members",
                            "give each member its own marker: `'a'..`".into(),
                        );
                    }
                    let r = self.num(r, Allow::Header, "a start row");
                    let c = self.num(c, Allow::Header, "a start column");
                    match (r, c) {
                        (Some(r), Some(c)) => Start::At(r, c),
                        _ => Start::Markers,
                    }
                }
            };
        (start, max_members, markers)
    }

    /// An agent's targets (their markers claimed), one per member: the
    /// members too many for them are dropped from `max_members`.
    fn targets_decl(
        &mut self,
        a: &ast::AgentDecl,
        id: AgentId,
        start: &Start,
        max_members: &mut u32,
        lit_size: Option<usize>,
    ) -> Targets {
        let mut targets = Targets::None;
        // A target is a member's own: one per start marker. Starts by
        // `any`, `every` or `at` have none to pair it with (it was dropped
        // without a word, and `its target` never held).
        if let Some(t) = &a.targets
            && matches!(start, Start::Any | Start::Every | Start::At(..))
            && !a.object
            && a.piece.is_none()
        {
            let span = match t {
                ast::TargetDecl::Markers(m) => m.span,
                ast::TargetDecl::Layout(l) => l.span,
            };
            self.invalid(
                Topic::Agent,
                format!(
                    "`{}` has a target, but no start marker of its own",
                    a.name.name
                ),
                span,
                "a target to pair with a marker",
                "targets pair with start markers (`agent bot[n] 'a'.. target 'A'.. on TILE`); \
                 for a start by `any`, `every` or `at`, say where it must go in the goal \
                 (`goal bot on exit`)"
                    .into(),
            );
        }
        match &a.targets {
            None => {}
            Some(ast::TargetDecl::Markers(t)) => {
                targets = Targets::Markers;
                let list = expand(t, lit_size);
                if list.len() != *max_members as usize {
                    let ranged =
                        t.range || matches!(&a.start, ast::StartDecl::Markers(m) if m.range);
                    if ranged {
                        *max_members = (*max_members).min(list.len() as u32);
                    } else {
                        let msg = format!(
                            "agent `{}` has {} start markers but {} target markers",
                            a.name.name,
                            *max_members,
                            list.len()
                        );
                        self.invalid(
                            Topic::Agent,
                            msg,
                            t.span,
                            "one target per start expected",
                            "give each member one start and one target".into(),
                        );
                    }
                }
                for (i, c) in list.iter().enumerate() {
                    let what = format!("the target of agent `{}`", a.name.name);
                    self.claim(c, Glyph::Target(id, i as u32), what);
                }
            }
            Some(ast::TargetDecl::Layout(l)) => match self.lookup(&l.name) {
                Some(Def::Layout(lid)) => {
                    targets = Targets::Layout(lid);
                    if !matches!(a.start, ast::StartDecl::Markers(_)) {
                        self.invalid(
                            Topic::Agent,
                            format!("agent `{}` has no markers to find in a layout", a.name.name),
                            l.span,
                            "targets found by marker",
                            "give the agent start markers: `'1'..`".into(),
                        );
                    }
                }
                _ => {
                    // Reported; no echo about targets missing.
                    targets = Targets::Markers;
                    self.unknown("layout", l);
                }
            },
        }
        targets
    }

    /// The tile under a marker must be one an agent or object can stand on.
    pub(super) fn check_under(&mut self, a: &ast::AgentDecl, t: TileId, span: Span) {
        let tile = &self.tiles[t.ix()];
        if tile.solid || tile.domain.is_some() {
            let why = if tile.solid {
                "it is solid"
            } else {
                "it has a parameter"
            };
            let kind = if a.object { "object" } else { "agent" };
            let msg = format!(
                "{kind} `{}` cannot start on tile `{}`",
                a.name.name, tile.name
            );
            self.invalid(
                Topic::Agent,
                msg,
                span,
                why,
                format!("the tile under an {kind}'s marker must be a plain, non-solid tile"),
            );
        }
    }

    pub(super) fn move_decl(
        &mut self,
        m: &ast::MoveDecl,
        mode: &mut Option<ast::Spanned<Mode>>,
        moved: &mut HashMap<AgentId, Span>,
    ) {
        let script = m.mode.as_ref().filter(|t| t.value == Mode::ByItself);
        if let Some(t) = script
            && !self.script_checks(m, t.span)
        {
            return;
        }
        self.move_mode(m, mode);
        let targets: Vec<AgentId> = match &m.mover {
            // A body moves behind its leader, not by moves of its own.
            None => (0..self.agents.len() as u32)
                .map(AgentId)
                .filter(|a| !self.agents[a.ix()].object && self.agents[a.ix()].follows.is_none())
                .collect(),
            Some(id) => self.agent(id).into_iter().collect(),
        };
        if let Some(&a) = targets.first()
            && self.agents[a.ix()].object
        {
            let name = self.agents[a.ix()].name.clone();
            self.invalid(
                Topic::Moves,
                format!("`{name}` is an object: it does not move by itself"),
                m.mover_span,
                "an object",
                format!("agents push `{name}` by walking into it; give the moves to an agent"),
            );
            return;
        }
        let mut items = Vec::new();
        self.expand_moves(&m.moves, (None, &[]), &mut Vec::new(), &mut items, 0);
        // Moves made by themselves follow a step whose cost is the chosen
        // move's: a cost of theirs (written, or from a set) would count for
        // nothing.
        if script.is_some()
            && let Some((kind, ..)) = items.iter().find(|(_, cost, ..)| cost.is_some())
        {
            self.invalid(
                Topic::Moves,
                "a move made by itself costs nothing of its own".into(),
                kind.span,
                "a cost that would be dropped",
                "a step costs the move chosen in it; drop `costs` here, or give it to the moves \
                 that cause this one"
                    .into(),
            );
            return;
        }
        self.letter_checks(&items, script.is_some());
        let moves = self.moves_of(&items, &targets);
        for a in targets {
            if self.agents[a.ix()].follows.is_some() {
                let name = self.agents[a.ix()].name.clone();
                self.invalid(
                    Topic::Moves,
                    format!("`{name}` follows its leader: it has no moves of its own"),
                    m.mover_span,
                    "a body",
                    "move the leader; the body comes behind it".into(),
                );
                continue;
            }
            if let Some(first) = moved.insert(a, m.mover_span) {
                self.err(RuleError::Repeated {
                    what: "a move rule for one agent",
                    span: m.mover_span,
                    first,
                });
            }
            let agent = &self.agents[a.ix()];
            if agent.facing.is_none()
                // A turn by a table of poses turns the piece, not a heading.
                && let Some((kind, ..)) = items.iter().find(|(k, _, _, rows, _)| {
                    matches!(
                        k.value,
                        MoveKind::Forward
                            | MoveKind::Back
                            | MoveKind::TurnLeft
                            | MoveKind::TurnRight
                    ) && rows.is_empty()
                })
            {
                let name = agent.name.clone();
                self.invalid(
                    Topic::Moves,
                    format!(
                        "`{}` needs a heading, and agent `{name}` has none",
                        kind.value.name()
                    ),
                    kind.span,
                    "a move along a heading",
                    format!("give the agent a heading: `agent {name} ... on TILE facing north`"),
                );
            }
            self.agents[a.ix()].moves = moves.clone();
            if script.is_some() {
                let times = match &m.times {
                    Some(n) => self.num(n, Allow::Map, "how many moves"),
                    None => Some(Num::Lit(1)),
                };
                self.agents[a.ix()].script = times;
            }
        }
    }

    /// A move rule's mode: the same in every rule (`by itself` aside), and
    /// `together` only for all agents, by directions.
    fn move_mode(&mut self, m: &ast::MoveDecl, mode: &mut Option<ast::Spanned<Mode>>) {
        // Only explicit modes count; `in turn` is the default.
        if let Some(this) = m.mode.as_ref().filter(|t| t.value != Mode::ByItself) {
            match mode {
                None => *mode = Some(this.clone()),
                Some(first) if first.value != this.value => {
                    self.invalid(
                        Topic::Mode,
                        "all agents must move in the same way: `at once` or `in turn`".into(),
                        this.span,
                        "this differs from the first move rule's mode",
                        "a step is either one agent moving or all agents moving together".into(),
                    );
                }
                Some(_) => {}
            }
        }
        if let Some(t) = m.mode.as_ref().filter(|t| t.value == Mode::Together) {
            if m.mover.is_some() {
                self.invalid(
                    Topic::Mode,
                    "`together` is how all agents move: one move, made by each".into(),
                    t.span,
                    "one agent cannot move together",
                    "write `move all together: ...`; each agent then makes the move chosen, as \
                     it can"
                        .into(),
                );
            }
            if let Some(item) = m.moves.iter().find(|i| {
                matches!(&i.what, ast::MoveWhat::Kind(k) if matches!(
                    k.value,
                    MoveKind::Forward | MoveKind::Back | MoveKind::TurnLeft | MoveKind::TurnRight
                ))
            }) {
                self.invalid(
                    Topic::Mode,
                    "agents moving together move by directions, not along their headings".into(),
                    item.what.span(),
                    "a move along a heading",
                    "each agent's heading could point another way: give `together` directions, \
                     offsets and slides"
                        .into(),
                );
            }
        }
    }

    /// The moves of a move list, checked: each once, with its cost, its
    /// conditions and its table.
    fn moves_of(&mut self, items: &[Expanded], targets: &[AgentId]) -> Vec<Move> {
        let mut moves: Vec<Move> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for (kind, cost, guards, rows, letter) in items {
            let Some(table) = self.move_table(kind, rows, targets) else {
                continue;
            };
            let mut parts = Vec::new();
            for g in guards {
                parts.extend(self.guard(g));
            }
            if parts.len() < guards.len() {
                continue;
            }
            let guard = match parts.len() {
                0 => None,
                1 => parts.pop(),
                _ => Some(Expr::And(parts)),
            };
            if let Some(g) = &guard {
                self.check_way(kind, g, targets);
                self.check_has_self(kind, g, targets);
            }
            let cost = match cost {
                Some(c) => {
                    self.has_costs = true;
                    self.cost(c)
                }
                None => Some(self.unit_price()),
            };
            let Some(cost) = cost else { continue };
            if !self.check_offset(kind) {
                continue;
            }
            if let MoveKind::Slide(_) = kind.value {
                self.first_slide.get_or_insert(kind.span);
            }
            // A move listed twice (often once directly and once in a set)
            // would be one move with two costs: which one was meant?
            if let Some(k) = moves.iter().position(|mv| mv.kind == kind.value) {
                self.err(RuleError::Repeated {
                    what: "a move in one move list",
                    span: kind.span,
                    first: spans[k],
                });
                continue;
            }
            let letter = letter.as_ref().and_then(|l| self.letter(l));
            moves.push(Move {
                kind: kind.value,
                cost,
                guard,
                table,
                letter,
            });
            spans.push(kind.span);
        }
        moves
    }

    /// `poses PIECE { NAME (r, c)... }`: a piece of one marker, each pose
    /// named once, with (0, 0) among its cells, declared once.
    pub(super) fn poses_decl(&mut self, p: &ast::PosesDecl) {
        let Some(a) = self.agent(&p.piece) else {
            return;
        };
        let agent = &self.agents[a.ix()];
        let name = agent.name.clone();
        if agent.piece.is_none() || agent.max_members != 1 || agent.piece == Some(true) {
            self.invalid(
                Topic::Pose,
                format!("`{name}` is not a piece of one marker: it cannot have poses"),
                p.piece.span,
                "poses for this",
                format!(
                    "poses belong to a piece of one marker, not `lengthwise`: `piece {name} 'B' \
                     on floor`"
                ),
            );
            return;
        }
        if !agent.poses.is_empty() {
            self.invalid(
                Topic::Pose,
                format!("`{name}` has its poses already"),
                p.piece.span,
                "given again",
                "list every pose in one `poses` block".into(),
            );
            return;
        }
        let mut poses: Vec<(String, Vec<(i32, i32)>)> = Vec::new();
        for (pose, cells) in &p.poses {
            if poses.iter().any(|(n, _)| *n == pose.name) {
                self.invalid(
                    Topic::Pose,
                    format!("pose `{}` is given twice", pose.name),
                    pose.span,
                    "again",
                    "give each pose one name and one list of cells".into(),
                );
                continue;
            }
            let cells: Vec<(i32, i32)> = cells.iter().map(|d| (d.dr, d.dc)).collect();
            let far = cells
                .iter()
                .any(|&(r, c)| r.unsigned_abs() > MAX_REACH || c.unsigned_abs() > MAX_REACH);
            let mut sorted = cells.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if !cells.contains(&(0, 0)) || far || sorted.len() != cells.len() {
                self.invalid(
                    Topic::Pose,
                    format!(
                        "pose `{}` needs its anchor and distinct cells near it",
                        pose.name
                    ),
                    pose.span,
                    "these cells",
                    format!(
                        "list the anchor `(0, 0)` among the pose's cells, each once, at most \
                         {MAX_REACH} rows and columns from it"
                    ),
                );
            }
            poses.push((pose.name.clone(), sorted));
        }
        self.agents[a.ix()].poses = poses;
    }

    /// The table of a piece's move (`north { up -> long (-2, 0), ... }`):
    /// a row for each of its poses, and none for any other agent.
    pub(super) fn move_table(
        &mut self,
        kind: &ast::Spanned<MoveKind>,
        rows: &[ast::TableRow],
        agents: &[AgentId],
    ) -> Option<Vec<(u32, (i32, i32))>> {
        let posed: Vec<AgentId> = agents
            .iter()
            .copied()
            .filter(|a| !self.agents[a.ix()].poses.is_empty())
            .collect();
        let what = kind.value.name();
        if posed.is_empty() {
            if let Some(r) = rows.first() {
                self.invalid(
                    Topic::Pose,
                    format!("`{what}` has a table of poses, and no piece here has poses"),
                    r.span,
                    "a table",
                    "declare the piece's poses (`poses PIECE { NAME (0, 0) ... }`), or give a \
                     plain move"
                        .into(),
                );
                return None;
            }
            return Some(Vec::new());
        }
        if posed.len() != agents.len() || posed.len() > 1 {
            self.invalid(
                Topic::Pose,
                format!("`{what}` of a piece with poses is its own: move it alone"),
                kind.span,
                "a move of several agents",
                "give the piece a `move` rule of its own".into(),
            );
            return None;
        }
        let poses = self.agents[posed[0].ix()].poses.clone();
        let name = self.agents[posed[0].ix()].name.clone();
        if rows.is_empty() {
            self.invalid(
                Topic::Pose,
                format!("`{what}` of `{name}` needs a table of its poses"),
                kind.span,
                "a plain move",
                format!(
                    "a piece with poses moves by tables: `{what} {{ {} -> POSE (rows, columns), \
                     ... }}`",
                    poses[0].0
                ),
            );
            return None;
        }
        let find = |me: &mut Self, id: &Ident| {
            let k = poses.iter().position(|(n, _)| *n == id.name);
            if k.is_none() {
                let names: Vec<&str> = poses.iter().map(|(n, _)| n.as_str()).collect();
                me.invalid(
                    Topic::Pose,
                    format!("`{name}` has no pose `{}`", id.name),
                    id.span,
                    "no such pose",
                    format!("its poses are {}", crate::error::quote_list(&names)),
                );
            }
            k
        };
        let mut table: Vec<Option<(u32, (i32, i32))>> = vec![None; poses.len()];
        let mut ok = true;
        for r in rows {
            let (Some(from), Some(to)) = (find(self, &r.from), find(self, &r.to)) else {
                ok = false;
                continue;
            };
            if table[from].is_some() {
                self.invalid(
                    Topic::Pose,
                    format!("`{what}` from pose `{}` is given twice", r.from.name),
                    r.span,
                    "again",
                    "give each pose one row in a move's table".into(),
                );
                ok = false;
                continue;
            }
            table[from] = Some((to as u32, (r.off.dr, r.off.dc)));
        }
        if let Some(k) = table.iter().position(Option::is_none).filter(|_| ok) {
            self.invalid(
                Topic::Pose,
                format!("`{what}` has no row for pose `{}` of `{name}`", poses[k].0),
                kind.span,
                "a table without it",
                format!(
                    "give every pose a row: `{} -> POSE (rows, columns)`",
                    poses[k].0
                ),
            );
            return None;
        }
        ok.then(|| table.into_iter().flatten().collect())
    }

    /// `agent body every 'o' ... follows head`: a body of a family sized by
    /// the map, behind a single agent of one cell.
    pub(super) fn follows_decl(&mut self, a: &ast::AgentDecl) {
        let Some(lead) = &a.follows else { return };
        let Some(body) = self.lookup(&a.name.name).and_then(|d| match d {
            Def::Agent(x) => Some(x),
            _ => None,
        }) else {
            return;
        };
        let Some(leader) = self.agent(lead) else {
            return;
        };
        let (b, l) = (&self.agents[body.ix()], &self.agents[leader.ix()]);
        let problem = if !matches!(b.start, Start::Every) || b.object || b.piece.is_some() {
            Some((
                a.name.span,
                format!(
                    "`{}` follows, but is not a body of one member per marker",
                    b.name
                ),
                format!(
                    "a body is `agent {} every 'o' on TILE follows {}`: a member on every \
                     cell so marked, in order from the leader",
                    b.name, l.name
                ),
            ))
        } else if l.several() || l.piece.is_some() || leader == body || l.follows.is_some() {
            Some((
                lead.span,
                format!("`{}` cannot lead a body", l.name),
                "a body follows a single agent of one cell that is no body itself".into(),
            ))
        } else {
            // Two bodies would both step into the one cell the leader leaves.
            (self.agents.iter().find(|x| x.follows == Some(leader))).map(|other| {
                (
                    lead.span,
                    format!(
                        "`{}` already leads `{}`: one body a leader",
                        l.name, other.name
                    ),
                    format!(
                        "a leader has one body behind it; for a longer one, mark `{}` and `{}` \
                         with one marker",
                        other.name, b.name
                    ),
                )
            })
        };
        if let Some((span, message, help)) = problem {
            self.invalid(
                Topic::Body,
                message,
                span,
                "not a body behind one agent",
                help,
            );
            return;
        }
        self.agents[body.ix()].follows = Some(leader);
    }

    /// `move AGENT by itself`: one agent (or family) of one cell, moving
    /// by directions, offsets, slides and `stay`, beside agents that take
    /// turns. False (reported) when it is not.
    pub(super) fn script_checks(&mut self, m: &ast::MoveDecl, span: Span) -> bool {
        let Some(who) = &m.mover else {
            self.invalid(
                Topic::ByItself,
                "`all` agents cannot move by themselves: nothing would be left to choose".into(),
                span,
                "every agent",
                "name the agent that moves on its own: `move guard by itself: ...`".into(),
            );
            return false;
        };
        let Some(a) = self.agent(who) else {
            return false;
        };
        let agent = &self.agents[a.ix()];
        let name = agent.name.clone();
        if agent.piece.is_some() || agent.facing.is_some() {
            let what = if agent.piece.is_some() {
                "a piece"
            } else {
                "an agent with a heading"
            };
            self.invalid(
                Topic::ByItself,
                format!("`{name}` is {what}: it cannot move by itself yet"),
                span,
                "moves by itself",
                "agents that move by themselves are agents of one cell without a heading".into(),
            );
            return false;
        }
        if let Some(n) = &m.times
            && let Some(k) = self
                .num(n, Allow::Map, "how many moves")
                .and_then(|n| n.constant())
            && !(1..=MAX_SCRIPT_TIMES).contains(&k)
        {
            self.invalid(
                Topic::ByItself,
                format!("`{name}` would move {k} times a step"),
                span,
                "how many times",
                format!("an agent moves by itself 1 to {MAX_SCRIPT_TIMES} times a step"),
            );
            return false;
        }
        if let Some(item) = m.moves.iter().find(|i| {
            matches!(&i.what, ast::MoveWhat::Kind(k) if matches!(
                k.value,
                MoveKind::Forward | MoveKind::Back | MoveKind::TurnLeft | MoveKind::TurnRight
            ))
        }) {
            self.invalid(
                Topic::ByItself,
                "an agent moving by itself moves by directions, offsets and slides".into(),
                item.what.span(),
                "a move along a heading",
                "give it directions, offsets, slides and `stay`".into(),
            );
            return false;
        }
        true
    }
}

/// A marker list as symbols: a range `'a'..` runs for the family's size
/// when it is known, else as far as its kind of symbol goes.
fn expand(m: &ast::Markers, lit_size: Option<usize>) -> Vec<ast::Symbol> {
    if m.range {
        let first = &m.symbols[0];
        let run = marker_run(&first.text, first.is_char, MAX_RUN);
        let n = lit_size.unwrap_or(run.len()).min(run.len());
        run.into_iter()
            .take(n)
            .map(|text| ast::Symbol {
                text,
                span: first.span,
                is_char: first.is_char,
            })
            .collect()
    } else {
        m.symbols.clone()
    }
}
