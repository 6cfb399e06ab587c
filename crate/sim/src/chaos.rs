//! Random worlds for seed sweeps, VOPR-style: one seed derives the whole world (as
//! TigerBeetle's simulator does). The seed first draws a [`FaultMix`]: which fault kinds
//! this world has at all and how often each happens (swarm testing: leaving kinds out
//! lets the others pile up), how wild they get, the base network, disk, write rate and
//! `append.linger.ms`. Then it draws the timed fault schedule from that mix. The schedule
//! ends by healing everything (crashed nodes restarted, links healed, network and disks
//! restored) and a calm tail, in which a leader must be elected and the HW must move
//! within [`liveness_bound_ms`].

use super::kraft::Simulation;
use super::spec::{Action, ClusterSpec, NetworkSpec, QuorumKind, TimedAction};
use crate::network::LinkProfile;
use crate::trace::{EventKind, Invariant};
use crate::World;
use kraft_base::rng::Rng;
use kraft_boundary::ReplicaCore;
use kraft_protocol::{KRaft, NodeId, QuorumConfig, SafetySwitch};
use std::fmt;

/// Random streams: the mix and the schedule drawn from it are separate purposes.
const STREAM_SCHEDULE: u64 = 3;
const STREAM_MIX: u64 = 4;
/// The voter changes of a world with membership changes: drawn apart, so turning them
/// on leaves the rest of its schedule as it was.
const STREAM_MEMBERSHIP: u64 = 5;

/// The release a world with membership changes models when the options name none: the
/// latest (dynamic quorums need 3.9+).
pub const MEMBERSHIP_RELEASE: &str = "4.2";

/// The calm tail: everything healed at its start, then no fault until the end. It holds
/// the liveness bound of every mix plus a second of progress (`chaos::tests` checks).
pub const CALM_TAIL_MS: u64 = 15_000;
/// Lost election rounds the bound allows for. With pre-vote a round is lost only to a
/// split vote (two candidates whose random timeouts in [T, 2T) fall within a round trip
/// of each other) or to a pre-vote majority that is not reachable yet; 3 in a row is
/// far out in the tail. Measured: over the 30,000 seeds of `npm run soak` the slowest
/// recovery took 3.8 s, against bounds of 8.7 to 12.3 s (the sweep prints both).
const ELECTION_ROUNDS: u64 = 3;
/// Fetch rounds the bound allows a new leader to bring a majority up to its epoch start
/// (500 records each, or a snapshot).
const CATCH_UP_ROUNDS: u64 = 10;
/// The calm tail's client load, so the HW has something to commit.
const TAIL_WRITES_PER_SECOND: u32 = 20;

/// Limits of the wildest world (the mix draws below these).
const MAX_FAULT_LATENCY_MS: u64 = 400;
const MAX_SLOW_LINK_MS: u64 = 600;
const MAX_SLOW_FLUSH_MS: u64 = 500;
const MAX_BASE_FLUSH_MS: u64 = 5;

#[derive(Clone, Debug, Default)]
pub struct ChaosOptions {
    pub seconds: u64,
    pub voters: u32,
    pub observers: u32,
    pub unsafe_switches: Vec<SafetySwitch>,
    /// The Kafka release the worlds model (`ClusterSpec::kafka_release`); None: the
    /// default, or [`MEMBERSHIP_RELEASE`] with membership changes.
    pub release: Option<String>,
    /// A dynamic quorum (KIP-853) whose voters change under the faults: the admin client
    /// adds and removes random nodes (the leader among them), and replaces a wiped
    /// node's disk (wipe, restart, remove the old key, add the new one).
    pub membership: bool,
}

