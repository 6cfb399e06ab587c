//! One KRaft replica, sans-IO: states, RPCs, the log, elections, the leader's rules.

pub mod config;
pub mod election;
pub mod io;
pub mod leader;
pub mod log;
pub mod record;
pub mod replica;
pub mod requests;
pub mod rpc;
pub mod state;

pub use config::{QuorumConfig, SafetySwitch, Unsafe};
pub use io::{Ctx, IdSource, Note, Output};
pub use record::{Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
pub use replica::{Durable, Replica, ReplicaSetup};
pub use state::{ElectionState, Reason, StateName};
