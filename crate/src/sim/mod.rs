//! The simulated world around the replicas: time, network, disks, faults, the client
//! workload, and the time-travelling `Simulation` that owns the trace.

pub mod budget;
#[cfg(feature = "scenarios")]
pub mod chaos;
pub mod network;
pub mod queue;
pub mod simulation;
pub mod spec;
pub mod view;
pub mod wire;
pub mod world;

pub use simulation::{SimError, Simulation};
pub use spec::{Action, ClusterSpec, NetworkSpec, TimedAction};
pub use world::{World, WriteOutcome};
