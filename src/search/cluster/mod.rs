//! Breadth-first search spread over workers, in threads and processes, on
//! timely dataflow: each state has an owner (a hash of the packed state,
//! the same in every process; or, where the plan ranks the states into
//! rows, the piece of the ranks it lies in: `layered`), which alone
//! keeps it in its share of the states seen. Level by level, every worker
//! expands the new states it owns with the plan's kernel and sends each
//! successor to its owner (timely's exchange); timely's progress tracking says when every worker
//! has sent all of a level, and the owners keep the successors they had
//! not seen as the next level.
//!
//! With the successors, each worker sends every worker a report of the
//! level: whether a state of it was a goal, how many it expanded, whether
//! a limit stopped it. So every worker takes the same decision after each
//! level: an answer (the first level holding a goal, as the local
//! breadth-first search finds it), no way (a level with no state), or a
//! stop (a limit passed on any worker). No worker waits on one that has
//! left.
//!
//! Every process reads the same rule file and input and makes the same
//! task and plan, so the kernels agree; each process searches each case
//! with its own timely computation, the processes joining through the
//! hostfile's addresses.

use crate::budget::{Budget, CHECK_EVERY, Limit};
use crate::kernel::Kernel;
use crate::pack::Word;
use crate::plan::{Cluster, Plan, Store};
use crate::solution::Solution;
use crate::task::Task;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};
use timely::WorkerConfig;
use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

mod layered;

/// A packed state of at most 128 bits as it travels between workers.
pub trait Travels: Word + timely::ExchangeData {
    fn out(self) -> u128;
}

macro_rules! travels {
    ($($t:ty),*) => {$(
        impl Travels for $t {
            fn out(self) -> u128 {
                self as u128
            }
        }
    )*};
}
travels!(u32, u64, u128);

/// The input of records (states, or words of a bitset), each sent to its
/// owner.
type States<D> = InputHandle<u64, CapacityContainerBuilder<Vec<D>>>;
/// The input of reports, each sent to the worker it names.
type Reports = InputHandle<u64, CapacityContainerBuilder<Vec<(u64, Report)>>>;

/// What a worker says of a level to every worker.
#[derive(Clone, Copy, Default, Debug, serde::Serialize, serde::Deserialize)]
struct Report {
    /// States of the level that this worker owns.
    level: u64,
    /// A state of the level is a goal (the starts: later levels' states
    /// were tested as they were made).
    goal: bool,
    /// A successor this worker made is a goal: the next level holds one.
    made_goal: bool,
    expanded: u64,
    generated: u64,
    /// States this worker has seen, the level's included.
    seen: u64,
    /// The limit that stopped it, as [`Budget::stop_code`] (0: none).
    stopped: u8,
    /// States it sent to other workers.
    sent: u64,
}

/// The owner of a state: a hash of its bits, the same in every process
/// (a fixed mixing function, not the hasher of a map).
fn route(x: u128) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(x as u64 ^ mix((x >> 64) as u64))
}

/// The search of `task` under `plan` on the workers of `cluster`; the
/// limits are `budget`'s (each process checks its own memory), and a
/// limit that stops the search is noted on it. A process of the cluster
/// that cannot be reached, or is lost during the search, stops the case
/// ([`Limit::Peers`]).
pub fn bfs<W: Travels>(task: &Task, plan: &Plan, budget: &Budget, cluster: &Cluster) -> Solution {
    // The workers' closure outlives this call's borrows (timely asks for
    // `'static`): they share copies.
    let shared = Arc::new((task.clone(), plan.clone(), budget.twin()));
    let work = {
        let shared = shared.clone();
        move |worker: &mut timely::worker::Worker| {
            let (task, plan, budget) = &*shared;
            worker_bfs::<W>(worker, task, plan, budget)
        }
    };
    if LOST.load(Relaxed) {
        return lost(budget, "the processes could not be joined before");
    }
    let outcome = match builders(cluster, budget) {
        Ok((builders, guard)) => {
            timely::execute::execute_from(builders, guard, WorkerConfig::default(), work)
                .map(|guards| guards.join())
        }
        Err(e) => Err(e),
    };
    budget.adopt(&shared.2);
    // Every worker took the same decisions: the first says them.
    match outcome.map(|results| results.into_iter().next()) {
        Ok(Some(Ok(sol))) => sol,
        Ok(Some(Err(e))) | Err(e) => lost(budget, e.as_ref()),
        Ok(None) => lost(budget, "no worker ran"),
    }
}

