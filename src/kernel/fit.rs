//! The kernels' patterns, in one list: which kernels a task matches, each
//! with the reason it fits, the most specialised first and the generic
//! interpreter (which runs any task) last. The plan takes the first its
//! engine can use; `tests/kernels.rs` compares every one of them with the
//! interpreter. A pattern is read on the lowered task (its motions, rules
//! and conditions), never on the rule file's words.

use super::{KernelKind, bodies, poses, pushes, script, slides, tables};
use crate::pack::bits_for;
use crate::task::{Mode, Task};

/// A kernel that runs a task, and why it fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fit {
    pub kind: KernelKind,
    pub reason: String,
}

impl Fit {
    fn new(kind: KernelKind, reason: impl Into<String>) -> Fit {
        Fit {
            kind,
            reason: reason.into(),
        }
    }

    /// Whether an engine that does (`rows`) or does not mark a row of
    /// successors at once can use it.
    pub fn suits(&self, rows: bool) -> bool {
        rows || !matches!(self.kind, KernelKind::Rows { .. })
    }
}

/// Every kernel that runs `task`: the specialised ones first, in the order
/// the plan prefers them, then the generic interpreter, whose reason says
/// why nothing faster fits. [`KernelKind::Rows`] needs an engine that marks
/// a row of successors at once (breadth-first; see [`Fit::suits`]).
pub fn fits(task: &Task) -> Vec<Fit> {
    let (mut out, why) = match special(task) {
        Ok(v) => (v, "a specialised kernel fits (above)".to_string()),
        Err(why) => (Vec::new(), why),
    };
    out.push(Fit::new(
        KernelKind::Generic,
        format!("the generic interpreter: {why}"),
    ));
    out
}

/// The specialised kernels that fit `task`, or why none does.
fn special(task: &Task) -> Result<Vec<Fit>, String> {
    if task.clock().is_some() {
        return phased(task);
    }
    if task.posed() {
        return posed(task);
    }
    if task.scripted() {
        return scripted(task);
    }
    if task.mode() == Mode::Together {
        return together(task);
    }
    if pushes::fits(task) {
        return Ok(vec![Fit::new(
            KernelKind::Pushes,
            "one agent pushing objects of one cell, in turn: per move, where the agent's step \
             takes it, at what cost, and where a push takes an object; a push made when the \
             object's next cell is free of the others",
        )]);
    }
    none_if(task)?;
    // Before pieces: the bodies kernel knows nothing of carrying.
    if task.carries() {
        return carried(task);
    }
    if task.forbids() && (task.far_moves() || task.has_pieces()) {
        return Err("no step may end where a condition holds (`forbid COND`)".into());
    }
    // Movers that never share a cell (pieces, or `forbid same cell`) and
    // are alike: the bodies kernel keeps their positions in order, where
    // the table kernels would not.
    let apart = task.has_twins() && task.forbid_same_cell();
    if task.has_pieces() || apart {
        if bodies::fits(task) {
            let who = if task.has_pieces() {
                "pieces of several cells"
            } else {
                "alike movers that never share a cell"
            };
            return Ok(vec![Fit::new(
                KernelKind::Bodies,
                format!(
                    "{who} in turn, on a board of at most 128 cells: a mask of the cells each \
                     covers per position, a move allowed when the cells it enters are clear of \
                     the others' masks"
                ),
            )]);
        }
        if task.has_pieces() {
            return Err("pieces cover several cells, and a rule or a condition applies".into());
        }
    }
    // Alike movers that may share a cell, or that the bodies kernel does
    // not fit: the table kernels would not keep their positions in order.
    if task.has_twins() {
        return Err("some movers are interchangeable".into());
    }
    if task.far_moves() {
        if slides::fits(task) {
            return Ok(vec![Fit::new(
                KernelKind::Slides,
                "moves that slide or teleport, in turn: each walks a byte per cell (may it \
                 enter, does the cell carry it on, stop it, teleport it), stopping before \
                 another agent, with the entry conditions and the flags entering sets",
            )]);
        }
        return Err(
            "a move may slide or teleport, and a rule has a condition, changes a \
                    counter, belongs to a move or is a derived fact"
                .into(),
        );
    }
    if !task.fixed_moves() {
        return Err(
            "some action moves along a heading, turns, stays in turn, or fires rules".into(),
        );
    }
    if !task.unit_costs() {
        return Err("steps have costs".into());
    }
    if !task.plain_rules() {
        return Err("a rule has a condition or changes a counter".into());
    }
    if task.forbids() {
        // Only the lone mover's exits leave out the forbidden cells.
        return match tables(task)
            .into_iter()
            .find(|f| f.kind == KernelKind::Lone)
        {
            Some(mut f) => {
                f.reason
                    .push_str(", less the moves that end where `forbid` holds");
                Ok(vec![f])
            }
            None => Err("a lone mover has more moves than its bitmask holds".into()),
        };
    }
    Ok(tables(task))
}

