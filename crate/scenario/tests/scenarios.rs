//! Every scenario in `scenarios/` (and every variant) parses and passes; invalid files
//! are refused with the right path and reason; the JSON Schema lists exactly what the
//! parser accepts; a report's input log replays to the same trace.

use kraft_protocol::SafetySwitch;
use kraft_scenario::{RunOptions, Scenario};
use kraft_sim::Simulation;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join("scenarios")
}

/// Every scenario file (not the schema), sorted by name.
fn files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir())
        .expect("scenarios/ exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().map(|e| e == "json").unwrap_or(false))
        .filter(|p| p.file_name().map(|n| n != "schema.json").unwrap_or(false))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            (stem, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    out.sort();
    out
}

fn load(id: &str) -> Scenario {
    let text = std::fs::read_to_string(dir().join(format!("{id}.json"))).expect("file");
    kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// The scenarios the issue asks for; each must exist.
const REQUIRED: [&str; 17] = [
    "first-election",
    "leader-crash-failover",
    "graceful-resign-vs-crash",
    "figure-8",
    "diverging-follower",
    "minority-partition",
    "partitioned-leader",
    "disruptive-rejoin",
    "ping-pong-partial-partition",
    "split-vote",
    "late-observer-snapshot",
    "leader-restart-resigned",
    "unflushed-data-loss",
    "all-nodes-restart",
    "lossy-network",
    "metadata-state-machine",
    "resign-five-voters-prevote",
];

#[test]
fn every_required_scenario_exists() {
    let ids: BTreeSet<String> = files().into_iter().map(|(id, _)| id).collect();
    for r in REQUIRED {
        assert!(ids.contains(r), "scenarios/{r}.json is missing");
    }
}

fn check_run(s: &Scenario, what: &str) -> kraft_scenario::Report {
    let report = kraft_scenario::run(s, &RunOptions::default());
    assert!(report.passed, "{what} failed:\n{}", report.text());
    assert!(
        report.end_ms <= 120_000,
        "{what} runs {} ms of simulated time; keep scenarios under two minutes",
        report.end_ms
    );
    report
}

#[test]
fn every_scenario_and_variant_passes() {
    for (id, text) in files() {
        let s = kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{id}.json: {e}"));
        assert_eq!(s.id, id, "{id}.json: the id must equal the file name");
        assert!(!s.steps.is_empty(), "{id}: a story needs steps");
        assert!(s.steps.iter().any(|st| st.caption.is_some()), "{id}: a story needs captions");
        assert!(!s.expect.is_empty(), "{id}: a story must assert what it claims");
        check_run(&s, &id);
        for name in s.variant_names() {
            let v = s.variant(name).expect("listed variant");
            let report = check_run(&v, &format!("{id} / {name}"));
            assert_eq!(report.variant.as_deref(), Some(name));
        }
    }
}

#[test]
fn unsafe_variants_expect_a_violation() {
    for (id, text) in files() {
        let s = kraft_scenario::parse(&text).unwrap();
        for v in &s.variants {
            if v.unsafe_switches.is_empty() {
                continue;
            }
            let applied = s.variant(&v.name).unwrap();
            let report = kraft_scenario::run(&applied, &RunOptions::default());
            let expects_violation =
                applied.expect.iter().any(|e| matches!(e.expectation, kraft_scenario::Expectation::Violated(_)));
            // A switch whose damage is not a safety violation (no-check-quorum) must
            // still be shown by some other expectation.
            assert!(
                expects_violation || !report.expectations.is_empty(),
                "{id} / {}: an unsafe variant must assert what breaks",
                v.name
            );
            if expects_violation {
                assert!(
                    report.violations.iter().any(|x| x.expected),
                    "{id} / {}: the checker must report the violation",
                    v.name
                );
            }
        }
    }
}

#[test]
fn the_input_log_replays_the_same_trace() {
    // What the UI and shared links do: rebuild the run from spec + inputs.
    for id in ["leader-crash-failover", "figure-8", "diverging-follower"] {
        let s = load(id);
        let run = kraft_scenario::execute(&s, &RunOptions::default());
        let replay = Simulation::replay(run.report.spec.clone(), run.report.inputs.clone(), run.report.end_ms)
            .expect("valid inputs");
        assert_eq!(replay.digest().hex(), run.report.digest, "{id}");
        assert_eq!(run.trace().len(), run.report.events, "{id}");
    }
}

#[test]
fn runs_are_deterministic_and_options_apply() {
    let s = load("leader-crash-failover");
    let a = kraft_scenario::run(&s, &RunOptions::default());
    let b = kraft_scenario::run(&s, &RunOptions::default());
    assert_eq!(a.digest, b.digest);
    let c = kraft_scenario::run(&s, &RunOptions { seed: Some(4242), unsafe_switches: vec![SafetySwitch::NoPreVote] });
    assert_eq!(c.seed, 4242);
    assert_eq!(c.unsafe_switches, vec![SafetySwitch::NoPreVote]);
    assert_ne!(a.digest, c.digest);
}

#[test]
fn reports_explain_with_numbers() {
    let report = kraft_scenario::run(&load("leader-crash-failover"), &RunOptions::default());
    let failover = report.measurements.iter().find(|m| m.kind == "failover").expect("failover measured");
    let parts: Vec<&str> = failover.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parts, ["detection", "election", "first commit"]);
    let total = failover.value_ms.unwrap();
    assert_eq!(total, failover.parts[0].ms + failover.parts[1].ms);
    assert!(failover.text.contains("detection"), "{}", failover.text);
    for e in &report.expectations {
        assert!(e.passed && !e.explanation.is_empty(), "{e:?}");
    }
    let elected = &report.expectations[0].explanation;
    assert!(elected.contains("elected at 1."), "{elected}");
    let json = serde_json::to_value(&report).unwrap();
    for key in ["passed", "expectations", "violations", "measurements", "steps", "inputs", "spec", "digest", "endMs"] {
        assert!(json.get(key).is_some(), "report JSON lacks {key}");
    }
    let step = &json["steps"][1];
    assert!(step.get("captionSpans").is_some());
    assert!(step["t"].is_u64());
}

#[test]
fn captions_never_carry_html() {
    let spans = kraft_scenario::caption_spans("**bold** and `code` and *em* <b>x</b>");
    let json = serde_json::to_string(&spans).unwrap();
    assert!(json.contains("\"bold\""));
    let text = r#"{"id": "x", "title": "t", "summary": "s", "cluster": {"voters": 3},
        "durationMs": 1000, "steps": [{"at": 0, "caption": "<img src=x onerror=alert(1)>"}]}"#;
    let e = kraft_scenario::parse(text).unwrap_err();
    assert_eq!(e.path, "steps[0].caption");
    assert!(e.message.contains("raw HTML"), "{e}");
}

