//! The lanes against folding a run from its start (for windows anywhere, in the recorded
//! future, after a fork, past the in-memory events), the fold's rules on a handmade trace,
//! and the packed form's layout.

use super::*;
use crate::trace::EventKind;
use crate::{Action, ClusterSpec, NetworkSpec, Simulation};
use kraft_protocol::rpc::RpcKind;
use kraft_protocol::{Offset, Reason, StateName};

/// A busy run with every kind of lane change: elections, crashes (losing unflushed
/// records), a minority partition whose leader's tail is truncated, connection
/// failures, loss, a slow disk, writes. Returns it with every event as it was recorded.
fn busy_run(seconds: u64) -> (Simulation, Vec<Event>) {
    let spec = ClusterSpec {
        voters: 5,
        observers: 2,
        seed: 11,
        writes_per_second: 20,
        network: NetworkSpec::Preset("teaching".into()),
        ..ClusterSpec::default()
    };
    let mut sim = Simulation::new(spec).unwrap();
    let mut live = sim.trace().to_vec();
    for s in 0..seconds {
        let leader = sim.world().leader().map(|(id, _)| id).unwrap_or(0);
        match s % 20 {
            3 => drop(sim.act(Action::Crash { node: (leader + 1) % 5 })),
            6 => drop(sim.act(Action::Restart { node: (leader + 4) % 5 })),
            8 => drop(sim.act(Action::Partition { groups: vec![vec![leader], vec![(leader + 1) % 5]] })),
            12 => drop(sim.act(Action::Heal)),
            14 => drop(sim.act(Action::SlowDisk { node: 5, flush_ms: 300 })),
            16 => drop(sim.act(Action::Network { latency_ms: [60, 140], loss: 0.05, duplicate: 0.05 })),
            18 => drop(sim.act(Action::Network { latency_ms: [60, 140], loss: 0.0, duplicate: 0.0 })),
            _ => {}
        }
        sim.advance(1_000).unwrap();
        let after = live.last().map_or(0, |e| e.seq);
        live.extend(sim.trace()[sim.trace().partition_point(|e| e.seq <= after)..].iter().cloned());
    }
    assert_eq!(live.len() as u64, sim.last_seq());
    (sim, live)
}

/// The lanes of [from, to] as folding every event from the run's start gives them.
fn from_the_start(sim: &Simulation, events: &[Event], from: u64, to: u64, horizon: u64) -> Lanes {
    let mut p = Projector::new(from, to, LaneState::new(sim.world().nodes.len()), Vec::new());
    for e in events.iter().take_while(|e| e.t <= to) {
        p.take(e).unwrap();
    }
    p.finish(horizon)
}

/// Windows at and around the checkpoints and in between, from the run's start to past its end.
fn windows(end: u64) -> Vec<(u64, u64)> {
    let mut out = vec![(0, 0), (0, 3_500), (0, end), (end - 3_500, end + 500)];
    for k in 1..end / 10_000 {
        let cp = k * 10_000;
        for from in [cp - 1, cp, cp + 1, cp + 70, cp + 3_333] {
            out.push((from, from + 3_500));
        }
    }
    out
}

#[test]
fn a_window_reads_what_folding_the_run_from_its_start_keeps_of_it() {
    let (sim, live) = busy_run(60);
    for (from, to) in windows(sim.now()) {
        let got = sim.lanes(from, to).unwrap();
        assert_eq!(got, from_the_start(&sim, &live, from, to, sim.now()), "window {from}..{to}");
    }
    // The run has what the lanes show: truncations with their removed records, connection
    // failures, drops, duplicates, crashes with the HW they forgot.
    let all = sim.lanes(0, sim.now()).unwrap();
    let truncation = all.marks.iter().find(|m| m.kind == MarkKind::Truncate && !m.removed.is_empty());
    assert!(
        truncation.is_some_and(|m| m.removed.iter().all(Option::is_some)),
        "a truncation removes records of known epochs"
    );
    assert!(all.spans.iter().any(|s| s.failed) && all.spans.iter().any(|s| s.dropped.is_some()));
    assert!(all.spans.iter().any(|s| s.duplicate) && all.spans.iter().any(|s| s.planned.is_some()));
    assert!(all.lanes.iter().flat_map(|l| &l.bands).any(|b| b.state == StateName::Crashed && b.hw.is_some()));
}

