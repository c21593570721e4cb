//! Phase 5: [`Task`] -> [`Plan`]: how one case is searched. The state
//! encoding (its fields and the word they fit), the successor kernel, the
//! search engine and the visited store are each chosen here, once, from
//! what the task is, with the reason; the search runs the plan and
//! `explain` prints it. Nothing else decides.
//!
//! Invariant of [`Plan`]: every choice applies to its task. A table kernel
//! only for tasks whose moves are fixed offsets at cost 1 with plain rules;
//! rows only for breadth-first engines; breadth-first engines only when
//! every step costs 1; bidirectional search only for a reversible task
//! with a single goal state; A* only with a lower bound that never
//! overestimates; a bitset only for layouts of at most [`DENSE_MAX_BITS`]
//! bits, in a `u32`.

use crate::budget::{CHECK_EVERY, CHECK_SUCCESSORS};
use crate::kernel::KernelKind;
use crate::pack::{Layout, Ranker};
use crate::resolve::MAX_PARTS;
use crate::task::{Cmp, Expr, Mode, MoverId, Op, Relation, RuleId, SIGHT, Task, VarId, VarKind};

/// How to search, as asked on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Choose from the task.
    #[default]
    Auto,
    /// Breadth-first from the start.
    Bfs,
    /// Breadth-first from the start and from the goal state, meeting in the
    /// middle.
    Bidir,
    /// A* with a lower bound from the movers' distances.
    Astar,
    /// IDA* with the same bound: depth-first searches under a rising
    /// bound, keeping only the way there.
    Ida,
}

/// What the plan is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub strategy: Strategy,
    /// Threads expanding a large level (the rayon pool's, at most).
    pub threads: usize,
    /// Count the successors generated (`--stats`): every expansion is
    /// metered, at some cost in speed.
    pub count: bool,
    /// Breadth-first search spread over these workers (`--workers`,
    /// `--hostfile`), where the task is one it can search.
    pub cluster: Option<&'static Cluster>,
}

/// The workers of the distributed breadth-first search: threads of each
/// process, and the processes (one address each, `host:port`, in the same
/// order in every process: the hostfile's lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads in each process.
    pub workers: usize,
    /// This process's line of the hostfile (from 0).
    pub process: usize,
    /// Empty for one process.
    pub addresses: Vec<String>,
}

impl Cluster {
    pub fn processes(&self) -> usize {
        self.addresses.len().max(1)
    }

    /// "P processes x N workers", for `explain`.
    fn shape(&self) -> String {
        let p = self.processes();
        format!(
            "{p} process{} x {} worker{}",
            if p == 1 { "" } else { "es" },
            self.workers,
            plural(self.workers)
        )
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            strategy: Strategy::Auto,
            threads: 1,
            count: false,
            cluster: None,
        }
    }
}

/// The word a packed state lives in, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordSize {
    /// Layouts of at most 32 bits: half the frontier's memory of a `u64`.
    U32,
    U64,
    U128,
    W256,
    W1024,
}

/// Calls `f::<W>(args)` with `W` the word of a [`WordSize`]: the one
/// place a plan's word picks the code that packs its states.
macro_rules! by_word {
    ($word:expr, $f:ident($($arg:expr),*)) => {
        match $word {
            $crate::plan::WordSize::U32 => $f::<u32>($($arg),*),
            $crate::plan::WordSize::U64 => $f::<u64>($($arg),*),
            $crate::plan::WordSize::U128 => $f::<u128>($($arg),*),
            $crate::plan::WordSize::W256 => $f::<$crate::pack::Wide<4>>($($arg),*),
            $crate::plan::WordSize::W1024 => $f::<$crate::pack::Wide<16>>($($arg),*),
        }
    };
}
pub(crate) use by_word;

/// The widest state the engine packs.
pub const MAX_BITS: u32 = 1024;

/// The largest layout (in bits) whose visited store is a dense bitset:
/// 2^30 bits is 128 MiB.
pub const DENSE_MAX_BITS: u32 = 30;

// A bitset's layouts are packed in a `u32` (see `store`).
const _: () = assert!(DENSE_MAX_BITS <= 32);

/// The widest layout whose visited bitset is made at once (2 MiB); wider
/// ones start as a hash set (see [`Store::Growing`]).
pub const DENSE_AT_ONCE_BITS: u32 = 24;

/// A growing store keeps a hash set until it has seen `2^bits >>
/// HASH_SHIFT` states: at 5 to 10 bytes a state (a `u32` and a control
/// byte, the table 7/16 to 7/8 full), a third to two thirds of the bitset
/// that then takes over. (With a threshold of an eighth of that, a search
/// just past it held nine times what the hash set alone would have: four
/// robots on 11 x 11 boards peaked at 52 MB against 24 MB.)
pub const HASH_SHIFT: u32 = 7;

/// How many states a growing store of `bits` bits keeps in its hash set
/// before the bitset takes over (at least one).
pub fn hash_until(bits: u32, shift: u32) -> u64 {
    1u64 << bits.saturating_sub(shift).min(63)
}

/// The widest layout whose best costs are kept in a flat array (16 MiB).
pub const DENSE_G_BITS: u32 = 22;

/// The largest step cost a bucket queue is used for.
pub const BUCKETS_MAX_COST: u32 = 1024;

/// How the state space is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// No state is a goal: nothing to search.
    Nothing,
    Bfs,
    Bidir,
    Astar,
    /// Iterative deepening A*: depth-first searches bounded by steps plus
    /// the bound, the bound raised each time to the least it cut off;
    /// memory for the way only.
    Ida,
    /// Dijkstra's algorithm with a bucket queue (costs are small integers).
    Buckets,
    /// Dijkstra's algorithm with a binary heap.
    Dijkstra,
    /// Dijkstra's algorithm on costs in parts, compared in order, each
    /// state's best in a map.
    Ordered,
    /// Breadth-first search on the workers of a [`Cluster`]
    /// (`search::cluster`).
    Cluster,
}

/// Where the states seen are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    None,
    Bitset,
    /// A hash set while the states seen are few next to the values the
    /// layout packs, a bitset once they are many: wide layouts whose
    /// bitset would be mostly untouched if the search reaches few states,
    /// and whose pages it touched would be spread all over it.
    Growing,
    HashSet,
    /// Breadth-first search where some movers are twins: each state kept
    /// as its rank, the twins' positions one multiset
    /// ([`crate::pack::SetRanker`]), in a growing store of the ranks.
    Ranked,
    CostArray,
    CostMap,
    /// The ordered engine's labels, in an array ([`LabelStore`]).
    LabelArray,
}

/// What A*'s lower bound is made of: each a distance on a mover's move
/// graph, relaxed (no conditions, no other movers), so never more than the
/// steps it bounds.
#[derive(Debug, Clone)]
pub struct Bound {
    /// Movers the goal pins, with the grid cells it allows.
    pub pinned: Vec<(MoverId, Vec<u32>)>,
    /// The pinned distances add up (movers in turn) or the largest counts
    /// (at once).
    pub sum: bool,
    /// Flags the goal fixes, each with the positions where arriving or
    /// standing can give it the value wanted.
    pub flags: Vec<FlagBound>,
    /// Objects' members the goal puts on some positions: their pushes to
    /// them ([`crate::task::Object::pushes_to_goal`]) add up, a step
    /// pushing one member one cell.
    pub objects: Vec<MoverId>,
    /// The pinned movers' distances are on a graph of far moves (a move
    /// may stop on any cell it passes; teleports always go through), where
    /// a step may go further than the next cell; else on a graph of single
    /// moves.
    pub far: bool,
    /// Partitions of some pinned movers into groups whose distances are
    /// replaced by pattern tables ([`pattern_partitions`]), once the search
    /// has expanded `patterns_after` states: a search that ends sooner
    /// does without. Each partition's tables add up to a bound; the bound
    /// is the largest of them. Every partition covers the same movers.
    pub partitions: Vec<Vec<Vec<MoverId>>>,
    /// The free cells the tables' searches follow (0: none).
    pub free: usize,
    pub patterns_after: u64,
}

impl Bound {
    /// Whether every mover with moves of its own is pinned, so that each
    /// of its steps moves the bound or spends the room left: a depth-first
    /// search under the least cost then stays near the least ways (where a
    /// mover the bound does not count walks about freely, it meets each
    /// state again on every longer way there).
    fn pins_every_mover(&self, task: &Task) -> bool {
        (task.movers().iter().enumerate())
            .filter(|(_, m)| !m.actions().is_empty())
            .all(|(i, _)| self.pinned.iter().any(|(p, _)| p.ix() == i))
    }

    /// Whether the bound is well informed: the movers' distances where no
    /// entry condition or rule can lengthen the way, only other movers;
    /// the flags' whenever the goal asks for flags.
    fn informed(&self, task: &Task) -> bool {
        task.unconditional() || !self.flags.is_empty()
    }

