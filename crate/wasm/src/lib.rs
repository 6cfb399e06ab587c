//! The wasm-bindgen surface the npm package calls. Glue only: it reads the JS inputs,
//! calls the simulator and the scenario engine, and writes their answers; it is compiled
//! natively too, so native tests and clippy see it (a JS call panics off wasm).
//!
//! Inputs come in as JSON strings or plain numbers and are validated here (ranges against
//! `limits`; the JS layer checks only types and shapes): no input may reach a panic.
//! Errors are [`ApiError`]s, made into a JS `TypeError` (wrong shape or type),
//! `RangeError` (a value out of range) or `Error` with a `field` property naming the
//! offending field by [`js_error`]. Outputs are plain JSON-compatible JS values, written
//! as JSON and parsed by `JSON.parse` (13 KB gzip less wasm than building them field by
//! field with serde-wasm-bindgen).

use crate::wire::{ApiError, BaselineOut, ErrorKind, InFlightOut, LeaderOut, NetworkOut, NodeOut, WriteOut};
use kraft_base::messages::number;
use kraft_sim::input::{self, InputError, Read};
use kraft_sim::simulation::{TraceCursor, MAX_ADVANCE_MS};
use kraft_sim::trace::{Event, EventKind, EventText, EVENT_FIELDS};
use kraft_sim::{Action, ClusterSpec, SimError, Simulation, TimedAction, WriteOutcome};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Largest integer a JS number holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

thread_local! {
    /// The message of the last panic, for the JS layer to show after the trap.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps the panic's message for
/// [`take_panic_message`] and logs it to the console.
fn hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
            console_error_panic_hook::hook(info);
        }));
    });
}

/// The message of the last panic in the core (once), or null: the JS layer reads it
/// right after a trap, so its error can say what failed instead of "unreachable".
#[wasm_bindgen(js_name = takePanicMessage)]
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

// ---- errors -----------------------------------------------------------------------------

/// The JS error of an [`ApiError`]: its kind and text, with its `field` property.
fn js_error(e: ApiError) -> JsValue {
    let text = e.text();
    let error: JsValue = match e.kind {
        ErrorKind::TypeError => js_sys::TypeError::new(&text).into(),
        ErrorKind::RangeError => js_sys::RangeError::new(&text).into(),
        ErrorKind::Error => js_sys::Error::new(&text).into(),
    };
    let _ = js_sys::Reflect::set(&error, &JsValue::from_str("field"), &JsValue::from_str(&e.field));
    error
}

fn range_error(field: &str, msg: &str) -> JsValue {
    js_error(ApiError::range(field, msg))
}

fn type_error(field: &str, msg: &str) -> JsValue {
    js_error(ApiError::type_error(field, msg))
}

fn sim_error(e: SimError) -> JsValue {
    range_error(&e.field, &e.message)
}

fn input_error(e: InputError) -> JsValue {
    type_error(&e.path, &e.message)
}

/// Reads JSON text as a `T` (`kraft_sim::input`); the error names the path of the bad field.
fn parse<T: Read>(what: &str, json: &str) -> Result<T, JsValue> {
    input::from_json(json, what).map_err(input_error)
}

fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let json = serde_json::to_string(v).map_err(|e| cannot_write(&e))?;
    js_sys::JSON::parse(&json)
}

/// A non-negative whole number of milliseconds (or any count) from a JS number.
fn whole(field: &str, v: f64) -> Result<u64, JsValue> {
    if !v.is_finite() {
        return Err(range_error(field, &format!("must be a finite number, got {}", number(v))));
    }
    if v < 0.0 {
        return Err(range_error(field, &format!("must not be negative, got {}", number(v))));
    }
    if v.fract() != 0.0 {
        return Err(range_error(field, &format!("must be a whole number, got {}", number(v))));
    }
    if v > MAX_SAFE {
        return Err(range_error(field, &format!("is too large, got {}", number(v))));
    }
    Ok(v as u64)
}

