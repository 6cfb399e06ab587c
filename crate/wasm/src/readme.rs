//! The lists of `web/README.md` generated from the vocabulary: the actions table (with the
//! `Cluster` method that does each action, read from `web/src/cluster.ts`) and the event
//! types. The test fails when one is stale; `UPDATE=1` rewrites it between its markers,
//! leaving the prose around it.

use kraft_sim::trace::EVENT_FIELDS;
use kraft_sim::ActionKind;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/README.md");
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

/// Every action: the method that does it, its JSON name and fields, what it does and what
/// it undoes.
fn actions_table() -> String {
    let ts = std::fs::read_to_string(CLUSTER_TS).unwrap();
    let mut out = String::from("| method | action | fields | what it does | undoes |\n|---|---|---|---|---|\n");
    for k in ActionKind::ALL {
        let fields: Vec<String> = k
            .fields()
            .iter()
            .map(|f| if f.required { format!("`{}`", f.key) } else { format!("`{}` (optional)", f.key) })
            .collect();
        let undoes: Vec<String> = k.undoes().iter().map(|u| format!("`{}`", u.name())).collect();
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            method_of(&ts, k.name()),
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

/// `text` with what lies between `start` and `end` replaced by `want`, and whether it was
/// already so.
fn between(text: &str, start: &str, end: &str, want: &str) -> (String, bool) {
    let (Some(a), Some(b)) = (text.find(start), text.find(end)) else {
        panic!("web/README.md lacks the markers {start:?} and {end:?}");
    };
    let a = a + start.len();
    (format!("{}{want}{}", &text[..a], &text[b..]), text[a..b] == *want)
}

/// One test for both lists, so that `UPDATE=1` writes the file once.
#[test]
fn readme_lists_are_current() {
    let text = std::fs::read_to_string(README).unwrap();
    let (text, actions_ok) = between(
        &text,
        "<!-- actions table: generated from crate/sim/src/spec.rs (actions!) -->\n",
        "<!-- end of actions table -->",
        &actions_table(),
    );
    let (text, events_ok) = between(
        &text,
        "<!-- event types: generated from EVENT_FIELDS -->",
        "<!-- end of event types -->",
        &event_types(),
    );
    if std::env::var_os("UPDATE").is_some() {
        std::fs::write(README, text).unwrap();
        return;
    }
    assert!(
        actions_ok && events_ok,
        "web/README.md is stale (actions table: {}, event types: {}): run \
         `UPDATE=1 cargo test --release -p kraft-wasm --lib readme` and review the diff",
        if actions_ok { "current" } else { "stale" },
        if events_ok { "current" } else { "stale" },
    );
}