// ---- invalid files -----------------------------------------------------------------

/// A valid scenario to break in one place.
fn base() -> Value {
    serde_json::json!({
        "id": "broken",
        "title": "Broken",
        "summary": "A scenario to break.",
        "cluster": { "voters": 3, "observers": 1 },
        "durationMs": 10000,
        "steps": [
            { "until": { "leaderElected": true }, "label": "elected" },
            { "after": 100, "action": "crash", "node": "leader", "label": "crash" },
            { "after": 100, "action": "restart", "node": "$crash" },
            { "after": 100, "action": "isolate", "node": 1 }
        ],
        "expect": [ { "leaderElectedBy": 5000 } ]
    })
}

fn broken(edit: impl FnOnce(&mut Value)) -> kraft_scenario::ScenarioError {
    let mut v = base();
    edit(&mut v);
    kraft_scenario::parse(&v.to_string()).expect_err("must be refused")
}

#[test]
fn the_base_of_the_invalid_cases_is_valid() {
    let s = kraft_scenario::parse(&base().to_string()).unwrap();
    assert!(kraft_scenario::run(&s, &RunOptions::default()).passed);
}

#[test]
fn a_focus_names_messages_by_kind_and_nodes() {
    let mut v = base();
    v["steps"][3]["focus"] =
        serde_json::json!({"messages": [{"kind": "Fetch", "from": 1, "to": 0}, {"kind": "PreVote"}]});
    let s = kraft_scenario::parse(&v.to_string()).unwrap();
    let focus = s.steps[3].focus.as_ref().unwrap();
    let names: Vec<_> = focus.messages.iter().map(|m| (m.kind.name(), m.from, m.to)).collect();
    assert_eq!(names, [("Fetch", Some(1), Some(0)), ("PreVote", None, None)]);
}

