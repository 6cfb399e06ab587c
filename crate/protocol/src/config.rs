//! Quorum configuration (Kafka's `controller.quorum.*` names and defaults, from Kafka's
//! QuorumConfig; its `metadata.*` snapshot and retention keys from KRaftConfigs, with
//! scaled-down defaults; plus one `sim.` knob for a constant Kafka does not let you change) and
//! the safety switches that let a user turn off one of KRaft's rules to watch what breaks.

use kraft_base::limit::{doc, Limit, Unit};
use kraft_base::messages::cap;
use serde::Serialize;

/// How often the log cleaner runs: KafkaRaftClient's RaftMetadataLogCleanerManager
/// delay, a constant (60 s) in Kafka.
pub const LOG_CLEANER_INTERVAL_MS: u64 = 60_000;

/// Timers and limits of one replica. Field names follow the config keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuorumConfig {
    /// `controller.quorum.fetch.timeout.ms`: a follower without a successful Fetch
    /// response for this long starts an election (pre-vote).
    pub fetch_timeout_ms: u64,
    /// `controller.quorum.election.timeout.ms`: randomised uniformly in [T, 2T).
    pub election_timeout_ms: u64,
    /// `controller.quorum.election.backoff.max.ms`: caps the EndQuorumEpoch backoff.
    pub election_backoff_max_ms: u64,
    /// `controller.quorum.request.timeout.ms`: an unanswered request is abandoned.
    pub request_timeout_ms: u64,
    /// `controller.quorum.retry.backoff.ms`: wait after an error response.
    pub retry_backoff_ms: u64,
    /// `controller.quorum.append.linger.ms`: the leader batches client writes this long.
    pub append_linger_ms: u64,
    /// `controller.quorum.fetch.max.bytes`: the Fetch request's `maxBytes`, the most a
    /// response carries (always at least one record).
    pub fetch_max_bytes: u64,
    /// `controller.quorum.fetch.snapshot.max.bytes`: the FetchSnapshot request's
    /// `maxBytes`, the size of one snapshot chunk.
    pub fetch_snapshot_max_bytes: u64,
    /// `sim.fetchMaxWaitMs`: the Fetch request's `maxWaitMs`, how long the leader parks a
    /// Fetch with nothing to return. Kafka fixes it (KafkaRaftClient.MAX_FETCH_WAIT_MS,
    /// 500 ms); only the simulator lets you change it.
    pub fetch_max_wait_ms: u64,
    /// `metadata.log.max.snapshot.interval.ms`: a snapshot is also taken when this long
    /// has passed since the last one and new records were applied (0: only by size).
    pub snapshot_max_interval_ms: u64,
    /// `metadata.max.retention.bytes`: the cleaner drops old snapshots and the records
    /// before the next one while the log and the snapshots take more than this.
    pub retention_max_bytes: u64,
    /// `metadata.max.retention.ms`: the cleaner drops a snapshot (and the records before
    /// the next one) whose last record is older than this.
    pub retention_max_ms: u64,
    /// The Kafka release whose raft behaviour the replica models where releases differ
    /// (a cluster spec's `kafkaRelease`; not a config key of Kafka's).
    pub release: KafkaRelease,
    /// `controller.quorum.auto.join.enable` (Kafka 4.2+, QuorumConfig.autoJoin, default
    /// false), 1 for true: a controller that is an observer adds itself to the voters.
    /// Kafka also asks that the process be a controller (KafkaRaftClient's canBecomeVoter):
    /// a spec may set it only on a dynamic quorum, whose nodes are all controllers
    /// (`KRaft::configure`).
    pub auto_join: u64,
}

/// Kafka's default for both byte limits (QuorumConfig: 1 MiB).
pub const DEFAULT_FETCH_MAX_BYTES: u64 = 1024 * 1024;

/// The most a byte limit may be set to, so one response stays a bounded amount of work.
pub const MAX_BYTES_LIMIT: u64 = 64 * 1024 * 1024;

/// The most `metadata.max.retention.bytes` may be, so the kept log fits the memory budget.
pub const MAX_RETENTION_BYTES: u64 = 64 * 1024 * 1024;

/// One config key: its limit (default, range, unit, doc) and the field it sets.
#[derive(Clone, Copy)]
pub struct ConfigKey {
    pub limit: Limit,
    slot: fn(&mut QuorumConfig) -> &mut u64,
}

