//! Every message the trace sends has a fate in the trace: delivered, or dropped with a
//! reason. One that reached a node busy with earlier work waits in its inbox; when that
//! node crashes the message dies unread, and the trace must say so (a drop, node-down),
//! or the timeline shows it in flight forever.

use kraft_sim::chaos::{random_run, ChaosOptions};
use kraft_sim::trace::EventKind;
use kraft_sim::Simulation;
use std::collections::{BTreeMap, BTreeSet};

/// The messages of `sim`'s trace with no fate whose recipient crashed after they
/// arrived, and how many messages died in an inbox at a crash.
fn lost_without_fate(sim: &Simulation) -> (Vec<String>, usize) {
    let events = sim.trace();
    // msg -> (seq sent, recipient, arrival)
    let mut open: BTreeMap<u64, (u64, u32, u64)> = BTreeMap::new();
    let mut crashes: Vec<(u64, u64, u32)> = Vec::new();
    let mut died_in_inbox = 0;
    for e in events {
        match &e.kind {
            EventKind::Send { msg, to, arrives, dropped: None, .. } => {
                open.insert(*msg, (e.seq, *to, *arrives));
            }
            EventKind::Deliver { msg, .. } => {
                open.remove(msg);
            }
            EventKind::Drop { msg, sent, .. } => {
                if let Some((_, to, arrives)) = open.remove(msg) {
                    let crashed_here = crashes.last().is_some_and(|&(_, t, n)| t == e.t && n == to);
                    if crashed_here && arrives <= e.t && *sent < e.t {
                        died_in_inbox += 1;
                    }
                }
            }
            EventKind::Crash { node, .. } => crashes.push((e.seq, e.t, *node)),
            _ => {}
        }
    }
    let unfated: BTreeSet<String> = open
        .iter()
        .filter(|(_, &(seq, to, arrives))| crashes.iter().any(|&(c, t, n)| n == to && c > seq && t >= arrives))
        .map(|(msg, (seq, to, arrives))| format!("#{msg} to n{to} (event {seq}, arrived {arrives} ms)"))
        .collect();
    (unfated.into_iter().collect(), died_in_inbox)
}

#[test]
fn a_message_in_a_crashed_nodes_inbox_is_dropped() {
    let mut died = 0;
    for voters in [3, 5] {
        let opts =
            ChaosOptions { seconds: 60, voters, observers: 1, unsafe_switches: vec![], ..ChaosOptions::default() };
        for seed in 1..=12 {
            let (spec, actions) = random_run(seed, &opts);
            let sim = Simulation::replay_once(spec, actions, 60_000).expect("generated runs are valid");
            let (unfated, n) = lost_without_fate(&sim);
            assert!(unfated.is_empty(), "{voters} voters, seed {seed}: no fate for {unfated:?}");
            died += n;
        }
    }
    assert!(died > 0, "no run crashed a node with messages in its inbox: the test checks nothing");
}