fn check_spec(spec: &ClusterSpec) -> Result<(), JsValue> {
    if spec.seed as f64 > MAX_SAFE {
        return Err(range_error(
            "seed",
            &format!("must be at most {} (Number.MAX_SAFE_INTEGER), got {}", MAX_SAFE as u64, spec.seed),
        ));
    }
    Ok(())
}

// ---- the simulation ---------------------------------------------------------------------

/// One simulated cluster with its trace, input log and checkpoints.
#[wasm_bindgen]
pub struct WasmSim {
    sim: Simulation,
}

fn limit_of(limit: Option<u32>) -> usize {
    limit.map(|l| l as usize).unwrap_or(usize::MAX)
}

#[wasm_bindgen]
impl WasmSim {
    /// A new cluster from a `ClusterSpec` as JSON.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<WasmSim, JsValue> {
        hook();
        let spec: ClusterSpec = parse("", spec_json)?;
        check_spec(&spec)?;
        let sim = Simulation::new(spec).map_err(sim_error)?;
        Ok(WasmSim { sim })
    }

    /// Rebuilds a run from its spec, its input log (JSON array of timed actions) and the
    /// time it had reached. With `at`, the run is put at that earlier time instead, as a
    /// `seek(at)` would leave it, without running on to `until` first: the inputs after
    /// `at` stay ahead and play as the clock reaches them.
    pub fn replay(spec_json: &str, inputs_json: &str, until: f64, at: Option<f64>) -> Result<WasmSim, JsValue> {
        hook();
        let spec: ClusterSpec = parse("spec", spec_json)?;
        check_spec(&spec)?;
        let inputs: Vec<TimedAction> = parse("inputs", inputs_json)?;
        let until = whole("t", until)?;
        let last = inputs.last().map(|i| i.t).unwrap_or(0);
        if until > last.saturating_add(MAX_ADVANCE_MS) {
            return Err(range_error("t", &format!("must be at most a day ({MAX_ADVANCE_MS} ms) past the last input")));
        }
        if let Some(i) = inputs.iter().position(|i| i.t > until) {
            return Err(range_error(&format!("inputs[{i}].t"), &format!("is after the link's time t = {until}")));
        }
        let at = match at {
            Some(at) => whole("at", at)?,
            None => until,
        };
        if at > until {
            return Err(range_error("at", &format!("must be at most t = {until}, got {at}")));
        }
        let sim = Simulation::replay_at(spec, inputs, until, at).map_err(sim_error)?;
        Ok(WasmSim { sim })
    }

    /// The spec as JSON (all fields, defaults filled in).
    // Not called by the package's JS (web/src): only in the full wasm, to keep the core small.
    #[cfg(feature = "scenarios")]
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        serde_json::to_string(self.sim.spec()).unwrap_or_default()
    }

    // Not called by the package's JS (web/src): only in the full wasm, to keep the core small.
    #[cfg(feature = "scenarios")]
    pub fn seed(&self) -> f64 {
        self.sim.spec().seed as f64
    }

    pub fn now(&self) -> f64 {
        self.sim.now() as f64
    }

    #[wasm_bindgen(js_name = nodeCount)]
    pub fn node_count(&self) -> u32 {
        self.sim.world().nodes.len() as u32
    }

    pub fn voters(&self) -> u32 {
        self.sim.world().voters.len() as u32
    }

    /// Advances simulated time by `ms`.
    pub fn advance(&mut self, ms: f64) -> Result<(), JsValue> {
        let ms = whole("ms", ms)?;
        self.sim.advance(ms).map_err(sim_error)
    }

    /// Runs to the next event time; false when nothing is queued.
    pub fn step(&mut self) -> Result<bool, JsValue> {
        self.sim.step().map_err(sim_error)
    }

    /// The time `step` would run to, if anything is queued.
    #[wasm_bindgen(js_name = nextTime)]
    pub fn next_time(&self) -> Option<f64> {
        let q = self.sim.world().next_event_time();
        let i = self.sim.future_inputs().first().map(|i| i.t);
        match (q, i) {
            (Some(a), Some(b)) => Some(a.min(b) as f64),
            (a, b) => a.or(b).map(|t| t as f64),
        }
    }

    /// Does an action (JSON of `Action`) now. Returns the write outcome for writes,
    /// else null.
    pub fn act(&mut self, action_json: &str) -> Result<JsValue, JsValue> {
        let action: Action = parse("", action_json)?;
        let outcome = self.sim.act(action).map_err(sim_error)?;
        match outcome {
            None => Ok(JsValue::NULL),
            Some(WriteOutcome::Accepted { node, offset }) => {
                to_js(&WriteOut { accepted: true, node: Some(node), offset: Some(offset), reason: None })
            }
            Some(WriteOutcome::Rejected { reason }) => {
                to_js(&WriteOut { accepted: false, node: None, offset: None, reason: Some(reason) })
            }
        }
    }

    /// The end of the recorded run: now, or later after a seek back.
    pub fn horizon(&self) -> f64 {
        self.sim.horizon() as f64
    }

    /// How many actions cut off a recorded future (`Simulation::forks`).
    pub fn forks(&self) -> f64 {
        self.sim.forks() as f64
    }

    /// The timeline's lanes over [from, to] (`Simulation::lanes`) in their packed form
    /// (`Lanes::pack`): their numbers, and the marks' events with their text as the packed
    /// events' JSON.
    pub fn lanes(&self, from: f64, to: f64) -> Result<WasmPacked, JsValue> {
        let from = whole("from", from)?;
        let to = whole("to", to)?;
        let (numbers, marks) = self.sim.lanes(from, to).map_err(sim_error)?.pack();
        Ok(WasmPacked { numbers, rest: packed(&marks, TextFor(u32::MAX))?.rest })
    }

    /// Moves to time `t`, back or forward.
    pub fn seek(&mut self, t: f64) -> Result<(), JsValue> {
        let t = whole("t", t)?;
        self.sim.seek(t).map_err(sim_error)
    }

    /// Events with seq > `since`, at most `limit`, as one JSON array (one `JSON.parse` in
    /// JS is about twice as fast as building the objects across the boundary); `text`
    /// says which of them carry their one-line text (see [`TextFor::parse`]).
    #[wasm_bindgen(js_name = eventsSinceJson)]
    pub fn events_since_json(&self, since: f64, limit: Option<u32>, text: Option<String>) -> Result<String, JsValue> {
        let since = whole("since", since)?;
        let text = TextFor::parse(text)?;
        events_json(&self.sim.events_since_at_most(since, limit_of(limit)), text)
    }

    /// Events with from <= t <= to, at most `limit`, as one JSON array (as `eventsSinceJson`).
    #[wasm_bindgen(js_name = eventsBetweenJson)]
    pub fn events_between_json(
        &self,
        from: f64,
        to: f64,
        limit: Option<u32>,
        text: Option<String>,
    ) -> Result<String, JsValue> {
        let from = whole("from", from)?;
        let to = whole("to", to)?;
        let text = TextFor::parse(text)?;
        let ev = self.sim.events_between(from, to);
        events_json(&ev[..ev.len().min(limit_of(limit))], text)
    }

    /// As `eventsSinceJson`, in the packed form (`packed::pack`; `text` as there, but
    /// naming only types that are not packed).
    #[wasm_bindgen(js_name = eventsSincePacked)]
    pub fn events_since_packed(
        &self,
        since: f64,
        limit: Option<u32>,
        text: Option<String>,
    ) -> Result<WasmPacked, JsValue> {
        let since = whole("since", since)?;
        let text = TextFor::parse_packed(text)?;
        packed(&self.sim.events_since_at_most(since, limit_of(limit)), text)
    }

    /// As `eventsBetweenJson`, in the packed form (as `eventsSincePacked`).
    #[wasm_bindgen(js_name = eventsBetweenPacked)]
    pub fn events_between_packed(
        &self,
        from: f64,
        to: f64,
        limit: Option<u32>,
        text: Option<String>,
    ) -> Result<WasmPacked, JsValue> {
        let from = whole("from", from)?;
        let to = whole("to", to)?;
        let text = TextFor::parse_packed(text)?;
        let ev = self.sim.events_between(from, to);
        packed(&ev[..ev.len().min(limit_of(limit))], text)
    }

    /// The one-line text form of the events with seq > `since` (at most `limit`), one
    /// per line.
    #[wasm_bindgen(js_name = textSince)]
    pub fn text_since(&self, since: f64, limit: Option<u32>) -> Result<String, JsValue> {
        let since = whole("since", since)?;
        Ok(lines(&self.sim.events_since_at_most(since, limit_of(limit))))
    }

    /// Why event `seq` happened, in one sentence (`explain::explain`); None when the run
    /// has no such event yet.
    #[wasm_bindgen(js_name = explainEvent)]
    pub fn explain_event(&self, seq: f64) -> Result<Option<String>, JsValue> {
        let seq = whole("seq", seq)?;
        let page = self.sim.events_since_at_most(seq.saturating_sub(1), 1);
        Ok(page.first().filter(|e| e.seq == seq).map(|e| kraft_sim::explain::explain(&e.kind)))
    }

    /// Number of actions in the input log up to now.
    #[wasm_bindgen(js_name = inputCount)]
    pub fn input_count(&self) -> u32 {
        self.sim.inputs().len() as u32
    }

    /// Sequence number of the last event (0 before any).
    #[wasm_bindgen(js_name = lastSeq)]
    pub fn last_seq(&self) -> f64 {
        self.sim.last_seq() as f64
    }

    #[wasm_bindgen(js_name = eventCount)]
    pub fn event_count(&self) -> f64 {
        self.sim.last_seq() as f64
    }

    /// Every node as the panels show it; with their log records when asked.
    pub fn nodes(&self, with_records: bool) -> Result<JsValue, JsValue> {
        let w = self.sim.world();
        let out: Vec<NodeOut> = w
            .node_views()
            .into_iter()
            .map(|view| {
                let records = with_records.then(|| w.log_view(view.id, None, usize::MAX));
                NodeOut { view, records }
            })
            .collect();
        to_js(&out)
    }

    /// Every node as it was at time `t` (at most now), as `nodes(false)` shows it after
    /// `seek(t)`; the run is not changed (`Simulation::nodes_at`).
    #[wasm_bindgen(js_name = nodesAt)]
    pub fn nodes_at(&self, t: f64) -> Result<JsValue, JsValue> {
        let t = whole("t", t)?;
        // As `NodeOut`s without records, the JSON `nodes(false)` writes: one serializer
        // of the node view in the wasm, not two (`NodeOut` flattens it).
        let views = self.sim.nodes_at(t).map_err(sim_error)?;
        let out: Vec<NodeOut> = views.into_iter().map(|view| NodeOut { view, records: None }).collect();
        to_js(&out)
    }

    fn check_node(&self, node: u32) -> Result<(), JsValue> {
        if node < self.node_count() {
            return Ok(());
        }
        Err(range_error("node", &format!("node {node} does not exist; nodes are 0..{}", self.node_count() - 1)))
    }

    /// A node's log records from `from` (default: its log start), at most `limit`.
    pub fn log(&self, node: u32, from: Option<f64>, limit: Option<u32>) -> Result<JsValue, JsValue> {
        self.check_node(node)?;
        let from = from.map(|f| whole("from", f)).transpose()?;
        to_js(&self.sim.world().log_view(node, from, limit_of(limit)))
    }

    /// A node's metadata image now (at most `limit` brokers, topics and partition leaders
    /// per topic; default `IMAGE_LIST_DEFAULT`), or null while it is crashed.
    pub fn image(&self, node: u32, limit: Option<u32>) -> Result<JsValue, JsValue> {
        self.check_node(node)?;
        let limit = limit.map_or(kraft_sim::view::IMAGE_LIST_DEFAULT, |l| l as usize);
        match self.sim.world().image_view(node, limit) {
            Some(v) => to_js(&v),
            None => Ok(JsValue::NULL),
        }
    }

    /// `kafka-metadata-quorum describe --status/--replication`, or null with no leader.
    #[wasm_bindgen(js_name = describeQuorum)]
    pub fn describe_quorum(&self) -> Result<JsValue, JsValue> {
        match self.sim.world().describe_quorum() {
            Some(q) => to_js(&q),
            None => Ok(JsValue::NULL),
        }
    }

    pub fn violations(&self) -> Result<JsValue, JsValue> {
        let v: Vec<_> = self.sim.violations().collect();
        to_js(&v)
    }

    /// Every leader change in the events kept in memory, each measured as the leader-crash
    /// story's card measures its failover (`failover::leader_changes`), as JSON.
    #[wasm_bindgen(js_name = leaderChangesJson)]
    pub fn leader_changes_json(&self) -> String {
        let voters = self.sim.world().voters.len() as u32;
        let changes = kraft_sim::kraft::leader_changes(self.sim.trace(), voters);
        serde_json::to_string(&changes).unwrap_or_else(|_| "[]".into())
    }

    // Not called by the package's JS (web/src): only in the full wasm, to keep the core small.
    #[cfg(feature = "scenarios")]
    #[wasm_bindgen(js_name = violationCount)]
    pub fn violation_count(&self) -> u32 {
        self.sim.violation_count() as u32
    }

    /// The trace digest as 16 hex digits.
    pub fn digest(&self) -> String {
        self.sim.digest().hex()
    }

    /// The input log up to now as JSON (what a link carries).
    #[wasm_bindgen(js_name = inputsJson)]
    pub fn inputs_json(&self) -> String {
        serde_json::to_string(self.sim.inputs()).unwrap_or_else(|_| "[]".into())
    }

    /// Recorded inputs beyond now (after a seek back) as JSON.
    #[wasm_bindgen(js_name = futureInputsJson)]
    pub fn future_inputs_json(&self) -> String {
        serde_json::to_string(self.sim.future_inputs()).unwrap_or_else(|_| "[]".into())
    }

    /// `{id, epoch}` of the running leader with the highest epoch, or null.
    pub fn leader(&self) -> Result<JsValue, JsValue> {
        match self.sim.world().leader() {
            Some((id, epoch)) => to_js(&LeaderOut { id, epoch }),
            None => Ok(JsValue::NULL),
        }
    }

    /// Messages on the wire now.
    #[wasm_bindgen(js_name = inFlight)]
    pub fn in_flight(&self) -> Result<JsValue, JsValue> {
        let out: Vec<InFlightOut> = self
            .sim
            .world()
            .in_flight
            .values()
            .map(|m| InFlightOut {
                id: m.id,
                from: m.envelope.from,
                to: m.envelope.to,
                rpc: m.envelope.message.kind(),
                epoch: m.envelope.message.epoch(),
                summary: m.envelope.message.summary().to_string(),
                sent: m.sent,
                arrives: m.arrives,
                duplicate: m.duplicate,
            })
            .collect();
        to_js(&out)
    }

    /// Directed links that are down, as `[from, to]` pairs.
    #[wasm_bindgen(js_name = downLinks)]
    pub fn down_links(&self) -> Result<JsValue, JsValue> {
        to_js(&self.sim.world().network.down_links())
    }

    /// Each link fault in force as JSON: `{groups, isolated, cuts, slowLinks}` (see `LinkFaults`).
    #[wasm_bindgen(js_name = linkFaultsJson)]
    pub fn link_faults_json(&self) -> String {
        serde_json::to_string(&self.sim.world().network.link_faults()).unwrap_or_else(|_| "null".into())
    }

    /// What undoing every fault restores, as JSON (see `BaselineOut`).
    #[wasm_bindgen(js_name = baselineJson)]
    pub fn baseline_json(&self) -> String {
        let spec = self.sim.spec();
        // the spec was checked when the cluster was made, so its network has a profile
        let profile = spec.network.profile().unwrap_or(self.sim.world().network.profile);
        serde_json::to_string(&BaselineOut { network: NetworkOut::from(&profile), flush_ms: spec.flush_ms })
            .unwrap_or_else(|_| "null".into())
    }

    /// The current network profile `{latencyMs: [min, max], loss, duplicate}`.
    pub fn network(&self) -> Result<JsValue, JsValue> {
        to_js(&NetworkOut::from(&self.sim.world().network.profile))
    }

    /// Client writes per second of the running workload.
    #[wasm_bindgen(js_name = writesPerSecond)]
    pub fn writes_per_second(&self) -> u32 {
        self.sim.world().writes_per_second
    }

    /// Bytes this run holds by holder (logs, images, checker, checkpoints' own parts,
    /// events) and the number of checkpoints, for the memory benchmark.
    #[wasm_bindgen(js_name = __memoryUsage)]
    pub fn memory_usage(&self) -> Vec<f64> {
        let m = self.sim.memory();
        let count = self.sim.checkpoint_count();
        [m.logs, m.images, m.checker, m.checkpoints, m.events, count as u64].map(|x| x as f64).to_vec()
    }

    /// Test hook: panics on purpose, so the JS layer's handling of a broken module can
    /// be tested. Never called by the API.
    #[wasm_bindgen(js_name = __panicForTest)]
    pub fn panic_for_test(&self) {
        panic!("deliberate panic for a test");
    }
}

