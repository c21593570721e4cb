//! [`ground`]: checked rules + one case -> [`Task`]. Reads the map (each
//! cell's class, each agent's start and target), finds each mover's
//! position domain, makes the state variables, and grounds every rule on
//! the classes of cells present in the map.

use super::*;
use crate::error::InputError;
use crate::input::RawCase;
use crate::resolve::{
    self, Action as RAction, AgentId, Glyph, IndexRef, Members, PlaceRef, Rules, SizeRef, ValueSel,
};

/// No position: a cell outside a domain.
const NONE: u32 = u32::MAX;

/// The most movers that can move at once (each step tries every
/// combination of their moves, so more would never finish anyway).
pub const MAX_AT_ONCE: usize = 16;

/// One agent on one map: a single agent, or one member of a family.
#[derive(Debug, Clone, Copy)]
struct Instance {
    agent: AgentId,
    member: u32,
    start: u32,
    target: Option<u32>,
}

/// Numbers the (tile, value) pairs of a rule set: one class per tile
/// without a value, then one per value of the widest domain.
#[derive(Clone, Copy)]
struct Classes {
    per_tile: usize,
    len: usize,
}

impl Classes {
    fn new(rules: &Rules) -> Self {
        let per_tile = 1 + rules
            .domains
            .iter()
            .map(|d| d.values.len())
            .max()
            .unwrap_or(0);
        Classes {
            per_tile,
            len: rules.tiles.len() * per_tile,
        }
    }

    fn of(self, tile: TileId, value: Option<u32>) -> u32 {
        (tile.ix() * self.per_tile + value.map_or(0, |v| v as usize + 1)) as u32
    }

    fn class(self, rules: &Rules, k: u32) -> Class {
        let tile = TileId((k as usize / self.per_tile) as u32);
        let t = &rules.tiles[tile.ix()];
        Class {
            tile,
            value: (k as usize % self.per_tile)
                .checked_sub(1)
                .map(|v| v as u32),
            occurrence: None,
            solid: t.solid,
            opaque: t.opaque,
        }
    }
}

/// Grounds the rules on one case. Reports every problem of the map at once.
pub fn ground(rules: &Rules, case: &RawCase) -> Result<Task, Vec<InputError>> {
    let (board, instances) = read_board(rules, case)?;
    if rules.mode == crate::ast::Mode::AtOnce && instances.len() > MAX_AT_ONCE {
        return Err(vec![InputError::TooWide {
            message: format!(
                "case {} has {} agents moving at once; at most {MAX_AT_ONCE} can",
                case.number,
                instances.len()
            ),
            span: case.span(),
            help:
                "every step tries every combination of their moves: use `in turn`, or fewer agents"
                    .into(),
        }]);
    }
    let mut g = Grounder {
        rules,
        case,
        board,
        instances,
        vars: Vec::new(),
        movers: Vec::new(),
        actions: Vec::new(),
        task_rules: Vec::new(),
        flag_vars: Vec::new(),
    };
    g.movers_and_vars();
    Ok(g.finish())
}

struct Grounder<'a> {
    rules: &'a Rules,
    case: &'a RawCase,
    board: Board,
    instances: Vec<Instance>,
    vars: Vec<Var>,
    movers: Vec<Mover>,
    actions: Vec<Action>,
    task_rules: Vec<Rule>,
    /// Per flag of the rules, the variable of its first value.
    flag_vars: Vec<u32>,
}

