//! The JSON reading kit: objects that know their path, typed getters whose errors name
//! it, "did you mean", and the context that checks node references, labels and times.

use super::*;
use crate::vocab::{keys_of, Field, Kind};
use kraft_sim::input::Read;

// ---- small JSON helpers -------------------------------------------------------------

pub(super) use kraft_sim::input::{index as idx, join};

pub(super) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, msg))
}

/// Reads a value (`kraft_sim::input`) at its path.
pub(super) fn de<T: Read>(v: &Value, path: &str) -> R<T> {
    T::read(v, path).map_err(|e| ScenarioError::new(e.path, e.message))
}

/// Edit distance, for "did you mean".
pub(super) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

pub(super) fn suggest(word: &str, known: &[&str]) -> String {
    if word.len() > MAX_ECHO_CHARS {
        return String::new();
    }
    let best = known.iter().map(|k| (distance(&word.to_lowercase(), &k.to_lowercase()), *k)).min();
    match best {
        Some((d, k)) if d <= 2 || k.to_lowercase().contains(&word.to_lowercase()) => {
            format!(" (did you mean '{k}'?)")
        }
        _ => String::new(),
    }
}

/// An object being read: its fields and where it is.
pub(super) struct Obj<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) path: String,
}

impl<'a> Obj<'a> {
    pub(super) fn new(v: &'a Value, path: &str, what: &str) -> R<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj { map, path: path.to_string() }),
            other => err(path, format!("expected {what} (an object), got {}", json_kind(other))),
        }
    }

    pub(super) fn p(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The value, treating null as absent.
    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub(super) fn req_value(&self, key: &str) -> R<&'a Value> {
        self.get(key).ok_or_else(|| ScenarioError::new(self.p(key), "missing required field"))
    }

    pub(super) fn req<T: Read>(&self, key: &str) -> R<T> {
        de(self.req_value(key)?, &self.p(key))
    }

    pub(super) fn opt<T: Read>(&self, key: &str) -> R<Option<T>> {
        match self.get(key) {
            Some(v) => de(v, &self.p(key)).map(Some),
            None => Ok(None),
        }
    }

    pub(super) fn string(&self, key: &str) -> R<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => err(self.p(key), format!("expected a string, got {}", json_kind(v))),
        }
    }

    pub(super) fn req_string(&self, key: &str) -> R<String> {
        self.string(key)?.ok_or_else(|| ScenarioError::new(self.p(key), "missing required field"))
    }

    /// Checks the keys against the vocabulary's fields: each known, each required one there.
    pub(super) fn fields(&self, fields: &[Field]) -> R<()> {
        self.allow(&keys_of(fields))?;
        fields.iter().filter(|f| f.required).try_for_each(|f| self.req_value(f.key).map(|_| ()))
    }

    /// Refuses keys not in `allowed`.
    pub(super) fn allow(&self, allowed: &[&str]) -> R<()> {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                return err(
                    self.p(k),
                    format!("unknown field '{}'{}; allowed here: {}", cap(k), suggest(k, allowed), allowed.join(", ")),
                );
            }
        }
        Ok(())
    }

    /// For objects with exactly one key naming what they are (`{"crash": ...}`), plus
    /// the optional extra keys: the kind, its value and its path.
    pub(super) fn single<K: Kind>(&self, extra: &[&str], what: &str) -> R<(K, &'a Value, String)> {
        let known = K::keys();
        let mut found: Option<(&'a str, K, &'a Value)> = None;
        for (k, v) in self.map.iter() {
            if extra.contains(&k.as_str()) {
                continue;
            }
            let Some(kind) = K::find(k) else {
                return err(
                    self.p(k),
                    format!("unknown {what} '{}'{}; known: {}", cap(k), suggest(k, &known), known.join(", ")),
                );
            };
            if let Some((first, _, _)) = found {
                return err(self.p(k), format!("one {what} per object: found both '{}' and '{}'", cap(first), cap(k)));
            }
            found = Some((k.as_str(), kind, v));
        }
        match found {
            Some((k, kind, v)) => Ok((kind, v, self.p(k))),
            None => err(self.path.clone(), format!("expected one {what}: {}", known.join(", "))),
        }
    }
}

pub(super) fn expect_true(v: &Value, path: &str, hint: &str) -> R<()> {
    match v {
        Value::Bool(true) => Ok(()),
        Value::Bool(false) => err(path, format!("must be true; {hint}")),
        other => err(path, format!("expected true, got {}", json_kind(other))),
    }
}

pub(super) fn u64_of(v: &Value, path: &str) -> R<u64> {
    de::<u64>(v, path)
}

// ---- the reading context ------------------------------------------------------------

#[derive(Clone, Copy)]
pub(super) struct LabelDecl {
    pub(super) step: usize,
    pub(super) has_subject: bool,
}

pub(super) struct Cx {
    pub(super) voters: u32,
    pub(super) observers: u32,
    pub(super) labels: BTreeMap<String, LabelDecl>,
    /// While reading steps: the index of the step being read (labels must be earlier).
    pub(super) in_step: Option<usize>,
}

impl Cx {
    pub(super) fn nodes(&self) -> u32 {
        self.voters + self.observers
    }

    pub(super) fn node_range(&self) -> String {
        let mut s = format!("nodes are 0..{} ({} voter", self.nodes() - 1, self.voters);
        if self.voters != 1 {
            s.push('s');
        }
        if self.observers > 0 {
            s.push_str(&format!(
                " 0..{}, {} observer{} {}..{}",
                self.voters - 1,
                self.observers,
                if self.observers == 1 { "" } else { "s" },
                self.voters,
                self.nodes() - 1
            ));
        }
        s.push(')');
        s
    }