/// Which events' JSON carries `text`: formatting it costs more than the rest of the event.
/// A set of event types, one bit per entry of `EVENT_FIELDS`.
#[derive(Clone, Copy)]
struct TextFor(u32);

impl TextFor {
    /// From the JS layer: absent, every event; else a comma-separated list of event types
    /// (empty: none).
    fn parse(types: Option<String>) -> Result<TextFor, JsValue> {
        let Some(types) = types else { return Ok(TextFor(u32::MAX)) };
        let mut bits = 0;
        for name in types.split(',').filter(|n| !n.is_empty()) {
            let i = EVENT_FIELDS.iter().position(|(n, _)| *n == name).ok_or_else(|| {
                let known: Vec<&str> = EVENT_FIELDS.iter().map(|(n, _)| *n).collect();
                range_error(
                    "text",
                    &format!(
                        "\"{}\" is not an event type; types are {}",
                        kraft_base::messages::cap(name),
                        known.join(", ")
                    ),
                )
            })?;
            bits |= 1 << i;
        }
        Ok(TextFor(bits))
    }

    /// As `parse`, for the packed form: the packed types carry no text, so naming one is
    /// refused.
    fn parse_packed(types: Option<String>) -> Result<TextFor, JsValue> {
        let text = TextFor::parse(types)?;
        if text.0 != u32::MAX {
            if let Some((name, _)) = EVENT_FIELDS.iter().enumerate().find_map(|(i, row)| {
                (text.0 >> i & 1 == 1 && kraft_sim::packed::ROWS.iter().any(|(n, _)| *n == row.0)).then_some(row)
            }) {
                return Err(range_error(
                    "text",
                    &format!("\"{name}\" events are packed, without text; ask for them without `packed` to get it"),
                ));
            }
        }
        Ok(text)
    }