/// For a task that reads the time: the kernels that run it at every value
/// of its clock (the task at that time has no clock), each with the
/// clock's next value set on its successors. Not the row kernels: a row
/// would need the clock set on each of its states.
fn phased(task: &Task) -> Result<Vec<Fit>, String> {
    let phases = task.phases();
    let Some(c) = task.clock() else {
        return Err("the task has no clock".into());
    };
    let n = task.var(c).size();
    if phases.is_empty() {
        let many = format!(
            "conditions read the time, kept in {n} values (a task for each, more than {})",
            crate::task::MAX_PHASES
        );
        let Some(untimed) = task.untimed() else {
            return Err(many);
        };
        let mut fits: Vec<Fit> = (special(untimed))
            .map_err(|why| format!("{many}, and without the time {why}"))?
            .into_iter()
            .filter(|f| f.suits(false))
            .collect();
        for f in &mut fits {
            f.reason = format!(
                "the time read by `forbid` only, kept in {n} values: one kernel of the task \
                 without it, each successor given the clock's next value and left out where \
                 `forbid` holds then: {}",
                f.reason
            );
        }
        if fits.is_empty() {
            return Err(format!(
                "{many}, and without the time only a kernel of rows fits"
            ));
        }
        return Ok(fits);
    }
    let mut common: Vec<Fit> = Vec::new();
    for (v, p) in phases.iter().enumerate() {
        let fits = special(p).map_err(|why| format!("at time {v} of the clock, {why}"))?;
        if v == 0 {
            common = fits.into_iter().filter(|f| f.suits(false)).collect();
        } else {
            common.retain(|f| fits.iter().any(|g| g.kind == f.kind));
        }
    }
    if common.is_empty() {
        return Err("no one kernel runs the task at every value of its clock".into());
    }
    for f in &mut common {
        f.reason = format!(
            "the time read, a kernel per value of the clock ({n}), each of the task at that \
             time: {}",
            f.reason
        );
    }
    Ok(common)
}

/// The kernel of a task whose tiles carry what stands on them: the slide
/// kernel, which carries a lone mover cell by cell once its move ends.
fn carried(task: &Task) -> Result<Vec<Fit>, String> {
    if task.forbids() {
        return Err(
            "tiles carry what stands on them (`carry`), and no step may end where a \
                    condition holds (`forbid COND`)"
                .into(),
        );
    }
    if !slides::fits(task) {
        return Err(
            "tiles carry what stands on them (`carry`), and there is more than one \
                    mover, a piece, or a rule that has a condition, changes a counter, \
                    belongs to a move or is a derived fact"
                .into(),
        );
    }
    Ok(vec![Fit::new(
        KernelKind::Slides,
        "one agent whose moves step, slide or teleport, carried by tiles once its move \
         ends: each walks a byte per cell (may it enter, does the cell carry it on, stop it, \
         teleport it, which way does it carry it), with the entry conditions and the flags \
         entering sets; a state seen again while carried is a loop (Brent's method)",
    )])
}

/// The kernel of a task with movers that move by themselves.
fn scripted(task: &Task) -> Result<Vec<Fit>, String> {
    if !script::fits(task) {
        return Err(
            "agents move by themselves after every step (`by itself`), and a mover covers \
             several cells, has a heading, pushes or follows, or a rule, a cost, an entry \
             condition that reads the state, a slide, a slippery tile, a teleport or a \
             carrying tile applies, or a chosen move has a condition"
                .into(),
        );
    }
    Ok(vec![Fit::new(
        KernelKind::Script,
        "agents in turn and movers by themselves, of one cell: per mover, the position each \
         move reaches from each position; each mover by itself makes the first of its moves \
         whose condition (compiled over packed states) holds and that it can make (where its \
         conditions read only its position and one other mover's, and the pairs of the two \
         number at most 2^19, remembered per pair once worked out); alike movers put in \
         order and `forbid` tested on the packed state",
    )])
}

