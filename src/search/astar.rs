//! A* with a heuristic derived from the goal: for each mover the goal pins
//! to some positions, its fewest moves to one of them on its own move graph
//! (other movers, conditions and flags ignored). A step moves every mover at
//! most once (`at once`: the heuristic is the largest of these distances) or
//! one mover once (`in turn`: their sum), so the heuristic never
//! overestimates and changes by at most one per step: it is consistent, and
//! the first goal taken off the queue is at the fewest steps.

use super::{Outcome, Successors};
use crate::ast::Mode;
use crate::compile::{Cond, Model, Node, Word};
use hashbrown::HashMap;

/// Per mover, the distance from each position to its nearest goal position
/// (`u32::MAX`: none reachable); movers the goal does not pin are absent.
pub struct Heuristic {
    tables: Vec<(usize, Vec<u32>)>,
    sum: bool,
}

impl Heuristic {
    /// The heuristic of a model, if its goal pins some mover's position.
    pub fn new<W: Word>(m: &Model<W>) -> Option<Heuristic> {
        let mut goals: Vec<Option<Vec<bool>>> = vec![None; m.movers.len()];
        pinned(m, m.goal, &mut goals);
        let tables: Vec<(usize, Vec<u32>)> = goals
            .into_iter()
            .enumerate()
            .filter_map(|(i, g)| Some((i, distances(m, i, &g?))))
            .collect();
        if tables.is_empty() {
            return None;
        }
        Some(Heuristic {
            tables,
            sum: m.mode == Mode::InTurn,
        })
    }

    /// A lower bound on the steps from `s` to a goal; `u32::MAX` if none.
    #[inline]
    pub fn of<W: Word>(&self, m: &Model<W>, s: W) -> u32 {
        let mut h = 0u32;
        for (i, table) in &self.tables {
            let d = table[m.movers[*i].pos(s) as usize];
            if d == u32::MAX {
                return u32::MAX;
            }
            h = if self.sum { h + d } else { h.max(d) };
        }
        h
    }
}

/// Collects the positions a goal condition requires of each mover, from its
/// conjunctions of fixed fields and position sets.
fn pinned<W: Word>(m: &Model<W>, c: Cond<W>, goals: &mut [Option<Vec<bool>>]) {
    let mut require = |i: usize, ok: &dyn Fn(usize) -> bool| {
        let n = m.movers[i].cells.len();
        let g = goals[i].get_or_insert_with(|| vec![true; n]);
        for (p, slot) in g.iter_mut().enumerate() {
            *slot &= ok(p);
        }
    };
    match c {
        Cond::Masked { mask, value } => {
            for (i, mv) in m.movers.iter().enumerate() {
                let field = mv.field();
                if mv.bits > 0 && mask & field == field {
                    let want = mv.pos(value) as usize;
                    require(i, &|p| p == want);
                }
            }
        }
        Cond::Expr(id) => match &m.nodes[id.0 as usize] {
            Node::At { mover, set } => {
                require(*mover as usize, &|p| set[p / 64] >> (p % 64) & 1 == 1);
            }
            Node::Masked { mask, value } => pinned(
                m,
                Cond::Masked {
                    mask: *mask,
                    value: *value,
                },
                goals,
            ),
            Node::And(parts) => {
                for p in parts {
                    pinned(m, *p, goals);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Breadth-first distances on mover `i`'s move graph to the positions
/// marked in `goal`.
fn distances<W: Word>(m: &Model<W>, i: usize, goal: &[bool]) -> Vec<u32> {
    let mv = &m.movers[i];
    let n = mv.cells.len();
    // Moves reversed: from each position, who can reach it in one move.
    let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
    for p in 0..n {
        for st in mv.moves(p) {
            back[st.pos as usize].push(p as u32);
        }
    }
    let mut dist = vec![u32::MAX; n];
    let mut queue: Vec<u32> = (0..n as u32).filter(|&p| goal[p as usize]).collect();
    for &p in &queue {
        dist[p as usize] = 0;
    }
    let mut k = 0;
    while k < queue.len() {
        let p = queue[k] as usize;
        k += 1;
        for &q in &back[p] {
            if dist[q as usize] == u32::MAX {
                dist[q as usize] = dist[p] + 1;
                queue.push(q);
            }
        }
    }
    dist
}

/// A* from the model's start: states in buckets by `f = g + h`, the best
/// `g` of each state kept; a state is expanded once, at its fewest steps.
pub fn astar<W: Word>(m: &Model<W>, h: &Heuristic) -> Outcome {
    let mut out = Outcome {
        steps: None,
        expanded: 0,
        visited: 0,
    };
    let h0 = h.of(m, m.start);
    if h0 == u32::MAX {
        return out;
    }
    let limit = m.limit.map_or(u64::MAX, |l| l);
    let mut best: HashMap<W, u32> = HashMap::from([(m.start, 0)]);
    // buckets[f] holds (g, state); the smallest non-empty f is expanded next.
    let mut buckets: Vec<Vec<(u32, W)>> = vec![Vec::new(); h0 as usize + 1];
    buckets[h0 as usize].push((0, m.start));
    let mut f = h0 as usize;
    let mut succ = Successors::new(m);
    let mut children = Vec::new();
    while f < buckets.len() {
        let Some((g, s)) = buckets[f].pop() else {
            f += 1;
            continue;
        };
        if best.get(&s).is_some_and(|&b| b < g) {
            continue;
        }
        if m.holds(m.goal, s) {
            out.steps = Some(g as u64);
            break;
        }
        if g as u64 >= limit {
            continue;
        }
        out.expanded += 1;
        children.clear();
        succ.each(s, |t| {
            children.push(t);
            true
        });
        for &t in &children {
            let gt = g + 1;
            if best.get(&t).is_some_and(|&b| b <= gt) {
                continue;
            }
            let ht = h.of(m, t);
            if ht == u32::MAX || (gt + ht) as u64 > limit {
                continue;
            }
            best.insert(t, gt);
            let ft = (gt + ht) as usize;
            if ft >= buckets.len() {
                buckets.resize(ft + 1, Vec::new());
            }
            buckets[ft].push((gt, t));
        }
    }
    out.visited = best.len() as u64;
    out
}
