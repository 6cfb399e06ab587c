//! Reading plain values from a `serde_json::Value` with path-precise errors: the `Read`
//! trait for numbers, strings, lists, latency ranges, config maps and safety switches, and
//! `Obj` for an object's fields. Every error names the field's path (`inputs[2].latencyMs`)
//! and says what the value must be and what it was, in the words of JSON (echoes capped).
//! The sim's own inputs (`input`) and the action vocabulary (`vocab`) read through here.

use kraft_base::messages::cap;
use kraft_protocol::SafetySwitch;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What is wrong with an input, and where (`inputs[0].node`; empty: the whole input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

pub type R<T> = Result<T, InputError>;

pub(crate) fn fail<T>(path: &str, message: String) -> R<T> {
    Err(InputError { path: path.to_string(), message })
}

/// `base.key` (just `key` at the top).
pub fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        cap(key).into_owned()
    } else {
        format!("{base}.{}", cap(key))
    }
}

/// `base[i]`.
pub fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// A value as an error quotes it: numbers and booleans as written, strings in quotes
/// (capped), arrays and objects by kind.
pub fn shown(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => cap(&n.to_string()).into_owned(),
        Value::String(s) => format!("\"{}\"", cap(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// `must be <what>, got <value>`.
pub(crate) fn must<T>(path: &str, what: &str, got: &Value) -> R<T> {
    fail(path, format!("must be {what}, got {}", shown(got)))
}

/// `must be one of a, b, c; got "x"` for a string, `must be a name` for anything else.
pub(crate) fn one_of<T>(path: &str, names: &[&str], got: &Value) -> R<T> {
    match got {
        Value::String(s) => fail(path, format!("must be one of {}; got \"{}\"", names.join(", "), cap(s))),
        other => must(path, "a name", other),
    }
}

/// A value read from JSON at a path.
pub trait Read: Sized {
    fn read(v: &Value, path: &str) -> R<Self>;
}

impl Read for u64 {
    fn read(v: &Value, path: &str) -> R<u64> {
        v.as_u64().map_or_else(|| must(path, "a whole number from 0 to 18446744073709551615", v), Ok)
    }
}

impl Read for u32 {
    fn read(v: &Value, path: &str) -> R<u32> {
        match v.as_u64().map(u32::try_from) {
            Some(Ok(n)) => Ok(n),
            _ => must(path, "a whole number from 0 to 4294967295", v),
        }
    }
}

impl Read for f64 {
    fn read(v: &Value, path: &str) -> R<f64> {
        v.as_f64().map_or_else(|| must(path, "a number", v), Ok)
    }
}

impl Read for bool {
    fn read(v: &Value, path: &str) -> R<bool> {
        v.as_bool().map_or_else(|| must(path, "true or false", v), Ok)
    }
}

impl Read for String {
    fn read(v: &Value, path: &str) -> R<String> {
        v.as_str().map_or_else(|| must(path, "a string", v), |s| Ok(s.to_string()))
    }
}

impl Read for Arc<str> {
    fn read(v: &Value, path: &str) -> R<Arc<str>> {
        v.as_str().map_or_else(|| must(path, "a string", v), |s| Ok(s.into()))
    }
}

impl<T: Read> Read for Vec<T> {
    fn read(v: &Value, path: &str) -> R<Vec<T>> {
        match v {
            Value::Array(a) => a.iter().enumerate().map(|(i, e)| T::read(e, &index(path, i))).collect(),
            other => must(path, "an array", other),
        }
    }
}

/// null as None, anything else as a `T`.
impl<T: Read> Read for Option<T> {
    fn read(v: &Value, path: &str) -> R<Option<T>> {
        if v.is_null() {
            Ok(None)
        } else {
            T::read(v, path).map(Some)
        }
    }
}

/// `[min, max]`: a latency range in ms.
impl Read for [u64; 2] {
    fn read(v: &Value, path: &str) -> R<[u64; 2]> {
        match v {
            Value::Array(a) if a.len() > 2 => fail(path, format!("has too many elements ({})", a.len())),
            Value::Array(a) if a.len() < 2 => {
                fail(path, format!("must be an array of 2 elements, got {} element(s)", a.len()))
            }
            Value::Array(a) => Ok([u64::read(&a[0], &index(path, 0))?, u64::read(&a[1], &index(path, 1))?]),
            other => must(path, "an array of 2 elements", other),
        }
    }
}

/// Whole numbers by name (the quorum config).
impl Read for BTreeMap<String, u64> {
    fn read(v: &Value, path: &str) -> R<BTreeMap<String, u64>> {
        let o = Obj::new(v, path)?;
        let mut out = BTreeMap::new();
        for (k, v) in o.map {
            out.insert(k.clone(), u64::read(v, &o.at(k))?);
        }
        Ok(out)
    }
}

impl Read for SafetySwitch {
    fn read(v: &Value, path: &str) -> R<SafetySwitch> {
        match v.as_str().and_then(|s| SafetySwitch::ALL.into_iter().find(|x| x.name() == s)) {
            Some(s) => Ok(s),
            None => one_of(path, &SafetySwitch::all_names(), v),
        }
    }
}

/// An object being read: its fields and where it is.
pub struct Obj<'a> {
    pub map: &'a Map<String, Value>,
    pub path: &'a str,
}

impl<'a> Obj<'a> {
    pub fn new(v: &'a Value, path: &'a str) -> R<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { map, path }),
            other => must(path, "an object", other),
        }
    }

    /// The path of one of its fields.
    pub fn at(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// Refuses keys that are neither `fields` nor `also` (keys read elsewhere, such as an
    /// action's `t`); the error lists `fields`.
    pub fn only(&self, fields: &[&str], also: &[&str]) -> R<()> {
        match self.map.keys().find(|k| !fields.contains(&k.as_str()) && !also.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) if fields.is_empty() => {
                fail(self.path, format!("unknown field \"{}\"; this takes no fields", cap(k)))
            }
            Some(k) => fail(self.path, format!("unknown field \"{}\"; allowed: {}", cap(k), fields.join(", "))),
        }
    }

    pub fn req<T: Read>(&self, key: &str) -> R<T> {
        match self.map.get(key) {
            Some(v) => T::read(v, &self.at(key)),
            None => fail(self.path, format!("needs the field \"{key}\"")),
        }
    }

    /// The field when present (null too is read as its type).
    pub fn opt<T: Read>(&self, key: &str) -> R<Option<T>> {
        self.map.get(key).map(|v| T::read(v, &self.at(key))).transpose()
    }
}
