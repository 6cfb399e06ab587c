//! User-facing error text: echoed input is capped, and serde's messages are put in the
//! words of the JSON the user wrote (no Rust type names, no "line 1 column 38").

use std::borrow::Cow;

/// Most characters of user input an error message repeats.
pub const MAX_ECHO_CHARS: usize = 80;

/// `s` cut to [`MAX_ECHO_CHARS`] characters, with an ellipsis when cut.
pub fn cap(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_ECHO_CHARS) {
        None => Cow::Borrowed(s),
        Some((end, _)) => Cow::Owned(format!("{}…", &s[..end])),
    }
}

/// A serde message (from `serde_json`, with or without its position) in plain words:
/// what the value must be, and what it was (capped). Messages serde did not write are
/// returned as they are.
pub fn plain_serde(message: &str) -> String {
    let (core, position) = split_position(message);
    if let Some(rest) = core.strip_prefix("invalid type: ").or_else(|| core.strip_prefix("invalid value: ")) {
        if let Some((got, expected)) = rest.rsplit_once(", expected ") {
            return format!("must be {}, got {}", expected_words(expected), unexpected_words(got));
        }
    }
    if let Some(rest) = core.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            if expected == "fewer elements in array" {
                return format!("has too many elements ({n})");
            }
            if expected.starts_with("struct ") {
                return "must be an object, got an array".to_string();
            }
            return format!("must be {}, got {n} element(s)", expected_words(expected));
        }
    }
    if let Some(rest) = core.strip_prefix("unknown variant `") {
        if let Some((got, allowed)) = rest.rsplit_once("`, expected ") {
            return format!("must be one of {}; got {:?}", names(allowed), cap(got).as_ref());
        }
        if let Some(got) = rest.strip_suffix("`, there are no variants") {
            return format!("has no accepted names; got {:?}", cap(got).as_ref());
        }
    }
    if let Some(rest) = core.strip_prefix("unknown field `") {
        if let Some((got, allowed)) = rest.rsplit_once("`, expected ") {
            return format!("unknown field {:?}; allowed: {}", cap(got).as_ref(), names(allowed));
        }
        if let Some(got) = rest.strip_suffix("`, there are no fields") {
            return format!("unknown field {:?}; this takes no fields", cap(got).as_ref());
        }
    }
    if let Some(f) = core.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        return format!("needs the field {f:?}");
    }
    if let Some(f) = core.strip_prefix("duplicate field `").and_then(|r| r.strip_suffix('`')) {
        return format!("has the field {f:?} twice");
    }
    if core.starts_with("data did not match any variant of untagged enum ") {
        return "is none of the accepted forms".to_string();
    }
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
    if let Some((core, pos)) = message.rsplit_once(" at line ") {
        if let Some((line, col)) = pos.split_once(" column ") {
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

/// What serde expected, in the words of JSON.
fn expected_words(expected: &str) -> Cow<'_, str> {
    let w = match expected {
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" | "usize" => "a whole number from 0 to 18446744073709551615",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a boolean" | "bool" => "true or false",
        "a string" | "a borrowed string" | "string" => "a string",
        "char" | "a character" => "a single character",
        "a sequence" | "sequence" => "an array",
        "a map" | "map" => "an object",
        "unit" => "null",
        "option" => "a value or null",
        _ => {
            if let Some(n) = expected
                .strip_prefix("an array of length ")
                .or_else(|| expected.strip_prefix("a tuple of size "))
                .or_else(|| expected.strip_prefix("tuple of ").and_then(|r| r.strip_suffix(" elements")))
            {
                return Cow::Owned(format!("an array of {n} elements"));
            }
            if expected.starts_with("struct ") || expected.contains("tagged enum ") {
                return Cow::Borrowed("an object");
            }
            if expected.starts_with("enum ") || expected.ends_with(" identifier") {
                return Cow::Borrowed("a name");
            }
            return Cow::Borrowed(expected);
        }
    };
    Cow::Borrowed(w)
}

/// What serde got (its `Unexpected`), as the JSON value, capped.
fn unexpected_words(got: &str) -> Cow<'_, str> {
    for prefix in ["integer `", "floating point `", "boolean `"] {
        if let Some(v) = got.strip_prefix(prefix).and_then(|r| r.strip_suffix('`')) {
            return cap(v);
        }
    }
    if let Some(s) = got.strip_prefix("string ") {
        let inner = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s);
        return Cow::Owned(format!("\"{}\"", cap(inner)));
    }
    if let Some(c) = got.strip_prefix("character `").and_then(|r| r.strip_suffix('`')) {
        return Cow::Owned(format!("{c:?}"));
    }
    Cow::Borrowed(match got {
        "sequence" => "an array",
        "map" => "an object",
        "null" | "unit value" | "unit" => "null",
        other => return cap(other),
    })
}

