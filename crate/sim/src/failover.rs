//! Leader changes, measured the way the leader-crash story's completion card shows them:
//! what took the old leader away, **detection** (until another voter starts an election),
//! **election** (pre-votes and votes, until a leader of a higher epoch), **first commit**
//! (until the new leader's committed offset moves: in KRaft its HW, once its
//! `LeaderChange` record is committed), and the election rounds lost on the way (a split
//! vote). The scenario engine's `failover` measure and free play's leader changes
//! (`leader_changes`) are this one analysis.
//!
//! Any protocol's trace reads the same way: the world's faults and crashes, and of the
//! replicas' words only what the boundary says of a state (`kraft_boundary::StateName`:
//! it leads, it seeks votes, it stands for election) and a reason's name.

use crate::spec::Action;
use crate::trace::{Event, EventKind, Seconds};
use kraft_boundary::{Epoch, Named, NodeId, Protocol, StateName};
use serde::Serialize;
use std::fmt::Write;

/// A number measured in a run (a scenario's `report`, or a leader change in free play).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ScenarioMeasurement"))]
pub struct Measurement {
    pub kind: &'static str,
    pub name: String,
    /// One line with the numbers.
    pub text: String,
    /// The main number, when it is a duration.
    pub value_ms: Option<u64>,
    /// The main number, when it is a count.
    pub count: Option<u64>,
    /// The duration split into parts (e.g. detection and election).
    pub parts: Vec<MeasurementPart>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MeasurementPart {
    pub name: String,
    pub ms: u64,
}

/// An epoch in which candidates stood and none won: the votes split between several, or
/// the one candidate was refused; a later round (after a random election timeout) won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LostRound {
    pub epoch: Epoch,
    /// The candidates of that epoch, in the order they stood.
    pub candidates: Vec<NodeId>,
}

/// One failover as the trace shows it, from the moment the old leader was taken away.
#[derive(Clone, Debug)]
pub struct Failover {
    /// What took the leader away, in words (`step 'crash'`, `crash n0`), and when; None
    /// when no action did (a follower timed out on its own: loss, a slow link).
    pub cause: Option<(String, u64)>,
    /// The leader taken away (node, epoch); None before the first election.
    pub old: Option<(NodeId, Epoch)>,
    /// The first other voter to start an election: when, which, why (`fetch-timeout`).
    pub detect: Option<(u64, NodeId, &'static str)>,
    /// The new leader: when, which, its epoch.
    pub elected: Option<(u64, NodeId, Epoch)>,
    /// When the new leader's committed offset (KRaft: its HW) first moved.
    pub commit: Option<u64>,
    pub lost_rounds: Vec<LostRound>,
}

impl Failover {
    /// Reads the failover from `events`, which start at what took `old` away (the first
    /// election when `old` is None): `voters` are nodes `0..voters`.
    pub fn measure<P: Protocol>(
        events: &[Event<P>],
        cause: Option<(String, u64)>,
        old: Option<(NodeId, Epoch)>,
        voters: u32,
    ) -> Failover {
        let old_epoch = old.map_or(0, |o| o.1);
        let mut f = Failover { cause, old, detect: None, elected: None, commit: None, lost_rounds: Vec::new() };
        // every epoch in which candidates stood (few: a Vec, not a map, keeps the wasm small)
        let mut rounds: Vec<LostRound> = Vec::new();
        for e in events {
            match &e.kind {
                EventKind::State { node, to, epoch, reason, .. } => {
                    if f.elected.is_some() {
                        continue;
                    }
                    if to.seeks_votes() && f.detect.is_none() && Some(*node) != old.map(|o| o.0) && *node < voters {
                        f.detect = Some((e.t, *node, reason.name()));
                    }
                    if to.is_candidate() && *epoch > old_epoch {
                        // kept in epoch order as they come (no sort: its code is most of the wasm this would cost)
                        let at = rounds.partition_point(|r| r.epoch < *epoch);
                        match rounds.get_mut(at) {
                            Some(r) if r.epoch == *epoch => {
                                if !r.candidates.contains(node) {
                                    r.candidates.push(*node);
                                }
                            }
                            _ => rounds.insert(at, LostRound { epoch: *epoch, candidates: vec![*node] }),
                        }
                    }
                    if to.is_leader() && *epoch > old_epoch {
                        f.elected = Some((e.t, *node, *epoch));
                    }
                }
                EventKind::HighWatermark { node, .. } if f.elected.is_some_and(|(_, l, _)| l == *node) => {
                    f.commit = Some(e.t);
                    break;
                }
                _ => {}
            }
        }
        if let Some((_, _, won)) = f.elected {
            rounds.retain(|r| r.epoch < won);
            f.lost_rounds = rounds;
        }
        f
    }

