//! Peak memory of long and heavy runs (`npm run bench`, or
//! `cargo bench -p kraft-sim --bench memory -- CASE`). Each case runs in its own
//! process so the peak resident set (VmHWM) is its own. With no CASE, runs every case
//! as a child process and prints one line each.
//!
//! Cases: `hour` (7 voters, 20 writes/s, a crash a minute, an hour), `topics` (15 nodes,
//! 40 `CreateTopic` records of 10,000 partitions, then an hour), `no-snapshots`
//! (3 voters, `snapshotInterval: 0`, 1,000 writes/s, 10 minutes).

use kraft_protocol::{ClientRecord, RecordBody};
use kraft_sim::{Action, ClusterSpec, Simulation};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

/// Advances in one-second steps so a refusal is seen at the second it happens.
fn run_for(sim: &mut Simulation, ms: u64) -> Result<(), String> {
    let end = sim.now() + ms;
    while sim.now() < end {
        sim.advance(1000.min(end - sim.now())).map_err(|e| format!("stopped at {} ms: {e}", sim.now()))?;
    }
    Ok(())
}

fn hour() -> Result<Simulation, String> {
    let spec = ClusterSpec { voters: 7, seed: 42, writes_per_second: 20, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).map_err(|e| e.to_string())?;
    for minute in 0..60u32 {
        run_for(&mut sim, 30_000)?;
        let node = minute % 7;
        sim.act(Action::Crash { node }).map_err(|e| e.to_string())?;
        run_for(&mut sim, 30_000)?;
        sim.act(Action::Restart { node }).map_err(|e| e.to_string())?;
    }
    Ok(sim)
}

fn topics() -> Result<Simulation, String> {
    let spec = ClusterSpec { voters: 7, observers: 8, seed: 7, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).map_err(|e| e.to_string())?;
    run_for(&mut sim, 5_000)?;
    for i in 0..40 {
        let record =
            RecordBody::Client(ClientRecord::CreateTopic { name: format!("big-{i}").into(), partitions: 10_000 });
        sim.act(Action::Write { record: Some(record) }).map_err(|e| e.to_string())?;
        run_for(&mut sim, 100)?;
    }
    run_for(&mut sim, 3_600_000)?;
    Ok(sim)
}

fn no_snapshots() -> Result<Simulation, String> {
    let spec =
        ClusterSpec { voters: 3, seed: 3, writes_per_second: 1000, snapshot_interval: 0, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).map_err(|e| e.to_string())?;
    run_for(&mut sim, 600_000)?;
    Ok(sim)
}

fn main() {
    let case = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let Some(case) = case else {
        let exe = std::env::current_exe().expect("own path");
        for case in ["hour", "topics", "no-snapshots"] {
            let out = std::process::Command::new(&exe).arg(case).output().expect("runs itself");
            print!("{}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                println!("{case}: exited with {} {}", out.status, String::from_utf8_lossy(&out.stderr).trim());
            }
        }
        return;
    };
    let start = Instant::now();
    let result = match case.as_str() {
        "hour" => hour(),
        "topics" => topics(),
        "no-snapshots" => no_snapshots(),
        other => panic!("unknown case {other}"),
    };
    let wall = start.elapsed().as_secs_f64();
    match result {
        Ok(sim) => println!(
            "{case}: {} simulated s in {wall:.1} s wall, {} events, {} checkpoints, peak RSS {:.0} MB",
            sim.now() / 1000,
            sim.last_seq(),
            sim.checkpoint_count(),
            peak_rss_mb()
        ),
        Err(e) => println!("{case}: {e} ({wall:.1} s wall, peak RSS {:.0} MB)", peak_rss_mb()),
    }
}