#[test]
fn invalid_files_name_the_path_and_the_reason() {
    type Edit = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(Edit, &str, &str)> = vec![
        (Box::new(|v| v["steps"][3]["node"] = 7.into()), "steps[3].node", "node 7 does not exist; nodes are 0..3"),
        (Box::new(|v| v["steps"][3]["node"] = "mars".into()), "steps[3].node", "expected a node"),
        (
            Box::new(|v| v["steps"][3]["node"] = (-1).into()),
            "steps[3].node",
            "must be a whole number from 0 to 4294967295, got -1",
        ),
        (
            Box::new(|v| {
                let n = v["steps"][3]["node"].take();
                v["steps"][3].as_object_mut().unwrap().remove("node");
                v["steps"][3]["nod"] = n;
            }),
            "steps[3].nod",
            "did you mean 'node'",
        ),
        (
            Box::new(|v| v["steps"][3]["groups"] = serde_json::json!([[0]])),
            "steps[3].groups",
            "not a field of action 'isolate'",
        ),
        (Box::new(|v| v["steps"][3]["action"] = "explode".into()), "steps[3].action", "unknown action 'explode'"),
        (
            Box::new(|v| v["steps"][3]["focus"] = serde_json::json!({"nodes": [0, 9]})),
            "steps[3].focus.nodes[1]",
            "there is no node 9",
        ),
        (
            Box::new(|v| v["steps"][3]["focus"] = serde_json::json!({"records": ["X"]})),
            "steps[3].focus.records[0]",
            "'X' is not in 'recordNames'",
        ),
        (
            Box::new(|v| {
                v["steps"][3]["focus"] = serde_json::json!({"messages": [{"kind": "Fetch"}, {"kind": "Fetchh"}]})
            }),
            "steps[3].focus.messages[1].kind",
            "unknown message kind 'Fetchh' (did you mean 'Fetch'?); allowed: PreVote, Vote, BeginQuorumEpoch, \
             EndQuorumEpoch, Fetch, FetchSnapshot",
        ),
        (
            Box::new(|v| v["steps"][3]["focus"] = serde_json::json!({"messages": [{"kind": "Vote", "to": 5}]})),
            "steps[3].focus.messages[0].to",
            "there is no node 5",
        ),
        (
            Box::new(|v| v["steps"][3]["focus"] = serde_json::json!({"messages": [{"kind": "Vote", "size": 5}]})),
            "steps[3].focus.messages[0].size",
            "unknown field 'size'",
        ),
        (
            Box::new(|v| v["steps"][3]["focus"] = serde_json::json!({"windowMs": 999_999_999})),
            "steps[3].focus.windowMs",
            "must be between 1 and durationMs",
        ),
        (Box::new(|v| v["recordNames"] = serde_json::json!({"X": {"offset": 2}})), "recordNames.X.epoch", ""),
        (
            Box::new(|v| {
                v["steps"][2]["node"] = "$later".into();
                v["steps"][3]["label"] = "later".into();
            }),
            "steps[2].node",
            "has not happened yet",
        ),
        (Box::new(|v| v["steps"][2]["node"] = "$nope".into()), "steps[2].node", "no step is labelled 'nope'"),
        (Box::new(|v| v["steps"][1]["at"] = 100.into()), "steps[1].after", "one of 'at', 'after' and 'until'"),
        (
            Box::new(|v| {
                v["steps"] = serde_json::json!([{ "at": 3000 }, { "at": 2000 }]);
            }),
            "steps[1].at",
            "before",
        ),
        (Box::new(|v| v["steps"][3]["after"] = 60000.into()), "steps[3].after", "after the end of the run"),
        (
            Box::new(|v| v["steps"][3]["after"] = "soon".into()),
            "steps[3].after",
            "must be a whole number from 0 to 18446744073709551615, got \"soon\"",
        ),
        (Box::new(|v| v["steps"][0]["timeoutMs"] = 0.into()), "steps[0].timeoutMs", "between 1 and"),
        (
            Box::new(|v| {
                v["steps"][3] = serde_json::json!({"after": 1, "action": "partition", "groups": [[0, 1], [1, 2]]});
            }),
            "steps[3].groups[1][0]",
            "named twice",
        ),
        (
            Box::new(|v| {
                v["steps"][3] = serde_json::json!({"after": 1, "action": "write",
                    "record": {"type": "CreateTopic", "name": "t", "partitions": "three"}});
            }),
            "steps[3].record.partitions",
            "expected a non-negative integer, got \"three\"",
        ),
        (
            Box::new(|v| {
                v["steps"][3] = serde_json::json!({"after": 1, "action": "write",
                    "record": {"type": "CreateTopic", "name": "bad name", "partitions": 1}});
            }),
            "steps[3].record",
            "topic name",
        ),
        (
            Box::new(|v| {
                v["steps"][3] = serde_json::json!({"after": 1, "action": "network", "latencyMs": [5, 1]});
            }),
            "steps[3].latencyMs",
            "above max",
        ),
        (
            Box::new(|v| {
                v["steps"][3] = serde_json::json!({"after": 1, "action": "network", "latencyMs": [1, 5], "loss": 2});
            }),
            "steps[3].loss",
            "between 0 and 1",
        ),
        (
            Box::new(|v| v["steps"][0]["until"] = serde_json::json!({"leaderElectd": true})),
            "steps[0].until.leaderElectd",
            "did you mean 'leaderElected'",
        ),
        (
            Box::new(|v| v["steps"][0]["until"] = serde_json::json!({"state": {"node": 0, "is": "sleeping"}})),
            "steps[0].until.state.is",
            "unknown state 'sleeping'",
        ),
        (Box::new(|v| v["steps"][1]["caption"] = "<b>crash</b>".into()), "steps[1].caption", "raw HTML"),
        // Measurement names and event patterns are shown as they are: no HTML either.
        (
            Box::new(|v| {
                v["report"] =
                    serde_json::json!([{"count": {"name": "<img src=x onerror=alert(1)>", "match": {"type": "crash"}}}])
            }),
            "report[0].count.name",
            "raw HTML is not allowed (found '<img src=x onerror=alert(1)>'); this is plain text",
        ),
        (
            Box::new(|v| v["report"] = serde_json::json!([{"interval": {"name": "<b>x</b>", "from": 0, "to": "end"}}])),
            "report[0].interval.name",
            "raw HTML is not allowed (found '<b>')",
        ),
        (
            Box::new(|v| {
                v["expect"][0] = serde_json::json!({"event": {"match": {"type": "send", "summary": "<script>"}}})
            }),
            "expect[0].event.match.summary",
            "raw HTML is not allowed (found '<script>')",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"event": {"match": {"type": "crash", "text": "</p>"}}})),
            "expect[0].event.match.text",
            "raw HTML",
        ),
        (
            Box::new(|v| {
                v["expect"][0] =
                    serde_json::json!({"noEvent": {"match": {"type": "violation", "detail": ["ok", "<!-- x -->"]}}})
            }),
            "expect[0].noEvent.match.detail[1]",
            "raw HTML",
        ),
        (Box::new(|v| v["steps"][1]["label"] = "leader".into()), "steps[1].label", "reserved"),
        (Box::new(|v| v["steps"][2]["label"] = "crash".into()), "steps[2].label", "already used by steps[1]"),
        (Box::new(|v| v.as_object_mut().unwrap().remove("id").map(|_| ()).unwrap()), "id", "missing required field"),
        (Box::new(|v| v["id"] = "Figure_8".into()), "id", "kebab-case"),
        (Box::new(|v| v["durationMs"] = 0.into()), "durationMs", "between 1 and"),
        (Box::new(|v| v["colour"] = "blue".into()), "colour", "unknown field 'colour'"),
        (Box::new(|v| v["cluster"]["voters"] = 0.into()), "cluster.voters", "between 1 and 7"),
        (Box::new(|v| v["cluster"]["voter"] = 3.into()), "cluster.voter", "did you mean 'voters'"),
        (Box::new(|v| v["cluster"]["network"] = "moon".into()), "cluster.network", "unknown network preset 'moon'"),
        (
            Box::new(|v| v["cluster"]["network"] = serde_json::json!({"latencyMs": [1]})),
            "cluster.network.latencyMs",
            "must be an array of 2 elements, got 1 element(s)",
        ),
        (
            Box::new(|v| v["cluster"]["config"] = serde_json::json!({"controller.quorum.fetch.timeout.ms": 1})),
            "cluster.config.controller.quorum.fetch.timeout.ms",
            "must be between 10 and",
        ),
        (
            Box::new(|v| v["cluster"]["config"] = serde_json::json!({"fetch.timeout": 100})),
            "cluster.config.fetch.timeout",
            "unknown config key",
        ),
        (
            Box::new(|v| v["cluster"]["unsafe"] = serde_json::json!(["no-pre-vote", "yolo"])),
            "cluster.unsafe[1]",
            "unknown safety switch 'yolo'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"violated": "Consistency"})),
            "expect[0].violated",
            "unknown invariant 'Consistency'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"violated": ["LogMatching", "Nope"]})),
            "expect[0].violated[1]",
            "unknown invariant 'Nope'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"leaderElected": 5000})),
            "expect[0].leaderElected",
            "did you mean 'leaderElectedBy'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"hwAtLeast": {"node": 9, "offset": 1, "by": 1000}})),
            "expect[0].hwAtLeast.node",
            "node 9 does not exist",
        ),
        (
            Box::new(|v| {
                v["expect"][0] = serde_json::json!({"hwAtLeast": {"node": "leader", "offset": 1, "by": 1000}})
            }),
            "expect[0].hwAtLeast.node",
            "only meaningful in steps and conditions",
        ),
        (
            Box::new(|v| {
                v["expect"][0] = serde_json::json!({"hwAtLeast": {"node": 0, "offset": 1, "by": "restart+x"}})
            }),
            "expect[0].hwAtLeast.by",
            "after '+' comes a number",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"hwAtLeast": {"node": 0, "offset": 1, "by": "boom"}})),
            "expect[0].hwAtLeast.by",
            "no step is labelled 'boom'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"event": {"match": {"type": "truncate", "nod": 1}}})),
            "expect[0].event.match.nod",
            "'truncate' events have no field 'nod'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"event": {"match": {"type": "explosion"}}})),
            "expect[0].event.match.type",
            "unknown event type 'explosion'",
        ),
        (
            Box::new(|v| v["expect"][0] = serde_json::json!({"leaderElectedBy": 5000, "noViolations": true})),
            "expect[0].noViolations",
            "one expectation per object",
        ),
        (
            Box::new(|v| v["report"] = serde_json::json!([{"failover": "nowhere"}])),
            "report[0].failover",
            "no step is labelled 'nowhere'",
        ),
        (
            Box::new(|v| v["variants"] = serde_json::json!([{"name": "bad", "unsafe": ["no-pre-vote", "nope"]}])),
            "variants[0].unsafe[1]",
            "unknown safety switch 'nope'",
        ),
        (
            Box::new(|v| {
                v["variants"] = serde_json::json!([{"name": "a"}, {"name": "a"}]);
            }),
            "variants[1].name",
            "used twice",
        ),
        (
            Box::new(|v| {
                v["variants"] = serde_json::json!([{"name": "a", "captions": {"ghost": "x"}}]);
            }),
            "variants[0].captions.ghost",
            "no step is labelled 'ghost'",
        ),
    ];
    for (edit, path, reason) in cases {
        let e = broken(edit);
        assert_eq!(e.path, path, "wrong path for '{reason}': {e}");
        assert!(e.message.contains(reason), "at {path}: expected the reason to mention '{reason}', got: {}", e.message);
        assert_eq!(e.to_string(), format!("{}: {}", e.path, e.message));
    }
}

