//! What the process sets up before a command runs: the allocator's
//! options, the one thread pool, the Ctrl-C handler, and a look at whether
//! stdout exists at all.

use crate::say::{Notice, notice};
use std::sync::atomic::Ordering::Relaxed;

/// Ctrl-C stops the case running at its next checkpoint; a second one ends
/// the process at once.
pub fn on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        if puzzle::budget::INTERRUPTED.swap(true, Relaxed) {
            std::process::exit(130);
        }
    });
}

/// A process of a distributed search that loses another (it died, or its
/// connection broke) ends at once with exit code 3 and one line saying so:
/// timely's network threads panic on a broken connection, and the workers
/// would then wait for messages that never come. The answers printed
/// before are already written (each case's are flushed).
pub fn on_lost_peer() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        if !thread.name().is_some_and(|n| n.starts_with("timely:")) {
            return before(info);
        }
        let payload = info.payload();
        let why = (payload.downcast_ref::<String>().map(String::as_str))
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("a worker failed");
        notice(
            Notice::Error,
            "puzzle::cluster::lost",
            &format!(
                "the distributed search lost a process ({why}): this case is not answered, and \
                 the run ends here"
            ),
        );
        std::process::exit(3);
    }));
}

/// Starts the one thread pool of the run and says how many threads it has.
/// More threads than the machine has cores only take turns on them (a
/// thousand took seconds to start and to pass work between): they are cut
/// to the cores, with a note. Under an address-space limit (`ulimit -v`)
/// they are cut to one per 64 MiB of it, with a note; and where the system
/// still cannot give them (no room for their stacks), fewer are started,
/// down to one, with a note: the run goes on.
/// One thread never uses the pool: it is not started (a thread spun up for
/// nothing costs a short run a millisecond).
pub fn start_threads(asked: Option<u16>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = asked.map_or(cores, usize::from);
    if threads > cores {
        notice(
            Notice::Note,
            "puzzle::run::threads",
            &format!("--threads {threads}: this machine has {cores} cores; using {cores}"),
        );
        threads = cores;
    }
    // Under an address-space limit (`ulimit -v`), a thread's stack (8 MiB)
    // and the allocator's segments for its heap need room beside what the
    // search's budget (half the limit) and the allocator's arena (a
    // quarter) take: one thread per 64 MiB of the limit. Two threads under
    // a 100 MB limit aborted in an allocation, one run in three, where
    // their pool had started.
    if let Some(limit) = puzzle::budget::address_space() {
        let room = usize::try_from(limit >> 26).unwrap_or(usize::MAX).max(1);
        if threads > room {
            notice(
                Notice::Note,
                "puzzle::run::threads",
                &format!(
                    "--threads {threads}: the address-space limit (ulimit -v) leaves room for \
                     {room}; using {room}"
                ),
            );
            threads = room;
        }
    }
    let pool = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            // The main thread's size: nothing a checked rule file holds
            // recurses deeper than its brackets (at most 64).
            .stack_size(8 << 20)
    };
    // Tried first as a pool of its own: rayon's global pool can be set
    // once, and a failed attempt leaves it unset for good (nothing of the
    // library touches it with one thread).
    while threads > 1 {
        match pool(threads).build() {
            Ok(trial) => {
                drop(trial);
                match pool(threads).build_global() {
                    Ok(()) => break,
                    Err(e) => {
                        notice(
                            Notice::Note,
                            "puzzle::run::threads",
                            &format!("cannot start {threads} threads ({e}); using 1"),
                        );
                        threads = 1;
                    }
                }
            }
            Err(e) => {
                let fewer = threads / 2;
                notice(
                    Notice::Note,
                    "puzzle::run::threads",
                    &format!("cannot start {threads} threads ({e}); trying {fewer}"),
                );
                threads = fewer;
            }
        }
    }
    threads.max(1)
}

