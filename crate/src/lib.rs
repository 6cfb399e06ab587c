//! KRaft Playground: a faithful, deterministic simulation of Kafka's Raft (KRaft).
//!
//! Data flows one way: `protocol` (one replica, sans-IO) -> `sim` (the world: time,
//! network, disks, faults) -> `trace` (typed events) -> `check` (invariants) and
//! whatever renders the trace.

pub mod check;
pub mod limits;
pub mod messages;
pub mod protocol;
pub mod rng;
pub mod scenario;
pub mod shared;
pub mod sim;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