/// Set once the processes could not be joined: the cases after do not
/// wait for them again.
static LOST: AtomicBool = AtomicBool::new(false);

/// A case stopped because the cluster failed: said on stderr, once a run.
fn lost(budget: &Budget, why: &str) -> Solution {
    if !LOST.swap(true, Relaxed) {
        eprintln!("puzzle: the distributed search failed: {why}");
    }
    budget.stop_as(Limit::Peers);
    Solution::stopped(budget)
}

/// How long a process waits for the others to connect (each case's
/// search connects anew): then the case stops.
const CONNECT_WITHIN: Duration = Duration::from_secs(30);

/// The workers' allocators: threads of this process, and with several
/// processes, connections to each of the others (made here: timely's own
/// set-up retries for ever and writes to stdout, where the answers go).
fn builders(
    cluster: &Cluster,
    budget: &Budget,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    let hooks = Hooks::default();
    let threads = cluster.workers.max(1);
    if cluster.processes() <= 1 {
        let builders = ProcessBuilder::new_typed_vector(threads, hooks.refill, hooks.spill);
        let builders = builders
            .into_iter()
            .map(AllocatorBuilder::Process)
            .collect();
        return Ok((builders, Box::new(())));
    }
    let sockets = connect(cluster, budget)?;
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, cluster.process, threads, hooks)
            .map_err(|e| format!("the connections to the other processes: {e}"))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    Ok((builders, Box::new(guard)))
}

