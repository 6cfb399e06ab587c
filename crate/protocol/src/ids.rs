//! The numbers that name things in KRaft: node ids, epochs and log offsets. A leaf module,
//! so the voter set (which names nodes) and the log records (which carry voter sets) can
//! both use them without importing each other.

pub type NodeId = u32;
pub type Epoch = u32;
pub type Offset = u64;
