//! Phase 8: a solution shown. A [`Walk`] is a least-cost way to a goal
//! ([`crate::trace::Trace`]) told without the task: the map's symbols with
//! the movers taken off, each mover's symbol, and per state where each
//! mover stands and what the flags and counters hold. It is what `--trace`
//! draws as boards, what `--format json` writes, and what `puzzle render`
//! draws as SVG and plays as HTML.
//!
//! Invariant: `frames.len() == steps.len() + 1` (the start first); each
//! frame has one place per mover, inside the `rows x cols` board; `ground`
//! and `solid` have `rows * cols` entries. The board is the map, inside a
//! ring of the `border` tile where the rules have one (then it is two rows
//! and two columns larger, and `[1, 1]` is the map's first cell).

use crate::input::RawCase;
use crate::resolve::{AgentId, Glyph, Rules, TileId};
use crate::task::{Dir, Task, VarKind};
use crate::trace::Way;
use serde::Serialize;
use std::fmt::Write;

/// A least-cost way, shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Walk {
    pub rows: usize,
    pub cols: usize,
    /// Each cell's symbol, row by row, with the movers' start markers
    /// replaced by the tile they stand on.
    pub ground: Vec<String>,
    /// Whether each cell is solid.
    pub solid: Vec<bool>,
    pub movers: Vec<Figure>,
    /// Each step's token, as `--moves` prints it (a member of a set of
    /// interchangeable movers named by its place in the search's order).
    pub steps: Vec<String>,
    /// Each step as the picture tells it: the member that moved named by
    /// the identity the frames keep for it.
    pub labels: Vec<String>,
    /// The start, then the state after each step.
    pub frames: Vec<Frame>,
}

/// A mover as drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Figure {
    pub name: String,
    /// The symbol it is drawn with: its start marker, or its name's first
    /// letter.
    pub symbol: String,
    /// Its colour's place in the palette: one for each set of
    /// interchangeable movers (identical boxes share it), in order.
    pub style: usize,
    /// For a piece, its cells as `[rows, columns]` offsets from where it
    /// stands (the first of its cells); empty for one cell.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<[i32; 2]>,
    /// Its other markers, each with the ground symbol it stands for the
    /// mover on (Sokoban's `*`, a box on a spot): where it stands on such
    /// a cell, `--trace` draws that marker, so the tile stays seen. In
    /// JSON, `[ground, marker]` pairs (absent where there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<(String, String)>,
}

/// One state of the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// The cost of the way so far.
    pub cost: u64,
    /// Each mover's `[row, column]`, from 0.
    pub at: Vec<[usize; 2]>,
    /// Each mover's heading (`north`, `east`, ...), for movers that have
    /// one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facing: Vec<Option<String>>,
    /// The flags and counters, by name, in the task's order.
    #[serde(serialize_with = "in_order")]
    pub state: Vec<(String, i64)>,
    /// Where some piece has poses: each mover's cells in this state, as
    /// offsets (empty for one cell); else empty, and a figure's `shape`
    /// holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<Vec<[i32; 2]>>,
}

