//! The scenario engine's and the chaos sweep's wasm exports: only in the full wasm
//! (feature `scenarios`), which the package loads when it runs a scenario file or a sweep.

use super::{hook, js_error, parse, range_error, sim_error, whole, WasmSim, MAX_SAFE};
use crate::wire::{ApiError, SeedOut, ViolationOut};
use kraft_protocol::SafetySwitch;
use kraft_scenario::{Report, RunOptions, ScenarioError};
use kraft_sim::chaos::{self, ChaosOptions};
use kraft_sim::input::{self, Read};
use kraft_sim::limits::{CHAOS_SECONDS, OBSERVERS, VOTERS};
use kraft_sim::Simulation;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A result as a plain JS value, built in place by serde-wasm-bindgen: the engine's reports
/// are large nested objects, made once per run, so no JSON text is written and reparsed
/// (the core's `to_js` does that to keep the page's wasm small; the engine loads lazily).
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error(ApiError::other(format!("cannot build the result: {e}"))))
}

// ---- the chaos sweep -----------------------------------------------------------------------

fn chaos_options(seconds: f64, voters: u32, observers: u32, unsafe_json: &str) -> Result<ChaosOptions, JsValue> {
    let seconds_n = whole("seconds", seconds)?;
    CHAOS_SECONDS.check(seconds_n).map_err(|e| range_error("seconds", &e))?;
    let voters = VOTERS.check(voters.into()).map_err(|e| range_error("voters", &e))? as u32;
    let observers = OBSERVERS.check(observers.into()).map_err(|e| range_error("observers", &e))? as u32;
    let unsafe_switches: Vec<SafetySwitch> = parse("unsafe", unsafe_json)?;
    Ok(ChaosOptions { seconds: seconds_n, voters, observers, unsafe_switches, ..ChaosOptions::default() })
}

/// One seed of the chaos sweep (random faults, every invariant checked after every
/// event, then a calm tail that must make progress).
#[wasm_bindgen(js_name = chaosRunSeed)]
pub fn chaos_run_seed(
    seed: f64,
    seconds: f64,
    voters: u32,
    observers: u32,
    unsafe_json: &str,
) -> Result<JsValue, JsValue> {
    hook();
    let seed = whole("seed", seed)?;
    let opts = chaos_options(seconds, voters, observers, unsafe_json)?;
    let o = chaos::run_seed(seed, &opts);
    to_js(&SeedOut {
        seed,
        passed: o.passed(),
        made_progress: o.made_progress,
        violations: o.violations.iter().map(|(i, d)| ViolationOut { invariant: i.name(), detail: d.clone() }).collect(),
        events: o.events,
        simulated_ms: o.simulated_ms,
        reproduce: chaos::repro_command(seed, &opts),
    })
}

/// The trace digest of one chaos run (`chaos::random_run`, one observer) replayed for
/// `seconds`: what `cargo run --example digest` prints natively.
#[wasm_bindgen(js_name = chaosDigest)]
pub fn chaos_digest(seed: f64, seconds: f64, voters: u32) -> Result<String, JsValue> {
    hook();
    let seed = whole("seed", seed)?;
    let opts = chaos_options(seconds, voters, 1, "[]")?;
    let (spec, actions) = chaos::random_run(seed, &opts);
    let sim = Simulation::replay(spec, actions, opts.seconds * 1000).map_err(sim_error)?;
    Ok(sim.digest().hex())
}

// ---- scenarios -----------------------------------------------------------------------------

fn scenario_error(e: ScenarioError) -> JsValue {
    range_error(&e.path, &e.message)
}

/// Options of `runScenario` (JSON): a seed instead of the file's, extra safety switches
/// off, one of the scenario's variants.
struct ScenarioOptions {
    seed: Option<u64>,
    unsafe_switches: Vec<SafetySwitch>,
    variant: Option<String>,
}

impl Read for ScenarioOptions {
    fn read(v: &serde_json::Value, path: &str) -> input::R<ScenarioOptions> {
        let o = input::Obj::new(v, path)?;
        o.only(&["seed", "unsafe", "variant"], &[])?;
        Ok(ScenarioOptions {
            seed: o.opt("seed")?.flatten(),
            unsafe_switches: o.opt("unsafe")?.unwrap_or_default(),
            variant: o.opt("variant")?.flatten(),
        })
    }
}

/// A finished scenario run: its report and its simulation (at the end of the run).
#[wasm_bindgen]
pub struct WasmScenarioRun {
    report: Report,
    sim: Option<Simulation>,
}

/// Runs a scenario (JSON text) to its end with options (JSON of `ScenarioOptions`).
#[wasm_bindgen(js_name = runScenario)]
pub fn run_scenario(text: &str, options_json: &str) -> Result<WasmScenarioRun, JsValue> {
    hook();
    let opts: ScenarioOptions = parse("options", options_json)?;
    if let Some(seed) = opts.seed {
        if seed as f64 > MAX_SAFE {
            return Err(range_error("seed", "must be at most Number.MAX_SAFE_INTEGER"));
        }
    }
    let mut s = kraft_scenario::parse(text).map_err(scenario_error)?;
    if let Some(v) = &opts.variant {
        s = s.variant(v).map_err(scenario_error)?;
    }
    if s.cluster.seed as f64 > MAX_SAFE && opts.seed.is_none() {
        return Err(range_error("cluster.seed", "must be at most 9007199254740991 to run in JavaScript"));
    }
    let run = kraft_scenario::execute(&s, &RunOptions { seed: opts.seed, unsafe_switches: opts.unsafe_switches });
    Ok(WasmScenarioRun { report: run.report, sim: Some(run.simulation) })
}

#[wasm_bindgen]
impl WasmScenarioRun {
    /// The report: steps as they happened, expectations, violations, measurements, the
    /// spec and input log that replay the run, the digest.
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&self.report)
    }

    /// The human summary the CLI prints.
    pub fn summary(&self) -> String {
        self.report.text()
    }

    pub fn passed(&self) -> bool {
        self.report.passed
    }

    /// The run's simulation (once); the JS layer wraps it in a `Cluster`.
    #[wasm_bindgen(js_name = takeSimulation)]
    pub fn take_simulation(&mut self) -> Result<WasmSim, JsValue> {
        self.sim
            .take()
            .map(|sim| WasmSim { sim })
            .ok_or_else(|| js_error(ApiError::other("the simulation was already taken")))
    }
}
