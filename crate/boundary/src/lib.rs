//! The boundary between the simulated world and a replica of any protocol. The world
//! (`kraft-sim`) drives replicas only through it, and a protocol crate (`kraft-protocol`,
//! KRaft) builds on it alone, so a second protocol lands by adding a crate that
//! implements these traits, not by editing the simulator.
//!
//! Read top-down: `protocol` (what a protocol is made of, what the world asks of a
//! replica, what a replica is handed per input and answers with), then what those name:
//! `vocab` (the words the trace is written in), `message` (the envelope and what the
//! world reads of a message), `log` (the log view the checker and the views read),
//! `record` (the records clients write and the state machine they build), and `explain`
//! (the sentences a protocol gives for what its replicas did). No module imports one
//! that imports it back (scripts/check-cycles.mjs).

pub mod explain;
pub mod log;
pub mod message;
pub mod protocol;
pub mod record;
pub mod vocab;

pub use explain::Explain;
pub use log::{LogEntry, LogView, SnapshotId, VoterKey};
pub use message::{Envelope, WireMessage};
pub use protocol::{
    Ctx, DurableState, IdSource, Note, Output, PeerProgress, PersistedElection, Protocol, ProtocolSpec, ReplicaCore,
    Setup, Start, StateTimer, VoterChangeRequest, Wake, ADMIN_CLIENT,
};
pub use record::{Applied, ClientRecord, Epoch, MetadataImage, NodeId, Offset};
pub use vocab::{Named, Outcome, RpcName, StateName, Summary, TimerKind, Verdict};
