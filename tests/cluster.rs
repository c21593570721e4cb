//! The distributed breadth-first search (`--workers`, `--hostfile`: timely
//! dataflow): the answers of the local search, on random maps of four
//! shipped families (a maze, robots in turn, sliding blocks, the
//! 8-puzzle) with 2 and 3 workers in this process, and with 2 and 3
//! processes on 127.0.0.1 (the binary, a generated hostfile); the counts
//! of the workers' layers against the local layers'.

use crate::common;
use puzzle::budget::Budget;
use puzzle::plan::{Cluster, Config, Engine, Store, Strategy};
use puzzle::search::{How, Sparse, bfs_layered, cluster};
use puzzle::solution::Solution;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A plan's configuration for `n` workers in this process.
fn workers(n: usize) -> Config {
    let cluster = Cluster {
        workers: n,
        process: 0,
        addresses: Vec::new(),
    };
    Config {
        cluster: Some(Box::leak(Box::new(cluster))),
        ..Config::default()
    }
}

#[test]
fn workers_answer_as_the_local_search() {
    // Each family's input of one random case.
    type Gen = fn(&mut SmallRng) -> String;
    let families: [(&str, Gen); 4] = [
        ("keytask", |r| {
            common::until("0 0")(&[crate::keytask::random_case(r).0])
        }),
        ("robots", |r| {
            common::counted(&[crate::robots::random_case(r).0])
        }),
        ("klotski", |r| {
            common::counted(&[crate::pieces::random_klotski(r, false).0])
        }),
        ("eight", |r| {
            let board = crate::eight::random_board(r);
            format!("1\n{}", crate::eight::board_text(r, &board))
        }),
    ];
    let mut rng = SmallRng::seed_from_u64(0x0c10_57e2);
    // Maps whose workers kept hash sets (states wider than 32 bits: the
    // larger sliding-block maps), bitsets of packed states, and bitset
    // layers of ranked states (robots): each is run.
    let mut stores = [0usize; 3];
    for (name, random) in families {
        let rules = common::puzzle(name).rules;
        let mut spread = 0;
        for _ in 0..20 {
            let input = random(&mut rng);
            let local = common::run_with(&rules, &input, Config::default());
            for n in [2, 3] {
                let got = common::run_with(&rules, &input, workers(n));
                assert_eq!(got, local, "{name}, {n} workers:\n{input}");
            }
            let task = common::task_of(&rules, &input);
            let plan = puzzle::plan::plan(&task, workers(2)).expect("a plan");
            if plan.engine() == Engine::Cluster {
                spread += 1;
                let kind = match (plan.layers(), plan.store()) {
                    (Some(_), _) => 2,
                    (None, Store::Bitset) => 1,
                    (None, _) => 0,
                };
                stores[kind] += 1;
            }
        }
        assert!(spread >= 10, "{name}: {spread} of 20 maps on the workers");
    }
    let [sets, bits, layers] = stores;
    assert!(
        sets >= 3 && bits >= 10 && layers >= 10,
        "{sets} maps with hash sets, {bits} with bitsets, {layers} with layers"
    );
}

/// The workers' bitset layers (where the plan ranks the states into rows)
/// count as the local search does with layers from its first level: the
/// same cost, depth, states expanded, generated, seen and largest level,
/// with 2 and 3 workers, on random robots in turn and at once, some
/// within a step limit.
#[test]
fn layered_workers_count_as_the_local_layers() {
    let mut rng = SmallRng::seed_from_u64(0x1a7e_5c10);
    let (mut solved, mut unsolved, mut cut) = (0, 0, 0);
    for round in 0..60 {
        let extra = if round % 3 == 0 {
            "limit steps <= 4\n"
        } else {
            ""
        };
        let (mode, input, task) = crate::stores::random_task(&mut rng, round, extra);
        let local = crate::stores::planned(&task, Strategy::Bfs, 1, |plan, k, how| {
            if plan.engine() == Engine::Nothing {
                return None;
            }
            let layers = plan.layers().expect("layers").clone().turning_at(1);
            let how = How {
                limit: task.limit().map(|l| l.max),
                ..how
            };
            Some(bfs_layered::<u64, Sparse<u64>>(
                k,
                how,
                &Budget::unlimited(),
                Some(&layers),
            ))
        });
        let Some(local) = local else {
            continue;
        };
        let counts = |s: &Solution| {
            let c = (s.expanded(), s.generated(), s.visited(), s.frontier());
            (s.cost(), s.depth(), c)
        };
        for n in [2, 3] {
            let plan = puzzle::plan::plan(&task, workers(n)).expect("a plan");
            assert!(plan.layers().is_some(), "{}", plan.describe(&task));
            let cluster = plan.cluster().expect("the workers' plan");
            let got = cluster::bfs::<u64>(&task, &plan, &Budget::unlimited(), cluster);
            assert_eq!(counts(&got), counts(&local), "{mode}, {n} workers\n{input}");
        }
        match local.cost() {
            Some(_) => solved += 1,
            None if round % 3 == 0 => cut += 1,
            None => unsolved += 1,
        }
    }
    assert!(
        solved > 20 && unsolved > 5 && cut > 5,
        "solved {solved}, unsolved {unsolved}, cut by the limit {cut}"
    );
}