#[test]
fn after_a_seek_back_the_recorded_future_reads_as_it_was_until_an_action_forks_it() {
    let (mut sim, mut live) = busy_run(60);
    // a step past the last advance is part of the recorded run too
    sim.step().unwrap();
    live.extend(sim.events_since(live.last().unwrap().seq).iter().cloned());
    let end = sim.now();
    sim.seek(31_234).unwrap();
    assert_eq!(sim.horizon(), end);
    for (from, to) in [(28_000, 33_000), (31_234, 36_000), (40_000, 45_000), (end - 3_000, end + 1_000)] {
        assert_eq!(sim.lanes(from, to).unwrap(), from_the_start(&sim, &live, from, to, end), "window {from}..{to}");
    }
    // An action here forks the run: the recorded future is gone, what follows is new.
    assert_eq!(sim.forks(), 0);
    sim.act(Action::Crash { node: 0 }).unwrap();
    assert_eq!(sim.horizon(), sim.now());
    assert_eq!(sim.forks(), 1, "counted: a reader that missed the horizon going back learns of it");
    // at the horizon an action forks nothing
    sim.act(Action::Workload { writes_per_second: 5 }).unwrap();
    assert_eq!(sim.forks(), 1);
    let forked: Vec<Event> = sim.events_since(0).into_owned();
    let lanes = sim.lanes(28_000, 40_000).unwrap();
    assert_eq!(lanes, from_the_start(&sim, &forked, 28_000, 40_000, sim.now()));
    assert!(lanes.spans.iter().all(|s| s.sent <= sim.now()) && lanes.marks.iter().all(|m| m.event.t <= sim.now()));
    assert!(lanes.marks.iter().any(|m| m.kind == MarkKind::Crash && m.event.t == sim.now()));
    sim.advance(9_000).unwrap();
    let forked: Vec<Event> = sim.events_since(0).into_owned();
    assert_ne!(forked, live[..forked.len()], "the fork made another run");
    assert_eq!(sim.lanes(28_000, 40_000).unwrap(), from_the_start(&sim, &forked, 28_000, 40_000, sim.now()));
}

#[test]
fn a_window_that_starts_mid_state_starts_each_lane_with_what_it_had_then() {
    let (sim, _) = busy_run(60);
    let lanes = sim.lanes(44_321, 45_000).unwrap();
    for lane in &lanes.lanes {
        // The band in force began before the window, with the event that began it.
        let first = &lane.bands[0];
        assert!(first.t < 44_321 && first.seq > 0, "{first:?}");
        let events = sim.events_between(first.t, first.t);
        assert!(events.iter().any(|e| e.seq == first.seq), "band {first:?}: its event is in the trace");
        // The LEO is a step at the window's start, set by an earlier event.
        assert!(lane.leo[0].t == 44_321 && lane.leo[0].seq > 0);
    }
    let views = sim.nodes_at(44_320).unwrap();
    for (lane, view) in lanes.lanes.iter().zip(&views) {
        assert_eq!(lane.bands[0].state.name(), view.state, "n{}", view.id);
        assert_eq!(lane.bands[0].epoch, view.epoch, "n{}", view.id);
        assert_eq!(lane.leo[0].value, Some(view.leo), "n{}", view.id);
    }
}

#[test]
fn a_story_opened_at_its_start_has_its_whole_run_as_recorded_future() {
    let (sim, live) = busy_run(20);
    let story = Simulation::replay_at(sim.spec().clone(), sim.inputs().to_vec(), sim.now(), 0).unwrap();
    assert_eq!((story.now(), story.horizon()), (0, sim.now()));
    for (from, to) in [(0, 3_500), (5_000, 12_000), (0, sim.now())] {
        assert_eq!(story.lanes(from, to).unwrap(), from_the_start(&sim, &live, from, to, sim.now()));
    }
}

#[test]
fn windows_past_the_in_memory_events_are_regenerated_and_a_window_is_bounded() {
    // About 2,300 events a simulated second: the window of memory has moved on.
    let spec = ClusterSpec { voters: 5, observers: 2, seed: 3, writes_per_second: 100, ..ClusterSpec::default() };
    let mut sim = Simulation::new(spec).unwrap();
    let mut live = sim.trace().to_vec();
    for _ in 0..130 {
        sim.advance(1_000).unwrap();
        let after = live.last().map_or(0, |e| e.seq);
        live.extend(sim.trace()[sim.trace().partition_point(|e| e.seq <= after)..].iter().cloned());
    }
    assert!(sim.trace()[0].t > 20_000, "the window starts at {} ms", sim.trace()[0].t);
    for (from, to) in [(3_000, 6_500), (19_999, 21_000), (sim.trace()[0].t - 500, sim.trace()[0].t + 500)] {
        assert_eq!(
            sim.lanes(from, to).unwrap(),
            from_the_start(&sim, &live, from, to, sim.now()),
            "window {from}..{to}"
        );
    }
    let e = sim.lanes(0, sim.now()).unwrap_err();
    assert_eq!(e.field, "to");
    assert!(e.message.contains("more than 250000 events") && e.message.contains("lanesEvents"), "{}", e.message);
    let e = sim.lanes(0, 600_001).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("to", "to - from must be between 0 and 600000 ms, got 600001 (lanesSpanMs)")
    );
    assert_eq!(sim.lanes(5, 4).unwrap_err().message, "must not be before from (5), got 4");
}

fn event(seq: u64, t: u64, kind: EventKind) -> Event {
    Event { seq, t, kind }
}