/// A list of pairs as a JSON object, in the list's order.
fn in_order<S: serde::Serializer>(pairs: &[(String, i64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// The name of a heading.
fn heading(i: i64) -> String {
    let d: Dir = Dir::COMPASS[i.rem_euclid(4) as usize];
    match (d.dr, d.dc) {
        (-1, 0) => "north",
        (0, 1) => "east",
        (1, 0) => "south",
        _ => "west",
    }
    .to_string()
}

/// An agent's markers for tiles other than its own (`on`), each with the
/// ground symbol of that tile: those that stand for it alone there (a
/// family whose members have markers of their own has none).
fn other_markers(
    legend: &[(&String, &Glyph)],
    agent: AgentId,
    own: TileId,
    symbol: &str,
) -> Vec<(String, String)> {
    let mut out: Vec<(TileId, String)> = Vec::new();
    for (k, g) in legend {
        let (Glyph::Start(a, _, t) | Glyph::AnyStart(a, t)) = **g else {
            continue;
        };
        if a == agent && t != own && k.as_str() != symbol {
            out.push((t, k.to_string()));
        }
    }
    let once = |t| out.iter().filter(|(u, _)| *u == t).count() == 1;
    (out.iter())
        .filter(|(t, _)| once(*t))
        .map(|(t, k)| (tile_symbol(legend, *t), k.clone()))
        .collect()
}

/// Mover `m`'s style: the number of sets of interchangeable movers
/// before its own.
fn style_of(task: &Task, m: &crate::task::Mover) -> usize {
    let first = m.twins().start as usize;
    (0..first)
        .filter(|&i| task.movers()[i].twins().start as usize == i)
        .count()
}

/// The legend, shortest symbols first (then in order): a tile's symbol is
/// its first entry, the same on every run.
fn sorted_legend(rules: &Rules) -> Vec<(&String, &Glyph)> {
    let mut legend: Vec<(&String, &Glyph)> = rules.legend.iter().collect();
    legend.sort_by(|a, b| (a.0.len(), a.0).cmp(&(b.0.len(), b.0)));
    legend
}

/// A tile's symbol in a [`sorted_legend`] (`.` for a tile with none).
fn tile_symbol(legend: &[(&String, &Glyph)], t: TileId) -> String {
    legend
        .iter()
        .find(|(_, g)| matches!(g, Glyph::Tile(u, _) if *u == t))
        .map_or_else(|| ".".to_string(), |(k, _)| k.to_string())
}

/// Each board cell's symbol, row by row, with the movers' start markers
/// replaced by the tile they stand on (the ring's cells, their tile's).
pub fn ground(rules: &Rules, case: &RawCase, task: &Task) -> Vec<String> {
    let board = task.board();
    let legend = sorted_legend(rules);
    // The case's symbol at a board cell; `None` on the ring.
    let symbol = |cell: usize| -> Option<String> {
        let (r, c) = board.coords(cell as u32);
        let inside = (0..case.rows as i64).contains(&r) && (0..case.cols as i64).contains(&c);
        let cell = (r * case.cols as i64 + c) as usize;
        inside.then(|| {
            if case.tokens.is_empty() {
                case.cells.get(cell).to_string()
            } else {
                case.tokens[cell].0.clone()
            }
        })
    };
    (0..board.rows() * board.cols())
        .map(|cell| {
            let Some(sym) = symbol(cell) else {
                return tile_symbol(&legend, board.class_of(cell as u32).tile);
            };
            match rules.legend.get(&sym) {
                Some(Glyph::Start(_, _, t) | Glyph::AnyStart(_, t)) => tile_symbol(&legend, *t),
                _ => sym,
            }
        })
        .collect()
}

/// The walk of a trace of `task`, grounded from `case` under `rules`.
pub fn walk(rules: &Rules, case: &RawCase, task: &Task, trace: Way<'_>) -> Walk {
    let board = task.board();
    let (rows, cols) = (board.rows(), board.cols());
    let ncells = rows * cols;
    let legend = sorted_legend(rules);
    let ground = ground(rules, case, task);
    let solid = (0..ncells as u32)
        .map(|c| board.class_of(c).solid)
        .collect();
    let movers: Vec<Figure> = task
        .movers()
        .iter()
        .map(|m| {
            let agent = &rules.agents[m.agent().ix()];
            let any = legend.iter().find(
                |(_, g)| matches!(g, Glyph::AnyStart(a, t) if *a == m.agent() && *t == agent.on),
            );
            let symbol = match (agent.markers.get(m.member() as usize), any) {
                (Some(marker), _) => marker.clone(),
                (None, Some((k, _))) => k.to_string(),
                (None, None) => agent
                    .name
                    .chars()
                    .next()
                    .map_or("@".into(), |c| c.to_uppercase().to_string()),
            };
            Figure {
                style: style_of(task, m),
                name: m.name().to_string(),
                on: other_markers(&legend, m.agent(), agent.on, &symbol),
                symbol,
                shape: m.shape().iter().map(|&(r, c)| [r, c]).collect(),
            }
        })
        .collect();
    let headings = task.movers().iter().any(|m| m.heading().is_some());
    let mut frames: Vec<Frame> = trace
        .states
        .iter()
        .zip(trace.costs)
        .map(|(vals, &cost)| Frame {
            cost,
            at: task
                .movers()
                .iter()
                .map(|m| {
                    let cell = m.domain().cell(vals[m.pos().ix()] as u32) as usize;
                    [cell / cols, cell % cols]
                })
                .collect(),
            facing: if headings {
                task.movers()
                    .iter()
                    .map(|m| m.heading().map(|h| heading(vals[h.ix()])))
                    .collect()
            } else {
                Vec::new()
            },
            shapes: if task.posed() {
                (task.movers().iter())
                    .map(|m| m.shape_in(vals).iter().map(|&(r, c)| [r, c]).collect())
                    .collect()
            } else {
                Vec::new()
            },
            state: task
                .vars()
                .iter()
                .zip(vals)
                .filter(|(v, _)| matches!(v.kind(), VarKind::Flag | VarKind::Counter { .. }))
                .map(|(v, &x)| (v.name().to_string(), x))
                .collect(),
        })
        .collect();
    let held = keep_identities(task, &mut frames);
    Walk {
        rows,
        cols,
        ground,
        solid,
        movers,
        steps: trace.tokens(task),
        labels: labels(task, &trace, &held),
        frames,
    }
}

/// Each step's token with its movers named by the identities `held`
/// gives them in the frame before it; where several move at once, each
/// move with its mover's name (`a:east b:west`, where the token is
/// `east,west`).
fn labels(task: &Task, trace: &Way<'_>, held: &[Vec<usize>]) -> Vec<String> {
    let at_once = task.mode() == crate::task::Mode::AtOnce && task.movers().len() > 1;
    (trace.steps.iter().enumerate())
        .map(|(i, step)| {
            let pushed = trace.pushed(task, i);
            let named: crate::trace::Step = step.iter().map(|&(j, a)| (held[i][j], a)).collect();
            if !at_once {
                return crate::trace::token(task, &named, pushed);
            }
            (named.iter())
                .map(|&(m, a)| {
                    let move_ = crate::trace::token(task, &vec![(m, a)], pushed);
                    format!("{}:{}", task.movers()[m].name(), move_)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Keeps each mover of a set of interchangeable ones (boxes, like pieces)
/// the same from frame to frame: the search holds them in an order of its
/// own (sorted), so a frame's `k`-th box need not be the last frame's. In
/// each frame, a member is given the place it had in the last frame if one
/// of the set is there, else the nearest place left. Returns, per frame,
/// which member holds each of the search's places.
fn keep_identities(task: &Task, frames: &mut [Frame]) -> Vec<Vec<usize>> {
    let n = task.movers().len();
    let mut held: Vec<Vec<usize>> = vec![(0..n).collect()];
    for f in 1..frames.len() {
        let mut now: Vec<usize> = (0..n).collect();
        let mut k = 0;
        while k < n {
            let set = task.movers()[k].twins();
            let (lo, hi) = (set.start as usize, (set.end as usize).max(k + 1));
            if hi - lo > 1 && lo == k {
                let (prev, cur) = (&frames[f - 1], &frames[f]);
                let look = |fr: &Frame, i: usize| {
                    (
                        fr.at[i],
                        fr.facing.get(i).cloned(),
                        fr.shapes.get(i).cloned(),
                    )
                };
                let mut free: Vec<usize> = (lo..hi).collect();
                let mut wanting = Vec::new();
                for (id, place) in now.iter_mut().enumerate().take(hi).skip(lo) {
                    match free.iter().position(|&j| look(cur, j) == look(prev, id)) {
                        Some(x) => *place = free.remove(x),
                        None => wanting.push(id),
                    }
                }
                for id in wanting {
                    let [r, c] = prev.at[id];
                    let far = |j: &usize| {
                        let [s, d] = cur.at[*j];
                        r.abs_diff(s) + c.abs_diff(d)
                    };
                    let x = (0..free.len()).min_by_key(|&x| far(&free[x])).unwrap_or(0);
                    now[id] = free.remove(x);
                }
            }
            k = hi.max(k + 1);
        }
        let fr = &mut frames[f];
        let at = now.iter().map(|&j| fr.at[j]).collect();
        fr.at = at;
        if !fr.facing.is_empty() {
            fr.facing = now.iter().map(|&j| fr.facing[j].clone()).collect();
        }
        if !fr.shapes.is_empty() {
            fr.shapes = now.iter().map(|&j| fr.shapes[j].clone()).collect();
        }
        // `now[id]` is the search's place of member `id`: invert it.
        let mut holder = vec![0; n];
        for (id, &j) in now.iter().enumerate() {
            holder[j] = id;
        }
        held.push(holder);
    }
    held
}

impl Walk {
    /// The steps as one line of tokens (`puzzle run --moves`).
    pub fn line(&self) -> String {
        self.steps.join(" ")
    }

    /// The map at frame `i`, one line a row, each line indented by two
    /// spaces: a mover's symbol where it stands (its marker for the tile
    /// there, where it has one; `*` where several stand).
    pub fn board(&self, i: usize) -> String {
        let frame = &self.frames[i];
        let mut cells = self.ground.clone();
        let mut count = vec![0u32; cells.len()];
        for (m, &[r, c]) in frame.at.iter().enumerate() {
            let shape = frame.shapes.get(m).unwrap_or(&self.movers[m].shape);
            let one = [[0, 0]];
            let offsets: &[[i32; 2]] = if shape.is_empty() { &one } else { shape };
            for &[dr, dc] in offsets {
                let (r, c) = (r as i64 + dr as i64, c as i64 + dc as i64);
                if r < 0 || c < 0 || r as usize >= self.rows || c as usize >= self.cols {
                    continue;
                }
                let cell = r as usize * self.cols + c as usize;
                count[cell] += 1;
                let figure = &self.movers[m];
                cells[cell] = if count[cell] > 1 {
                    "*".to_string()
                } else if let Some((_, k)) = figure.on.iter().find(|(g, _)| *g == self.ground[cell])
                {
                    k.clone()
                } else {
                    figure.symbol.clone()
                };
            }
        }
        let width = cells.iter().map(|s| s.chars().count()).max().unwrap_or(1);
        let mut out = String::new();
        for row in cells.chunks(self.cols.max(1)) {
            out.push_str("  ");
            let line: Vec<String> = row
                .iter()
                .map(|s| {
                    if width == 1 {
                        s.clone()
                    } else {
                        format!("{s:<width$}")
                    }
                })
                .collect();
            let line = line.join(if width == 1 { "" } else { " " });
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The frame's flags, counters and headings as one line (empty when
    /// there are none).
    pub fn state_line(&self, i: usize) -> String {
        let frame = &self.frames[i];
        let mut parts: Vec<String> = frame
            .facing
            .iter()
            .zip(&self.movers)
            .filter_map(|(f, m)| f.as_ref().map(|f| format!("{} facing {f}", m.name)))
            .collect();
        parts.extend(frame.state.iter().map(|(k, v)| format!("{k}={v}")));
        parts.join(", ")
    }

    /// Every frame as a board under a heading: what `--trace` prints.
    pub fn boards(&self) -> String {
        let mut out = String::new();
        for i in 0..self.frames.len() {
            let cost = self.frames[i].cost;
            if i == 0 {
                let _ = writeln!(out, "start:");
            } else {
                let _ = writeln!(out, "step {i}: {} (total cost {cost})", self.labels[i - 1]);
            }
            out.push_str(&self.board(i));
            let state = self.state_line(i);
            if !state.is_empty() {
                let _ = writeln!(out, "  {state}");
            }
        }
        out
    }
}