    /// Where the measure starts: the cause, else the detection (nothing took the leader away).
    fn start(&self) -> Option<u64> {
        self.cause.as_ref().map(|c| c.1).or(self.detect.map(|d| d.0))
    }

    /// From the cause to the new leader.
    pub fn total(&self) -> Option<u64> {
        Some(self.elected?.0 - self.start()?)
    }

    /// What the first part is called: detection of a lost leader, or (before the first
    /// election) waiting out the first election timeout.
    fn detection_word(&self) -> &'static str {
        if self.old.is_some() {
            "detection"
        } else {
            "election timeout"
        }
    }

    /// The parts the card shows: detection, election, first commit (those measured).
    pub fn parts(&self) -> Vec<MeasurementPart> {
        let mut parts = Vec::new();
        let part = |name: &str, ms: u64| MeasurementPart { name: name.into(), ms };
        if let (Some((_, t)), Some(d), Some(e)) = (&self.cause, self.detect, self.elected) {
            parts.push(part(self.detection_word(), d.0 - t));
            parts.push(part("election", e.0 - d.0));
        } else if let (Some(d), Some(e)) = (self.detect, self.elected) {
            parts.push(part("election", e.0 - d.0));
        }
        if let (Some(e), Some(c)) = (self.elected, self.commit) {
            parts.push(part("first commit", c - e.0));
        }
        parts
    }

    /// One line: what took the leader away, who leads next and when, the parts, the rounds lost.
    pub fn text(&self) -> String {
        let old = self.old.map(|(n, e)| format!(" (leader n{n} of epoch {e})")).unwrap_or_default();
        let mut s = match &self.cause {
            Some((what, t)) => format!("{what} at {}{old}", Seconds(*t)),
            None => format!("no action took the leader away{old}"),
        };
        let Some((et, leader, epoch)) = self.elected else {
            s.push_str(": no newer leader was elected");
            return s;
        };
        let _ = write!(s, ": n{leader} leads epoch {epoch} at {}", Seconds(et));
        let total = if self.old.is_some() { "failover" } else { "first election" };
        match (&self.cause, self.detect) {
            (Some((_, t)), Some((dt, node, reason))) => {
                let _ = write!(
                    s,
                    ", {total} {} = {} {} (n{node} {reason} at {}) + election {}",
                    Seconds(et - t),
                    self.detection_word(),
                    Seconds(dt - t),
                    Seconds(dt),
                    Seconds(et - dt)
                );
            }
            (Some((_, t)), None) => {
                let _ = write!(s, ", {total} {}", Seconds(et - t));
            }
            (None, Some((dt, node, reason))) => {
                let _ = write!(s, ", election {} (from n{node} {reason} at {})", Seconds(et - dt), Seconds(dt));
            }
            (None, None) => {}
        }
        if let Some(c) = self.commit {
            let _ = write!(s, "; first commit {} later", Seconds(c - et));
        }
        for (i, r) in self.lost_rounds.iter().enumerate() {
            s.push_str(if i == 0 { "; " } else { ", " });
            r.write(&mut s);
        }
        s
    }

    /// As a measurement named `name`: the total, its parts, and `text`.
    pub fn measurement(&self, name: String) -> Measurement {
        Measurement {
            kind: if self.old.is_some() { "failover" } else { "firstElection" },
            name,
            text: self.text(),
            value_ms: self.total(),
            count: None,
            parts: self.parts(),
        }
    }
}

impl LostRound {
    /// Writes "split vote in epoch 2 (n1, n2)", or "epoch 3 lost (n1 alone)".
    fn write(&self, s: &mut String) {
        let split = self.candidates.len() > 1;
        let _ = if split {
            write!(s, "split vote in epoch {} (", self.epoch)
        } else {
            write!(s, "epoch {} lost (", self.epoch)
        };
        for (i, n) in self.candidates.iter().enumerate() {
            let _ = write!(s, "{}n{n}", if i == 0 { "" } else { ", " });
        }
        s.push_str(if split { ")" } else { " alone)" });
    }
}

