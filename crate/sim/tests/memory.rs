//! Memory: checkpoints share what did not change, and a run that would outgrow the
//! memory budget is stopped with an error that names what is over, leaving the cluster
//! readable and seekable.

use kraft_protocol::log::RECORD_BYTES;
use kraft_protocol::{ClientRecord, RecordBody};
use kraft_sim::budget::IMAGES_BUDGET_BYTES;
use kraft_sim::{Action, ClusterSpec, Simulation, TimedAction};

fn big_topic(i: usize) -> Action {
    Action::Write {
        record: Some(RecordBody::Client(ClientRecord::CreateTopic {
            name: format!("big-{i}").into(),
            partitions: 10_000,
        })),
    }
}

fn fifteen_nodes() -> ClusterSpec {
    ClusterSpec { voters: 7, observers: 8, seed: 7, ..ClusterSpec::default() }
}

#[test]
fn checkpoints_share_the_images_that_did_not_change() {
    // The finding: 40 topics of 10,000 partitions on 15 nodes, copied into every
    // checkpoint, filled the wasm heap within the hour.
    let mut sim = Simulation::new(fifteen_nodes()).unwrap();
    sim.advance(5_000).unwrap();
    for i in 0..40 {
        sim.act(big_topic(i)).unwrap();
        sim.advance(100).unwrap();
    }
    sim.advance(400_000).unwrap();
    assert!(sim.checkpoint_count() >= 20);
    // Every node built its own image: 15 x 40 topics x 10,000 partitions x 4 bytes.
    let live = 15 * 40 * 10_000 * 4;
    let images = sim.memory().images;
    assert!(images >= live, "the meter counts the live images ({images} B)");
    assert!(images < live + live / 4, "{images} B for {live} B of live images: checkpoints copy them");
}

#[test]
fn checkpoints_share_the_log_records_that_did_not_change() {
    let spec = ClusterSpec { voters: 3, seed: 3, writes_per_second: 1000, snapshot_interval: 0, ..Default::default() };
    let mut sim = Simulation::new(spec).unwrap();
    sim.advance(120_000).unwrap();
    assert!(sim.checkpoint_count() >= 6);
    let live: u64 = sim.world().nodes.iter().map(|n| n.log().unwrap().end_offset() * RECORD_BYTES).sum();
    let logs = sim.memory().logs;
    assert!(logs >= live, "the meter counts the live logs");
    assert!(logs < live + live / 4, "{logs} B for {live} B of live logs: checkpoints copy them");
}

/// Writes 10,000-partition topics until the budget refuses one.
fn fill_the_images(sim: &mut Simulation) -> (usize, String) {
    sim.advance(5_000).unwrap();
    for i in 0..2_000 {
        if let Err(e) = sim.act(big_topic(i)) {
            return (i, e.to_string());
        }
        if let Err(e) = sim.advance(50) {
            return (i, e.to_string());
        }
    }
    panic!("2,000 topics of 10,000 partitions on 15 nodes were never refused");
}

#[test]
fn work_beyond_the_memory_budget_is_refused_and_the_cluster_stays_usable() {
    let mut sim = Simulation::new(fifteen_nodes()).unwrap();
    let (written, error) = fill_the_images(&mut sim);
    // 600 KB per topic over 15 nodes: the 256 MiB budget holds about 440 of them.
    assert!((400..500).contains(&written), "refused after {written} topics");
    assert!(
        error.starts_with("memory: ")
            && error.contains("the metadata images hold ")
            && error.contains("over the 256 MiB budget: create fewer or smaller topics"),
        "{error}"
    );
    assert!(sim.memory().images > IMAGES_BUDGET_BYTES);
    let (stopped, digest, last_seq) = (sim.now(), sim.digest(), sim.last_seq());

    // Refused before anything changes: no event, no input, no time passes.
    let inputs = sim.inputs().len();
    assert!(sim.act(Action::Heal).is_err());
    assert!(sim.advance(1_000).unwrap_err().to_string().contains("over the 256 MiB budget"));
    assert_eq!((sim.now(), sim.digest(), sim.last_seq(), sim.inputs().len()), (stopped, digest, last_seq, inputs));

    // Still readable and seekable: back to the start and forward to where it stopped
    // gives the same run.
    assert!(!sim.events_between(stopped - 1_000, stopped).is_empty());
    sim.seek(0).unwrap();
    sim.seek(stopped).unwrap();
    assert_eq!((sim.now(), sim.digest(), sim.last_seq()), (stopped, digest, last_seq));
    assert!(sim.advance(1).is_err(), "still over the budget");
}

