//! What a search may spend: states, memory, time. Every engine checks its
//! budget at checkpoints (every few thousand states, and before each large
//! allocation) and, when it is spent, ends the case cleanly with a
//! [`Stopped`] instead of a wrong answer or an abort.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// The limits of each case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// The most states a case may visit.
    pub max_states: Option<u64>,
    /// The most memory the process may hold, in bytes (all the cases it
    /// solves at once together).
    pub max_memory: Option<u64>,
    /// The longest a case may take.
    pub timeout: Option<Duration>,
}

/// Which limit ended a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    States,
    Memory,
    Time,
    /// SIGINT (Ctrl-C).
    Interrupted,
    /// The system gave no more memory (an allocation failed).
    NoMemory,
    /// The case is beyond what the engine packs (a state of more than
    /// 1,024 bits, more than 16 agents at once): stopped before grounding
    /// finished, with a located report.
    Engine,
    /// A process of the distributed search could not be reached, or was
    /// lost.
    Peers,
}

impl Limit {
    /// The limit in words, for a report.
    pub fn describe(self, limits: &Limits) -> String {
        match self {
            Limit::States => format!(
                "the limit of {} states (--max-states)",
                limits.max_states.unwrap_or(0)
            ),
            Limit::Memory => format!(
                "the memory limit of {} (--max-memory)",
                size(limits.max_memory.unwrap_or(0))
            ),
            Limit::Time => format!(
                "the time limit of {} (--timeout)",
                humantime::format_duration(limits.timeout.unwrap_or_default())
            ),
            Limit::Interrupted => "an interrupt (Ctrl-C)".into(),
            Limit::NoMemory => "the system (it had no more memory to give)".into(),
            Limit::Engine => {
                "the engine's size (a state of at most 1,024 bits, at most 16 agents at once)"
                    .into()
            }
            Limit::Peers => "the loss of a process of the distributed search".into(),
        }
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(c: u8) -> Option<Limit> {
        [
            Limit::States,
            Limit::Memory,
            Limit::Time,
            Limit::Interrupted,
            Limit::NoMemory,
            Limit::Engine,
            Limit::Peers,
        ]
        .get(c.checked_sub(1)? as usize)
        .copied()
    }
}

/// Successors an engine generates between two checks of its budget,
/// within one state's expansion or across several: a state with very many
/// successors (sixteen movers at once have 5^16 combinations of moves) is
/// stopped in the middle of its expansion.
pub const CHECK_SUCCESSORS: usize = 1 << 16;

/// Gathers the successors of one state into a vector, within the budget:
/// the vector grows only within the memory limit, and every
/// [`CHECK_SUCCESSORS`] successors the budget is checked. Its
/// [`Sink::push`] is the callback of a successor loop.
pub struct Sink<'b, 'v, T> {
    budget: &'b Budget,
    out: &'v mut Vec<T>,
    states: u64,
    depth: u64,
    /// The length at which the next check is due.
    due: usize,
    /// The length up to which a push needs neither a check nor room: the
    /// smaller of `due` and the capacity.
    until: usize,
    stopped: bool,
}

impl<'b, 'v, T> Sink<'b, 'v, T> {
    /// Gathers into `out` (cleared), `states` and `depth` being what the
    /// checks report.
    pub fn new(budget: &'b Budget, out: &'v mut Vec<T>, states: u64, depth: u64) -> Self {
        out.clear();
        let due = CHECK_SUCCESSORS;
        Sink {
            budget,
            until: due.min(out.capacity()),
            out,
            states,
            depth,
            due,
            stopped: false,
        }
    }

    /// Adds a successor; false when the search must stop.
    #[inline(always)]
    pub fn push(&mut self, x: T) -> bool {
        // The common case, one comparison: room, and no check due.
        if self.out.len() < self.until {
            self.out.push(x);
            return true;
        }
        self.push_cold(x)
    }

    /// Checks the budget or grows the vector, and adds a successor.
    #[cold]
    #[inline(never)]
    fn push_cold(&mut self, x: T) -> bool {
        if self.out.len() >= self.due {
            self.due += CHECK_SUCCESSORS;
            let found = self.states + self.out.len() as u64;
            if self.budget.check(found, self.depth) {
                self.stopped = true;
                return false;
            }
        }
        if !self.budget.grow(self.out, 1) {
            self.stopped = true;
            return false;
        }
        self.until = self.due.min(self.out.capacity());
        self.out.push(x);
        true
    }

