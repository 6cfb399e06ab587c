//! Fuzzing on stable Rust: seeded, coverage-free targets, each case derived from
//! (seed, target, case number) so any finding reproduces with one command.
//!
//! - `scenario`: mutated copies of `scenarios/*.json` and random JSON built from their
//!   vocabulary into `kraft_scenario::parse`: no panic; an error inside an object names a path
//!   that leads into the input; now and
//!   then a short accepted scenario is run (no panic).
//! - `link`: what a share link carries (spec JSON + inputs JSON + time), generated and
//!   mutated, decoded as the wasm `replay` decodes it and replayed: no panic; an error
//!   names its field; a replay with checkpoints and one without give the same digest.
//! - `ops`: random operation lists on a live `Simulation` (every action kind, valid and
//!   not, many at one millisecond, `append.linger.ms` 0 or not, advances, steps, seeks
//!   back and forward, queries): no panic; a refused action changes nothing; the live
//!   digest equals the digest of the replayed input log and of `seek(0); seek(now)`.
//!
//! cargo run --release -p kraft-scenario --example fuzz -- [--seconds S] [--target T]...
//!     [--seed K] [--case N]
//!
//! Runs each target (default: all, one thread each) for S seconds (default 10), prints
//! executions per second and every finding with its reproduction command; exits 1 on a
//! finding. `--case N` runs that one case of each named target and prints its input.

use kraft_base::rng::Rng;
use kraft_protocol::config::CONFIG_KEYS;
use kraft_protocol::{ClientRecord, RecordBody, SafetySwitch};
use kraft_sim::input::{self, Read};
use kraft_sim::spec::LinkProfileSpec;
use kraft_sim::{Action, ClusterSpec, NetworkSpec, Simulation, TimedAction};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Findings printed per target (the count is always reported).
const MAX_FINDINGS_SHOWN: usize = 5;
/// Input text shown per finding.
const MAX_INPUT_SHOWN: usize = 4_000;
/// Link cases replay at most this much simulated time (a link may carry a day; the
/// fuzzer spends its time on many short runs instead).
const LINK_BUDGET_MS: u64 = 30_000;
/// Operation lists stop advancing past this simulated time.
const OPS_BUDGET_MS: u64 = 40_000;
/// Scenarios run when they last at most this long (1 case in `RUN_SCENARIO_EVERY`).
const SCENARIO_RUN_BUDGET_MS: u64 = 60_000;
const RUN_SCENARIO_EVERY: u64 = 8;

// ---- the harness ------------------------------------------------------------------------

/// What went wrong in one case, and the input that shows it.
struct Finding {
    what: String,
    input: String,
}

/// A case's outcome when nothing is wrong: what path it took (`refused`, `replayed`...),
/// tallied so a run shows how deep its inputs got.
type Case = fn(&mut Rng, &Corpus) -> Result<&'static str, Finding>;

struct Target {
    name: &'static str,
    case: Case,
}

const TARGETS: [Target; 3] = [
    Target { name: "scenario", case: scenario_case },
    Target { name: "link", case: link_case },
    Target { name: "ops", case: ops_case },
];

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into an error with its message and location.
fn no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panic".into()))
}

fn case_rng(seed: u64, target: usize, case: u64) -> Rng {
    Rng::fork(seed, ((target as u64 + 1) << 48) ^ case)
}