/// The kernel of a task whose agents move together.
fn together(task: &Task) -> Result<Vec<Fit>, String> {
    if !slides::fits_together(task) {
        return Err(
            "agents move together, front first, and a rule, a condition, a cost, a \
             teleport, a carrying tile, a heading, a piece, an object, a body or alike \
             movers apply, or something besides the same cell is forbidden"
                .into(),
        );
    }
    Ok(vec![Fit::new(
        KernelKind::Slides,
        "agents that move together: for each move, front first, each walks a byte per \
         cell (may it enter, does the cell carry it on or stop a slide), stopping before \
         another agent; a step when one of them moved",
    )])
}

/// The kernel of a task with a piece whose cells depend on its pose.
fn posed(task: &Task) -> Result<Vec<Fit>, String> {
    if !poses::fits(task) {
        return Err(
            "a piece's cells depend on its pose (`poses`), and there is more than one mover, \
             or a condition reads more than the piece's position, or a rule has a condition, \
             changes a counter, reads the way in or derives a fact, or steps have costs, or \
             something is forbidden or moves after a step"
                .into(),
        );
    }
    Ok(vec![Fit::new(
        KernelKind::Poses,
        "one piece with poses, moved by its tables: per move and pose, the pose it takes, its \
         anchor's shift and the cells it comes to cover, whose bytes on the padded grid say \
         whether it may (with the entry conditions and the flags covering them sets)",
    )])
}

/// Why no specialised kernel can run `task`, when a feature rules them
/// all out (pieces with poses, movers by themselves and agents together
/// have their own kernels, asked before).
fn none_if(task: &Task) -> Result<(), String> {
    let why = if task.has_objects() {
        "agents push objects"
    } else if task.has_bodies() {
        "bodies follow their leaders (`follows`)"
    } else if task.forbids() && task.lone_forbid().is_none() {
        "no step may end where a condition holds (`forbid COND`)"
    } else if task.reads_moving() {
        // The kernels' tables hold one entry condition a cell.
        "entry conditions read the way a cell is entered (`moving`)"
    } else if task.has_guards() && !task.static_guards() {
        // The kernels' tables can hold a move per position, not a
        // condition on the rest of the state.
        "moves are made on conditions (`if`) that read the state"
    } else {
        return Ok(());
    };
    Err(why.into())
}

/// The table kernels that fit a task of fixed moves at cost 1 with plain
/// rules, the plan's preference first.
fn tables(task: &Task) -> Vec<Fit> {
    let n = task.movers().len();
    let mode = task.mode();
    let mut out = Vec::new();
    if mode == Mode::InTurn && n == 1 && task.movers()[0].actions().len() <= tables::LONE_MOVES {
        out.push(Fit::new(
            KernelKind::Lone,
            "one agent in turn: a bitmask of exits per cell",
        ));
    }
    let uncond = task.unconditional();
    let small = mode == Mode::AtOnce && (2..=3).contains(&n) && uncond;
    let last = task.movers().last().map_or(0, |m| m.domain().len());
    if (small || (mode == Mode::InTurn && n >= 2 && uncond)) && last <= tables::Reach::MAX_POSITIONS
    {
        let words = (1usize << bits_for(last as u64)).div_ceil(64);
        out.push(Fit::new(
            KernelKind::Rows { words },
            format!(
                "the last agent's moves as a bitmask of {words} word{}: {}, its successors are \
                 tested and marked in the visited set together",
                if words == 1 { "" } else { "s" },
                if mode == Mode::InTurn {
                    "in its turn"
                } else {
                    "for each move of the others"
                }
            ),
        ));
    }
    if small {
        out.push(Fit::new(
            KernelKind::Nested(n as u8),
            format!("{n} agents at once: {n} nested loops"),
        ));
    }
    out.push(match mode {
        Mode::InTurn if task.forbid_same_cell() => Fit::new(
            KernelKind::InTurn,
            "each agent in turn, from its table of moves, against a bitmap of occupied cells",
        ),
        Mode::InTurn => Fit::new(
            KernelKind::InTurn,
            "each agent in turn, from its table of moves",
        ),
        _ if n <= 1 => Fit::new(KernelKind::AtOnce, "one agent, from its table of moves"),
        _ => Fit::new(
            KernelKind::AtOnce,
            format!("{n} agents at once: every combination of their moves, pruned early"),
        ),
    });
    out
}