    pub(super) fn label(&self, label: &str, path: &str, need_subject: bool) -> R<()> {
        let Some(decl) = self.labels.get(label) else {
            let known: Vec<&str> = self.labels.keys().map(|s| s.as_str()).collect();
            return err(
                path,
                if known.is_empty() {
                    format!("no step is labelled '{}' (no step has a label)", cap(label))
                } else {
                    format!(
                        "no step is labelled '{}'{}; labels: {}",
                        cap(label),
                        suggest(label, &known),
                        cap_list(&known)
                    )
                },
            );
        };
        if let Some(cur) = self.in_step {
            if decl.step >= cur {
                return err(
                    path,
                    format!(
                        "step '{}' (steps[{}]) has not happened yet here; a step can only refer to earlier steps",
                        cap(label),
                        decl.step
                    ),
                );
            }
        }
        if need_subject && !decl.has_subject {
            return err(
                path,
                format!(
                    "step '{}' names no node (only steps that crash/wipe/restart/isolate/slowDisk a node, resign, or wait for a leader or a node's state do)", cap(label)),
            );
        }
        Ok(())
    }

    pub(super) fn node_ref(&self, v: &Value, path: &str, allow_leader: bool) -> R<NodeRef> {
        match v {
            Value::Number(_) => {
                let n: u32 = de(v, path)?;
                if n >= self.nodes() {
                    return err(path, format!("node {n} does not exist; {}", self.node_range()));
                }
                Ok(NodeRef::Id(n))
            }
            Value::String(s) if s == "leader" || s == "follower" => {
                if allow_leader {
                    Ok(if s == "leader" { NodeRef::Leader } else { NodeRef::Follower })
                } else {
                    err(
                        path,
                        "'leader' and 'follower' are only meaningful in steps and conditions (they mean a node's role at that moment); here name a node id or a step label like \"$crash\"",
                    )
                }
            }
            Value::String(s) if s.starts_with('$') => {
                self.label(&s[1..], path, true)?;
                Ok(NodeRef::Label(s[1..].to_string()))
            }
            other => err(
                path,
                format!(
                    "expected a node: an id (0..{}), \"leader\", \"follower\" or a step label like \"$crash\"; got {}",
                    self.nodes() - 1,
                    match other {
                        Value::String(s) => format!("\"{}\"", cap(s)),
                        o => json_kind(o).to_string(),
                    }
                ),
            ),
        }
    }

    pub(super) fn node_sel(&self, v: &Value, path: &str, allow_leader: bool) -> R<NodeSel> {
        match v.as_str() {
            Some("all") => Ok(NodeSel::All),
            Some("voters") => Ok(NodeSel::Voters),
            Some("observers") => Ok(NodeSel::Observers),
            _ => self.node_ref(v, path, allow_leader).map(NodeSel::Node).map_err(|e| {
                if e.message.starts_with("expected a node") {
                    ScenarioError::new(
                        e.path,
                        e.message.replace("expected a node:", "expected \"all\", \"voters\", \"observers\" or a node:"),
                    )
                } else {
                    e
                }
            }),
        }
    }

    pub(super) fn time_ref(&self, v: &Value, path: &str) -> R<TimeRef> {
        match v {
            Value::Number(_) => Ok(TimeRef::Ms(u64_of(v, path)?)),
            Value::String(s) if s == "end" => Ok(TimeRef::End),
            Value::String(s) => {
                let (label, plus) = match s.split_once('+') {
                    Some((l, p)) => match p.trim().parse::<u64>() {
                        Ok(p) => (l.trim(), p),
                        Err(_) => {
                            return err(
                                path,
                                format!("'{}': after '+' comes a number of ms, like \"crash+500\"", cap(s)),
                            )
                        }
                    },
                    None => (s.trim(), 0),
                };
                self.label(label, path, false)?;
                Ok(TimeRef::Step { label: label.to_string(), plus })
            }
            other => err(
                path,
                format!(
                    "expected a time: ms, a step label (\"crash\", \"crash+500\") or \"end\"; got {}",
                    json_kind(other)
                ),
            ),
        }
    }

    /// An optional node selection (known after the run); absent means every node.
    pub(super) fn sel_or_all(&self, o: &Obj, key: &str) -> R<NodeSel> {
        o.get(key).map(|v| self.node_sel(v, &o.p(key), false)).transpose().map(|s| s.unwrap_or(NodeSel::All))
    }

    pub(super) fn opt_time(&self, o: &Obj, key: &str) -> R<Option<TimeRef>> {
        o.get(key).map(|v| self.time_ref(v, &o.p(key))).transpose()
    }
}

pub(super) fn check_markup(text: &str, path: &str) -> R<()> {
    markup::check(text).map_err(|m| ScenarioError::new(path, m))
}

pub(super) fn check_plain(text: &str, path: &str) -> R<()> {
    markup::check_plain(text).map_err(|m| ScenarioError::new(path, m))
}

pub(super) fn check_kebab(s: &str, path: &str, what: &str) -> R<()> {
    let ok = !s.is_empty()
        && s.split('-').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
    if ok {
        Ok(())
    } else {
        err(
            path,
            format!(
                "{what} '{}' must be kebab-case: lowercase letters and digits joined by '-' (like 'figure-8')",
                cap(s)
            ),
        )
    }
}