#[test]
fn json_syntax_errors_say_where() {
    let e = kraft_scenario::parse("{\"id\": \"x\",\n  \"title\": }").unwrap_err();
    assert_eq!(e.path, "");
    assert!(e.message.contains("not valid JSON"), "{e}");
    assert!(e.message.contains("line 2"), "{e}");
    assert!(!e.message.contains("column"), "{e}");
}

#[test]
fn unknown_variants_are_refused() {
    let s = load("figure-8");
    let e = s.variant("nope").unwrap_err();
    assert_eq!(e.path, "variant");
    assert!(e.message.contains("hw-before-own-epoch"), "{e}");
}

// ---- event patterns ---------------------------------------------------------------

/// Events carry `evidence` (a violation's offsets); a pattern may name it, and on an
/// array-valued field it matches when the event's array contains the value(s).
#[test]
fn event_patterns_match_array_fields_by_containment() {
    let with = |pattern: Value| {
        let mut v = base();
        v["expect"] = serde_json::json!([{"noEvent": {"match": pattern}}]);
        kraft_scenario::parse(&v.to_string())
    };
    with(serde_json::json!({"type": "violation", "evidence": [1]})).expect("evidence is a field of violations");
    with(serde_json::json!({"type": "fault", "nodes": 1})).expect("nodes is a field of faults");
    // A run that isolates node 1: its fault event's nodes contain 1, not 2.
    let count = |pattern: Value| {
        let mut v = base();
        v["report"] = serde_json::json!([{"count": {"match": pattern}}]);
        let s = kraft_scenario::parse(&v.to_string()).unwrap();
        kraft_scenario::run(&s, &RunOptions::default()).measurements[0].count.unwrap()
    };
    assert_eq!(count(serde_json::json!({"type": "fault", "fault": "isolate", "nodes": 1})), 1);
    assert_eq!(count(serde_json::json!({"type": "fault", "fault": "isolate", "nodes": [1]})), 1);
    assert_eq!(count(serde_json::json!({"type": "fault", "fault": "isolate", "nodes": 2})), 0);
    assert_eq!(count(serde_json::json!({"type": "fault", "fault": "isolate", "nodes": [1, 2]})), 0);
}

