//! The numbers that name things in KRaft: node ids, epochs and log offsets, the ones
//! every protocol shares (`kraft_boundary::record`). A leaf module, so the voter set
//! (which names nodes) and the log records (which carry voter sets) can both use them
//! without importing each other.

pub use kraft_boundary::record::{Epoch, NodeId, Offset};