/// The kinds of fault a world may draw, each with its own weight in the mix.
///
/// A disk wipe is not among them: it loses the quorum-state file, so the wiped node can
/// vote twice in one epoch and MonotonicEpoch reports it by design (Raft, and KRaft
/// before KIP-853's directory ids, assume votes and logs survive a restart). Wipes are
/// exercised by `kafka_simulations.rs` (Kafka's canRecoverFromSingleNodeCommittedDataLoss)
/// instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Crash a voter (restarted after a downtime drawn from the mix).
    CrashVoter,
    /// Crash any node, observers included.
    CrashNode,
    /// Split the nodes into two or three groups.
    Partition,
    Isolate,
    /// A one-way cut, and its repair.
    Cut,
    Uncut,
    /// One one-way link gets its own (slow) latency.
    SlowLink,
    Heal,
    /// Latency, loss and duplication of every link.
    Network,
    SlowDisk,
    Resign,
    /// The client's write rate.
    Workload,
}

impl Fault {
    pub const ALL: [Fault; 12] = [
        Fault::CrashVoter,
        Fault::CrashNode,
        Fault::Partition,
        Fault::Isolate,
        Fault::Cut,
        Fault::Uncut,
        Fault::SlowLink,
        Fault::Heal,
        Fault::Network,
        Fault::SlowDisk,
        Fault::Resign,
        Fault::Workload,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::CrashVoter => "crash-voter",
            Fault::CrashNode => "crash-node",
            Fault::Partition => "partition",
            Fault::Isolate => "isolate",
            Fault::Cut => "cut",
            Fault::Uncut => "uncut",
            Fault::SlowLink => "slow-link",
            Fault::Heal => "heal",
            Fault::Network => "network",
            Fault::SlowDisk => "slow-disk",
            Fault::Resign => "resign",
            Fault::Workload => "workload",
        }
    }
}

/// One world's fault mix and settings, all drawn from the seed.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultMix {
    /// Relative weight of each fault kind, in [`Fault::ALL`] order (0: never here).
    pub weights: [u32; Fault::ALL.len()],
    /// Time between two faults, ms (inclusive range).
    pub gap_ms: [u64; 2],
    /// How long a crashed node stays down, ms.
    pub downtime_ms: [u64; 2],
    /// The most a `network` fault sets: latency (ms), loss and duplication (percent).
    pub max_latency_ms: u64,
    pub max_loss_pct: u64,
    pub max_duplicate_pct: u64,
    /// The slowest one-way link a `slow-link` fault sets, ms.
    pub max_slow_link_ms: u64,
    /// The slowest flush a `slow-disk` fault sets, ms.
    pub max_flush_ms: u64,
    /// The world's own network preset, disk flush latency, write rate (restored in the
    /// calm tail, except the write rate, which becomes [`TAIL_WRITES_PER_SECOND`]).
    pub network: &'static str,
    pub flush_ms: u64,
    pub writes_per_second: u32,
    /// The highest rate a `workload` fault sets.
    pub max_writes_per_second: u32,
    /// `controller.quorum.append.linger.ms`: 0 (as Kafka's own simulation test) or the
    /// default.
    pub linger_zero: bool,
    pub snapshot_interval: u64,
}

impl FaultMix {
    /// The mix of `seed`'s world.
    pub fn of_seed(seed: u64) -> FaultMix {
        let mut rng = Rng::fork(seed, STREAM_MIX);
        let mut weights = [0; Fault::ALL.len()];
        for w in &mut weights {
            // A quarter of the worlds leave each kind out.
            *w = if rng.below(4) == 0 { 0 } else { rng.range(1, 10) as u32 };
        }
        let gap_lo = [50, 200, 500, 1000][rng.below(4) as usize];
        let gap_ms = [gap_lo, gap_lo + rng.range(100, 3000)];
        let down_lo = [50, 100, 500, 2000][rng.below(4) as usize];
        let downtime_ms = [down_lo, down_lo + rng.range(200, 10_000)];
        let pick = |rng: &mut Rng, options: &[u64]| options[rng.below(options.len() as u64) as usize];
        FaultMix {
            weights,
            gap_ms,
            downtime_ms,
            max_latency_ms: pick(&mut rng, &[10, 50, 200, MAX_FAULT_LATENCY_MS]),
            max_loss_pct: pick(&mut rng, &[0, 5, 20, 50]),
            max_duplicate_pct: pick(&mut rng, &[0, 2, 10]),
            max_slow_link_ms: pick(&mut rng, &[50, 200, MAX_SLOW_LINK_MS]),
            max_flush_ms: pick(&mut rng, &[5, 30, 100, MAX_SLOW_FLUSH_MS]),
            network: if rng.below(4) == 0 { "wan" } else { "datacenter" },
            flush_ms: pick(&mut rng, &[0, 1, 2, MAX_BASE_FLUSH_MS]),
            writes_per_second: pick(&mut rng, &[0, 5, 20, 50, 100, 200]) as u32,
            max_writes_per_second: pick(&mut rng, &[20, 100, 300]) as u32,
            linger_zero: rng.below(2) == 0,
            snapshot_interval: pick(&mut rng, &[20, 100, 200, 1000]),
        }
    }

