//! The end of a run: every expectation evaluated against the trace and the world, with
//! a one-line explanation carrying the measured numbers.

use super::*;

impl Runner<'_> {
    // ---- the end ---------------------------------------------------------------------

    pub(super) fn finish(self, spec: ClusterSpec, steps: Vec<StepReport>) -> Run {
        let expected: Vec<Invariant> = self
            .scenario
            .expect
            .iter()
            .filter_map(|e| match &e.expectation {
                Expectation::Violated(v) => Some(v.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let violations: Vec<ViolationReport> = self
            .sim
            .violations()
            .filter_map(|e| match &e.kind {
                EventKind::Violation { invariant, node, detail, .. } => Some(ViolationReport {
                    seq: e.seq,
                    t: e.t,
                    invariant: invariant.name(),
                    node: *node,
                    detail: detail.to_string(),
                    expected: expected.contains(invariant),
                }),
                _ => None,
            })
            .collect();
        let mut expectations: Vec<ExpectationReport> = self
            .scenario
            .expect
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let (passed, explanation) =
                    self.evaluate(i, &e.expectation, &violations).unwrap_or_else(|m| (false, m));
                ExpectationReport {
                    index: i,
                    kind: e.expectation.kind().key(),
                    passed,
                    explanation,
                    note: e.note.clone(),
                }
            })
            .collect();
        if let Some(why) = &self.stopped {
            let explanation = format!("the run stopped at {}: {why}", Seconds(self.sim.now()));
            expectations.push(ExpectationReport {
                index: expectations.len(),
                kind: "run",
                passed: false,
                explanation,
                note: None,
            });
        }
        let measurements: Vec<Measurement> = self.scenario.report.iter().map(|m| self.measure(m)).collect();
        let passed = steps.iter().all(|s| s.ok)
            && expectations.iter().all(|e| e.passed)
            && violations.iter().all(|v| v.expected);
        let report = Report {
            id: self.scenario.id.clone(),
            title: self.scenario.title.clone(),
            variant: self.scenario.variant.clone(),
            seed: spec.seed,
            unsafe_switches: spec.unsafe_switches.clone(),
            passed,
            end_ms: self.sim.now(),
            steps,
            expectations,
            violations,
            measurements,
            record_names: self.scenario.record_names.clone(),
            spec,
            inputs: self.sim.inputs().to_vec(),
            events: self.events.len(),
            digest: self.sim.digest().hex(),
        };
        Run { report, simulation: self.sim, events: self.events }
    }

    pub(super) fn nodes_of(&self, sel: &NodeSel) -> Result<Vec<NodeId>, String> {
        self.env().select(sel)
    }

    pub(super) fn window(
        &self,
        from: Option<&TimeRef>,
        to: Option<&TimeRef>,
    ) -> Result<(usize, usize, String), String> {
        let never = |t: &TimeRef| format!("{t} never happened");
        let a = match from {
            None => 0,
            Some(t) => self.index_from(t).ok_or_else(|| never(t))?,
        };
        let b = match to {
            None => self.events.len(),
            Some(t) => self.index_to(t).ok_or_else(|| never(t))?,
        };
        let text = match (from, to) {
            (None, None) => "in the whole run".to_string(),
            (Some(f), None) => format!("from {} ({f}) to the end", Seconds(self.time_of(f).unwrap_or(0))),
            (None, Some(t)) => format!("until {} ({t})", Seconds(self.time_of(t).unwrap_or(0))),
            (Some(f), Some(t)) => format!(
                "between {} ({f}) and {} ({t})",
                Seconds(self.time_of(f).unwrap_or(0)),
                Seconds(self.time_of(t).unwrap_or(0))
            ),
        };
        Ok((a, b.max(a), text))
    }

    fn evaluate(
        &self,
        index: usize,
        e: &Expectation,
        violations: &[ViolationReport],
    ) -> Result<(bool, String), String> {
        let trace = &self.events;
        Ok(match e {
            Expectation::LeaderElectedBy(by) => match first_leader(trace) {
                Some((t, node, epoch)) => (
                    t <= *by,
                    format!("leader n{node} elected at {} in epoch {epoch} (expected by {})", Seconds(t), Seconds(*by)),
                ),
                None => (false, format!("no leader was elected (expected by {})", Seconds(*by))),
            },
            Expectation::HwAtLeast { nodes, offset, by } => {
                let nodes = self.nodes_of(nodes)?;
                let Some(by_t) = self.time_of(by) else {
                    return Err(format!("{by} never happened"));
                };
                let mut ok = true;
                let mut parts = Vec::new();
                for n in nodes {
                    let reached = trace.iter().find_map(|e| match e.kind {
                        EventKind::HighWatermark { node, new, .. } if node == n && new >= *offset => Some(e.t),
                        _ => None,
                    });
                    match reached {
                        Some(t) => {
                            ok &= t <= by_t;
                            parts.push(format!("n{n} at {}", Seconds(t)));
                        }
                        None => {
                            ok = false;
                            let max = trace
                                .iter()
                                .filter_map(|e| match e.kind {
                                    EventKind::HighWatermark { node, new, .. } if node == n => Some(new),
                                    _ => None,
                                })
                                .max();
                            parts.push(format!(
                                "n{n} never (highest {})",
                                max.map(|m| m.to_string()).unwrap_or_else(|| "none".into())
                            ));
                        }
                    }
                }
                (ok, format!("HW >= {offset}: {} (expected by {})", parts.join(", "), Seconds(by_t)))
            }
            Expectation::Truncation { nodes, rounds, from, to } => {
                let nodes = self.nodes_of(nodes)?;
                let (a, b, wtext) = self.window(from.as_ref(), to.as_ref())?;
                let mut ok = true;
                let mut parts = Vec::new();
                for n in nodes {
                    let truncs: Vec<String> = trace[a..b]
                        .iter()
                        .filter_map(|e| match &e.kind {
                            EventKind::Truncate { node, from_leo, to, diverging_epoch, .. } if *node == n => {
                                Some(format!(
                                    "{from_leo} -> {to} at {}{}",
                                    Seconds(e.t),
                                    diverging_epoch
                                        .map(|d| format!(" (diverging epoch {d})"))
                                        .unwrap_or_else(|| " (snapshot)".into())
                                ))
                            }
                            _ => None,
                        })
                        .collect();
                    ok &= truncs.len() as u64 >= *rounds;
                    if truncs.is_empty() {
                        parts.push(format!("n{n} never truncated"));
                    } else {
                        parts.push(format!(
                            "n{n} truncated {} time{}: {}",
                            truncs.len(),
                            if truncs.len() == 1 { "" } else { "s" },
                            truncs.join(", ")
                        ));
                    }
                }
                (ok, format!("{} {wtext} (expected at least {rounds} each)", parts.join("; ")))
            }
            Expectation::NoTruncation { nodes, from, to } => {
                let nodes = self.nodes_of(nodes)?;
                let (a, b, wtext) = self.window(from.as_ref(), to.as_ref())?;
                let found: Vec<String> = trace[a..b]
                    .iter()
                    .filter(|e| matches!(&e.kind, EventKind::Truncate { node, .. } if nodes.contains(node)))
                    .map(|e| format!("{} {}", Seconds(e.t), e.kind))
                    .collect();
                if found.is_empty() {
                    (true, format!("no truncation {wtext}"))
                } else {
                    (false, format!("{} truncation(s) {wtext}: {}", found.len(), found.join("; ")))
                }
            }
            Expectation::Failover { from, within, at_least } => {
                let f = self.failover(from.as_deref())?;
                let Some(total) = f.total() else {
                    let within = within.map(|w| format!(" within {}", Seconds(w))).unwrap_or_default();
                    return Err(format!("{} (expected a new leader{within})", f.text()));
                };
                let mut ok = true;
                let mut want = Vec::new();
                if let Some(w) = within {
                    ok &= total <= *w;
                    want.push(format!("within {}", Seconds(*w)));
                }
                if let Some(a) = at_least {
                    ok &= total >= *a;
                    want.push(format!("no sooner than {}", Seconds(*a)));
                }
                (ok, format!("{} (expected {})", f.text(), want.join(" and ")))
            }
            Expectation::NoViolations => {
                if violations.is_empty() {
                    (true, "no invariant violated".into())
                } else {
                    let v = &violations[0];
                    (
                        false,
                        format!(
                            "{} violation(s); first {} at {}: {}",
                            violations.len(),
                            v.invariant,
                            Seconds(v.t),
                            v.detail
                        ),
                    )
                }
            }
            Expectation::Violated(names) => {
                let wanted: Vec<&str> = names.iter().map(|i| i.name()).collect();
                match violations.iter().find(|v| wanted.contains(&v.invariant)) {
                    Some(v) => {
                        let count = violations.iter().filter(|x| wanted.contains(&x.invariant)).count();
                        (
                            true,
                            format!(
                                "{} reported at {}{}: {}{}",
                                v.invariant,
                                Seconds(v.t),
                                v.node.map(|n| format!(" at n{n}")).unwrap_or_default(),
                                v.detail,
                                if count > 1 { format!(" ({count} reports in all)") } else { String::new() }
                            ),
                        )
                    }
                    None => {
                        let others: Vec<&str> = violations.iter().map(|v| v.invariant).collect();
                        (
                            false,
                            format!(
                                "{} was not reported{}",
                                wanted.join(" or "),
                                if others.is_empty() {
                                    " (no violations at all)".to_string()
                                } else {
                                    format!(" (reported instead: {})", others.join(", "))
                                }
                            ),
                        )
                    }
                }
            }
            Expectation::Eventually { condition, by, .. }
            | Expectation::Always { condition, to: Some(by), .. }
            | Expectation::Holds { condition, at: by } => self.monitor_result(index, condition, Some(by)),
            Expectation::Always { condition, to: None, .. } => self.monitor_result(index, condition, None),
            Expectation::Event { matcher, from, to, at_least, at_most } => {
                let (a, b, wtext) = self.window(from.as_ref(), to.as_ref())?;
                let env = self.env();
                let resolve = |l: &str| env.label_node(l);
                let found: Vec<&kraft_sim::trace::Event> =
                    trace[a..b].iter().filter(|e| matcher.matches(e, &resolve)).collect();
                let count = found.len() as u64;
                let ok = count >= *at_least && at_most.map(|m| count <= m).unwrap_or(true);
                let first =
                    found.first().map(|e| format!("; first at {}: {}", Seconds(e.t), e.kind)).unwrap_or_default();
                let want = match (at_least, at_most) {
                    (_, Some(0)) => "expected none".to_string(),
                    (l, Some(m)) => format!("expected {l} to {m}"),
                    (l, None) => format!("expected at least {l}"),
                };
                (ok, format!("{count} event(s) {matcher} {wtext} ({want}){first}"))
            }
            Expectation::Progress { from, to, at_least } => {
                let (a, b, wtext) = self.window(Some(from), to.as_ref())?;
                let before = max_hw(&trace[..a]);
                let after = max_hw(&trace[..b]);
                let gained = after.unwrap_or(0).saturating_sub(before.unwrap_or(0));
                (
                    gained >= *at_least,
                    format!(
                        "highest HW went from {} to {} {wtext}: +{gained} (expected at least +{at_least})",
                        before.map(|h| h.to_string()).unwrap_or_else(|| "none".into()),
                        after.map(|h| h.to_string()).unwrap_or_else(|| "none".into()),
                    ),
                )
            }
            Expectation::Metadata { nodes, want } => self.metadata(nodes, want)?,
        })
    }

    fn monitor_result(&self, index: usize, condition: &Condition, until: Option<&TimeRef>) -> (bool, String) {
        let Some(m) = self.monitors.iter().find(|m| m.expect_index == index) else {
            return (false, "not watched".into());
        };
        let until_t = until.and_then(|t| self.time_of(t));
        match m.kind {
            MonitorKind::Eventually => match m.hit {
                Some(t) => (
                    true,
                    format!(
                        "{condition}: held at {}{}",
                        Seconds(t),
                        until_t.map(|u| format!(" (expected by {})", Seconds(u))).unwrap_or_default()
                    ),
                ),
                None => (
                    false,
                    match until_t {
                        Some(u) => {
                            format!(
                                "{condition}: did not hold by {} ({})",
                                Seconds(u),
                                describe_unmet(&self.sim, &self.env(), condition)
                            )
                        }
                        None => {
                            format!("{condition}: {} never happened", until.map(|t| t.to_string()).unwrap_or_default())
                        }
                    },
                ),
            },
            MonitorKind::Always => match &m.failed {
                Some((t, world)) => (false, format!("{condition}: stopped holding at {} ({world})", Seconds(*t))),
                None if m.checks == 0 => (false, format!("{condition}: the window never began")),
                None => (
                    true,
                    format!(
                        "{condition}: held at every one of {} moments checked{}",
                        m.checks,
                        match until_t {
                            Some(u) => format!(" until {}", Seconds(u)),
                            None => " until the end".into(),
                        }
                    ),
                ),
            },
            MonitorKind::Holds => match (m.hit, &m.failed) {
                (Some(t), None) => (true, format!("{condition}: held at {}", Seconds(t))),
                (Some(t), Some((_, world))) => {
                    (false, format!("{condition}: did not hold at {} ({world})", Seconds(t)))
                }
                _ => (
                    false,
                    format!("{condition}: {} was never reached", until.map(|t| t.to_string()).unwrap_or_default()),
                ),
            },
        }
    }

    fn metadata(&self, sel: &NodeSel, want: &ImageWant) -> Result<(bool, String), String> {
        let nodes = self.nodes_of(sel)?;
        let (problems, first) = image_problems(self.sim.world(), &nodes, want);
        let ok = problems.is_empty();
        let Some((_, img)) = first else {
            return Ok((false, problems.join("; ")));
        };
        let topics_have: Vec<&str> = img.topics.keys().map(|k| &**k).collect();
        let summary = format!(
            "{} node(s) with brokers {:?}, topics {:?}, applied to offset {}",
            nodes.len(),
            img.brokers,
            topics_have,
            img.applied_offset
        );
        Ok(if ok {
            (true, format!("at the end: {summary}, all alike"))
        } else {
            (false, format!("{}; ({summary})", problems.join("; ")))
        })
    }
}
