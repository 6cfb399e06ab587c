//! Random fault schedules for seed sweeps: a steady write load plus crashes, restarts,
//! partitions, one-way cuts, loss, delay, slow disks and resignations, then a calm
//! tail (everything healed and restarted) in which the quorum must make progress again.

use super::simulation::Simulation;
use super::spec::{Action, ClusterSpec, NetworkSpec, TimedAction};
use crate::protocol::{NodeId, SafetySwitch};
use crate::rng::Rng;
use crate::trace::{EventKind, Invariant};

const STREAM_CHAOS: u64 = 3;
/// The calm tail: long enough for several election rounds and catch-up.
pub const CALM_TAIL_MS: u64 = 15_000;

#[derive(Clone, Debug)]
pub struct ChaosOptions {
    pub seconds: u64,
    pub voters: u32,
    pub observers: u32,
    pub unsafe_switches: Vec<SafetySwitch>,
}

/// One seeded random run: the cluster and its timed fault schedule.
pub fn random_run(seed: u64, opts: &ChaosOptions) -> (ClusterSpec, Vec<TimedAction>) {
    let mut rng = Rng::fork(seed, STREAM_CHAOS);
    let spec = ClusterSpec {
        voters: opts.voters,
        observers: opts.observers,
        seed,
        network: NetworkSpec::Preset("datacenter".into()),
        unsafe_switches: opts.unsafe_switches.clone(),
        flush_ms: rng.range(0, 3),
        // Small enough that snapshots and FetchSnapshot happen within a minute.
        snapshot_interval: 200,
        writes_per_second: rng.range(10, 50) as u32,
        ..ClusterSpec::default()
    };
    let nodes = opts.voters + opts.observers;
    let end = opts.seconds * 1000;
    let chaos_end = end.saturating_sub(CALM_TAIL_MS).max(end / 2);
    let mut actions = Vec::new();
    let mut crashed: Vec<(NodeId, u64)> = Vec::new();
    let mut t = rng.range(500, 3000);
    while t < chaos_end {
        // Restart nodes whose downtime is over.
        crashed.retain(|(n, until)| {
            if *until <= t {
                actions.push(TimedAction { t: *until, action: Action::Restart { node: *n } });
                false
            } else {
                true
            }
        });
        let node = rng.below(nodes as u64) as NodeId;
        let voter = rng.below(opts.voters as u64) as NodeId;
        let action = match rng.below(100) {
            0..=21 => {
                if crashed.iter().any(|(n, _)| *n == voter) {
                    None
                } else {
                    crashed.push((voter, t + rng.range(100, 6000)));
                    Some(Action::Crash { node: voter })
                }
            }
            22..=27 => {
                if crashed.iter().any(|(n, _)| *n == node) {
                    None
                } else {
                    crashed.push((node, t + rng.range(100, 6000)));
                    Some(Action::Crash { node })
                }
            }
            28..=37 => {
                let mut groups = vec![Vec::new(), Vec::new()];
                for n in 0..nodes {
                    groups[rng.below(2) as usize].push(n);
                }
                groups.retain(|g| !g.is_empty());
                Some(Action::Partition { groups })
            }
            38..=45 => Some(Action::Isolate { node: voter }),
            46..=53 => {
                let to = (node + 1 + rng.below(nodes as u64 - 1) as NodeId) % nodes;
                if to == node || nodes < 2 {
                    None
                } else {
                    Some(Action::Cut { from: node, to })
                }
            }
            54..=67 => Some(Action::Heal),
            68..=75 => {
                let lo = rng.range(1, 40);
                Some(Action::Network {
                    latency_ms: [lo, lo + rng.range(0, 200)],
                    loss: rng.below(31) as f64 / 100.0,
                    duplicate: rng.below(6) as f64 / 100.0,
                })
            }
            76..=87 => Some(Action::SlowDisk { node: voter, flush_ms: [0, 5, 30, 100, 400][rng.below(5) as usize] }),
            88..=94 => Some(Action::Resign),
            _ => Some(Action::Workload { writes_per_second: rng.range(0, 100) as u32 }),
        };
        if let Some(a) = action {
            actions.push(TimedAction { t, action: a });
        }
        t += rng.range(200, 2500);
    }
    // The calm tail: restore everything.
    for (n, until) in crashed {
        actions.push(TimedAction { t: until.min(chaos_end), action: Action::Restart { node: n } });
    }
    actions.push(TimedAction { t: chaos_end, action: Action::Heal });
    actions
        .push(TimedAction { t: chaos_end, action: Action::Network { latency_ms: [1, 5], loss: 0.0, duplicate: 0.0 } });
    for v in 0..nodes {
        actions.push(TimedAction { t: chaos_end, action: Action::SlowDisk { node: v, flush_ms: 1 } });
    }
    actions.push(TimedAction { t: chaos_end, action: Action::Workload { writes_per_second: 20 } });
    actions.sort_by_key(|a| a.t); // stable: same-time actions keep their order
    (spec, actions)
}

/// What one seed's run came to.
#[derive(Clone, Debug)]
pub struct SeedOutcome {
    pub seed: u64,
    pub violations: Vec<(Invariant, String)>,
    /// Did the quorum commit new records in the calm tail?
    pub made_progress: bool,
    pub events: u64,
    pub simulated_ms: u64,
}

impl SeedOutcome {
    pub fn passed(&self) -> bool {
        self.violations.is_empty() && self.made_progress
    }
}

pub fn run_seed(seed: u64, opts: &ChaosOptions) -> SeedOutcome {
    let (spec, actions) = random_run(seed, opts);
    let end = opts.seconds * 1000;
    let calm_from = end.saturating_sub(CALM_TAIL_MS).max(end / 2);
    let mut sim = Simulation::replay_once(spec, actions, calm_from + 2_000).expect("generated runs are valid");
    let hw_at_calm = max_leader_hw(&sim);
    sim.advance(end - sim.now()).expect("within a day");
    let made_progress = max_leader_hw(&sim) > hw_at_calm;
    let violations = sim
        .violations()
        .filter_map(|e| match &e.kind {
            EventKind::Violation { invariant, detail, .. } => Some((*invariant, detail.to_string())),
            _ => None,
        })
        .collect();
    SeedOutcome { seed, violations, made_progress, events: sim.trace().len() as u64, simulated_ms: sim.now() }
}

fn max_leader_hw(sim: &Simulation) -> u64 {
    sim.world().node_views().iter().filter(|n| n.state == "leader").filter_map(|n| n.hw).max().unwrap_or(0)
}

/// The command that reproduces one seed.
pub fn repro_command(seed: u64, opts: &ChaosOptions) -> String {
    let mut cmd = format!(
        "cargo run --release -p kraft-playground --example sweep -- --seeds 1 --first-seed {seed} --seconds {} --voters {}",
        opts.seconds, opts.voters
    );
    if opts.observers > 0 {
        cmd.push_str(&format!(" --observers {}", opts.observers));
    }
    for s in &opts.unsafe_switches {
        cmd.push_str(&format!(" --unsafe {}", s.name()));
    }
    cmd.push_str(" --trace");
    cmd
}
