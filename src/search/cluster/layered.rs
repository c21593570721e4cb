//! The workers' breadth-first search by bitset layers, where the plan
//! ranks the states into rows ([`crate::plan::Layers`]): each worker
//! keeps the local engine's three bitsets (the states seen, the level,
//! the next level) and owns the words of them in every `peers`-th piece
//! ([`Deal`]). A level is the local one's, over the pieces a
//! worker owns: their rows expanded at once into its next level (no test
//! per successor), then the words of the next level that other workers
//! own sent to them as `(word, bits)`, less the bits sent before, and
//! the words it was sent ORed into its own; then its new states kept.
//!
//! The states seen double as what was sent: in a piece a worker owns, a
//! bit is a state seen; in another's, a state sent to its owner, which
//! keeps every state it is sent. So each state crosses to its owner once
//! at most in a search.
//!
//! Counts are the local layers' (whole levels expanded; the states seen
//! up to the level that holds a goal), so `--stats` says what a local
//! search that turns to layers from its first level says.

use super::{Inbox, Report, Travels, Wires, count_sent, keep_all, stopped, sum_of, tell};
use crate::budget::Budget;
use crate::kernel::Kernel;
use crate::plan::{Layers, Plan};
use crate::search::layers::{Expanded, Sets, expand_alone, keep};
use crate::solution::Solution;
use crate::task::Task;
use std::sync::atomic::Ordering::Relaxed;

/// How the words of the bitsets are dealt out to the workers: in pieces
/// of `piece` words, in turn.
#[derive(Clone, Copy)]
struct Deal {
    piece: usize,
    peers: usize,
}

impl Deal {
    /// At least sixteen pieces a worker where the bitsets are small (so
    /// that every worker has some of a level), of at most 32 KiB each; a
    /// whole number of rows of any width (at most four words), so that a
    /// row never spans two owners.
    fn new(words: usize, peers: usize) -> Deal {
        let piece = words
            .div_ceil(16 * peers)
            .next_multiple_of(4)
            .clamp(4, crate::plan::MOST_PIECE_WORDS);
        Deal { piece, peers }
    }

    /// The worker that owns word `w`.
    fn owner(self, w: usize) -> usize {
        (w / self.piece) % self.peers
    }

    /// The pieces of `[lo, hi)` (whole rows) that worker `me` owns.
    fn owned(self, lo: usize, hi: usize, me: usize) -> impl Iterator<Item = (usize, usize)> {
        let Deal { piece, peers } = self;
        (lo / piece..hi.div_ceil(piece))
            .filter(move |p| p % peers == me)
            .map(move |p| ((p * piece).max(lo), ((p + 1) * piece).min(hi)))
            .filter(|(a, b)| a < b)
    }
}

/// A word of a next level, sent to its owner: its index and its bits.
type Word = (u64, u64);

/// One worker's part of the search of `task` by layers `l`.
pub(super) fn worker<W: Travels>(
    worker: &mut timely::worker::Worker,
    at: (&Task, &Plan, &Budget),
    l: &Layers,
) -> Solution {
    match l.row_words {
        1 => levels::<W, 1>(worker, at, l),
        2 => levels::<W, 2>(worker, at, l),
        _ => levels::<W, 4>(worker, at, l),
    }
}

