//! The simulated world around KRaft replicas: time, network, disks, faults, the client
//! workload, and the time-travelling `Simulation` that owns the trace.
//!
//! The world (`world`) drives the replicas through the boundary every protocol shares
//! (`kraft_boundary`), turns what they output into typed `trace` events and hands each
//! event, with a view of the nodes (`view`), to the invariant checker (`check`) it owns.
//! Everything downstream (the scenario engine, the wasm surface, every renderer) reads
//! what the simulation recorded. The world, the run (`simulation::Run<P>`), the trace,
//! the checker, the views, the timeline's lanes, the explanations and the failover
//! measure (`failover`) are generic over the protocol (`P: kraft_boundary::Protocol`);
//! KRaft (`kraft_protocol::KRaft`) is the default and the one the playground runs. What
//! is KRaft's alone says so: `kraft` (its run and its failover measure, compiled once),
//! the chaos sweep (its liveness bound reads KRaft's timeouts), the spec's config keys
//! and safety switches, the lanes' packed form and the generated TypeScript types.

pub mod budget;
#[cfg(feature = "chaos")]
pub mod chaos;
pub mod check;
pub mod error;
pub mod explain;
pub mod failover;
pub mod input;
pub mod kraft;
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
pub use kraft::Simulation;
pub use simulation::Run;
pub use spec::{Action, ActionKind, ClusterSpec, NetworkSpec, QuorumKind, TimedAction};
pub use world::{World, WriteOutcome};