/// Free ports on 127.0.0.1, one a process.
fn hostfile(processes: usize) -> tempfile::NamedTempFile {
    let listeners: Vec<_> = (0..processes)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a port"))
        .collect();
    let lines: Vec<String> = (listeners.iter())
        .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
        .collect();
    let file = tempfile::NamedTempFile::new().expect("a file");
    std::fs::write(file.path(), lines.concat()).expect("written");
    file
}

/// `puzzle run RULES INPUT` as process `i` of `hosts`, within a minute.
fn spawn(rules: &str, input: &str, hosts: &tempfile::NamedTempFile, i: usize) -> Child {
    Command::new(env!("CARGO_BIN_EXE_puzzle"))
        .args(["run", rules, input, "--hostfile"])
        .arg(hosts.path())
        .args(["--process", &i.to_string(), "--timeout", "60s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// What each of `processes` processes of one hostfile running `puzzle run
/// RULES INPUT` prints, with its exit code.
fn run_processes(rules: &str, input: &str, processes: usize) -> Vec<(Option<i32>, String)> {
    let hosts = hostfile(processes);
    let children: Vec<_> = (0..processes)
        .map(|i| spawn(rules, input, &hosts, i))
        .collect();
    let until = Instant::now() + Duration::from_secs(120);
    children
        .into_iter()
        .map(|mut c| {
            while c.try_wait().expect("waits").is_none() {
                if Instant::now() > until {
                    let _ = c.kill();
                    panic!("a process of {processes} did not end");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let out = c.wait_with_output().expect("its output");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            (out.status.code(), text)
        })
        .collect()
}

#[test]
fn processes_on_loopback_answer_as_one() {
    for (name, processes) in [("robots", 2), ("keytask", 3), ("knights", 2)] {
        let (rules, input) = (format!("puzzles/{name}.puz"), format!("puzzles/{name}.in"));
        let local = Command::new(env!("CARGO_BIN_EXE_puzzle"))
            .args(["run", &rules, &input])
            .output()
            .expect("the binary runs");
        let local = String::from_utf8_lossy(&local.stdout).into_owned();
        let outs = run_processes(&rules, &input, processes);
        for (i, (code, text)) in outs.iter().enumerate() {
            assert_eq!(*code, Some(0), "{name}: process {i} of {processes}");
            let want = if i == 0 { local.as_str() } else { "" };
            assert_eq!(text, want, "{name}: process {i} of {processes}");
        }
    }
}

/// A process killed during a search: the other ends within seconds, exit
/// code 3, with the answers of the cases before it on stdout.
#[test]
fn a_lost_process_ends_the_others() {
    let hosts = hostfile(2);
    // Fifteen's third case is far too large for breadth-first search: the
    // processes are still at it when one is killed.
    let (rules, input) = ("puzzles/fifteen.puz", "puzzles/fifteen.in");
    let (mut first, mut second) = (
        spawn(rules, input, &hosts, 0),
        spawn(rules, input, &hosts, 1),
    );
    std::thread::sleep(Duration::from_secs(3));
    second.kill().expect("killed");
    let killed = Instant::now();
    while first.try_wait().expect("waits").is_none() {
        if killed.elapsed() > Duration::from_secs(20) {
            let _ = first.kill();
            panic!("process 0 ran on after process 1 was killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = first.wait_with_output().expect("its output");
    let _ = second.wait();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lost a process"), "{err}");
    // The answers of the cases before, whole lines.
    let got = String::from_utf8_lossy(&out.stdout);
    let all = std::fs::read_to_string("puzzles/fifteen.out").expect("the answers");
    assert!(
        all.starts_with(got.as_ref()) && got.ends_with('\n'),
        "{got}"
    );
}
