//! Trace digests of a fixed set of seeded chaos runs (random faults; see `sim::chaos`),
//! one JSON object per line. The npm package's tests compute the same runs in wasm
//! (`chaosDigest(seed, seconds, voters)`) and require identical digests.
//!
//! cargo run --release -q -p kraft-sim --example digest [-- SEED SECONDS VOTERS]

use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::Simulation;

/// (seed, seconds, voters): small and large quorums, a one-voter quorum, long enough
/// for snapshots, crashes, partitions and the calm tail.
const CASES: [(u64, u64, u32); 8] =
    [(1, 30, 3), (2, 30, 3), (3, 45, 3), (4, 30, 5), (5, 40, 5), (6, 30, 1), (7, 60, 7), (123_456_789, 30, 3)];

fn digest(seed: u64, seconds: u64, voters: u32) -> String {
    // Same options as the wasm `chaosDigest`: one observer, all safety rules on.
    let opts = ChaosOptions { seconds, voters, observers: 1, unsafe_switches: Vec::new(), ..ChaosOptions::default() };
    let (spec, actions) = random_run(seed, &opts);
    let sim = Simulation::replay(spec, actions, seconds * 1000).expect("generated runs are valid");
    sim.digest().hex()
}

fn main() {
    let args: Vec<u64> =
        std::env::args().skip(1).map(|a| a.parse().expect("SEED SECONDS VOTERS are whole numbers")).collect();
    let cases: Vec<(u64, u64, u32)> = match args.as_slice() {
        [] => CASES.to_vec(),
        [seed, seconds, voters] => vec![(*seed, *seconds, *voters as u32)],
        _ => {
            eprintln!("usage: digest [SEED SECONDS VOTERS]");
            std::process::exit(2);
        }
    };
    for (seed, seconds, voters) in cases {
        println!(
            "{{\"seed\":{seed},\"seconds\":{seconds},\"voters\":{voters},\"digest\":\"{}\"}}",
            digest(seed, seconds, voters)
        );
    }
}