/// Kinds no scenario used are gone (each had a general form: `holds` + `state`,
/// `failover` with `within`, `not`/`allOf`).
#[test]
fn removed_kinds_are_refused_with_the_known_ones() {
    for (edit, path, known) in [
        (serde_json::json!({"stateAt": {"at": 1, "node": 0, "state": "leader"}}), "expect[0].stateAt", "holds"),
        (serde_json::json!({"failoverWithin": 100}), "expect[0].failoverWithin", "failover"),
    ] {
        let e = broken(|v| v["expect"][0] = edit);
        assert_eq!(e.path, path);
        assert!(e.message.contains("unknown expectation") && e.message.contains(known), "{e}");
    }
    let e = broken(|v| v["steps"][0]["until"] = serde_json::json!({"anyOf": [{"converged": true}]}));
    assert_eq!(e.path, "steps[0].until.anyOf");
    assert!(e.message.contains("unknown condition"), "{e}");
}

/// The `image` condition looks at the metadata images at its moment: what they hold,
/// and whether they are alike (`sameAs` names the node they must equal).
#[test]
fn image_conditions_check_the_metadata_images_at_their_moment() {
    let run = |conditions: Vec<Value>| {
        let mut v = base();
        v["steps"] = serde_json::json!([
            { "until": { "leaderElected": true }, "label": "elected" },
            { "after": 1000, "action": "write", "record": { "type": "RegisterBroker", "brokerId": 7 }, "label": "write" },
            { "until": { "allOf": [{ "converged": true }, { "hw": { "node": "leader", "atLeast": 2 } }] }, "label": "converged" },
            { "after": 100, "action": "crash", "node": 3, "label": "crash" }
        ]);
        v["expect"] = conditions
            .into_iter()
            .map(|c| serde_json::json!({"holds": {"condition": {"image": c}, "at": "converged"}}))
            .collect();
        let s = kraft_scenario::parse(&v.to_string()).unwrap();
        let r = kraft_scenario::run(&s, &RunOptions::default());
        r.expectations
    };
    let reports = run(vec![
        serde_json::json!({"brokers": [7], "topics": []}),
        serde_json::json!({"node": 3, "sameAs": "leader"}),
        serde_json::json!({"node": 3, "brokers": [1]}),
        serde_json::json!({"node": "voters", "appliedOffset": 0}),
    ]);
    let passed: Vec<bool> = reports.iter().map(|r| r.passed).collect();
    assert_eq!(passed, [true, true, false, false], "{reports:#?}");
    assert_eq!(
        reports[1].explanation.split(": held").next().unwrap(),
        "the metadata image of n3, the same as the leader's"
    );
    // Node 3 crashes after: at the end its image is gone with its memory.
    let mut v = base();
    v["steps"] = serde_json::json!([{ "at": 3000, "action": "crash", "node": 3 }]);
    v["expect"] = serde_json::json!([
        {"holds": {"condition": {"image": {"node": 3}}, "at": 2900}},
        {"holds": {"condition": {"image": {"node": 3}}, "at": "end"}}
    ]);
    let s = kraft_scenario::parse(&v.to_string()).unwrap();
    let passed: Vec<bool> =
        kraft_scenario::run(&s, &RunOptions::default()).expectations.iter().map(|r| r.passed).collect();
    assert_eq!(passed, [true, false]);
    let e =
        broken(|v| v["expect"][0] = serde_json::json!({"holds": {"condition": {"image": {"brokers": 1}}, "at": 5}}));
    assert_eq!(e.path, "expect[0].holds.condition.image.brokers");
    let e = broken(|v| v["expect"][0] = serde_json::json!({"holds": {"condition": {"image": {"size": 1}}, "at": 5}}));
    assert!(e.message.contains("unknown field 'size'") && e.message.contains("sameAs"), "{e}");
}