const fn key(
    key: &'static str,
    default: u64,
    min: u64,
    max: u64,
    unit: Unit,
    description: &'static str,
    slot: fn(&mut QuorumConfig) -> &mut u64,
) -> ConfigKey {
    ConfigKey {
        limit: Limit {
            key,
            description: doc(description),
            default: Some(default),
            min,
            max: Some(max),
            unit: Some(unit),
            zero_turns_off: false,
        },
        slot,
    }
}

/// A boolean config key: 0 (false, the default) or 1 (true), without a unit.
const fn flag(key: &'static str, description: &'static str, slot: fn(&mut QuorumConfig) -> &mut u64) -> ConfigKey {
    ConfigKey {
        limit: Limit {
            key,
            description: doc(description),
            default: Some(0),
            min: 0,
            max: Some(1),
            unit: None,
            zero_turns_off: false,
        },
        slot,
    }
}

/// The name of the auto-join key, which `KRaft::configure` checks against the release and
/// the quorum.
pub const AUTO_JOIN_KEY: &str = "controller.quorum.auto.join.enable";

/// The accepted config keys. Kafka's defaults, except the three `metadata.*` keys, scaled
/// down from Kafka's (1 hour, 100 MiB, 7 days) so a playground run sees snapshots and
/// cleaning; their shape stays Kafka's: the log keeps a few snapshot intervals of records.
pub const CONFIG_KEYS: [ConfigKey; 13] = [
    key(
        "controller.quorum.fetch.timeout.ms",
        2000,
        10,
        600_000,
        Unit::Ms,
        "follower fetch timeout before it starts an election",
        |c| &mut c.fetch_timeout_ms,
    ),
    key(
        "controller.quorum.election.timeout.ms",
        1000,
        10,
        600_000,
        Unit::Ms,
        "base election timeout, randomised in [T, 2T)",
        |c| &mut c.election_timeout_ms,
    ),
    key(
        "controller.quorum.election.backoff.max.ms",
        1000,
        1,
        600_000,
        Unit::Ms,
        "cap of the EndQuorumEpoch successor backoff",
        |c| &mut c.election_backoff_max_ms,
    ),
    key(
        "controller.quorum.request.timeout.ms",
        2000,
        10,
        600_000,
        Unit::Ms,
        "how long a request may stay unanswered",
        |c| &mut c.request_timeout_ms,
    ),
    key("controller.quorum.retry.backoff.ms", 20, 0, 60_000, Unit::Ms, "wait after an error response", |c| {
        &mut c.retry_backoff_ms
    }),
    key("controller.quorum.append.linger.ms", 25, 0, 60_000, Unit::Ms, "how long the leader batches writes", |c| {
        &mut c.append_linger_ms
    }),
    key(
        "controller.quorum.fetch.max.bytes",
        DEFAULT_FETCH_MAX_BYTES,
        1,
        MAX_BYTES_LIMIT,
        Unit::Bytes,
        "most bytes of records one Fetch response carries",
        |c| &mut c.fetch_max_bytes,
    ),
    key(
        "controller.quorum.fetch.snapshot.max.bytes",
        DEFAULT_FETCH_MAX_BYTES,
        1,
        MAX_BYTES_LIMIT,
        Unit::Bytes,
        "most bytes of snapshot one FetchSnapshot response carries",
        |c| &mut c.fetch_snapshot_max_bytes,
    ),
    flag(AUTO_JOIN_KEY, "1: a controller observer adds itself to the voters (Kafka 4.2+, dynamic quorum)", |c| {
        &mut c.auto_join
    }),
    key(
        "sim.fetchMaxWaitMs",
        500,
        0,
        60_000,
        Unit::Ms,
        "simulator only: how long the leader parks an empty Fetch (Kafka: a fixed 500 ms)",
        |c| &mut c.fetch_max_wait_ms,
    ),
    key(
        "metadata.log.max.snapshot.interval.ms",
        60_000,
        0,
        86_400_000,
        Unit::Ms,
        "snapshot at least this often while records arrive (sim default 1 min)",
        |c| &mut c.snapshot_max_interval_ms,
    ),
    key(
        "metadata.max.retention.bytes",
        256 * 1024,
        0,
        MAX_RETENTION_BYTES,
        Unit::Bytes,
        "clean old snapshots and records above this size (sim default 256 KiB)",
        |c| &mut c.retention_max_bytes,
    ),
    key(
        "metadata.max.retention.ms",
        300_000,
        0,
        7 * 86_400_000,
        Unit::Ms,
        "clean snapshots whose last record is older than this (sim default 5 min)",
        |c| &mut c.retention_max_ms,
    ),
];

