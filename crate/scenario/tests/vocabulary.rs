//! The scenario format's vocabulary agrees with the simulator's: the same actions with the
//! same fields, and event patterns may name every field an event carries.

use kraft_scenario::vocab::{keys_of, ActionKind, Kind};
use kraft_sim::input::ACTIONS;

#[test]
fn the_scenario_vocabulary_has_the_same_actions() {
    let vocab: Vec<(&str, Vec<&str>)> = ActionKind::ALL.iter().map(|k| (k.key(), keys_of(k.fields()))).collect();
    let here: Vec<(&str, Vec<&str>)> = ACTIONS.iter().map(|(n, f)| (*n, f.to_vec())).collect();
    assert_eq!(vocab, here);
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
