//! One KRaft replica, sans-IO: states, RPCs, the log, elections, the leader's rules.
//!
//! Read top-down: `io` (the boundary: what a replica is given and what it answers),
//! `replica` (the replica, its inputs and its poll loop), `state` (the epoch states),
//! `transitions` (every transition between them, start and restart included), then one
//! file per RPC concern: `vote`, `quorum_epoch`, `fetch`, `snapshot`, and `commit` (the
//! HW and applying). The rules they consult: `election` (who may grant a vote), `voters`
//! (who votes), `leader` (the leader's bookkeeping), `log`, `requests` (one request in
//! flight per connection); `rpc` and `record` are the data on the wire and in the log;
//! `config` the settings. No module imports one that imports it back
//! (scripts/check-cycles.mjs).

pub mod config;
pub mod election;
pub mod io;
pub mod leader;
pub mod log;
pub mod record;
pub mod replica;
pub mod rpc;
pub mod state;
pub mod voters;

mod commit;
mod fetch;
mod quorum_epoch;
mod requests;
mod snapshot;
mod transitions;
mod vote;

pub use config::{QuorumConfig, SafetySwitch, Unsafe};
pub use io::{Ctx, IdSource, Note, Output, Wake};
pub use record::{Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
pub use replica::{Durable, Replica, ReplicaSetup};
pub use state::{ElectionState, Reason, StateName};
pub use voters::VoterSet;
