//! The scenario format reads actions as the simulator does (one reader, `ActionKind::read`,
//! over node references here and ids there), and event patterns may name every field an
//! event carries.

use kraft_scenario::{Group, NodeRef};
use kraft_sim::Action;

/// Every action's sample, written as the API takes it, reads as a scenario step to the
/// same action with its nodes as references.
#[test]
fn a_step_reads_every_action_as_the_api_does() {
    for action in Action::samples() {
        let mut step = serde_json::to_value(&action).unwrap();
        step["at"] = 100.into();
        let text = format!(
            r#"{{"id": "x", "title": "t", "summary": "s", "cluster": {{"voters": 3}}, "durationMs": 1000,
                "steps": [{step}]}}"#
        );
        let s = kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{step}: {}: {}", e.path, e.message));
        let want = action.try_map(
            |n| Ok::<_, ()>(NodeRef::Id(*n)),
            |g| Ok(g.iter().map(|g| Group::Nodes(g.iter().map(|n| NodeRef::Id(*n)).collect())).collect()),
        );
        assert_eq!(s.steps[0].action.as_ref(), want.as_ref().ok(), "{step}");
    }
}

// The issue-10 drift: events carry `evidence` (and messages `msg`) but the parser's
// hand-written table refused patterns naming them.
#[test]
fn event_patterns_may_name_every_emitted_field() {
    for pattern in [r#"{"type": "violation", "evidence": [1]}"#, r#"{"type": "send", "msg": 7}"#] {
        let text = format!(
            r#"{{"id": "x", "title": "t", "summary": "s", "cluster": {{"voters": 3}}, "durationMs": 1000,
                "expect": [{{"noEvent": {{"match": {pattern}}}}}]}}"#
        );
        kraft_scenario::parse(&text).unwrap_or_else(|e| panic!("{pattern}: {}: {}", e.path, e.message));
    }
}
