use kraft_playground::sim::chaos::{random_run, ChaosOptions};
use kraft_playground::sim::Simulation;
use std::time::Instant;
fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let opts = ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: vec![] };
    let (spec, actions) = random_run(seed, &opts);
    let mut sim = Simulation::replay(spec, actions, 0).unwrap();
    let start = Instant::now();
    for s in 0..60 {
        let before = sim.trace().len();
        sim.advance(1000).unwrap();
        eprintln!(
            "t={}s events+{} total {} wall {:?}",
            s + 1,
            sim.trace().len() - before,
            sim.trace().len(),
            start.elapsed()
        );
        if start.elapsed().as_secs() > 20 {
            break;
        }
    }
}
