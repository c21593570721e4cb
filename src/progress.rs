//! The progress display: while a case's search runs longer than
//! [`AFTER`], a line on stderr says how far it has got (depth, frontier,
//! states seen, rate, memory), redrawn ten times a second by a thread of
//! its own from what the search notes in its [`Budget`]. The search itself
//! does nothing more for it than note its frontier.
//!
//! Only on a terminal: the caller decides ([`Progress::new`]); a run
//! whose stderr is a file or a pipe never draws.

use crate::budget::Budget;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a case runs before the display shows it.
pub const AFTER: Duration = Duration::from_millis(500);

/// How often the display is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The cases being searched, and the thread that draws them.
pub struct Progress {
    shared: Option<Arc<Shared>>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    done: AtomicBool,
}

#[derive(Default)]
struct State {
    /// Case number -> its budget, for the cases running.
    cases: BTreeMap<usize, Arc<Budget>>,
    /// The display, while it shows a case.
    bar: Option<ProgressBar>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Progress {
    /// A display, drawn when `shown` (stderr is a terminal and no
    /// `--quiet`); else one that only keeps nothing.
    pub fn new(shown: bool) -> Progress {
        if !shown {
            return Progress {
                shared: None,
                drawer: None,
            };
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            done: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        let drawer = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || draw(&s))
            .ok();
        Progress {
            shared: Some(shared),
            drawer,
        }
    }

    /// Shows case `n` while it runs, from its budget.
    pub fn watch(&self, n: usize, budget: &Arc<Budget>) {
        if let Some(s) = &self.shared {
            s.lock().cases.insert(n, Arc::clone(budget));
        }
    }

    /// Case `n` is done. The display is cleared now, not at its next
    /// tick, so that the case's answer (and what stderr says of it) is not
    /// written after it on its line.
    pub fn unwatch(&self, n: usize) {
        if let Some(s) = &self.shared {
            let mut st = s.lock();
            st.cases.remove(&n);
            if let Some(b) = st.bar.take() {
                b.finish_and_clear();
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(s) = &self.shared {
            s.done.store(true, Relaxed);
        }
        if let Some(d) = self.drawer.take() {
            let _ = d.join();
        }
    }
}

/// What the display says of a case.
pub fn line(n: usize, budget: &Budget) -> String {
    let (states, depth, frontier, age) = budget.progress();
    let rate = states as f64 / age.as_secs_f64().max(1e-9);
    format!(
        "case {n}: {:.1} s, depth {depth}, frontier {}, {} states, {}/s, {}",
        age.as_secs_f64(),
        count(frontier),
        count(states),
        count(rate as u64),
        crate::budget::size(crate::budget::resident()),
    )
}

/// A count in few digits: `950`, `12.3k`, `4.56M`, `1.20G`.
fn count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2}M", n as f64 / 1e6),
        _ => format!("{:.2}G", n as f64 / 1e9),
    }
}

/// The drawing thread: the lowest case running (the one the answers wait
/// for) once it has run for [`AFTER`]; nothing between cases.
fn draw(s: &Shared) {
    while !s.done.load(Relaxed) {
        std::thread::sleep(TICK);
        let mut st = s.lock();
        let shown = st
            .cases
            .iter()
            .next()
            .filter(|(_, b)| b.progress().3 >= AFTER)
            .map(|(&n, b)| line(n, b));
        match shown {
            Some(msg) => {
                let b = st.bar.get_or_insert_with(|| {
                    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    b.set_style(
                        ProgressStyle::with_template("{spinner} {wide_msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    b
                });
                b.set_message(msg);
                b.tick();
            }
            None => {
                if let Some(b) = st.bar.take() {
                    b.finish_and_clear();
                }
            }
        }
    }
    if let Some(b) = s.lock().bar.take() {
        b.finish_and_clear();
    }
}
