//! One KRaft replica, sans-IO: states, RPCs, the log, elections, the leader's rules.

pub mod config;
pub mod election;
pub mod leader;
pub mod log;
pub mod record;
pub mod replica;
pub mod rpc;
pub mod state;

pub use config::{QuorumConfig, SafetySwitch, Unsafe};
pub use record::{Epoch, MetadataImage, NodeId, Offset, Record, RecordBody};
pub use replica::{Ctx, Durable, IdSource, Note, Output, Replica};
pub use state::{ElectionState, Reason, StateName};
