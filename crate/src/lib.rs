//! KRaft Playground: a faithful, deterministic simulation of Kafka's Raft (KRaft).
//!
//! `protocol` is one replica, sans-IO. `sim` (the world: time, network, disks, faults)
//! drives the replicas, turns what they output into typed `trace` events and hands each
//! event, with a view of the nodes, to the invariant checker (`check`) it owns. `scenario`
//! runs simulations and judges their traces; `wasm` and every renderer read what the sim
//! recorded. Nothing downstream reaches back up: the protocol knows none of the others.

pub mod check;
pub mod explain;
pub mod input;
pub mod limits;
pub mod messages;
pub mod packed;
pub mod protocol;
pub mod rng;
#[cfg(feature = "scenarios")]
pub mod scenario;
pub mod shared;
pub mod sim;
pub mod small_sort;
pub mod trace;
pub mod wire;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
