//! User-facing error text: echoed input is capped, numbers read as written, and JSON syntax
//! errors are put in plain words (no "line 1 column 38").

use std::borrow::Cow;

/// Most characters of user input an error message repeats.
pub const MAX_ECHO_CHARS: usize = 80;

/// `s` cut to [`MAX_ECHO_CHARS`] characters, with an ellipsis when cut.
pub fn cap(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_ECHO_CHARS) {
        None => Cow::Borrowed(s),
        // `get`, not `&s[..end]` (`end` is a char boundary): see [`split_around`].
        Some((end, _)) => Cow::Owned(format!("{}…", s.get(..end).unwrap_or(s))),
    }
}

/// `s` split around the first (or with `last`, the last) `sep`, found byte by byte. str's
/// own substring search (`split_once`, `replace`) and its indexing bring the panic of a
/// slice off a char boundary into the wasm, with the escaping and the Unicode tables its
/// message uses (5.7 KB gzip of the page's core). `sep` (not empty) is whole characters,
/// so where it starts and ends are char boundaries.
pub fn split_around<'a>(s: &'a str, sep: &str, last: bool) -> Option<(&'a str, &'a str)> {
    let mut at = s.as_bytes().windows(sep.len()).enumerate().filter(|(_, w)| *w == sep.as_bytes());
    let (i, _) = if last { at.next_back() } else { at.next() }?;
    Some((s.get(..i)?, s.get(i + sep.len()..)?))
}

/// Names from the input, joined with ", " up to about [`MAX_ECHO_CHARS`] characters, then
/// how many more there are: a file may declare thousands (each name is `cap`ped too).
pub fn cap_list(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        let name = cap(name);
        if i > 0 && out.chars().count() + 2 + name.chars().count() > MAX_ECHO_CHARS {
            return format!("{out}, … ({} more)", names.len() - i);
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&name);
    }
    out
}

/// A number as an error quotes it: a whole one without a fraction (`5`), any other in its
/// shortest exact form (serde_json's float writer: the wasm has it for its output, while
/// `f64`'s `Display` would add 14 KB), NaN and the infinities as JavaScript writes them.
pub fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if v.fract() == 0.0 && v.abs() < 9.2e18 {
        (v as i64).to_string()
    } else {
        serde_json::Number::from_f64(v).map(|n| n.to_string()).unwrap_or_default()
    }
}

/// A JSON syntax error from `serde_json` in plain words, with a character position
/// instead of "line 1 column 38" on one-line input. Other messages are returned as they are.
pub fn plain_serde(message: &str) -> String {
    let (core, position) = split_position(message);
    let syntax = match core {
        "recursion limit exceeded" => {
            Some("is nested too deeply: at most 128 levels of arrays and objects".to_string())
        }
        c if c.starts_with("EOF while parsing") => Some("is not valid JSON: it ends too early".to_string()),
        c if is_json_syntax(c) => Some(format!("is not valid JSON: {c}")),
        _ => None,
    };
    match (syntax, position) {
        (Some(s), Some((1, col))) => format!("{s} (at character {col})"),
        (Some(s), Some((line, col))) => format!("{s} (at line {line}, character {col})"),
        (Some(s), None) => s,
        (None, _) => core.to_string(),
    }
}

/// Splits serde_json's " at line L column C" off the end.
fn split_position(message: &str) -> (&str, Option<(u64, u64)>) {
    if let Some((core, pos)) = split_around(message, " at line ", true) {
        if let Some((line, col)) = split_around(pos, " column ", false) {
            if let (Ok(l), Ok(c)) = (line.parse(), col.parse()) {
                return (core, Some((l, c)));
            }
        }
    }
    (message, None)
}

fn is_json_syntax(core: &str) -> bool {
    const SYNTAX: &[&str] = &[
        "expected",
        "trailing",
        "key must be",
        "control character",
        "invalid escape",
        "invalid number",
        "number out of range",
        "invalid unicode",
        "lone leading surrogate",
        "unexpected end",
    ];
    SYNTAX.iter().any(|p| core.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn syntax_errors_give_a_character_position_not_a_line_on_one_line() {
        let e = serde_json::from_str::<serde_json::Value>(r#"{"a":1"#).unwrap_err().to_string();
        assert_eq!(plain_serde(&e), "is not valid JSON: it ends too early (at character 6)");
        let e = serde_json::from_str::<serde_json::Value>("{\n\"a\" 1}").unwrap_err().to_string();
        assert_eq!(plain_serde(&e), "is not valid JSON: expected `:` (at line 2, character 5)");
    }

    #[test]
    fn numbers_read_as_written() {
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(1.0), "1");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(number(2f64.powi(60)), "1152921504606846976");
        assert_eq!(number(1e300), "1e+300");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn echoed_input_is_capped() {
        assert_eq!(cap("short"), "short");
        assert_eq!(cap(&"é".repeat(100)).chars().count(), MAX_ECHO_CHARS + 1);
    }

    #[test]
    fn echoed_lists_are_capped() {
        assert_eq!(cap_list(&[]), "");
        assert_eq!(cap_list(&["a", "b"]), "a, b");
        let many: Vec<String> = (0..10_000).map(|i| format!("step-{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let listed = cap_list(&many);
        assert!(listed.starts_with("step-0, step-1, ") && listed.ends_with(", … (9990 more)"), "{listed}");
        assert!(listed.chars().count() <= MAX_ECHO_CHARS + ", … (9990 more)".len(), "{listed}");
        let long = "x".repeat(200);
        assert_eq!(cap_list(&[&long, "y"]), format!("{}…, … (1 more)", "x".repeat(MAX_ECHO_CHARS)));
    }
}