impl Default for QuorumConfig {
    /// Every key at its table default.
    fn default() -> Self {
        let mut c = QuorumConfig {
            fetch_timeout_ms: 0,
            election_timeout_ms: 0,
            election_backoff_max_ms: 0,
            request_timeout_ms: 0,
            retry_backoff_ms: 0,
            append_linger_ms: 0,
            fetch_max_bytes: 0,
            fetch_snapshot_max_bytes: 0,
            fetch_max_wait_ms: 0,
            snapshot_max_interval_ms: 0,
            retention_max_bytes: 0,
            retention_max_ms: 0,
            release: KafkaRelease::Legacy,
            auto_join: 0,
        };
        for k in &CONFIG_KEYS {
            *(k.slot)(&mut c) = k.limit.default.unwrap_or(0);
        }
        c
    }
}

impl QuorumConfig {
    fn key(name: &str) -> Option<&'static ConfigKey> {
        CONFIG_KEYS.iter().find(|k| k.limit.key == name)
    }

    /// Sets one value by its name. Errors name the key and the allowed range.
    pub fn set(&mut self, key: &str, value: u64) -> Result<(), String> {
        let Some(k) = Self::key(key) else {
            let known: Vec<&str> = CONFIG_KEYS.iter().map(|k| k.limit.key).collect();
            return Err(format!("unknown config key '{}'; known keys: {}", cap(key), known.join(", ")));
        };
        *(k.slot)(self) = k.limit.check(value).map_err(|e| format!("{key} {e}"))?;
        Ok(())
    }

    /// The value of one key (None for an unknown key).
    pub fn get(&self, key: &str) -> Option<u64> {
        Self::key(key).map(|k| *(k.slot)(&mut self.clone()))
    }

    /// Check-quorum window: 1.5 x fetch timeout, as in Kafka's LeaderState.
    pub fn check_quorum_timeout_ms(&self) -> u64 {
        self.fetch_timeout_ms * 3 / 2
    }

    /// Interval of the BeginQuorumEpoch heartbeat: half the fetch timeout.
    pub fn begin_quorum_epoch_interval_ms(&self) -> u64 {
        (self.fetch_timeout_ms / 2).max(1)
    }
}

/// The Kafka release whose raft behaviour a run models (a cluster spec's `kafkaRelease`),
/// for the behaviours that differ between releases. Everything else follows
/// Kafka's current code in every release, as KRAFT.md says.
///
/// `Legacy`, the default, is no Kafka release: it is the playground's model from before
/// releases were modelled, which every run made without a release (links, stories, golden
/// traces) replays byte for byte. It runs a static quorum as it was before KIP-853 (a
/// voter never sends UpdateRaftVoter, so the leader's view of the voters never changes)
/// and writes the quorum-state file for free, where every Kafka release blocks its raft
/// thread on an fsync of that file before it acts (FileQuorumStateStore.writeElectionState).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum KafkaRelease {
    #[default]
    #[cfg_attr(feature = "ts", ts(rename = "legacy"))]
    Legacy,
    #[cfg_attr(feature = "ts", ts(rename = "3.9"))]
    V3_9,
    #[cfg_attr(feature = "ts", ts(rename = "4.0"))]
    V4_0,
    #[cfg_attr(feature = "ts", ts(rename = "4.1"))]
    V4_1,
    #[cfg_attr(feature = "ts", ts(rename = "4.2"))]
    V4_2,
}

/// By name, as a string (smaller in the wasm than serde's derived enum).
impl Serialize for KafkaRelease {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl KafkaRelease {
    pub const ALL: [KafkaRelease; 5] =
        [KafkaRelease::Legacy, KafkaRelease::V3_9, KafkaRelease::V4_0, KafkaRelease::V4_1, KafkaRelease::V4_2];