    /// True when the budget stopped the search.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

/// How far a stopped search got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    pub limit: Limit,
    /// The depth (or cost) reached.
    pub depth: u64,
    pub states: u64,
    /// The most the process has held in memory so far, in bytes (what the
    /// search took is gone by the time it is said).
    pub memory: u64,
    /// When the case stopped before its search, the memory it would have
    /// needed first, in bytes.
    pub before_search: Option<u64>,
}

/// Set by the SIGINT handler: every search stops at its next checkpoint.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// One case's budget, shared by the threads searching it.
pub struct Budget {
    limits: Limits,
    deadline: Option<Instant>,
    /// The limit that stopped the search, as [`Limit::code`], or 0.
    stop: AtomicU8,
    /// States found so far, as the engine reports them.
    states: AtomicU64,
    depth: AtomicU64,
    /// The frontier's size, as the engine last noted it (for the progress
    /// display).
    frontier: AtomicU64,
    /// When the budget was made, and when (in nanoseconds since) the
    /// process's memory was last read by a check.
    born: Instant,
    memory_read: AtomicU64,
}

/// The least time between two reads of the process's memory by the
/// checks: a read is a system call, and the checks come more often when
/// states have many successors. The memory grows by a few hundred KiB at
/// most in that time.
const MEMORY_EVERY: Duration = Duration::from_millis(1);

/// The smallest allocation weighed against the memory limit on its own.
pub const SMALL: u64 = 1 << 20;

/// How many states an engine handles between two checks of its budget.
pub const CHECK_EVERY: u64 = 4096;

/// When a loop that takes states one at a time checks its budget: after
/// every [`CHECK_EVERY`] states expanded or found, so that a state with
/// many successors brings the check closer.
#[derive(Debug, Default)]
pub struct Pace {
    next: u64,
}

impl Pace {
    /// Whether a check is due, `work` being the states expanded and found
    /// so far.
    #[inline]
    pub fn due(&mut self, work: u64) -> bool {
        if work < self.next {
            return false;
        }
        self.next = work + CHECK_EVERY;
        true
    }
}

impl Budget {
    pub fn new(limits: Limits) -> Self {
        Budget {
            limits,
            deadline: limits.timeout.map(|t| Instant::now() + t),
            stop: AtomicU8::new(0),
            states: AtomicU64::new(0),
            depth: AtomicU64::new(0),
            frontier: AtomicU64::new(0),
            born: Instant::now(),
            memory_read: AtomicU64::new(0),
        }
    }

    /// A budget of the same limits and deadline, apart from this one: for
    /// workers that cannot borrow it (the distributed search's), whose
    /// stop [`Budget::adopt`] brings back.
    pub fn twin(&self) -> Budget {
        Budget {
            limits: self.limits,
            deadline: self.deadline,
            stop: AtomicU8::new(self.stop.load(Relaxed)),
            states: AtomicU64::new(0),
            depth: AtomicU64::new(0),
            frontier: AtomicU64::new(0),
            born: self.born,
            memory_read: AtomicU64::new(0),
        }
    }

    /// Takes a twin's stop and progress.
    pub fn adopt(&self, twin: &Budget) {
        self.stop_code_as(twin.stop_code());
        self.states.fetch_max(twin.states.load(Relaxed), Relaxed);
        self.depth.fetch_max(twin.depth.load(Relaxed), Relaxed);
    }

    /// The limit that stopped the search as a number (0: none), to send
    /// to another process.
    pub fn stop_code(&self) -> u8 {
        self.stop.load(Relaxed)
    }

    /// Stops as the limit of code `c` did elsewhere (0: nothing).
    pub fn stop_code_as(&self, c: u8) {
        if let Some(l) = Limit::from_code(c) {
            self.stop(l);
        }
    }

    /// Stops for `limit`.
    pub fn stop_as(&self, limit: Limit) {
        self.stop(limit);
    }

