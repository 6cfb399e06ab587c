//! One KRaft replica, sans-IO: states, RPCs, the log, elections, the leader's rules.
//! It stands on the boundary every protocol shares (`kraft_boundary`) and depends on
//! nothing of the simulator.
//!
//! Read top-down: `io` (KRaft on the boundary: the `KRaft` type, what a replica is
//! given and what it answers),
//! `replica` (the replica, its inputs and its poll loop) and `outbound` (the requests each
//! state sends), `state` (the epoch states), `transitions` (every transition between
//! them, start and restart included), then one file per RPC concern: `vote`,
//! `quorum_epoch`, `fetch`, `snapshot`, and `commit` (the HW and applying); KIP-853's voter
//! changes: `add_voter`, `remove_voter`, `update_voter` (at both ends), and what they share
//! (`voter_change`), `kraft_upgrade` (kraft.version 0 to 1) and `auto_join` (a controller
//! adding itself). The rules they consult: `election` (who may grant a vote), `voters`
//! (the voter set and kraft.version), `replica_key` (who a replica is: node id and
//! directory id), `voter_history` (the voter sets the log holds, by offset), `leader` (the
//! leader's bookkeeping), `log`, `requests` (one request in flight per connection); `rpc`
//! and `record` are the data on the wire and in the log, `ids` the numbers that name
//! things; `config` the settings and the Kafka release a run models. `boundary` maps all
//! of it onto the boundary's traits, and `explain` gives the sentence for each thing a
//! replica does. No module imports one that imports it back (scripts/check-cycles.mjs).

pub mod config;
pub mod election;
pub mod ids;
pub mod io;
pub mod leader;
pub mod log;
pub mod record;
pub mod replica;
pub mod replica_key;
pub mod rpc;
pub mod state;
pub mod voter_history;
pub mod voters;

mod add_voter;
mod auto_join;
mod boundary;
mod commit;
mod explain;
mod fetch;
mod kraft_upgrade;
mod outbound;
mod quorum_epoch;
mod remove_voter;
mod requests;
mod snapshot;
mod transitions;
mod update_voter;
mod vote;
mod voter_change;

pub use config::{ClusterConfig, KafkaRelease, QuorumConfig, SafetySwitch, Unsafe};
pub use io::{Ctx, IdSource, KRaft, Note, Output, Wake};
pub use record::{ClientRecord, Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
pub use replica::{Durable, Replica, ReplicaSetup};
pub use replica_key::{DirectoryId, ReplicaKey};
pub use state::{ElectionState, Reason, StateName};
pub use voters::{KRaftVersion, VoterSet};