    pub fn weight(&self, f: Fault) -> u32 {
        self.weights[Fault::ALL.iter().position(|g| *g == f).expect("every fault is in ALL")]
    }

    fn draw(&self, rng: &mut Rng) -> Option<Fault> {
        let total: u64 = self.weights.iter().map(|w| *w as u64).sum();
        let mut x = rng.below(total);
        for (f, w) in Fault::ALL.iter().zip(self.weights) {
            if x < w as u64 {
                return Some(*f);
            }
            x -= w as u64;
        }
        None // every weight is 0: a world without faults
    }

    fn base_profile(&self) -> LinkProfile {
        LinkProfile::preset(self.network).expect("the mix names a preset")
    }
}

impl fmt::Display for FaultMix {
    /// One line: the weights (kinds left out listed as `off`), then the world's settings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on: Vec<String> = Fault::ALL
            .iter()
            .filter(|k| self.weight(**k) > 0)
            .map(|k| format!("{} {}", k.name(), self.weight(*k)))
            .collect();
        let off: Vec<&str> = Fault::ALL.iter().filter(|k| self.weight(**k) == 0).map(|k| k.name()).collect();
        write!(f, "faults {}", if on.is_empty() { "none".to_string() } else { on.join(", ") })?;
        if !off.is_empty() {
            write!(f, " (off: {})", off.join(", "))?;
        }
        write!(
            f,
            "; every {}-{} ms, down {}-{} ms; latency <= {} ms, loss <= {}%, duplicate <= {}%, slow link <= {} ms, \
             flush <= {} ms; {} network, flush {} ms, {} writes/s (<= {}), linger {}, snapshot every {}",
            self.gap_ms[0],
            self.gap_ms[1],
            self.downtime_ms[0],
            self.downtime_ms[1],
            self.max_latency_ms,
            self.max_loss_pct,
            self.max_duplicate_pct,
            self.max_slow_link_ms,
            self.max_flush_ms,
            self.network,
            self.flush_ms,
            self.writes_per_second,
            self.max_writes_per_second,
            if self.linger_zero {
                "0 ms".to_string()
            } else {
                format!("{} ms", QuorumConfig::default().append_linger_ms)
            },
            self.snapshot_interval,
        )
    }
}

const LINGER_KEY: &str = "controller.quorum.append.linger.ms";

/// When the calm tail starts in a run of `seconds`.
pub fn heal_at_ms(opts: &ChaosOptions) -> u64 {
    (opts.seconds * 1000).saturating_sub(CALM_TAIL_MS)
}

