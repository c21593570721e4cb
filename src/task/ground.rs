//! [`ground`]: checked rules + one case -> [`Task`]. Reads the map (each
//! cell's class, each agent's starts and target), finds each mover's
//! position domain, makes the state variables, and grounds every rule on
//! the classes of cells present in the map, with every number evaluated
//! for this case.

use super::*;
use crate::ast::{GridForm, MoveKind};
use crate::error::InputError;
use crate::input::RawCase;
use crate::resolve::{
    self, ActOp, AgentId, Glyph, IndexRef, Members, Num, NumEnv, PlaceRef, Rules, Start, StateId,
    StateIndex, StateKind, Targets, ValueSel,
};

/// No position: a cell outside a domain.
const NONE: ClassId = ClassId::MAX;

/// The most movers that can move at once (each step tries every
/// combination of their moves, so more would never finish anyway).
pub const MAX_AT_ONCE: usize = 16;

/// The most values a counter may take.
use crate::resolve::{COUNTER_BOUND, MAX_COST, MAX_COUNTER, MAX_SCRIPT_TIMES};

/// One agent on one map: a single agent, or one member of a family.
#[derive(Debug, Clone)]
struct Instance {
    agent: AgentId,
    member: u32,
    /// The cells it may start on: one, or any number for `any 'S'`.
    starts: Vec<u32>,
    target: Option<u32>,
    /// A piece's cells as offsets from its start (see [`Mover::shape`]).
    shape: Vec<(i32, i32)>,
    /// A piece with poses: the pose it starts in (its `shape` is empty).
    pose: Option<u32>,
}

/// Numbers the (tile, value) pairs of a rule set: one class per tile
/// without a value, then one per value of the widest domain. Cells of tiles
/// with state per occurrence get classes of their own after these.
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

    /// The class of a tile with a value (of a rule set whose classes fit
    /// in [`ClassId`]: [`read_board`] checks).
    fn of(self, tile: TileId, value: Option<u32>) -> ClassId {
        (tile.ix() * self.per_tile + value.map_or(0, |v| v as usize + 1)) as ClassId
    }

    fn class(self, rules: &Rules, k: usize) -> Class {
        let tile = TileId((k / self.per_tile) as u32);
        let t = &rules.tiles[tile.ix()];
        Class {
            tile,
            value: (k % self.per_tile).checked_sub(1).map(|v| v as u32),
            occurrence: None,
            solid: t.solid,
            opaque: t.opaque,
            slippery: t.slippery,
            stops: t.stops,
        }
    }
}

/// A report about this case that names no cell of the map.
fn case_error(case: &RawCase, message: String, help: String) -> InputError {
    InputError::Rules {
        message,
        span: case.span(),
        label: "in this case".into(),
        help,
    }
}