struct Args {
    seconds: u64,
    seed: u64,
    case: Option<u64>,
    targets: Vec<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { seconds: 10, seed: 1, case: None, targets: Vec::new() };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let num =
            |v: String, name: &str| v.parse::<u64>().map_err(|_| format!("{name} takes a whole number, got '{v}'"));
        match flag.as_str() {
            "--seconds" => a.seconds = num(value("--seconds")?, "--seconds")?,
            "--seed" => a.seed = num(value("--seed")?, "--seed")?,
            "--case" => a.case = Some(num(value("--case")?, "--case")?),
            "--target" => {
                let v = value("--target")?;
                let i = TARGETS.iter().position(|t| t.name == v).ok_or_else(|| {
                    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                    format!("unknown target '{v}'; targets: {}", names.join(", "))
                })?;
                a.targets.push(i);
            }
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown flag '{other}'")),
        }
    }
    if a.seconds > 86_400 {
        return Err(format!("--seconds must be at most 86400, got {}", a.seconds));
    }
    if a.targets.is_empty() {
        a.targets = (0..TARGETS.len()).collect();
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("usage: fuzz [--seconds S] [--target scenario|link|ops]... [--seed K] [--case N]");
            return ExitCode::from(2);
        }
    };
    panic::set_hook(Box::new(|info| PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()))));
    let corpus = Corpus::load();
    if let Some(case) = args.case {
        let mut failed = false;
        for &t in &args.targets {
            let target = &TARGETS[t];
            match (target.case)(&mut case_rng(args.seed, t, case), &corpus) {
                Ok(how) => println!("{} case {case}: ok ({how})", target.name),
                Err(f) => {
                    failed = true;
                    println!("{} case {case}: {}\ninput: {}", target.name, f.what, f.input);
                }
            }
        }
        return if failed { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    let budget = Duration::from_secs(args.seconds);
    type Tally = std::collections::BTreeMap<&'static str, u64>;
    /// One target's run: its index, cases, wall seconds, paths taken and findings.
    type TargetRun = (usize, u64, f64, Tally, Vec<(u64, Finding)>);
    let results: Vec<TargetRun> = std::thread::scope(|s| {
        let handles: Vec<_> = args
            .targets
            .iter()
            .map(|&t| {
                let corpus = &corpus;
                s.spawn(move || {
                    let started = Instant::now();
                    let mut findings = Vec::new();
                    let mut tally = Tally::new();
                    let mut case = 0;
                    while case == 0 || started.elapsed() < budget {
                        match (TARGETS[t].case)(&mut case_rng(args.seed, t, case), corpus) {
                            Ok(how) => *tally.entry(how).or_default() += 1,
                            Err(f) => findings.push((case, f)),
                        }
                        case += 1;
                    }
                    (t, case, started.elapsed().as_secs_f64(), tally, findings)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("fuzz worker")).collect()
    });
    let mut total = 0;
    for (t, cases, wall, tally, findings) in &results {
        let name = TARGETS[*t].name;
        let paths: Vec<String> = tally.iter().map(|(how, n)| format!("{how} {n}")).collect();
        println!(
            "{name}: {cases} executions in {wall:.1} s ({:.0}/s): {}; {} finding(s)",
            *cases as f64 / wall,
            paths.join(", "),
            findings.len()
        );
        for (case, f) in findings.iter().take(MAX_FINDINGS_SHOWN) {
            println!(
                "  {name} case {case}: {}\n    reproduce: cargo run --release -p kraft-scenario --example fuzz -- --target {name} --seed {} --case {case}",
                f.what, args.seed
            );
        }
        total += findings.len();
    }
    if total > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

// ---- random and mutated JSON ------------------------------------------------------------

/// The seeds of the scenario target and the words random JSON is built from.
struct Corpus {
    scenarios: Vec<Value>,
    /// Every object key and short string of the scenario files, plus the link's fields.
    words: Vec<String>,
}

impl Corpus {
    fn load() -> Corpus {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("scenarios/ exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "json").unwrap_or(false) && !p.ends_with("schema.json"))
            .collect();
        files.sort();
        let scenarios: Vec<Value> = files
            .iter()
            .map(|p| serde_json::from_str(&std::fs::read_to_string(p).expect("readable")).expect("scenario JSON"))
            .collect();
        let mut words = std::collections::BTreeSet::new();
        fn collect(v: &Value, words: &mut std::collections::BTreeSet<String>) {
            match v {
                Value::Object(m) => {
                    for (k, v) in m {
                        words.insert(k.clone());
                        collect(v, words);
                    }
                }
                Value::Array(a) => a.iter().for_each(|v| collect(v, words)),
                Value::String(s) if s.len() <= 40 => {
                    words.insert(s.clone());
                }
                _ => {}
            }
        }
        scenarios.iter().for_each(|s| collect(s, &mut words));
        for w in ["spec", "inputs", "t", "v", "action", "unsafe", "latencyMs", "seed", "network"] {
            words.insert(w.into());
        }
        CONFIG_KEYS.iter().for_each(|k| {
            words.insert(k.limit.key.to_string());
        });
        SafetySwitch::ALL.iter().for_each(|s| {
            words.insert(s.name().to_string());
        });
        Corpus { scenarios, words: words.into_iter().collect() }
    }

    fn word(&self, rng: &mut Rng) -> String {
        self.words[rng.below(self.words.len() as u64) as usize].clone()
    }
}

fn pick<T: Clone>(rng: &mut Rng, options: &[T]) -> T {
    options[rng.below(options.len() as u64) as usize].clone()
}

/// Numbers parsers get wrong: the edges of every integer width and of our limits, JS's
/// exact-integer limit and just past it, negative numbers, fractions, huge floats.
fn edge_number(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => Value::from(pick(
            rng,
            &[
                0u64,
                1,
                2,
                7,
                8,
                9,
                15,
                16,
                255,
                256,
                1000,
                1001,
                60_000,
                60_001,
                600_000,
                600_001,
                86_400_000,
                86_400_001,
                u32::MAX as u64,
                u32::MAX as u64 + 1,
                9_007_199_254_740_991,
                9_007_199_254_740_993,
                u64::MAX,
            ],
        )),
        1 => Value::from(pick(rng, &[-1i64, -2, i64::MIN, -9_007_199_254_740_993])),
        2 => serde_json::Number::from_f64(pick(rng, &[0.5, -0.0, 1e308, -1e308, 1e-300, 2.5, 0.999_999_9]))
            .map(Value::Number)
            .unwrap_or(Value::Null),
        _ => Value::from(rng.below(100)),
    }
}

fn random_scalar(rng: &mut Rng, corpus: &Corpus) -> Value {
    match rng.below(7) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 | 3 => edge_number(rng),
        4 | 5 => Value::String(corpus.word(rng)),
        _ => {
            let s: String =
                (0..rng.range(0, 12)).map(|_| pick(rng, &['a', '-', ' ', '*', '`', 'é', '\u{0}', '"'])).collect();
            Value::String(s)
        }
    }
}

fn random_value(rng: &mut Rng, corpus: &Corpus, depth: u32) -> Value {
    if depth == 0 || rng.below(3) == 0 {
        return random_scalar(rng, corpus);
    }
    if rng.below(2) == 0 {
        Value::Array((0..rng.range(0, 4)).map(|_| random_value(rng, corpus, depth - 1)).collect())
    } else {
        let mut m = Map::new();
        for _ in 0..rng.range(0, 5) {
            m.insert(corpus.word(rng), random_value(rng, corpus, depth - 1));
        }
        Value::Object(m)
    }
}

/// One structural change somewhere in `v`: a value replaced, a key removed or added,
/// an element duplicated or removed, a value wrapped in deep nesting.
fn mutate(v: &mut Value, rng: &mut Rng, corpus: &Corpus) {
    // Walk down to a random node.
    let children = match v {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    };
    if children > 0 && rng.below(4) != 0 {
        let i = rng.below(children as u64) as usize;
        match v {
            Value::Object(m) => {
                let child = m.values_mut().nth(i).expect("in range");
                return mutate(child, rng, corpus);
            }
            Value::Array(a) => return mutate(&mut a[i], rng, corpus),
            _ => unreachable!("has children"),
        }
    }
    match (rng.below(8), v) {
        (0, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(rng.below(m.len() as u64) as usize).expect("in range").clone();
            m.remove(&k);
        }
        (1, Value::Object(m)) => {
            m.insert(corpus.word(rng), random_value(rng, corpus, 2));
        }
        (2, Value::Array(a)) if !a.is_empty() => {
            let i = rng.below(a.len() as u64) as usize;
            let dup = a[i].clone();
            a.insert(i, dup);
        }
        (3, Value::Array(a)) if !a.is_empty() => {
            a.remove(rng.below(a.len() as u64) as usize);
        }
        (4, v) => {
            let mut deep = std::mem::take(v);
            for _ in 0..rng.range(1, 200) {
                deep = Value::Array(vec![deep]);
            }
            *v = deep;
        }
        (5, v) => *v = edge_number(rng),
        (_, v) => *v = random_value(rng, corpus, 2),
    }
}

/// Character-level damage to JSON text: a cut, a dropped or inserted character.
fn damage(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.range(1, 4) {
        let i = rng.below(chars.len() as u64 + 1) as usize;
        match rng.below(3) {
            0 => chars.truncate(i),
            1 if i < chars.len() => {
                chars.remove(i);
            }
            _ => chars.insert(i, pick(rng, &['{', '}', '[', ']', '"', ',', ':', '\\', '0', '-', 'e', '\u{fffd}'])),
        }
    }
    chars.into_iter().collect()
}

fn shown(text: &str) -> String {
    if text.len() <= MAX_INPUT_SHOWN {
        return text.to_string();
    }
    let mut end = MAX_INPUT_SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len())
}

// ---- target: the scenario parser --------------------------------------------------------

fn scenario_case(rng: &mut Rng, corpus: &Corpus) -> Result<&'static str, Finding> {
    let text = match rng.below(10) {
        0..=6 => {
            let mut v = pick(rng, &corpus.scenarios);
            for _ in 0..rng.range(1, 6) {
                mutate(&mut v, rng, corpus);
            }
            v.to_string()
        }
        7 | 8 => random_value(rng, corpus, 5).to_string(),
        _ => damage(&pick(rng, &corpus.scenarios).to_string(), rng),
    };
    let fail = |what: String| Finding { what, input: shown(&text) };
    let parsed = no_panic(|| kraft_scenario::parse(&text)).map_err(|p| fail(format!("parse panicked: {p}")))?;
    match parsed {
        Err(e) => {
            let root: Option<Value> = serde_json::from_str(&text).ok();
            if let Some(root @ Value::Object(_)) = &root {
                if e.path.is_empty() {
                    return Err(fail(format!("an error inside the scenario object names no path: {e}")));
                }
                if !path_leads_into(root, &e.path) {
                    return Err(fail(format!("error path '{}' does not lead into the input: {e}", e.path)));
                }
            }
            Ok("refused")
        }
        Ok(s) => {
            if rng.below(RUN_SCENARIO_EVERY) == 0 && s.duration_ms <= SCENARIO_RUN_BUDGET_MS {
                no_panic(|| kraft_scenario::run(&s, &kraft_scenario::RunOptions::default()))
                    .map_err(|p| fail(format!("running the accepted scenario panicked: {p}")))?;
                return Ok("accepted and run");
            }
            Ok("accepted")
        }
    }
}

/// Does an error path (`steps[3].node`, `cluster.config.controller.quorum.x`) lead into
/// `root`? Every part but the last must exist (the last may be a missing field).
fn path_leads_into(root: &Value, path: &str) -> bool {
    let mut parts: Vec<String> = Vec::new();
    for dotted in path.split('.') {
        let mut rest = dotted;
        if let Some(i) = rest.find('[') {
            if i > 0 {
                parts.push(rest[..i].to_string());
            }
            rest = &rest[i..];
            while let Some(end) = rest.find(']') {
                parts.push(rest[..=end].to_string());
                rest = &rest[end + 1..];
            }
        } else {
            parts.push(rest.to_string());
        }
    }
    fn walk(v: &Value, parts: &[String]) -> bool {
        if parts.len() <= 1 {
            return true;
        }
        match v {
            Value::Array(a) => {
                let i = parts[0].trim_start_matches('[').trim_end_matches(']').parse::<usize>().ok();
                i.and_then(|i| a.get(i)).map(|c| walk(c, &parts[1..])).unwrap_or(false)
            }
            // Keys may hold dots (config keys): try the longest joined key first.
            Value::Object(m) => (1..=parts.len()).rev().any(|n| {
                m.get(&parts[..n].join(".")).map(|c| n == parts.len() || walk(c, &parts[n..])).unwrap_or(false)
            }),
            _ => false,
        }
    }
    walk(root, &parts)
}

// ---- target: the link decoder -----------------------------------------------------------

/// Decodes JSON the way the wasm surface does (`kraft_sim::input`): Err is the path.
fn decode<T: Read>(json: &str) -> Result<T, String> {
    input::from_json(json, "").map_err(|e| e.path)
}

fn link_case(rng: &mut Rng, corpus: &Corpus) -> Result<&'static str, Finding> {
    let spec = random_spec(rng);
    let nodes = spec.voters + spec.observers;
    let mut t = 0;
    let mut inputs = Vec::new();
    let wild = rng.below(5) == 0;
    for _ in 0..rng.range(0, 30) {
        t += pick(rng, &[0, 0, 1, 10, 300, 2000]);
        inputs.push(TimedAction { t, action: random_action(rng, nodes.max(1), wild) });
    }
    let until = t + pick(rng, &[0, 1, 500, 5000]);
    let mut spec_v = serde_json::to_value(&spec).expect("a spec serializes");
    let mut inputs_v = serde_json::to_value(&inputs).expect("actions serialize");
    let mut until_v = Value::from(until);
    for _ in 0..pick(rng, &[0, 0, 0, 1, 1, 2, 3]) {
        match rng.below(5) {
            0 | 1 => mutate(&mut spec_v, rng, corpus),
            2 | 3 => mutate(&mut inputs_v, rng, corpus),
            _ => until_v = edge_number(rng),
        }
    }
    let (mut spec_text, mut inputs_text) = (spec_v.to_string(), inputs_v.to_string());
    if rng.below(10) == 0 {
        spec_text = damage(&spec_text, rng);
    }
    if rng.below(10) == 0 {
        inputs_text = damage(&inputs_text, rng);
    }
    let input = format!("spec {spec_text}\ninputs {inputs_text}\nt {until_v}");
    let fail = |what: String| Finding { what, input: shown(&input) };
    let decoded = no_panic(|| (decode::<ClusterSpec>(&spec_text), decode::<Vec<TimedAction>>(&inputs_text)))
        .map_err(|p| fail(format!("decoding panicked: {p}")))?;
    let (Ok(spec), Ok(inputs)) = decoded else { return Ok("refused by decoding") };
    let Some(until) = until_v.as_u64() else { return Ok("refused by decoding") };
    // Links replay up to their own time; the page refuses inputs after it.
    if until > LINK_BUDGET_MS || inputs.iter().any(|i| i.t > until) {
        return Ok("over the fuzz budget");
    }
    let replayed = no_panic(|| Simulation::replay(spec.clone(), inputs.clone(), until))
        .map_err(|p| fail(format!("replay panicked: {p}")))?;
    match replayed {
        Err(e) if e.field.is_empty() => Err(fail(format!("replay refused the link without naming a field: {e}"))),
        Err(_) => Ok("refused by replay"),
        Ok(sim) => {
            let once = no_panic(|| Simulation::replay_once(spec, inputs, until).map(|s| s.digest()))
                .map_err(|p| fail(format!("replay without checkpoints panicked: {p}")))?;
            if once != Ok(sim.digest()) {
                return Err(fail("replays with and without checkpoints differ".into()));
            }
            if sim.now() != until {
                return Err(fail(format!("replay to {until} stopped at {}", sim.now())));
            }
            Ok("replayed")
        }
    }
}

// ---- random specs and actions ------------------------------------------------------------

/// A random cluster; one in five breaks one field (a refusal must name it).
fn random_spec(rng: &mut Rng) -> ClusterSpec {
    let mut spec = ClusterSpec {
        voters: rng.range(1, 7) as u32,
        observers: rng.range(0, 3) as u32,
        seed: rng.next_u64() >> rng.below(64),
        network: match rng.below(5) {
            0 => NetworkSpec::Preset("teaching".into()),
            1 => NetworkSpec::Preset("wan".into()),
            2 => {
                let lo = rng.range(1, 50);
                NetworkSpec::Profile(LinkProfileSpec {
                    latency_ms: [lo, rng.range(lo, 200)],
                    loss: rng.below(30) as f64 / 100.0,
                    duplicate: rng.below(5) as f64 / 100.0,
                })
            }
            _ => NetworkSpec::Preset("datacenter".into()),
        },
        flush_ms: pick(rng, &[0, 1, 5, 50]),
        snapshot_interval: pick(rng, &[0, 10, 50, 1000]),
        writes_per_second: pick(rng, &[0, 0, 10, 100, 1000]),
        stable_leadership: rng.below(4) == 0,
        ..ClusterSpec::default()
    };
    if rng.below(2) == 0 {
        spec.config.insert("controller.quorum.append.linger.ms".into(), 0);
    }
    for _ in 0..rng.range(0, 2) {
        let key = pick(rng, &CONFIG_KEYS).limit.key;
        spec.config.insert(key.into(), pick(rng, &[10, 50, 500, 5000]));
    }
    for s in SafetySwitch::ALL {
        if rng.below(8) == 0 {
            spec.unsafe_switches.push(s);
        }
    }
    if rng.below(5) == 0 {
        match rng.below(9) {
            0 => spec.voters = pick(rng, &[0, 8]),
            1 => spec.observers = 9,
            7 => spec.network = NetworkSpec::Profile(LinkProfileSpec { latency_ms: [0, 0], loss: 0.0, duplicate: 0.0 }),
            2 => spec.network = NetworkSpec::Preset("nowhere".into()),
            3 => spec.flush_ms = 60_001,
            4 => spec.writes_per_second = 1001,
            5 => spec.snapshot_interval = 5,
            6 => {
                let key = pick(rng, &CONFIG_KEYS).limit.key;
                spec.config.insert(key.into(), pick(rng, &[0, 700_000]));
            }
            _ => {
                spec.config.insert("controller.quorum.nonsense.ms".into(), 1);
            }
        }
    }
    spec
}

/// A client write's record, or none (the workload picks one); `wild` ones may be invalid.
fn random_record(rng: &mut Rng, wild: bool) -> Option<RecordBody> {
    let names = ["t", "topic-1", "a.b_c-d", "", "bad name", "ü"];
    let name: Arc<str> = Arc::from(pick(rng, &names[..if wild { 6 } else { 3 }]));
    let partitions = [1, 3, 100, 0, 10_001];
    match rng.below(if wild { 8 } else { 7 }) {
        0 => Some(RecordBody::Client(ClientRecord::CreateTopic {
            name,
            partitions: pick(rng, &partitions[..if wild { 5 } else { 3 }]),
        })),
        1 => Some(RecordBody::Client(ClientRecord::DeleteTopic { name })),
        2 => Some(RecordBody::Client(ClientRecord::PartitionChange {
            topic: name,
            partition: rng.below(4) as u32,
            leader: 1,
        })),
        3 => Some(RecordBody::Client(ClientRecord::RegisterBroker { broker_id: rng.below(10) as u32 })),
        4 => Some(RecordBody::Client(ClientRecord::UnregisterBroker { broker_id: rng.below(10) as u32 })),
        7 => Some(RecordBody::leader_change(0, vec![0], vec![])),
        _ => None,
    }
}

/// Any action; when `wild`, now and then with a node that does not exist or a value out
/// of range (zero latency among them: refused since the minimum link latency).
fn random_action(rng: &mut Rng, nodes: u32, wild: bool) -> Action {
    let wild = if wild { 12 } else { u64::MAX };
    let mut node = || if rng.below(wild) == 0 { nodes + rng.below(3) as u32 } else { rng.below(nodes as u64) as u32 };
    let (a, mut b, mut c) = (node(), node(), node());
    if wild != 12 {
        // Valid links join two nodes; valid partitions name each node once.
        if b == a {
            b = (a + 1) % nodes;
        }
        if c == a || c == b {
            c = a;
        }
    }
    let latency = |rng: &mut Rng| {
        let lo = rng.range(1, 300);
        if rng.below(wild) == 0 {
            pick(rng, &[[lo + 1, lo], [1, 60_001], [0, 0], [0, lo]])
        } else {
            [lo, rng.range(lo, 1000)]
        }
    };
    let rate = |rng: &mut Rng| {
        if rng.below(wild) == 0 {
            pick(rng, &[1.5, -0.1, f64::NAN, f64::INFINITY])
        } else {
            rng.below(40) as f64 / 100.0
        }
    };
    match rng.below(15) {
        0 | 1 => Action::Crash { node: a },
        2 => Action::Wipe { node: a },
        3 | 4 => Action::Restart { node: a },
        5 => Action::Isolate { node: a },
        6 => {
            let groups = match rng.below(if wild == 12 { 6 } else { 4 }) {
                4 => vec![vec![a], vec![]],
                5 => vec![vec![a, a]],
                _ => vec![vec![a], vec![b, c].into_iter().filter(|n| *n != a).collect()],
            };
            let keep_empty = wild == 12 && rng.below(4) == 0;
            let groups: Vec<Vec<u32>> = groups.into_iter().filter(|g| !g.is_empty() || keep_empty).collect();
            Action::Partition { groups }
        }
        7 => Action::Cut { from: a, to: b },
        8 => match rng.below(4) {
            0 => Action::Reconnect { node: a },
            1 => Action::HealPartition,
            2 => Action::ClearSlowLink { from: a, to: b },
            _ => Action::Uncut { from: a, to: b },
        },
        9 => Action::SlowLink { from: a, to: b, latency_ms: latency(rng) },
        10 => Action::Heal,
        11 => Action::Network { latency_ms: latency(rng), loss: rate(rng), duplicate: rate(rng) },
        12 => Action::SlowDisk {
            node: a,
            flush_ms: pick(rng, &[0, 1, 30, 400, 60_001][..if wild == 12 { 5 } else { 4 }]),
        },
        13 => {
            if rng.below(2) == 0 {
                Action::Resign
            } else {
                Action::Workload {
                    writes_per_second: pick(rng, &[0, 1, 50, 1000, 1001][..if wild == 12 { 5 } else { 4 }]),
                }
            }
        }
        _ => Action::Write { record: random_record(rng, wild == 12) },
    }
}

// ---- target: operation sequences ---------------------------------------------------------

/// One operation on a live simulation. Times and sequence numbers are drawn as raw
/// numbers and fitted to the run when applied, so a list stays meaningful when the
/// shrinker removes operations from it.
#[derive(Clone, Debug)]
enum Op {
    Advance(u64),
    Step,
    /// Back to `x % (now + 1)`, or forward to `now + x % 2000`.
    Seek {
        back: bool,
        x: u64,
    },
    /// Reads the trace, the views and a log (none of which may change the run).
    Query {
        since: u64,
        from: u64,
        to: u64,
        node: u32,
        log_from: Option<u64>,
    },
    Act(Action),
}

fn ops_case(rng: &mut Rng, _corpus: &Corpus) -> Result<&'static str, Finding> {
    let spec = random_spec(rng);
    let nodes = spec.voters + spec.observers;
    let ops: Vec<Op> = (0..rng.range(1, 60))
        .map(|_| match rng.below(20) {
            0..=4 => Op::Advance(pick(rng, &[0, 1, 2, 7, 50, 300, 1000, 4000])),
            5 => Op::Step,
            6 | 7 => Op::Seek { back: rng.below(2) == 0, x: rng.next_u64() },
            8 => Op::Query {
                since: rng.next_u64(),
                from: rng.next_u64(),
                to: rng.next_u64(),
                node: rng.below(nodes.max(1) as u64) as u32,
                log_from: if rng.below(2) == 0 { None } else { Some(rng.below(50)) },
            },
            _ => {
                let wild = rng.below(4) == 0;
                Op::Act(random_action(rng, nodes.max(1), wild))
            }
        })
        .collect();
    run_ops(&spec, &ops).map_err(|what| {
        // Shrink: drop operations one at a time while the same kind of failure remains.
        let kind = |w: &str| w.split([':', '(']).next().unwrap_or("").to_string();
        let mut ops = ops.clone();
        let mut i = 0;
        while i < ops.len() {
            let mut fewer = ops.clone();
            fewer.remove(i);
            match run_ops(&spec, &fewer) {
                Err(w) if kind(&w) == kind(&what) => ops = fewer,
                _ => i += 1,
            }
        }
        let mut lines = vec![format!("spec {}", serde_json::to_string(&spec).expect("a spec serializes"))];
        lines.extend(ops.iter().map(|op| match op {
            Op::Act(a) => format!("act {}", serde_json::to_string(a).unwrap_or_else(|_| format!("{a:?}"))),
            other => format!("{other:?}"),
        }));
        Finding { what, input: shown(&format!("(shrunk to {} operations)\n{}", ops.len(), lines.join("\n"))) }
    })
}