/// One seeded random run: the cluster and its timed fault schedule.
pub fn random_run(seed: u64, opts: &ChaosOptions) -> (ClusterSpec, Vec<TimedAction>) {
    let mix = FaultMix::of_seed(seed);
    let mut spec = ClusterSpec {
        voters: opts.voters,
        observers: opts.observers,
        seed,
        network: NetworkSpec::Preset(mix.network.into()),
        unsafe_switches: opts.unsafe_switches.clone(),
        flush_ms: mix.flush_ms,
        snapshot_interval: mix.snapshot_interval,
        writes_per_second: mix.writes_per_second,
        kafka_release: opts.release.clone(),
        ..ClusterSpec::default()
    };
    if mix.linger_zero {
        spec.config.insert(LINGER_KEY.into(), 0);
    }
    let mut actions = schedule(seed, opts, &mix);
    if opts.membership {
        spec.quorum = Some(QuorumKind::Dynamic);
        spec.kafka_release.get_or_insert_with(|| MEMBERSHIP_RELEASE.to_string());
        actions.extend(voter_changes(seed, opts));
        actions.sort_by_key(|a| a.t); // stable: the fault schedule's own order is kept
    }
    (spec, actions)
}

/// The admin client's voter changes in a world with membership changes, before the
/// heal: every 1-6 s one of add a node, remove a voter (the leader about one time in
/// the set's size), or (once a run) replace a voter's disk. A replacement is the operator's whole
/// procedure: wipe, restart 0.2-3 s later, remove the old key 0.5-2 s after that, add the
/// new one 1-3 s after that. Like an operator, the schedule never shrinks the set it
/// means to have below the voters the quorum started with: a smaller set is a weaker
/// quorum (one voter commits before its flush, `one_voter_flush.rs`; two lose their
/// quorum to one lost disk), which the stories show on purpose rather than the sweep at
/// random. The leader still refuses what it must (DUPLICATE_VOTER, VOTER_NOT_FOUND, a
/// change while one is pending), so the set it has can differ from the one meant.
fn voter_changes(seed: u64, opts: &ChaosOptions) -> Vec<TimedAction> {
    let mut rng = Rng::fork(seed, STREAM_MEMBERSHIP);
    let nodes = opts.voters + opts.observers;
    // The last change (a replacement's last add) lands before the heal.
    let last = heal_at_ms(opts).saturating_sub(15_000);
    let mut meant: Vec<NodeId> = (0..opts.voters).collect();
    let mut replaced = false;
    let mut actions = Vec::new();
    let mut t = rng.range(2_000, 6_000);
    while t < last {
        let pick = |rng: &mut Rng, from: &[NodeId]| from[rng.below(from.len() as u64) as usize];
        let others: Vec<NodeId> = (0..nodes).filter(|n| !meant.contains(n)).collect();
        match rng.below(3) {
            0 if !others.is_empty() => {
                let node = pick(&mut rng, &others);
                meant.push(node);
                // An operator checks and asks again: a refused add (a change pending, the
                // new voter lagging) or one whose uncommitted record a new leader truncated
                // would leave the set smaller than meant, and later removals could take it
                // down to one voter. A repeat of an add that took is refused as
                // DUPLICATE_VOTER and changes nothing.
                for retry in 0..3 {
                    actions.push(TimedAction { t: t + retry * 3_000, action: Action::AddVoter { node } });
                }
            }
            1 if meant.len() > opts.voters as usize => {
                let node = pick(&mut rng, &meant);
                meant.retain(|m| *m != node);
                actions.push(TimedAction { t, action: Action::RemoveVoter { node } });
            }
            2 if !replaced => {
                replaced = true;
                let node = pick(&mut rng, &meant);
                let restart = t + rng.range(200, 3_000);
                let remove = restart + rng.range(500, 2_000);
                let add = remove + rng.range(1_000, 3_000);
                actions.push(TimedAction { t, action: Action::Wipe { node } });
                actions.push(TimedAction { t: restart, action: Action::Restart { node } });
                actions.push(TimedAction { t: remove, action: Action::RemoveVoter { node } });
                for retry in 0..3 {
                    actions.push(TimedAction { t: add + retry * 3_000, action: Action::AddVoter { node } });
                }
                t = add + 6_000;
            }
            _ => {}
        }
        t += rng.range(1_000, 6_000);
    }
    actions
}

