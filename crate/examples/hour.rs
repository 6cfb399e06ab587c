//! Profiling aid: one simulated hour of a 7-node cluster (`perf record` this).
use kraft_playground::sim::{ClusterSpec, Simulation};
fn main() {
    let spec = ClusterSpec {
        voters: 5,
        observers: 2,
        seed: 42,
        writes_per_second: 20,
        ..ClusterSpec::default()
    };
    let mut sim = Simulation::new(spec).unwrap();
    sim.advance(600_000).unwrap();
    println!("{} events", sim.last_seq());
}