/// A connection to every other process of the cluster (`None` for this
/// one): this process connects to those before it in the hostfile and
/// takes connections from those after it, each saying its index first.
fn connect(cluster: &Cluster, budget: &Budget) -> Result<Vec<Option<TcpStream>>, String> {
    let me = cluster.process;
    let n = cluster.processes();
    let until = Instant::now() + CONNECT_WITHIN;
    let late = |what: String| {
        if budget.poll() {
            return Some("a limit passed while connecting".to_string());
        }
        (Instant::now() > until).then(|| format!("{what} within {CONNECT_WITHIN:?}"))
    };
    let mut out: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    let listener = (me + 1 < n)
        .then(|| {
            let at = &cluster.addresses[me];
            let l = TcpListener::bind(at).map_err(|e| format!("cannot listen at {at}: {e}"))?;
            l.set_nonblocking(true).map_err(|e| e.to_string())?;
            Ok::<_, String>(l)
        })
        .transpose()?;
    for (i, at) in cluster.addresses.iter().enumerate().take(me) {
        loop {
            match TcpStream::connect(at) {
                Ok(mut s) => {
                    s.set_nodelay(true).map_err(|e| e.to_string())?;
                    s.write_all(&(me as u64).to_le_bytes())
                        .map_err(|e| format!("process {i} at {at}: {e}"))?;
                    out[i] = Some(s);
                    break;
                }
                Err(e) => {
                    if let Some(why) = late(format!("process {i} at {at} did not answer ({e})")) {
                        return Err(why);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }
    if let Some(l) = listener {
        while out.iter().enumerate().any(|(i, s)| i > me && s.is_none()) {
            match l.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).map_err(|e| e.to_string())?;
                    s.set_nodelay(true).map_err(|e| e.to_string())?;
                    let mut who = [0u8; 8];
                    s.read_exact(&mut who).map_err(|e| e.to_string())?;
                    let who = u64::from_le_bytes(who) as usize;
                    if who <= me || who >= n {
                        return Err(format!(
                            "a connection from process {who}, not one after {me}"
                        ));
                    }
                    out[who] = Some(s);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let waiting = (me + 1..n).filter(|&i| out[i].is_none());
                    let names: Vec<String> = waiting.map(|i| i.to_string()).collect();
                    if let Some(why) = late(format!("process {} did not connect", names.join(", ")))
                    {
                        return Err(why);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(format!("accepting a connection: {e}")),
            }
        }
    }
    Ok(out)
}

/// A worker's ends of the dataflow: the inputs it sends states and reports
/// on, what it was sent (by the round it was sent in: a worker waiting for
/// a round to end may already be sent the next one's), and the probes
/// that say when a round is over.
struct Wires<D: timely::ExchangeData + Copy> {
    states: States<D>,
    reports: Reports,
    probe: ProbeHandle<u64>,
    heard: ProbeHandle<u64>,
    inbox: Inbox<D>,
    said: Rc<RefCell<BTreeMap<u64, Vec<Report>>>>,
    round: u64,
}

impl<D: timely::ExchangeData + Copy> Wires<D> {
    /// The dataflow: records exchanged to their owners (`owner`, taken
    /// modulo the workers), reports to the workers they name, each kept by
    /// the round.
    fn new(
        worker: &mut timely::worker::Worker,
        owner: impl FnMut(&D) -> u64 + 'static,
    ) -> Wires<D> {
        let mut w = Wires {
            states: InputHandle::new(),
            reports: InputHandle::new(),
            probe: ProbeHandle::new(),
            heard: ProbeHandle::new(),
            inbox: Rc::default(),
            said: Rc::default(),
            round: 0,
        };
        worker.dataflow::<u64, _, _>(|scope| {
            let inbox = w.inbox.clone();
            scope
                .input_from(&mut w.states)
                .container::<Vec<_>>()
                .exchange(owner)
                .inspect_core(move |event| {
                    if let Ok((stamp, data)) = event {
                        let at = stamp.least().copied().unwrap_or_default();
                        inbox.borrow_mut().entry(at).or_default().extend(data);
                    }
                })
                .probe_with(&w.probe);
            let said = w.said.clone();
            scope
                .input_from(&mut w.reports)
                .container::<Vec<_>>()
                .exchange(|(to, _)| *to)
                .inspect_core(move |event| {
                    if let Ok((stamp, data)) = event {
                        let at = stamp.least().copied().unwrap_or_default();
                        let mut said = said.borrow_mut();
                        said.entry(at)
                            .or_default()
                            .extend(data.iter().map(|(_, r)| *r));
                    }
                })
                .probe_with(&w.heard);
        });
        w
    }

    /// Ends the round (what was sent in it goes), waits for every
    /// worker's; the time its data was sent at. `take` is given the inbox
    /// and that time as data comes in, and once more at the end.
    fn next_round(&mut self, worker: &mut timely::worker::Worker, mut take: impl Take<D>) -> u64 {
        self.round += 1;
        self.states.advance_to(self.round);
        self.reports.advance_to(self.round);
        let (probe, heard, round) = (&self.probe, &self.heard, self.round);
        let inbox = &self.inbox;
        worker.step_while(|| {
            take(inbox, round - 1);
            probe.less_than(&round) || heard.less_than(&round)
        });
        take(inbox, round - 1);
        round - 1
    }
}

/// A count summed over every worker's report.
fn sum_of(all: &[Report], f: fn(&Report) -> u64) -> u64 {
    all.iter().map(f).sum()
}

/// Adds the bytes the workers sent in a round, records of `D` (in all,
/// and the most in a level), to `out`.
fn count_sent<D>(out: &mut Solution, all: &[Report]) {
    let sent = sum_of(all, |r| r.sent) * std::mem::size_of::<D>() as u64;
    let exchanged = out.exchanged.get_or_insert_default();
    exchanged.bytes += sent;
    exchanged.most = exchanged.most.max(sent);
}

/// Whether a worker's report says a limit stopped it: then noted on
/// `budget`, the same limit everywhere, so that every process says it.
fn stopped(all: &[Report], budget: &Budget) -> bool {
    let Some(r) = all.iter().find(|r| r.stopped > 0) else {
        return false;
    };
    budget.stop_code_as(r.stopped);
    true
}

/// What takes a round's data from the inbox as it comes (or leaves it
/// there): the inbox and the round's time.
trait Take<D>: FnMut(&Inbox<D>, u64) {}
impl<D, F: FnMut(&Inbox<D>, u64)> Take<D> for F {}

/// What a worker was sent, by the round it was sent in.
type Inbox<D> = Rc<RefCell<BTreeMap<u64, Vec<D>>>>;

/// Leaves a round's data in the inbox.
fn keep_all<D>(_: &Inbox<D>, _: u64) {}

/// Sends `report` to every worker and ends the round (`take` as for
/// [`Wires::next_round`]): the round's time (what was sent in it and not
/// taken is in the inbox under it) and every worker's report of it;
/// `None`, the case stopped, if one is missing.
fn tell<D: timely::ExchangeData + Copy>(
    wires: &mut Wires<D>,
    worker: &mut timely::worker::Worker,
    report: Report,
    (budget, take): (&Budget, impl Take<D>),
) -> Option<(u64, Vec<Report>)> {
    let peers = worker.peers();
    for to in 0..peers as u64 {
        wires.reports.send((to, report));
    }
    let at = wires.next_round(worker, take);
    let all = wires.said.borrow_mut().remove(&at).unwrap_or_default();
    if all.len() != peers {
        // Never expected: timely delivers every report of a round before
        // its end. Stopped, not answered wrongly.
        budget.stop_as(Limit::Peers);
        return None;
    }
    Some((at, all))
}

/// What a worker remembers of states: those it owns and has seen, and
/// those of other workers it has sent to their owners (each is sent once
/// a level at most, or once ever where the space allows).
trait Memory<W> {
    /// A state this worker owns, received or made here: true when it is
    /// new (it is kept from now on).
    fn own(&mut self, s: W) -> bool;
    /// A state another worker owns, made here: true when it must be sent.
    fn send(&mut self, s: W) -> bool;
    /// A level is over.
    fn level_done(&mut self);
    /// States this worker owns and has seen.
    fn seen(&self) -> u64;
    /// Asks the cache for where `s` is kept, to be tested soon.
    fn prefetch(&self, _s: W) {}
}

/// A bit a packed value: set for a state this worker owns and has seen,
/// or owns not and has sent (the owner keeps every state it is sent, so
/// a state sent once never needs to be sent again). Where the packed
/// values are few enough ([`crate::plan::Store::Bitset`]).
struct Bits {
    words: Vec<u64>,
    seen: u64,
}

impl Bits {
    fn new(bits: u32) -> Bits {
        // Zeroed by the allocator (pages untouched until used).
        Bits {
            words: vec![0; (1usize << bits).div_ceil(64)],
            seen: 0,
        }
    }
    #[inline(always)]
    fn mark(&mut self, i: u64) -> bool {
        let (w, b) = ((i >> 6) as usize, 1u64 << (i & 63));
        let new = self.words[w] & b == 0;
        self.words[w] |= b;
        new
    }
}

impl<W: Word> Memory<W> for Bits {
    #[inline(always)]
    fn own(&mut self, s: W) -> bool {
        let new = self.mark(s.low());
        self.seen += u64::from(new);
        new
    }
    #[inline(always)]
    fn send(&mut self, s: W) -> bool {
        self.mark(s.low())
    }
    fn level_done(&mut self) {}
    fn seen(&self) -> u64 {
        self.seen
    }
    #[inline(always)]
    fn prefetch(&self, s: W) {
        if let Some(w) = self.words.get((s.low() >> 6) as usize) {
            crate::pack::prefetch(w);
        }
    }
}

/// The states a worker owns and has seen, and those it sent in this
/// level, in hash sets (a bit a packed value would not fit).
struct Sets<W> {
    seen: hashbrown::HashSet<W>,
    sent: hashbrown::HashSet<W>,
}

impl<W: Word> Memory<W> for Sets<W> {
    fn own(&mut self, s: W) -> bool {
        self.seen.insert(s)
    }
    fn send(&mut self, s: W) -> bool {
        self.sent.insert(s)
    }
    fn level_done(&mut self) {
        self.sent.clear();
    }
    fn seen(&self) -> u64 {
        self.seen.len() as u64
    }
}

/// One worker's part of [`bfs`], with the memory the plan chose (made
/// for it: a call a successor).
fn worker_bfs<W: Travels>(
    worker: &mut timely::worker::Worker,
    task: &Task,
    plan: &Plan,
    budget: &Budget,
) -> Solution {
    if let Some(l) = plan.layers() {
        return layered::worker::<W>(worker, (task, plan, budget), l);
    }
    match plan.store() {
        Store::Bitset => {
            let bits = Bits::new(plan.layout().bits());
            worker_with::<W, _>(worker, task, plan, budget, bits)
        }
        _ => {
            let sets = Sets::<W> {
                seen: hashbrown::HashSet::new(),
                sent: hashbrown::HashSet::new(),
            };
            worker_with(worker, task, plan, budget, sets)
        }
    }
}

fn worker_with<W: Travels, M: Memory<W>>(
    worker: &mut timely::worker::Worker,
    task: &Task,
    plan: &Plan,
    budget: &Budget,
    mut memory: M,
) -> Solution {
    let mut wires = Wires::<W>::new(worker, |x| route(x.out()));
    let (index, peers) = (worker.index(), worker.peers());
    // Every worker makes the kernel (the same everywhere), and goes
    // through the rounds even where it cannot (it reports a stop).
    let kernel = Kernel::<W>::within(task, plan.layout(), plan.kernel(), &|| budget.poll());
    let limit = task.limit().map(|l| l.max);
    let mut level: Vec<W> = Vec::new();
    let mut next: Vec<W> = Vec::new();
    let mut out = Solution::default();
    // Round 0: the starts, to their owners.
    if index == 0
        && let Some(k) = &kernel
    {
        for &s in k.starts() {
            wires.states.send(s);
        }
    }
    let mut at = wires.next_round(worker, keep_all);
    let mut depth = 0u64;
    loop {
        // The level: the new states this worker made and owns, and those
        // it was sent and had not seen.
        std::mem::swap(&mut level, &mut next);
        next.clear();
        let sent = wires.inbox.borrow_mut().remove(&at).unwrap_or_default();
        level.extend(sent.into_iter().filter(|&s| memory.own(s)));
        memory.level_done();
        let mut report = Report {
            level: level.len() as u64,
            seen: memory.seen(),
            stopped: if kernel.is_none() {
                budget.stop_code().max(1)
            } else {
                0
            },
            ..Report::default()
        };
        if let Some(k) = &kernel {
            report.goal = depth == 0 && level.iter().any(|&s| k.is_goal(s));
            // No state is a goal (say, no cell has the goal's tile): the
            // starts end the search.
            let within = limit.is_none_or(|l| depth < l) && !k.goal_never();
            let me = Me {
                index,
                peers,
                memory: &mut memory,
                next: &mut next,
            };
            let io = (&mut wires.states, budget);
            if !report.goal && within && expand(k, &level, me, io, &mut report, depth) {
                report.stopped = budget.stop_code().max(1);
            }
        }
        let Some((round, all)) = tell(&mut wires, worker, report, (budget, keep_all)) else {
            return Solution::stopped(budget);
        };
        at = round;
        out.expanded += sum_of(&all, |r| r.expanded);
        out.generated += sum_of(&all, |r| r.generated);
        out.visited = sum_of(&all, |r| r.seen);
        out.frontier = out.frontier.max(sum_of(&all, |r| r.level));
        out.depth = depth;
        count_sent::<W>(&mut out, &all);
        if all.iter().any(|r| r.goal) {
            out.cost = Some(depth);
            return out;
        }
        if all.iter().any(|r| r.made_goal) {
            out.cost = Some(depth + 1);
            out.depth = depth + 1;
            return out;
        }
        if stopped(&all, budget) {
            return Solution::stopped(budget);
        }
        if sum_of(&all, |r| r.level) == 0 {
            return out;
        }
        budget.note_frontier(level.len());
        depth += 1;
    }
}

/// Where a worker stands: its index among how many, what it remembers,
/// and the next level's states it owns and made.
struct Me<'a, W, M> {
    index: usize,
    peers: usize,
    memory: &'a mut M,
    next: &'a mut Vec<W>,
}

/// Expands `level`: a successor this worker owns goes to the next level
/// if it is new, another's to its owner unless sent before (most
/// successors are states seen before, and most of the rest are found
/// several times in a level); true when a limit stopped it. A successor
/// that is a goal ends the expansion, as the local search ends at the
/// first goal it makes: the next level holds a goal, and no worker need
/// expand it (the others finish this level, which they cannot know).
/// Every state of a later level is tested here, where it is made.
fn expand<W: Travels, M: Memory<W>>(
    k: &Kernel<'_, W>,
    level: &[W],
    me: Me<'_, W, M>,
    (states, budget): (&mut States<W>, &Budget),
    report: &mut Report,
    depth: u64,
) -> bool {
    let mut succ = k.successors();
    let peers = me.peers as u64;
    let mut kids = Vec::new();
    for (i, &s) in level.iter().enumerate() {
        if (i as u64).is_multiple_of(CHECK_EVERY)
            && budget.check(report.seen + report.generated, depth)
        {
            return true;
        }
        report.expanded += 1;
        // The successors first, each one's place in the memory asked of
        // the cache, then each tested: their misses overlap.
        kids.clear();
        succ.each(s, |t| {
            kids.push(t);
            true
        });
        for &t in &kids {
            me.memory.prefetch(t);
        }
        for &t in &kids {
            report.generated += 1;
            if k.is_goal(t) {
                report.made_goal = true;
                return false;
            }
            // (One worker owns every state.)
            if peers == 1 || route(t.out()) % peers == me.index as u64 {
                if me.memory.own(t) {
                    me.next.push(t);
                }
            } else if me.memory.send(t) {
                report.sent += 1;
                states.send(t);
            }
        }
    }
    budget.check(report.seen + report.generated, depth)
}
