//! Every bound on what a user may set or ask for, each with its default, range, unit and a
//! one-line doc, in one place. The quorum config keys are the table
//! `protocol::config::CONFIG_KEYS`; the cluster's other settings and the bounds on calls
//! are [`LIMITS`]. Validation (cluster specs, actions, links, scenarios, the wasm API's
//! arguments) checks against these entries, the wasm catalog sends them to JS (which
//! reads its bounds from there), and the root README's table is checked against them.

use kraft_base::limit::{doc, limit};
pub use kraft_base::limit::{Limit, Unit};
use kraft_base::messages::number;
/// A bound of the protocol's, listed here with every other.
pub use kraft_protocol::record::PARTITIONS;

pub const VOTERS: Limit = limit("voters", Some(3), 1, 7, None, "voters of the quorum (nodes 0..voters)");
pub const OBSERVERS: Limit =
    limit("observers", Some(0), 0, 8, None, "observers, nodes after the voters that fetch but do not vote");
/// A cluster's nodes: its voters and observers at the start, and the controllers
/// `addController` starts while it runs (a dynamic quorum's new machines).
pub const NODES: Limit = limit(
    "nodes",
    None,
    1,
    VOTERS.upper() + OBSERVERS.upper(),
    None,
    "nodes of a cluster: voters, observers and the controllers addController starts at run time",
);
pub const FLUSH_MS: Limit = limit(
    "flushMs",
    Some(1),
    0,
    60_000,
    Some(Unit::Ms),
    "disk flush latency of a node; its replica thread blocks while flushing",
);
pub const SNAPSHOT_INTERVAL: Limit = Limit {
    key: "snapshotInterval",
    description: doc("a node snapshots its state machine every this many applied records"),
    default: Some(1000),
    min: 10,
    max: None,
    unit: None,
    zero_turns_off: true,
};
pub const WRITES_PER_SECOND: Limit =
    limit("writesPerSecond", Some(0), 0, 1000, None, "client writes per second of the background workload");
/// The least is 1 ms: Kafka's timers have millisecond resolution and a real network never
/// delivers in zero time; at zero, leaderless voters bounce Fetch and NOT_LEADER_OR_FOLLOWER
/// (which Kafka handles without backoff) inside one millisecond forever, and time stops.
pub const LATENCY_MS: Limit = limit(
    "latencyMs",
    None,
    1,
    60_000,
    Some(Unit::Ms),
    "one-way latency of a link (at zero, replicas could answer each other forever within one millisecond)",
);
pub const LOSS: Limit =
    limit("loss", Some(0), 0, 1_000_000, Some(Unit::Ppm), "probability a message is lost, given in [0, 1]");
pub const DUPLICATE: Limit = limit(
    "duplicate",
    Some(0),
    0,
    1_000_000,
    Some(Unit::Ppm),
    "probability a message is delivered twice, given in [0, 1]",
);
pub const ADVANCE_MS: Limit =
    limit("advanceMs", None, 0, 86_400_000, Some(Unit::Ms), "longest one advance or seek may span (a day)");
pub const CHAOS_SECONDS: Limit = limit(
    "chaosSeconds",
    None,
    20,
    86_400,
    Some(Unit::Seconds),
    "simulated length of one chaos run (its calm tail alone is 15 s)",
);
pub const SCENARIO_DURATION_MS: Limit =
    limit("durationMs", None, 1, 600_000, Some(Unit::Ms), "simulated length of a scenario (a story, not a soak test)");
pub const LANES_SPAN_MS: Limit = limit(
    "lanesSpanMs",
    None,
    0,
    600_000,
    Some(Unit::Ms),
    "longest window one timeline projection (`lanes`) covers: a story whole",
);
pub const LANES_EVENTS: Limit = limit(
    "lanesEvents",
    None,
    0,
    250_000,
    None,
    "most events one timeline projection (`lanes`) reads in its window: a few frames' work",
);

/// Every limit that is not a quorum config key.
pub const LIMITS: [Limit; 15] = [
    VOTERS,
    OBSERVERS,
    NODES,
    FLUSH_MS,
    SNAPSHOT_INTERVAL,
    WRITES_PER_SECOND,
    LATENCY_MS,
    LOSS,
    DUPLICATE,
    ADVANCE_MS,
    CHAOS_SECONDS,
    SCENARIO_DURATION_MS,
    LANES_SPAN_MS,
    LANES_EVENTS,
    PARTITIONS,
];

/// A probability in [0, 1] as parts per million, checked against `limit` (LOSS, DUPLICATE);
/// the error names the field.
pub fn rate_ppm(limit: &Limit, v: f64) -> Result<u32, String> {
    let top = limit.upper() as f64 / 1_000_000.0;
    if !v.is_finite() || !(0.0..=top).contains(&v) {
        return Err(format!("{} must be a number between 0 and {}, got {}", limit.key, number(top), number(v)));
    }
    Ok((v * 1_000_000.0).round() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of every config key and limit (between its markers), one row each.
    fn readme_table() -> String {
        let mut out = String::from("| key | default | range | what |\n| --- | --- | --- | --- |\n");
        let rows = kraft_protocol::config::CONFIG_KEYS.iter().map(|k| &k.limit).chain(LIMITS.iter());
        for l in rows {
            let default = match (l.default, l.unit) {
                (Some(d), Some(u)) => format!("{d} {}", u.name()),
                (Some(d), None) => d.to_string(),
                (None, _) => "-".into(),
            };
            out.push_str(&format!("| `{}` | {default} | {} | {} |\n", l.key, l.range_text(), l.description));
        }
        out
    }

    #[test]
    fn messages_name_the_range_and_the_value() {
        assert_eq!(VOTERS.check(0).unwrap_err(), "must be between 1 and 7, got 0");
        assert_eq!(FLUSH_MS.check(60_001).unwrap_err(), "must be between 0 and 60000 ms, got 60001");
        assert_eq!(SNAPSHOT_INTERVAL.check(5).unwrap_err(), "must be 0 (never) or at least 10, got 5");
        assert_eq!(SNAPSHOT_INTERVAL.check(0), Ok(0));
        assert_eq!(SNAPSHOT_INTERVAL.check(u64::MAX), Ok(u64::MAX));
        assert_eq!(rate_ppm(&LOSS, 1.5).unwrap_err(), "loss must be a number between 0 and 1, got 1.5");
        assert_eq!(rate_ppm(&DUPLICATE, 0.25), Ok(250_000));
    }

    #[test]
    fn keys_are_unique_and_defaults_in_range() {
        let all: Vec<&Limit> =
            kraft_protocol::config::CONFIG_KEYS.iter().map(|k| &k.limit).chain(LIMITS.iter()).collect();
        for (i, l) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|o| o.key != l.key), "{} is listed twice", l.key);
            if let Some(d) = l.default {
                assert!(l.accepts(d), "{}: default {d} is not {}", l.key, l.range_text());
            }
        }
    }

    /// The root README's config and limits table is this table: a diff names the rows that
    /// disagree. `UPDATE=1 cargo test --lib limits` rewrites it.
    #[test]
    fn readme_table_matches() {
        const START: &str = "<!-- limits table: generated from crate/sim/src/limits.rs -->\n";
        const END: &str = "<!-- end of limits table -->";
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));
        if let Err(e) = kraft_expect::sections(path, &[(START, END, &readme_table())]) {
            panic!("{e}\nrun `UPDATE=1 cargo test -p kraft-sim --lib limits`");
        }
    }
}