/// Grounds the rules on one case. Reports every problem of the map at once.
pub fn ground(rules: &Rules, case: &RawCase) -> Result<Task, Vec<InputError>> {
    let map = read_board(rules, case)?;
    if rules.mode == crate::ast::Mode::AtOnce && map.instances.len() > MAX_AT_ONCE {
        return Err(vec![InputError::TooWide {
            message: format!(
                "case {} has {} agents moving at once; at most {MAX_AT_ONCE} can",
                case.number,
                map.instances.len()
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
        board: map.board,
        instances: map.instances,
        tile_count: map.tile_count,
        occurrences: map.occurrences,
        vars: Vec::new(),
        movers: Vec::new(),
        actions: Vec::new(),
        task_rules: Vec::new(),
        state_vars: Vec::new(),
        action_kinds: Vec::new(),
        moving: None,
        actor: None,
        way: None,
        cell_tests: hashbrown::HashMap::new(),
        errors: Vec::new(),
    };
    g.movers_and_vars();
    let (task, errors) = g.finish();
    if errors.is_empty() {
        Ok(task)
    } else {
        Err(errors)
    }
}

struct Grounder<'a> {
    rules: &'a Rules,
    case: &'a RawCase,
    board: Board,
    instances: Vec<Instance>,
    /// Tile -> how many cells of the map have it.
    tile_count: Vec<i64>,
    /// Tile -> how many occurrences of it have state of their own (its
    /// cell count, for tiles with state per occurrence; else 0).
    occurrences: Vec<u32>,
    vars: Vec<Var>,
    movers: Vec<Mover>,
    actions: Vec<Action>,
    task_rules: Vec<Rule>,
    /// Per state of the rules, its first variable.
    state_vars: Vec<u32>,
    /// Per action, the move of the rules it is.
    action_kinds: Vec<MoveKind>,
    /// The direction `moving` is grounded for (an `enter` condition's,
    /// one direction at a time); `None` elsewhere.
    moving: Option<Dir>,
    /// While a move's condition or an `on MOVE` rule is grounded: the
    /// mover, and the way its move goes (`ahead` is one of it on).
    actor: Option<usize>,
    way: Option<Dir>,
    /// Cell tests built, by mover, offset, tile and values.
    cell_tests: hashbrown::HashMap<(usize, (i32, i32), TileId, ValueSel), Expr>,
    errors: Vec<InputError>,
}

impl Grounder<'_> {
    fn var(&mut self, name: String, kind: VarKind, size: u64) -> VarId {
        self.vars.push(Var { name, kind, size });
        VarId(self.vars.len() as u32 - 1)
    }

    /// A number of the rules, for this case; `what` names it in a report.
    fn num(&mut self, n: &Num, what: &str) -> i64 {
        let counts = &self.tile_count;
        let env = NumEnv {
            header: &self.case.header,
            count: &|t| counts[t.ix()],
            case: self.case.number as i64,
            cost: None,
            steps: None,
        };
        match n.eval(&env) {
            Some(v) => v,
            None => {
                let e = case_error(
                    self.case,
                    format!("{what} cannot be worked out for case {}", self.case.number),
                    "the arithmetic divides by zero or overflows with this case's header".into(),
                );
                self.errors.push(e);
                0
            }
        }
    }

    /// A cost, from 1 to [`MAX_COST`]; one out of that range is reported
    /// (and 1 is used, for the rest of the grounding to go on).
    fn cost(&mut self, n: &Num, what: &str) -> u32 {
        let c = self.num(n, "a cost");
        if !(1..=i64::from(MAX_COST)).contains(&c) {
            let e = case_error(
                self.case,
                format!("{what} costs {c} in case {}", self.case.number),
                format!("a cost is at least 1 and at most {MAX_COST}"),
            );
            self.errors.push(e);
            return 1;
        }
        c as u32
    }

    fn instance_name(&self, i: usize) -> String {
        let Instance { agent, member, .. } = self.instances[i];
        let a = &self.rules.agents[agent.ix()];
        match a.family {
            Some(_) => format!("{}[{}]", a.name, member + 1),
            None if matches!(a.start, Start::Every) => format!("{}[{}]", a.name, member + 1),
            None if a.piece.is_some() && a.max_members > 1 => {
                format!("{}[{}]", a.name, a.markers[member as usize])
            }
            None if a.object => format!("{}[{}]", a.name, member + 1),
            None => a.name.clone(),
        }
    }

    /// The movers, their actions, and every variable: positions first
    /// (mover order), then headings, then flags and counters.
    fn movers_and_vars(&mut self) {
        let rules = self.rules;
        let lone = rules.mode == crate::ast::Mode::InTurn && self.instances.len() == 1;
        // Twins share one domain: the last one found, by its first twin.
        let mut shared: Option<(u32, Domain)> = None;
        for i in 0..self.instances.len() {
            let id = self.instances[i].agent;
            let agent = &rules.agents[id.ix()];
            let twins = self.twins(i);
            let domain = match &shared {
                _ if !agent.poses.is_empty() => self.posed_domain(i),
                Some((t, d)) if *t == twins.start => d.clone(),
                _ if agent.object || agent.piece.is_some() => {
                    let d = self.domain_of(twins.clone());
                    shared = Some((twins.start, d.clone()));
                    d
                }
                _ => self.domain(i, lone),
            };
            let shape = self.instances[i].shape.clone();
            let along = |d: crate::ast::Dir| lengthwise(agent, &shape, d.dr, d.dc);
            let name = self.instance_name(i);
            let m = MoverId(i as u32);
            let pos = self.var(name.clone(), VarKind::Position(m), domain.len() as u64);
            // A mover with no moves stands still: its only move is `stay`.
            // In turn, standing still is no step at all.
            let mut moves: Vec<(MoveKind, u32, &[PoseRow])> = Vec::new();
            for mv in &agent.moves {
                if let MoveKind::Dir(d) | MoveKind::Slide(d) = mv.kind
                    && !along(d)
                {
                    continue;
                }
                let what = format!("`{}`", mv.kind.name());
                let cost = self.cost(&mv.cost, &what);
                moves.push((mv.kind, cost, &mv.table));
            }
            // A `stay` the rule file lists is a move in every mode: a step
            // that changes nothing but what its rules change (a counter, a
            // flag, a `when` rule's toggle), at its cost. Only the implicit
            // stay of a mover with no moves is no step in turn.
            if moves.is_empty() && rules.mode != crate::ast::Mode::InTurn {
                moves.push((MoveKind::Dir(crate::ast::Dir { dr: 0, dc: 0 }), 1, &[]));
            }
            let mut actions = Vec::new();
            for (kind, cost, table) in moves {
                let motion = match kind {
                    MoveKind::Dir(d) if !table.is_empty() => Motion::Table(Dir::of(d)),
                    MoveKind::Dir(d) if d.dr == 0 && d.dc == 0 => Motion::Stay,
                    MoveKind::Dir(d) => Motion::Step(Dir::of(d)),
                    MoveKind::Forward => Motion::Forward,
                    MoveKind::Back => Motion::Back,
                    MoveKind::TurnLeft => Motion::Turn(-1),
                    MoveKind::TurnRight => Motion::Turn(1),
                    MoveKind::Slide(d) => Motion::Slide(Dir::of(d)),
                };
                actions.push(ActionId(self.actions.len() as u32));
                self.action_kinds.push(kind);
                self.actions.push(Action {
                    name: kind.name().to_string(),
                    mover: m,
                    motion,
                    cost,
                    guard: Expr::Const(true),
                    rules: Vec::new(),
                    table: table.to_vec(),
                });
            }
            let object = agent.object.then(|| {
                let push_cost = agent.push_cost.as_ref().map(|c| self.cost(c, "a push"));
                Object {
                    push_cost,
                    pushes_to_goal: None,
                }
            });
            // A mover that moves by itself chooses none of its moves.
            let script = agent.script.as_ref().map(|n| {
                let times = self.num(n, "how many moves");
                if !(1..=MAX_SCRIPT_TIMES).contains(&times) {
                    let e = case_error(
                        self.case,
                        format!(
                            "`{}` would move by itself {times} times a step in case {}",
                            agent.name, self.case.number
                        ),
                        format!("an agent moves by itself 1 to {MAX_SCRIPT_TIMES} times a step"),
                    );
                    self.errors.push(e);
                }
                let times = times.clamp(1, MAX_SCRIPT_TIMES);
                (times as u32, std::mem::take(&mut actions))
            });
            self.movers.push(Mover {
                name,
                agent: self.instances[i].agent,
                member: self.instances[i].member,
                pos,
                heading: None,
                domain,
                opaque: agent.opaque,
                actions,
                when: Vec::new(),
                object,
                twins,
                shape: if self.instances[i].shape.len() > 1 {
                    self.instances[i].shape.clone()
                } else {
                    Vec::new()
                },
                script,
                poses: None,
                follows: None,
            });
        }
        // A body's first member follows its leader, each other the member
        // before it.
        for i in 0..self.instances.len() {
            let inst = &self.instances[i];
            let Some(leader) = rules.agents[inst.agent.ix()].follows else {
                continue;
            };
            let before = (0..self.instances.len()).find(|&j| match inst.member {
                0 => self.instances[j].agent == leader,
                k => self.instances[j].agent == inst.agent && self.instances[j].member == k - 1,
            });
            self.movers[i].follows = before.map(|j| MoverId(j as u32));
        }
        for i in 0..self.instances.len() {
            let agent = &rules.agents[self.instances[i].agent.ix()];
            if agent.facing.is_some() {
                let name = format!("{} facing", self.movers[i].name);
                let h = self.var(name, VarKind::Heading(MoverId(i as u32)), 4);
                self.movers[i].heading = Some(h);
            }
            if !agent.poses.is_empty() {
                let name = format!("{} pose", self.movers[i].name);
                let n = agent.poses.len() as i64;
                let kind = VarKind::Counter {
                    lo: 0,
                    hi: n - 1,
                    wrap: false,
                };
                let v = self.var(name, kind, n as u64);
                let shapes = agent.poses.iter().map(|(_, cells)| cells.clone()).collect();
                self.movers[i].poses = Some((v, shapes));
            }
        }
        for st in &rules.states {
            self.state_vars.push(self.vars.len() as u32);
            let kind = match &st.kind {
                StateKind::Flag => VarKind::Flag,
                StateKind::Counter { lo, hi, wrap, .. } => {
                    let (lo, hi) = (
                        self.num(lo, "a counter's range"),
                        self.num(hi, "a counter's range"),
                    );
                    // In i128: bounds from a map can be anything an i64
                    // holds, and their difference need not be.
                    let (l, h) = (i128::from(lo), i128::from(hi));
                    let bound = i128::from(COUNTER_BOUND);
                    if l > h || h - l >= i128::from(MAX_COUNTER) || l < -bound || h > bound {
                        let e = case_error(
                            self.case,
                            format!(
                                "counter `{}` has the range {lo}..{hi} in case {}",
                                st.name, self.case.number
                            ),
                            format!(
                                "a counter's range is not empty, has at most {MAX_COUNTER} values, \
                                 and lies within -{COUNTER_BOUND}..{COUNTER_BOUND}"
                            ),
                        );
                        self.errors.push(e);
                    }
                    // Something within the engine's reach, for the rest of
                    // the grounding to go on with (the case fails anyway).
                    let lo = lo.clamp(-COUNTER_BOUND, COUNTER_BOUND);
                    let hi = hi.clamp(lo, (lo + MAX_COUNTER - 1).min(COUNTER_BOUND));
                    VarKind::Counter {
                        lo,
                        hi,
                        wrap: *wrap,
                    }
                }
            };
            let size = match kind {
                VarKind::Counter { lo, hi, .. } => (hi - lo + 1) as u64,
                _ => 2,
            };
            match st.index {
                StateIndex::None => {
                    self.var(st.name.clone(), kind, size);
                }
                StateIndex::Domain(d) => {
                    for v in &rules.domains[d.ix()].values {
                        self.var(format!("{}[{v}]", st.name), kind, size);
                    }
                }
                StateIndex::Tile(t) => {
                    for k in 0..self.occurrences[t.ix()] {
                        self.var(
                            format!("{}[{}#{}]", st.name, rules.tiles[t.ix()].name, k + 1),
                            kind,
                            size,
                        );
                    }
                }
            }
        }
    }

    /// The instances interchangeable with instance `i`, itself among them:
    /// the members of its object, or the pieces of its declaration with its
    /// shape (instances of one declaration are consecutive, pieces of one
    /// shape among them too).
    fn twins(&self, i: usize) -> std::ops::Range<u32> {
        let inst = &self.instances[i];
        let agent = &self.rules.agents[inst.agent.ix()];
        if !agent.object && agent.piece.is_none() {
            return i as u32..i as u32 + 1;
        }
        let same = |j: usize| {
            let o = &self.instances[j];
            o.agent == inst.agent && o.shape == inst.shape
        };
        let mut lo = i;
        while lo > 0 && same(lo - 1) {
            lo -= 1;
        }
        let mut hi = i + 1;
        while hi < self.instances.len() && same(hi) {
            hi += 1;
        }
        lo as u32..hi as u32
    }

    /// The anchor cells a piece with poses can take, from its start, by the
    /// tables of its moves: every cell of the pose it comes to on the board
    /// and not solid.
    fn posed_domain(&self, i: usize) -> Domain {
        let inst = &self.instances[i];
        let agent = &self.rules.agents[inst.agent.ix()];
        let b = &self.board;
        let fits = |at: u32, pose: u32| {
            agent.poses[pose as usize]
                .1
                .iter()
                .all(|&off| b.shifted(at, off).is_some_and(|c| !b.class_of(c).solid))
        };
        let n = agent.poses.len();
        let mut seen = vec![false; b.class.len() * n];
        let mut anchors = vec![false; b.class.len()];
        let mut stack = Vec::new();
        if let (Some(&s), Some(p)) = (inst.starts.first(), inst.pose) {
            seen[s as usize * n + p as usize] = true;
            anchors[s as usize] = true;
            stack.push((s, p));
        }
        while let Some((at, pose)) = stack.pop() {
            for mv in &agent.moves {
                let Some(&(to, off)) = mv.table.get(pose as usize) else {
                    continue;
                };
                let Some(t) = b.shifted(at, off) else {
                    continue;
                };
                let k = t as usize * n + to as usize;
                if fits(t, to) && !seen[k] {
                    seen[k] = true;
                    anchors[t as usize] = true;
                    stack.push((t, to));
                }
            }
        }
        let cells = (0..b.class.len() as u32)
            .filter(|&c| anchors[c as usize])
            .collect();
        Domain::listed(b, cells)
    }

    /// The domain the twins `twins` share: for an object's members, the
    /// cells the pushers' moves spread from all of their starts; for
    /// pieces, the cells their first cell can move to from all of their
    /// starts, by their moves, with every cell of the piece on the board
    /// and not solid.
    fn domain_of(&self, twins: std::ops::Range<u32>) -> Domain {
        let i = twins.start as usize;
        let agent = &self.rules.agents[self.instances[i].agent.ix()];
        if agent.object {
            return self.domain(i, false);
        }
        let b = &self.board;
        let shape = &self.instances[i].shape;
        // Where the piece's first cell goes by (dr, dc), if every cell of
        // it lands on the board and not on a solid cell.
        let fits = |cell: u32, dr: i32, dc: i32| -> Option<u32> {
            let to = b.shifted(cell, (dr, dc))?;
            shape
                .iter()
                .all(|&off| b.shifted(to, off).is_some_and(|c| !b.class_of(c).solid))
                .then_some(to)
        };
        let dirs: Vec<(i32, i32)> = agent_dirs(agent)
            .iter()
            .map(|d| (d.dr as i32, d.dc as i32))
            .filter(|&(dr, dc)| lengthwise(agent, shape, dr, dc))
            .collect();
        let mut seen = vec![false; b.class.len()];
        let mut stack: Vec<u32> = Vec::new();
        for j in twins {
            let s = self.instances[j as usize].starts[0];
            if !seen[s as usize] {
                seen[s as usize] = true;
                stack.push(s);
            }
        }
        while let Some(c) = stack.pop() {
            for &(dr, dc) in &dirs {
                if let Some(t) = fits(c, dr, dc)
                    && !seen[t as usize]
                {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
        let cells: Vec<u32> = (0..b.class.len() as u32)
            .filter(|&c| seen[c as usize])
            .collect();
        Domain::listed(b, cells)
    }

    /// The cells instance `i` can ever stand on, in grid order, as grid
    /// cells and as padded indexes: reachable from its starts by its moves
    /// through cells that are not solid. A lone agent's are every cell it
    /// may stand on: its states are positions times flags, so a few cells
    /// it cannot reach cost a few table entries, never a state, and less
    /// than finding them; on a large map of mostly open cells, the whole
    /// padded grid (see [`Domain::grid_pays`]).
    fn domain(&self, i: usize, lone: bool) -> Domain {
        let inst = &self.instances[i];
        let b = &self.board;
        let object = self.rules.agents[inst.agent.ix()].object;
        let follows = self.rules.agents[inst.agent.ix()].follows;
        // An object's domain: every member's start, spread by the moves of
        // the agents that push it. A body's: every member's start and its
        // leader's, spread by the leader's moves (a member only ever takes
        // a cell the one before it left).
        let firsts: Vec<usize> = if object || follows.is_some() {
            (self.instances.iter())
                .filter(|x| x.agent == inst.agent || Some(x.agent) == follows)
                .flat_map(|x| x.starts.iter().map(|&c| b.padded(c)))
                .collect()
        } else {
            inst.starts.iter().map(|&c| b.padded(c)).collect()
        };
        if lone && Domain::grid_pays(b) {
            return Domain::grid(b);
        }
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
            cells.truncate(k);
            padded.truncate(k);
            // The starts, even on a cell no agent may enter.
            for (&first, &start) in firsts.iter().zip(&inst.starts) {
                if b.open[first] == 0 && cells.binary_search(&start).is_err() {
                    let at = padded.partition_point(|&pc| (pc as usize) < first);
                    cells.insert(at, start);
                    padded.insert(at, first as u32);
                }
            }
            return Domain::from_lists(cells, padded);
        }
        // 2: in the domain. 1: open and not reached yet.
        let mut mark = b.open.clone();
        let dirs = match follows {
            _ if object => pusher_dirs(self.rules),
            Some(leader) => agent_dirs(&self.rules.agents[leader.ix()]),
            None => agent_dirs(&self.rules.agents[inst.agent.ix()]),
        };
        let deltas: Vec<isize> = dirs.iter().map(|&d| b.delta(d)).collect();
        let mut stack = Vec::new();
        for &first in &firsts {
            if mark[first] != 2 {
                mark[first] = 2;
                stack.push(first as u32);
            }
        }
        while let Some(pc) = stack.pop() {
            for &d in &deltas {
                let t = (pc as usize).wrapping_add_signed(d);
                if mark[t] == 1 {
                    mark[t] = 2;
                    stack.push(t as u32);
                    // A teleport's end leads to its other end.
                    if let Some((other, _)) = b.cell(t).and_then(|c| b.teleport(c)) {
                        let po = b.padded(other);
                        if mark[po] == 1 {
                            mark[po] = 2;
                            stack.push(po as u32);
                        }
                    }
                }
            }
        }
        scan(&mark, 2);
        cells.truncate(k);
        padded.truncate(k);
        Domain::from_lists(cells, padded)
    }

    fn rule(&mut self, r: Rule) -> RuleId {
        self.task_rules.push(r);
        RuleId(self.task_rules.len() as u32 - 1)
    }

    /// The variable of a state reference, for a rule grounded on `class`
    /// (which gives a bound value and an occurrence).
    fn state_var(&self, state: StateId, index: IndexRef, class: Option<&Class>) -> VarId {
        let v = match index {
            IndexRef::None => 0,
            IndexRef::Value(v) => v,
            IndexRef::Bound => class
                .and_then(|c| c.value)
                .expect("a bound index has a value"),
            IndexRef::Occurrence => class
                .and_then(|c| c.occurrence)
                .expect("an occurrence index has its cell"),
        };
        VarId(self.state_vars[state.ix()] + v)
    }

    /// How many variables a state has.
    fn state_len(&self, state: StateId) -> u32 {
        match self.rules.states[state.ix()].index {
            StateIndex::None => 1,
            StateIndex::Domain(d) => self.rules.domains[d.ix()].values.len() as u32,
            StateIndex::Tile(t) => self.occurrences[t.ix()],
        }
    }

    fn effects(&mut self, acts: &[resolve::Action], class: Option<&Class>) -> Vec<Effect> {
        acts.iter()
            .map(|a| {
                let var = self.state_var(a.state, a.index, class);
                let op = match &a.op {
                    ActOp::Set => Op::Set(1),
                    ActOp::Clear => Op::Set(0),
                    ActOp::Toggle => Op::Toggle,
                    ActOp::Add(n) => {
                        let k = i128::from(self.num(n, "an amount"));
                        Op::Add(self.amount(var, k))
                    }
                    ActOp::Sub(n) => {
                        let k = -i128::from(self.num(n, "an amount"));
                        Op::Add(self.amount(var, k))
                    }
                    ActOp::Assign(n) => Op::Set(self.num(n, "a value")),
                };
                Effect { var, op }
            })
            .collect()
    }

    /// What `+= k` adds to `var`, within what the engine adds without
    /// overflow: modulo its size for a counter that wraps; at most 2^62 either
    /// way otherwise (a counter's range is at most 2^32 wide within
    /// ±2^62: anything more leaves it as surely).
    fn amount(&self, var: VarId, k: i128) -> i64 {
        let v = &self.vars[var.ix()];
        match v.kind() {
            VarKind::Counter { lo, hi, wrap: true } => {
                k.rem_euclid(i128::from(hi) - i128::from(lo) + 1) as i64
            }
            _ => k.clamp(-i128::from(COUNTER_BOUND), i128::from(COUNTER_BOUND)) as i64,
        }
    }

    /// A rule's condition and effects, grounded on `class`.
    fn ground_rule(
        &mut self,
        cond: &Option<resolve::Expr>,
        acts: &[resolve::Action],
        class: Option<&Class>,
    ) -> RuleId {
        let cond = cond
            .as_ref()
            .map_or(Expr::Const(true), |c| self.expr(c, class));
        let effects = self.effects(acts, class);
        self.rule(Rule { cond, effects })
    }

    fn class_matches(&self, class: &Class, tile: TileId, sel: ValueSel) -> bool {
        class.tile == tile
            && match sel {
                ValueSel::Value(v) => class.value == Some(v),
                _ => true,
            }
    }

    /// A checked expression grounded on this map, for a rule grounded on
    /// `class` (its bound value and occurrence).
    fn expr(&mut self, e: &resolve::Expr, class: Option<&Class>) -> Expr {
        use resolve::Expr as E;
        match e {
            E::Flag { state, index } => {
                Expr::Cmp(self.state_var(*state, *index, class), Cmp::Eq, 1)
            }
            E::Cmp {
                state,
                index,
                op,
                value,
            } => {
                let v = self.num(value, "a comparison");
                Expr::Cmp(self.state_var(*state, *index, class), cmp(*op), v)
            }
            E::AllFlags(f) | E::AnyFlag(f) => {
                let first = self.state_vars[f.ix()];
                let parts = (0..self.state_len(*f))
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
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| self.at(i, *place))
                    .collect();
                match members {
                    Members::Any => Expr::or(parts),
                    Members::One => of_present(parts),
                    _ => Expr::and(parts),
                }
            }
            E::Has { tile, value, agent } => {
                let hit: Vec<bool> = (self.board.classes.iter())
                    .map(|k| self.class_matches(k, *tile, *value))
                    .collect();
                let goals: Vec<u32> = (0..self.board.class.len() as u32)
                    .filter(|&c| hit[self.board.class[c as usize] as usize])
                    .collect();
                let members: Vec<usize> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .collect();
                // Members of an object never share a cell: as many cells
                // as members is every member on one of them, more is never.
                if self.rules.agents[agent.ix()].object && goals.len() >= members.len() {
                    if goals.len() > members.len() {
                        return Expr::Const(false);
                    }
                    let parts = members
                        .iter()
                        .map(|&i| self.at(i, PlaceRef::Tile(*tile, *value)))
                        .collect();
                    return Expr::and(parts);
                }
                let parts = goals
                    .iter()
                    .map(|&g| {
                        let any = members.iter().map(|&i| self.at_cells(i, |x| x == g));
                        Expr::or(any.collect())
                    })
                    .collect();
                Expr::and(parts)
            }
            E::AtCell { agent, row, col } => {
                let (r, c) = (self.num(row, "a row"), self.num(col, "a column"));
                let cell = self.board.at(r, c);
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| self.at_cells(i, |x| Some(x) == cell))
                    .collect();
                of_present(parts)
            }
            E::PoseIs(agent, k) => {
                let parts = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .filter_map(|i| self.movers[i].poses.as_ref())
                    .map(|(v, _)| Expr::Cmp(*v, Cmp::Eq, i64::from(*k)))
                    .collect();
                of_present(parts)
            }
            E::Meets { agent, members, at } => {
                let Some(j) = (0..self.instances.len()).find(|&j| self.instances[j].agent == *at)
                else {
                    return Expr::Const(false);
                };
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .map(|i| Expr::Near {
                        a: MoverId(j as u32),
                        b: MoverId(i as u32),
                        off: (0, 0),
                    })
                    .collect();
                match members {
                    Members::Any => Expr::or(parts),
                    Members::One => of_present(parts),
                    _ => Expr::and(parts),
                }
            }
            E::Pos { terms, op, k } => {
                let mut out = Vec::with_capacity(terms.len());
                for &(f, r) in terms {
                    let m = match r.agent {
                        None => self.actor,
                        Some(a) => {
                            (0..self.instances.len()).find(|&i| self.instances[i].agent == a)
                        }
                    };
                    // An absent agent (or no mover): the comparison is false.
                    let Some(m) = m else {
                        return Expr::Const(false);
                    };
                    out.push((f, r.axis == crate::ast::Axis::Row, MoverId(m as u32)));
                }
                Expr::Pos {
                    terms: out,
                    op: cmp(*op),
                    k: *k,
                }
            }
            E::Moving(d) => Expr::Const(self.moving.is_some_and(|m| m.goes(Dir::of(*d)))),
            E::Cell { at, what } => self.cell_test(*at, *what),
            E::MovingBound => {
                // The value of the cell's tile, a direction word.
                let rules = self.rules;
                let way = class.and_then(|c| {
                    let d = rules.tiles[c.tile.ix()].domain?;
                    let word = &rules.domains[d.ix()].values[c.value? as usize];
                    crate::ast::Dir::named(word)
                });
                Expr::Const(way.is_some_and(|d| self.moving.is_some_and(|m| m.goes(Dir::of(d)))))
            }
            E::Facing(agent, h) => {
                let parts: Vec<Expr> = (0..self.instances.len())
                    .filter(|&i| self.instances[i].agent == *agent)
                    .filter_map(|i| self.movers[i].heading)
                    .map(|v| Expr::Cmp(v, Cmp::Eq, *h as i64))
                    .collect();
                of_present(parts)
            }
            E::And(es) => {
                let parts = es.iter().map(|e| self.expr(e, class)).collect();
                Expr::and(parts)
            }
            E::Or(es) => {
                let parts = es.iter().map(|e| self.expr(e, class)).collect();
                Expr::or(parts)
            }
            E::Not(e) => Expr::not(self.expr(e, class)),
        }
    }

    /// Instance `i` stands on `place`.
    fn at(&self, i: usize, place: PlaceRef) -> Expr {
        match place {
            PlaceRef::Target => {
                let target = self.instances[i].target;
                self.at_cells(i, |c| Some(c) == target)
            }
            PlaceRef::Tile(t, sel) => {
                // By class first: a tile test is a class test.
                let hit: Vec<bool> = (self.board.classes.iter())
                    .map(|k| self.class_matches(k, t, sel))
                    .collect();
                let class = &self.board.class;
                self.at_cells(i, |c| hit[class[c as usize] as usize])
            }
        }
    }

    /// Instance `i` on a cell where `hit` holds, as a set of positions
    /// built sixty-four a word (maps of millions of cells); folded when no
    /// cell or every cell of the domain is one.
    fn at_cells(&self, i: usize, hit: impl Fn(u32) -> bool) -> Expr {
        let d = &self.movers[i].domain;
        let mut words = vec![0u64; d.len().div_ceil(64)];
        let mut cells = 0;
        d.for_each(|p, c, _| {
            words[p as usize / 64] |= u64::from(hit(c)) << (p % 64);
            cells += 1;
        });
        Expr::at_words(MoverId(i as u32), words, cells)
    }

    /// `f`'s expression for action `a`, read with its mover as the actor
    /// and the way its move goes: a step's or slide's offset; along the
    /// heading for a move along it or one that goes no way (one part per
    /// heading, each under its test); no way for a mover without heading
    /// that goes none (`moving` anything is false there).
    fn per_way(&mut self, a: usize, f: &mut impl FnMut(&mut Self) -> Expr) -> Expr {
        let i = self.actions[a].mover.ix();
        let motion = self.actions[a].motion;
        let saved = (self.actor, self.way, self.moving);
        self.actor = Some(i);
        let e = match (motion, self.movers[i].heading) {
            (Motion::Step(d) | Motion::Slide(d), _) => {
                (self.way, self.moving) = (Some(d), Some(d));
                f(self)
            }
            (_, Some(h)) => {
                let parts = (0..4)
                    .map(|k| {
                        let face = Dir::COMPASS[k];
                        (self.way, self.moving) = match motion {
                            Motion::Forward => (Some(face), Some(face)),
                            Motion::Back => (Some(face.opposite()), Some(face.opposite())),
                            _ => (Some(face), None),
                        };
                        Expr::and(vec![Expr::Cmp(h, Cmp::Eq, k as i64), f(self)])
                    })
                    .collect();
                Expr::or(parts)
            }
            (_, None) => {
                (self.way, self.moving) = (None, None);
                f(self)
            }
        };
        (self.actor, self.way, self.moving) = saved;
        e
    }

    /// A cell test for the actor: the cell `at` from it holds `what`.
    fn cell_test(&mut self, at: crate::ast::RelCell, what: resolve::CellTest) -> Expr {
        use crate::ast::RelCell;
        let Some(i) = self.actor else {
            return Expr::Const(false);
        };
        let along = |k: i32| self.way.map(|d| (i32::from(d.dr) * k, i32::from(d.dc) * k));
        let off = match at {
            RelCell::Here => Some((0, 0)),
            RelCell::Ahead => along(1),
            RelCell::Beyond => along(2),
            RelCell::Offset(d) => Some((d.dr, d.dc)),
        };
        // The resolver gives a mover that goes no way a heading.
        let Some(off) = off else {
            return Expr::Const(false);
        };
        match what {
            resolve::CellTest::Tile(tile, sel) => {
                // One offset is often read by several moves (a leap and its
                // mirror image): each mover's test is built once.
                let key = (i, off, tile, sel);
                if let Some(e) = self.cell_tests.get(&key) {
                    return e.clone();
                }
                let e = self.tile_test(i, off, tile, sel);
                self.cell_tests.insert(key, e.clone());
                e
            }
            resolve::CellTest::Has(agent) => Expr::or(
                (0..self.instances.len())
                    .filter(|&j| j != i && self.instances[j].agent == agent)
                    .map(|j| Expr::Near {
                        a: MoverId(i as u32),
                        b: MoverId(j as u32),
                        off,
                    })
                    .collect(),
            ),
        }
    }

    /// Mover `i` stands where the cell `off` from it has `tile` (of the
    /// values `sel`).
    fn tile_test(&self, i: usize, off: (i32, i32), tile: TileId, sel: ValueSel) -> Expr {
        {
            {
                let b = &self.board;
                let want: Vec<bool> = (b.classes.iter())
                    .map(|k| self.class_matches(k, tile, sel))
                    .collect();
                let (rows, cols) = (b.rows as i64, b.cols as i64);
                let hit = |r: i64, c: i64| {
                    let (r, c) = (r + i64::from(off.0), c + i64::from(off.1));
                    (0..rows).contains(&r)
                        && (0..cols).contains(&c)
                        && want[b.class[(r * cols + c) as usize] as usize]
                };
                let d = &self.movers[i].domain;
                if !d.is_grid() {
                    return self.at_cells(i, |x| hit(x as i64 / cols, x as i64 % cols));
                }
                // A grid's positions are the padded grid's indexes: row by
                // row, no division a cell (a large map has millions).
                let mut words = vec![0u64; d.len().div_ceil(64)];
                for r in 0..rows {
                    let row = (r as usize + b.pad) * b.width + b.pad;
                    for c in 0..cols {
                        let p = row + c as usize;
                        words[p / 64] |= u64::from(hit(r, c)) << (p % 64);
                    }
                }
                Expr::at_words(MoverId(i as u32), words, (rows * cols) as usize)
            }
        }
    }

    fn finish(mut self) -> (Task, Vec<InputError>) {
        let rules = self.rules;
        let nclasses = self.board.classes.len();
        let present = self.board.present.clone();
        // Entry conditions; where one reads `moving`, one set per
        // direction, and as the plain entry their union (a cell closed
        // whichever way it is entered is closed).
        let mut entry = self.entries(&present);
        let mut entry_moving = Vec::new();
        // What `carry` rules carry a mover on a cell of each class, if any.
        let carry: Vec<Option<Dir>> = if rules.carries.is_empty() {
            Vec::new()
        } else {
            (self.board.classes.iter())
                .map(|k| {
                    let c = rules
                        .carries
                        .iter()
                        .find(|c| self.class_matches(k, c.tile, c.value))?;
                    match c.way {
                        resolve::CarryWay::Dir(d) => Some(Dir::of(d)),
                        resolve::CarryWay::Bound => {
                            let d = rules.tiles[k.tile.ix()].domain?;
                            let word = &rules.domains[d.ix()].values[k.value? as usize];
                            crate::ast::Dir::named(word).map(Dir::of)
                        }
                    }
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
        // What entering a cell costs: the largest cost of the rules that
        // match it, if any does.
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
        // Moves' conditions, and rules fired by moves: read with the mover
        // and the way its move goes.
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
                            by_class[k] = Some(self.ground_rule(&w.cond, &w.actions, Some(&class)));
                        }
                    }
                    self.movers[i].when.push(When { relation, by_class });
                }
            }
        }
        // The cells of each class a rule fires on, found in one pass.
        let mut ruled = vec![false; nclasses];
        for lists in std::iter::once(&on_enter).chain(on_enter_moving.iter().map(|(_, l)| l)) {
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
        self.board.cells_of = cells_of;
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
        // Carried, an object needs no pushes to get somewhere: no bound.
        if rules.carries.is_empty() {
            self.pushes_to_goal(&goal);
        }
        let forbid = rules.forbid.iter().map(|e| self.expr(e, None)).collect();
        let forbid = Expr::or(forbid);
        let starts = self.starts();
        let task = Task {
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
            starts,
            goal,
            limit,
        }
        .with_coords();
        (task, self.errors)
    }

    /// Mover by class, the rules fired on entering a cell of it, grounded
    /// for [`Self::moving`], in file order.
    fn on_enter_rules(&mut self, present: &[bool]) -> Vec<Vec<RuleId>> {
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
    fn entries(&mut self, present: &[bool]) -> Vec<Expr> {
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
    fn pushes_to_goal(&mut self, goal: &Expr) {
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
    fn starts(&mut self) -> Vec<Vec<i64>> {
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

/// What holds of one agent, one part a member on the map: all of them; for
/// an optional agent not on the map, nothing (it stands nowhere, faces no
/// way).
fn cmp(op: crate::ast::CmpOp) -> Cmp {
    match op {
        crate::ast::CmpOp::Eq => Cmp::Eq,
        crate::ast::CmpOp::Ne => Cmp::Ne,
        crate::ast::CmpOp::Lt => Cmp::Lt,
        crate::ast::CmpOp::Le => Cmp::Le,
        crate::ast::CmpOp::Gt => Cmp::Gt,
        crate::ast::CmpOp::Ge => Cmp::Ge,
    }
}

fn of_present(parts: Vec<Expr>) -> Expr {
    if parts.is_empty() {
        return Expr::Const(false);
    }
    Expr::and(parts)
}

/// The directions an agent's moves take it, in any state.
fn agent_dirs(a: &resolve::Agent) -> Vec<Dir> {
    let mut dirs = Vec::new();
    for m in &a.moves {
        let more: Vec<Dir> = match m.kind {
            MoveKind::Dir(d) | MoveKind::Slide(d) if d.dr != 0 || d.dc != 0 => {
                vec![Dir::of(d)]
            }
            MoveKind::Forward | MoveKind::Back => Dir::COMPASS.to_vec(),
            _ => Vec::new(),
        };
        for d in more {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

/// Whether a piece of `shape` may move by (dr, dc): always, unless it is
/// `lengthwise` and longer one way than the other, when only that way.
fn lengthwise(agent: &resolve::Agent, shape: &[(i32, i32)], dr: i32, dc: i32) -> bool {
    if agent.piece != Some(true) || shape.is_empty() {
        return true;
    }
    let span = |f: fn(&(i32, i32)) -> i32| {
        let (lo, hi) = (shape.iter().map(f).min(), shape.iter().map(f).max());
        hi.unwrap_or(0) - lo.unwrap_or(0)
    };
    let (tall, wide) = (span(|o| o.0), span(|o| o.1));
    match tall.cmp(&wide) {
        std::cmp::Ordering::Greater => dc == 0,
        std::cmp::Ordering::Less => dr == 0,
        std::cmp::Ordering::Equal => true,
    }
}

/// A cell of `cells` (in grid order) not joined side by side to the
/// first, if there is one.
/// Puts the members of body `body` in order behind `leader`: from the
/// leader's cell, each next member the one on a cell side by side with the
/// last (exactly one must be), numbered so. Reports a body whose cells do
/// not make one such chain, or a leader not on the map once.
fn chain(
    case: &RawCase,
    grid: Ringed,
    instances: &mut [Instance],
    body: AgentId,
    leader: AgentId,
    errors: &mut Vec<InputError>,
) {
    let members: Vec<usize> = (0..instances.len())
        .filter(|&i| instances[i].agent == body)
        .collect();
    if members.is_empty() {
        return;
    }
    let head = instances
        .iter()
        .find(|x| x.agent == leader)
        .and_then(|x| (x.starts.len() == 1).then(|| x.starts[0]));
    let Some(mut at) = head else {
        errors.push(case_error(
            case,
            format!(
                "case {}: a body follows a leader that is not on the map once",
                case.number
            ),
            "put the leader's marker on the map once, next to its body".into(),
        ));
        return;
    };
    let w = grid.width() as i64;
    let beside = |a: u32, b: u32| {
        let (a, b) = (i64::from(a), i64::from(b));
        (a / w - b / w).abs() + (a % w - b % w).abs() == 1
    };
    let mut left: Vec<u32> = members.iter().map(|&i| instances[i].starts[0]).collect();
    let mut order = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let next: Vec<usize> = (0..left.len()).filter(|&k| beside(at, left[k])).collect();
        let (cell, label) = match next[..] {
            [k] => {
                at = left.remove(k);
                order.push(at);
                continue;
            }
            [] => (left[0], "not joined to the body before it"),
            [_, k, ..] => (left[k], "one of two cells that could come next"),
        };
        errors.push(InputError::MarkerRepeated {
            message: format!(
                "case {}: the body's cells do not make one chain from its leader",
                case.number
            ),
            span: grid.span(case, cell),
            label: label.into(),
            help: "mark a body as one line of cells side by side, starting next to its leader"
                .into(),
        });
        return;
    }
    for (k, (&i, cell)) in members.iter().zip(order).enumerate() {
        instances[i].starts = vec![cell];
        instances[i].member = k as u32;
    }
}

/// Where a piece with `poses` stands when it covers `cells` (in grid
/// order, on a board `cols` wide): its anchor's cell and its pose, the
/// first pose whose cells are laid out so.
fn posed_start(
    poses: &[(String, Vec<(i32, i32)>)],
    cells: &[u32],
    cols: usize,
) -> Option<(u32, u32)> {
    let at = |c: u32| ((c as usize / cols) as i32, (c as usize % cols) as i32);
    let (fr, fc) = at(cells[0]);
    let k = poses.iter().position(|(_, offs)| {
        offs.len() == cells.len()
            && offs.iter().zip(cells).all(|(&(r, c), &cell)| {
                (r - offs[0].0, c - offs[0].1) == (at(cell).0 - fr, at(cell).1 - fc)
            })
    })?;
    let (r0, c0) = poses[k].1[0];
    let (ar, ac) = (fr - r0, fc - c0);
    Some(((ar as usize * cols + ac as usize) as u32, k as u32))
}

fn disconnected(cells: &[u32], cols: usize) -> Option<u32> {
    let mut reached = vec![false; cells.len()];
    reached[0] = true;
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        let c = cells[i] as usize;
        let left = (!c.is_multiple_of(cols)).then(|| c - 1);
        let right = (c % cols + 1 < cols).then_some(c + 1);
        let near = [c.checked_sub(cols), Some(c + cols), left, right];
        for o in near.into_iter().flatten() {
            if let Ok(j) = cells.binary_search(&(o as u32))
                && !reached[j]
            {
                reached[j] = true;
                stack.push(j);
            }
        }
    }
    reached.iter().position(|&r| !r).map(|i| cells[i])
}

/// The directions in which agents push objects: every agent's.
fn pusher_dirs(rules: &Rules) -> Vec<Dir> {
    let mut dirs = Vec::new();
    for a in rules.agents.iter().filter(|a| !a.object) {
        for d in agent_dirs(a) {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

/// A map read against the rules.
struct Map {
    board: Board,
    instances: Vec<Instance>,
    tile_count: Vec<i64>,
    occurrences: Vec<u32>,
}

/// Reads the grid into a board and finds each agent instance's starts and
/// target. Reports every problem in the map at once.
fn read_board(rules: &Rules, case: &RawCase) -> Result<Map, Vec<InputError>> {
    let mut errors = Vec::new();
    let classes = Classes::new(rules);
    let ncells = case.len();
    // One class past the last for the ASCII table's `NONE`.
    if classes.len >= MAX_CLASSES {
        return Err(vec![too_many_classes(case, classes.len)]);
    }
    let border = rules.tiles.iter().position(|t| t.border);
    let grid = Ringed {
        ring: usize::from(border.is_some()),
        rows: case.rows,
        cols: case.cols,
    };
    // The board's cells: the map's, inside the ring (map cell `cell` is
    // board cell `grid.board(cell)`).
    let ring_class = border.map_or(0, |t| classes.of(TileId(t as u32), None));
    let mut class: Vec<ClassId> = vec![ring_class; grid.len()];
    let env = NumEnv {
        header: &case.header,
        count: &|_| 0,
        case: case.number as i64,
        cost: None,
        steps: None,
    };
    // Family sizes, each within what its markers allow.
    let mut sizes = Vec::with_capacity(rules.agents.len());
    for agent in &rules.agents {
        let size: i64 = match &agent.family {
            None if agent.piece.is_some() => agent.max_members as i64,
            None => 1,
            Some(n) => n.eval(&env).unwrap_or(0),
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
    let mut any: Vec<Vec<u32>> = vec![Vec::new(); rules.agents.len()];
    let mut unknown: Vec<(usize, String)> = Vec::new();
    let chars = case.tokens.is_empty();
    // The class of each ASCII tile character, from a table; markers, other
    // symbols and unknown ones go through the legend.
    let ascii: Vec<ClassId> = (0..128u8)
        .map(|b| {
            match rules
                .legend
                .get((b as char).encode_utf8(&mut [0; 4]) as &str)
            {
                Some(Glyph::Tile(t, v)) if chars => classes.of(*t, *v),
                _ => NONE,
            }
        })
        .collect();
    let mut buf = [0u8; 4];
    #[allow(clippy::needless_range_loop)] // `cell` also names the cell in reports
    for cell in 0..ncells {
        let sym: &str = if chars {
            let ch = case.cells.get(cell);
            if let Some(&k) = ascii.get(ch as usize)
                && k != NONE
            {
                class[grid.board(cell) as usize] = k;
                continue;
            }
            ch.encode_utf8(&mut buf)
        } else {
            &case.tokens[cell].0
        };
        let at = grid.board(cell);
        match rules.legend.get(sym) {
            None => unknown.push((cell, sym.to_string())),
            Some(Glyph::Tile(t, v)) => class[at as usize] = classes.of(*t, *v),
            Some(Glyph::AnyStart(a, under)) => {
                class[at as usize] = classes.of(*under, None);
                any[a.ix()].push(at);
            }
            Some(g @ (Glyph::Start(a, m, _) | Glyph::Target(a, m))) => {
                let under = match g {
                    Glyph::Start(_, _, t) => *t,
                    _ => rules.agents[a.ix()].on,
                };
                class[at as usize] = classes.of(under, None);
                let list = if matches!(g, Glyph::Start(..)) {
                    &mut starts
                } else {
                    &mut targets
                };
                match list[a.ix()].get_mut(*m as usize) {
                    Some(v) => v.push(at),
                    None => errors.push(InputError::FamilySize {
                        message: format!(
                            "{} marks member {} of `{}`, but case {} has {} members",
                            if chars {
                                format!("{:?}", sym.chars().next().unwrap_or(' '))
                            } else {
                                format!("{sym:?}")
                            },
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
    // Unknown symbols from a row that reads as a header on: the header
    // said a row too many, and the next case's header was read as a row.
    let header_read_as_row = case.header_like.as_ref().filter(|(j, _)| {
        unknown.iter().all(|(cell, _)| cell / case.cols >= *j)
            && unknown.iter().any(|(cell, _)| cell / case.cols == *j)
    });
    if let (false, Some((_, e))) = (unknown.is_empty(), header_read_as_row) {
        errors.push(e.clone());
    } else if !unknown.is_empty() {
        let mut legend: Vec<&String> = rules.legend.keys().collect();
        legend.sort_unstable();
        let legend: Vec<String> = legend
            .iter()
            .map(|c| {
                if c.chars().count() == 1 {
                    format!("{:?}", c.chars().next().unwrap())
                } else {
                    format!("{c:?}")
                }
            })
            .collect();
        // One report per distinct symbol: the first place it appears.
        let mut seen = Vec::new();
        for (cell, sym) in unknown {
            if !seen.contains(&sym) {
                errors.push(InputError::UnknownChar {
                    symbol: crate::error::shown_symbol(&sym, chars),
                    span: case.cell_span(cell),
                    legend: legend.join(" "),
                });
                seen.push(sym);
            }
        }
    }
    // Tiles with state per occurrence: each of their cells its own class.
    let mut occurrences = vec![0u32; rules.tiles.len()];
    let per_occurrence: Vec<bool> = (0..rules.tiles.len())
        .map(|t| {
            rules
                .states
                .iter()
                .any(|s| s.index == StateIndex::Tile(TileId(t as u32)))
        })
        .collect();
    let mut all_classes: Vec<Class> = (0..classes.len).map(|k| classes.class(rules, k)).collect();
    if per_occurrence.iter().any(|&p| p) {
        let occurring = class
            .iter()
            .filter(|&&k| per_occurrence[all_classes[k as usize].tile.ix()])
            .count();
        if classes.len + occurring > MAX_CLASSES {
            return Err(vec![too_many_classes(case, classes.len + occurring)]);
        }
        for k in class.iter_mut() {
            let c = all_classes[*k as usize];
            if per_occurrence[c.tile.ix()] {
                let occ = occurrences[c.tile.ix()];
                occurrences[c.tile.ix()] += 1;
                all_classes.push(Class {
                    occurrence: Some(occ),
                    ..c
                });
                *k = (all_classes.len() - 1) as ClassId;
            }
        }
    }
    let mut instances = Vec::new();
    for (a, agent) in rules.agents.iter().enumerate() {
        let id = AgentId(a as u32);
        match &agent.start {
            Start::Every => {
                for (k, &cell) in any[a].iter().enumerate() {
                    instances.push(Instance {
                        agent: id,
                        shape: Vec::new(),
                        pose: None,
                        member: k as u32,
                        starts: vec![cell],
                        target: None,
                    });
                }
                continue;
            }
            Start::Any => {
                instances.push(Instance {
                    agent: id,
                    shape: Vec::new(),
                    pose: None,
                    member: 0,
                    starts: std::mem::take(&mut any[a]),
                    target: None,
                });
                continue;
            }
            Start::At(r, c) => {
                let (r, c) = (r.eval(&env).unwrap_or(i64::MIN), c.eval(&env).unwrap_or(0));
                let cell = grid.at(r, c);
                let inside = cell.is_some();
                let cell = cell.unwrap_or(0);
                if !inside || all_classes[class[cell as usize] as usize].solid {
                    errors.push(case_error(
                        case,
                        format!(
                            "`{}` starts at row {r}, column {c} in case {}, {}",
                            agent.name,
                            case.number,
                            if inside {
                                "a solid cell"
                            } else {
                                "outside the grid"
                            }
                        ),
                        format!(
                            "rows and columns count from 0; the grid is {} x {}",
                            case.rows, case.cols
                        ),
                    ));
                    continue;
                }
                instances.push(Instance {
                    agent: id,
                    shape: Vec::new(),
                    pose: None,
                    member: 0,
                    starts: vec![cell],
                    target: None,
                });
                continue;
            }
            Start::Pieces => {
                let first = instances.len();
                for (m, cells) in starts[a].iter().enumerate() {
                    let Some(&anchor) = cells.first() else {
                        continue;
                    };
                    if !agent.poses.is_empty() {
                        match posed_start(&agent.poses, cells, grid.width()) {
                            Some((at, pose)) => instances.push(Instance {
                                agent: id,
                                member: m as u32,
                                starts: vec![at],
                                target: None,
                                shape: Vec::new(),
                                pose: Some(pose),
                            }),
                            None => errors.push(InputError::MarkerRepeated {
                                message: format!(
                                    "case {}: the cells of `{}` are in none of its poses",
                                    case.number, agent.name
                                ),
                                span: grid.span(case, anchor),
                                label: "its first cell".into(),
                                help: "mark the piece's cells as one of its poses lays them out"
                                    .into(),
                            }),
                        }
                        continue;
                    }
                    if let Some(apart) = disconnected(cells, grid.width()) {
                        errors.push(InputError::MarkerRepeated {
                            message: format!(
                                "case {}: the cells of `{}`'s marker {:?} are not one piece",
                                case.number, agent.name, agent.markers[m]
                            ),
                            span: grid.span(case, apart),
                            label: "apart from the first".into(),
                            help: "a piece is a run of cells joined side by side; give \
                                   pieces apart markers of their own"
                                .into(),
                        });
                        continue;
                    }
                    let w = grid.width();
                    let (ar, ac) = ((anchor as usize / w) as i32, (anchor as usize % w) as i32);
                    let shape = cells
                        .iter()
                        .map(|&c| ((c as usize / w) as i32 - ar, (c as usize % w) as i32 - ac))
                        .collect();
                    instances.push(Instance {
                        agent: id,
                        member: m as u32,
                        starts: vec![anchor],
                        target: None,
                        shape,
                        pose: None,
                    });
                }
                // Pieces of one shape side by side: they are interchangeable.
                instances[first..]
                    .sort_by(|x, y| x.shape.cmp(&y.shape).then(x.member.cmp(&y.member)));
                continue;
            }
            Start::Markers => {}
        }
        let layout_targets = match agent.targets {
            Targets::Layout(l) => Some(layout_cells(rules, case, l, agent, &mut errors)),
            _ => None,
        };
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
                        span: grid.span(case, cells[1]),
                        label: format!("another {kind}"),
                        help: format!("put exactly one {kind} marker for {who} on the map"),
                    }),
                }
            };
            // An optional agent (member) whose marker is absent is not on
            // this map.
            if agent.optional && starts[a][m].is_empty() {
                continue;
            }
            let mut ok = true;
            if let Some(e) = marker("start", &starts[a][m]) {
                errors.push(e);
                ok = false;
            }
            if agent.targets == Targets::Markers
                && let Some(e) = marker("target", &targets[a][m])
            {
                errors.push(e);
                ok = false;
            }
            let target = match &layout_targets {
                Some(cells) => cells
                    .get(m)
                    .copied()
                    .flatten()
                    .map(|c| grid.board(c as usize)),
                None => targets[a][m].first().copied(),
            };
            if ok {
                instances.push(Instance {
                    agent: id,
                    shape: Vec::new(),
                    pose: None,
                    member: m as u32,
                    starts: vec![starts[a][m][0]],
                    target,
                });
            }
        }
    }
    for (a, agent) in rules.agents.iter().enumerate() {
        if let Some(leader) = agent.follows {
            chain(
                case,
                grid,
                &mut instances,
                AgentId(a as u32),
                leader,
                &mut errors,
            );
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (mut board, per_class) = new_board(rules, grid, all_classes, class);
    board.teleport = teleports(rules, case, grid, &board)?;
    let mut tile_count = vec![0i64; rules.tiles.len()];
    for (k, n) in per_class.iter().enumerate() {
        tile_count[board.classes[k].tile.ix()] += *n as i64;
    }
    Ok(Map {
        board,
        instances,
        tile_count,
        occurrences,
    })
}

/// Each cell's teleport, if it is a teleport's end: its other end, and
/// whether going through is the mover's choice. The cells of a teleport's
/// tile pair by parameter value (occurrences of one tile are one pair).
fn teleports(
    rules: &Rules,
    case: &RawCase,
    grid: Ringed,
    board: &Board,
) -> Result<Vec<(u32, u32, bool)>, Vec<InputError>> {
    if rules.teleports.is_empty() {
        return Ok(Vec::new());
    }
    // (tile, value) -> its cells, in grid order.
    type Ends = Vec<((TileId, Option<u32>), Vec<u32>)>;
    let mut ends: Ends = Vec::new();
    for cell in 0..board.class.len() as u32 {
        let k = board.class_of(cell);
        if !rules.teleports.iter().any(|t| t.tile == k.tile) {
            continue;
        }
        let key = (k.tile, k.value);
        match ends.iter_mut().find(|(e, _)| *e == key) {
            Some((_, cells)) => cells.push(cell),
            None => ends.push((key, vec![cell])),
        }
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for ((tile, value), cells) in ends {
        let t = &rules.tiles[tile.ix()];
        let name = match (value, t.domain) {
            (Some(v), Some(d)) => {
                format!("{}({})", t.name, rules.domains[d.ix()].values[v as usize])
            }
            _ => t.name.clone(),
        };
        if let [a, b] = cells[..] {
            let optional = rules.teleports.iter().any(|x| x.tile == tile && x.optional);
            out.extend([(a, b, optional), (b, a, optional)]);
        } else {
            // The lone end, or the third.
            let odd = cells[if cells.len() == 1 { 0 } else { 2 }];
            errors.push(InputError::Rules {
                message: format!(
                    "case {} has {} {} cell{}: a teleport's ends come in pairs",
                    case.number,
                    cells.len(),
                    name,
                    if cells.len() == 1 { "" } else { "s" }
                ),
                span: grid.span(case, odd),
                label: if cells.len() == 1 {
                    "an end with no other".into()
                } else {
                    "a third end".into()
                },
                help: match t.domain {
                    Some(_) => format!(
                        "each value of `{}` marks one teleport: give it exactly two cells, or none",
                        t.name
                    ),
                    None => format!(
                        "give `{}` exactly two cells; for several teleports, give the tile a \
                         domain with a value (and a symbol) per pair",
                        t.name
                    ),
                },
            });
        }
    }
    if errors.is_empty() {
        out.sort_unstable();
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Each member's target cell in a layout: where its marker is.
fn layout_cells(
    rules: &Rules,
    case: &RawCase,
    l: resolve::LayoutId,
    agent: &resolve::Agent,
    errors: &mut Vec<InputError>,
) -> Vec<Option<u32>> {
    let layout = &rules.layouts[l.ix()];
    let rows: Vec<Vec<String>> = layout
        .rows
        .iter()
        .map(|r| match rules.io.form {
            GridForm::Chars => r.chars().map(|c| c.to_string()).collect(),
            _ => r.split_whitespace().map(str::to_string).collect(),
        })
        .collect();
    if rows.len() != case.rows || rows.iter().any(|r| r.len() != case.cols) {
        errors.push(case_error(
            case,
            format!(
                "layout `{}` is {} x {}, but case {} is {} x {}",
                layout.name,
                rows.len(),
                rows.first().map_or(0, Vec::len),
                case.number,
                case.rows,
                case.cols
            ),
            "a layout is drawn like the map it is laid on".into(),
        ));
        return Vec::new();
    }
    let flat: Vec<&String> = rows.iter().flatten().collect();
    agent
        .markers
        .iter()
        .take(agent.max_members as usize)
        .map(|mk| {
            let at: Vec<usize> = (0..flat.len()).filter(|&i| flat[i] == mk).collect();
            if at.len() != 1 {
                errors.push(case_error(
                    case,
                    format!(
                        "layout `{}` has {} of `{}`'s marker {mk:?}",
                        layout.name,
                        if at.is_empty() {
                            "none"
                        } else {
                            "more than one"
                        },
                        agent.name
                    ),
                    "each member's marker appears exactly once in its layout".into(),
                ));
                return None;
            }
            Some(at[0] as u32)
        })
        .collect()
}

fn new_board(
    rules: &Rules,
    grid: Ringed,
    classes: Vec<Class>,
    class: Vec<ClassId>,
) -> (Board, Vec<u32>) {
    let (rows, cols) = (grid.rows + 2 * grid.ring, grid.width());
    let reach = |a: &resolve::Agent| {
        agent_dirs(a)
            .iter()
            .map(|d| d.dr.unsigned_abs().max(d.dc.unsigned_abs()) as usize)
            .max()
            .unwrap_or(0)
    };
    let pad = rules.agents.iter().map(reach).max().unwrap_or(0).max(1);
    let open_class: Vec<u8> = classes.iter().map(|k| u8::from(!k.solid)).collect();
    let width = cols + 2 * pad;
    let mut open = vec![0u8; width * (rows + 2 * pad)];
    // How many cells each class has (one pass with the padded copy).
    let mut count = vec![0u32; classes.len()];
    for (r, row) in class.chunks_exact(cols).enumerate() {
        let at = (r + pad) * width + pad;
        for (o, &k) in open[at..at + cols].iter_mut().zip(row) {
            *o = open_class[k as usize];
            count[k as usize] += 1;
        }
    }
    let present = count.iter().map(|&n| n > 0).collect();
    let board = Board {
        rows,
        cols,
        grid,
        class,
        classes,
        pad,
        width,
        open,
        present,
        cells_of: Vec::new(),
        teleport: Vec::new(),
    };
    (board, count)
}

/// A map that needs more cell classes than [`MAX_CLASSES`].
fn too_many_classes(case: &RawCase, n: usize) -> InputError {
    InputError::SizeRange {
        message: format!(
            "case {} needs {n} kinds of cell, more than the {MAX_CLASSES} a map may have",
            case.number
        ),
        span: case.span(),
        label: "in this case".into(),
        help: "a kind of cell is a tile with one value of its parameter, or one occurrence \
               of a tile with state of its own: use fewer values or fewer such tiles"
            .into(),
    }
}