impl Grounder<'_> {
    fn var(&mut self, name: String, kind: VarKind, size: u64) -> VarId {
        self.vars.push(Var { name, kind, size });
        VarId(self.vars.len() as u32 - 1)
    }

    fn instance_name(&self, i: usize) -> String {
        let Instance { agent, member, .. } = self.instances[i];
        let a = &self.rules.agents[agent.ix()];
        match a.family {
            Some(_) => format!("{}[{}]", a.name, member + 1),
            None => a.name.clone(),
        }
    }

    /// The movers, their actions, and every variable: positions first
    /// (mover order), then flags.
    fn movers_and_vars(&mut self) {
        let lone = self.rules.mode == crate::ast::Mode::InTurn && self.instances.len() == 1;
        for i in 0..self.instances.len() {
            let inst = self.instances[i];
            let (cells, padded) = self.domain(i, lone);
            let name = self.instance_name(i);
            let m = MoverId(i as u32);
            let pos = self.var(name.clone(), VarKind::Position(m), cells.len() as u64);
            let agent = &self.rules.agents[inst.agent.ix()];
            // A mover with no moves stands still: its only move is `stay`.
            // In turn, standing still is no step at all.
            let mut dirs: Vec<Dir> = agent
                .moves
                .iter()
                .map(|d| Dir { dr: d.dr, dc: d.dc })
                .collect();
            if dirs.is_empty() {
                dirs.push(Dir::STAY);
            }
            if self.rules.mode == crate::ast::Mode::InTurn {
                dirs.retain(|d| *d != Dir::STAY);
            }
            let mut actions = Vec::new();
            for d in dirs {
                actions.push(ActionId(self.actions.len() as u32));
                self.actions.push(Action {
                    name: dir_name(d).to_string(),
                    mover: m,
                    motion: if d == Dir::STAY {
                        Motion::Stay
                    } else {
                        Motion::Step(d)
                    },
                    cost: 1,
                    rules: Vec::new(),
                });
            }
            self.movers.push(Mover {
                name,
                pos,
                heading: None,
                cells,
                padded,
                opaque: agent.opaque,
                actions,
                when: Vec::new(),
            });
        }
        for f in &self.rules.flags {
            self.flag_vars.push(self.vars.len() as u32);
            match f.domain {
                None => {
                    self.var(f.name.clone(), VarKind::Flag, 2);
                }
                Some(d) => {
                    for v in &self.rules.domains[d.ix()].values {
                        self.var(format!("{}[{v}]", f.name), VarKind::Flag, 2);
                    }
                }
            }
        }
    }

    /// The cells instance `i` can ever stand on, in grid order, as grid
    /// cells and as padded indexes: reachable from its start by its moves
    /// through cells that are not solid. A lone agent's are every cell it
    /// may stand on: its states are positions times flags, so a few cells
    /// it cannot reach cost a few table entries, never a state, and less
    /// than finding them.
    fn domain(&self, i: usize, lone: bool) -> (Vec<u32>, Vec<u32>) {
        let Instance { agent, start, .. } = self.instances[i];
        let b = &self.board;
        let first = b.padded(start);
        let mut cells = vec![0u32; b.class.len()];
        let mut padded = vec![0u32; b.class.len()];
        let mut k = 0;
        // Writes every cell of the grid in order, keeping those `keep`
        // says: no branch on the map's layout.
        let mut scan = |keep: &[u8], want: u8| {
            for r in 0..b.rows {
                let row = (r + b.pad) * b.width + b.pad;
                for (c, &m) in keep[row..row + b.cols].iter().enumerate() {
                    cells[k] = (r * b.cols + c) as u32;
                    padded[k] = (row + c) as u32;
                    k += usize::from(m == want);
                }
            }
        };
        if lone {
            scan(&b.open, 1);
            // The start, even on a cell no agent may enter.
            if b.open[first] == 0 {
                let at = padded[..k].partition_point(|&pc| (pc as usize) < first);
                cells.insert(at, start);
                padded.insert(at, first as u32);
                k += 1;
            }
        } else {
            // 2: in the domain. 1: open and not reached yet.
            let mut mark = b.open.clone();
            mark[first] = 2;
            let deltas: Vec<isize> = self.rules.agents[agent.ix()]
                .moves
                .iter()
                .map(|d| b.delta(Dir { dr: d.dr, dc: d.dc }))
                .collect();
            let mut stack = vec![first as u32];
            while let Some(pc) = stack.pop() {
                for &d in &deltas {
                    let t = (pc as usize).wrapping_add_signed(d);
                    if mark[t] == 1 {
                        mark[t] = 2;
                        stack.push(t as u32);
                    }
                }
            }
            scan(&mark, 2);
        }
        cells.truncate(k);
        padded.truncate(k);
        (cells, padded)
    }

    fn rule(&mut self, r: Rule) -> RuleId {
        self.task_rules.push(r);
        RuleId(self.task_rules.len() as u32 - 1)
    }

    /// The variable of a flag reference, with `bound` the value a rule's
    /// pattern binds at the cell it is grounded for.
    fn flag_var(&self, flag: resolve::FlagId, index: IndexRef, bound: Option<u32>) -> VarId {
        let v = match index {
            IndexRef::None => 0,
            IndexRef::Value(v) => v,
            IndexRef::Bound => bound.expect("a bound index has a value"),
        };
        VarId(self.flag_vars[flag.ix()] + v)
    }

    fn flag_count(&self, flag: resolve::FlagId) -> u32 {
        let f = &self.rules.flags[flag.ix()];
        f.domain
            .map_or(1, |d| self.rules.domains[d.ix()].values.len() as u32)
    }

    fn effects(&self, acts: &[RAction], bound: Option<u32>) -> Vec<Effect> {
        acts.iter()
            .map(|a| Effect {
                var: self.flag_var(a.flag, a.index, bound),
                op: match a.verb {
                    crate::ast::Verb::Set => Op::Set(1),
                    crate::ast::Verb::Clear => Op::Set(0),
                    crate::ast::Verb::Toggle => Op::Toggle,
                },
            })
            .collect()
    }

    fn class_matches(&self, class: &Class, tile: TileId, sel: ValueSel) -> bool {
        class.tile == tile
            && match sel {
                ValueSel::Value(v) => class.value == Some(v),
                _ => true,
            }
    }

    /// A checked expression grounded on this map; `bound` is the value of
    /// the rule's pattern variable at the cell it is grounded for.
    fn expr(&self, e: &resolve::Expr, bound: Option<u32>) -> Expr {
        use resolve::Expr as E;
        match e {
            E::Flag { flag, index } => Expr::Cmp(self.flag_var(*flag, *index, bound), Cmp::Eq, 1),
            E::AllFlags(f) | E::AnyFlag(f) => {
                let first = self.flag_vars[f.ix()];
                let parts = (0..self.flag_count(*f))
                    .map(|v| Expr::Cmp(VarId(first + v), Cmp::Eq, 1))
                    .collect();
                if matches!(e, E::AllFlags(_)) {
                    Expr::and(parts)
                } else {
                    Expr::or(parts)
                }
            }
            E::On {
                agent,
                members,
                place,
            } => {
                let parts = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| self.at(i, *place))
                    .collect();
                match members {
                    Members::Any => Expr::or(parts),
                    _ => Expr::and(parts),
                }
            }
            E::And(es) => Expr::and(es.iter().map(|e| self.expr(e, bound)).collect()),
            E::Or(es) => Expr::or(es.iter().map(|e| self.expr(e, bound)).collect()),
            E::Not(e) => Expr::not(self.expr(e, bound)),
        }
    }

    /// Instance `i` stands on `place`.
    fn at(&self, i: usize, place: PlaceRef) -> Expr {
        let cells = &self.movers[i].cells;
        let m = MoverId(i as u32);
        match place {
            PlaceRef::Target => {
                let target = self.instances[i].target;
                let set: Vec<bool> = cells.iter().map(|&c| Some(c) == target).collect();
                Expr::at(m, &set)
            }
            PlaceRef::Tile(t, sel) => {
                // By class first: a tile test is a class test.
                let hit: Vec<bool> = (self.board.classes.iter())
                    .map(|k| self.class_matches(k, t, sel))
                    .collect();
                let set: Vec<bool> = cells
                    .iter()
                    .map(|&c| hit[self.board.class[c as usize] as usize])
                    .collect();
                Expr::at(m, &set)
            }
        }
    }

    fn finish(mut self) -> Task {
        let rules = self.rules;
        let nclasses = self.board.classes.len();
        let present = self.board.present.clone();
        // Entry conditions: solid never; else every `enter` rule matching.
        let entry: Vec<Expr> = (0..nclasses)
            .map(|k| {
                let class = self.board.classes[k];
                // No cell of an absent class is ever entered.
                if class.solid || !present[k] {
                    return Expr::Const(false);
                }
                let parts = rules
                    .enter_rules
                    .iter()
                    .filter(|r| self.class_matches(&class, r.tile, r.value))
                    .map(|r| self.expr(&r.cond, class.value))
                    .collect();
                Expr::and(parts)
            })
            .collect();
        // Rules fired on entering: grounded per class present on the map.
        let mut on_enter = vec![Vec::new(); self.movers.len() * nclasses];
        for k in (0..nclasses).filter(|&k| present[k]) {
            let class = self.board.classes[k];
            for (i, inst) in self.instances.clone().iter().enumerate() {
                for r in &rules.on_enter {
                    if r.agent.is_some_and(|a| a != inst.agent)
                        || !self.class_matches(&class, r.tile, r.value)
                    {
                        continue;
                    }
                    let effects = self.effects(&r.actions, class.value);
                    let id = self.rule(Rule {
                        cond: Expr::Const(true),
                        effects,
                    });
                    on_enter[i * nclasses + k].push(id);
                }
            }
        }
        // Derived facts: per mover, its `on` rules, then its `sees` rules.
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
                            let effects = self.effects(&w.actions, class.value);
                            by_class[k] = Some(self.rule(Rule {
                                cond: Expr::Const(true),
                                effects,
                            }));
                        }
                    }
                    self.movers[i].when.push(When { relation, by_class });
                }
            }
        }
        // The cells of each class a rule fires on, found in one pass.
        let mut ruled = vec![false; nclasses];
        for (i, slot) in on_enter.iter().enumerate() {
            ruled[i % nclasses] |= !slot.is_empty();
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
        self.board.cells_of = cells_of;
        let goal = self.expr(&rules.goal, None);
        let limit = rules.limit.map(|l| Limit {
            measure: Measure::Steps,
            max: match l {
                SizeRef::Lit(n) => n,
                SizeRef::Field(f) => self.case.header.get(f).copied().unwrap_or(0).max(0) as u64,
            },
        });
        let mut start = vec![0i64; self.vars.len()];
        for (i, inst) in self.instances.iter().enumerate() {
            let m = &self.movers[i];
            start[m.pos.ix()] = m.position_of(inst.start).expect("a start is in its domain") as i64;
        }
        Task {
            board: self.board,
            vars: self.vars,
            movers: self.movers,
            actions: self.actions,
            rules: self.task_rules,
            entry,
            enter_cost: vec![None; nclasses],
            on_enter,
            mode: match rules.mode {
                crate::ast::Mode::InTurn => Mode::InTurn,
                crate::ast::Mode::AtOnce => Mode::AtOnce,
            },
            forbid_same_cell: rules.forbid_same_cell,
            forbid_swap: rules.forbid_swap,
            starts: vec![start],
            goal,
            limit,
        }
    }
}

