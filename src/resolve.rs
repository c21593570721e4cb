//! Phase 2: [`ast::File`] -> [`Rules`]. Resolves every name to an id, checks
//! parameter domains and predicate kinds, builds the legend, and fills in
//! defaults.
//!
//! Invariant of [`Rules`]: every id indexes its table; every flag index has the
//! flag's domain; every tile value is in its tile's domain; the legend maps
//! each character to one thing. What is still unknown is only what depends on
//! a map: family sizes and sizes given by header fields.

use crate::ast::{
    self, Cases, Dir, Forbid, Ident, Mode, OutputKind, Property, Relation, Span, Verb,
};
use crate::error::{RuleError, did_you_mean};
use hashbrown::HashMap;

macro_rules! newtype_id {
    ($($(#[$m:meta])* $name:ident),*) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn ix(self) -> usize { self.0 as usize }
        }
    )*};
}
newtype_id!(
    /// Index into [`Rules::domains`].
    DomainId,
    /// Index into [`Rules::tiles`].
    TileId,
    /// Index into [`Rules::agents`] (a family is one agent declaration).
    AgentId,
    /// Index into [`Rules::flags`].
    FlagId
);

/// The checked rules of a puzzle: everything that does not depend on a map.
#[derive(Debug, Clone)]
pub struct Rules {
    pub title: String,
    pub io: Io,
    pub domains: Vec<Domain>,
    pub tiles: Vec<Tile>,
    pub legend: HashMap<char, Glyph>,
    pub agents: Vec<Agent>,
    pub flags: Vec<Flag>,
    pub mode: Mode,
    pub forbid_same_cell: bool,
    pub forbid_swap: bool,
    pub enter_rules: Vec<EnterRule>,
    pub on_enter: Vec<OnEnter>,
    pub when: Vec<When>,
    pub goal: Expr,
    pub limit: Option<SizeRef>,
}

/// A parameter domain: `colour = blue yellow red green`.
#[derive(Debug, Clone)]
pub struct Domain {
    pub name: String,
    pub values: Vec<String>,
}

/// A tile of the legend.
#[derive(Debug, Clone)]
pub struct Tile {
    pub name: String,
    pub domain: Option<DomainId>,
    pub solid: bool,
    pub opaque: bool,
    pub span: Span,
}

/// What a map character stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glyph {
    /// A tile, with the parameter value the character picks.
    Tile(TileId, Option<u32>),
    /// The start of a member of an agent (0 for a single agent); the cell
    /// underneath is the agent's `on` tile.
    Start(AgentId, u32),
    /// The target of a member of an agent, on the agent's `on` tile.
    Target(AgentId, u32),
}

/// An agent, or a family of agents.
#[derive(Debug, Clone)]
pub struct Agent {
    pub name: String,
    /// `None` for a single agent.
    pub family: Option<SizeRef>,
    /// The largest family size the markers allow.
    pub max_members: u32,
    pub has_targets: bool,
    pub on: TileId,
    pub opaque: bool,
    /// The directions it may move in; empty if it never moves.
    pub moves: Vec<Dir>,
    pub span: Span,
}

/// A flag, alone or one per value of a domain.
#[derive(Debug, Clone)]
pub struct Flag {
    pub name: String,
    pub domain: Option<DomainId>,
    pub span: Span,
}

/// A number known now, or a header field read per map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeRef {
    Lit(u64),
    /// Index into [`Io::header`].
    Field(usize),
}

/// Which parameter values of a tile a pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSel {
    /// Any value; the pattern binds none (or the tile has no parameter).
    Any,
    /// Any value, bound to the pattern's variable.
    Bind,
    /// One value.
    Value(u32),
}

/// The index of an indexed flag in an expression or action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexRef {
    /// The flag is not indexed.
    None,
    Value(u32),
    /// The value bound by the enclosing rule's pattern.
    Bound,
}

/// Which members of an agent an `on` predicate speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Members {
    One,
    Every,
    Any,
}

/// Where an agent stands, in an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceRef {
    Target,
    Tile(TileId, ValueSel),
}

/// A checked predicate over a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    On {
        agent: AgentId,
        members: Members,
        place: PlaceRef,
    },
    Flag {
        flag: FlagId,
        index: IndexRef,
    },
    AllFlags(FlagId),
    AnyFlag(FlagId),
}

/// `enter gate(c) only if have[c]`.
#[derive(Debug, Clone)]
pub struct EnterRule {
    pub tile: TileId,
    pub value: ValueSel,
    pub cond: Expr,
}

/// `set have[c]`.
#[derive(Debug, Clone, Copy)]
pub struct Action {
    pub verb: Verb,
    pub flag: FlagId,
    pub index: IndexRef,
}

/// `on enter key(c): set have[c]`.
#[derive(Debug, Clone)]
pub struct OnEnter {
    pub agent: Option<AgentId>,
    pub tile: TileId,
    pub value: ValueSel,
    pub actions: Vec<Action>,
}

