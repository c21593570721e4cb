//! Reading the map against the rules: each cell's class, each agent's
//! starts and target, teleports, layouts; every problem in the map at once.

use super::*;

/// A map read against the rules.
pub(super) struct Map {
    pub(super) board: Board,
    pub(super) instances: Vec<Instance>,
    pub(super) tile_count: Vec<i64>,
    pub(super) occurrences: Vec<u32>,
}

/// Reads the grid into a board and finds each agent instance's starts and
/// target. Reports every problem in the map at once.
pub(super) fn read_board(rules: &Rules, case: &RawCase) -> Result<Map, Vec<InputError>> {
    let classes = Classes::new(rules);
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
        field: &|_| None,
        parts: &[],
        header: &case.header,
        count: &|_| 0,
        case: case.number as i64,
        cost: None,
        steps: None,
    };
    let sizes = family_sizes(rules, case, &env)?;
    let mut errors = Vec::new();
    let mut marks = read_cells(
        rules,
        case,
        (grid, classes),
        &sizes,
        &mut class,
        &mut errors,
    );
    unknown_symbols(rules, case, std::mem::take(&mut marks.unknown), &mut errors);
    let (all_classes, occurrences) = occurrence_classes(rules, case, classes, &mut class)?;
    let mut placing = Placing {
        rules,
        case,
        grid,
        instances: Vec::new(),
        errors,
    };
    for (a, agent) in rules.agents.iter().enumerate() {
        let id = AgentId(a as u32);
        match &agent.start {
            Start::Every => {
                let _ = listed_first(case, grid, &mut marks.any[a]);
                for (k, &cell) in marks.any[a].iter().enumerate() {
                    placing.add(id, k as u32, vec![cell], None);
                }
            }
            Start::Any => placing.add(id, 0, std::mem::take(&mut marks.any[a]), None),
            Start::At(r, c) => {
                let (r, c) = (r.eval(&env).unwrap_or(i64::MIN), c.eval(&env).unwrap_or(0));
                placing.at(id, (r, c), &class, &all_classes);
            }
            Start::Pieces => placing.pieces(id, &marks.starts[a]),
            Start::Markers => placing.markers(id, &marks),
        }
    }
    let Placing {
        mut instances,
        mut errors,
        ..
    } = placing;
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

/// Cells placed by `records` in the order listed, when every one of
/// `cells` (board cells, in reading order) was (then true): a family sized
/// by the map numbers its members so, and a body follows its leader so.
pub(super) fn listed_first(case: &RawCase, grid: Ringed, cells: &mut [u32]) -> bool {
    let order = |cell: u32| {
        let (r, c) = grid.coords(cell);
        let map_cell = (r as usize * case.cols + c as usize) as u32;
        case.placed.get(&map_cell).map(|p| p.order)
    };
    let listed = !case.placed.is_empty() && cells.iter().all(|&c| order(c).is_some());
    if listed {
        cells.sort_by_key(|&c| order(c));
    }
    listed
}

