//! Speed and memory of the core (`npm run bench`, or `cargo bench -p kraft-sim`).
//! Targets from DESIGN.md: thousands of simulated seconds per wall second with every
//! invariant checked; an hour of simulated time in hundreds of MB at most; a seek
//! anywhere in an hour-long run within one frame (16 ms).

use kraft_sim::chaos::{run_seed, ChaosOptions};
use kraft_sim::trace::Event;
use kraft_sim::{Action, ClusterSpec, Simulation};
use std::time::Instant;

fn rss_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

fn main() {
    // 1. The sweep workload: random faults, steady writes.
    let opts =
        ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
    let start = Instant::now();
    let (mut events, mut sim_ms) = (0u64, 0u64);
    for seed in 1..=100 {
        let o = run_seed(seed, &opts);
        events += o.events;
        sim_ms += o.simulated_ms;
    }
    let wall = start.elapsed().as_secs_f64();
    println!(
        "sweep workload (100 seeds x 60 s, 3 voters + 1 observer, one thread): {:.0} simulated s per wall s, {:.2} M events/s",
        sim_ms as f64 / 1000.0 / wall,
        events as f64 / wall / 1e6
    );

    // 2. An hour of a 7-node cluster under a steady write load, with faults now and then.
    let spec = ClusterSpec { voters: 5, observers: 2, seed: 42, writes_per_second: 20, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    let rss_before = rss_mb();
    let start = Instant::now();
    for minute in 0..60u32 {
        sim.advance(30_000).unwrap();
        let node = minute % 7;
        sim.act(Action::Crash { node }).unwrap();
        sim.advance(30_000).unwrap();
        sim.act(Action::Restart { node }).unwrap();
    }
    let wall = start.elapsed().as_secs_f64();
    let n = sim.last_seq() as usize;
    println!(
        "one simulated hour, 5 voters + 2 observers, 20 writes/s: {:.2} s wall ({:.0} simulated s per wall s), {} events ({:.1} M events/s)",
        wall,
        3600.0 / wall,
        n,
        n as f64 / wall / 1e6
    );
    println!(
        "memory: event window {:.1} MB ({} B per event), {} checkpoints, process RSS grew {:.1} MB",
        std::mem::size_of_val(sim.trace()) as f64 / 1e6,
        std::mem::size_of::<Event>(),
        sim.checkpoint_count(),
        rss_mb() - rss_before
    );
    assert_eq!(sim.violation_count(), 0);

    // 3. Seeks anywhere in that hour.
    let end = sim.now();
    let mut times = Vec::new();
    let mut t = 7_919u64;
    for _ in 0..60 {
        t = (t * 7_919 + 104_729) % end;
        let s = Instant::now();
        sim.seek(t).unwrap();
        times.push(s.elapsed().as_secs_f64() * 1000.0);
    }
    let s = Instant::now();
    sim.seek(end).unwrap();
    let back_to_end = s.elapsed().as_secs_f64() * 1000.0;
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "seek anywhere in the hour (60 seeks): median {:.2} ms, worst {:.2} ms; back to the end: {:.0} ms",
        times[times.len() / 2],
        times[times.len() - 1],
        back_to_end
    );
}