/// An unmet `image` condition's failure names what differs, field by field, beside the
/// nodes' states (which say nothing of the images): the wanted value against the one
/// found, or one node's image against the other's.
#[test]
fn image_condition_failures_name_what_differs() {
    let mut v = base();
    // n3 is the observer: cut off, it misses the broker registered after
    v["steps"] = serde_json::json!([
        { "until": { "leaderElected": true }, "label": "elected" },
        { "after": 500, "action": "isolate", "node": 3, "label": "isolated" },
        { "after": 500, "action": "write", "record": { "type": "RegisterBroker", "brokerId": 7 }, "label": "write" },
        { "after": 2000, "action": "heal", "label": "later" }
    ]);
    v["expect"] = serde_json::json!([
        {"holds": {"condition": {"image": {"node": 3, "sameAs": "leader"}}, "at": "later"}},
        {"holds": {"condition": {"image": {"node": "leader", "brokers": [1, 7], "appliedOffset": 0}}, "at": "later"}},
        {"always": {"condition": {"image": {"node": 3, "sameAs": "leader"}}, "from": "write"}}
    ]);
    let s = kraft_scenario::parse(&v.to_string()).unwrap();
    let r = kraft_scenario::run(&s, &RunOptions::default());
    let texts: Vec<&str> = r.expectations.iter().map(|e| e.explanation.as_str()).collect();
    assert!(r.expectations.iter().all(|e| !e.passed), "{texts:#?}");
    assert!(
        texts[0].contains("n3's image differs from n") && texts[0].contains("brokers [") && texts[0].contains(" vs "),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("applied to offset"), "{}", texts[0]);
    assert!(texts[1].contains("has brokers [7] (expected [1, 7])"), "{}", texts[1]);
    assert!(texts[1].contains("(expected 0)"), "{}", texts[1]);
    assert!(texts[2].contains("stopped holding") && texts[2].contains("n3's image differs from n"), "{}", texts[2]);
}