/// A new leader, measured: what free play shows for every leader change.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LeaderChange {
    /// Seq of the event that made the new leader.
    pub seq: u64,
    /// When it became leader (ms).
    pub t: u64,
    pub node: NodeId,
    pub epoch: Epoch,
    /// The leader before it (none: the first election).
    pub previous: Option<LeaderTerm>,
    /// What took the previous leader away (`crash n0`, `isolate n0`) and when: where the
    /// measure starts. None when no action did (a follower timed out on its own).
    pub cause: Option<Cause>,
    /// Epochs whose candidates all lost before this one won.
    pub lost_rounds: Vec<LostRound>,
    /// The breakdown the leader-crash story's card shows: failover = detection +
    /// election, then first commit.
    pub measurement: Measurement,
}

#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LeaderTerm {
    pub node: NodeId,
    pub epoch: Epoch,
}

#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Cause {
    pub t: u64,
    pub text: String,
}

/// What `e` does to `leader`, if it takes it away: a crash or wipe of it, its isolation, a
/// partition, a one-way cut at it, a resignation, or its own step down (check-quorum). A
/// slow disk or link only slows it: the fault that then takes it away is the cause.
fn takes_away<P: Protocol>(e: &Event<P>, leader: NodeId) -> Option<String> {
    match &e.kind {
        EventKind::Crash { node, .. } if *node == leader => Some(format!("crash n{node}")),
        EventKind::Fault(f) => {
            let away = match &f.action {
                Action::Wipe { node } | Action::Isolate { node } => *node == leader,
                Action::Cut { from, to } => *from == leader || *to == leader,
                Action::Partition { groups } => groups.len() > 1,
                Action::Resign => f.leader == Some(leader),
                _ => false,
            };
            away.then(|| f.to_string())
        }
        EventKind::State { node, from, to, reason, .. } if *node == leader && from.is_leader() => {
            Some(format!("n{node} stepped down to {} ({})", to.name(), reason.name()))
        }
        _ => None,
    }
}

/// Whether `e` undoes a fault on `leader` (its reconnection, an uncut at it, a heal).
fn gives_back<P: Protocol>(e: &Event<P>, leader: NodeId) -> bool {
    match &e.kind {
        EventKind::Fault(f) => {
            let undoes = !f.action.kind().undoes().is_empty();
            let nodes = f.action.nodes();
            undoes && (nodes.is_empty() || nodes.contains(&leader))
        }
        _ => false,
    }
}

