//! The README lists generated from the vocabulary: the actions table of
//! `scenarios/README.md`, and in `web/README.md` the same table with the `Cluster` method
//! that does each action (read from `web/src/cluster.ts`) and the event types. A test
//! fails when one is stale; `UPDATE=1` rewrites it between its markers, leaving the prose
//! around it.

use kraft_sim::trace::EVENT_FIELDS;
use kraft_sim::ActionKind;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/README.md");
const SCENARIOS_README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/README.md");
const ACTIONS_START: &str = "<!-- actions table: generated from crate/sim/src/spec.rs (actions!) -->\n";
const ACTIONS_END: &str = "<!-- end of actions table -->";
const CLUSTER_TS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/src/cluster.ts");

/// A markdown table cell: `|` escaped, one line.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The `Cluster` method that does `action` (the method around its first
/// `action: '<name>'`), as `name(param, ...)` without the parameters' types.
fn method_of(ts: &str, action: &str) -> String {
    let at = ts
        .find(&format!("action: '{action}'"))
        .unwrap_or_else(|| panic!("no Cluster method in web/src/cluster.ts does the action {action}"));
    // A method starts a line indented by two spaces: `  name(params): type {`.
    let line = ts[..at]
        .lines()
        .rev()
        .find(|l| {
            let b = l.as_bytes();
            l.starts_with("  ")
                && b.get(2).is_some_and(|c| c.is_ascii_alphabetic())
                && l.ends_with('{')
                && l.contains('(')
        })
        .unwrap_or_else(|| panic!("cannot find the method around action: '{action}'"));
    let line = line.trim();
    let open = line.find('(').unwrap();
    let mut depth = 0;
    let mut params = Vec::new();
    let mut cur = String::new();
    for c in line[open + 1..].chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' if depth == 0 => break,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                params.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    params.push(cur);
    let names: Vec<&str> =
        params.iter().map(|p| p.split(':').next().unwrap_or("").trim()).filter(|p| !p.is_empty()).collect();
    format!("{}({})", &line[..open], names.join(", "))
}

/// Every action, its fields as a step writes them, what it does and what it undoes; with
/// `cluster_ts`, first the `Cluster` method that does it.
fn actions_table(cluster_ts: Option<&str>) -> String {
    let mut out = match cluster_ts {
        Some(_) => String::from("| method | action | fields | what it does | undoes |\n|---|---|---|---|---|\n"),
        None => String::from("| action | fields | what it does | undoes |\n|---|---|---|---|\n"),
    };
    for k in ActionKind::ALL {
        let fields: Vec<String> = k
            .fields()
            .iter()
            .map(|f| if f.required { format!("`{}`", f.key) } else { format!("`{}` (optional)", f.key) })
            .collect();
        let undoes: Vec<String> = k.undoes().iter().map(|u| format!("`{}`", u.name())).collect();
        if let Some(ts) = cluster_ts {
            out.push_str(&format!("| `{}` ", method_of(ts, k.name())));
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            k.name(),
            fields.join(", "),
            cell(k.doc()),
            undoes.join(", ")
        ));
    }
    out
}

/// Every event type, in the order of `EVENT_FIELDS`.
fn event_types() -> String {
    EVENT_FIELDS.iter().map(|(t, _)| format!("`{t}`")).collect::<Vec<_>>().join(", ")
}

/// Checks `path`'s generated sections (start marker, end marker, what belongs between),
/// or with `UPDATE=1` rewrites them.
fn check_sections(path: &str, sections: &[(&str, &str, String)]) {
    let sections: Vec<(&str, &str, &str)> = sections.iter().map(|(a, b, want)| (*a, *b, want.as_str())).collect();
    if let Err(e) = kraft_expect::sections(std::path::Path::new(path), &sections) {
        panic!("{e}\nrun `UPDATE=1 cargo test --release -p kraft-wasm --lib readme` and review the diff");
    }
}

#[test]
fn web_readme_lists_are_current() {
    let ts = std::fs::read_to_string(CLUSTER_TS).unwrap();
    check_sections(
        README,
        &[
            (ACTIONS_START, ACTIONS_END, actions_table(Some(&ts))),
            ("<!-- event types: generated from EVENT_FIELDS -->", "<!-- end of event types -->", event_types()),
        ],
    );
}

#[test]
fn scenarios_readme_actions_table_is_current() {
    check_sections(SCENARIOS_README, &[(ACTIONS_START, ACTIONS_END, actions_table(None))]);
}
