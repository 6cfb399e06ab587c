//! Seed sweep: N seeded random worlds (each seed draws its own fault mix, then its fault
//! schedule; see `sim::chaos`), every invariant checked after every event, and after the
//! final heal a leader and a moving HW within the liveness bound.
//!
//! cargo run --release -p kraft-sim --example sweep -- --seeds N --seconds S
//!     [--voters V] [--observers O] [--first-seed K] [--unsafe SWITCH]... [--trace] [--jobs J]
//!
//! Prints one line per failing seed with its fault mix and the command that reproduces
//! it, then what the worlds covered, the recovery times after the heal against the
//! bound, and `N passed, M failed`; exits 1 when any seed failed.

use kraft_protocol::SafetySwitch;
use kraft_sim::chaos::{random_run, repro_command, run_seed, ChaosOptions, Fault, FaultMix, SeedOutcome};
use kraft_sim::Simulation;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    seeds: u64,
    first_seed: u64,
    trace: bool,
    jobs: usize,
    opts: ChaosOptions,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        seeds: 100,
        first_seed: 1,
        trace: false,
        jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        opts: ChaosOptions {
            seconds: 60,
            voters: 3,
            observers: 1,
            unsafe_switches: Vec::new(),
            ..ChaosOptions::default()
        },
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let num =
            |v: String, name: &str| v.parse::<u64>().map_err(|_| format!("{name} takes a whole number, got '{v}'"));
        match flag.as_str() {
            "--seeds" => a.seeds = num(value("--seeds")?, "--seeds")?,
            "--first-seed" => a.first_seed = num(value("--first-seed")?, "--first-seed")?,
            "--seconds" => a.opts.seconds = num(value("--seconds")?, "--seconds")?,
            "--voters" => a.opts.voters = num(value("--voters")?, "--voters")? as u32,
            "--observers" => a.opts.observers = num(value("--observers")?, "--observers")? as u32,
            "--jobs" => a.jobs = num(value("--jobs")?, "--jobs")?.max(1) as usize,
            "--unsafe" => a.opts.unsafe_switches.push(SafetySwitch::parse(&value("--unsafe")?)?),
            "--trace" => a.trace = true,
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown flag '{other}'")),
        }
    }
    if !(1..=7).contains(&a.opts.voters) {
        return Err(format!("--voters must be between 1 and 7, got {}", a.opts.voters));
    }
    if a.opts.observers > 8 {
        return Err(format!("--observers must be between 0 and 8, got {}", a.opts.observers));
    }
    if a.opts.seconds < 20 || a.opts.seconds > 86_400 {
        return Err(format!(
            "--seconds must be between 20 (the calm tail alone is 15 s) and 86400, got {}",
            a.opts.seconds
        ));
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("usage: sweep --seeds N --seconds S [--voters V] [--observers O] [--first-seed K] [--unsafe SWITCH]... [--trace] [--jobs J]");
            eprintln!("switches: {}", SafetySwitch::all_names().join(", "));
            return ExitCode::from(2);
        }
    };
    if args.trace {
        for seed in args.first_seed..args.first_seed + args.seeds {
            println!("seed {seed} mix: {}", FaultMix::of_seed(seed));
            let (spec, actions) = random_run(seed, &args.opts);
            let sim = Simulation::replay(spec, actions, args.opts.seconds * 1000).expect("valid run");
            for e in sim.trace() {
                println!("{e}");
            }
        }
    }
    if args.opts.voters == 1 && args.opts.unsafe_switches.is_empty() {
        // Not a simulator bug: Kafka's leader moves the HW before its flush (flushLeaderLog).
        eprintln!(
            "note: one voter commits before its flush, as Kafka does; a crash inside the flush loses committed \
             records, so violations are expected (scenarios/one-voter-flush-window.json)"
        );
    }
    let started = Instant::now();
    let seeds: Vec<u64> = (args.first_seed..args.first_seed + args.seeds).collect();
    let outcomes = run_parallel(&seeds, &args.opts, args.jobs);
    let wall = started.elapsed().as_secs_f64();
    let mut failed = 0;
    let (mut events, mut sim_ms) = (0u64, 0u64);
    for o in &outcomes {
        events += o.events;
        sim_ms += o.simulated_ms;
        if let Some(why) = o.failure() {
            failed += 1;
            println!(
                "seed {} FAILED: {why}\n  mix: {}\n  reproduce: {}",
                o.seed,
                o.mix,
                repro_command(o.seed, &args.opts)
            );
        }
    }
    print_coverage(&outcomes);
    print_recovery(&outcomes);
    eprintln!(
        "{} seeds x {} s ({} voters, {} observers): {} events in {:.2} s wall ({} jobs): {:.0} events/s, {:.0} simulated s per wall s",
        seeds.len(),
        args.opts.seconds,
        args.opts.voters,
        args.opts.observers,
        events,
        wall,
        args.jobs,
        events as f64 / wall,
        sim_ms as f64 / 1000.0 / wall
    );
    println!("{} passed, {} failed", outcomes.len() - failed, failed);
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// How many of the worlds had each fault kind, and the settings they were drawn with.
fn print_coverage(outcomes: &[SeedOutcome]) {
    let n = outcomes.len();
    let with = |f: Fault| outcomes.iter().filter(|o| o.mix.weight(f) > 0).count();
    let kinds: Vec<String> = Fault::ALL.iter().map(|f| format!("{} {}", f.name(), with(*f))).collect();
    let linger0 = outcomes.iter().filter(|o| o.mix.linger_zero).count();
    let wan = outcomes.iter().filter(|o| o.mix.network == "wan").count();
    println!("worlds ({n}): with {}; linger 0 ms in {linger0}, wan network in {wan}", kinds.join(", "));
}

/// Recovery after the final heal: how long until a leader, and until its HW moved.
fn print_recovery(outcomes: &[SeedOutcome]) {
    let stats = |mut v: Vec<u64>| -> String {
        if v.is_empty() {
            return "none".into();
        }
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        format!("p50 {} ms, p99 {} ms, p99.9 {} ms, max {} ms", at(0.5), at(0.99), at(0.999), v[v.len() - 1])
    };
    let leader: Vec<u64> = outcomes.iter().filter_map(|o| o.recovery.leader_ms).collect();
    let hw: Vec<u64> = outcomes.iter().filter_map(|o| o.recovery.hw_ms).collect();
    let bound_min = outcomes.iter().map(|o| o.liveness_bound_ms).min().unwrap_or(0);
    let bound_max = outcomes.iter().map(|o| o.liveness_bound_ms).max().unwrap_or(0);
    let worst = outcomes
        .iter()
        .filter_map(|o| o.recovery.hw_ms.map(|h| (h * 1000 / o.liveness_bound_ms.max(1), o.seed)))
        .max()
        .map(|(per_mille, seed)| format!("{:.1}% of its bound (seed {seed})", per_mille as f64 / 10.0))
        .unwrap_or_else(|| "none".into());
    println!("after the heal: leader {}; HW moved {}", stats(leader), stats(hw));
    println!("liveness bound {bound_min}-{bound_max} ms; slowest recovery {worst}");
}

fn run_parallel(seeds: &[u64], opts: &ChaosOptions, jobs: usize) -> Vec<SeedOutcome> {
    let chunks: Vec<Vec<u64>> = (0..jobs).map(|j| seeds.iter().copied().skip(j).step_by(jobs).collect()).collect();
    let mut outcomes: Vec<SeedOutcome> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.into_iter().map(|seed| run_seed(seed, opts)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("sweep worker")).collect()
    });
    outcomes.sort_by_key(|o| o.seed);
    outcomes
}