/// Applies `ops` to a new simulation of `spec` and checks the replay properties.
fn run_ops(spec: &ClusterSpec, ops: &[Op]) -> Result<&'static str, String> {
    let created = no_panic(|| Simulation::new(spec.clone())).map_err(|p| format!("new panicked: {p}"))?;
    let mut sim = match created {
        Ok(sim) => sim,
        Err(e) if e.field.is_empty() => return Err(format!("a refused spec names no field: {e}")),
        Err(_) => return Ok("spec refused"),
    };
    for op in ops {
        let now = sim.now();
        match op {
            Op::Advance(ms) if now < OPS_BUDGET_MS => {
                no_panic(|| sim.advance(*ms))?.map_err(|e| format!("advance refused: {e}"))?;
            }
            Op::Advance(_) => {}
            Op::Step => {
                no_panic(|| sim.step())?.map_err(|e| format!("step refused: {e}"))?;
            }
            Op::Seek { back, x } => {
                let t = if *back { x % (now + 1) } else { (now + x % 2000).min(OPS_BUDGET_MS + 5000) };
                no_panic(|| sim.seek(t))?.map_err(|e| format!("seek refused: {e}"))?;
            }
            Op::Query { since, from, to, node, log_from } => {
                let digest = sim.digest();
                no_panic(|| {
                    let _ = sim.events_since(since % (sim.last_seq() + 2)).len();
                    let _ = sim.events_between(from % (now + 1), to % (now + 2000)).len();
                    let _ = sim.world().node_views();
                    let _ = sim.world().describe_quorum();
                    // `log(id, { from })` without a limit reads with usize::MAX.
                    let _ = sim.world().log_view(*node, *log_from, if since % 2 == 0 { usize::MAX } else { 1000 });
                })?;
                if sim.digest() != digest {
                    return Err("a query changed the run".into());
                }
            }
            Op::Act(action) => {
                let before = (sim.digest(), sim.now(), sim.inputs().len(), sim.last_seq());
                match no_panic(|| sim.act(action.clone()))? {
                    Ok(_) => {}
                    Err(_) if (sim.digest(), sim.now(), sim.inputs().len(), sim.last_seq()) != before => {
                        return Err("a refused action changed the run".into());
                    }
                    Err(e) if e.field.is_empty() => return Err(format!("a refused action names no field: {e}")),
                    Err(_) => {}
                }
            }
        }
    }
    let (digest, now) = (sim.digest(), sim.now());
    let inputs = sim.inputs().to_vec();
    let replayed = no_panic(|| Simulation::replay(spec.clone(), inputs, now).map(|s| s.digest()))
        .map_err(|p| format!("replay panicked: {p}"))?;
    if replayed != Ok(digest) {
        return Err(format!("the replayed input log gives another run ({replayed:?}, live {digest:?})"));
    }
    no_panic(|| {
        sim.seek(0).expect("seek to the start");
        sim.seek(now).expect("seek back to now");
    })
    .map_err(|p| format!("seek panicked: {p}"))?;
    if sim.digest() != digest {
        return Err("seek(0); seek(now) gives another run".into());
    }
    Ok("replayed")
}