/// `when watcher sees lamp(h): set seen[h]`.
#[derive(Debug, Clone)]
pub struct When {
    pub agent: AgentId,
    pub relation: Relation,
    pub tile: TileId,
    pub value: ValueSel,
    pub actions: Vec<Action>,
}

/// How input files are read and answers printed.
#[derive(Debug, Clone)]
pub struct Io {
    pub cases: Cases,
    pub header: Vec<String>,
    /// `None`: take the size from the grid itself.
    pub rows: Option<SizeRef>,
    pub cols: Option<SizeRef>,
    pub before: Option<Template>,
    pub solved: Template,
    pub unsolved: Template,
}

/// An output line with placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(pub Vec<Seg>);

/// A piece of an output template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Lit(String),
    Case,
    Steps,
    Field(usize),
}

impl Template {
    /// The line for one case.
    pub fn render(&self, case: usize, steps: Option<u64>, header: &[i64]) -> String {
        let mut out = String::new();
        for s in &self.0 {
            match s {
                Seg::Lit(t) => out.push_str(t),
                Seg::Case => out.push_str(&case.to_string()),
                Seg::Steps => {
                    if let Some(n) = steps {
                        out.push_str(&n.to_string())
                    }
                }
                Seg::Field(i) => out.push_str(&header.get(*i).copied().unwrap_or(0).to_string()),
            }
        }
        out
    }
}

/// The markers of a character class, for `'a'..` ranges.
pub fn marker_run(first: char) -> Vec<char> {
    let end = match first {
        'a'..='z' => 'z',
        'A'..='Z' => 'Z',
        '0'..='9' => '9',
        c => c,
    };
    (first..=end).collect()
}

/// Resolves and checks a parsed rule file. Returns the rules and the warnings,
/// or every error found (warnings included).
pub fn resolve(file: &ast::File) -> Result<(Rules, Vec<RuleError>), Vec<RuleError>> {
    let mut r = Resolver::default();
    r.run(file);
    let (warnings, errors): (Vec<_>, Vec<_>) = r.errors.into_iter().partition(|e| e.is_warning());
    match r.rules {
        Some(rules) if errors.is_empty() => Ok((rules, warnings)),
        // Warnings next to errors are mostly echoes of them (a flag "never
        // set" because the rule setting it has a typo): leave them out.
        _ => Err(errors),
    }
}

/// What a name in the shared namespace refers to.
#[derive(Debug, Clone, Copy)]
enum Def {
    Domain(DomainId),
    Tile(TileId),
    Agent(AgentId),
    Flag(FlagId),
}

impl Def {
    fn kind(self) -> &'static str {
        match self {
            Def::Domain(_) => "domain",
            Def::Tile(_) => "tile",
            Def::Agent(_) => "agent",
            Def::Flag(_) => "flag",
        }
    }
}

#[derive(Default)]
struct Resolver {
    errors: Vec<RuleError>,
    /// Tiles, agents and flags share this namespace.
    names: HashMap<String, (Def, Span)>,
    /// Domains have their own: `domain lamp` and `tile lamp` can coexist.
    domain_names: HashMap<String, (Def, Span)>,
    domains: Vec<Domain>,
    tiles: Vec<Tile>,
    agents: Vec<Agent>,
    flags: Vec<Flag>,
    header: Vec<String>,
    legend: HashMap<char, (Glyph, Span, String)>,
    rules: Option<Rules>,
}

/// The domain of the variable bound by a rule's pattern, if any.
type Scope = Option<(String, DomainId)>;

impl Resolver {
    fn err(&mut self, e: RuleError) {
        self.errors.push(e);
    }

    fn define(&mut self, name: &Ident, def: Def) -> bool {
        let names = if matches!(def, Def::Domain(_)) {
            &mut self.domain_names
        } else {
            &mut self.names
        };
        if let Some((old, first)) = names.get(&name.name) {
            let kind = if old.kind() == def.kind() {
                def.kind()
            } else {
                "name"
            };
            let e = RuleError::Duplicate {
                kind,
                name: name.name.clone(),
                span: name.span,
                first: *first,
            };
            self.err(e);
            return false;
        }
        names.insert(name.name.clone(), (def, name.span));
        true
    }

    fn lookup(&self, name: &str) -> Option<Def> {
        self.names.get(name).map(|(d, _)| *d)
    }