    fn wants(self, kind: &EventKind) -> bool {
        match self.0 {
            0 => false,
            u32::MAX => true,
            bits => EVENT_FIELDS.iter().position(|(n, _)| *n == kind.type_name()).is_some_and(|i| bits >> i & 1 == 1),
        }
    }
}

/// Events as one JSON array, each with or without `text` as `text` says.
struct EventsJson<'a> {
    events: &'a [Event],
    text: TextFor,
}

impl Serialize for EventsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.events.iter().map(|e| EventText { event: e, text: self.text.wants(&e.kind) }))
    }
}

fn events_json(events: &[Event], text: TextFor) -> Result<String, JsValue> {
    serde_json::to_string(&EventsJson { events, text }).map_err(|e| cannot_write(&e))
}

/// A result in the packed form: numbers (`packed::Packed`'s rows, or the lanes') and the
/// rest as JSON (`packed::PackedRest`), read once by the JS layer.
#[wasm_bindgen]
pub struct WasmPacked {
    numbers: Vec<f64>,
    rest: String,
}

#[wasm_bindgen]
impl WasmPacked {
    /// Where the packed events' numbers are in the wasm memory (f64s, aligned), for a
    /// view read before the next call into the core: copying them out into a new array
    /// cost a garbage collection now and then (external memory pressure).
    #[wasm_bindgen(js_name = numbersPtr)]
    pub fn numbers_ptr(&self) -> usize {
        self.numbers.as_ptr() as usize
    }