/// Each family's size in this case, within what its markers allow.
fn family_sizes(
    rules: &Rules,
    case: &RawCase,
    env: &NumEnv<'_>,
) -> Result<Vec<u32>, Vec<InputError>> {
    let mut errors = Vec::new();
    let mut sizes = Vec::with_capacity(rules.agents.len());
    for agent in &rules.agents {
        let size: i64 = match &agent.family {
            None if agent.piece.is_some() => agent.max_members as i64,
            None => 1,
            Some(n) => n.eval(env).unwrap_or(0),
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
    Ok(sizes)
}

/// What the map's cells mark: per agent and member, its start and target
/// cells; per agent, the cells of its `any` or `every` marker; the
/// symbols the legend does not know, with their cells.
struct Marks {
    starts: Vec<Vec<Vec<u32>>>,
    targets: Vec<Vec<Vec<u32>>>,
    any: Vec<Vec<u32>>,
    unknown: Vec<(usize, String)>,
}

/// Reads each cell of the map: its class into `class` (by board cell),
/// its marker into the marks.
fn read_cells(
    rules: &Rules,
    case: &RawCase,
    (grid, classes): (Ringed, Classes),
    sizes: &[u32],
    class: &mut [ClassId],
    errors: &mut Vec<InputError>,
) -> Marks {
    let ncells = case.len();
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
    debug_assert_eq!(ncells, grid.rows * grid.cols);
    for (cell, at) in grid.boards().enumerate().take(ncells) {
        debug_assert_eq!(at, grid.board(cell));
        let sym: &str = if chars {
            let ch = case.cells.get(cell);
            if let Some(&k) = ascii.get(ch as usize)
                && k != NONE
            {
                class[at as usize] = k;
                continue;
            }
            ch.encode_utf8(&mut buf)
        } else {
            &case.tokens[cell].0
        };
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
    Marks {
        starts,
        targets,
        any,
        unknown,
    }
}

/// One report per symbol the legend does not know (or, for symbols from
/// a row that reads as a header on, the header's row count).
fn unknown_symbols(
    rules: &Rules,
    case: &RawCase,
    unknown: Vec<(usize, String)>,
    errors: &mut Vec<InputError>,
) {
    let chars = case.tokens.is_empty();
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
}

/// The classes of the cells: the rules' (tile, value) pairs, then one per
/// occurrence of a tile with state of its own, its cell in `class` moved
/// to it; and per tile, how many occurrences it has.
fn occurrence_classes(
    rules: &Rules,
    case: &RawCase,
    classes: Classes,
    class: &mut [ClassId],
) -> Result<(Vec<Class>, Vec<u32>), Vec<InputError>> {
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
    Ok((all_classes, occurrences))
}

/// The instances of the agents found on a map, and the problems found.
struct Placing<'a> {
    rules: &'a Rules,
    case: &'a RawCase,
    grid: Ringed,
    instances: Vec<Instance>,
    errors: Vec<InputError>,
}

impl Placing<'_> {
    /// One instance of one cell, starting on any of `starts`.
    fn add(&mut self, agent: AgentId, member: u32, starts: Vec<u32>, target: Option<u32>) {
        self.instances.push(Instance {
            agent,
            member,
            starts,
            target,
            shape: Vec::new(),
            pose: None,
        });
    }

    /// An agent placed by its row and column (`at (r, c)`), on a cell that
    /// is on the map and not solid.
    fn at(&mut self, id: AgentId, (r, c): (i64, i64), class: &[ClassId], all_classes: &[Class]) {
        let case = self.case;
        let cell = self.grid.at(r, c);
        let inside = cell.is_some();
        let cell = cell.unwrap_or(0);
        if !inside || all_classes[class[cell as usize] as usize].solid {
            self.errors.push(case_error(
                case,
                format!(
                    "`{}` starts at row {r}, column {c} in case {}, {}",
                    self.rules.agents[id.ix()].name,
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
            return;
        }
        self.add(id, 0, vec![cell], None);
    }

    /// A piece declaration's pieces: one per marker found, its cells (one
    /// piece, or one of its poses) from its marker's.
    fn pieces(&mut self, id: AgentId, starts: &[Vec<u32>]) {
        let (agent, case, grid) = (&self.rules.agents[id.ix()], self.case, self.grid);
        let first = self.instances.len();
        for (m, cells) in starts.iter().enumerate() {
            let Some(&anchor) = cells.first() else {
                continue;
            };
            if !agent.poses.is_empty() {
                match posed_start(&agent.poses, cells, grid.width()) {
                    Some((at, pose)) => self.instances.push(Instance {
                        agent: id,
                        member: m as u32,
                        starts: vec![at],
                        target: None,
                        shape: Vec::new(),
                        pose: Some(pose),
                    }),
                    None => self.errors.push(InputError::MarkerRepeated {
                        message: format!(
                            "case {}: the cells of `{}` are in none of its poses",
                            case.number, agent.name
                        ),
                        span: grid.span(case, anchor),
                        label: "its first cell".into(),
                        help: "mark the piece's cells as one of its poses lays them out".into(),
                    }),
                }
                continue;
            }
            if let Some(apart) = disconnected(cells, grid.width()) {
                self.errors.push(InputError::MarkerRepeated {
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
            self.instances.push(Instance {
                agent: id,
                member: m as u32,
                starts: vec![anchor],
                target: None,
                shape,
                pose: None,
            });
        }
        // Pieces of one shape side by side: they are interchangeable.
        self.instances[first..].sort_by(|x, y| x.shape.cmp(&y.shape).then(x.member.cmp(&y.member)));
    }

    /// An agent (or each member of a family) marked on the map: its start
    /// and target, each exactly once (an optional one may be absent).
    fn markers(&mut self, id: AgentId, marks: &Marks) {
        let (rules, case, grid) = (self.rules, self.case, self.grid);
        let (a, agent) = (id.ix(), &rules.agents[id.ix()]);
        let layout_targets = match agent.targets {
            Targets::Layout(l) => Some(layout_cells(rules, case, l, agent, &mut self.errors)),
            _ => None,
        };
        for m in 0..marks.starts[a].len() {
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
            if agent.optional && marks.starts[a][m].is_empty() {
                continue;
            }
            let mut ok = true;
            if let Some(e) = marker("start", &marks.starts[a][m]) {
                self.errors.push(e);
                ok = false;
            }
            if agent.targets == Targets::Markers
                && let Some(e) = marker("target", &marks.targets[a][m])
            {
                self.errors.push(e);
                ok = false;
            }
            let target = match &layout_targets {
                Some(cells) => cells
                    .get(m)
                    .copied()
                    .flatten()
                    .map(|c| grid.board(c as usize)),
                None => marks.targets[a][m].first().copied(),
            };
            if ok {
                self.add(id, m as u32, vec![marks.starts[a][m][0]], target);
            }
        }
    }
}

/// Each cell's teleport, if it is a teleport's end: its other end, and
/// whether going through is the mover's choice. The cells of a teleport's
/// tile pair by parameter value (occurrences of one tile are one pair).
pub(super) fn teleports(
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
pub(super) fn layout_cells(
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

pub(super) fn new_board(
    rules: &Rules,
    grid: Ringed,
    classes: Vec<Class>,
    class: Vec<ClassId>,
) -> (Board, Vec<u32>) {
    let (rows, cols) = (grid.rows + 2 * grid.ring, grid.width());
    let far = |(dr, dc): (i32, i32)| dr.unsigned_abs().max(dc.unsigned_abs()) as usize;
    let reach = |a: &resolve::Agent| {
        let dirs = agent_dirs(a)
            .iter()
            .map(|d| far((d.dr.into(), d.dc.into())))
            .max();
        // A piece with poses: a table's shift, then a cell of its pose,
        // so that a kernel finds the cells it comes to on the padded grid
        // without leaving it.
        let shifts = (a.moves.iter().flat_map(|m| &m.table)).map(|&(_, off)| far(off));
        let cells = (a.poses.iter().flat_map(|(_, cells)| cells)).map(|&off| far(off));
        let posed = shifts.max().unwrap_or(0) + cells.max().unwrap_or(0);
        // Further than the map is wide or high is off it from anywhere.
        dirs.unwrap_or(0).max(posed.min(rows.max(cols)))
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
        class: class.into(),
        classes,
        pad,
        width,
        open: open.into(),
        present,
        cells_of: Vec::new(),
        teleport: Vec::new(),
    };
    (board, count)
}

/// A map that needs more cell classes than [`MAX_CLASSES`].
pub(super) fn too_many_classes(case: &RawCase, n: usize) -> InputError {
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