/// Every new leader in `events` (the first election included, when `events` start at the
/// run's start), each measured from what took the previous one away.
pub fn leader_changes<P: Protocol>(events: &[Event<P>], voters: u32) -> Vec<LeaderChange> {
    let mut out = Vec::new();
    // from the run's start, the first leader is the first election; in a later window of
    // the trace, the first leader seen is only where measuring starts
    let whole = events.first().is_some_and(|e| e.seq == 1);
    // the leader now (node, epoch), where measuring its successor starts, and its cause
    let mut leader: Option<(NodeId, Epoch)> = None;
    let mut from = 0;
    let mut cause: Option<(String, u64)> = whole.then(|| ("the run started".to_string(), events[0].t));
    for (i, e) in events.iter().enumerate() {
        if let Some((l, _)) = leader {
            if cause.is_none() {
                if let Some(what) = takes_away(e, l) {
                    cause = Some((what, e.t));
                    from = i;
                }
            } else if gives_back(e, l) {
                cause = None;
                from = i;
            }
        }
        let EventKind::State { node, to, epoch, .. } = &e.kind else {
            continue;
        };
        if !to.is_leader() {
            continue;
        }
        let (node, epoch) = (*node, *epoch);
        if leader.is_some_and(|(_, le)| epoch <= le) {
            continue;
        }
        if leader.is_none() && !whole {
            leader = Some((node, epoch));
            from = i;
            continue;
        }
        let f = Failover::measure(&events[from..], cause.take(), leader, voters);
        // measured from a window that lost the previous leader: only this leader is known
        if f.elected.map(|(_, n, ep)| (n, ep)) == Some((node, epoch)) {
            let name = match leader {
                Some((n, ep)) => format!("n{node} after n{n} (epoch {ep} to {epoch})"),
                None => "first election".to_string(),
            };
            let measurement = f.measurement(name);
            out.push(LeaderChange {
                seq: e.seq,
                t: e.t,
                node,
                epoch,
                previous: leader.map(|(node, epoch)| LeaderTerm { node, epoch }),
                cause: f.cause.map(|(text, t)| Cause { t, text }),
                lost_rounds: f.lost_rounds,
                measurement,
            });
        }
        leader = Some((node, epoch));
        from = i;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ClusterSpec;
    use crate::Simulation;
    use kraft_protocol::{KRaft, StateName};

    fn run(voters: u32, seed: u64, f: impl FnOnce(&mut Simulation)) -> Simulation {
        let spec = ClusterSpec {
            voters,
            seed,
            network: crate::spec::NetworkSpec::Preset("teaching".into()),
            ..Default::default()
        };
        let mut sim = Simulation::new(spec).unwrap();
        f(&mut sim);
        sim
    }

    /// A crashed leader's successor: the first election, then the failover, each split
    /// the way the leader-crash story's card splits it.
    #[test]
    fn a_crash_is_measured_from_the_crash() {
        let sim = run(3, 11, |s| {
            s.advance(5_000).unwrap();
            let (l, _) = s.world().leader().unwrap();
            s.act(Action::Crash { node: l }).unwrap();
            s.advance(8_000).unwrap();
        });
        let changes = leader_changes(sim.trace(), 3);
        assert_eq!(changes.len(), 2, "{changes:?}");
        let first = &changes[0];
        assert!(first.previous.is_none());
        assert_eq!(first.cause.as_ref().unwrap().text, "the run started");
        let second = &changes[1];
        let prev = second.previous.unwrap();
        assert_eq!(second.cause.as_ref().unwrap().text, format!("crash n{}", prev.node));
        assert_eq!(second.cause.as_ref().unwrap().t, 5_000);
        let m = &second.measurement;
        let names: Vec<&str> = m.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["detection", "election", "first commit"]);
        assert_eq!(m.value_ms, Some(second.t - 5_000));
        assert_eq!(m.parts[0].ms + m.parts[1].ms, m.value_ms.unwrap());
        // Kafka's fetch timeout (2 s) is most of it: a follower waits it out after its last fetch
        assert!((1_500..=2_100).contains(&m.parts[0].ms), "{m:?}");
        assert!(
            m.text.starts_with(&format!("crash n{} at 5.000s (leader n{} of epoch 1): n", prev.node, prev.node)),
            "{}",
            m.text
        );
    }

    /// An isolation healed before anything changed is not the cause of a later change.
    #[test]
    fn a_fault_undone_in_time_is_no_cause() {
        let sim = run(3, 4, |s| {
            s.advance(5_000).unwrap();
            let (l, _) = s.world().leader().unwrap();
            s.act(Action::Isolate { node: l }).unwrap();
            s.advance(300).unwrap();
            s.act(Action::Reconnect { node: l }).unwrap();
            s.advance(5_000).unwrap();
            s.act(Action::Resign).unwrap();
            s.advance(5_000).unwrap();
        });
        let changes = leader_changes(sim.trace(), 3);
        let last = changes.last().unwrap();
        assert!(last.cause.as_ref().unwrap().text.starts_with("resign"), "{last:?}");
        assert!(last.cause.as_ref().unwrap().t >= 10_300);
    }

    /// Candidates of an epoch that nobody won are named: a split vote.
    #[test]
    fn rounds_nobody_won_are_named() {
        let ev = |seq: u64, t: u64, node: NodeId, to: StateName, epoch: Epoch| Event::<KRaft> {
            seq,
            t,
            kind: EventKind::State {
                node,
                from: StateName::Unattached,
                to,
                epoch,
                leader: None,
                voted: None,
                reason: kraft_protocol::Reason::ElectionTimeout,
            },
        };
        let events = [
            ev(1, 0, 0, StateName::Unattached, 0),
            ev(2, 1_000, 1, StateName::Candidate, 1),
            ev(3, 1_010, 2, StateName::Candidate, 1),
            ev(4, 2_500, 2, StateName::Candidate, 2),
            ev(5, 2_600, 2, StateName::Leader, 2),
        ];
        let changes = leader_changes(&events, 3);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].lost_rounds, [LostRound { epoch: 1, candidates: vec![1, 2] }]);
        assert!(
            changes[0].measurement.text.ends_with("; split vote in epoch 1 (n1, n2)"),
            "{}",
            changes[0].measurement.text
        );
        let mut lost = String::new();
        LostRound { epoch: 3, candidates: vec![4] }.write(&mut lost);
        assert_eq!(lost, "epoch 3 lost (n4 alone)");
    }
}