    /// What the bound is made of, in words (for `explain`).
    fn describe(&self, task: &Task) -> String {
        let mut parts = Vec::new();
        if !self.pinned.is_empty() {
            let names: Vec<&str> = self
                .pinned
                .iter()
                .map(|(m, _)| task.mover(*m).name())
                .collect();
            let graph = if self.far {
                "far moves (a move may stop on any cell it passes, teleports always go through)"
            } else {
                "single moves"
            };
            parts.push(format!(
                "the {} of the distances to the goal of {}, each on a graph of its {graph}",
                if self.sum { "sum" } else { "largest" },
                names.join(", ")
            ));
        }
        if !self.partitions.is_empty() {
            let names = |g: &Vec<MoverId>| {
                let n: Vec<&str> = g.iter().map(|&m| task.mover(m).name()).collect();
                n.join(" ")
            };
            let groups: Vec<String> = (self.partitions.iter())
                .map(|p| {
                    let g: Vec<String> = p.iter().map(names).collect();
                    format!("[{}]", g.join("], ["))
                })
                .collect();
            // A group in two partitions has one table.
            let mut distinct: Vec<&Vec<MoverId>> = self.partitions.iter().flatten().collect();
            distinct.sort();
            distinct.dedup();
            let u = mover_cells(task).len();
            let ranked =
                self.free > 0 && (distinct.iter()).any(|g| pattern_dense(u, g.len(), self.free));
            let entries: u64 = (distinct.into_iter())
                .map(|g| pattern_entries(task, g, self.free))
                .sum();
            let each = if ranked {
                "a byte each, indexed by the ranks of the placements (a digit a cell would not fit)"
            } else {
                "a byte each"
            };
            let alone = match self.free {
                0 => "its members blocking each other, the others gone".to_string(),
                f => format!(
                    "moving into the {f} free cell{}, the others filling the rest at no cost",
                    plural(f)
                ),
            };
            let (first, also) = groups.split_first().expect("a partition");
            let also = match also {
                [] => String::new(),
                more => format!(
                    " (and of {}: the largest of the {} sums taken)",
                    more.join(" and of "),
                    groups.len()
                ),
            };
            parts[0] = format!(
                "{}; once {} states are expanded, the sum for the groups {first}{also} of the \
                 fewest moves of each group alone ({alone}): pattern tables of {entries} \
                 entries in all, {each}, searched once for the cases that share them",
                parts[0], self.patterns_after,
            );
        }
        if !self.flags.is_empty() {
            parts.push(format!(
                "for {} flag{} the goal asks for, the fewest moves to where a rule gives it",
                self.flags.len(),
                plural(self.flags.len())
            ));
        }
        if !self.objects.is_empty() {
            parts.push(format!(
                "the pushes of {} member{} to the goal",
                self.objects.len(),
                plural(self.objects.len())
            ));
        }
        match parts.len() {
            1 => parts.remove(0),
            _ => format!("the largest of: {}", parts.join("; ")),
        }
    }
}

/// One flag the goal fixes.
#[derive(Debug, Clone)]
pub struct FlagBound {
    pub var: VarId,
    pub want: i64,
    /// Per mover, the grid cells where a rule can give the value (maybe
    /// some repeated, maybe some no mover stands on).
    pub gives: Vec<(MoverId, Vec<u32>)>,
}

/// Where a search checks its budget (states, memory, time) and makes room
/// for the states it finds, chosen from the most successors one state can
/// have: checks cost time in the successor loop, so it has none when it
/// need not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// Between blocks of `states` expansions, whose successors (at most
    /// `fan_out` a state) fit in the room made before each block: no check
    /// within an expansion.
    Blocks { states: usize, fan_out: usize },
    /// After every [`CHECK_SUCCESSORS`] successors, and room made for each:
    /// one state may have more successors than a block's room.
    Successors,
}

/// How one case is searched.
#[derive(Debug, Clone)]
pub struct Plan {
    layout: Layout,
    word: WordSize,
    kernel: KernelKind,
    kernel_why: String,
    engine: Engine,
    engine_why: String,
    store: Store,
    store_why: String,
    checks: Checks,
    checks_why: String,
    /// The task's lower bound on the steps to a goal, where it has one
    /// (A*'s, where the engine is A* or IDA*: [`Plan::bound`]).
    bound: Option<Bound>,
    /// Whether the way is found again by the bound ([`Plan::way_bound`]).
    way_by_bound: bool,
    /// The workers, where the engine is [`Engine::Cluster`].
    cluster: Option<&'static Cluster>,
    threads: usize,
    /// Where costs have parts (the ordered engine): how it keeps each
    /// state's least label.
    labels: Option<LabelStore>,
    /// Breadth-first search keeps each state once, at its earliest: the
    /// clock left out of the visited store's keys
    /// ([`Task::earliest_is_best`]).
    earliest: Option<VarId>,
    /// Breadth-first search turns to bitset layers once a level is large.
    layers: Option<Layers>,
    /// Where the visited store keeps ranks ([`Store::Ranked`]): the ranker.
    ranker: Option<crate::pack::SetRanker>,
    /// A* turns to IDA* when its states come near the memory limit, or
    /// once it has seen this many (`u64::MAX` but in tests); `None`: it
    /// does not.
    turns_to_ida: Option<u64>,
}

/// How the ordered engine keeps each state's least label (cost part by
/// part, and steps): packed into one word where a bound on the labels of
/// the map's states fits it, in an array of one entry per combination of
/// the fields' values where that array is small, else in a hash map.
#[derive(Debug, Clone)]
pub struct LabelStore {
    pub packing: Option<crate::settle::Packing>,
    /// How a state indexes the array, where labels are kept in one.
    pub array: Option<crate::settle::Index>,
}

/// The most an array of labels (and parents) may take: above it, or for
/// more than 2^[`LABEL_ARRAY_MAX_BITS`] entries, a hash map keeps them.
pub const LABEL_ARRAY_BYTES: u64 = 64 << 20;
pub const LABEL_ARRAY_MAX_BITS: u32 = 26;

/// Breadth-first search by bitset layers (`search::layers`): the ranks of
/// the states, and the level at which the search turns to them.
#[derive(Debug, Clone)]
pub struct Layers {
    pub ranker: Ranker,
    /// Words per row (the rows kernel's `R`).
    pub row_words: usize,
    /// Words per bitset.
    pub words: usize,
    /// The level size at which the search turns to them.
    from: usize,
    /// The frontier in a file even where memory has room for it (tests).
    on_disk: bool,
}

impl Layers {
    /// The layers for a ranker whose rows hold the last mover's positions
    /// in `row_words` words; `None` when a bitset would not fit an
    /// address.
    pub fn new(ranker: Ranker, row_words: usize) -> Option<Layers> {
        let bits = ranker.rows().checked_shl(ranker.low_bits())?;
        let words = usize::try_from(bits.div_ceil(64)).ok()?;
        Some(Layers {
            ranker,
            row_words,
            words,
            // A layered level costs a sweep of the bitsets' words besides
            // its states, a level of vectors a hash set's probe per
            // successor (the store holds a hash set until millions of
            // states are seen): some thousand times a word swept, for
            // twenty successors a state.
            from: (words / 1024).max(4096),
            on_disk: false,
        })
    }

    /// The bytes of the three bitsets.
    pub fn bytes(&self) -> u64 {
        3 * 8 * self.words as u64
    }

    /// The bytes of the two bitsets kept in memory when the frontier's
    /// goes to a file: the least memory the layers take.
    pub fn least_bytes(&self) -> u64 {
        2 * 8 * self.words as u64
    }

    /// A level of at least this many states turns the search to layers.
    pub fn from_level(&self) -> usize {
        self.from
    }

    /// The same layers, turned to from a level of `n` states (tests run
    /// small maps through them).
    pub fn turning_at(self, n: usize) -> Layers {
        Layers { from: n, ..self }
    }

    /// The same layers, with the frontier in a file whatever the memory
    /// limit (tests check that it gives the same answers).
    pub fn frontier_on_disk(self) -> Layers {
        Layers {
            on_disk: true,
            ..self
        }
    }

    /// Whether the frontier goes to a file whatever the memory limit.
    pub fn forces_disk(&self) -> bool {
        self.on_disk
    }

    /// What `explain` says of them.
    pub fn describe(&self, layout: &Layout) -> String {
        let (packed, ranked) = self.ranker.bits_saved(layout);
        format!(
            "once a level reaches {} states, the visited set, the frontier and the next level \
             are bitsets of {} each, over the states ranked ({} rows of {} values: the fields \
             above the last agent's position as one mixed-radix number of {ranked} bits, not \
             {packed} packed); a level's rows are expanded at once, in order, and ORed into the \
             next (on several threads, into a next level of each thread's own where the memory \
             limit leaves room; where it leaves none for the frontier's, the frontier is a file \
             in a temporary directory, read and written in order, removed at the end)",
            self.from_level(),
            crate::budget::size(8 * self.words as u64),
            self.ranker.rows(),
            1u64 << self.ranker.low_bits(),
        )
    }
}

