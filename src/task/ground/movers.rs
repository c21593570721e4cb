//! Grounding the movers: one instance per agent and member on the map,
//! their position domains, their actions, and the state variables.

use super::*;

impl Grounder<'_> {
    /// The movers, their actions, and every variable: positions first
    /// (mover order), then headings, then flags and counters.
    pub(super) fn movers_and_vars(&mut self) {
        // The cells from which a lone piece's positions are every open
        // cell, not those its tables reach.
        const POSED_LARGE: usize = 1 << 16;
        let rules = self.rules;
        let lone = rules.mode == crate::ast::Mode::InTurn && self.instances.len() == 1;
        // Twins share one domain: the last one found, by its first twin.
        let mut shared: Option<(u32, Domain)> = None;
        for i in 0..self.instances.len() {
            let id = self.instances[i].agent;
            let agent = &rules.agents[id.ix()];
            let twins = self.twins(i);
            let domain = match &shared {
                // Alone on a large map, a piece with poses is numbered as
                // a lone agent is (every open cell, or the padded grid): a
                // state is an anchor, a pose and flags, and the anchors it
                // cannot reach cost a few table entries, never a state, and
                // less than finding them, a search of the whole space. On
                // a small map that search is cheap, and may find the goal
                // out of reach.
                _ if !agent.poses.is_empty() && lone && self.board.class.len() >= POSED_LARGE => {
                    self.domain(i, true)
                }
                _ if !agent.poses.is_empty() => self.posed_domain(i),
                Some((t, d)) if *t == twins.start => d.clone(),
                _ if agent.object || agent.piece.is_some() => {
                    let d = self.domain_of(twins.clone());
                    shared = Some((twins.start, d.clone()));
                    d
                }
                _ => self.domain(i, lone),
            };
            let name = self.instance_name(i);
            let m = MoverId(i as u32);
            let pos = self.var(name.clone(), VarKind::Position(m), domain.len() as u64);
            let mut actions = self.actions_of(m, agent);
            let object = agent.object.then(|| {
                let push_cost = agent.push_cost.as_ref().map(|c| self.cost(c, "a push"));
                Object {
                    push_cost,
                    pushes_to_goal: None,
                }
            });
            let script = self.script_of(agent, &mut actions);
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
        self.state_vars();
    }

    /// The actions of instance `m` of `agent`, as its move list gives
    /// them (a piece that moves lengthwise only along its length).
    fn actions_of(&mut self, m: MoverId, agent: &resolve::Agent) -> Vec<ActionId> {
        let rules = self.rules;
        let shape = self.instances[m.ix()].shape.clone();
        let along = |d: crate::ast::Dir| lengthwise(agent, &shape, d.dr, d.dc);
        // A mover with no moves stands still: its only move is `stay`.
        // In turn, standing still is no step at all.
        let mut moves: Vec<(MoveKind, u32, &[PoseRow], Option<&resolve::Letter>)> = Vec::new();
        for mv in &agent.moves {
            if let MoveKind::Dir(d) | MoveKind::Slide(d) = mv.kind
                && !along(d)
            {
                continue;
            }
            let what = format!("`{}`", mv.kind.name());
            let cost = self.cost(&mv.cost, &what);
            moves.push((mv.kind, cost, &mv.table, mv.letter.as_ref()));
        }
        // A `stay` the rule file lists is a move in every mode: a step
        // that changes nothing but what its rules change (a counter, a
        // flag, a `when` rule's toggle), at its cost. Only the implicit
        // stay of a mover with no moves is no step in turn.
        if moves.is_empty() && rules.mode != crate::ast::Mode::InTurn {
            let unit = self.unit_cost();
            moves.push((
                MoveKind::Dir(crate::ast::Dir { dr: 0, dc: 0 }),
                unit,
                &[],
                None,
            ));
        }
        let mut actions = Vec::new();
        for (kind, cost, table, letter) in moves {
            // Each move of the language, as the core composes it.
            let motion = match kind {
                MoveKind::Dir(d) if !table.is_empty() => Motion::table(Dir::of(d)),
                // A piece's turn by its table goes no way.
                MoveKind::TurnLeft | MoveKind::TurnRight if !table.is_empty() => {
                    Motion::table(Dir::STAY)
                }
                MoveKind::Dir(d) if d.dr == 0 && d.dc == 0 => Motion::STAY,
                MoveKind::Dir(d) => Motion::step(Dir::of(d)),
                MoveKind::Forward => Motion::along(Way::Ahead),
                MoveKind::Back => Motion::along(Way::Behind),
                MoveKind::TurnLeft => Motion::turn(-1),
                MoveKind::TurnRight => Motion::turn(1),
                MoveKind::Slide(d) => Motion::slide(Dir::of(d)),
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
                letter: letter.cloned(),
            });
        }
        actions
    }

    /// For an agent that moves by itself: how many times a step, and its
    /// actions (which nobody chooses: they leave its move list).
    fn script_of(
        &mut self,
        agent: &resolve::Agent,
        actions: &mut Vec<ActionId>,
    ) -> Option<(u32, Vec<ActionId>)> {
        agent.script.as_ref().map(|n| {
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
            (times as u32, std::mem::take(actions))
        })
    }

    /// The flags' and counters' variables, each counter's range checked.
    fn state_vars(&mut self) {
        let rules = self.rules;
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
    pub(super) fn twins(&self, i: usize) -> std::ops::Range<u32> {
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
    pub(super) fn posed_domain(&self, i: usize) -> Domain {
        let inst = &self.instances[i];
        let agent = &self.rules.agents[inst.agent.ix()];
        let b = &self.board;
        let n = agent.poses.len();
        // Whether each (anchor, pose) fits, worked out once (0: not yet).
        let mut fit = vec![0u8; b.class.len() * n];
        let mut fits = |at: u32, pose: u32| {
            let k = at as usize * n + pose as usize;
            if fit[k] == 0 {
                let rc = b.rc(at);
                let ok = (agent.poses[pose as usize].1.iter())
                    .all(|&off| b.shifted_rc(rc, off).is_some_and(|c| !b.class_of(c).solid));
                fit[k] = 1 + u8::from(ok);
            }
            fit[k] == 2
        };
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
    pub(super) fn domain_of(&self, twins: std::ops::Range<u32>) -> Domain {
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
    pub(super) fn domain(&self, i: usize, lone: bool) -> Domain {
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
        let mut mark = b.open.to_vec();
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
}

/// The directions an agent's moves take it, in any state.
pub(super) fn agent_dirs(a: &resolve::Agent) -> Vec<Dir> {
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
pub(super) fn lengthwise(agent: &resolve::Agent, shape: &[(i32, i32)], dr: i32, dc: i32) -> bool {
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
pub(super) fn chain(
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
    // Placed by records, the cells come in the order listed; drawn, the
    // next is the one cell beside the last.
    let listed = super::board::listed_first(case, grid, &mut left);
    let mut order = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let next: Vec<usize> = if listed {
            vec![0]
        } else {
            (0..left.len()).collect()
        };
        let next: Vec<usize> = next.into_iter().filter(|&k| beside(at, left[k])).collect();
        let (cell, label, help) = match next[..] {
            [k] => {
                at = left.remove(k);
                order.push(at);
                continue;
            }
            [] if listed => (
                left[0],
                "not side by side with the cell listed before it",
                "list a body's cells in order from its leader, each next to the last",
            ),
            [] => (
                left[0],
                "not joined to the body before it",
                "mark a body as one line of cells side by side, starting next to its leader",
            ),
            [_, k, ..] => (
                left[k],
                "one of two cells that could come next",
                "mark a body as one line of cells side by side, starting next to its leader",
            ),
        };
        errors.push(InputError::MarkerRepeated {
            message: format!(
                "case {}: the body's cells do not make one chain from its leader",
                case.number
            ),
            span: grid.span(case, cell),
            label: label.into(),
            help: help.into(),
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
pub(super) fn posed_start(
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

pub(super) fn disconnected(cells: &[u32], cols: usize) -> Option<u32> {
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
pub(super) fn pusher_dirs(rules: &Rules) -> Vec<Dir> {
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