fn schedule(seed: u64, opts: &ChaosOptions, mix: &FaultMix) -> Vec<TimedAction> {
    let mut rng = Rng::fork(seed, STREAM_SCHEDULE);
    let nodes = opts.voters + opts.observers;
    let heal_at = heal_at_ms(opts);
    let mut actions = Vec::new();
    let mut crashed: Vec<(NodeId, u64)> = Vec::new();
    let mut cuts: Vec<(NodeId, NodeId)> = Vec::new();
    let mut t = rng.range(500, 3000);
    while t < heal_at {
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
        let other = (node + 1 + rng.below(nodes.saturating_sub(1) as u64) as NodeId) % nodes;
        let mut crash = |n: NodeId, rng: &mut Rng| {
            if crashed.iter().any(|(c, _)| *c == n) {
                return None;
            }
            crashed.push((n, t + rng.range(mix.downtime_ms[0], mix.downtime_ms[1])));
            Some(Action::Crash { node: n })
        };
        let action = match mix.draw(&mut rng) {
            None => None,
            Some(Fault::CrashVoter) => crash(voter, &mut rng),
            Some(Fault::CrashNode) => crash(node, &mut rng),
            Some(Fault::Partition) => {
                let mut groups = vec![Vec::new(); rng.range(2, 3) as usize];
                for n in 0..nodes {
                    let g = rng.below(groups.len() as u64) as usize;
                    groups[g].push(n);
                }
                groups.retain(|g| !g.is_empty());
                Some(Action::Partition { groups })
            }
            Some(Fault::Isolate) => Some(Action::Isolate { node: voter }),
            Some(Fault::Cut) if other != node => {
                cuts.push((node, other));
                Some(Action::Cut { from: node, to: other })
            }
            Some(Fault::Uncut) if !cuts.is_empty() => {
                let (from, to) = cuts.swap_remove(rng.below(cuts.len() as u64) as usize);
                Some(Action::Uncut { from, to })
            }
            Some(Fault::SlowLink) if other != node => {
                let lo = rng.range(1, mix.max_slow_link_ms / 2);
                Some(Action::SlowLink { from: node, to: other, latency_ms: [lo, rng.range(lo, mix.max_slow_link_ms)] })
            }
            Some(Fault::Heal) => {
                cuts.clear();
                Some(Action::Heal)
            }
            Some(Fault::Network) => {
                // Latency at least 1 ms: a zero-latency network lets leaderless voters
                // ping-pong Fetches inside one millisecond (a livelock handled elsewhere).
                let lo = rng.range(1, (mix.max_latency_ms / 4).max(1));
                Some(Action::Network {
                    latency_ms: [lo, rng.range(lo, mix.max_latency_ms)],
                    loss: rng.range(0, mix.max_loss_pct) as f64 / 100.0,
                    duplicate: rng.range(0, mix.max_duplicate_pct) as f64 / 100.0,
                })
            }
            Some(Fault::SlowDisk) => Some(Action::SlowDisk { node, flush_ms: rng.range(0, mix.max_flush_ms) }),
            Some(Fault::Resign) => Some(Action::Resign),
            Some(Fault::Workload) => {
                Some(Action::Workload { writes_per_second: rng.range(0, mix.max_writes_per_second as u64) as u32 })
            }
            Some(Fault::Cut | Fault::Uncut | Fault::SlowLink) => None, // no link to act on
        };
        if let Some(a) = action {
            actions.push(TimedAction { t, action: a });
        }
        t += rng.range(mix.gap_ms[0], mix.gap_ms[1]);
    }
    // Heal everything: restart the crashed nodes, heal the links, restore the network and
    // the disks, and give the client a steady load.
    for (n, until) in crashed {
        actions.push(TimedAction { t: until.min(heal_at), action: Action::Restart { node: n } });
    }
    actions.push(TimedAction { t: heal_at, action: Action::Heal });
    let base = mix.base_profile();
    let latency_ms = [base.latency_min_ms, base.latency_max_ms];
    actions.push(TimedAction { t: heal_at, action: Action::Network { latency_ms, loss: 0.0, duplicate: 0.0 } });
    for n in 0..nodes {
        actions.push(TimedAction { t: heal_at, action: Action::SlowDisk { node: n, flush_ms: mix.flush_ms } });
    }
    actions.push(TimedAction { t: heal_at, action: Action::Workload { writes_per_second: TAIL_WRITES_PER_SECOND } });
    actions.sort_by_key(|a| a.t); // stable: same-time actions keep their order
    actions
}