/// No transparent huge pages for this process. mimalloc asks for them on
/// its arenas (unless built with `no_thp`, as here), and then every heap
/// (one per thread) faults its memory in 2 MiB at a time: two threads on a
/// large search held 1.5 times the memory of one, and hide-and-seek's 199
/// small maps peaked at 20 MB. Without them it is 1.05 times, and 12 MB;
/// the time is the same. The flag also keeps a system whose huge pages are
/// `always` on from doing the same.
///
/// And memory freed goes back to the system after 10 ms, not a second: a
/// map of millions of cells frees its tables just before the next map
/// builds its own, and the delay held both (the ice benchmark peaked at 49
/// MB instead of 33). At once (0 ms) holds no less there, and costs time
/// where a search frees and grows its levels (portals: some 20%); small
/// maps reuse their freed pages before any purge, and the founding
/// benchmarks' page faults and times are the same with any of these.
pub fn allocator_setup() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    // (A delay set in the environment is mimalloc's own setting: kept.)
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: setting an option is allowed at any time.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 10) };
    }
    // Under an address-space limit (`ulimit -v`), mimalloc's first arena
    // (1 GiB of addresses) cannot be reserved, and the segments it takes
    // one by one instead fragment the little room there is: a 4 MiB
    // allocation then failed (an abort) under a 100 MB limit, one run in
    // a few. An arena of a quarter of the limit, reserved at once, holds
    // what the search's budget (half the limit) lets it allocate.
    if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none()
        && let Some(limit) = puzzle::budget::address_space()
    {
        let kib = (limit / 4 / 1024).max(1024);
        // SAFETY: setting an option is allowed at any time.
        unsafe { libmimalloc_sys::mi_option_set(ARENA_RESERVE, kib as std::ffi::c_long) };
    }
}

/// `mi_option_arena_reserve` (in KiB), which the bindings do not name: in
/// mimalloc.h (v2 and v3) seven places after `mi_option_use_numa_nodes`
/// (tested below by its default, 1 GiB).
const ARENA_RESERVE: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes + 7;

/// `mi_option_purge_delay`, which the bindings do not name: in mimalloc.h
/// (v2 and v3) it is the option just before `mi_option_use_numa_nodes`
/// (tested below by its default).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = libmimalloc_sys::mi_option_use_numa_nodes - 1;

/// Whether the process was started with no stdout at all (`>&-`). Rust's
/// runtime opens `/dev/null` in place of a closed standard descriptor
/// before `main`, so the answers would be written to nothing with exit
/// code 0; the descriptor is therefore looked at before the runtime starts,
/// by a function the C library runs first (`.init_array`).
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Relaxed)
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static LOOK_AT_STDOUT: extern "C" fn() = {
    extern "C" fn look() {
        // SAFETY: F_GETFD only reads the descriptor's flags.
        let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, Relaxed);
    }
    look
};

/// Reports in colour or not, as `--color` says (`auto`: miette's own
/// choice, a terminal without `NO_COLOR`).
pub fn colours(choice: crate::cli::ColorArg) {
    let color = match choice {
        crate::cli::ColorArg::Auto => return,
        crate::cli::ColorArg::Always => true,
        crate::cli::ColorArg::Never => false,
    };
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(miette::MietteHandlerOpts::new().color(color).build())
    }));
}

#[cfg(test)]
mod tests {
    /// The option set is the purge delay: the only one whose default is
    /// mimalloc v3's second (1000 ms), unless the environment sets it.
    #[test]
    fn the_purge_delay_is_the_option_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            eprintln!("MIMALLOC_PURGE_DELAY is set: its default cannot be read");
            return;
        }
        // SAFETY: reading an option is allowed at any time.
        let got = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        assert_eq!(got, 1000);
    }

    /// The arena reserve is the option its name says: its default is
    /// 1 GiB, in KiB.
    #[test]
    fn the_arena_reserve_is_the_option_set() {
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_some() {
            eprintln!("MIMALLOC_ARENA_RESERVE is set: its default cannot be read");
            return;
        }
        // SAFETY: reading an option is allowed at any time.
        let got = unsafe { libmimalloc_sys::mi_option_get(super::ARENA_RESERVE) };
        assert_eq!(got, 1 << 20);
    }
}