/// serde's "`a`, `b` or `c`" / "one of `a`, `b`" as "a, b, c".
fn names(list: &str) -> String {
    let list = list.strip_prefix("one of ").unwrap_or(list);
    list.split(['`']).map(str::trim).filter(|s| !s.is_empty() && *s != "," && *s != "or").collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct S {
        a: u32,
        #[serde(default)]
        b: [u64; 2],
        #[serde(default)]
        c: bool,
        #[serde(default)]
        e: Option<E>,
    }
    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    enum E {
        One,
        Two,
    }

    fn plain(json: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        plain_serde(&serde_json::from_value::<S>(v).unwrap_err().to_string())
    }

    #[test]
    fn type_errors_say_what_the_json_must_be() {
        assert_eq!(plain(r#"{"a":-1}"#), "must be a whole number from 0 to 4294967295, got -1");
        assert_eq!(plain(r#"{"a":99999999999}"#), "must be a whole number from 0 to 4294967295, got 99999999999");
        assert_eq!(plain(r#"{"a":1.5}"#), "must be a whole number from 0 to 4294967295, got 1.5");
        assert_eq!(plain(r#"{"a":"5"}"#), r#"must be a whole number from 0 to 4294967295, got "5""#);
        assert_eq!(plain(r#"{"a":null}"#), "must be a whole number from 0 to 4294967295, got null");
        assert_eq!(plain(r#"{"a":[1]}"#), "must be a whole number from 0 to 4294967295, got an array");
        assert_eq!(plain(r#"{"a":1,"c":1}"#), "must be true or false, got 1");
        assert_eq!(plain(r#"{"a":1,"b":[1]}"#), "must be an array of 2 elements, got 1 element(s)");
        assert_eq!(plain(r#"{"a":1,"b":[1,2,3]}"#), "has too many elements (3)");
        assert_eq!(plain(r#"{"a":1,"e":"three"}"#), r#"must be one of one, two; got "three""#);
        assert_eq!(plain(r#"{"a":1,"zz":2}"#), r#"unknown field "zz"; allowed: a, b, c, e"#);
        assert_eq!(plain(r#"{}"#), r#"needs the field "a""#);
        assert_eq!(plain(r#"[]"#), "must be an object, got an array");
        for json in [r#"{"a":-1}"#, r#"{"a":1,"e":"x"}"#, r#"[]"#] {
            let m = plain(json);
            for rust in ["u32", "u64", "usize", "struct", "sequence", "line 1", "`"] {
                assert!(!m.contains(rust), "{m:?} mentions {rust}");
            }
        }
    }

    #[test]
    fn syntax_errors_give_a_character_position_not_a_line_on_one_line() {
        let e = serde_json::from_str::<serde_json::Value>(r#"{"a":1"#).unwrap_err().to_string();
        assert_eq!(plain_serde(&e), "is not valid JSON: it ends too early (at character 6)");
        let e = serde_json::from_str::<serde_json::Value>("{\n\"a\" 1}").unwrap_err().to_string();
        assert_eq!(plain_serde(&e), "is not valid JSON: expected `:` (at line 2, character 5)");
    }

    #[test]
    fn echoed_input_is_capped() {
        let long = "x".repeat(1_000_000);
        let json = format!(r#"{{"a":1,"e":"{long}"}}"#);
        let m = plain(&json);
        assert!(m.len() < 200, "{} chars", m.len());
        assert!(m.ends_with("…\""), "{m}");
        assert_eq!(cap("short"), "short");
        assert_eq!(cap(&"é".repeat(100)).chars().count(), MAX_ECHO_CHARS + 1);
    }
}