/// How long after the heal a leader must be elected and its HW must move past every HW
/// exposed before the heal. The sum of worst cases, under the calm tail's conditions (no
/// faults, the base network and disks):
/// 1. residue of the chaos: messages already sent arrive within the slowest latency a
///    fault could set (`max_latency_ms`, or a slow link), and a flush under way ends
///    within the slowest flush (`max_flush_ms`);
/// 2. detection: every voter's next timer fires within the longest of the fetch timeout
///    (a follower of a dead or deposed leader), twice the election timeout (an
///    unattached or resigned voter's timeout is random in [T, 2T)), the request timeout
///    (a request dropped before the heal is abandoned) and the EndQuorumEpoch backoff cap;
/// 3. [`ELECTION_ROUNDS`] lost rounds, each a fresh random election timeout (< 2T) plus
///    the pre-vote and vote round trips and the flush of the vote;
/// 4. the first commit: the leader lingers, a follower's Fetch may be parked for the
///    fetch max wait, and [`CATCH_UP_ROUNDS`] fetch round trips (each with a flush) bring
///    a majority up to the new epoch's start.
pub fn liveness_bound_ms(config: &QuorumConfig, mix: &FaultMix) -> u64 {
    let base = mix.base_profile();
    let round_trip = 2 * base.latency_max_ms + mix.flush_ms;
    let residue = mix.max_latency_ms.max(mix.max_slow_link_ms) + mix.max_flush_ms;
    let detection = config
        .fetch_timeout_ms
        .max(2 * config.election_timeout_ms)
        .max(config.request_timeout_ms)
        .max(config.election_backoff_max_ms);
    let election = ELECTION_ROUNDS * (2 * config.election_timeout_ms + 2 * round_trip);
    let commit = config.append_linger_ms + config.fetch_max_wait_ms + CATCH_UP_ROUNDS * round_trip;
    residue + detection + election + commit
}

/// How the quorum came back after the heal, in ms after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// A leader (the running leader of the highest epoch) is first seen.
    pub leader_ms: Option<u64>,
    /// That leader's HW first passes every HW exposed before the heal.
    pub hw_ms: Option<u64>,
    /// The HW moved again between recovering and the end of the run.
    pub kept_committing: bool,
}

/// What one seed's run came to.
#[derive(Clone, Debug)]
pub struct SeedOutcome {
    pub seed: u64,
    pub mix: FaultMix,
    pub violations: Vec<(Invariant, String)>,
    pub recovery: Recovery,
    pub liveness_bound_ms: u64,
    /// Did the quorum recover within the bound and keep committing?
    pub made_progress: bool,
    /// At the heal, at least half the voters had lost their disks and were not added
    /// back ([`lost_a_majority_of_disks`]): no leader can be elected again, as in Kafka,
    /// so the run is not held to the liveness bound.
    pub quorum_lost: bool,
    pub events: u64,
    pub simulated_ms: u64,
}

impl SeedOutcome {
    pub fn passed(&self) -> bool {
        self.violations.is_empty() && (self.made_progress || self.quorum_lost)
    }

    /// Why the seed failed, in one line (None when it passed).
    pub fn failure(&self) -> Option<String> {
        if let Some((inv, detail)) = self.violations.first() {
            return Some(format!("{} violation(s), first {}: {}", self.violations.len(), inv.name(), detail));
        }
        if self.made_progress || self.quorum_lost {
            return None;
        }
        let bound = self.liveness_bound_ms;
        let r = self.recovery;
        Some(match (r.leader_ms, r.hw_ms) {
            (None, _) => format!("liveness: no leader within {bound} ms after the heal"),
            (Some(l), None) => format!("liveness: leader after {l} ms but the HW did not move within {bound} ms"),
            (Some(_), Some(h)) => format!("liveness: recovered after {h} ms but the HW froze after that"),
        })
    }
}