    /// Every release's name, in `ALL`'s order.
    pub const NAMES: [&'static str; 5] = ["legacy", "3.9", "4.0", "4.1", "4.2"];

    pub fn name(self) -> &'static str {
        KafkaRelease::NAMES[self as usize]
    }

    /// One line on what the release changes in a run, for help texts and the UI.
    pub fn explanation(self) -> &'static str {
        match self {
            KafkaRelease::Legacy => {
                "the playground before releases were modelled (no Kafka release): a static quorum as before \
                 KIP-853, and quorum-state writes that cost no flush"
            }
            KafkaRelease::V3_9 | KafkaRelease::V4_0 => {
                "quorum-state writes block the raft thread for a flush; a voter sends UpdateRaftVoter when its \
                 entry in a kraft.version 1 voter set is out of date; a kraft.version 0 leader answers it \
                 UNSUPPORTED_VERSION"
            }
            KafkaRelease::V4_1 => {
                "as 3.9, and a voter tells each new leader its entry at kraft.version 0 too, which the leader \
                 keeps in memory for an upgrade of kraft.version to 1 (KAFKA-16538)"
            }
            KafkaRelease::V4_2 => {
                "as 4.1, with UpdateRaftVoter every fetch timeout, and controllers that may add themselves to \
                 the voters (controller.quorum.auto.join.enable, KIP-1186)"
            }
        }
    }

    pub fn all_names() -> Vec<&'static str> {
        KafkaRelease::NAMES.to_vec()
    }

    /// The release named `name`, if one is.
    pub fn find(name: &str) -> Option<KafkaRelease> {
        KafkaRelease::NAMES.iter().position(|n| *n == name).map(|i| KafkaRelease::ALL[i])
    }

    pub fn parse(name: &str) -> Result<KafkaRelease, String> {
        KafkaRelease::find(name).ok_or_else(|| {
            format!("unknown Kafka release '{}'; known releases: {}", cap(name), KafkaRelease::NAMES.join(", "))
        })
    }

    /// This is a Kafka release at or after `r` (never the legacy model).
    fn since(self, r: KafkaRelease) -> bool {
        self != KafkaRelease::Legacy && self >= r
    }

    /// Every node's metadata log directory has a directory id (`kafka-storage.sh format`
    /// writes it to meta.properties; KafkaRaftClient refuses to start without one): a
    /// Kafka release's replica formats a blank disk with one at its first start. The legacy
    /// model's static quorums never read it, and leave it out.
    pub fn formats_directory_ids(self) -> bool {
        self.since(KafkaRelease::V3_9)
    }

    /// FileQuorumStateStore.writeElectionState writes the quorum-state file and fsyncs it
    /// on the raft thread before QuorumState moves (durableTransitionTo): every Kafka
    /// release; the legacy model writes it for free.
    pub fn quorum_state_write_flushes(self) -> bool {
        self.since(KafkaRelease::V3_9)
    }

    /// A voter follower sends UpdateRaftVoter (KafkaRaftClient.pollFollowerAsVoter, 3.9+,
    /// KAFKA-16534); the legacy model never does.
    pub fn voters_send_update_voter(self) -> bool {
        self.since(KafkaRelease::V3_9)
    }

    /// KAFKA-16538 (4.1+), the upgrade of static quorums: at kraft.version 0 a voter sends
    /// UpdateRaftVoter once to each new leader (KafkaRaftClient.shouldSendUpdateVoteRequest),
    /// takes NONE or UNSUPPORTED_VERSION as done and as a successful fetch
    /// (handleUpdateVoterResponse: setHasUpdatedLeader, resetFetchTimeoutForSuccessfulFetch),
    /// restarts its update voter timer only once the request went out (RequestSendResult),
    /// and the leader's kraft.version can be upgraded to 1
    /// (LeaderState.maybeAppendUpgradedKRaftVersion).
    pub fn kafka_16538(self) -> bool {
        self.since(KafkaRelease::V4_1)
    }

    /// 3.9 and 4.0's UpdateVoterHandler: a kraft.version 0 leader answers UNSUPPORTED_VERSION
    /// ("KAFKA-16538 will implement the case when the kraft.version is 0"), and a successful
    /// update does not count as the voter's fetch for check-quorum (4.1's
    /// storeUpdatedVoters calls updateCheckQuorumForFollowingVoter). The legacy model has
    /// the current handler.
    pub fn update_voter_handler_before_kafka_16538(self) -> bool {
        matches!(self, KafkaRelease::V3_9 | KafkaRelease::V4_0)
    }

    /// How often a voter follower may send UpdateRaftVoter (FollowerState's update voter
    /// timer): three fetch timeouts in 3.9 to 4.1 (FollowerState.updateVoterPeriodMs,
    /// KAFKA-16534: "at most every 3 fetch timeouts"), one from 4.2 on, where auto-join
    /// (KAFKA-19078) made it the update voter *set* period it shares with AddRaftVoter and
    /// RemoveRaftVoter (RaftClientTestContext.NUMBER_FETCH_TIMEOUTS_IN_UPDATE_VOTER_SET_PERIOD = 1).
    pub fn update_voter_period_ms(self, fetch_timeout_ms: u64) -> u64 {
        if self.since(KafkaRelease::V4_2) {
            fetch_timeout_ms
        } else {
            fetch_timeout_ms * 3
        }
    }

    /// Auto-join and AddRaftVoter v1's AckWhenCommitted (KIP-1186, KAFKA-19078): 4.2+.
    pub fn auto_join(self) -> bool {
        self.since(KafkaRelease::V4_2)
    }
}

