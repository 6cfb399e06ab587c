//! One bounded number (a config key, a cluster setting, a bound on a call) with its
//! default, range, unit and a one-line doc. The tables of them live with what they bound:
//! `kraft_protocol::config::CONFIG_KEYS` and `kraft_sim::limits::LIMITS`.

use serde::Serialize;

/// What a limited number counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Unit {
    #[serde(rename = "ms")]
    Ms,
    #[serde(rename = "s")]
    Seconds,
    #[serde(rename = "bytes")]
    Bytes,
    #[serde(rename = "ppm")]
    Ppm,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::Seconds => "s",
            Unit::Bytes => "bytes",
            Unit::Ppm => "ppm",
        }
    }
}

/// One bounded number: a config key, a cluster setting or a bound on a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Limit {
    /// The key or field that carries it (`voters`, `controller.quorum.fetch.timeout.ms`).
    pub key: &'static str,
    /// What it means, in one line (shown in errors, the UI and the README).
    pub description: &'static str,
    /// The value when none is given (none for a bound on a call).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub default: Option<u64>,
    pub min: u64,
    /// None: no upper bound.
    pub max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub unit: Option<Unit>,
    /// 0 is accepted too, below `min`: it turns the thing off.
    pub zero_turns_off: bool,
}

impl Limit {
    /// The largest accepted value.
    pub const fn upper(&self) -> u64 {
        match self.max {
            Some(m) => m,
            None => u64::MAX,
        }
    }

    pub fn accepts(&self, value: u64) -> bool {
        (value == 0 && self.zero_turns_off) || (self.min..=self.upper()).contains(&value)
    }

    /// The accepted range in words: `between 10 and 600000 ms`, `0 (never) or at least 10`.
    pub fn range_text(&self) -> String {
        let unit = self.unit.map(|u| format!(" {}", u.name())).unwrap_or_default();
        match (self.zero_turns_off, self.max) {
            (true, None) => format!("0 (never) or at least {}{unit}", self.min),
            (true, Some(max)) => format!("0 (never) or between {} and {max}{unit}", self.min),
            (false, None) => format!("at least {}{unit}", self.min),
            (false, Some(max)) => format!("between {} and {max}{unit}", self.min),
        }
    }

    /// `value` when accepted; else `must be <range>, got <value>` (the caller names the field).
    pub fn check(&self, value: u64) -> Result<u64, String> {
        if self.accepts(value) {
            Ok(value)
        } else {
            Err(format!("must be {}, got {value}", self.range_text()))
        }
    }

    /// [`Limit::check`] with the error's field, for callers that report `(field, message)`.
    pub fn check_field(&self, value: u64) -> Result<u64, (String, String)> {
        self.check(value).map_err(|m| (self.key.to_string(), m))
    }
}

/// A limit with an upper bound and no zero-turns-off.
pub const fn limit(
    key: &'static str,
    default: Option<u64>,
    min: u64,
    max: u64,
    unit: Option<Unit>,
    description: &'static str,
) -> Limit {
    Limit { key, description: doc(description), default, min, max: Some(max), unit, zero_turns_off: false }
}

/// A limit's one-line doc as it keeps it: empty in the wasm. Nothing there reads it: the
/// README's table and the package's catalog (`web/src/generated/wire.ts`) that show it are
/// generated natively, so the wasm leaves the text out (0.6 KB gzip of the page's core).
pub const fn doc(description: &'static str) -> &'static str {
    if cfg!(target_arch = "wasm32") {
        ""
    } else {
        description
    }
}