/// Whether a majority of the voters lost their disks for good: in the voter set of the
/// most up-to-date log (the longest, among the replicas of the highest last epoch), at
/// least half the voters are named by a directory id that no node's disk has any more (a
/// wipe formatted a new one and the new disk was not added back). Those voters' votes
/// and records are gone and the new disks cannot stand for them (INVALID_VOTER_KEY), so
/// no candidate can win: a KIP-853 quorum that loses a majority of its voters' disks
/// needs an operator's unclean recovery. A static quorum's voters have no directory
/// ids: never lost by this rule.
pub fn lost_a_majority_of_disks(world: &World) -> bool {
    let newest = world
        .nodes
        .iter()
        .filter_map(|n| n.replica.as_ref())
        .max_by_key(|r| (r.log().last_epoch(), r.log().end_offset()));
    let Some(r) = newest else { return false };
    let voters: Vec<NodeId> = ReplicaCore::voters(r).collect();
    let gone = voters
        .iter()
        .filter(|&&v| {
            r.voter_directory(v).is_some_and(|d| world.nodes.get(v as usize).is_none_or(|n| n.directory() != Some(d)))
        })
        .count();
    2 * gone >= voters.len() && !voters.is_empty()
}

/// The highest HW any running node exposes.
fn exposed_hw(world: &World) -> u64 {
    world.nodes.iter().filter_map(|n| n.replica.as_ref()).filter_map(|r| r.high_watermark()).max().unwrap_or(0)
}

/// The HW of the running leader of the highest epoch.
fn leader_hw(world: &World) -> Option<u64> {
    let (id, _) = world.leader()?;
    Some(world.nodes[id as usize].replica.as_ref()?.high_watermark().unwrap_or(0))
}

/// Runs `sim` from now (the heal) to `end`, watching for the first leader and the first
/// HW past every HW exposed now, for at most `bound` ms; then checks the HW moved again
/// by `end`.
pub fn watch_recovery(sim: &mut Simulation, bound: u64, end: u64) -> Recovery {
    let heal_at = sim.now();
    let hw_before = exposed_hw(sim.world());
    let mut recovery = Recovery { leader_ms: None, hw_ms: None, kept_committing: false };
    let mut recovered_hw = 0;
    while sim.now() < end {
        let since = sim.now() - heal_at;
        if let Some(hw) = leader_hw(sim.world()) {
            recovery.leader_ms.get_or_insert(since);
            if hw > hw_before {
                recovery.hw_ms = Some(since);
                recovered_hw = hw;
                break;
            }
        }
        if since >= bound {
            break;
        }
        sim.advance(1).expect("a millisecond");
    }
    sim.advance(end.saturating_sub(sim.now())).expect("within a day");
    recovery.kept_committing = recovery.hw_ms.is_some() && leader_hw(sim.world()).unwrap_or(0) > recovered_hw;
    recovery
}

pub fn run_seed(seed: u64, opts: &ChaosOptions) -> SeedOutcome {
    let (spec, actions) = random_run(seed, opts);
    let mix = FaultMix::of_seed(seed);
    let config = spec.resolve::<KRaft>().expect("generated specs are valid").protocol.quorum;
    let bound = liveness_bound_ms(&config, &mix);
    let end = opts.seconds * 1000;
    let heal_at = heal_at_ms(opts);
    // Replay includes the inputs at `heal_at` itself: the heal.
    let mut sim = Simulation::replay_once(spec, actions, heal_at).expect("generated runs are valid");
    let quorum_lost = lost_a_majority_of_disks(sim.world());
    let recovery = watch_recovery(&mut sim, bound, end);
    let made_progress = recovery.hw_ms.map(|h| h <= bound).unwrap_or(false) && recovery.kept_committing;
    let violations = sim
        .violations()
        .filter_map(|e| match &e.kind {
            EventKind::Violation { invariant, detail, .. } => Some((*invariant, detail.to_string())),
            _ => None,
        })
        .collect();
    SeedOutcome {
        seed,
        mix,
        violations,
        recovery,
        liveness_bound_ms: bound,
        made_progress,
        quorum_lost,
        events: sim.last_seq(),
        simulated_ms: sim.now(),
    }
}