fn levels<W: Travels, const R: usize>(
    worker: &mut timely::worker::Worker,
    (task, plan, budget): (&Task, &Plan, &Budget),
    l: &Layers,
) -> Solution {
    let (me, peers) = (worker.index(), worker.peers());
    let deal = Deal::new(l.words, peers);
    let mut wires = Wires::<Word>::new(worker, move |&(w, _)| (w as usize / deal.piece) as u64);
    let kernel = Kernel::<W>::within(task, plan.layout(), plan.kernel(), &|| budget.poll());
    // Every worker of the process makes its bitsets at once: the memory
    // limit is weighed against all of them before any is made.
    let threads = plan.cluster().map_or(1, |c| c.workers);
    let sets = if budget.reserve(l.bytes() * threads as u64) {
        let sets = Sets::of_worker(l, threads);
        if sets.is_none() {
            budget.out_of_memory();
        }
        sets
    } else {
        None
    };
    let limit = task.limit().map(|l| l.max);
    let mut out = Solution::default();
    // The level's report: its states this worker owns, whether one is a
    // goal; and the words of the frontier they lie in.
    let (mut report, mut span) = (Report::default(), (usize::MAX, 0));
    let ready = match (&kernel, &sets) {
        (Some(k), Some(sets)) => {
            (report, span) = starts(k, sets, (deal, me));
            Some((k, sets))
        }
        _ => {
            report.stopped = budget.stop_code().max(1);
            None
        }
    };
    let goal = ready.as_ref().and_then(|(k, sets)| sets.goal_bit(*k));
    let mut found = 0;
    let mut depth = 0;
    loop {
        found += report.level;
        report.seen = found;
        let Some((_, all)) = tell(&mut wires, worker, report, (budget, keep_all)) else {
            return Solution::stopped(budget);
        };
        out.visited = sum_of(&all, |r| r.seen);
        out.frontier = out.frontier.max(sum_of(&all, |r| r.level));
        out.depth = depth;
        if all.iter().any(|r| r.goal) {
            out.cost = Some(depth);
            return out;
        }
        if stopped(&all, budget) {
            return Solution::stopped(budget);
        }
        let Some((k, sets)) = &ready else {
            unreachable!("a worker that is not ready reports a stop")
        };
        if sum_of(&all, |r| r.level) == 0 || limit.is_some_and(|l| depth >= l) || k.goal_never() {
            return out;
        }
        budget.note_frontier(report.level as usize);
        // This worker's rows of the level, expanded into its next level.
        report = Report::default();
        let mut e = Expanded::none();
        // The words other workers send this level, ORed into the next
        // level as they come (not held until its end), and where they lie.
        let nx = sets.next();
        let mut got = (usize::MAX, 0);
        let mut take = |inbox: &Inbox<Word>, at: u64| {
            for (w, x) in inbox.borrow_mut().remove(&at).unwrap_or_default() {
                let w = w as usize;
                nx[w].store(nx[w].load(Relaxed) | x, Relaxed);
                got = (got.0.min(w), got.1.max(w + 1));
            }
        };
        let (lo, hi) = (span.0 / R * R, span.1.div_ceil(R) * R);
        for piece in deal.owned(lo, hi, me) {
            if budget.check(out.visited, depth) {
                report.stopped = budget.stop_code().max(1);
                break;
            }
            e.add(&expand_alone::<W, R>(k, sets, piece));
            worker.step();
            take(&wires.inbox, wires.round);
        }
        (report.expanded, report.generated) = (e.expanded, e.generated);
        report.sent = send(sets, (e.lo, e.hi), (deal, me), &mut wires);
        let Some((_, all)) = tell(&mut wires, worker, report, (budget, &mut take)) else {
            return Solution::stopped(budget);
        };
        out.expanded += sum_of(&all, |r| r.expanded);
        out.generated += sum_of(&all, |r| r.generated);
        count_sent::<Word>(&mut out, &all);
        if stopped(&all, budget) {
            return Solution::stopped(budget);
        }
        let got = (e.lo.min(got.0), e.hi.max(got.1));
        (report, span) = kept::<W, R>(k, sets, (deal, me), got, goal);
        depth += 1;
    }
}

/// The starts this worker owns, made the first level: its report, and
/// the words of the frontier they lie in.
fn starts<W: Travels>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    (deal, me): (Deal, usize),
) -> (Report, (usize, usize)) {
    let (mut report, mut span) = (Report::default(), (usize::MAX, 0));
    let (v, fr) = (sets.visited(), sets.frontier());
    for &s in k.starts() {
        let (w, b) = sets.bit(s);
        if deal.owner(w) != me || v[w].load(Relaxed) & b != 0 {
            continue;
        }
        v[w].fetch_or(b, Relaxed);
        fr[w].fetch_or(b, Relaxed);
        report.level += 1;
        report.goal |= k.is_goal(s);
        span = (span.0.min(w), span.1.max(w + 1));
    }
    (report, span)
}

/// Keeps the new states of this worker's pieces of the next level in
/// words `[lo, hi)` as the level: its report (the goal's bit tested where
/// the goal is one state), and the words of the frontier they lie in.
fn kept<W: Travels, const R: usize>(
    k: &Kernel<'_, W>,
    sets: &Sets<'_>,
    (deal, me): (Deal, usize),
    (lo, hi): (usize, usize),
    goal: Option<(usize, u64)>,
) -> (Report, (usize, usize)) {
    let (mut report, mut span) = (Report::default(), (usize::MAX, 0));
    if lo < hi {
        for piece in deal.owned(lo / R * R, hi.div_ceil(R) * R, me) {
            let kept = keep::<W, R>(k, sets, piece, goal.is_none());
            report.level += kept.new;
            report.goal |= kept.goal;
            if kept.new > 0 {
                span = (span.0.min(kept.lo), span.1.max(kept.hi));
            }
        }
    }
    if let Some((w, b)) = goal
        && deal.owner(w) == me
    {
        report.goal = sets.frontier()[w].load(Relaxed) & b != 0;
    }
    (report, span)
}

/// Sends the words of the next level in `[lo, hi)` that other workers
/// own to them, less the bits sent before (which it then marks), clearing
/// them; the words sent.
fn send(
    sets: &Sets<'_>,
    (lo, hi): (usize, usize),
    (deal, me): (Deal, usize),
    wires: &mut Wires<Word>,
) -> u64 {
    let (v, nx) = (sets.visited(), sets.next());
    let mut batch = Vec::new();
    let mut sent = 0;
    for p in (0..deal.peers).filter(|&p| p != me) {
        for (a, b) in deal.owned(lo.min(hi), hi, p) {
            for w in a..b {
                let x = nx[w].load(Relaxed);
                if x == 0 {
                    continue;
                }
                nx[w].store(0, Relaxed);
                let old = v[w].load(Relaxed);
                let new = x & !old;
                if new == 0 {
                    continue;
                }
                v[w].store(old | new, Relaxed);
                batch.push((w as u64, new));
                sent += 1;
                if batch.len() == BATCH {
                    wires.states.send_batch(&mut batch);
                    batch.clear();
                }
            }
        }
    }
    wires.states.send_batch(&mut batch);
    sent
}

/// Words handed to timely at a time.
const BATCH: usize = 1 << 12;
