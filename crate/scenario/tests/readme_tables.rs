//! The tables of `scenarios/README.md` generated from the vocabulary: this test fails when
//! one is stale; `UPDATE=1` rewrites it between its markers, leaving the prose around it.

use kraft_sim::spec::ActionKind;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/README.md");

/// A markdown table cell: `|` escaped, one line.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Every action, its fields as a step writes them, what it does and what it undoes.
fn actions_table() -> String {
    let mut out = String::from("| action | fields | what it does | undoes |\n|---|---|---|---|\n");
    for k in ActionKind::ALL {
        let fields: Vec<String> = k
            .fields()
            .iter()
            .map(|f| if f.required { format!("`{}`", f.key) } else { format!("`{}` (optional)", f.key) })
            .collect();
        let undoes: Vec<String> = k.undoes().iter().map(|u| format!("`{}`", u.name())).collect();
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

/// Checks (or with `UPDATE=1` rewrites) the text between `start` and `end` in `path`.
fn check_between(path: &str, start: &str, end: &str, want: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let (Some(a), Some(b)) = (text.find(start), text.find(end)) else {
        panic!("{path} lacks the markers {start:?} and {end:?}");
    };
    let a = a + start.len();
    if std::env::var_os("UPDATE").is_some() {
        std::fs::write(path, format!("{}{want}{}", &text[..a], &text[b..])).unwrap();
        return;
    }
    assert!(
        text[a..b] == *want,
        "{path}: the table between {start:?} and {end:?} is stale: run \
         `UPDATE=1 cargo test --release --test readme_tables` and review the diff\nwant:\n{want}"
    );
}

#[test]
fn actions_table_is_current() {
    check_between(
        README,
        "<!-- actions table: generated from crate/sim/src/spec.rs (actions!) -->\n",
        "<!-- end of actions table -->",
        &actions_table(),
    );
}