    fn names_of(&self, kind: &str) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .names
            .iter()
            .filter(|(_, (d, _))| d.kind() == kind)
            .map(|(n, _)| n.as_str())
            .collect();
        v.sort();
        v
    }

    fn unknown(&mut self, kind: &str, id: &Ident) {
        let help = did_you_mean(&id.name, self.names_of(kind), &format!("{kind}s"));
        let (name, span) = (id.name.clone(), id.span);
        // A name that exists with another kind is a kind error, not a typo.
        if let Some(other) = self.lookup(&id.name) {
            let e = RuleError::WrongKind {
                message: format!("`{name}` is a {}, not a {kind}", other.kind()),
                span,
                label: format!("expected a {kind} here"),
                help,
            };
            return self.err(e);
        }
        self.err(match kind {
            "tile" => RuleError::UnknownTile { name, span, help },
            "agent" => RuleError::UnknownAgent { name, span, help },
            _ => RuleError::UnknownFlag { name, span, help },
        });
    }

    fn tile(&mut self, id: &Ident) -> Option<TileId> {
        match self.lookup(&id.name) {
            Some(Def::Tile(t)) => Some(t),
            _ => {
                self.unknown("tile", id);
                None
            }
        }
    }

    fn agent(&mut self, id: &Ident) -> Option<AgentId> {
        match self.lookup(&id.name) {
            Some(Def::Agent(a)) => Some(a),
            _ => {
                self.unknown("agent", id);
                None
            }
        }
    }

    fn flag(&mut self, id: &Ident) -> Option<FlagId> {
        match self.lookup(&id.name) {
            Some(Def::Flag(f)) => Some(f),
            _ => {
                self.unknown("flag", id);
                None
            }
        }
    }

    fn domain(&mut self, id: &Ident) -> Option<DomainId> {
        match self.domain_names.get(&id.name) {
            Some((Def::Domain(d), _)) => Some(*d),
            _ => {
                let help = did_you_mean(
                    &id.name,
                    self.domain_names.keys().map(String::as_str),
                    "domains",
                );
                let (name, span) = (id.name.clone(), id.span);
                self.err(RuleError::UnknownDomain { name, span, help });
                None
            }
        }
    }

    fn size(&mut self, s: &ast::Size, what: &str) -> Option<SizeRef> {
        match s {
            ast::Size::Lit(n) => Some(SizeRef::Lit(n.value)),
            ast::Size::Field(f) => match self.header.iter().position(|h| *h == f.name) {
                Some(i) => Some(SizeRef::Field(i)),
                None => {
                    let mut help = did_you_mean(
                        &f.name,
                        self.header.iter().map(String::as_str),
                        "header fields",
                    );
                    help.push_str(&format!(
                        " ({what} is a number or a name from the input's `header` line)"
                    ));
                    self.err(RuleError::UnknownField {
                        name: f.name.clone(),
                        span: f.span,
                        help,
                    });
                    None
                }
            },
        }
    }

    fn claim(&mut self, ch: char, glyph: Glyph, span: Span, what: String) {
        if let Some((_, first, first_what)) = self.legend.get(&ch) {
            let e = RuleError::LegendConflict {
                ch,
                span,
                what,
                first: *first,
                first_what: first_what.clone(),
            };
            self.err(e);
        } else {
            self.legend.insert(ch, (glyph, span, what));
        }
    }

    fn run(&mut self, file: &ast::File) {
        use ast::Decl as D;
        // Pass 1: the header and every definition, so later uses can refer
        // to names defined anywhere in the file.
        let mut title = None;
        let mut input: Option<(&Vec<ast::InputItem>, Span)> = None;
        for d in &file.decls {
            match d {
                D::Puzzle(t) => {
                    if let Some(first) = title.replace(t) {
                        self.err(RuleError::Repeated {
                            what: "the puzzle's title",
                            span: t.span,
                            first: first.span,
                        });
                    }
                }
                D::Input(items) => {
                    let sp = items_span(items);
                    if let Some((_, first)) = input.replace((items, sp)) {
                        self.err(RuleError::Repeated {
                            what: "the `input` block",
                            span: sp,
                            first,
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some((items, _)) = input {
            for it in items {
                if let ast::InputItem::Header(names) = it {
                    for n in names {
                        if self.header.contains(&n.name) {
                            self.err(RuleError::Invalid {
                                message: format!("header field `{}` is named twice", n.name),
                                span: n.span,
                                label: "named again here".into(),
                                help: "give each header value its own name".into(),
                            });
                        }
                        self.header.push(n.name.clone());
                    }
                }
            }
        }
        for d in &file.decls {
            if let D::Domain(dd) = d {
                let id = DomainId(self.domains.len() as u32);
                if self.define(&dd.name, Def::Domain(id)) {
                    let mut values: Vec<String> = Vec::new();
                    for v in &dd.values {
                        if values.contains(&v.name) {
                            self.err(RuleError::Invalid {
                                message: format!(
                                    "value `{}` appears twice in domain `{}`",
                                    v.name, dd.name.name
                                ),
                                span: v.span,
                                label: "repeated value".into(),
                                help: "each value of a domain must be distinct".into(),
                            });
                        }
                        values.push(v.name.clone());
                    }
                    self.domains.push(Domain {
                        name: dd.name.name.clone(),
                        values,
                    });
                }
            }
        }
        for d in &file.decls {
            if let D::Tiles(defs) = d {
                for t in defs {
                    self.tile_def(t);
                }
            }
        }
        for d in &file.decls {
            match d {
                D::Agent(a) => self.agent_decl(a),
                D::Flags(fs) => {
                    for f in fs {
                        let domain = f.domain.as_ref().and_then(|dn| self.domain(dn));
                        let id = FlagId(self.flags.len() as u32);
                        if self.define(&f.name, Def::Flag(id)) {
                            self.flags.push(Flag {
                                name: f.name.name.clone(),
                                domain,
                                span: f.name.span,
                            });
                        }
                    }
                }
                _ => {}
            }
        }

        // Pass 2: rules that use the names.
        let mut mode: Option<ast::Spanned<Mode>> = None;
        let mut forbid_same_cell = false;
        let mut forbid_swap = false;
        let mut enter_rules = Vec::new();
        let mut on_enter = Vec::new();
        let mut when = Vec::new();
        let mut goal: Option<(Expr, Span)> = None;
        let mut goal_written: Option<Span> = None;
        let mut limit: Option<(SizeRef, Span)> = None;
        let mut moved: HashMap<AgentId, Span> = HashMap::new();
        for d in &file.decls {
            match d {
                D::Move(m) => self.move_decl(m, &mut mode, &mut moved),
                D::Forbid(f) => match f.value {
                    Forbid::SameCell => forbid_same_cell = true,
                    Forbid::Swap => forbid_swap = true,
                },
                D::Enter(e) => {
                    if let Some((tile, value, scope)) = self.pattern(&e.pattern)
                        && let Some(cond) = self.expr(&e.cond, &scope)
                    {
                        enter_rules.push(EnterRule { tile, value, cond });
                    }
                }
                D::On(o) => {
                    let agent = o.agent.as_ref().and_then(|a| self.agent(a));
                    if let Some((tile, value, scope)) = self.pattern(&o.pattern) {
                        self.warn_if_solid(tile, o.pattern.span, "entering this tile");
                        let actions = self.actions(&o.actions, &scope);
                        on_enter.push(OnEnter {
                            agent,
                            tile,
                            value,
                            actions,
                        });
                    }
                }
                D::When(w) => {
                    let agent = self.agent(&w.agent);
                    if let Some((tile, value, scope)) = self.pattern(&w.pattern) {
                        if w.relation == Relation::On {
                            self.warn_if_solid(tile, w.pattern.span, "standing on this tile");
                        }
                        let actions = self.actions(&w.actions, &scope);
                        if let Some(agent) = agent {
                            when.push(When {
                                agent,
                                relation: w.relation,
                                tile,
                                value,
                                actions,
                            });
                        }
                    }
                }
                D::Goal(p) => {
                    let e = self.expr(p, &None);
                    if let Some(first) = goal_written {
                        self.err(RuleError::Repeated {
                            what: "the goal",
                            span: p.span(),
                            first,
                        });
                    } else if let Some(e) = e {
                        goal = Some((e, p.span()));
                    }
                    goal_written.get_or_insert(p.span());
                }
                D::Limit(l) => {
                    if let Some(s) = self.size(&l.value, "a step limit") {
                        if let Some((_, first)) = limit {
                            self.err(RuleError::Repeated {
                                what: "the step limit",
                                span: l.span,
                                first,
                            });
                        }
                        limit = Some((s, l.span));
                    }
                }
                _ => {}
            }
        }

        let io = self.io(input.map(|(i, _)| i), file);
        self.legend_warnings(&enter_rules, &on_enter, &when, goal.as_ref().map(|g| &g.0));
        if self.agents.is_empty() {
            self.err(RuleError::Missing {
                what: "agent",
                help: "declare one, e.g. `agent hero '@' on floor`".into(),
            });
        }
        let Some((goal, _)) = goal else {
            if goal_written.is_none() {
                self.err(RuleError::Missing {
                    what: "goal",
                    help: "say what a solved state is, e.g. `goal hero on exit`".into(),
                });
            }
            return;
        };
        let Some(io) = io else { return };
        let legend = self.legend.iter().map(|(c, (g, _, _))| (*c, *g)).collect();
        self.rules = Some(Rules {
            title: title.map(|t| t.value.clone()).unwrap_or_default(),
            io,
            domains: std::mem::take(&mut self.domains),
            tiles: std::mem::take(&mut self.tiles),
            legend,
            agents: std::mem::take(&mut self.agents),
            flags: std::mem::take(&mut self.flags),
            mode: mode.map(|m| m.value).unwrap_or(Mode::InTurn),
            forbid_same_cell,
            forbid_swap,
            enter_rules,
            on_enter,
            when,
            goal,
            limit: limit.map(|l| l.0),
        });
    }

    fn tile_def(&mut self, t: &ast::TileDef) {
        let domain = t.domain.as_ref().and_then(|d| self.domain(d));
        let id = TileId(self.tiles.len() as u32);
        if !self.define(&t.name, Def::Tile(id)) {
            return;
        }
        if let Some(d) = domain {
            let n = self.domains[d.ix()].values.len();
            if n != t.chars.len() {
                let dn = self.domains[d.ix()].name.clone();
                self.err(RuleError::DomainMismatch {
                    message: format!(
                        "tile `{}` has {} characters but domain `{dn}` has {n} values",
                        t.name.name,
                        t.chars.len()
                    ),
                    span: t.name.span,
                    label: "the characters stand for the domain's values, in order".into(),
                    help: format!(
                        "give exactly one character per value of `{dn}`: {}",
                        self.domains[d.ix()].values.join(" ")
                    ),
                });
            }
        }
        for (i, c) in t.chars.iter().enumerate() {
            let value = domain.map(|_| i as u32);
            let what = format!("tile `{}`", t.name.name);
            self.claim(c.value, Glyph::Tile(id, value), c.span, what);
        }
        self.tiles.push(Tile {
            name: t.name.name.clone(),
            domain,
            solid: t.props.iter().any(|p| p.value == Property::Solid),
            opaque: t.props.iter().any(|p| p.value == Property::Opaque),
            span: t.name.span,
        });
    }

    fn agent_decl(&mut self, a: &ast::AgentDecl) {
        let on = self.tile(&a.on);
        let family = a.family.as_ref().map(|s| self.size(s, "a family size"));
        let id = AgentId(self.agents.len() as u32);
        if !self.define(&a.name, Def::Agent(id)) {
            return;
        }
        if let Some(t) = on {
            let tile = &self.tiles[t.ix()];
            if tile.solid || tile.domain.is_some() {
                let why = if tile.solid {
                    "it is solid"
                } else {
                    "it has a parameter"
                };
                self.err(RuleError::Invalid {
                    message: format!(
                        "agent `{}` cannot start on tile `{}`",
                        a.name.name, tile.name
                    ),
                    span: a.on.span,
                    label: why.to_string(),
                    help: "the tile under an agent's marker must be a plain, non-solid tile".into(),
                });
            }
        }
        let lit_size = match family {
            Some(Some(SizeRef::Lit(n))) => Some(n as usize),
            _ => None,
        };
        let expand = |m: &ast::Markers| -> Vec<(char, Span)> {
            if m.range {
                let run = marker_run(m.chars[0].value);
                let n = lit_size.unwrap_or(run.len()).min(run.len());
                run.into_iter()
                    .take(n)
                    .map(|c| (c, m.chars[0].span))
                    .collect()
            } else {
                m.chars.iter().map(|c| (c.value, c.span)).collect()
            }
        };
        let starts = expand(&a.starts);
        if a.family.is_none() && starts.len() != 1 {
            self.err(RuleError::Invalid {
                message: format!(
                    "agent `{}` is one agent but has {} markers",
                    a.name.name,
                    starts.len()
                ),
                span: a.starts.span,
                label: "one marker expected".into(),
                help: format!(
                    "for a family of agents write `agent {}[n] 'a'..`",
                    a.name.name
                ),
            });
        }
        if a.starts.range && lit_size.is_some_and(|n| n > starts.len()) {
            self.err(RuleError::Invalid {
                message: format!("the family `{}` has more members than markers", a.name.name),
                span: a.starts.span,
                label: format!("only {} markers follow this character", starts.len()),
                help: "start the range earlier, or list the markers".into(),
            });
        }
        let mut max_members = starts.len() as u32;
        for (i, (c, sp)) in starts.iter().enumerate() {
            let what = format!("the start of agent `{}`", a.name.name);
            self.claim(*c, Glyph::Start(id, i as u32), *sp, what);
        }
        if let Some(t) = &a.targets {
            let targets = expand(t);
            if targets.len() != starts.len() {
                if t.range || a.starts.range {
                    max_members = max_members.min(targets.len() as u32);
                } else {
                    self.err(RuleError::Invalid {
                        message: format!(
                            "agent `{}` has {} start markers but {} target markers",
                            a.name.name,
                            starts.len(),
                            targets.len()
                        ),
                        span: t.span,
                        label: "one target per start expected".into(),
                        help: "give each member one start and one target".into(),
                    });
                }
            }
            for (i, (c, sp)) in targets.iter().enumerate() {
                let what = format!("the target of agent `{}`", a.name.name);
                self.claim(*c, Glyph::Target(id, i as u32), *sp, what);
            }
        }
        self.agents.push(Agent {
            name: a.name.name.clone(),
            family: family.flatten(),
            max_members,
            has_targets: a.targets.is_some(),
            on: on.unwrap_or(TileId(0)),
            opaque: a.props.iter().any(|p| p.value == Property::Opaque),
            moves: Vec::new(),
            span: a.name.span,
        });
    }

    fn move_decl(
        &mut self,
        m: &ast::MoveDecl,
        mode: &mut Option<ast::Spanned<Mode>>,
        moved: &mut HashMap<AgentId, Span>,
    ) {
        // Only explicit modes count; `in turn` is the default.
        if let Some(this) = &m.mode {
            match mode {
                None => *mode = Some(this.clone()),
                Some(first) if first.value != this.value => {
                    self.err(RuleError::Invalid {
                        message: "all agents must move in the same way: `at once` or `in turn`"
                            .into(),
                        span: this.span,
                        label: "this differs from the first move rule's mode".into(),
                        help: "a step is either one agent moving or all agents moving together"
                            .into(),
                    });
                }
                Some(_) => {}
            }
        }
        let targets: Vec<AgentId> = match &m.mover {
            None => (0..self.agents.len() as u32).map(AgentId).collect(),
            Some(id) => self.agent(id).into_iter().collect(),
        };
        let mut dirs: Vec<Dir> = Vec::new();
        for d in &m.dirs {
            if !dirs.contains(&d.value) {
                dirs.push(d.value);
            }
        }
        for a in targets {
            if let Some(first) = moved.insert(a, m.mover_span) {
                self.err(RuleError::Repeated {
                    what: "a move rule for one agent",
                    span: m.mover_span,
                    first,
                });
            }
            self.agents[a.ix()].moves = dirs.clone();
        }
    }

    /// Warns when a rule needs an agent on a tile no agent can stand on.
    fn warn_if_solid(&mut self, tile: TileId, span: Span, what: &str) {
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

    /// Resolves a tile pattern: the tile, which values it matches, and the
    /// variable it binds.
    fn pattern(&mut self, p: &ast::Pattern) -> Option<(TileId, ValueSel, Scope)> {
        let tile = self.tile(&p.tile)?;
        let domain = self.tiles[tile.ix()].domain;
        match (&p.arg, domain) {
            (None, _) => Some((tile, ValueSel::Any, None)),
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
            (Some(arg), Some(d)) => {
                match self.domains[d.ix()]
                    .values
                    .iter()
                    .position(|v| *v == arg.name)
                {
                    Some(v) => Some((tile, ValueSel::Value(v as u32), None)),
                    None => Some((tile, ValueSel::Bind, Some((arg.name.clone(), d)))),
                }
            }
        }
    }

    fn flag_index(&mut self, f: &ast::FlagRef, scope: &Scope) -> Option<(FlagId, IndexRef)> {
        let flag = self.flag(&f.name)?;
        let fd = self.flags[flag.ix()].domain;
        match (&f.index, fd) {
            (None, None) => Some((flag, IndexRef::None)),
            (None, Some(d)) => {
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
            (Some(ix), None) => {
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
            (Some(ix), Some(d)) => {
                if let Some((var, vd)) = scope
                    && *var == ix.name
                {
                    if *vd != d {
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
                    return Some((flag, IndexRef::Bound));
                }
                match self.domains[d.ix()]
                    .values
                    .iter()
                    .position(|v| *v == ix.name)
                {
                    Some(v) => Some((flag, IndexRef::Value(v as u32))),
                    None => {
                        let dom = &self.domains[d.ix()];
                        let mut cands: Vec<&str> = dom.values.iter().map(String::as_str).collect();
                        if let Some((var, _)) = scope {
                            cands.push(var);
                        }
                        let help = did_you_mean(&ix.name, cands, "values and parameters");
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

    fn actions(&mut self, acts: &[ast::Action], scope: &Scope) -> Vec<Action> {
        acts.iter()
            .filter_map(|a| {
                let (flag, index) = self.flag_index(&a.flag, scope)?;
                Some(Action {
                    verb: a.verb,
                    flag,
                    index,
                })
            })
            .collect()
    }

    fn place(&mut self, agent: AgentId, p: &ast::Place) -> Option<PlaceRef> {
        match p {
            ast::Place::ItsTarget(sp) => {
                let a = &self.agents[agent.ix()];
                if !a.has_targets {
                    let name = a.name.clone();
                    self.err(RuleError::Invalid {
                        message: format!("agent `{name}` has no targets"),
                        span: *sp,
                        label: "`its target` needs target markers".into(),
                        help: format!("declare them: `agent {name}... target 'A'..`"),
                    });
                    return None;
                }
                Some(PlaceRef::Target)
            }
            ast::Place::Tile(pat) => {
                let (tile, value, scope) = self.pattern(pat)?;
                self.warn_if_solid(tile, pat.span, "standing on this tile");
                if scope.is_some() {
                    // A goal binds nothing: `gate(x)` with an unknown value.
                    let d = self.tiles[tile.ix()].domain.unwrap();
                    let dom = &self.domains[d.ix()];
                    let arg = pat.arg.as_ref().unwrap();
                    let help =
                        did_you_mean(&arg.name, dom.values.iter().map(String::as_str), "values");
                    self.err(RuleError::UnknownParameter {
                        name: arg.name.clone(),
                        domain: dom.name.clone(),
                        span: arg.span,
                        help,
                    });
                    return None;
                }
                Some(PlaceRef::Tile(tile, value))
            }
        }
    }

    fn expr(&mut self, p: &ast::Pred, scope: &Scope) -> Option<Expr> {
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
                let family = self.agents[agent.ix()].family.is_some();
                let members = match p {
                    P::Every(..) => Members::Every,
                    P::Any(..) => Members::Any,
                    _ if family => {
                        self.err(RuleError::WrongKind {
                            message: format!(
                                "`{}` is a family of agents; say which members",
                                who.name
                            ),
                            span: who.span,
                            label: "a family, not one agent".into(),
                            help: format!("write `every {0} on ...` or `any {0} on ...`", who.name),
                        });
                        return None;
                    }
                    _ => Members::One,
                };
                Expr::On {
                    agent,
                    members,
                    place,
                }
            }
            P::AllFlags(f, _) | P::AnyFlag(f, _) => {
                let flag = self.flag_in_pred(f)?;
                if self.flags[flag.ix()].domain.is_none() {
                    self.err(RuleError::DomainMismatch {
                        message: format!("flag `{}` is not indexed", f.name),
                        span: f.span,
                        label: "`all` and `any` need an indexed flag".into(),
                        help: format!("write `{}` alone", f.name),
                    });
                    return None;
                }
                if matches!(p, P::AllFlags(..)) {
                    Expr::AllFlags(flag)
                } else {
                    Expr::AnyFlag(flag)
                }
            }
            P::Flag(f) => {
                if let Some(Def::Agent(_)) = self.lookup(&f.name.name) {
                    self.err(RuleError::WrongKind {
                        message: format!("`{}` is an agent, not a condition", f.name.name),
                        span: f.span,
                        label: "an agent's position is not true or false".into(),
                        help: format!("compare its position: `{} on TILE`", f.name.name),
                    });
                    return None;
                }
                let (flag, index) = self.flag_index(f, scope)?;
                Expr::Flag { flag, index }
            }
        })
    }

    fn agent_in_pred(&mut self, who: &Ident) -> Option<AgentId> {
        if let Some(Def::Flag(_)) = self.lookup(&who.name) {
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

    fn flag_in_pred(&mut self, f: &Ident) -> Option<FlagId> {
        if let Some(Def::Agent(_)) = self.lookup(&f.name) {
            self.err(RuleError::WrongKind {
                message: format!("`{}` is an agent, not a flag", f.name),
                span: f.span,
                label: "`all` and `any` take a flag here".into(),
                help: format!("for agents write `every {} on TILE`", f.name),
            });
            return None;
        }
        self.flag(f)
    }

    fn io(&mut self, items: Option<&Vec<ast::InputItem>>, file: &ast::File) -> Option<Io> {
        let mut cases = None;
        let mut grid = None;
        for it in items.into_iter().flatten() {
            match it {
                ast::InputItem::Cases(c) => {
                    if let Some((_, first)) = cases.replace((c.value.clone(), c.span)) {
                        self.err(RuleError::Repeated {
                            what: "`cases`",
                            span: c.span,
                            first,
                        });
                    }
                    if let Cases::UntilValues(vals) = &c.value
                        && vals.len() != self.header.len()
                    {
                        self.err(RuleError::Invalid {
                            message: format!(
                                "the end marker has {} values but the header has {}",
                                vals.len(),
                                self.header.len()
                            ),
                            span: c.span,
                            label: "compared with a whole header line".into(),
                            help: "give one value per header field".into(),
                        });
                    }
                }
                ast::InputItem::Header(_) => {}
                ast::InputItem::Grid { rows, cols, span } => {
                    let r = self.size(rows, "a grid size");
                    let c = self.size(cols, "a grid size");
                    if let Some((_, _, first)) = grid.replace((r, c, *span)) {
                        self.err(RuleError::Repeated {
                            what: "`grid`",
                            span: *span,
                            first,
                        });
                    }
                }
            }
        }
        let cases = cases.map(|c| c.0).unwrap_or(Cases::Single);
        let (rows, cols) = match grid {
            Some((r, c, _)) => (Some(r?), Some(c?)),
            None => (None, None),
        };
        let mut before = None;
        let mut solved = None;
        let mut unsolved = None;
        for d in &file.decls {
            if let ast::Decl::Output(items) = d {
                for it in items {
                    let t = self.template(&it.text, it.kind.value);
                    let slot = match it.kind.value {
                        OutputKind::Before => &mut before,
                        OutputKind::Solved => &mut solved,
                        OutputKind::Unsolved => &mut unsolved,
                    };
                    if let Some((_, first)) = slot.replace((t, it.kind.span)) {
                        self.err(RuleError::Repeated {
                            what: "an output line",
                            span: it.kind.span,
                            first,
                        });
                    }
                }
            }
        }
        let lit = |s: &str| Template(vec![Seg::Lit(s.to_string())]);
        Some(Io {
            cases,
            header: self.header.clone(),
            rows,
            cols,
            before: before.map(|b| b.0),
            solved: solved.map(|s| s.0).unwrap_or(Template(vec![Seg::Steps])),
            unsolved: unsolved.map(|s| s.0).unwrap_or_else(|| lit("-1")),
        })
    }

    fn template(&mut self, text: &ast::Spanned<String>, kind: OutputKind) -> Template {
        let mut segs = Vec::new();
        let s = &text.value;
        let mut lit = String::new();
        let mut i = 0;
        let bytes = s.as_bytes();
        while i < s.len() {
            if bytes[i] == b'{'
                && let Some(end) = s[i..].find('}')
            {
                let name = &s[i + 1..i + end];
                let seg = match name {
                    "case" => Some(Seg::Case),
                    "steps" if kind != OutputKind::Solved => {
                        self.err(RuleError::Invalid {
                            message: "`{steps}` is only known when the case is solved".into(),
                            span: (text.span.offset() + i, end + 1).into(),
                            label: "no steps here".into(),
                            help: "use `{steps}` in the `solved` line".into(),
                        });
                        None
                    }
                    "steps" => Some(Seg::Steps),
                    _ => match self.header.iter().position(|h| h == name) {
                        Some(f) => Some(Seg::Field(f)),
                        None => {
                            let mut cands = vec!["case", "steps"];
                            cands.extend(self.header.iter().map(String::as_str));
                            let help = did_you_mean(name, cands, "placeholders");
                            self.err(RuleError::UnknownPlaceholder {
                                name: name.to_string(),
                                span: (text.span.offset() + i, end + 1).into(),
                                help,
                            });
                            None
                        }
                    },
                };
                if let Some(seg) = seg {
                    if !lit.is_empty() {
                        segs.push(Seg::Lit(std::mem::take(&mut lit)));
                    }
                    segs.push(seg);
                }
                i += end + 1;
                continue;
            }
            let ch = s[i..].chars().next().unwrap();
            lit.push(ch);
            i += ch.len_utf8();
        }
        if !lit.is_empty() {
            segs.push(Seg::Lit(lit));
        }
        Template(segs)
    }

    /// Warnings for rules that can never matter.
    fn legend_warnings(
        &mut self,
        enter: &[EnterRule],
        on: &[OnEnter],
        when: &[When],
        goal: Option<&Expr>,
    ) {
        let mut set = vec![false; self.flags.len()];
        for a in on
            .iter()
            .flat_map(|o| &o.actions)
            .chain(when.iter().flat_map(|w| &w.actions))
        {
            if a.verb != Verb::Clear {
                set[a.flag.ix()] = true;
            }
        }
        let mut read = vec![false; self.flags.len()];
        for e in enter.iter().map(|r| &r.cond).chain(goal) {
            e.visit_flags(&mut |f| read[f.ix()] = true);
        }
        for (i, f) in self.flags.iter().enumerate() {
            if read[i] && !set[i] {
                self.errors.push(RuleError::Never {
                    message: format!("flag `{}` is read but nothing sets it", f.name),
                    span: f.span,
                    label: "never set".into(),
                    help: format!("add a rule such as `on enter TILE: set {}`", f.name),
                });
            } else if !read[i] {
                self.errors.push(RuleError::Never {
                    message: format!("flag `{}` is never read", f.name),
                    span: f.span,
                    label: "no goal or rule uses it".into(),
                    help: "use it in the goal or an `enter` rule, or remove it".into(),
                });
            }
        }
    }
}

impl Expr {
    /// Calls `f` on every flag the expression reads.
    pub fn visit_flags(&self, f: &mut impl FnMut(FlagId)) {
        match self {
            Expr::Or(v) | Expr::And(v) => v.iter().for_each(|e| e.visit_flags(f)),
            Expr::Not(e) => e.visit_flags(f),
            Expr::Flag { flag, .. } | Expr::AllFlags(flag) | Expr::AnyFlag(flag) => f(*flag),
            Expr::On { .. } => {}
        }
    }
}

fn items_span(items: &[ast::InputItem]) -> Span {
    items
        .first()
        .map(|i| match i {
            ast::InputItem::Cases(c) => c.span,
            ast::InputItem::Header(h) => h.first().map(|i| i.span).unwrap_or((0, 0).into()),
            ast::InputItem::Grid { span, .. } => *span,
        })
        .unwrap_or((0, 0).into())
}