/// One of KRaft's safety rules, each of which a user may switch off (unsafe mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SafetySwitch {
    /// The leader may advance the HW over earlier epochs' records (Raft figure 8).
    #[serde(rename = "hw-before-own-epoch")]
    HwBeforeOwnEpoch,
    /// Votes are granted without checking that the candidate's log is up to date.
    #[serde(rename = "vote-ignores-log")]
    VoteIgnoresLog,
    /// Elections skip the pre-vote round (KIP-996).
    #[serde(rename = "no-pre-vote")]
    NoPreVote,
    /// A leader never resigns when it stops hearing from a majority (KAFKA-15489).
    #[serde(rename = "no-check-quorum")]
    NoCheckQuorum,
    /// A restarted leader resumes leading its old epoch (KAFKA-10527).
    #[serde(rename = "no-resign-on-restart")]
    NoResignOnRestart,
    /// A follower reports fetch offsets before they are flushed to disk.
    #[serde(rename = "ack-before-flush")]
    AckBeforeFlush,
    /// The leader accepts a second AddRaftVoter or RemoveRaftVoter while one is pending or
    /// while the latest VotersRecord is uncommitted (the effect of KAFKA-20740).
    #[serde(rename = "multi-voter-change")]
    MultiVoterChange,
}

impl SafetySwitch {
    pub const ALL: [SafetySwitch; 7] = [
        SafetySwitch::HwBeforeOwnEpoch,
        SafetySwitch::VoteIgnoresLog,
        SafetySwitch::NoPreVote,
        SafetySwitch::NoCheckQuorum,
        SafetySwitch::NoResignOnRestart,
        SafetySwitch::AckBeforeFlush,
        SafetySwitch::MultiVoterChange,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SafetySwitch::HwBeforeOwnEpoch => "hw-before-own-epoch",
            SafetySwitch::VoteIgnoresLog => "vote-ignores-log",
            SafetySwitch::NoPreVote => "no-pre-vote",
            SafetySwitch::NoCheckQuorum => "no-check-quorum",
            SafetySwitch::NoResignOnRestart => "no-resign-on-restart",
            SafetySwitch::AckBeforeFlush => "ack-before-flush",
            SafetySwitch::MultiVoterChange => "multi-voter-change",
        }
    }

    /// One line on what the rule protects, for help texts and the UI.
    pub fn explanation(self) -> &'static str {
        match self {
            SafetySwitch::HwBeforeOwnEpoch => {
                "leader may commit earlier epochs' records before one of its own (Raft figure 8)"
            }
            SafetySwitch::VoteIgnoresLog => "voters grant votes without checking the candidate's log is up to date",
            SafetySwitch::NoPreVote => {
                "elections skip the pre-vote round, so a rejoining voter bumps the epoch (KIP-996)"
            }
            SafetySwitch::NoCheckQuorum => "a leader cut off from the majority never resigns (KAFKA-15489)",
            SafetySwitch::NoResignOnRestart => "a restarted leader resumes leading its old epoch (KAFKA-10527)",
            SafetySwitch::AckBeforeFlush => "followers report fetch offsets before flushing them to disk",
            SafetySwitch::MultiVoterChange => {
                "the leader accepts a second voter change while one is pending or uncommitted, so two voter sets \
                 whose majorities need not overlap are in force at once (KAFKA-20740)"
            }
        }
    }

    pub fn all_names() -> Vec<&'static str> {
        SafetySwitch::ALL.iter().map(|s| s.name()).collect()
    }

    pub fn parse(name: &str) -> Result<SafetySwitch, String> {
        SafetySwitch::ALL.iter().copied().find(|s| s.name() == name).ok_or_else(|| {
            format!("unknown safety switch '{}'; known switches: {}", cap(name), SafetySwitch::all_names().join(", "))
        })
    }
}

