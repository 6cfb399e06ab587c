//! The memory budget of one simulation. What the logs, images and checker hold is
//! counted as their shared parts are made and dropped (`shared::Meter`); the events
//! window and the checkpoints' own parts are counted from their lengths. A run that
//! goes over a limit is stopped at the next whole simulated second, well before the
//! wasm heap (4 GiB) fills, and every later advance or action is refused with the
//! reason; the cluster can still be read, seeked back and disposed.

use super::error::SimError;
use crate::trace::Event;
use kraft_base::shared::{Holder, Meter};

const MIB: u64 = 1 << 20;
/// Records in every log, live and in checkpoints (shared between them).
pub const LOGS_BUDGET_BYTES: u64 = 256 * MIB;
/// Topics in every metadata image, live, in snapshots and in checkpoints.
pub const IMAGES_BUDGET_BYTES: u64 = 256 * MIB;
/// What the invariant checker remembers about the logs.
pub const CHECKER_BUDGET_BYTES: u64 = 128 * MIB;
/// The checkpoints' own parts: queues, messages in flight, node state.
pub const CHECKPOINTS_BUDGET_BYTES: u64 = 128 * MIB;
/// Everything together, the events window included (the window has its own cap in
/// events, so it never decides alone).
pub const TOTAL_BUDGET_BYTES: u64 = 512 * MIB;
/// A long advance checks the budget at every multiple of this many simulated ms.
pub const CHECK_EVERY_MS: u64 = 1000;

/// What one event kept in the window is counted as: its own size. The few kinds with heap
/// parts (a partition's groups, an election's majority, a violation's text) are too rare
/// to count, and so is the window's spare capacity.
pub const EVENT_BYTES: u64 = std::mem::size_of::<Event>() as u64;

/// Bytes held by one simulation, by what holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    pub logs: u64,
    pub images: u64,
    pub checker: u64,
    pub checkpoints: u64,
    pub events: u64,
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes.div_ceil(MIB))
}

impl MemoryUsage {
    pub fn new(meter: &Meter, checkpoints: u64, events: u64) -> MemoryUsage {
        MemoryUsage {
            logs: meter.bytes(Holder::Logs),
            images: meter.bytes(Holder::Images),
            checker: meter.bytes(Holder::Checker),
            checkpoints,
            events,
        }
    }

    pub fn total(&self) -> u64 {
        self.logs + self.images + self.checker + self.checkpoints + self.events
    }

    /// The first limit this usage is over, as an error that says what lowers it in a run
    /// that keeps (or does not keep) its `history`.
    pub fn check(&self, history: History) -> Result<(), SimError> {
        let (records, topics, notes, in_all) = match history {
            History::Kept => (
                "lower the write rate (writesPerSecond) or the number of nodes (observers, voters: each holds a \
                 copy); snapshots and retention help little: the records they clean stay for seeking back",
                "create fewer or smaller topics, or snapshot less often (snapshotInterval: each snapshot holds an \
                 image); deleting topics does not help: they stay for seeking back",
                "lower the write rate (writesPerSecond); snapshots help little: the notes they prune stay for \
                 seeking back",
                "lower the write rate (writesPerSecond), the number of nodes (observers, voters) or the size of the topics",
            ),
            History::NotKept => {
                let fewer_records = "enable snapshots (snapshotInterval), lower the retention \
                                     (metadata.max.retention.bytes) or lower the write rate";
                (fewer_records, "create fewer or smaller topics, or delete some", fewer_records, fewer_records)
            }
        };
        let limits = [
            ("the logs hold", "records", self.logs, LOGS_BUDGET_BYTES, records),
            ("the metadata images hold", "topics", self.images, IMAGES_BUDGET_BYTES, topics),
            ("the invariant checker holds", "notes on the logs", self.checker, CHECKER_BUDGET_BYTES, notes),
            (
                "the checkpoints for time travel hold",
                "queued messages and node state",
                self.checkpoints,
                CHECKPOINTS_BUDGET_BYTES,
                "lower the latency or the write rate",
            ),
            ("the cluster holds", "state in all", self.total(), TOTAL_BUDGET_BYTES, in_all),
        ];
        match limits.into_iter().find(|(_, _, bytes, limit, _)| bytes > limit) {
            None => Ok(()),
            Some((who, what, bytes, limit, advice)) => Err(SimError {
                field: "memory".into(),
                message: format!("{who} {} of {what}, over the {} budget: {advice}", mib(bytes), mib(limit)),
            }),
        }
    }
}

/// Whether a run keeps its past to seek back to (`Simulation::new` and `replay` take a
/// checkpoint every 10 s or more; `replay_once` only the first). The checkpoints share
/// the records, images and checker notes the live run has since dropped, so in a run
/// that keeps its history snapshots, retention and deleting topics lower nothing the
/// budget counts: only holding less in the first place does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    Kept,
    NotKept,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_names_what_is_over_and_the_limit() {
        let usage = MemoryUsage { logs: 300 * MIB, ..Default::default() };
        let e = usage.check(History::NotKept).unwrap_err();
        assert_eq!(e.field, "memory");
        assert_eq!(
            e.message,
            "the logs hold 300 MiB of records, over the 256 MiB budget: enable snapshots (snapshotInterval), lower the retention (metadata.max.retention.bytes) or lower the write rate"
        );
        assert_eq!(
            usage.check(History::Kept).unwrap_err().message,
            "the logs hold 300 MiB of records, over the 256 MiB budget: lower the write rate (writesPerSecond) or the number of nodes (observers, voters: each holds a copy); snapshots and retention help little: the records they clean stay for seeking back"
        );
        let usage = MemoryUsage { logs: 200 * MIB, images: 200 * MIB, checker: 120 * MIB, ..Default::default() };
        assert!(usage
            .check(History::Kept)
            .unwrap_err()
            .message
            .starts_with("the cluster holds 520 MiB of state in all, over the 512 MiB budget"));
        assert!(MemoryUsage::default().check(History::Kept).is_ok());
    }
}