    /// A budget without limits (for tests and benchmarks).
    pub fn unlimited() -> Self {
        Budget::new(Limits::default())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The limit that stopped the search, if one did.
    pub fn stopped(&self) -> Option<Limit> {
        Limit::from_code(self.stop.load(Relaxed))
    }

    fn stop(&self, limit: Limit) -> bool {
        let _ = self
            .stop
            .compare_exchange(0, limit.code(), Relaxed, Relaxed);
        true
    }

    /// Notes the size of the frontier (a level, or an open list): what the
    /// progress display shows.
    #[inline]
    pub fn note_frontier(&self, n: usize) {
        self.frontier.store(n as u64, Relaxed);
    }

    /// How far the search has got: the states found, the depth, the
    /// frontier, as last noted, and the time since the budget was made.
    pub fn progress(&self) -> (u64, u64, u64, Duration) {
        (
            self.states.load(Relaxed),
            self.depth.load(Relaxed),
            self.frontier.load(Relaxed),
            self.born.elapsed(),
        )
    }

    /// Notes the states found so far and the depth reached; true when the
    /// search must stop (the budget is spent, or was before).
    pub fn check(&self, states: u64, depth: u64) -> bool {
        if self.check_but_memory(states, depth) {
            return true;
        }
        if let Some(m) = self.limits.max_memory
            && self.memory_due()
            && resident() > m
        {
            return self.stop(Limit::Memory);
        }
        false
    }

    /// [`Budget::check`] for a search whose memory does not grow with the
    /// states it finds (IDA*: the way it is on): every limit but the
    /// memory's, which its allocations meet when they are made.
    pub fn check_but_memory(&self, states: u64, depth: u64) -> bool {
        self.states.fetch_max(states, Relaxed);
        self.depth.fetch_max(depth, Relaxed);
        if self.stop.load(Relaxed) != 0 {
            return true;
        }
        if INTERRUPTED.load(Relaxed) {
            return self.stop(Limit::Interrupted);
        }
        if self.limits.max_states.is_some_and(|m| states > m) {
            return self.stop(Limit::States);
        }
        self.deadline.is_some_and(|d| Instant::now() >= d) && self.stop(Limit::Time)
    }

    /// Checks the budget between the phases of a case and in the loops that
    /// build its tables, before the search counts states: true when the
    /// case must stop (a deadline, Ctrl-C or the memory limit passed while
    /// a large map's tables were being built).
    pub fn poll(&self) -> bool {
        self.check(self.states.load(Relaxed), self.depth.load(Relaxed))
    }

    /// Whether a check is to read the process's memory: the first, and
    /// then one every [`MEMORY_EVERY`] (whichever thread comes first).
    fn memory_due(&self) -> bool {
        let now = self.born.elapsed().as_nanos() as u64;
        let last = self.memory_read.load(Relaxed);
        let due = last == 0 || now.saturating_sub(last) >= MEMORY_EVERY.as_nanos() as u64;
        due && self
            .memory_read
            .compare_exchange(last, now.max(1), Relaxed, Relaxed)
            .is_ok()
    }

    /// Whether `bytes` more may be allocated within the memory limit; stops
    /// the search if not. An allocation under [`SMALL`] is not weighed on
    /// its own (reading the process's memory costs a system call, and small
    /// vectors grow often): the regular checks see what such allocations
    /// add up to.
    pub fn reserve(&self, bytes: u64) -> bool {
        self.fits(bytes) || !self.stop(Limit::Memory)
    }

    /// Whether `bytes` more fit within the memory limit, as
    /// [`Budget::reserve`] weighs them, without stopping the search if not
    /// (for memory a search can do without).
    pub fn fits(&self, bytes: u64) -> bool {
        match self.limits.max_memory {
            Some(m) => bytes < SMALL || resident().saturating_add(bytes) <= m,
            None => true,
        }
    }

    /// Whether `bytes` more may be allocated, within the memory limit and
    /// from the system (tried, and given back at once: an allocation the
    /// system would refuse later aborts the process); stops the search if
    /// not.
    pub fn afford(&self, bytes: u64) -> bool {
        if !self.reserve(bytes) {
            return false;
        }
        if bytes >= SMALL && Vec::<u8>::new().try_reserve_exact(bytes as usize).is_err() {
            self.out_of_memory();
            return false;
        }
        true
    }

    /// Makes room in `v` for `least` more items: when it has less, grows it
    /// by its length at least (as pushing would), within the memory limit.
    /// False, and the search stops, when there is no room: nothing is
    /// allocated that the system cannot give, so a search never aborts.
    #[inline]
    pub fn grow<T>(&self, v: &mut Vec<T>, least: usize) -> bool {
        v.capacity() - v.len() >= least || self.grow_cold(v, least)
    }

    #[cold]
    #[inline(never)]
    fn grow_cold<T>(&self, v: &mut Vec<T>, least: usize) -> bool {
        let more = v.len().max(least);
        if !self.reserve((more * std::mem::size_of::<T>()) as u64) {
            return false;
        }
        if v.try_reserve(more).is_err() {
            self.out_of_memory();
            return false;
        }
        true
    }

    /// Stops the search at what the engine holds (a total cost past 32
    /// bits).
    pub fn beyond_engine(&self) {
        self.stop(Limit::Engine);
    }

    /// Stops the search because an allocation failed.
    pub fn out_of_memory(&self) {
        self.stop(Limit::NoMemory);
    }

    /// How far the search got, if it stopped.
    pub fn report(&self) -> Option<Stopped> {
        Some(Stopped {
            limit: self.stopped()?,
            depth: self.depth.load(Relaxed),
            states: self.states.load(Relaxed),
            memory: peak().max(resident()),
            before_search: None,
        })
    }
}

/// The process's resident memory in bytes (Linux; 0 elsewhere).
pub fn resident() -> u64 {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * crate::mapped::page_size() as u64
}

/// The most resident memory the process has held so far, in bytes
/// (Linux: `VmHWM`; 0 elsewhere).
pub fn peak() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// The machine's physical memory in bytes, if known (Linux).
pub fn physical() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory this process may have, if known: the machine's, or less
/// where a container's limit (cgroup v2 `memory.max`, v1
/// `memory.limit_in_bytes`) says so.
pub fn available() -> Option<u64> {
    let cgroup = cgroup_limit();
    match (physical(), cgroup) {
        (Some(p), Some(c)) => Some(p.min(c)),
        (p, c) => p.or(c),
    }
}

/// The memory limit of this process's cgroup, if it has one.
fn cgroup_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // A container often sees its own group at the root of the mount.
    let mut files = vec![
        "/sys/fs/cgroup/memory.max".to_string(),
        "/sys/fs/cgroup/memory/memory.limit_in_bytes".to_string(),
    ];
    for line in groups.lines() {
        // `0::/path` (v2), `N:memory:/path` (v1).
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let file = if controllers.is_empty() {
            format!("/sys/fs/cgroup{path}/memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")
        } else {
            continue;
        };
        files.push(file);
    }
    // "max" (v2) is no limit; v1 says none with a huge number.
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok()?.trim().parse::<u64>().ok())
        .filter(|&v| v < 1 << 60)
        .min()
}