/// The set of switched-off rules. Empty means Kafka's behaviour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Unsafe(u8);

impl Unsafe {
    pub fn with(mut self, s: SafetySwitch) -> Self {
        self.0 |= 1 << (s as u8);
        self
    }
    pub fn has(self, s: SafetySwitch) -> bool {
        self.0 & (1 << (s as u8)) != 0
    }
    pub fn is_safe(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = SafetySwitch> {
        SafetySwitch::ALL.into_iter().filter(move |s| self.has(*s))
    }
}

/// What every replica of a cluster starts with besides its id and the voters (the
/// boundary's `Protocol::Config`, read from a cluster's spec by `KRaft::configure`).
#[derive(Clone, Debug, Default)]
pub struct ClusterConfig {
    pub quorum: QuorumConfig,
    pub switches: Unsafe,
    /// Records applied between two snapshots (0: no snapshots).
    pub snapshot_interval: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is one of Kafka's QuorumConfig keys (`controller.quorum.*`), one of its
    /// KRaftConfigs snapshot and retention keys (`metadata.*`), or visibly the simulator's
    /// own (`sim.*`): Kafka's 500 ms Fetch wait is KafkaRaftClient's constant
    /// MAX_FETCH_WAIT_MS, not a config.
    #[test]
    fn config_keys_are_kafkas_or_marked_as_the_simulators() {
        let kafka = [
            "controller.quorum.fetch.timeout.ms",
            "controller.quorum.election.timeout.ms",
            "controller.quorum.election.backoff.max.ms",
            "controller.quorum.request.timeout.ms",
            "controller.quorum.retry.backoff.ms",
            "controller.quorum.append.linger.ms",
            "controller.quorum.fetch.max.bytes",
            "controller.quorum.fetch.snapshot.max.bytes",
            "controller.quorum.auto.join.enable",
            "metadata.log.max.snapshot.interval.ms",
            "metadata.max.retention.bytes",
            "metadata.max.retention.ms",
        ];
        for key in CONFIG_KEYS.iter().map(|k| k.limit.key) {
            assert!(kafka.contains(&key) || key.starts_with("sim."), "{key} looks like a Kafka key but is not one");
        }
        let mut c = QuorumConfig::default();
        let e = c.set("controller.quorum.fetch.max.wait.ms", 100).unwrap_err();
        assert!(e.contains("unknown config key"), "{e}");
        c.set("sim.fetchMaxWaitMs", 100).unwrap();
        assert_eq!(c.get("sim.fetchMaxWaitMs"), Some(100));
    }

    /// QuorumConfig: both byte limits default to 1 MiB, and errors give the unit.
    #[test]
    fn byte_limits_default_to_kafkas_1_mib() {
        let c = QuorumConfig::default();
        assert_eq!(c.get("controller.quorum.fetch.max.bytes"), Some(1_048_576));
        assert_eq!(c.get("controller.quorum.fetch.snapshot.max.bytes"), Some(1_048_576));
        let e = QuorumConfig::default().set("controller.quorum.fetch.max.bytes", 0).unwrap_err();
        assert!(e.contains("between 1 and 67108864 bytes, got 0"), "{e}");
        let e = QuorumConfig::default().set("controller.quorum.fetch.timeout.ms", 1).unwrap_err();
        assert!(e.contains("between 10 and 600000 ms, got 1"), "{e}");
    }
}