/// A state too wide to pack: its layout, for the report.
#[derive(Debug, Clone)]
pub struct TooWide(pub Layout);

impl Plan {
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn word(&self) -> WordSize {
        self.word
    }

    pub fn kernel(&self) -> KernelKind {
        self.kernel
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    pub fn store(&self) -> Store {
        self.store
    }

    pub fn checks(&self) -> Checks {
        self.checks
    }

    /// A*'s bound, where the engine is A* or IDA*.
    pub fn bound(&self) -> Option<&Bound> {
        (self.bound.as_ref()).filter(|_| matches!(self.engine, Engine::Astar | Engine::Ida))
    }

    /// The bound the way is found again by ([`crate::search::way`]), where
    /// `auto` searches the task by A* (whatever strategy was asked: the
    /// way is the task's, not the search's), the bound counts every mover
    /// that has moves (`pins_every_mover`), and the moves have no letters
    /// (the way is then the least written, found as the search settles).
    /// Elsewhere the bound is weak or the space small: a depth-first
    /// search would meet each state again on every longer way there,
    /// where Dijkstra's algorithm settles it once.
    pub fn way_bound(&self) -> Option<&Bound> {
        self.bound.as_ref().filter(|_| self.way_by_bound)
    }

    /// The workers of the distributed search, where it was chosen.
    pub fn cluster(&self) -> Option<&'static Cluster> {
        self.cluster
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The clock the visited store leaves out, where a state is kept at
    /// its earliest.
    pub fn earliest(&self) -> Option<VarId> {
        self.earliest
    }

    /// Whether A* turns to IDA* when its states come near the memory
    /// limit, and the states it turns at besides (`u64::MAX` but in
    /// tests).
    pub fn turns_to_ida(&self) -> Option<u64> {
        self.turns_to_ida
    }

    /// The same plan, with A* turning to IDA* once it has seen `n`
    /// states (tests turn it on small maps).
    pub fn turning_to_ida_after(self, n: u64) -> Plan {
        Plan {
            turns_to_ida: self.turns_to_ida.map(|_| n),
            ..self
        }
    }

    /// The same plan, with A* and IDA* building their pattern tables
    /// (where the plan has them) after `n` expanded states, or never
    /// (`u64::MAX`): tests build them on small maps, and search without
    /// them to compare.
    pub fn patterns_after(mut self, n: u64) -> Plan {
        if let Some(b) = &mut self.bound {
            b.patterns_after = n;
        }
        self
    }

    /// The bitset layers breadth-first search turns to once a level is
    /// large, where it does.
    pub fn layers(&self) -> Option<&Layers> {
        self.layers.as_ref()
    }

    /// The ranker of the states the visited store keeps, where it keeps
    /// ranks ([`Store::Ranked`]).
    pub fn ranker(&self) -> Option<&crate::pack::SetRanker> {
        self.ranker.as_ref()
    }

    /// Where costs have parts: how the ordered engine keeps its labels.
    pub fn labels(&self) -> Option<&LabelStore> {
        self.labels.as_ref()
    }

    /// This plan with the ordered engine's labels unpacked and in a hash
    /// map: what the tests check the packed labels and the array against
    /// (the same solutions, ways and statistics).
    pub fn with_wide_labels_in_a_map(mut self) -> Plan {
        if let Some(l) = &mut self.labels {
            l.packing = None;
            l.array = None;
            self.store = Store::CostMap;
        }
        self
    }

    /// Whether the search itself finds the way (`--moves`, `{path}`): the
    /// ordered engine settles states as finding a way again would.
    pub fn way_from_search(&self) -> bool {
        self.engine == Engine::Ordered
    }

    /// The plan in words, for `explain`.
    pub fn describe(&self, task: &Task) -> String {
        let mut s = self.describe_state(task);
        describe_task(task, &mut s);
        describe_moves(task, &mut s);
        describe_parts(task, &mut s);
        self.describe_choices(task, &mut s);
        s
    }

    /// The state's fields, for `explain`.
    fn describe_state(&self, task: &Task) -> String {
        use std::fmt::Write;
        let l = &self.layout;
        let mut s = String::new();
        let word = match self.word {
            WordSize::U32 => "a u32",
            WordSize::U64 => "a u64",
            WordSize::U128 => "a u128",
            WordSize::W256 => "four u64",
            WordSize::W1024 => "sixteen u64",
        };
        let _ = writeln!(s, "  state: {} bits in {word}", l.bits());
        for &v in l.order() {
            let var = task.var(v);
            let f = l.field(v);
            let what = match var.kind() {
                VarKind::Position(m) if task.mover(m).domain().is_grid() => format!(
                    "position, {} cells: the padded grid's, a large map's cells not listed",
                    var.size()
                ),
                VarKind::Position(_) => format!("position, {} cells", var.size()),
                VarKind::Heading(_) => "heading, 4 directions".into(),
                VarKind::Flag => "flag".into(),
                VarKind::Counter { lo, hi, wrap } => {
                    format!("counter {lo}..{hi}{}", if wrap { ", wraps" } else { "" })
                }
                VarKind::Clock { from, period: 1 } => {
                    format!("the time, the steps taken up to {from}: the conditions read no later")
                }
                VarKind::Clock { from: 0, period } => {
                    format!("the time, modulo {period}: the conditions repeat every {period} steps")
                }
                VarKind::Clock { from, period } => format!(
                    "the time: the steps taken up to {from}, then modulo {period} (the conditions \
                     repeat every {period} steps from then)"
                ),
            };
            let _ = writeln!(
                s,
                "    {:<18} {:>3} bits at {:>3}  ({what})",
                var.name(),
                f.bits,
                f.offset
            );
        }
        let _ = writeln!(
            s,
            "  state space: at most {} states (2^{} packed values)",
            l.bound(),
            l.bits()
        );
        s
    }

    /// Each choice with its reason, for `explain`.
    fn describe_choices(&self, task: &Task, s: &mut String) {
        use std::fmt::Write;
        let _ = writeln!(s, "  successors: {}", self.kernel_why);
        let _ = writeln!(s, "  search: {}", self.engine_why);
        if let Some(b) = self.bound() {
            let _ = writeln!(s, "  A*'s bound: {}", b.describe(task));
        }
        let _ = writeln!(s, "  visited store: {}", self.store_why);
        // The workers' layers are their store, said there.
        if let Some(l) = self
            .layers
            .as_ref()
            .filter(|_| self.engine != Engine::Cluster)
        {
            let _ = writeln!(s, "  layers: {}", l.describe(&self.layout));
        }
        if self.turns_to_ida.is_some() {
            let _ = writeln!(
                s,
                "  memory: with a --timeout, when A*'s states come near the memory limit, IDA* \
                 from the least f A* had left (the same bound, only the way kept; it cannot tell \
                 that no way exists, so the time limit ends it then)"
            );
        }
        let _ = writeln!(s, "  budget checks: {}", self.checks_why);
        if self.way_from_search() {
            let _ = writeln!(s, "  path: {PATH_FROM_SEARCH_WHY}");
        } else if self.way_bound().is_some() {
            let _ = writeln!(s, "  path: {PATH_BY_BOUND_WHY}");
        } else {
            let _ = writeln!(s, "  path: {PATH_WHY}");
        }
        match self.cluster {
            // The run's threads do not apply: the workers search each case.
            Some(c) => {
                let _ = writeln!(
                    s,
                    "  threads: the cases one at a time, each searched by {}",
                    c.shape()
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "  threads: {} (cases solved several at a time; levels of at least 4096 states \
                     are shared)",
                    self.threads
                );
            }
        }
    }
}

/// The task's size, for `explain`.
fn describe_task(task: &Task, s: &mut String) {
    use std::fmt::Write;
    let rules = task.rules().len();
    let _ = writeln!(
        s,
        "  task: {} mover{}, {} action{}, {rules} rule{} grounded on this map, {} start state{}",
        task.movers().len(),
        plural(task.movers().len()),
        task.actions().len(),
        plural(task.actions().len()),
        plural(rules),
        task.starts().len(),
        plural(task.starts().len())
    );
    for f in task.fields() {
        let _ = writeln!(
            s,
            "  field {}: distances 0..{} on {} of the map's {} cells, {} on the other {}",
            f.name,
            f.farthest,
            f.reached,
            f.cells,
            f.otherwise,
            f.cells - f.reached
        );
    }
}

/// The moves as the core has them, for `explain`.
fn describe_moves(task: &Task, s: &mut String) {
    use std::fmt::Write;
    // The moves as the core has them: per agent (a family's first
    // member speaks for it), each action's motion, cost and condition.
    for m in task.movers().iter().filter(|m| m.member() == 0) {
        let (acts, by_itself) = match m.script() {
            Some((n, acts)) => {
                // As the interpreter tries them (see `kernel::Choice`).
                let how = match crate::kernel::Choice::new(task, acts) {
                    Some(c) => format!(
                        ", tried through a decision table of the {} tests their conditions share",
                        c.tests()
                    ),
                    None => String::new(),
                };
                (
                    acts,
                    format!(" (by itself, {n} a step, the first it can{how})"),
                )
            }
            None => (m.actions(), String::new()),
        };
        if acts.is_empty() {
            continue;
        }
        let moves: Vec<String> = acts
            .iter()
            .map(|&a| {
                let act = task.action(a);
                let mut motion = act.motion().describe();
                if !act.table().is_empty() {
                    let rows: Vec<String> = (act.table().iter().enumerate())
                        .map(|(p, (to, (dr, dc)))| format!("{p}->{to} ({dr}, {dc})"))
                        .collect();
                    motion = format!("{motion}: {}", rows.join(" "));
                }
                let cost = match act.cost() {
                    1 => String::new(),
                    c => format!(" costs {c}"),
                };
                let guard = match act.guard() {
                    Expr::Const(true) => "",
                    g if g.reads_only(&|e| matches!(e, Expr::At(x, _) if *x == act.mover())) => {
                        " if (its cell)"
                    }
                    _ => " if (the state)",
                };
                let rules = match act.rules().len() {
                    0 => String::new(),
                    n => format!(", {n} rule{}", plural(n)),
                };
                let name = act.name();
                format!("{name}: {motion}{cost}{guard}{rules}")
            })
            .collect();
        let who = m.name().split('[').next().unwrap_or(m.name());
        let _ = writeln!(s, "  moves of {who}{by_itself}: {}", moves.join("; "));
    }
}

/// What moves besides the agents' moves, and what the state keeps in
/// order, for `explain`.
fn describe_parts(task: &Task, s: &mut String) {
    use std::fmt::Write;
    if task.carries() {
        let _ = writeln!(
            s,
            "  carrying: {} cells carry what stands on them after every step",
            task.carried_cells()
        );
    }
    if task.forbids() {
        let _ = writeln!(s, "  forbidden: states where a `forbid` condition holds");
    }
    for m in task.movers().iter().filter(|m| m.member() == 0) {
        if let Some(lead) = m.follows() {
            let n = task
                .movers()
                .iter()
                .filter(|x| x.agent() == m.agent())
                .count();
            let body = m.name().split('[').next().unwrap_or(m.name());
            let _ = writeln!(
                s,
                "  body: {body} ({n} cell{}) follows {} after every step it moves",
                plural(n),
                task.mover(lead).name()
            );
        }
    }
    for (i, m) in task.movers().iter().enumerate() {
        let twins = m.twins();
        if twins.start != i as u32 {
            continue;
        }
        let name = m.name().split('[').next().unwrap_or(m.name());
        let n = twins.len();
        let _ = if m.object().is_some() {
            write!(
                s,
                "  objects: {n} of `{name}`, alike: their positions kept in increasing order"
            )
        } else if n > 1 {
            write!(
                s,
                "  alike: {n} pieces of `{name}` of one shape: their positions kept in \
                 increasing order"
            )
        } else {
            continue;
        };
        match m.object().map(|o| &o.pushes_to_goal) {
            Some(Some(d)) => {
                let dead = d.iter().filter(|&&x| x == u32::MAX).count();
                let _ = writeln!(
                    s,
                    "; pruned on {dead} of {} cells (no push can bring one from there to \
                     the goal)",
                    d.len()
                );
            }
            Some(None) => {
                let _ = writeln!(s, "; no pruning (the goal does not place each one)");
            }
            None => {
                let _ = writeln!(s);
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl TooWide {
    /// The error for a state that does not fit the widest word: its case's,
    /// with the bits each part of the state needs.
    pub fn report(&self, case: &crate::input::RawCase, task: &Task) -> crate::error::InputError {
        let layout = &self.0;
        // Members of a family or an object, one after another with the same
        // width, are one part: `box (157 of them) 10 bits each`.
        let mut runs: Vec<(&str, &str, u32, usize)> = Vec::new();
        for &v in layout.order() {
            let (name, bits) = (task.var(v).name(), layout.field(v).bits);
            if bits == 0 {
                continue;
            }
            let base = name.split('[').next().unwrap_or(name);
            match runs.last_mut() {
                Some((b, _, w, n)) if *b == base && *w == bits && base != name => *n += 1,
                _ => runs.push((base, name, bits, 1)),
            }
        }
        let parts: Vec<String> = runs
            .iter()
            .map(|&(base, name, bits, n)| match n {
                1 => format!("{name} {bits} bits"),
                _ => format!("{base} ({n} of them) {bits} bits each"),
            })
            .collect();
        crate::error::InputError::TooWide {
            message: format!(
                "the state of case {} needs {} bits, more than the {} the engine packs",
                case.number,
                layout.bits(),
                MAX_BITS
            ),
            span: case.span(),
            help: format!("bits per part: {}", parts.join(", ")),
        }
    }
}

/// How a least-cost path is found, when one is asked for (`--moves`,
/// `--trace`, `{steps}` where steps have costs): the engines keep no
/// parents (a bitset holds a bit a state), so [`crate::trace`] finds the
/// way again.
pub const PATH_WHY: &str = "for `--moves` and `--trace`, found again after the search by \
    Dijkstra's algorithm on (cost, steps), parents kept, one thread, this kernel";

/// How the way is found again where A*'s bound applies ([`Plan::way_bound`]).
pub const PATH_BY_BOUND_WHY: &str = "for `--moves` and `--trace`, found again after the search \
    depth first under the least cost, A*'s bound cutting off the rest and each state that \
    failed remembered with its room: the first least way in this kernel's order of moves, \
    one thread";

/// How the ordered engine finds a way, when one is asked for.
pub const PATH_FROM_SEARCH_WHY: &str = "for `--moves`, `--trace` and `{path}`, from the search \
    itself (no second search): of the ways at the least cost and steps, the least written \
    where moves have letters, else the one settled first";

/// The plan for a task.
pub fn plan(task: &Task, config: Config) -> Result<Plan, TooWide> {
    let layout = Layout::new(task);
    let word = match layout.bits() {
        0..=32 => WordSize::U32,
        33..=64 => WordSize::U64,
        65..=128 => WordSize::U128,
        129..=256 => WordSize::W256,
        257..=MAX_BITS => WordSize::W1024,
        _ => return Err(TooWide(layout)),
    };
    let bound = bound(task);
    // Worked out once: it walks every condition of the task.
    let earliest = task.earliest_is_best();
    let chosen = |asked: Strategy| {
        earliest_engine(task, asked, earliest.is_some())
            .unwrap_or_else(|| engine(task, asked, bound.as_ref(), layout.bits()))
    };
    let (engine, engine_why) = chosen(config.strategy);
    // What `auto` picks, whatever was asked: the way is found again by the
    // bound where A* is the search for this task.
    let way_by_bound = if config.strategy == Strategy::Auto {
        engine == Engine::Astar
    } else {
        chosen(Strategy::Auto).0 == Engine::Astar
    };
    let earliest = earliest.filter(|_| engine == Engine::Bfs);
    // Where the workers search, they search breadth first, whatever the
    // local engine would have been: the kernel is chosen for that.
    let spread = config
        .cluster
        .map(|c| (c, distributed(task, engine, &layout, earliest.is_some())));
    let spreads = matches!(spread, Some((_, Ok(()))));
    let (kernel, kernel_why) = kernel(task, if spreads { Engine::Bfs } else { engine });
    let ranker = ranker(task, engine, &layout);
    let key = key_bits(&layout, earliest);
    let (store, mut store_why, labels) = store(task, engine, (&layout, key), ranker.as_ref());
    if earliest.is_some() {
        store_why = format!(
            "{store_why}; each state kept once, at its earliest (the time left out of its key: \
             the conditions that read the time only get harder as it passes, and every step \
             costs 1, so a state reached later is no better){}",
            if key < layout.bits() {
                format!("; the key is the {key} bits below the time")
            } else {
                String::new()
            }
        );
    }
    let (checks, checks_why) = checks(task, config.count);
    let layers = match kernel {
        KernelKind::Rows { words }
            if spreads
                || (engine == Engine::Bfs
                    && matches!(store, Store::Bitset | Store::Growing | Store::HashSet)
                    && earliest.is_none()) =>
        {
            // A worker's layers are three bitsets of every rank: at most
            // as large as the packed bitset below.
            Ranker::new(&layout)
                .and_then(|r| Layers::new(r, words))
                .filter(|l| !spreads || l.words as u64 * 64 <= 1u64 << CLUSTER_BITSET_BITS)
        }
        _ => None,
    };
    let (engine, engine_why, (store, store_why)) = match spread {
        Some((c, Ok(()))) => (
            Engine::Cluster,
            format!(
                "breadth-first search on timely dataflow, {}: each state owned by one of the {} \
                 workers ({}), which keeps it and expands it; successors sent to their owners, \
                 level by level (the local plan: {engine_why})",
                c.shape(),
                c.processes() * c.workers,
                if layers.is_some() {
                    format!(
                        "by its rank: the ranked bitsets in pieces of at most 2^{} bits, dealt \
                         out in turn",
                        (MOST_PIECE_WORDS * 64).ilog2()
                    )
                } else {
                    "a hash of its bits".into()
                },
            ),
            cluster_store(&layout, c, layers.as_ref()),
        ),
        Some((_, Err(why))) => (
            engine,
            format!("{engine_why} (here, not on the workers: {why})"),
            (store, store_why),
        ),
        None => (engine, engine_why, (store, store_why)),
    };
    Ok(Plan {
        layout,
        word,
        kernel,
        kernel_why,
        engine,
        engine_why,
        store,
        store_why,
        checks,
        checks_why,
        way_by_bound: way_by_bound
            && bound.as_ref().is_some_and(|b| b.pins_every_mover(task))
            && task.unit_costs()
            && task.parts().is_none()
            && !task.lettered(),
        bound,
        threads: config.threads,
        cluster: config.cluster.filter(|_| engine == Engine::Cluster),
        labels,
        earliest,
        layers,
        ranker,
        // Its open list grows with the states seen, and with a map, its
        // store too.
        turns_to_ida: (engine == Engine::Astar).then_some(u64::MAX),
    })
}

/// How the ordered engine keeps its labels: packed where they fit a word
/// (for the at most `layout.bound()` states of this map), in an array
/// where it takes at most [`LABEL_ARRAY_BYTES`] with a parent per state.
fn label_store(task: &Task, layout: &Layout) -> (LabelStore, String) {
    let parts = task
        .parts()
        .expect("the ordered engine is for costs in parts");
    let packing = crate::settle::Packing::new(parts, layout.bound());
    let (bytes, what) = match &packing {
        Some(p) => (
            8,
            format!("packed in 8 bytes: {}", p.describe(parts.names())),
        ),
        None => (
            8 * (MAX_PARTS as u64 + 1),
            format!(
                "{} bytes: the parts of a way of this map's states do not fit a word packed",
                8 * (MAX_PARTS + 1)
            ),
        ),
    };
    let entries = layout.bound();
    let fits = entries <= 1 << LABEL_ARRAY_MAX_BITS
        && entries.saturating_mul(u128::from(bytes + 4)) <= u128::from(LABEL_ARRAY_BYTES);
    // The first mover that chooses moves moves every step (alone, or
    // first of those in turn): its position the lowest digit of the index.
    let mover = task.movers().iter().find(|m| !m.actions().is_empty());
    let first = mover.map(|m| m.pos());
    let digits: Vec<crate::pack::Field> = first
        .into_iter()
        .chain(layout.order().iter().copied().filter(|&v| Some(v) != first))
        .map(|v| layout.field(v))
        .collect();
    let array = fits.then(|| crate::settle::Index::new(&digits));
    let why = match &array {
        Some(ix) => {
            let lowest = mover.map_or(String::new(), |m| {
                format!(
                    ", `{}`'s cell the lowest digit (it moves every step: a step's states sit \
                     near each other)",
                    m.name()
                )
            });
            format!(
                "each state's least cost (part by part) and steps, {what}; in an array of {} \
                 entries, one per combination of the fields' values ({} KiB, with the states \
                 reached from where moves have no letters){lowest}",
                ix.len(),
                (ix.len() as u64 * bytes).div_ceil(1024)
            )
        }
        None => format!(
            "each state's least cost (part by part) and steps, {what}, and the state it was \
             reached from, in a hash map: an array of every combination of the fields' values \
             would take more than {} MiB",
            LABEL_ARRAY_BYTES >> 20
        ),
    };
    (LabelStore { packing, array }, why)
}

/// Breadth-first search keeping each state at its earliest, where the
/// task allows it (`allows`: [`Task::earliest_is_best`]) and no engine was
/// asked for: a state per cell where A* or a search of every time would
/// keep one per cell and minute.
fn earliest_engine(task: &Task, asked: Strategy, allows: bool) -> Option<(Engine, String)> {
    let fits = asked == Strategy::Auto && *task.goal() != Expr::Const(false) && allows;
    fits.then(|| {
        let why = "the time is read, but only ever makes a step harder as it passes, and every \
                   step costs 1: breadth-first search keeping each state at its earliest";
        (Engine::Bfs, why.into())
    })
}

fn engine(task: &Task, asked: Strategy, bound: Option<&Bound>, bits: u32) -> (Engine, String) {
    if *task.goal() == Expr::Const(false) {
        return (
            Engine::Nothing,
            "no state of this map is a goal: nothing to search".into(),
        );
    }
    let asked_why = asked_for(asked);
    if let Some(p) = task.parts() {
        return (
            Engine::Ordered,
            format!(
                "{asked_why}costs are in parts ({}): Dijkstra's algorithm on the parts, compared \
                 in order",
                p.names().join(" then ")
            ),
        );
    }
    if !task.unit_costs() {
        let (min, max) = (task.min_cost(), task.max_cost());
        let asked = asked_for(asked);
        return if max <= BUCKETS_MAX_COST {
            (
                Engine::Buckets,
                format!(
                    "{asked}steps cost from {min} to {max}: Dijkstra's algorithm with a bucket \
                     queue of costs (the least total cost is found first)"
                ),
            )
        } else {
            (
                Engine::Dijkstra,
                format!(
                    "{asked}steps cost from {min} to {max}: Dijkstra's algorithm with a binary heap"
                ),
            )
        };
    }
    // The position bound is well informed when no entry condition or rule
    // can lengthen the way, only other movers; the flag bound whenever the
    // goal asks for flags.
    // With far moves, A*'s bound is a search of its own over every cell
    // (no distances on demand), and its store keeps a step count per state:
    // where breadth-first search keeps a bit per state instead, that costs
    // memory (robots, three on 12 x 12 boards: A* 0.04 s and 17.6 MB,
    // breadth-first search 0.06 s and 10.0 MB); where breadth-first search
    // keeps a hash set too, A* wins both ways (five robots on 14 x 14
    // boards: 3.9 s and 299 MB against 48.8 s and 506 MB).
    let wants_astar = match asked {
        Strategy::Astar | Strategy::Ida => true,
        Strategy::Auto if task.far_moves() => task.unconditional() && bits > DENSE_MAX_BITS,
        Strategy::Auto => bound.is_some_and(|b| b.informed(task)),
        _ => false,
    };
    if wants_astar && let Some(bound) = bound {
        return astar_engine(task, asked, bound);
    }
    match (asked, bidir_reason(task)) {
        (Strategy::Bfs, _) => (Engine::Bfs, "breadth-first search, as asked".into()),
        (Strategy::Astar | Strategy::Ida, _) if task.far_moves() => (
            Engine::Bfs,
            format!(
                "{}the goal pins no one-cell mover's position, or steps have costs (where moves \
                 slide or teleport, a flag's or an object's distances on the grid could \
                 overestimate): breadth-first search",
                asked_for(asked)
            ),
        ),
        (Strategy::Auto, Err(_)) if task.far_moves() => (
            Engine::Bfs,
            "a move may slide or teleport past many cells: A*'s distances would be a search of \
             their own over every cell, and its store a step count per state where \
             breadth-first search keeps a bit (or no mover is pinned, or a condition is in the \
             way): breadth-first search (`--strategy astar` for A*)"
                .into(),
        ),
        (Strategy::Astar | Strategy::Ida, _) => (
            Engine::Bfs,
            format!(
                "{}the goal pins no agent's position and fixes no flag: breadth-first search",
                asked_for(asked)
            ),
        ),
        (Strategy::Bidir | Strategy::Auto, Ok(why)) => (Engine::Bidir, why),
        (Strategy::Bidir, Err(why)) => (
            Engine::Bfs,
            format!("bidirectional search was asked for, but {why}: breadth-first search"),
        ),
        (Strategy::Auto, Err(why)) => (Engine::Bfs, format!("{why}: breadth-first search")),
    }
}

/// Where the workers of a distributed search keep the states they have
/// seen and sent: a bit a packed value where those are at most 2^32 (512
/// MiB a worker), else hash sets.
const CLUSTER_BITSET_BITS: u32 = 32;

/// The most words of a piece of the ranked bitsets that a worker owns
/// (32 KiB): the workers' layers deal them out in pieces of at most this.
pub const MOST_PIECE_WORDS: usize = 4096;

fn cluster_store(layout: &Layout, c: &Cluster, layers: Option<&Layers>) -> (Store, String) {
    let bits = layout.bits();
    if let Some(l) = layers {
        let bytes = 8 * l.words as u64;
        return (
            Store::Bitset,
            format!(
                "each worker three bitsets over the states ranked ({} each, {} in each process: \
                 the states seen, the level, the next level), its own ranks' rows expanded at \
                 once, as the local layers do; the words of the next level that other workers \
                 own sent to them, less the bits sent before (a bit set in the states seen for \
                 a rank it owns and has seen, or owns not and has sent: so each worker sends a \
                 state once at most)",
                crate::budget::size(bytes),
                crate::budget::size(l.bytes() * c.workers as u64)
            ),
        );
    }
    if bits <= CLUSTER_BITSET_BITS {
        let bytes = (1u64 << bits).div_ceil(8);
        (
            Store::Bitset,
            format!(
                "each worker a bitset of the {bits}-bit packed values ({} a worker, {} in \
                 each process): a bit set for a state it owns and has seen, or owns not and \
                 has sent (so each worker sends a state once at most)",
                crate::budget::size(bytes),
                crate::budget::size(bytes * c.workers as u64)
            ),
        )
    } else {
        (
            Store::HashSet,
            format!(
                "each worker its states in a hash set, and those it sent in a level in another \
                 (a bitset of the {bits}-bit packed values would be too large)"
            ),
        )
    }
}

/// Whether the distributed search can take a task the local plan gives
/// `engine`: breadth-first (every step costs 1, no time kept apart), on
/// states of at most 128 bits (what travels between workers); else why
/// not.
fn distributed(task: &Task, engine: Engine, layout: &Layout, earliest: bool) -> Result<(), String> {
    match engine {
        Engine::Bfs | Engine::Bidir | Engine::Astar | Engine::Ida => {}
        Engine::Nothing => return Err("no state is a goal: there is nothing to search".into()),
        Engine::Buckets | Engine::Dijkstra | Engine::Ordered | Engine::Cluster => {
            return Err("steps have costs; the workers search level by level".into());
        }
    }
    if task.parts().is_some() {
        return Err("costs have parts".into());
    }
    if earliest {
        return Err("states are kept at their earliest time, which the workers do not do".into());
    }
    if layout.bits() > 128 {
        return Err(format!(
            "a state has {} bits; the workers send states of at most 128",
            layout.bits()
        ));
    }
    Ok(())
}

/// A*, or IDA* where asked for, with the bound of the goal, and why.
fn astar_engine(task: &Task, asked: Strategy, bound: &Bound) -> (Engine, String) {
    if asked == Strategy::Ida {
        return (
            Engine::Ida,
            "IDA* with distances to the goal, as asked: depth-first searches under a bound on \
             steps plus distance, raised each time to the least it cut off (only the way is \
             kept; a state may be expanded many times)"
                .into(),
        );
    }
    let why = if asked == Strategy::Astar && task.far_moves() {
        "A* with distances to the goal, as asked: moves slide or teleport, so each pinned \
         mover's distances are on a graph of its moves where a move may stop on any cell \
         it passes (they never overestimate)"
    } else if task.far_moves() {
        "the goal pins some movers, nothing but other movers stands in their way, and the \
         states are too many for a bitset: A* with each pinned mover's distances on a graph \
         of its moves where a move may stop on any cell it passes (they never \
         overestimate)"
    } else if asked == Strategy::Astar {
        "A* with distances to the goal, as asked"
    } else if !bound.objects.is_empty() {
        "the goal puts objects on some cells: A* with the pushes each needs to get to one \
         (on a board with nothing else on it), their sum"
    } else if !bound.flags.is_empty() {
        "the goal asks for flags that only steps onto some positions can give: \
         A* with the agents' distances to those positions"
    } else {
        "the goal pins the agents' positions and nothing but other agents stands \
         between them and it: A* with their distances to the goal"
    };
    (Engine::Astar, why.into())
}

/// The start of a reason for an engine other than the one asked for.
fn asked_for(asked: Strategy) -> &'static str {
    match asked {
        Strategy::Auto => "",
        Strategy::Bfs => "breadth-first search was asked for, but ",
        Strategy::Bidir => "bidirectional search was asked for, but ",
        Strategy::Astar => "A* was asked for, but ",
        Strategy::Ida => "IDA* was asked for, but ",
    }
}

/// Whether a search from the goal is possible: the goal is one state, and
/// every step can be undone by a step.
fn bidir_reason(task: &Task) -> Result<String, String> {
    if task.goal_state().is_none() {
        return Err("the goal is not a single state".into());
    }
    if !task.reversible() {
        return Err(
            "a step may not be undoable (effects, entry conditions, or a move without its opposite)"
                .into(),
        );
    }
    Ok("the goal fixes one state and every step is reversible: bidirectional search".into())
}

fn kernel(task: &Task, engine: Engine) -> (KernelKind, String) {
    let rows = matches!(engine, Engine::Bfs | Engine::Bidir);
    let fit = crate::kernel::fits(task)
        .into_iter()
        .find(|f| f.suits(rows))
        .expect("the generic interpreter runs any task");
    (fit.kind, fit.reason)
}

/// The most successors one state has: the sum of the movers' actions (in
/// turn, twice that with teleports, which may be optional) or their
/// product (at once), as many as `usize` holds.
pub fn fan_out(task: &Task) -> usize {
    let counts = task.movers().iter().map(|m| m.actions().len());
    // An optional teleport makes a move two successors.
    let through = if task.board().has_teleports() { 2 } else { 1 };
    match task.mode() {
        Mode::InTurn => counts
            .fold(0, usize::saturating_add)
            .saturating_mul(through),
        Mode::AtOnce if task.movers().is_empty() => 0,
        Mode::AtOnce => counts.fold(1, usize::saturating_mul),
        // One move for all: as many as one mover's.
        Mode::Together => task.movers().first().map_or(0, |m| m.actions().len()),
    }
}

fn checks(task: &Task, count: bool) -> (Checks, String) {
    let fan_out = fan_out(task);
    if count {
        // The metered loop's ticks count the successors; the plain loop
        // counts nothing (a counter there cost the loop of one agent in
        // turn 6% of its instructions).
        return (
            Checks::Successors,
            format!(
                "after every {CHECK_SUCCESSORS} successors, which are counted (`--stats`):                  every expansion metered"
            ),
        );
    }
    if fan_out <= CHECK_SUCCESSORS {
        let states = (CHECK_SUCCESSORS / fan_out.max(1)).clamp(1, CHECK_EVERY as usize);
        (
            Checks::Blocks { states, fan_out },
            format!(
                "between blocks of {states} expanded state{}: a state has at most {fan_out} \
                 successor{}, a block's fit in the room made for it",
                plural(states),
                plural(fan_out)
            ),
        )
    } else {
        let most = if fan_out == usize::MAX {
            "more than 2^64".to_string()
        } else {
            fan_out.to_string()
        };
        (
            Checks::Successors,
            format!(
                "after every {CHECK_SUCCESSORS} successors: a state may have {most} of them, \
                 its expansion may have to stop midway"
            ),
        )
    }
}

/// Where the states seen are kept: the ordered engine's labels
/// ([`label_store`]), or a set or a cost per state ([`set_store`]).
fn store(
    task: &Task,
    engine: Engine,
    (layout, key): (&Layout, u32),
    ranker: Option<&crate::pack::SetRanker>,
) -> (Store, String, Option<LabelStore>) {
    if engine == Engine::Ordered {
        let (labels, why) = label_store(task, layout);
        let kind = if labels.array.is_some() {
            Store::LabelArray
        } else {
            Store::CostMap
        };
        return (kind, why, Some(labels));
    }
    let (kind, why) = set_store(engine, (layout, key), ranker);
    (kind, why, None)
}

/// The ranker of breadth-first search's visited store, where some movers
/// are alike and their ranks save at least four bits of a state of more
/// than [`DENSE_AT_ONCE_BITS`] (and at most 128) and fit
/// [`DENSE_MAX_BITS`].
fn ranker(task: &Task, engine: Engine, layout: &Layout) -> Option<crate::pack::SetRanker> {
    let bits = layout.bits();
    if engine != Engine::Bfs || bits <= DENSE_AT_ONCE_BITS || bits > 128 || !task.has_twins() {
        return None;
    }
    crate::pack::SetRanker::new(task, layout)
        .filter(|r| r.bits() <= DENSE_MAX_BITS && r.bits() + 4 <= bits)
}

/// The bits of a visited store's keys: the layout's, or where each state
/// is kept at its earliest (`earliest`, the clock) and the clock is the
/// layout's last field, those below it: the key leaves the clock out
/// ([`crate::search`]'s `Mask`), so a bitset needs a bit per value of the
/// rest only. (Only where the layout lives in a `u32`, the word the search
/// keeps bitsets for: a clock of 11 bits over a position of 20, a fire
/// maze of a million cells, keeps a bitset of 2^20 bits, not a hash set.)
pub fn key_bits(layout: &Layout, earliest: Option<VarId>) -> u32 {
    match earliest.map(|c| layout.field(c)) {
        Some(f) if f.offset + f.bits == layout.bits() && layout.bits() <= 32 => f.offset,
        _ => layout.bits(),
    }
}

/// The store of an engine other than the ordered one. A bitset only for
/// layouts of at most [`DENSE_MAX_BITS`] bits, which always live in a
/// `u32` (the search instantiates its bitset there only); ranks where
/// [`ranker`] found them worth it.
fn set_store(
    engine: Engine,
    (layout, bits): (&Layout, u32),
    ranker: Option<&crate::pack::SetRanker>,
) -> (Store, String) {
    match engine {
        Engine::Nothing => (Store::None, "none".into()),
        Engine::Ida => (Store::None, "none: IDA* keeps the way it is on".into()),
        Engine::Bfs if let Some(r) = ranker => {
            let kib = (1u64 << r.bits()).div_ceil(8 * 1024);
            let after = hash_until(r.bits(), HASH_SHIFT);
            (
                Store::Ranked,
                format!(
                    "each state as its rank, the positions of alike movers as one multiset \
                     ({}): a hash set of ranks until {after} are seen, then a dense bitset of \
                     the ranks ({kib} KiB)",
                    r.describe(layout)
                ),
            )
        }
        Engine::Bfs | Engine::Bidir if bits <= DENSE_AT_ONCE_BITS => {
            let kib = (1u64 << bits).div_ceil(8 * 1024);
            (
                Store::Bitset,
                format!(
                    "dense bitset ({kib} KiB, one bit per packed value): the state has at most \
                     {DENSE_AT_ONCE_BITS} bits"
                ),
            )
        }
        Engine::Bfs | Engine::Bidir if bits <= DENSE_MAX_BITS => {
            let kib = (1u64 << bits).div_ceil(8 * 1024);
            let after = hash_until(bits, HASH_SHIFT);
            (
                Store::Growing,
                format!(
                    "a hash set until {after} states are seen, then a dense bitset ({kib} KiB, \
                     one bit per packed value): the state has {bits} bits, more than \
                     {DENSE_AT_ONCE_BITS}, and a search that reaches few states would touch the \
                     bitset's pages all over"
                ),
            )
        }
        Engine::Bfs | Engine::Bidir => (
            Store::HashSet,
            format!(
                "hash set (grows with the states seen): the state has more than \
                 {DENSE_MAX_BITS} bits"
            ),
        ),
        _ if bits <= DENSE_G_BITS => {
            let kib = (4u64 << bits).div_ceil(1024);
            let what = if engine == Engine::Astar {
                "fewest steps"
            } else {
                "least cost"
            };
            (
                Store::CostArray,
                format!(
                    "{what} per state in a flat array ({kib} KiB, 4 bytes per packed value): \
                     the state has at most {DENSE_G_BITS} bits"
                ),
            )
        }
        _ => {
            let what = if engine == Engine::Astar {
                "fewest steps"
            } else {
                "least cost"
            };
            (
                Store::CostMap,
                format!(
                    "{what} per state in a hash map (grows with the states seen): the state has \
                     more than {DENSE_G_BITS} bits"
                ),
            )
        }
    }
}

/// The conjuncts of the goal.
fn conjuncts(e: &Expr) -> &[Expr] {
    match e {
        Expr::And(ps) => ps,
        e => std::slice::from_ref(e),
    }
}

/// A* needs unit costs and a goal that pins a mover or fixes a flag. Where
/// a move may slide or teleport past many cells, only the pinned one-cell
/// movers count, on their graphs of far moves (see
/// `search::astar::far_distances`): a flag's or an object's distances on
/// the grid could overestimate a move that goes further.
fn bound(task: &Task) -> Option<Bound> {
    // Carried by tiles, a mover goes further than its steps: no distance
    // on the grid bounds them.
    if !task.unit_costs() || task.moves_after() || task.posed() {
        return None;
    }
    let far = task.far_moves();
    // Per mover, the positions the goal allows (sorted), if it pins it.
    let mut pinned: Vec<Option<Vec<u32>>> = vec![None; task.movers().len()];
    let mut flags = Vec::new();
    for part in conjuncts(task.goal()) {
        let (m, allowed): (usize, Vec<u32>) = match part {
            // An object's member is pushed, not walked: its bound is its
            // pushes.
            Expr::At(m, _) if task.mover(*m).object().is_some() => continue,
            Expr::At(m, _) if far && !task.mover(*m).shape().is_empty() => continue,
            Expr::At(m, set) => {
                let mut ps = Vec::new();
                for (w, &bits) in set.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        ps.push(w as u32 * 64 + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                }
                (m.ix(), ps)
            }
            Expr::Cmp(v, Cmp::Eq, k) => match task.var(*v).kind() {
                VarKind::Position(m) if far && !task.mover(m).shape().is_empty() => continue,
                VarKind::Position(m) => (m.ix(), vec![*k as u32]),
                VarKind::Flag if far => continue,
                VarKind::Flag => {
                    if let Some(f) = flag_bound(task, *v, *k) {
                        flags.push(f);
                    }
                    continue;
                }
                _ => continue,
            },
            _ => continue,
        };
        pinned[m] = Some(match pinned[m].take() {
            None => allowed,
            Some(old) => old
                .into_iter()
                .filter(|p| allowed.binary_search(p).is_ok())
                .collect(),
        });
    }
    let pinned: Vec<(MoverId, Vec<u32>)> = pinned
        .into_iter()
        .enumerate()
        .filter_map(|(i, ps)| {
            let d = task.movers()[i].domain();
            Some((MoverId(i as u32), ps?.iter().map(|&p| d.cell(p)).collect()))
        })
        .collect();
    let objects: Vec<MoverId> = (0..task.movers().len() as u32)
        .map(MoverId)
        .filter(|&m| {
            !far && task
                .mover(m)
                .object()
                .is_some_and(|o| o.pushes_to_goal.is_some())
        })
        .collect();
    if pinned.is_empty() && flags.is_empty() && objects.is_empty() {
        return None;
    }
    let sum = task.mode() == Mode::InTurn;
    let (partitions, free) = if sum && !far {
        pattern_partitions(task, &pinned)
    } else {
        (Vec::new(), 0)
    };
    Some(Bound {
        pinned,
        sum,
        flags,
        objects,
        far,
        partitions,
        free,
        patterns_after: PATTERNS_AFTER,
    })
}

/// States A* or IDA* expands before it builds its pattern tables: a
/// search that ends sooner does without them (they take a second or so
/// to build where they are large).
const PATTERNS_AFTER: u64 = 1 << 18;

/// The cells where some mover may stand, in grid order: with pattern
/// tables that follow the free cells, those not under a mover.
pub fn mover_cells(task: &Task) -> Vec<u32> {
    let mut cells: Vec<u32> = Vec::new();
    for m in task.movers() {
        let d = m.domain();
        cells.extend((0..d.len() as u32).map(|p| d.cell(p)));
    }
    cells.sort_unstable();
    cells.dedup();
    cells
}

/// The most entries of one pattern table (a byte each).
const PATTERN_ENTRIES: u64 = 1 << 24;

/// Whether the pattern table of `k` members following `f` free cells, of
/// the movers' `u` cells, is indexed by the ranks of the placements: where
/// a digit a cell (`u^(k + f)` entries, quicker to compute) would not fit
/// in [`PATTERN_ENTRIES`].
pub fn pattern_dense(u: usize, k: usize, f: usize) -> bool {
    (u as u64)
        .checked_pow((k + f) as u32)
        .is_none_or(|e| e > PATTERN_ENTRIES)
}

/// The entries of the pattern table of `group` following `free` free
/// cells: with none, a placement of each member on each of its positions;
/// with some, a digit for each cell of the placement, or where that does
/// not fit ([`pattern_dense`]), the ranks of the placements on the movers'
/// `u` cells (the members' on distinct cells, `u (u - 1) ... (u - k + 1)`
/// for `k` members, then the free cells' among the rest, C(u - k, free)).
/// Saturates at `u64::MAX`.
pub fn pattern_entries(task: &Task, group: &[MoverId], free: usize) -> u64 {
    if free == 0 {
        return (group.iter())
            .map(|&m| task.mover(m).domain().len() as u64)
            .fold(1, u64::saturating_mul);
    }
    placements(mover_cells(task).len(), group.len(), free)
}

/// The entries of a pattern table of `k` members following `f` free cells
/// on the movers' `u` cells: `u^(k + f)` with a digit a cell, else (where
/// that would not fit: [`pattern_dense`]) the placements, `u (u - 1) ...
/// (u - k + 1)` times C(u - k, f). Saturates at `u64::MAX`.
pub fn placements(u: usize, k: usize, f: usize) -> u64 {
    if k + f > u {
        return u64::MAX;
    }
    let u64_ = |x: usize| x as u64;
    if !pattern_dense(u, k, f) {
        return u64_(u).pow((k + f) as u32);
    }
    let perms = (0..k).map(|i| u64_(u - i)).fold(1, u64::saturating_mul);
    perms.saturating_mul(binomial(u - k, f))
}

/// C(n, r), 0 where r > n; saturates at `u64::MAX`.
pub fn binomial(n: usize, r: usize) -> u64 {
    if r > n {
        return 0;
    }
    // In u128: each step's product fits while the result fits in a u64.
    let c = (0..r as u128).try_fold(1u128, |x, i| {
        let next = x * (n as u128 - i) / (i + 1);
        (next <= u128::from(u64::MAX)).then_some(next)
    });
    c.map_or(u64::MAX, |c| c as u64)
}

/// The pinned movers, in groups whose pattern tables add up to a lower
/// bound on the steps to the goal (in one or two partitions, the larger
/// sum taken), and how many free cells the tables' searches follow (0:
/// none). The tables add up where the movers move in turn, each step
/// moving one of them (none is pushed, carried or scripted) by one cell
/// (no far moves: the caller checks), never two on one cell (`forbid same
/// cell`), each on one cell (no shapes).
///
/// Where every mover is such a one, they stand on at most 64 cells and
/// few of those are free (a sliding puzzle has one), a group's table
/// keeps where the free cells are too and lets the other movers fill the
/// rest, moving at no cost: a member moves only into a free cell. Else the
/// other movers are left out. A table holds at most [`PATTERN_ENTRIES`]
/// placements (of its group's members, and of the free cells).
///
/// A group starts from the first mover left (in the order of the first
/// cells the goal allows them) and takes the mover whose goal is nearest
/// its members' goals, while its table fits: members whose goals are near
/// each other get in each other's way, which is what a table sees. A
/// group of one is left to its distance. The goals are taken in the
/// map's order by rows, and again by columns: where that makes other
/// groups of the same movers, the bound is the larger of the two sums
/// (each a lower bound; their largest is one, consistent too), which
/// sees the interactions that one partition cuts apart.
fn pattern_partitions(
    task: &Task,
    pinned: &[(MoverId, Vec<u32>)],
) -> (Vec<Vec<Vec<MoverId>>>, usize) {
    let simple = |mv: &crate::task::Mover| {
        !mv.moved_by_others() && mv.shape().is_empty() && !mv.domain().is_grid()
    };
    let none = (Vec::new(), 0);
    if !task.forbid_same_cell()
        || pinned.len() < 2
        || !pinned.iter().all(|(m, _)| simple(task.mover(*m)))
    {
        return none;
    }
    // Following the free cells where there is room for it, else not.
    let mut free = 0;
    let mut rows = Vec::new();
    if task.movers().iter().all(simple) {
        let cells = mover_cells(task).len();
        let left = cells - task.movers().len();
        if left > 0 && cells <= 64 {
            rows = partition(task, pinned, left, false);
            if !rows.is_empty() {
                free = left;
            }
        }
    }
    if rows.is_empty() {
        rows = partition(task, pinned, 0, false);
    }
    if rows.is_empty() {
        return none;
    }
    let columns = partition(task, pinned, free, true);
    // Groups are sorted: the same groups in another order are the same
    // partition.
    let sorted = |p: &Vec<Vec<MoverId>>| {
        let mut groups = p.clone();
        groups.sort();
        groups
    };
    let members = |p: &Vec<Vec<MoverId>>| {
        let mut all: Vec<MoverId> = p.iter().flatten().copied().collect();
        all.sort_unstable();
        all
    };
    let other = members(&columns) == members(&rows) && sorted(&columns) != sorted(&rows);
    let mut partitions = vec![rows];
    if other {
        partitions.push(columns);
    }
    (partitions, free)
}

/// Pinned movers in groups whose tables (following `free` free cells)
/// have at most [`PATTERN_ENTRIES`] entries, by the greedy rule of
/// [`pattern_partitions`], their goals taken in the map's order by rows,
/// or by columns (`columns`); groups of one left out. Each group's
/// members are in the order of their ids, so that a group that two
/// partitions share is one table (the tables' cache knows a group by its
/// members in order).
fn partition(
    task: &Task,
    pinned: &[(MoverId, Vec<u32>)],
    free: usize,
    columns: bool,
) -> Vec<Vec<MoverId>> {
    // Each mover's first goal cell, on the map (row and column swapped by
    // columns).
    let goal_of = |m: MoverId| {
        let goal = &pinned.iter().find(|(p, _)| *p == m).expect("pinned").1;
        let (r, c) = task.board().coords(*goal.iter().min()?);
        Some(if columns { (c, r) } else { (r, c) })
    };
    let mut left: Vec<(Option<(i64, i64)>, MoverId)> =
        pinned.iter().map(|(m, _)| (goal_of(*m), *m)).collect();
    left.sort();
    let apart = |a: &Option<(i64, i64)>, b: &Option<(i64, i64)>| match (a, b) {
        (Some(a), Some(b)) => (a.0 - b.0).abs() + (a.1 - b.1).abs(),
        _ => i64::MAX / 64,
    };
    let mut groups: Vec<Vec<MoverId>> = Vec::new();
    while !left.is_empty() {
        // A group starts from the first mover left and takes the one
        // whose goal is nearest its members' while its table fits.
        let (first_goal, first) = left.remove(0);
        let mut goals = vec![first_goal];
        let mut group = vec![first];
        loop {
            // Nearest to a member, then to all (a compact group), then
            // to the first.
            let near = |g: &Option<(i64, i64)>| {
                let all = goals.iter().map(|h| apart(g, h));
                (all.clone().min(), all.sum::<i64>(), apart(g, &goals[0]))
            };
            let Some(i) = (0..left.len()).min_by_key(|&i| (near(&left[i].0), i)) else {
                break;
            };
            group.push(left[i].1);
            let fits = pattern_entries(task, &group, free) <= PATTERN_ENTRIES;
            group.pop();
            if !fits {
                break;
            }
            let (g, m) = left.remove(i);
            goals.push(g);
            group.push(m);
        }
        groups.push(group);
    }
    groups.retain(|g| g.len() > 1);
    for g in &mut groups {
        g.sort_unstable();
    }
    groups
}

/// The positions where a rule can give flag `var` the value `want`: on
/// entering, standing on, or seeing a cell. `None` when an action's rules
/// can give it wherever the mover is.
fn flag_bound(task: &Task, var: VarId, want: i64) -> Option<FlagBound> {
    let gives = |r: RuleId| {
        task.rule(r)
            .effects
            .iter()
            .any(|e| e.var == var && (e.op == Op::Toggle || e.op == Op::Set(want)))
    };
    if task
        .actions()
        .iter()
        .any(|a| a.rules().iter().any(|&r| gives(r)))
    {
        return None;
    }
    let b = task.board();
    let mut out = Vec::new();
    for (i, m) in task.movers().iter().enumerate() {
        let mid = MoverId(i as u32);
        let mut cells = Vec::new();
        for k in b.class_ids().filter(|&k| b.present(k)) {
            // Arriving on or standing on a cell of the class gives; or
            // seeing one, from the cells that walking outward from it
            // reaches (sight is symmetric).
            let mut here = task.on_enter_any(mid, k).any(gives);
            let mut seen = false;
            for w in m.when() {
                let g = w.by_class[k as usize].is_some_and(gives);
                match w.relation {
                    Relation::On => here |= g,
                    Relation::Sees => seen |= g,
                }
            }
            if here {
                cells.extend_from_slice(b.cells_of(k));
            }
            if seen {
                for &t in b.cells_of(k) {
                    for d in SIGHT {
                        cells.extend(b.sight_line(t, d));
                    }
                }
            }
        }
        // An object is pushed, a body follows, another moves by itself:
        // no distance of their own moves tells when they get there.
        if m.moved_by_others() && !cells.is_empty() {
            // An object gets there by being pushed, which no distance of
            // its own (it has no moves) tells: no bound for this flag.
            return None;
        }
        out.push((mid, cells));
    }
    Some(FlagBound {
        var,
        want,
        gives: out,
    })
}