/// The process's address-space limit (`ulimit -v`), if one is set.
pub fn address_space() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes only the struct it is given.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
        (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
    }
    #[cfg(not(unix))]
    None
}

/// The default `--max-memory`: three quarters of the memory this process
/// may have (the machine's, or its container's), and under an
/// address-space limit (`ulimit -v`) half of that limit. Addresses are
/// reserved well beyond what is resident (thread stacks, the allocator's
/// arenas, the binary), and an allocation the system refuses outside a
/// search aborts the process; a search that stops at half ends its case
/// cleanly instead.
pub fn default_max_memory() -> Option<u64> {
    let room = available().map(|m| m / 4 * 3);
    match (room, address_space()) {
        (Some(r), Some(a)) => Some(r.min(a / 2)),
        (r, a) => r.or(a.map(|a| a / 2)),
    }
}

/// A size in bytes, for people: `512 KiB`, `3.2 GiB`.
pub fn size(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stop is read back as the limit that made it, for every limit: a
    /// limit lost here would report a stopped search as one without a
    /// solution.
    #[test]
    fn every_limit_is_read_back() {
        for limit in [
            Limit::States,
            Limit::Memory,
            Limit::Time,
            Limit::Interrupted,
            Limit::NoMemory,
        ] {
            let b = Budget::unlimited();
            assert_eq!(b.stopped(), None);
            b.stop(limit);
            assert_eq!(b.stopped(), Some(limit));
            assert!(b.check(0, 0), "a stopped budget stays stopped");
            assert_eq!(b.report().map(|r| r.limit), Some(limit));
        }
    }

    /// A sink gathers every successor when the budget has room, and stops
    /// at the check after the state limit.
    #[test]
    fn a_sink_stops_at_the_state_limit() {
        let b = Budget::unlimited();
        let mut v = Vec::new();
        let mut sink = Sink::new(&b, &mut v, 0, 0);
        assert!((0..3 * CHECK_SUCCESSORS as u32).all(|i| sink.push(i)));
        assert!(!sink.stopped());
        assert_eq!(v.len(), 3 * CHECK_SUCCESSORS);

        let b = Budget::new(Limits {
            max_states: Some(100),
            ..Limits::default()
        });
        let mut sink = Sink::new(&b, &mut v, 0, 0);
        let pushed = (0..3 * CHECK_SUCCESSORS as u32)
            .take_while(|&i| sink.push(i))
            .count();
        assert!(sink.stopped());
        assert_eq!(pushed, CHECK_SUCCESSORS);
        assert_eq!(b.stopped(), Some(Limit::States));
    }
}