/// A scenario whose run outgrows the memory budget: 7 voters + 8 observers at 1,000
/// writes/s hold 256 MiB of records after about 257 s. The engine stepped it event by
/// event past the budget and passed it, and then its report's input log could not be
/// replayed (a shared link, the site's seek after reload): `Simulation::replay`
/// applies the budget. The engine now applies it too, so it fails such a scenario, and
/// the inputs of the run it made replay.
#[test]
fn what_the_engine_passes_replays_within_the_memory_budget() {
    let mut v = base();
    v["cluster"] = serde_json::json!({ "voters": 7, "observers": 8, "writesPerSecond": 1000 });
    v["durationMs"] = serde_json::json!(300_000);
    let s = kraft_scenario::parse(&v.to_string()).unwrap();
    let run = kraft_scenario::execute(&s, &RunOptions::default());
    let replay = Simulation::replay(run.report.spec.clone(), run.report.inputs.clone(), run.report.end_ms);
    let stopped = run.report.expectations.iter().find(|e| e.kind == "run").map(|e| e.explanation.clone());
    assert!(
        !run.report.passed && stopped.as_ref().is_some_and(|e| e.contains("memory: stopped at ")),
        "the engine ran to {} ms past the budget: {stopped:?}; a replay: {:?}",
        run.report.end_ms,
        replay.as_ref().err()
    );
    // Where the engine stopped, a replay arrives too, with the same trace.
    let replay = replay.unwrap_or_else(|e| panic!("the report's inputs do not replay to {}: {e}", run.report.end_ms));
    assert_eq!(replay.digest().hex(), run.report.digest);
}

