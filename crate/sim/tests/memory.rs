//! Memory: checkpoints share what did not change, and a run that would outgrow the
//! memory budget is stopped with an error that names what is over, leaving the cluster
//! readable and seekable.

use kraft_protocol::log::RECORD_BYTES;
use kraft_protocol::RecordBody;
use kraft_sim::budget::IMAGES_BUDGET_BYTES;
use kraft_sim::{Action, ClusterSpec, Simulation, TimedAction};

fn big_topic(i: usize) -> Action {
    Action::Write { record: Some(RecordBody::CreateTopic { name: format!("big-{i}").into(), partitions: 10_000 }) }
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
