//! Reading conditions, event patterns, expectations and measurements.

use super::reader::*;
use super::*;
use crate::vocab::{ConditionKind, ExpectKind, MeasureKind};
use std::collections::BTreeSet;

// ---- conditions ---------------------------------------------------------------------

fn names(table: &[(&'static str, &'static [&'static str])]) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

fn fields_of(table: &[(&'static str, &'static [&'static str])], key: &str) -> &'static [&'static str] {
    table.iter().find(|(n, _)| *n == key).map(|(_, f)| *f).unwrap_or(&[])
}

pub(super) fn parse_condition(v: &Value, path: &str, cx: &Cx) -> R<Condition> {
    let o = Obj::new(v, path, "a condition")?;
    let (kind, val, p): (ConditionKind, _, _) = o.single(&[], "condition")?;
    let fields = kind.spec().0.fields();
    Ok(match kind {
        ConditionKind::LeaderElected => match val {
            Value::Bool(_) => {
                expect_true(val, &p, "to wait for no leader, use {\"not\": {\"leaderElected\": true}}")?;
                Condition::LeaderElected { other_than: None, min_epoch: None }
            }
            _ => {
                let c = Obj::new(val, &p, "true or {\"otherThan\": node, \"minEpoch\": n}")?;
                c.fields(fields)?;
                Condition::LeaderElected {
                    other_than: c.get("otherThan").map(|v| cx.node_ref(v, &c.p("otherThan"), true)).transpose()?,
                    min_epoch: c.opt("minEpoch")?,
                }
            }
        },
        ConditionKind::LeaderIs => Condition::LeaderIs(cx.node_ref(val, &p, false)?),
        ConditionKind::State => {
            let c = Obj::new(val, &p, "{\"node\": n, \"is\": state}")?;
            c.fields(fields)?;
            Condition::State {
                node: cx.node_ref(c.req_value("node")?, &c.p("node"), true)?,
                is: parse_states(c.req_value("is")?, &c.p("is"))?,
            }
        }
        ConditionKind::Hw => {
            let c = Obj::new(val, &p, "{\"node\": n, \"atLeast\": offset}")?;
            c.fields(fields)?;
            Condition::Hw { nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), true)?, at_least: c.req("atLeast")? }
        }
        ConditionKind::CaughtUp => {
            let c = Obj::new(val, &p, "{\"node\": n}")?;
            c.fields(fields)?;
            Condition::CaughtUp { nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), true)? }
        }
        ConditionKind::Converged => {
            expect_true(val, &p, "use {\"not\": {\"converged\": true}}")?;
            Condition::Converged
        }
        ConditionKind::Image => {
            let c = Obj::new(
                val,
                &p,
                "{\"node\": n, \"sameAs\": n, \"appliedOffset\": offset, \"brokers\": [...], \"topics\": [...]}",
            )?;
            c.fields(fields)?;
            Condition::Image {
                nodes: c.get("node").map(|v| cx.node_sel(v, &c.p("node"), true)).transpose()?.unwrap_or(NodeSel::All),
                same_as: c.get("sameAs").map(|v| cx.node_ref(v, &c.p("sameAs"), true)).transpose()?,
                want: ImageWant::new(c.opt("appliedOffset")?, c.opt("brokers")?, c.opt("topics")?),
            }
        }
        ConditionKind::Event => Condition::Event(parse_event_match(val, &p, cx)?),
        ConditionKind::AllOf => {
            let Value::Array(items) = val else {
                return err(p, format!("expected an array of conditions, got {}", json_kind(val)));
            };
            if items.is_empty() {
                return err(p, "needs at least one condition");
            }
            let mut out = Vec::new();
            for (i, c) in items.iter().enumerate() {
                out.push(parse_condition(c, &idx(&p, i), cx)?);
            }
            Condition::AllOf(out)
        }
        ConditionKind::Not => Condition::Not(Box::new(parse_condition(val, &p, cx)?)),
    })
}

pub(super) fn parse_states(v: &Value, path: &str) -> R<Vec<String>> {
    let one = |s: &Value, p: &str| -> R<String> {
        match s.as_str() {
            Some(name) if STATES.contains(&name) => Ok(name.to_string()),
            Some(name) => {
                err(p, format!("unknown state '{}'{}; states: {}", cap(name), suggest(name, STATES), STATES.join(", ")))
            }
            None => err(p, format!("expected a state name, got {}", json_kind(s))),
        }
    };
    match v {
        Value::Array(a) if !a.is_empty() => a.iter().enumerate().map(|(i, s)| one(s, &idx(path, i))).collect(),
        Value::Array(_) => err(path, "needs at least one state"),
        s => Ok(vec![one(s, path)?]),
    }
}

pub(super) fn parse_event_match(v: &Value, path: &str, cx: &Cx) -> R<EventMatch> {
    let o = Obj::new(v, path, "an event pattern like {\"type\": \"truncate\", \"node\": 2}")?;
    let types = names(EVENT_FIELDS);
    let mut ty: Option<&str> = None;
    if let Some(t) = o.get("type") {
        let list: Vec<(&Value, String)> = match t {
            Value::Array(a) => a.iter().enumerate().map(|(i, x)| (x, idx(&o.p("type"), i))).collect(),
            x => vec![(x, o.p("type"))],
        };
        for (x, p) in &list {
            match x.as_str() {
                Some(n) if types.contains(&n) => {}
                Some(n) => {
                    return err(
                        p.clone(),
                        format!("unknown event type '{}'{}; types: {}", cap(n), suggest(n, &types), types.join(", ")),
                    )
                }
                None => return err(p.clone(), format!("expected an event type name, got {}", json_kind(x))),
            }
        }
        if list.len() == 1 {
            ty = list[0].0.as_str();
        }
    }
    let allowed: Vec<&str> = match ty {
        Some(t) => EVENT_COMMON.iter().chain(fields_of(EVENT_FIELDS, t).iter()).copied().collect(),
        None => {
            let mut all: BTreeSet<&str> = EVENT_COMMON.iter().copied().collect();
            for (_, f) in EVENT_FIELDS {
                all.extend(f.iter().copied());
            }
            all.into_iter().collect()
        }
    };
    for (k, val) in o.map.iter() {
        if !allowed.contains(&k.as_str()) {
            return err(
                o.p(k),
                match ty {
                    Some(t) => format!(
                        "'{}' events have no field '{}'{}; their fields: {}",
                        cap(t),
                        cap(k),
                        suggest(k, &allowed),
                        allowed.join(", ")
                    ),
                    None => format!("no event has a field '{}'{}", cap(k), suggest(k, &allowed)),
                },
            );
        }
        // A string is a step label standing for a node, or plain text (it is echoed in
        // explanations and names as it is).
        let check_string = |x: &Value, p: String| -> R<()> {
            match x.as_str() {
                Some(s) if s.starts_with('$') => {
                    if !node_fields(ty).contains(&k.as_str()) {
                        return err(
                            p,
                            format!(
                                "'{}': a step label stands only for a node (fields {})",
                                cap(s),
                                node_fields(ty).join(", ")
                            ),
                        );
                    }
                    cx.label(&s[1..], &p, true)
                }
                Some(s) => check_plain(s, &p),
                None => Ok(()),
            }
        };
        match val {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    check_string(x, idx(&o.p(k), i))?;
                }
            }
            x => check_string(x, o.p(k))?,
        }
    }
    if o.map.is_empty() {
        return err(path, "an empty pattern matches every event; name at least a \"type\"");
    }
    Ok(EventMatch { fields: o.map.iter().map(|(k, v)| (k.clone(), v.clone())).collect() })
}

// ---- expectations -------------------------------------------------------------------

pub(super) fn parse_expect_list(v: &Value, path: &str, cx: &Cx) -> R<Vec<Expect>> {
    let Value::Array(items) = v else {
        return err(path, format!("expected an array of expectations, got {}", json_kind(v)));
    };
    items.iter().enumerate().map(|(i, e)| parse_expect(e, &idx(path, i), cx)).collect()
}

pub(super) fn parse_expect(v: &Value, path: &str, cx: &Cx) -> R<Expect> {
    let o = Obj::new(v, path, "an expectation like {\"leaderElectedBy\": 5000}")?;
    let (kind, val, p): (ExpectKind, _, _) = o.single(&["note"], "expectation")?;
    let note = o.string("note")?;
    if let Some(n) = &note {
        check_markup(n, &o.p("note"))?;
    }
    let fields = kind.spec().0.fields();
    let obj = |what: &str| -> R<Obj> {
        let c = Obj::new(val, &p, what)?;
        c.fields(fields)?;
        Ok(c)
    };
    let expectation = match kind {
        ExpectKind::LeaderElectedBy => Expectation::LeaderElectedBy(u64_of(val, &p)?),
        ExpectKind::HwAtLeast => {
            let c = obj("{\"node\": n, \"offset\": x, \"by\": ms}")?;
            Expectation::HwAtLeast {
                nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), false)?,
                offset: c.req("offset")?,
                by: cx.time_ref(c.req_value("by")?, &c.p("by"))?,
            }
        }
        ExpectKind::Truncation => {
            let c = obj("{\"node\": n}")?;
            let rounds: u64 = c.opt("rounds")?.unwrap_or(1);
            if rounds == 0 {
                return err(c.p("rounds"), "must be at least 1 (use noTruncation for none)");
            }
            Expectation::Truncation {
                nodes: cx.node_sel(c.req_value("node")?, &c.p("node"), false)?,
                rounds,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        ExpectKind::NoTruncation => {
            let c = obj("{\"node\": n}")?;
            Expectation::NoTruncation {
                nodes: cx.sel_or_all(&c, "node")?,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        ExpectKind::Failover => {
            let c = obj("{\"from\": label, \"within\": ms}")?;
            let from = c.string("from")?;
            if let Some(l) = &from {
                cx.label(l, &c.p("from"), false)?;
            }
            let within: Option<u64> = c.opt("within")?;
            let at_least: Option<u64> = c.opt("atLeast")?;
            if within.is_none() && at_least.is_none() {
                return err(p, "give 'within' (ms) and/or 'atLeast' (ms)");
            }
            Expectation::Failover { from, within, at_least }
        }
        ExpectKind::NoViolations => {
            expect_true(val, &p, "to expect a violation use {\"violated\": \"InvariantName\"}")?;
            Expectation::NoViolations
        }
        ExpectKind::Violated => {
            let list: Vec<(&Value, String)> = match val {
                Value::Array(a) if !a.is_empty() => a.iter().enumerate().map(|(i, x)| (x, idx(&p, i))).collect(),
                Value::Array(_) => return err(p, "name at least one invariant"),
                x => vec![(x, p.clone())],
            };
            let known: Vec<&str> = Invariant::ALL.iter().map(|i| i.name()).collect();
            let mut out = Vec::new();
            for (x, xp) in list {
                let Some(name) = x.as_str() else {
                    return err(xp, format!("expected an invariant name, got {}", json_kind(x)));
                };
                match Invariant::parse(name) {
                    Some(i) => out.push(i),
                    None => {
                        return err(
                            xp,
                            format!(
                                "unknown invariant '{}'{}; invariants: {}",
                                cap(name),
                                suggest(name, &known),
                                known.join(", ")
                            ),
                        )
                    }
                }
            }
            Expectation::Violated(out)
        }
        ExpectKind::Eventually => {
            let c = obj("{\"condition\": ..., \"by\": ms}")?;
            Expectation::Eventually {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                from: cx.opt_time(&c, "from")?,
                by: cx.time_ref(c.req_value("by")?, &c.p("by"))?,
            }
        }
        ExpectKind::Always => {
            let c = obj("{\"condition\": ..., \"from\": t, \"to\": t}")?;
            Expectation::Always {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
            }
        }
        ExpectKind::Holds => {
            let c = obj("{\"condition\": ..., \"at\": t}")?;
            Expectation::Holds {
                condition: parse_condition(c.req_value("condition")?, &c.p("condition"), cx)?,
                at: cx.time_ref(c.req_value("at")?, &c.p("at"))?,
            }
        }
        ExpectKind::Event | ExpectKind::NoEvent => {
            let c = obj("{\"match\": {\"type\": ...}}")?;
            let matcher = parse_event_match(c.req_value("match")?, &c.p("match"), cx)?;
            let (at_least, at_most) = if kind == ExpectKind::NoEvent {
                (0, Some(0))
            } else {
                let at_least: u64 = c.opt("atLeast")?.unwrap_or(1);
                let at_most: Option<u64> = c.opt("atMost")?;
                if let Some(m) = at_most {
                    if m < at_least {
                        return err(c.p("atMost"), format!("{m} is below atLeast ({at_least})"));
                    }
                }
                (at_least, at_most)
            };
            Expectation::Event {
                matcher,
                from: cx.opt_time(&c, "from")?,
                to: cx.opt_time(&c, "to")?,
                at_least,
                at_most,
            }
        }
        ExpectKind::Progress => {
            let c = obj("{\"from\": t, \"atLeast\": records}")?;
            Expectation::Progress {
                from: cx.time_ref(c.req_value("from")?, &c.p("from"))?,
                to: cx.opt_time(&c, "to")?,
                at_least: c.req("atLeast")?,
            }
        }
        ExpectKind::Metadata => {
            let c = obj("{\"node\": n, \"brokers\": [...], \"topics\": [...]}")?;
            Expectation::Metadata {
                nodes: cx.sel_or_all(&c, "node")?,
                want: ImageWant::new(None, c.opt("brokers")?, c.opt("topics")?),
            }
        }
    };
    Ok(Expect { expectation, note })
}

// ---- measurements -------------------------------------------------------------------

/// A measurement's `name`: plain text, shown as it is.
fn plain_name(o: &Obj) -> R<Option<String>> {
    let name = o.string("name")?;
    if let Some(n) = &name {
        check_plain(n, &o.p("name"))?;
    }
    Ok(name)
}

pub(super) fn parse_measures(v: &Value, path: &str, cx: &Cx) -> R<Vec<Measure>> {
    let Value::Array(items) = v else {
        return err(path, format!("expected an array of measurements, got {}", json_kind(v)));
    };
    let mut out = Vec::new();
    for (i, m) in items.iter().enumerate() {
        let mp = idx(path, i);
        let o = Obj::new(m, &mp, "a measurement like {\"failover\": \"crash\"}")?;
        let (kind, val, p): (MeasureKind, _, _) = o.single(&[], "measurement")?;
        let fields = kind.spec().0.fields();
        let obj = |what: &str| -> R<Obj> {
            let c = Obj::new(val, &p, what)?;
            c.fields(fields)?;
            Ok(c)
        };
        out.push(match kind {
            MeasureKind::FirstElection => {
                expect_true(val, &p, "leave it out instead")?;
                Measure::FirstElection
            }
            MeasureKind::Failover => match val {
                Value::Bool(_) => {
                    expect_true(val, &p, "leave it out instead")?;
                    Measure::Failover { from: None }
                }
                Value::String(l) => {
                    cx.label(l, &p, false)?;
                    Measure::Failover { from: Some(l.clone()) }
                }
                other => return err(p, format!("expected a step label or true, got {}", json_kind(other))),
            },
            MeasureKind::HwReached => {
                let c = obj("{\"offset\": x}")?;
                Measure::HwReached {
                    offset: c.req("offset")?,
                    nodes: cx.sel_or_all(&c, "node")?,
                    from: cx.opt_time(&c, "from")?,
                }
            }
            MeasureKind::Count => {
                let c = obj("{\"match\": {...}}")?;
                let matcher = parse_event_match(c.req_value("match")?, &c.p("match"), cx)?;
                Measure::Count {
                    name: plain_name(&c)?.unwrap_or_else(|| format!("events {matcher}")),
                    matcher,
                    from: cx.opt_time(&c, "from")?,
                    to: cx.opt_time(&c, "to")?,
                }
            }
            MeasureKind::Interval => {
                let c = obj("{\"from\": t, \"to\": t}")?;
                let from = cx.time_ref(c.req_value("from")?, &c.p("from"))?;
                let to = cx.time_ref(c.req_value("to")?, &c.p("to"))?;
                Measure::Interval { name: plain_name(&c)?.unwrap_or_else(|| format!("from {from} to {to}")), from, to }
            }
            MeasureKind::Nodes => {
                expect_true(val, &p, "leave it out instead")?;
                Measure::Nodes
            }
        });
    }
    Ok(out)
}