#[test]
fn the_fold_draws_states_hw_leo_and_truncations_as_the_timeline_shows_them() {
    use StateName::*;
    let state = |seq, t, from, to, epoch| {
        event(
            seq,
            t,
            EventKind::State { node: 0, from, to, epoch, leader: None, voted: None, reason: Reason::ElectionTimeout },
        )
    };
    let append =
        |seq, t, first, last, epoch| event(seq, t, EventKind::Append { node: 0, first, last, epoch, kind: "x" });
    let hw = |seq, t, new| event(seq, t, EventKind::HighWatermark { node: 0, old: None, new, majority: Box::new([]) });
    let events = [
        state(1, 10, Unattached, Follower, 1),
        append(2, 20, 0, 4, 1),
        hw(3, 20, 3),
        hw(4, 30, 3),
        state(5, 40, Follower, Candidate, 2),
        state(6, 40, Candidate, Leader, 2),
        append(7, 50, 5, 6, 2),
        event(8, 60, EventKind::Crash { node: 0, lost_records: 1 }),
        event(9, 70, EventKind::Truncate { node: 0, from_leo: 6, to: 4, diverging_epoch: Some(1), hw: None }),
    ];
    let mut p = Projector::new(15, 100, LaneState::new(1), Vec::new());
    events.iter().for_each(|e| p.take(e).unwrap());
    let lanes = p.finish(100);
    let lane = &lanes.lanes[0];
    let bands: Vec<(u64, u64, StateName, Option<Offset>)> =
        lane.bands.iter().map(|b| (b.t, b.seq, b.state, b.hw)).collect();
    // Two changes in one millisecond: the band shows the later; a crash remembers the HW.
    assert_eq!(bands, [(10, 1, Follower, None), (40, 6, Leader, None), (60, 8, Crashed, Some(3))]);
    let steps = |s: &[Step]| s.iter().map(|s| (s.t, s.value, s.seq)).collect::<Vec<_>>();
    // The same HW again is no step; a new leader has none until it commits; nor has a crashed node.
    assert_eq!(steps(&lane.hw), [(20, Some(3), 3), (40, None, 6)]);
    assert_eq!(steps(&lane.leo), [(20, Some(5), 2), (50, Some(7), 7), (60, Some(6), 8), (70, Some(4), 9)]);
    let kinds: Vec<MarkKind> = lanes.marks.iter().map(|m| m.kind).collect();
    assert_eq!(kinds, [MarkKind::Leader, MarkKind::Crash, MarkKind::Truncate]);
    // The removed records: offset 4 written in epoch 1, offset 5 in epoch 2.
    assert_eq!(lanes.marks[2].removed, [Some(1), Some(2)]);
    // A window starting later starts from what the lane had then.
    let mut p = Projector::new(45, 100, LaneState::new(1), Vec::new());
    events.iter().for_each(|e| p.take(e).unwrap());
    let lane = &p.finish(100).lanes[0];
    assert_eq!(lane.bands[0].seq, 6);
    assert_eq!((steps(&lane.hw), steps(&lane.leo)[0]), (vec![(45, None, 6)], (45, Some(5), 2)));
}

#[test]
fn the_packed_form_lays_out_every_number_in_order() {
    for (i, k) in RPC_ORDER.iter().enumerate() {
        assert_eq!(k.is_request(), i % 2 == 0, "{k:?}");
        if i % 2 == 0 {
            assert_eq!(RpcKind::REQUESTS[i / 2], *k);
        }
    }
    assert!(STATES.iter().enumerate().all(|(i, s)| *s as usize == i));
    assert!(DropReason::ALL.iter().enumerate().all(|(i, d)| *d as usize == i));
    assert!(Reason::ALL.iter().enumerate().all(|(i, r)| *r as usize == i));
    assert!(MarkKind::ALL.iter().enumerate().all(|(i, k)| *k as usize == i));
    assert!(Outcome::ALL.iter().enumerate().all(|(i, o)| *o as usize == i));
    let (sim, _) = busy_run(10);
    let lanes = sim.lanes(0, 10_000).unwrap();
    let (numbers, events) = lanes.clone().pack();
    let sum = |f: fn(&Lane) -> usize| lanes.lanes.iter().map(f).sum::<usize>();
    let removed: usize = lanes.marks.iter().map(|m| m.removed.len()).sum();
    let want = HEADER_FIELDS.len()
        + lanes.spans.len() * SPAN_FIELDS.len()
        + lanes.lanes.len() * 3
        + sum(|l| l.bands.len()) * BAND_FIELDS.len()
        + sum(|l| l.hw.len() + l.leo.len()) * STEP_FIELDS.len()
        + lanes.marks.len() * 3
        + removed;
    assert_eq!(numbers.len(), want);
    assert_eq!(numbers[..6], [0.0, 10_000.0, 10_000.0, lanes.spans.len() as f64, 7.0, lanes.marks.len() as f64]);
    assert!(events.iter().eq(lanes.marks.iter().map(|m| &m.event)));
}