/// An unknown label's error listed every label of the file: 69 KB for 10,000 labels.
/// The list is capped as every echo of the input is.
#[test]
fn an_unknown_label_error_lists_a_capped_few_of_the_labels() {
    let mut v = base();
    let mut steps: Vec<Value> =
        (0..10_000).map(|i| serde_json::json!({ "after": 0, "label": format!("step-{i}") })).collect();
    steps.push(serde_json::json!({ "after": 0, "action": "crash", "node": "$nowhere" }));
    v["steps"] = Value::Array(steps);
    let e = kraft_scenario::parse(&v.to_string()).expect_err("must be refused");
    assert_eq!(e.path, "steps[10000].node");
    assert!(e.message.starts_with("no step is labelled 'nowhere'; labels: step-0, step-1, "), "{}", e.message);
    assert!(e.message.ends_with(" more)") && e.message.len() < 200, "{} bytes: {}", e.message.len(), e.message);
    // The same for a focus naming a record that 'recordNames' lacks.
    let names: serde_json::Map<String, Value> =
        (0..10_000).map(|i| (format!("record-{i}"), serde_json::json!({ "offset": i, "epoch": 1 }))).collect();
    let mut v = base();
    v["recordNames"] = Value::Object(names);
    v["steps"][3]["focus"] = serde_json::json!({ "records": ["X"] });
    let e = kraft_scenario::parse(&v.to_string()).expect_err("must be refused");
    assert_eq!(e.path, "steps[3].focus.records[0]");
    assert!(e.message.len() < 200, "{} bytes: {}", e.message.len(), e.message);
}

/// Free play's leader changes (`kraft_sim::kraft::leader_changes`) are the measure a
/// story's card shows: for every story that reports a failover, the same run's leader
/// changes include one with the card's total and parts.
#[test]
fn free_play_measures_failovers_as_the_story_cards_do() {
    let mut checked = 0;
    for (id, text) in files() {
        let s = kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{id}.json: {e}"));
        let mut runs = vec![(id.clone(), s.clone())];
        runs.extend(s.variant_names().into_iter().map(|n| (format!("{id} / {n}"), s.variant(n).expect("variant"))));
        for (what, s) in runs {
            let run = kraft_scenario::execute(&s, &RunOptions::default());
            let voters = run.simulation.world().voters.len() as u32;
            let changes = kraft_sim::kraft::leader_changes(run.trace(), voters);
            // a failover that elected a new leader (a card may say none was: no change to compare)
            for card in run.report.measurements.iter().filter(|m| m.kind == "failover" && m.value_ms.is_some()) {
                let found = changes
                    .iter()
                    .find(|c| c.measurement.value_ms == card.value_ms && c.measurement.parts == card.parts);
                let seen: Vec<&str> = changes.iter().map(|c| c.measurement.text.as_str()).collect();
                assert!(found.is_some(), "{what}: the card measures {}; free play: {seen:#?}", card.text);
                checked += 1;
            }
        }
    }
    assert!(checked >= 5, "only {checked} failovers compared");
}
