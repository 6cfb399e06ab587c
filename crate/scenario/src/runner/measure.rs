//! Measurements (first election, failover split into detection and election, HW
//! reached, counts, intervals); the failover analysis itself is the core's
//! (`kraft_sim::failover`, KRaft's compiled once in `kraft_sim::kraft`), which free
//! play shows for every leader change too.

use kraft_sim::failover::Failover;
use kraft_sim::kraft::measure_failover;

use super::*;

impl Runner<'_> {
    // ---- failover and measurements ----------------------------------------------------

    pub(super) fn failover(&self, from: Option<&str>) -> Result<Failover, String> {
        let (step_t, trace_index, old, what) = match from {
            Some(l) => {
                let info = self.labels.get(l).ok_or_else(|| format!("step '{l}' never happened"))?;
                let old = info
                    .leader_before
                    .ok_or_else(|| format!("there was no leader at step '{l}' ({})", Seconds(info.t)))?;
                (info.t, info.trace_index, old, format!("step '{l}'"))
            }
            None => {
                let (i, d) = self
                    .done
                    .iter()
                    .enumerate()
                    .filter_map(|(i, d)| d.as_ref().map(|d| (i, d)))
                    .find(|(_, d)| takes_leader_away(d))
                    .ok_or("no step took the leader away (crash, isolate, partition or resign)")?;
                let what = match self.scenario.steps[i].label.as_ref() {
                    Some(l) => format!("step '{l}'"),
                    None => format!("steps[{i}]"),
                };
                (d.t, d.trace_index, d.leader_before.expect("checked"), what)
            }
        };
        let voters = self.sim.world().spec.voters;
        Ok(measure_failover(&self.events[trace_index..], Some((what, step_t)), Some(old), voters))
    }

    pub(super) fn measure(&self, m: &Measure) -> Measurement {
        let trace = &self.events;
        let mut out = Measurement {
            kind: m.kind().key(),
            name: String::new(),
            text: String::new(),
            value_ms: None,
            count: None,
            parts: Vec::new(),
        };
        match m {
            Measure::FirstElection => {
                out.name = "first election".into();
                let first_timeout = trace.iter().find_map(|e| match &e.kind {
                    EventKind::State { node, to: StateName::Prospective | StateName::Candidate, .. } => {
                        Some((e.t, *node))
                    }
                    _ => None,
                });
                match first_leader(trace) {
                    Some((t, node, epoch)) => {
                        out.value_ms = Some(t);
                        let commit = trace.iter().find_map(|e| match e.kind {
                            EventKind::HighWatermark { node: n, .. } if n == node && e.t >= t => Some(e.t),
                            _ => None,
                        });
                        let wait = first_timeout.map(|(ft, _)| ft).unwrap_or(0).min(t);
                        out.parts.push(MeasurementPart { name: "waiting for an election timeout".into(), ms: wait });
                        out.parts.push(MeasurementPart { name: "pre-vote and vote".into(), ms: t - wait });
                        let mut text = format!(
                            "leader n{node} of epoch {epoch} at {} = {} until n{} timed out and started a pre-vote + {} to win the pre-vote and the vote",
                            Seconds(t),
                            Seconds(wait),
                            first_timeout.map(|(_, n)| n).unwrap_or(node),
                            Seconds(t - wait)
                        );
                        if let Some(c) = commit {
                            out.parts.push(MeasurementPart { name: "first commit (LeaderChange)".into(), ms: c - t });
                            text.push_str(&format!("; its LeaderChange record committed {} later", Seconds(c - t)));
                        }
                        out.text = text;
                    }
                    None => out.text = "no leader was elected".into(),
                }
            }
            Measure::Failover { from } => {
                out.name = match from {
                    Some(l) => format!("failover after '{l}'"),
                    None => "failover".into(),
                };
                match self.failover(from.as_deref()) {
                    Ok(f) => out = f.measurement(std::mem::take(&mut out.name)),
                    Err(m) => out.text = m,
                }
            }
            Measure::HwReached { offset, nodes, from } => {
                out.name = format!("HW reaching {offset}");
                let base = from.as_ref().and_then(|t| self.time_of(t)).unwrap_or(0);
                let start = from.as_ref().and_then(|t| self.index_from(t)).unwrap_or(0);
                match self.nodes_of(nodes) {
                    Ok(ids) => {
                        let mut parts = Vec::new();
                        for n in ids {
                            let t = trace[start.min(trace.len())..].iter().find_map(|e| match e.kind {
                                EventKind::HighWatermark { node, new, .. } if node == n && new >= *offset => Some(e.t),
                                _ => None,
                            });
                            match t {
                                Some(t) => {
                                    out.parts.push(MeasurementPart { name: format!("n{n}"), ms: t - base });
                                    parts.push(format!("n{n} at {} (+{})", Seconds(t), Seconds(t - base)));
                                }
                                None => parts.push(format!("n{n} never")),
                            }
                        }
                        out.value_ms = out.parts.iter().map(|p| p.ms).max();
                        out.text = parts.join(", ");
                    }
                    Err(m) => out.text = m,
                }
            }
            Measure::Count { name, matcher, from, to } => {
                out.name = name.clone();
                match self.window(from.as_ref(), to.as_ref()) {
                    Ok((a, b, wtext)) => {
                        let env = self.env();
                        let resolve = |l: &str| env.label_node(l);
                        let found: Vec<&kraft_sim::trace::Event> =
                            trace[a..b].iter().filter(|e| matcher.matches(e, &resolve)).collect();
                        out.count = Some(found.len() as u64);
                        out.text = format!(
                            "{} {wtext}{}",
                            found.len(),
                            found
                                .first()
                                .map(|e| format!("; first at {}: {}", Seconds(e.t), e.kind))
                                .unwrap_or_default()
                        );
                    }
                    Err(m) => out.text = m,
                }
            }
            Measure::Interval { name, from, to } => {
                out.name = name.clone();
                match (self.time_of(from), self.time_of(to)) {
                    (Some(a), Some(b)) => {
                        out.value_ms = Some(b.saturating_sub(a));
                        out.text = format!("{} ({} to {})", Seconds(b.saturating_sub(a)), Seconds(a), Seconds(b));
                    }
                    _ => out.text = "one of the moments never happened".into(),
                }
            }
            Measure::Nodes => {
                out.name = "nodes at the end".into();
                out.text = describe_world(&self.sim);
            }
        }
        out
    }
}
