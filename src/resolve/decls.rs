//! The resolver's declarations: tiles and their properties, layouts,
//! flags and counters, teleports, carrying tiles, pushes, and the checks
//! that tie them to the movers.

use super::*;

impl Resolver {
    /// `carry PATTERN WAY`: one way a cell, whichever rules match it.
    pub(super) fn carry_decl(&mut self, c: &ast::CarryDecl, carries: &mut Vec<Carry>) {
        self.bound_used = false;
        let Some((tile, value, scope)) = self.pattern(&c.pattern) else {
            return;
        };
        self.warn_if_solid(tile, c.pattern.span, "being carried off this tile");
        let way = match &c.way {
            ast::CarryWay::Dir(d, _) => {
                self.check_binding(&scope);
                CarryWay::Dir(*d)
            }
            ast::CarryWay::Var(v) => {
                if !self.direction_var(v, &scope, "carry belt(?w) ?w") {
                    return;
                }
                CarryWay::Bound
            }
        };
        let overlaps = |x: &Carry| {
            x.tile == tile
                && match (x.value, value) {
                    (ValueSel::Value(a), ValueSel::Value(b)) => a == b,
                    _ => true,
                }
        };
        if let Some(first) = carries.iter().find(|x| overlaps(x)) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a way to carry what stands on one tile",
                span: c.span,
                first,
            });
            return;
        }
        carries.push(Carry {
            tile,
            value,
            way,
            span: c.span,
        });
    }

    /// `push OBJECT costs N`.
    pub(super) fn push_decl(&mut self, p: &ast::PushDecl, pushes: &mut HashMap<AgentId, Span>) {
        let Some(a) = self.agent(&p.object) else {
            return;
        };
        if !self.agents[a.ix()].object {
            let name = p.object.name.clone();
            self.invalid(
                Topic::Push,
                format!("`{name}` is an agent, not an object: it is never pushed"),
                p.object.span,
                "an agent",
                format!("declare what agents push with `object {name} 'X' on TILE`"),
            );
            return;
        }
        if let Some(first) = pushes.insert(a, p.span) {
            self.err(RuleError::Repeated {
                what: "a push cost for one object",
                span: p.span,
                first,
            });
            return;
        }
        self.has_costs = true;
        if let Some(c) = self.cost(&p.cost) {
            self.agents[a.ix()].push_cost = Some(c);
        }
    }

    /// Objects are pushed by an agent stepping in turn: not by agents moving
    /// at once (two could push one object two ways). A slide never pushes:
    /// agents that only slide never move an object (a warning).
    pub(super) fn object_checks(&mut self, mode: Option<&ast::Spanned<Mode>>) {
        let Some(obj) = self.agents.iter().find(|a| a.object) else {
            return;
        };
        let (name, span) = (obj.name.clone(), obj.span);
        let pushers = self
            .agents
            .iter()
            .filter(|a| !a.object && a.piece.is_none());
        let steps = |a: &Agent| {
            a.moves.iter().any(|m| {
                matches!(m.kind, MoveKind::Forward | MoveKind::Back)
                    || matches!(m.kind, MoveKind::Dir(d) if (d.dr, d.dc) != (0, 0))
            })
        };
        if !pushers.clone().any(steps) && pushers.clone().any(|a| !a.moves.is_empty()) {
            self.err(RuleError::Never {
                message: format!("object `{name}` is never pushed: the agents only slide"),
                span,
                label: "never moves".into(),
                help: "a slide stops before an object, it never pushes one: give an agent \
                       steps (`north east south west`) to push with"
                    .into(),
            });
        }
        if let Some(m) = mode.filter(|m| m.value != Mode::InTurn) {
            self.err(RuleError::from(Invalid {
                topic: Topic::Mode,
                message: format!("object `{name}` needs agents that move in turn"),
                span: m.span,
                label: "agents that move at once or together".into(),
                help: "two agents moving at once could push one object two ways, and agents \
                       moving together do not push objects yet: write `in turn`"
                    .into(),
            }));
        }
    }

    /// Pieces move in turn, by steps and slides, and ride slippery tiles;
    /// teleports and objects do not go with them yet.
    pub(super) fn piece_checks(
        &mut self,
        mode: Option<&ast::Spanned<Mode>>,
        teleports: &[Teleport],
    ) {
        let Some(piece) = self.agents.iter().find(|a| a.piece.is_some()) else {
            return;
        };
        let name = piece.name.clone();
        if let Some(m) = mode.filter(|m| m.value != Mode::InTurn) {
            self.err(RuleError::from(Invalid {
                topic: Topic::Mode,
                message: format!("piece `{name}` needs agents that move in turn"),
                span: m.span,
                label: "agents that move at once or together".into(),
                help: "pieces of several cells moving together could cross each other: write \
                       `in turn`"
                    .into(),
            }));
        }
        let object = self
            .agents
            .iter()
            .find(|a| a.object)
            .map(|a| (a.span, "an object"));
        let teleport = teleports.first().map(|t| (t.span, "a teleport"));
        if let Some((span, what)) = teleport.or(object) {
            self.err(RuleError::from(Invalid {
                topic: Topic::Piece,
                message: format!("{what} and pieces larger than a cell cannot go together yet"),
                span,
                label: format!("{what}, with piece `{name}` declared"),
                help: "pieces step, slide and ride slippery tiles, but neither teleport nor \
                       push: drop one of the two"
                    .into(),
            }));
        }
    }

    /// `teleport TILE [optional]`.
    pub(super) fn teleport_decl(&mut self, t: &ast::TeleportDecl, teleports: &mut Vec<Teleport>) {
        let Some(tile) = self.tile(&t.tile) else {
            return;
        };
        if let Some(first) = teleports.iter().find(|x| x.tile == tile) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a teleport of one tile",
                span: t.span,
                first,
            });
            return;
        }
        let def = &self.tiles[tile.ix()];
        let name = def.name.clone();
        if def.border {
            self.invalid(
                Topic::Teleport,
                format!("tile `{name}` rings the map: it cannot be a teleport's end"),
                t.tile.span,
                "its ends would be every cell of the ring",
                "teleport with a tile of the map's own".into(),
            );
            return;
        }
        if def.solid || def.slippery {
            let what = if def.solid { "solid" } else { "slippery" };
            self.invalid(
                Topic::Teleport,
                format!("tile `{name}` is {what}: it cannot be a teleport's end"),
                t.tile.span,
                "a mover steps onto a teleport's end",
                format!("drop `{what}` from `{name}`, or teleport with another tile"),
            );
            return;
        }
        teleports.push(Teleport {
            tile,
            optional: t.optional,
            span: t.span,
        });
    }

    /// The first construct that moves an agent further than the next cell:
    /// a slide, a slippery tile, a teleport; its span and what it is.
    pub(super) fn far_construct(&self, teleports: &[Teleport]) -> Option<(Span, &'static str)> {
        let slide = self.first_slide.map(|s| (s, "a slide"));
        let slippery = self
            .tiles
            .iter()
            .find(|t| t.slippery)
            .map(|t| (t.span, "a slippery tile"));
        let teleport = teleports.first().map(|t| (t.span, "a teleport"));
        slide.or(slippery).or(teleport)
    }

    /// Slides, slippery tiles and teleports need agents that move in turn:
    /// at once, where each of several sliding agents stops would depend on
    /// the order they are taken in.
    pub(super) fn far_checks(&mut self, mode: Option<&ast::Spanned<Mode>>, teleports: &[Teleport]) {
        if mode.is_some_and(|m| m.value == Mode::Together)
            && let Some(t) = teleports.first()
        {
            self.err(RuleError::from(Invalid {
                topic: Topic::Mode,
                message: "a teleport needs agents that move in turn".into(),
                span: t.span,
                label: "a teleport, and agents that move together".into(),
                help: "agents moving together do not go through teleports yet: write `in turn`"
                    .into(),
            }));
        }
        if mode.is_none_or(|m| m.value != Mode::AtOnce) {
            return;
        }
        if let Some((span, what)) = self.far_construct(teleports) {
            self.err(RuleError::from(Invalid {
                topic: Topic::Mode,
                message: format!("{what} needs agents that move in turn"),
                span,
                label: format!("{what}, and agents that move at once"),
                help: "where sliding agents stop would depend on who moves first: write \
                       `in turn` instead of `at once`"
                    .into(),
            }));
        }
    }

    pub(super) fn tile_def(&mut self, t: &ast::TileDef) {
        let domain = t.domain.as_ref().and_then(|d| self.domain(d));
        let id = TileId(self.tiles.len() as u32);
        if !self.define(&t.name, Def::Tile(id)) {
            return;
        }
        if let Some(d) = domain {
            let n = self.domains[d.ix()].values.len();
            if n != t.symbols.len() {
                let dn = self.domains[d.ix()].name.clone();
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "tile `{}` has {} symbols but domain `{dn}` has {n} values",
                        t.name.name,
                        t.symbols.len()
                    ),
                    span: t.name.span,
                    label: "the symbols stand for the domain's values, in order".into(),
                    help: format!(
                        "give exactly one symbol per value of `{dn}`: {}",
                        self.domains[d.ix()].values.join(" ")
                    ),
                });
            }
        }
        for (i, c) in t.symbols.iter().enumerate() {
            let value = domain.map(|_| i as u32);
            let what = format!("tile `{}`", t.name.name);
            self.claim(c, Glyph::Tile(id, value), what);
        }
        let (mut solid, mut opaque, mut slippery, mut stops) = (None, false, None, None);
        let mut border = None;
        for p in &t.props {
            match p.name.as_str() {
                "solid" => solid = Some(p.span),
                "opaque" => opaque = true,
                "slippery" => slippery = Some(p.span),
                "stops" => stops = Some(p.span),
                "border" => border = Some(p.span),
                _ => {
                    let help = did_you_mean(
                        &p.name,
                        ["solid", "opaque", "slippery", "stops", "border"],
                        "properties",
                    );
                    self.err(RuleError::UnknownProperty {
                        name: p.name.clone(),
                        span: p.span,
                        help,
                    });
                }
            }
        }
        // A slide crosses slippery tiles and ends on those that stop it:
        // neither can be solid, and no tile is both.
        for (what, sp) in [("slippery", slippery), ("stops", stops)] {
            if let (Some(sp), Some(_)) = (sp, solid) {
                self.invalid(
                    Topic::Tile,
                    format!("tile `{}` is solid and {what}", t.name.name),
                    sp,
                    "no mover ever stands on a solid tile",
                    format!("drop `solid` or `{what}`"),
                );
            }
        }
        if let (Some(sp), Some(_)) = (stops, slippery) {
            self.invalid(
                Topic::Tile,
                format!("tile `{}` is slippery and stops slides", t.name.name),
                sp,
                "a slippery tile carries a mover on",
                "a tile either carries a slide on (`slippery`) or ends it (`stops`)".into(),
            );
        }
        if let Some(sp) = border {
            self.border_checks(t, sp, domain, solid.is_some());
        }
        self.tiles.push(Tile {
            name: t.name.name.clone(),
            domain,
            solid: solid.is_some(),
            opaque,
            slippery: slippery.is_some(),
            stops: stops.is_some(),
            border: border.is_some(),
            span: t.name.span,
        });
    }

    /// A ring tile (`border`) is one tile, without a parameter (which
    /// value would the ring have?), that a mover can stand on.
    pub(super) fn border_checks(
        &mut self,
        t: &ast::TileDef,
        sp: Span,
        domain: Option<DomainId>,
        solid: bool,
    ) {
        if let Some(first) = self.tiles.iter().find(|x| x.border) {
            let first = first.span;
            self.err(RuleError::Repeated {
                what: "a border tile",
                span: sp,
                first,
            });
        } else if domain.is_some() {
            self.invalid(
                Topic::Border,
                format!(
                    "tile `{}` has a parameter: it cannot ring the map",
                    t.name.name
                ),
                sp,
                "every cell of the ring would need one value",
                "give the ring a tile of its own, without `of`".into(),
            );
        } else if solid {
            self.invalid(
                Topic::Border,
                format!(
                    "tile `{}` is solid: a ring of it changes nothing",
                    t.name.name
                ),
                sp,
                "no mover ever stands on a solid tile",
                "the edge of the map already stops every mover; drop `border`, or `solid`".into(),
            );
        }
    }

    pub(super) fn layout_decl(&mut self, l: &ast::LayoutDecl) {
        let id = LayoutId(self.layouts.len() as u32);
        if !self.define(&l.name, Def::Layout(id)) {
            return;
        }
        let span = l.rows.first().map_or(l.name.span, |r| r.span);
        self.layouts.push(LayoutDef {
            name: l.name.name.clone(),
            rows: l.rows.iter().map(|r| r.value.clone()).collect(),
            span,
        });
    }

    /// What a state's `[...]` names: a domain, or a tile.
    pub(super) fn state_index(&mut self, index: Option<&Ident>) -> StateIndex {
        let Some(ix) = index else {
            return StateIndex::None;
        };
        if let Some((Def::Domain(d), _)) = self.domain_names.get(&ix.name) {
            return StateIndex::Domain(*d);
        }
        if let Some(Def::Tile(t)) = self.lookup(&ix.name) {
            return StateIndex::Tile(t);
        }
        let mut cands: Vec<&str> = self.domain_names.keys().map(String::as_str).collect();
        cands.extend(self.names_of("tile"));
        let help = did_you_mean(&ix.name, cands, "domains and tiles");
        let (name, span) = (ix.name.clone(), ix.span);
        self.err(RuleError::UnknownDomain { name, span, help });
        StateIndex::None
    }

    pub(super) fn define_state(&mut self, name: &Ident, kind: StateKind, index: StateIndex) {
        let id = StateId(self.states.len() as u32);
        if self.define(name, Def::State(id)) {
            self.states.push(State {
                name: name.name.clone(),
                kind,
                index,
                span: name.span,
            });
        }
    }

    pub(super) fn counter_decl(&mut self, c: &ast::CounterDecl) {
        let index = self.state_index(c.index.as_ref());
        let lo = self.num(&c.lo, Allow::Map, "a counter's range");
        let hi = self.num(&c.hi, Allow::Map, "a counter's range");
        let init = c
            .init
            .as_ref()
            .and_then(|i| self.num(i, Allow::Map, "a counter's start"));
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return;
        };
        for (n, e) in [(&lo, &c.lo), (&hi, &c.hi)] {
            if let Some(v) = n.constant()
                && !(-COUNTER_BOUND..=COUNTER_BOUND).contains(&v)
            {
                self.invalid(
                    Topic::Counter,
                    format!("counter `{}` has a bound of {v}", c.name.name),
                    e.span(),
                    "beyond what the engine holds",
                    format!("a counter's bounds lie within -{COUNTER_BOUND}..{COUNTER_BOUND}"),
                );
            }
        }
        if let (Some(a), Some(b)) = (lo.constant(), hi.constant()) {
            if i128::from(b) - i128::from(a) >= i128::from(MAX_COUNTER) {
                self.invalid(
                    Topic::Counter,
                    format!(
                        "counter `{}` has {} values, more than the engine packs",
                        c.name.name,
                        i128::from(b) - i128::from(a) + 1
                    ),
                    c.span,
                    "too many values",
                    format!("a counter's range has at most {MAX_COUNTER} values"),
                );
            }
            if a > b {
                self.invalid(
                    Topic::Counter,
                    format!("counter `{}` has the empty range {a}..{b}", c.name.name),
                    c.span,
                    "no value",
                    "write the smallest value first: `LO..HI`".into(),
                );
            }
            if let Some(v) = init.as_ref().and_then(Num::constant)
                && !(a..=b).contains(&v)
            {
                self.invalid(
                    Topic::Counter,
                    format!("counter `{}` starts at {v}, outside {a}..{b}", c.name.name),
                    c.init.as_ref().map_or(c.span, |i| i.span()),
                    "out of range",
                    format!("start it within {a}..{b}"),
                );
            }
        }
        let kind = StateKind::Counter {
            lo,
            hi,
            wrap: c.wrap,
            init,
        };
        self.define_state(&c.name, kind, index);
    }

    /// Warns when a rule needs an agent on a tile no agent can stand on.
    pub(super) fn warn_if_solid(&mut self, tile: TileId, span: Span, what: &str) {
        let t = &self.tiles[tile.ix()];
        if t.solid {
            let name = t.name.clone();
            self.errors.push(RuleError::Never {
                message: format!("{what} can never happen: `{name}` is solid"),
                span,
                label: "no agent ever stands here".into(),
                help: format!("remove `solid` from `{name}`, or remove the rule"),
            });
        }
    }
}