/// The command that reproduces one seed.
pub fn repro_command(seed: u64, opts: &ChaosOptions) -> String {
    let mut cmd = format!(
        "cargo run --release -p kraft-sim --example sweep -- --seeds 1 --first-seed {seed} --seconds {} --voters {}",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// After recovering, the quorum must keep committing: at least this much of the tail
    /// is left after the bound to see the HW move again.
    const PROGRESS_MARGIN_MS: u64 = 1_000;

    /// The wildest world the mix can draw, for the bound.
    fn wildest() -> FaultMix {
        FaultMix {
            max_latency_ms: MAX_FAULT_LATENCY_MS,
            max_slow_link_ms: MAX_SLOW_LINK_MS,
            max_flush_ms: MAX_SLOW_FLUSH_MS,
            flush_ms: MAX_BASE_FLUSH_MS,
            network: "wan",
            linger_zero: false,
            ..FaultMix::of_seed(1)
        }
    }

    #[test]
    fn the_calm_tail_holds_the_liveness_bound_of_every_mix() {
        let bound = liveness_bound_ms(&QuorumConfig::default(), &wildest());
        assert!(bound + PROGRESS_MARGIN_MS <= CALM_TAIL_MS, "bound {bound} ms");
        for seed in 0..2_000 {
            let mix = FaultMix::of_seed(seed);
            assert!(liveness_bound_ms(&QuorumConfig::default(), &mix) <= bound, "seed {seed}: {mix}");
            let b = mix.base_profile();
            assert!(mix.max_latency_ms <= MAX_FAULT_LATENCY_MS && b.latency_max_ms <= 80, "seed {seed}: {mix}");
            assert!(mix.max_flush_ms <= MAX_SLOW_FLUSH_MS && mix.flush_ms <= MAX_BASE_FLUSH_MS, "seed {seed}: {mix}");
        }
    }

    #[test]
    fn seeds_draw_different_worlds() {
        let mixes: Vec<FaultMix> = (0..200).map(FaultMix::of_seed).collect();
        for f in Fault::ALL {
            let off = mixes.iter().filter(|m| m.weight(f) == 0).count();
            assert!((20..=80).contains(&off), "{} is off in {off} of 200 worlds", f.name());
        }
        let linger_zero = mixes.iter().filter(|m| m.linger_zero).count();
        assert!((60..=140).contains(&linger_zero), "linger 0 in {linger_zero} of 200");
        assert_eq!(FaultMix::of_seed(7), FaultMix::of_seed(7));
    }

    #[test]
    fn the_schedule_ends_with_everything_healed() {
        let opts =
            ChaosOptions { seconds: 40, voters: 3, observers: 2, unsafe_switches: vec![], ..ChaosOptions::default() };
        for seed in 1..50 {
            let (_, actions) = random_run(seed, &opts);
            let heal_at = heal_at_ms(&opts);
            assert!(actions.iter().all(|a| a.t <= heal_at), "seed {seed}: a fault after the heal");
            let tail: Vec<&Action> = actions.iter().filter(|a| a.t == heal_at).map(|a| &a.action).collect();
            assert!(tail.contains(&&Action::Heal), "seed {seed}");
            let mut down = std::collections::BTreeSet::new();
            for a in &actions {
                match a.action {
                    Action::Crash { node } => down.insert(node),
                    Action::Restart { node } => down.remove(&node),
                    _ => false,
                };
            }
            assert!(down.is_empty(), "seed {seed}: {down:?} never restarted");
        }
    }
}
