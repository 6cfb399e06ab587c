//! Prints the text trace of a default cluster: `cargo run --example trace -- SECONDS [VOTERS] [SEED]`.
use kraft_sim::{ClusterSpec, Simulation};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let voters: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let spec = ClusterSpec { voters, observers: 1, seed, writes_per_second: 5, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).expect("valid spec");
    sim.advance(seconds * 1000).expect("advance");
    for e in sim.trace() {
        println!("{e}");
    }
}