    /// How many numbers there are at `numbersPtr`.
    #[wasm_bindgen(js_name = numbersLen)]
    pub fn numbers_len(&self) -> usize {
        self.numbers.len()
    }

    /// The JSON of `packed::PackedRest` (moved out: a second call gives none).
    #[wasm_bindgen(js_name = takeRest)]
    pub fn take_rest(&mut self) -> String {
        std::mem::take(&mut self.rest)
    }
}

fn packed(events: &[Event], text: TextFor) -> Result<WasmPacked, JsValue> {
    let p = kraft_sim::packed::pack(events, |k| text.wants(k)).map_err(|e| cannot_write(&e))?;
    Ok(WasmPacked { numbers: p.numbers, rest: p.rest })
}

fn cannot_write(e: &serde_json::Error) -> JsValue {
    js_error(ApiError::other(format!("cannot write JSON: {e}")))
}

/// The one-line text form of events, one per line.
fn lines(events: &[Event]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for e in events {
        let _ = writeln!(out, "{e}");
    }
    out
}

/// Reads a cluster's trace a page at a time, each page continuing where the last one
/// stopped (`Simulation::trace_page`): a whole long run costs one replay, not one per page.
#[wasm_bindgen]
pub struct WasmTraceCursor {
    cursor: TraceCursor,
}

