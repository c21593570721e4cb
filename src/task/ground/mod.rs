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

mod board;
mod clock;
mod exprs;
mod fields;
mod finish;
mod movers;

use board::*;
use movers::*;

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
        tile_maps: hashbrown::HashMap::new(),
        times: Vec::new(),
        clock_var: None,
        field_values: Vec::new(),
        field_reads: hashbrown::HashMap::new(),
        field_summaries: Vec::new(),
        prices: Vec::new(),
        errors: Vec::new(),
    };
    g.prices();
    g.fields();
    g.clock();
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
    /// Where costs have parts: every cost of the rules on this map, each
    /// once, least first (in the order of the parts); a step's cost is
    /// then its code, 1 + its place here, so that the least and the
    /// largest of codes are those of the costs.
    prices: Vec<Vec<u64>>,
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
    /// Per tile and values, the padded grid's cells that have it (a bit
    /// each), made when a cell test on a grid first asks.
    tile_maps: hashbrown::HashMap<(TileId, ValueSel), std::rc::Rc<[u64]>>,
    /// Per comparison of numbers of the rules ([`resolve::Expr::Time`]),
    /// its condition on this map (see [`clock`]).
    times: Vec<Expr>,
    /// The variable that keeps the time, where a condition reads it.
    clock_var: Option<VarId>,
    /// Per field of the rules, its number on every cell of the board.
    field_values: Vec<Vec<i64>>,
    /// The comparisons that read fields, grounded (by place), once each.
    field_reads: hashbrown::HashMap<usize, Expr>,
    /// Per field, what `explain` says of it on this map.
    field_summaries: Vec<FieldSummary>,
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
            field: &|_| None,
            parts: &[],
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
    /// (and 1 is used, for the rest of the grounding to go on). Where
    /// costs have parts, its code (see [`Grounder::prices`]).
    fn cost(&mut self, price: &resolve::Price, what: &str) -> u32 {
        let Some(v) = self.amounts(price, what) else {
            return 1;
        };
        if self.rules.parts.is_empty() {
            return v[0] as u32;
        }
        match self.prices.binary_search(&v) {
            Ok(i) => i as u32 + 1,
            Err(_) => unreachable!("every cost of the rules is among the prices"),
        }
    }

    /// A cost's amounts, checked: each 0 to [`MAX_COST`], the whole at
    /// least 1; `None` (reported) when not.
    fn amounts(&mut self, price: &resolve::Price, what: &str) -> Option<Vec<u64>> {
        let v: Vec<i64> = price.0.iter().map(|n| self.num(n, "a cost")).collect();
        let range = 0..=i64::from(MAX_COST);
        if v.iter().all(|c| range.contains(c)) && v.iter().any(|&c| c > 0) {
            return Some(v.iter().map(|&c| c as u64).collect());
        }
        let shown: Vec<String> = v.iter().map(i64::to_string).collect();
        let e = case_error(
            self.case,
            format!(
                "{what} costs {} in case {}",
                shown.join(" then "),
                self.case.number
            ),
            format!("a cost is at least 1 and at most {MAX_COST}"),
        );
        self.errors.push(e);
        None
    }

    /// What a step costs that no rule prices: 1 (of the first part).
    fn unit_cost(&mut self) -> u32 {
        let unit = self
            .rules
            .parts
            .is_empty()
            .then(|| resolve::Price(vec![Num::Lit(1)]));
        match unit {
            Some(p) => self.cost(&p, "a step"),
            None => {
                let mut v = vec![0; self.rules.parts.len()];
                v[0] = 1;
                self.prices.binary_search(&v).map_or(1, |i| i as u32 + 1)
            }
        }
    }

    /// Where costs have parts, every cost of the rules on this map, least
    /// first ([`Grounder::prices`]).
    fn prices(&mut self) {
        if self.rules.parts.is_empty() {
            return;
        }
        let rules = self.rules;
        let mut unit = vec![0; rules.parts.len()];
        unit[0] = 1;
        let mut all = vec![unit];
        let moves = rules.agents.iter().flat_map(|a| &a.moves).map(|m| &m.cost);
        let pushes = rules.agents.iter().filter_map(|a| a.push_cost.as_ref());
        let cells = rules.enter_costs.iter().map(|r| &r.cost);
        // One out of range is reported where it is used.
        for p in moves.chain(pushes).chain(cells) {
            let v: Vec<i64> = p.0.iter().map(|n| self.num(n, "a cost")).collect();
            if v.iter().all(|&c| (0..=i64::from(MAX_COST)).contains(&c)) {
                all.push(v.iter().map(|&c| c as u64).collect());
            }
        }
        all.sort();
        all.dedup();
        self.prices = all;
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
}
