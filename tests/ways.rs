//! The way `--moves` shows where A*'s bound applies, found again after the
//! search depth first under the least cost: the first of the least ways
//! in the kernel's order of starts and successors, as an exhaustive search
//! written here finds it (every reachable state's distance to a goal by a
//! breadth-first search backwards, then from the first start at the least
//! distance, each time the first successor one step nearer); IDA*, which
//! meets that way first at its last bound, keeps the same one.

use crate::common;
use puzzle::budget::{Budget, Limits};
use puzzle::kernel::Kernel;
use puzzle::plan::{Config, Engine, Strategy};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

fn config(strategy: Strategy) -> Config {
    Config {
        strategy,
        threads: 1,
        count: false,
        cluster: None,
    }
}

/// The first least way of the module's doc, by the kernel's successors of
/// every state reachable; `None` where no goal is reachable.
fn first_least_way(k: &Kernel<'_, u64>) -> Option<Vec<u64>> {
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut states: Vec<u64> = Vec::new();
    let mut number = |t: u64, states: &mut Vec<u64>| {
        *index.entry(t).or_insert_with(|| {
            states.push(t);
            states.len() - 1
        })
    };
    let starts: Vec<usize> = k.starts().iter().map(|&s| number(s, &mut states)).collect();
    let mut next: Vec<Vec<usize>> = Vec::new();
    let mut succ = k.successors();
    while next.len() < states.len() {
        let mut kids = Vec::new();
        succ.each(states[next.len()], |t| {
            kids.push(t);
            true
        });
        next.push(kids.into_iter().map(|t| number(t, &mut states)).collect());
    }
    let mut before = vec![Vec::new(); states.len()];
    for (s, ts) in next.iter().enumerate() {
        for &t in ts {
            before[t].push(s);
        }
    }
    let mut dist = vec![u32::MAX; states.len()];
    let mut queue: VecDeque<usize> = (0..states.len())
        .filter(|&i| k.is_goal(states[i]))
        .collect();
    for &g in &queue {
        dist[g] = 0;
    }
    while let Some(t) = queue.pop_front() {
        for &s in &before[t] {
            if dist[s] == u32::MAX {
                dist[s] = dist[t] + 1;
                queue.push_back(s);
            }
        }
    }
    let least = starts.iter().map(|&s| dist[s]).min()?;
    if least == u32::MAX {
        return None;
    }
    let mut at = *starts.iter().find(|&&s| dist[s] == least)?;
    let mut way = vec![states[at]];
    while dist[at] > 0 {
        at = *next[at].iter().find(|&&t| dist[t] + 1 == dist[at])?;
        way.push(states[at]);
    }
    Some(way)
}

/// Robots in turn or at once, with moves in a random order (the kernel's
/// order follows it), walls: the way found again, and IDA*'s, against the
/// exhaustive search's.
#[test]
fn the_way_by_the_bound_is_the_first_least_way() {
    let mut rng = SmallRng::seed_from_u64(0x3a7_f1257);
    let (mut compared, mut by_ida, mut several) = (0, 0, 0);
    while compared < 300 {
        let mut moves = vec!["north", "east", "south", "west"];
        if rng.gen_bool(0.3) {
            moves.extend(["northeast", "southwest"]);
        }
        for i in (1..moves.len()).rev() {
            moves.swap(i, rng.gen_range(0..=i));
        }
        let how = if rng.gen_bool(0.3) {
            moves.insert(rng.gen_range(0..=moves.len()), "stay");
            "all at once"
        } else {
            "bot in turn"
        };
        let text = format!(
            "input {{ cases until eof  header n rows cols  grid rows x cols }}\n\
             tiles {{ floor '.'  wall '#' solid }}\n\
             agent bot[n] 'a'.. target 'A'.. on floor\n\
             move {how}: {}\n\
             forbid same cell\n\
             goal every bot on its target\n",
            moves.join(" ")
        );
        let loaded = puzzle::load("ways.puz", &text).unwrap();
        let (h, w) = (rng.gen_range(2..=5), rng.gen_range(2..=5));
        let n = rng.gen_range(1..=3usize);
        let Some(input) = common::robots_case(&mut rng, h, w, n) else {
            continue;
        };
        let task = common::task_of(&loaded.rules, &input);
        let plan = puzzle::plan::plan(&task, config(Strategy::Bfs)).unwrap();
        if plan.way_bound().is_none() {
            // No bound: a target no walk reaches, say.
            continue;
        }
        let k = Kernel::<u64>::new(&task, plan.layout(), plan.kernel());
        let want = first_least_way(&k);
        let budget = Budget::new(Limits::default());
        let got = puzzle::search::way::trace(&task, &plan, &budget, None);
        let decoded = |way: &[u64]| -> Vec<Vec<i64>> {
            (way.iter())
                .map(|&s| {
                    let mut v = vec![0; task.vars().len()];
                    plan.layout().decode(s, &mut v);
                    v
                })
                .collect()
        };
        assert_eq!(
            got.as_ref().map(|t| t.states().to_vec()),
            want.as_deref().map(decoded),
            "{text}\n{input}"
        );
        let Some(got) = got else { continue };
        several += usize::from(n > 1 && got.steps().len() > 3);
        // IDA* keeps the way its last bound meets first: the same.
        let ida = puzzle::plan::plan(&task, config(Strategy::Ida)).unwrap();
        // (IDA* meets a state again for every way there: short ways only.)
        if ida.engine() == Engine::Ida && got.steps().len() <= 10 {
            let sol = puzzle::search::run_finding_way(&task, &ida, &budget, true);
            let kept = sol.path().map(|t| t.states().to_vec());
            assert_eq!(
                kept.as_ref(),
                Some(&got.states().to_vec()),
                "IDA*\n{text}\n{input}"
            );
            by_ida += 1;
        }
        compared += 1;
    }
    assert!(several > 100, "{several} ways of several robots");
    assert!(by_ida > 150, "{by_ida} ways kept by IDA*");
}
