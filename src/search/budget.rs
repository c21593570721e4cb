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
            Limit::NoMemory => "the system, which had no more memory to give".into(),
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
        ]
        .get(c.checked_sub(1)? as usize)
        .copied()
    }
}

/// How far a stopped search got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped {
    pub limit: Limit,
    /// The depth (or cost) reached.
    pub depth: u64,
    pub states: u64,
    /// The process's resident memory then, in bytes.
    pub memory: u64,
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
}

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
        }
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

    /// Notes the states found so far and the depth reached; true when the
    /// search must stop (the budget is spent, or was before).
    pub fn check(&self, states: u64, depth: u64) -> bool {
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
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return self.stop(Limit::Time);
        }
        if let Some(m) = self.limits.max_memory
            && resident() > m
        {
            return self.stop(Limit::Memory);
        }
        false
    }

    /// Whether `bytes` more may be allocated within the memory limit; stops
    /// the search if not.
    pub fn reserve(&self, bytes: u64) -> bool {
        match self.limits.max_memory {
            Some(m) if resident().saturating_add(bytes) > m => !self.stop(Limit::Memory),
            _ => true,
        }
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
            memory: resident(),
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
    pages * 4096
}

/// The machine's physical memory in bytes, if known (Linux).
pub fn physical() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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
