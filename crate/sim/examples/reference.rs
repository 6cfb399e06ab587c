//! The reference workload of the throughput target (issue 11): 5 voters + 2 observers,
//! 100 writes/s, datacenter links, 60 simulated seconds, every invariant checked, the
//! trace recorded. Prints simulated seconds per wall second natively, the events and
//! the digest (which a speed-up must leave unchanged).
//!
//! cargo run --release -q -p kraft-sim --example reference [-- REPETITIONS]

use kraft_sim::{ClusterSpec, Simulation};
use std::time::Instant;

fn main() {
    let reps: u32 = std::env::args().nth(1).map(|a| a.parse().expect("REPETITIONS is a whole number")).unwrap_or(5);
    let spec = ClusterSpec {
        voters: 5,
        observers: 2,
        seed: 1,
        writes_per_second: 100,
        stable_leadership: true,
        ..ClusterSpec::default()
    };
    let mut rates = Vec::new();
    for _ in 0..reps {
        let start = Instant::now();
        let mut sim = Simulation::new(spec.clone()).expect("the reference spec is valid");
        sim.advance(60_000).expect("the reference run stays within its limits");
        let wall = start.elapsed().as_secs_f64();
        assert_eq!(sim.violation_count(), 0, "the reference run breaks no invariant");
        rates.push(60.0 / wall);
        println!(
            "reference workload (native): {:.0} simulated s per wall s, {} events ({:.2} M events/s), digest {}",
            60.0 / wall,
            sim.last_seq(),
            sim.last_seq() as f64 / wall / 1e6,
            sim.digest().hex()
        );
    }
    rates.sort_by(|a, b| a.total_cmp(b));
    println!("reference workload (native): median {:.0} simulated s per wall s", rates[rates.len() / 2]);
}
