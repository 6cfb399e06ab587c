//! The simulated world around KRaft replicas: time, network, disks, faults, the client
//! workload, and the time-travelling `Simulation` that owns the trace.
//!
//! The world (`world`) drives the replicas (`kraft_protocol`), turns what they output into
//! typed `trace` events and hands each event, with a view of the nodes (`view`), to the
//! invariant checker (`check`) it owns. Everything downstream (the scenario engine, the
//! wasm surface, every renderer) reads what the simulation recorded.

pub mod budget;
#[cfg(feature = "chaos")]
pub mod chaos;
pub mod check;
pub mod error;
pub mod explain;
pub mod failover;
pub mod input;
pub mod lanes;
pub mod limits;
pub mod network;
pub mod packed;
pub mod queue;
pub mod read;
pub mod simulation;
pub mod spec;
pub mod trace;
pub mod view;
pub mod vocab;
pub mod wire;
pub mod world;

pub use error::SimError;
pub use simulation::Simulation;
pub use spec::{Action, ActionKind, ClusterSpec, NetworkSpec, TimedAction};
pub use world::{World, WriteOutcome};
