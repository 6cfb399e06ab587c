//! An independent oracle for one property the checker's HW invariants must cover: no
//! FetchResponse carries a HW below a HW already exposed by a leader of the same or a
//! lower epoch. It reads only the public trace (events and node views), never the
//! checker, and is run over chaos seeds with and without `hw-before-own-epoch`: safe
//! runs must never trip it, and every unsafe run that trips it must also be reported by
//! the checker.

use kraft_protocol::rpc::{MessageSummary, RpcKind};
use kraft_protocol::{Epoch, Offset, SafetySwitch};
use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::trace::{EventKind, Invariant};
use kraft_sim::Simulation;
use std::collections::BTreeMap;

/// The first FetchResponse below an already exposed HW, described.
struct Breach {
    seq: u64,
    t: u64,
    detail: String,
}

/// The most a leader of each epoch has exposed so far: the HW its Fetch responses
/// carried, and the HW the node views showed for it while it led.
#[derive(Default)]
struct Exposed {
    by_epoch: BTreeMap<Epoch, Offset>,
}

impl Exposed {
    fn note(&mut self, epoch: Epoch, hw: Offset) {
        let e = self.by_epoch.entry(epoch).or_insert(hw);
        *e = (*e).max(hw);
    }
    /// Highest HW exposed by a leader of `epoch` or an earlier one.
    fn max_up_to(&self, epoch: Epoch) -> Option<(Offset, Epoch)> {
        self.by_epoch.range(..=epoch).map(|(e, hw)| (*hw, *e)).max()
    }
}

fn first_breach(switches: Vec<SafetySwitch>, seed: u64) -> (Option<Breach>, Simulation) {
    let opts =
        ChaosOptions { seconds: 60, voters: 3, observers: 1, unsafe_switches: switches, ..ChaosOptions::default() };
    let (spec, actions) = random_run(seed, &opts);
    let mut sim = Simulation::replay_once(spec, actions, 0).expect("generated runs are valid");
    let end = opts.seconds * 1000;
    let mut exposed = Exposed::default();
    let mut seen = 0;
    let mut breach = None;
    while sim.now() < end && sim.step().expect("a valid run never livelocks") {
        for e in sim.events_since(seen).iter() {
            seen = e.seq;
            let EventKind::Send { from, rpc: RpcKind::FetchResponse, epoch, summary, .. } = &e.kind else {
                continue;
            };
            let MessageSummary::FetchResponse { hw_known: true, hw, .. } = summary else { continue };
            if let Some((max, at)) = exposed.max_up_to(*epoch) {
                if *hw < max && breach.is_none() {
                    breach = Some(Breach {
                        seq: e.seq,
                        t: e.t,
                        detail: format!("n{from} (epoch {epoch}) sent hw={hw}, below {max} exposed in epoch {at}"),
                    });
                }
            }
            exposed.note(*epoch, *hw);
        }
        for n in sim.world().node_views() {
            if let (true, Some(hw)) = (n.state == "leader", n.hw) {
                exposed.note(n.epoch, hw);
            }
        }
    }
    (breach, sim)
}

/// Runs the oracle over `seeds`; returns (seeds it flagged, of those the seeds the
/// checker did not report under an HW invariant).
fn sweep(switches: &[SafetySwitch], seeds: std::ops::RangeInclusive<u64>) -> (Vec<u64>, Vec<String>) {
    let (mut flagged, mut missed) = (Vec::new(), Vec::new());
    for seed in seeds {
        let (breach, sim) = first_breach(switches.to_vec(), seed);
        let Some(b) = breach else { continue };
        flagged.push(seed);
        // Reported when the leader's HW dropped: in the same millisecond, before the
        // response that carries it.
        let reported = sim.violations().any(|v| {
            matches!(&v.kind, EventKind::Violation { invariant: Invariant::MonotonicHighWatermark, .. })
                && v.t == b.t
                && v.seq < b.seq
        });
        if !reported {
            missed.push(format!("seed {seed}: event {}: {}", b.seq, b.detail));
        }
    }
    (flagged, missed)
}

#[test]
fn safe_runs_never_send_a_hw_below_one_exposed() {
    let (flagged, _) = sweep(&[], 1..=300);
    assert!(flagged.is_empty(), "safe seeds that sent a lower HW: {flagged:?}");
}

#[test]
fn checker_reports_every_lower_hw_the_oracle_sees() {
    let (flagged, missed) = sweep(&[SafetySwitch::HwBeforeOwnEpoch], 1..=300);
    eprintln!(
        "hw-before-own-epoch: the oracle flagged {} of 300 seeds, the checker missed {}",
        flagged.len(),
        missed.len()
    );
    assert!(!flagged.is_empty(), "the oracle should see the unsafe switch at work");
    assert!(missed.is_empty(), "lower HWs sent without a MonotonicHighWatermark report:\n{}", missed.join("\n"));
}