#[wasm_bindgen]
impl WasmSim {
    /// A cursor over the events with seq > `since`.
    #[wasm_bindgen(js_name = traceCursor)]
    pub fn trace_cursor(&self, since: f64) -> Result<WasmTraceCursor, JsValue> {
        Ok(WasmTraceCursor { cursor: self.sim.trace_cursor(whole("since", since)?) })
    }

    /// The cursor's next page of events (at most `limit`; empty at the end).
    // Not called by the package's JS (web/src): only in the full wasm, to keep the core small.
    #[cfg(feature = "scenarios")]
    #[wasm_bindgen(js_name = tracePage)]
    pub fn trace_page(&self, cursor: &mut WasmTraceCursor, limit: u32) -> Result<JsValue, JsValue> {
        to_js(&*self.sim.trace_page(&mut cursor.cursor, limit as usize).map_err(sim_error)?)
    }

    /// The cursor's next page as a JSON array (for writing out: no JS objects are made).
    #[wasm_bindgen(js_name = traceJsonPage)]
    pub fn trace_json_page(&self, cursor: &mut WasmTraceCursor, limit: u32) -> Result<String, JsValue> {
        let page = self.sim.trace_page(&mut cursor.cursor, limit as usize).map_err(sim_error)?;
        // Every event with its text: the JSON of `[Event]`, from the writer `eventsSinceJson`
        // uses (one serializer of event lists in the wasm, not two).
        events_json(&page, TextFor(u32::MAX))
    }

    /// The cursor's next page in the one-line text form, one event per line.
    #[wasm_bindgen(js_name = traceTextPage)]
    pub fn trace_text_page(&self, cursor: &mut WasmTraceCursor, limit: u32) -> Result<String, JsValue> {
        Ok(lines(&self.sim.trace_page(&mut cursor.cursor, limit as usize).map_err(sim_error)?))
    }
}

// ---- module-level helpers -----------------------------------------------------------------

/// A random seed in [0, 2^53) from the platform's secure random source.
#[wasm_bindgen(js_name = randomSeed)]
pub fn random_seed() -> Result<f64, JsValue> {
    hook();
    let v = getrandom::u64().map_err(|e| js_error(ApiError::other(format!("no random source: {e}"))))?;
    Ok((v >> 11) as f64)
}

#[cfg(feature = "scenarios")]
mod engine;
#[cfg(test)]
mod readme;
pub mod wire;