#[test]
fn a_replay_that_outgrows_the_budget_is_refused_with_the_time_it_stopped() {
    let inputs: Vec<TimedAction> =
        (0..1_000).map(|i| TimedAction { t: 5_000 + i as u64 * 20, action: big_topic(i) }).collect();
    let e = match Simulation::replay(fifteen_nodes(), inputs, 30_000) {
        Err(e) => e.to_string(),
        Ok(sim) => panic!("replayed to {} with {} MiB of images", sim.now(), sim.memory().images >> 20),
    };
    assert!(e.starts_with("memory: stopped at ") && e.contains("the metadata images hold "), "{e}");
}

/// Advances in steps of 10 s until the budget stops the run (at most `max_ms`): when
/// it stopped and why.
fn run_until_stopped(mut sim: Simulation, max_ms: u64) -> Option<(u64, String)> {
    while sim.now() < max_ms {
        if let Err(e) = sim.advance(10_000) {
            return Some((sim.now(), e.to_string()));
        }
    }
    None
}

fn fifteen_nodes_writing(per_second: u32) -> ClusterSpec {
    ClusterSpec { writes_per_second: per_second, ..fifteen_nodes() }
}

/// The finding: 7 voters + 8 observers at 1,000 writes/s stopped at about 256 s
/// whatever snapshot interval and retention were set, and the error advised exactly
/// those: the checkpoints kept for seeking back share every record the cleaner drops
/// from the live logs. The advice now names what moves the limit, and following it
/// goes further.
#[test]
fn the_advice_on_full_logs_names_what_moves_the_limit_and_following_it_goes_further() {
    let stop = |spec: ClusterSpec| {
        run_until_stopped(Simulation::new(spec).unwrap(), 1_200_000).expect("the budget should stop the run")
    };
    let (at, error) = stop(fifteen_nodes_writing(1_000));
    assert!((200_000..300_000).contains(&at), "stopped at {at} ms");
    assert!(
        error.contains("the logs hold ")
            && error
                .contains("budget: lower the write rate (writesPerSecond) or the number of nodes (observers, voters")
            && error.contains("snapshots and retention help little"),
        "{error}"
    );
    // What the message says helps little: snapshots ten times as often, no retention.
    let mut config = std::collections::BTreeMap::new();
    config.insert("metadata.max.retention.bytes".to_string(), 0);
    let (cleaned_at, _) = stop(ClusterSpec { snapshot_interval: 100, config, ..fifteen_nodes_writing(1_000) });
    assert!(cleaned_at < at * 5 / 4, "snapshots and retention moved the stop from {at} to {cleaned_at} ms");
    // What it says does: half the write rate, or no observers (7 nodes instead of 15).
    let (slower_at, _) = stop(fifteen_nodes_writing(500));
    assert!(slower_at > at * 9 / 5, "at 500 writes/s it stopped at {slower_at} ms, against {at}");
    let (fewer_at, _) = stop(ClusterSpec { observers: 0, ..fifteen_nodes_writing(1_000) });
    assert!(fewer_at > at * 2, "with 7 nodes it stopped at {fewer_at} ms, against {at}");
}

/// A run that keeps no history (`replay_once`: sweeps) frees what the cleaner drops, so
/// there the advice is snapshots and retention, and following it goes further.
#[test]
fn without_history_the_advice_is_snapshots_and_following_it_goes_further() {
    let replay = |spec: ClusterSpec, until: u64| Simulation::replay_once(spec, Vec::new(), until);
    let error = match replay(ClusterSpec { snapshot_interval: 0, ..fifteen_nodes_writing(1_000) }, 600_000) {
        Err(e) => e.to_string(),
        Ok(sim) => panic!("no snapshots: reached {} ms with {} MiB of records", sim.now(), sim.memory().logs >> 20),
    };
    assert!(error.contains("the logs hold ") && error.contains("enable snapshots (snapshotInterval)"), "{error}");
    let sim = replay(ClusterSpec { snapshot_interval: 1_000, ..fifteen_nodes_writing(1_000) }, 600_000)
        .expect("with snapshots the logs are cleaned and the run goes on");
    assert_eq!(sim.now(), 600_000);
}