fn dir_name(d: Dir) -> &'static str {
    match (d.dr, d.dc) {
        (-1, 0) => "north",
        (1, 0) => "south",
        (0, 1) => "east",
        (0, -1) => "west",
        (-1, 1) => "northeast",
        (-1, -1) => "northwest",
        (1, 1) => "southeast",
        (1, -1) => "southwest",
        _ => "stay",
    }
}

/// Reads the grid into a board and finds each agent instance's start and
/// target. Reports every problem in the map at once.
fn read_board(rules: &Rules, case: &RawCase) -> Result<(Board, Vec<Instance>), Vec<InputError>> {
    let mut errors = Vec::new();
    let classes = Classes::new(rules);
    let mut class = vec![0u32; case.cells.len()];
    // Family sizes, each within what its markers allow.
    let mut sizes = Vec::with_capacity(rules.agents.len());
    for agent in &rules.agents {
        let size: i64 = match agent.family {
            None => 1,
            Some(SizeRef::Lit(k)) => k.min(i64::MAX as u64) as i64,
            Some(SizeRef::Field(f)) => case.header.get(f).copied().unwrap_or(0),
        };
        if !(1..=agent.max_members as i64).contains(&size) {
            errors.push(InputError::FamilySize {
                message: format!(
                    "case {} asks for {size} members of `{}`, but its markers allow 1 to {}",
                    case.number, agent.name, agent.max_members
                ),
                span: case.span(),
                label: "in this case".into(),
                help: "check the header's family size".into(),
            });
        }
        sizes.push(size.clamp(0, agent.max_members as i64) as u32);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut starts: Vec<Vec<Vec<u32>>> = sizes
        .iter()
        .map(|&k| vec![Vec::new(); k as usize])
        .collect();
    let mut targets = starts.clone();
    let mut unknown: Vec<(usize, char)> = Vec::new();
    // The class of each ASCII tile character, from a table; markers, other
    // characters and unknown ones go through the legend.
    let ascii: Vec<u32> = (0..128u8)
        .map(|b| match rules.legend.get(&(b as char)) {
            Some(Glyph::Tile(t, v)) => classes.of(*t, *v),
            _ => NONE,
        })
        .collect();
    for (cell, ch) in case.cells.iter().enumerate() {
        if let Some(&k) = ascii.get(*ch as usize)
            && k != NONE
        {
            class[cell] = k;
            continue;
        }
        match rules.legend.get(ch) {
            None => unknown.push((cell, *ch)),
            Some(Glyph::Tile(t, v)) => class[cell] = classes.of(*t, *v),
            Some(g @ (Glyph::Start(a, m) | Glyph::Target(a, m))) => {
                class[cell] = classes.of(rules.agents[a.ix()].on, None);
                let list = if matches!(g, Glyph::Start(..)) {
                    &mut starts
                } else {
                    &mut targets
                };
                match list[a.ix()].get_mut(*m as usize) {
                    Some(v) => v.push(cell as u32),
                    None => errors.push(InputError::FamilySize {
                        message: format!(
                            "{ch:?} marks member {} of `{}`, but case {} has {} members",
                            m + 1,
                            rules.agents[a.ix()].name,
                            case.number,
                            sizes[a.ix()]
                        ),
                        span: case.cell_span(cell),
                        label: "no such member".into(),
                        help: "the header's family size and the markers in the map must agree"
                            .into(),
                    }),
                }
            }
        }
    }
    if !unknown.is_empty() {
        let mut legend: Vec<char> = rules.legend.keys().copied().collect();
        legend.sort_unstable();
        let legend: Vec<String> = legend.iter().map(|c| format!("{c:?}")).collect();
        // One report per distinct character: the first place it appears.
        let mut seen = Vec::new();
        for (cell, ch) in unknown {
            if !seen.contains(&ch) {
                seen.push(ch);
                errors.push(InputError::UnknownChar {
                    ch,
                    span: case.cell_span(cell),
                    legend: legend.join(" "),
                });
            }
        }
    }
    let mut instances = Vec::new();
    for (a, agent) in rules.agents.iter().enumerate() {
        for m in 0..starts[a].len() {
            let marker = |kind: &str, cells: &[u32]| -> Option<InputError> {
                let who = match agent.family {
                    Some(_) => format!("member {} of `{}`", m + 1, agent.name),
                    None => format!("`{}`", agent.name),
                };
                match cells.len() {
                    1 => None,
                    0 => Some(InputError::MarkerMissing {
                        message: format!("case {} has no {kind} for {who}", case.number),
                        span: case.span(),
                        label: "in this map".into(),
                        help: format!("put exactly one {kind} marker for {who} on the map"),
                    }),
                    k => Some(InputError::MarkerRepeated {
                        message: format!("case {} has {k} {kind}s for {who}", case.number),
                        span: case.cell_span(cells[1] as usize),
                        label: format!("another {kind}"),
                        help: format!("put exactly one {kind} marker for {who} on the map"),
                    }),
                }
            };
            let mut ok = true;
            if let Some(e) = marker("start", &starts[a][m]) {
                errors.push(e);
                ok = false;
            }
            if agent.has_targets
                && let Some(e) = marker("target", &targets[a][m])
            {
                errors.push(e);
                ok = false;
            }
            if ok {
                instances.push(Instance {
                    agent: AgentId(a as u32),
                    member: m as u32,
                    start: starts[a][m][0],
                    target: targets[a][m].first().copied(),
                });
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let classes = (0..classes.len as u32)
        .map(|k| classes.class(rules, k))
        .collect();
    let board = new_board(rules, case.rows, case.cols, classes, class);
    Ok((board, instances))
}

fn new_board(
    rules: &Rules,
    rows: usize,
    cols: usize,
    classes: Vec<Class>,
    class: Vec<ClassId>,
) -> Board {
    let reach = |d: &crate::ast::Dir| d.dr.unsigned_abs().max(d.dc.unsigned_abs()) as usize;
    let pad = rules
        .agents
        .iter()
        .flat_map(|a| a.moves.iter().map(reach))
        .max()
        .unwrap_or(0)
        .max(1);
    let open_class: Vec<u8> = classes.iter().map(|k| u8::from(!k.solid)).collect();
    let width = cols + 2 * pad;
    let mut open = vec![0u8; width * (rows + 2 * pad)];
    let mut present = vec![false; classes.len()];
    for (r, row) in class.chunks_exact(cols).enumerate() {
        let at = (r + pad) * width + pad;
        for (o, &k) in open[at..at + cols].iter_mut().zip(row) {
            *o = open_class[k as usize];
            present[k as usize] = true;
        }
    }
    Board {
        rows,
        cols,
        class,
        classes,
        pad,
        width,
        open,
        present,
        cells_of: Vec::new(),
    }
}
