/**
 * `Cluster`: one simulated KRaft quorum, scripted from JavaScript.
 * @module
 */
import * as check from './check.js';
import { CoreFailure, CORE_CRASHED as CRASHED, describeFailure, type EngineGlue, type Glue, isInternalFailure, type WasmPacked, type WasmSim, withCore, withEngine } from './core.js';
import { CATALOG, type PackedRest } from './generated/wire.js';
import { type LaneWindow, readLanes } from './lanes.js';
import { links, loadLinks } from './links.js';
import { type PackedBatch, unpack } from './packed.js';
import type {
  Action,
  Baseline,
  Catalog,
  ClusterOptions,
  EventQuery,
  InFlightMessage,
  LeaderChange,
  LeaderInfo,
  LinkFaults,
  LogRecord,
  MetadataImageInfo,
  NetworkProfile,
  NetworkState,
  NodeInfo,
  PackedEventQuery,
  PackedTraceEvent,
  QuorumDescription,
  RunUntilOptions,
  SafetySwitch,
  ScenarioOptions,
  ScenarioReport,
  TimedAction,
  TraceEvent,
  TraceEventMaybeText,
  ViolationEvent,
  WritableRecord,
  WriteResult,
} from './types.js';
import { catalog, init, initCore, initEngine, limit, retire, type WasmSource } from './wasm.js';

/**
 * Longest single advance/seek step the core allows: a day of simulated time (the core's
 * limit `advanceMs`, which the calls read from the catalog; this copy is for importers).
 */
export const MAX_ADVANCE_MS = 86_400_000;
const U32 = check.U32;

/** Which events carry `text` as the core takes it (`EventQuery.text`): all, none, or a list of types. */
function textTypes(text: unknown): string | undefined {
  if (text === undefined || text === true) return undefined;
  if (text === false) return '';
  const types = check.array(text, 'text');
  return types.map((t, i) => check.string(t, `text[${i}]`)).join(',');
}

const OPTION_NAMES = ['voters', 'observers', 'seed', 'network', 'config', 'unsafe', 'flushMs', 'snapshotInterval', 'writesPerSecond', 'stableLeadership', 'kafkaRelease', 'quorum'] as const;

/** The JSON the core gets (a `ClusterSpec`): only what was given, plus voters and seed. */
type Spec = Record<string, unknown> & { voters: number; seed: number; observers?: number };

function normaliseNetwork(v: unknown, what: string): string | NetworkState {
  if (typeof v === 'string') {
    return check.oneOf(
      v,
      catalog().presets.map((p) => p.name),
      what,
    );
  }
  if (!check.isPlainObject(v)) {
    throw new TypeError(
      `${what} must be a preset name (${catalog()
        .presets.map((p) => p.name)
        .join(', ')}) or { latencyMs, loss, duplicate }, got ${check.show(v)}`,
    );
  }
  check.keys(v, ['latencyMs', 'loss', 'duplicate'], `${what} field`);
  if (v.latencyMs === undefined) throw new TypeError(`${what}.latencyMs is required`);
  return {
    latencyMs: latency(v.latencyMs, `${what}.latencyMs`),
    loss: v.loss === undefined ? 0 : check.probability(v.loss, `${what}.loss`),
    duplicate: v.duplicate === undefined ? 0 : check.probability(v.duplicate, `${what}.duplicate`),
  };
}

/** A latency: whole ms, or a `[min, max]` pair (the core checks the range, `latencyMs`). */
function latency(v: unknown, what: string): [number, number] {
  if (typeof v === 'number') {
    const ms = check.duration(v, what);
    return [ms, ms];
  }
  if (!Array.isArray(v) || v.length !== 2) {
    throw new TypeError(`${what} must be a number of ms or a [min, max] pair, got ${check.show(v)}`);
  }
  return [check.duration(v[0], `${what}[0]`), check.duration(v[1], `${what}[1]`)];
}

function normaliseSwitches(v: unknown, what: string): SafetySwitch[] {
  const names = catalog().switches.map((s) => s.name);
  const list = check.array(v, what);
  const out: SafetySwitch[] = [];
  list.forEach((s, i) => {
    const name = check.oneOf(s, names, `${what}[${i}] (a safety switch)`);
    if (!out.includes(name)) out.push(name);
  });
  return out;
}

/** Checks `Cluster.create` options and turns them into the core's spec. */
function normaliseOptions(options: unknown, what: string, seed?: number): Spec {
  const o = check.object(options ?? {}, what);
  check.keys(o, OPTION_NAMES, `option in ${what}`);
  const cat = catalog();
  // The core checks every range against its limits; JS checks only that each number is one.
  const spec: Spec = {
    voters: o.voters === undefined ? (limit('voters').default as number) : check.whole(o.voters, 'voters', 0, U32),
    seed: 0,
  };
  if (o.observers !== undefined) spec.observers = check.whole(o.observers, 'observers', 0, U32);
  if (o.seed !== undefined) {
    if (typeof o.seed === 'bigint') {
      throw new TypeError('seed must be a number (a safe integer), not a bigint');
    }
    spec.seed = check.whole(o.seed, 'seed');
  } else {
    spec.seed = seed ?? (withCore((G) => G.randomSeed()) as number);
  }
  if (o.network !== undefined) spec.network = normaliseNetwork(o.network, 'network');
  if (o.config !== undefined) {
    const c = check.object(o.config, 'config');
    const known = cat.configKeys.map((k) => k.key);
    const config: Record<string, number> = {};
    for (const [k, val] of Object.entries(c)) {
      if (!(known as string[]).includes(k)) {
        throw new TypeError(`unknown config key '${check.cap(k)}'; known keys: ${known.join(', ')}`);
      }
      config[k] = check.whole(val, `config['${k}']`);
    }
    spec.config = config;
  }
  if (o.unsafe !== undefined) spec.unsafe = normaliseSwitches(o.unsafe, 'unsafe');
  if (o.flushMs !== undefined) spec.flushMs = check.duration(o.flushMs, 'flushMs');
  if (o.snapshotInterval !== undefined) spec.snapshotInterval = check.whole(o.snapshotInterval, 'snapshotInterval');
  if (o.writesPerSecond !== undefined) spec.writesPerSecond = check.whole(o.writesPerSecond, 'writesPerSecond', 0, U32);
  if (o.stableLeadership !== undefined) spec.stableLeadership = check.boolean(o.stableLeadership, 'stableLeadership');
  if (o.kafkaRelease !== undefined) {
    spec.kafkaRelease = check.oneOf(
      o.kafkaRelease,
      cat.releases.map((r) => r.name),
      'kafkaRelease',
    );
  }
  if (o.quorum !== undefined) spec.quorum = check.oneOf(o.quorum, ['static', 'dynamic'] as const, 'quorum');
  return spec;
}

function checkRecord(v: unknown): WritableRecord {
  const r = check.object(v, 'record');
  const kinds = ['RegisterBroker', 'UnregisterBroker', 'CreateTopic', 'DeleteTopic', 'PartitionChange'] as const;
  if (r.type === 'LeaderChange') {
    throw new RangeError(`record.type LeaderChange is a control record only a new leader writes; writable types: ${kinds.join(', ')}`);
  }
  const type = check.oneOf(r.type, kinds, 'record.type');
  const fields: Record<(typeof kinds)[number], string[]> = {
    RegisterBroker: ['brokerId'],
    UnregisterBroker: ['brokerId'],
    CreateTopic: ['name', 'partitions'],
    DeleteTopic: ['name'],
    PartitionChange: ['topic', 'partition', 'leader'],
  };
  check.keys(r, ['type', ...fields[type]], `field of a ${type} record`);
  for (const f of fields[type]) {
    if (r[f] === undefined) throw new TypeError(`record.${f} is required for a ${type} record`);
    if (f === 'name' || f === 'topic') {
      const s = check.string(r[f], `record.${f}`);
      if (!/^[A-Za-z0-9._-]{1,249}$/.test(s)) {
        throw new RangeError(`record.${f} '${check.cap(s)}' is invalid: use 1-249 characters of [a-zA-Z0-9._-]`);
      }
    } else {
      check.whole(r[f], `record.${f}`, 0, U32);
    }
  }
  return r as unknown as WritableRecord;
}

/** runUntil checks at one moment, without simulated time moving, before it gives up. */
const MAX_RUN_UNTIL_STILL_CHECKS = 1000;

/**
 * One simulated KRaft quorum: voters `0..voters-1`, observers after them. Everything
 * that happens is a typed trace event; the run is fully described by its options, its
 * seed and its input log (the actions you take, with their simulated times), so the
 * same description always gives the same trace (see {@link Cluster.digest} and
 * {@link Cluster.toLink}).
 *
 * Bad arguments throw a `TypeError` (wrong type or shape), a `RangeError` (out of
 * range, unknown node) or an `Error`, and leave the cluster unchanged.
 *
 * @example
 * ```js
 * const c = await Cluster.create({ voters: 3, observers: 2, seed: 42 });
 * c.runUntil(() => c.leader() !== null, { timeoutMs: 10_000 });
 * const { id } = c.leader();
 * c.crash(id).advance(5_000);
 * console.log(c.leader(), c.describeQuorum().status);
 * ```
 */
export class Cluster {
  /** Null once disposed or broken, so a retired wasm instance can be collected. */
  #sim: WasmSim | null;
  /** The wasm instance this cluster lives in (retired if it traps). */
  #glue: Glue | null;
  readonly #spec: Spec;
  readonly #voters: number;
  readonly #observers: number;
  #broken: string | null = null;
  #disposed = false;
  /** Every recorded action, the recorded future included (a copy of the core's input log,
   * kept here so a link to the run can still be made after the core crashed). */
  readonly #journal: TimedAction[];
  /** The last moment the core was known good: its time and how many actions it had applied. */
  #good: { t: number; count: number };
  /** Told after every call that moves time or changes the input log (`__watch`). */
  #watcher: (() => void) | null = null;

  private constructor(sim: WasmSim, spec: Spec, glue: Glue) {
    this.#sim = sim;
    this.#glue = glue;
    this.#spec = spec;
    this.#voters = sim.voters();
    this.#observers = sim.nodeCount() - this.#voters;
    this.#journal = [...JSON.parse(sim.inputsJson()), ...JSON.parse(sim.futureInputsJson())] as TimedAction[];
    this.#good = { t: sim.now(), count: sim.inputCount() };
  }

  /**
   * Creates a cluster (loading the wasm core on first use).
   * @param options voters (1-7, default 3), observers (0-8, default 0), seed (default: random),
   *   network (preset or profile), config (Kafka `controller.quorum.*` keys), unsafe (safety
   *   switches to turn off), and more; see {@link ClusterOptions}.
   */
  static async create(options: ClusterOptions = {}): Promise<Cluster> {
    await init();
    return Cluster.createSync(options);
  }

  /**
   * @internal Loads the core alone, without the share-link codec that {@link init} loads
   * beside it: what the element's first frame waits for (the codec comes after that frame).
   */
  static __initCore(source?: WasmSource): Promise<void> {
    return initCore(source);
  }

  /** @internal Loads the share-link codec alone (the element, after its first frame: its core is loaded already or failed to). */
  static async __initLinks(): Promise<void> {
    await loadLinks();
  }

  /**
   * @internal The core's catalog whether or not the core is loaded (it is static): the
   * element's later chunk reads the invariants and safety switches from it, so a page
   * carries their explanations once (see {@link catalog}).
   */
  static __catalog(): Catalog {
    return CATALOG;
  }

  /** Like {@link Cluster.create}, once the core is loaded (after `await init()`). */
  static createSync(options: ClusterOptions = {}): Cluster {
    const spec = normaliseOptions(options, 'Cluster.create options');
    return withCore((G) => new Cluster(new G.WasmSim(JSON.stringify(spec)), spec, G));
  }

  /**
   * Rebuilds a run from a link made by {@link Cluster.toLink}: the bare token or any URL
   * containing it. Malformed links throw a `TypeError`; links of another format version
   * an `Error` saying so.
   */
  static async fromLink(link: string): Promise<Cluster> {
    const payload = (await loadLinks()).decodeLink(link);
    await init();
    if (payload.spec.seed === undefined) throw new TypeError('malformed link: spec.seed is missing');
    let spec: Spec;
    try {
      spec = normaliseOptions(payload.spec, 'the link spec');
    } catch (e) {
      throw rewrap(e, 'invalid link: ');
    }
    try {
      const json = [JSON.stringify(spec), JSON.stringify(payload.inputs)] as const;
      return withCore((G) => new Cluster(G.WasmSim.replay(json[0], json[1], payload.t, undefined), spec, G));
    } catch (e) {
      if (e instanceof CoreFailure) throw e;
      throw rewrap(e, 'invalid link: ');
    }
  }

  /**
   * Rebuilds a recorded run on the core alone (no scenario engine): a scenario report's
   * `spec` and `inputs` at its `endMs` reproduce that run exactly, digest for digest. The
   * built-in stories play this way, precomputed at build time.
   *
   * `options.at` puts the run at that earlier time instead, as `seek(at)` would leave
   * it, without running on to `t` first: the inputs after `at` stay ahead and play as
   * the clock reaches them (a story opens at its start this way, and its recorded
   * future costs nothing until it is played).
   */
  static async replay(spec: object, inputs: unknown[], t: number, options: { at?: number } = {}): Promise<Cluster> {
    await init();
    return Cluster.replaySync(spec, inputs, t, options);
  }

  /** Like {@link Cluster.replay}, once the core is loaded (after `await init()`). */
  static replaySync(spec: object, inputs: unknown[], t: number, options: { at?: number } = {}): Cluster {
    const s = normaliseOptions(spec, 'the replayed spec');
    const json = [JSON.stringify(s), JSON.stringify(check.array(inputs, 'inputs'))] as const;
    const until = check.whole(t, 't');
    const o = check.object(options, 'options');
    check.keys(o, ['at'], 'options');
    const at = o.at === undefined ? undefined : check.whole(o.at, 'options.at', 0, until);
    return withCore((G) => new Cluster(G.WasmSim.replay(json[0], json[1], until, at), s, G));
  }

  /**
   * Runs a scenario (its JSON text or the parsed object) to its end and returns the
   * report and the run as a cluster (at the end; seek back to replay the story).
   * An invalid scenario throws a {@link ScenarioError} naming the path (`steps[3].node`).
   */
  static async fromScenario(scenario: string | object, options: ScenarioOptions = {}): Promise<ScenarioRun> {
    await initEngine();
    return Cluster.fromScenarioSync(scenario, options);
  }

  /** Like {@link Cluster.fromScenario}, once the engine is loaded (`await initEngine()`; Node loads it here). */
  static fromScenarioSync(scenario: string | object, options: ScenarioOptions = {}): ScenarioRun {
    const text = scenarioText(scenario);
    const o = check.object(options, 'scenario options');
    check.keys(o, ['seed', 'unsafe', 'variant'], 'scenario option');
    const opts: Record<string, unknown> = {};
    if (o.seed !== undefined) opts.seed = check.whole(o.seed, 'seed');
    if (o.unsafe !== undefined) opts.unsafe = normaliseSwitches(o.unsafe, 'unsafe');
    if (o.variant !== undefined) opts.variant = check.string(o.variant, 'variant');
    let run: ReturnType<EngineGlue['runScenario']>;
    let G: Glue | undefined;
    try {
      run = withEngine((g) => {
        G = g;
        return g.runScenario(text, JSON.stringify(opts));
      });
    } catch (e) {
      if (e instanceof CoreFailure) throw e;
      throw toScenarioError(e);
    }
    try {
      const report = run.report() as ScenarioReport;
      const summary = run.summary();
      const spec = normaliseOptions(report.spec, 'the scenario cluster');
      const cluster = new Cluster(run.takeSimulation(), spec, G as Glue);
      return { report, summary, cluster };
    } catch (e) {
      if (!isInternalFailure(e)) throw e;
      retire(G as Glue);
      throw new CoreFailure(`${CRASHED}: ${describeFailure(e, G as Glue)}; new clusters start on a fresh core`, {
        cause: e,
      });
    } finally {
      run.free();
    }
  }

  // ---- plumbing ------------------------------------------------------------------------

  #brokenError(cause?: unknown): Error {
    return new Error(
      `${CRASHED}: ${this.#broken}. This cluster can no longer be used (other clusters and new ones are not ` +
        `affected); cluster.reproductionLink() gives a link to the run up to its last good moment ` +
        `(t = ${this.#good.t} ms) to reproduce and report it`,
      cause === undefined ? undefined : { cause },
    );
  }

  #call<T>(fn: (sim: WasmSim) => T): T {
    if (this.#broken !== null) throw this.#brokenError();
    if (this.#disposed) throw new Error('this cluster was disposed and can no longer be used');
    try {
      return fn(this.#sim as WasmSim);
    } catch (e) {
      if (isInternalFailure(e)) {
        const glue = this.#glue as Glue;
        retire(glue);
        this.#broken = describeFailure(e, glue);
        this.#sim = null;
        this.#glue = null;
        throw this.#brokenError(e);
      }
      throw e;
    }
  }

  /** A call that moves time or changes the input log; afterwards the run is known good. */
  #move<T>(fn: (sim: WasmSim) => T): T {
    const out = this.#call(fn);
    const sim = this.#sim as WasmSim;
    this.#good = { t: sim.now(), count: sim.inputCount() };
    this.#watcher?.();
    return out;
  }

  #act(action: Action): unknown {
    const json = JSON.stringify(action);
    const out = this.#move((s) => s.act(json));
    // The core cut its recorded future at the action and appended it.
    this.#journal.length = this.#good.count - 1;
    this.#journal.push({ t: this.#good.t, ...action } as TimedAction);
    return out;
  }

  #node(id: unknown, what = 'node id'): number {
    const n = this.nodeCount;
    if (typeof id !== 'number') throw new TypeError(`${what} must be a number, got ${check.show(id)}`);
    if (!Number.isInteger(id) || id < 0 || id >= n) {
      const obs = this.#observers > 0 ? `, observers ${this.#voters}..${n - 1}` : '';
      throw new RangeError(`unknown ${what} ${id}: this cluster has nodes 0..${n - 1} (voters 0..${this.#voters - 1}${obs})`);
    }
    return id;
  }

  // ---- what it is ------------------------------------------------------------------------

  /** The seed of this run (given, or picked at random when none was given). */
  get seed(): number {
    return this.#spec.seed;
  }
  /** Simulated time now, in ms. */
  get now(): number {
    return this.#call((s) => s.now());
  }
  /** Number of voters (node ids `0..voters-1`). */
  get voters(): number {
    return this.#voters;
  }
  /** Number of observers (node ids after the voters). */
  get observers(): number {
    return this.#observers;
  }
  /**
   * Nodes now: voters + observers, and the controllers `addController()` started before
   * now (a seek back before one leaves it out). After `dispose()`, the count at creation.
   */
  get nodeCount(): number {
    if (this.#sim === null) return this.#voters + this.#observers;
    return this.#call((s) => s.nodeCount());
  }
  /** The options this cluster was created with, normalised (seed included). */
  get options(): ClusterOptions {
    return JSON.parse(JSON.stringify(this.#spec)) as ClusterOptions;
  }
  /** True once an internal error made this cluster unusable. */
  get broken(): boolean {
    return this.#broken !== null;
  }
  /** What made the core crash (its panic message, or what the trap said), or null while it works. */
  get failure(): string | null {
    return this.#broken;
  }
  /** Simulated time of the last moment the run was known good (now, while it works). */
  get lastGoodTime(): number {
    return this.#good.t;
  }
  /** Sequence number of the last event so far (0 before any). */
  get lastSeq(): number {
    return this.#call((s) => s.lastSeq());
  }
  /** Number of events in the trace so far. */
  get eventCount(): number {
    return this.#call((s) => s.eventCount());
  }
  /**
   * The end of the recorded run (ms): now, or later after a seek back (or in a run rebuilt
   * at an earlier time with `replay(..., { at })`), whose events {@link lanes} and a seek
   * forward play back the same until an action forks the run.
   */
  get horizon(): number {
    return this.#call((s) => s.horizon());
  }
  /**
   * How many actions so far were taken before the {@link horizon} (after a seek back) and
   * so replaced the recorded future: a reader that keeps what it read of the run (the
   * lanes ahead of now) drops it when this changes, which the horizon and the last seq,
   * read later, need not show.
   */
  get forks(): number {
    return this.#call((s) => s.forks());
  }

  // ---- time ------------------------------------------------------------------------------

  /** Advances simulated time by `ms` (a whole number, 0 to a day). Returns the cluster. */
  advance(ms: number): this {
    const d = check.duration(ms, 'advance(ms)');
    this.#move((s) => s.advance(d));
    return this;
  }

  /**
   * Runs to the next moment something happens (all events at that millisecond).
   * Returns false when nothing is scheduled.
   */
  step(): boolean {
    return this.#move((s) => s.step());
  }

  /** When the next event is due, or null when nothing is scheduled. */
  nextEventTime(): number | null {
    return this.#call((s) => s.nextTime()) ?? null;
  }

  /**
   * Runs until `predicate(cluster)` is true, checking after every moment at which
   * something happens, for at most `timeoutMs` simulated ms (default 60000). Returns
   * true when the predicate held, false on timeout. A predicate should only look at the
   * cluster: one that moves it back in time would keep the deadline out of reach, so
   * runUntil throws once it has advanced more than `timeoutMs` in all.
   */
  runUntil(predicate: (cluster: Cluster) => boolean, options: RunUntilOptions = {}): boolean {
    if (typeof predicate !== 'function') {
      throw new TypeError(`runUntil needs a predicate function, got ${check.show(predicate)}`);
    }
    const o = check.object(options, 'runUntil options');
    check.keys(o, ['timeoutMs'], 'runUntil option');
    const timeout = o.timeoutMs === undefined ? 60_000 : check.duration(o.timeoutMs, 'timeoutMs', limit('advanceMs').max);
    const deadline = this.now + timeout;
    let advanced = 0;
    let stillChecks = 0;
    for (;;) {
      if (predicate(this)) return true;
      const now = this.now;
      if (now >= deadline) return false;
      const next = this.nextEventTime();
      const target = next === null ? deadline : Math.min(Math.max(next, now), deadline);
      advanced += target - now;
      if (advanced > timeout) {
        throw new RangeError(
          `runUntil advanced ${advanced} ms in all, more than its timeoutMs (${timeout} ms), without reaching ` +
            `its deadline (t = ${deadline} ms): the predicate moved the cluster back in time (seek?); ` +
            'a predicate should only look at the cluster',
        );
      }
      stillChecks = target === now ? stillChecks + 1 : 0;
      if (stillChecks > MAX_RUN_UNTIL_STILL_CHECKS) {
        throw new RangeError(
          `runUntil checked its predicate ${MAX_RUN_UNTIL_STILL_CHECKS} times at t = ${now} ms without simulated ` +
            'time moving: the predicate keeps acting at the same moment; a predicate should only look at the cluster',
        );
      }
      this.#move((s) => s.advance(target - now));
    }
  }

  /**
   * Moves to simulated time `t`, back or forward (time travel). Going back keeps the
   * recorded actions, so seeking forward again reproduces the same run; a new action
   * taken while back in time replaces the recorded future. The cluster lands after
   * everything that happens at `t`, actions taken at `t` included.
   */
  seek(t: number): this {
    const target = check.duration(t, 'seek(t)');
    this.#move((s) => s.seek(target));
    return this;
  }

  // ---- views -----------------------------------------------------------------------------

  /** The running leader with the highest epoch, or null. */
  leader(): LeaderInfo | null {
    return this.#call((s) => s.leader()) as LeaderInfo | null;
  }

  /**
   * Every node: role, state, epoch, LEO, HW, log start, timers... and its log records
   * (pass `{ records: false }` to leave them out, which is much cheaper).
   */
  nodes(options: { records?: boolean } = {}): NodeInfo[] {
    const o = check.object(options, 'nodes options');
    check.keys(o, ['records'], 'nodes option');
    const records = o.records === undefined ? true : check.boolean(o.records, 'records');
    return this.#call((s) => s.nodes(records)) as NodeInfo[];
  }

  /** One node (see {@link Cluster.nodes}). */
  node(id: number, options: { records?: boolean } = {}): NodeInfo {
    const n = this.#node(id);
    return this.nodes(options)[n];
  }

  /**
   * Every node as it was at simulated time `t` of this run (after everything at `t`),
   * for any `t` from 0 to now: what {@link Cluster.nodes} with `{ records: false }` would
   * show after `seek(t)`, without moving the cluster (its time, trace and digest stay as
   * they are). It replays at most one checkpoint interval (10 simulated s) on a copy of
   * the run. A `t` after now throws a `RangeError` naming `t` and now.
   */
  nodesAt(t: number): NodeInfo[] {
    const at = check.duration(t, 'nodesAt(t)');
    return this.#call((s) => s.nodesAt(at)) as NodeInfo[];
  }

  /** A node's log records from `from` (default: its log start), at most `limit`. */
  log(id: number, options: { from?: number; limit?: number } = {}): LogRecord[] {
    const n = this.#node(id);
    const o = check.object(options, 'log options');
    check.keys(o, ['from', 'limit'], 'log option');
    const from = o.from === undefined ? undefined : check.whole(o.from, 'from');
    const limit = o.limit === undefined ? undefined : check.whole(o.limit, 'limit', 0, U32);
    return this.#call((s) => s.log(n, from, limit)) as LogRecord[];
  }

  /**
   * A node's metadata image at this moment: its applied offset (every record below it is
   * applied), its brokers and its topics with their partition leaders, in ascending order,
   * at most `limit` of each (default 100; the counts say how many in all). Null while the
   * node is crashed: the image lives in memory and a restart builds it again.
   */
  image(id: number, options: { limit?: number } = {}): MetadataImageInfo | null {
    const n = this.#node(id);
    const o = check.object(options, 'image options');
    check.keys(o, ['limit'], 'image option');
    const limit = o.limit === undefined ? undefined : check.whole(o.limit, 'limit', 0, U32);
    return this.#call((s) => s.image(n, limit)) as MetadataImageInfo | null;
  }

  /**
   * What `kafka-metadata-quorum describe --status` and `--replication` would print, asked
   * of the current leader; null while there is no leader (the tool would fail).
   */
  describeQuorum(): QuorumDescription | null {
    return this.#call((s) => s.describeQuorum()) as QuorumDescription | null;
  }

  /** Messages on the wire now (for drawing arrows in flight). */
  inFlight(): InFlightMessage[] {
    return this.#call((s) => s.inFlight()) as InFlightMessage[];
  }

  /** Directed links that are down now, as `[from, to]` pairs. */
  downLinks(): [number, number][] {
    return this.#call((s) => s.downLinks()) as [number, number][];
  }

  /** Each link fault in force (partition groups, isolated nodes, cuts, slow links), to undo one by one. */
  linkFaults(): LinkFaults {
    return JSON.parse(this.#call((s) => s.linkFaultsJson())) as LinkFaults;
  }

  /** The network profile and disk flush latency this cluster was created with (what {@link clearFaults} restores). */
  baseline(): Baseline {
    return JSON.parse(this.#call((s) => s.baselineJson())) as Baseline;
  }

  /** The network profile now. */
  network(): NetworkState {
    return this.#call((s) => s.network()) as NetworkState;
  }

  /** Client writes per second of the running workload. */
  get writesPerSecond(): number {
    return this.#call((s) => s.writesPerSecond());
  }

  // ---- the trace -------------------------------------------------------------------------

  /**
   * Trace events, oldest first: all of them, or those with `seq > since`, or those with
   * `from <= t <= to`; at most `limit`, and at most 100,000 per call (page through long
   * runs with `since`: seqs are contiguous from 1). Old events are regenerated on demand
   * from checkpoints, so asking for any window of a long run is fine. Each event has its
   * one-line `text` unless `text` says otherwise: `false` leaves it out of every event, a
   * list of event types keeps it on those only (formatting it is most of the cost of a
   * large window).
   */
  events(query?: EventQuery & { text?: true }): TraceEvent[];
  events(query: EventQuery): TraceEventMaybeText[];
  events(query: EventQuery = {}): TraceEventMaybeText[] {
    // One JSON string across the boundary and one JSON.parse: about twice as fast as
    // building each object from wasm.
    return this.#events(
      query,
      'events query',
      (since, limit, text) => JSON.parse(this.#call((s) => s.eventsSinceJson(since, limit, text))) as TraceEventMaybeText[],
      (from, to, limit, text) => JSON.parse(this.#call((s) => s.eventsBetweenJson(from, to, limit, text))) as TraceEventMaybeText[],
    );
  }

  /**
   * The events {@link events} gives, in the same order, for drawing many at once (a
   * timeline window): messages, appends, flushes, HW steps and connection failures (the
   * `PackedType`s, most of a run) cross from the core as numbers, several times faster
   * than JSON, and come without `text`; a message comes without its `summary` (ask
   * `events({ since: seq - 1, limit: 1 })` for one) unless the summary tells an outcome
   * its fields do not (a vote granted or refused; a fetch answered with an error, a
   * diverging epoch or a snapshot). `text` names only the other types.
   */
  packedEvents(query: PackedEventQuery = {}): PackedTraceEvent[] {
    const read = (numbers: Float64Array, rest: PackedRest): PackedTraceEvent[] => unpack(numbers, rest);
    return this.#events(
      query,
      'packedEvents query',
      (since, limit, text) => this.#packed(read, (s) => s.eventsSincePacked(since, limit, text)),
      (from, to, limit, text) => this.#packed(read, (s) => s.eventsBetweenPacked(from, to, limit, text)),
    );
  }

  /**
   * The result of {@link packedEvents} as it crossed, for a reader that keeps the packed
   * rows as numbers instead of building an object per event (the UI's frames): the rows
   * (a copy) and the other events. The same query, but `since` and `from`/`to` not together.
   * @internal
   */
  packedBatch(query: PackedEventQuery = {}): PackedBatch {
    const q = check.object(query, 'packedBatch query');
    if (q.since !== undefined && (q.from !== undefined || q.to !== undefined)) {
      throw new RangeError(`packedBatch query: since (${check.show(q.since)}) and from/to cannot be asked together`);
    }
    const read = (numbers: Float64Array, rest: PackedRest): [PackedBatch] => [{ numbers: numbers.slice(), rest }];
    return this.#events(
      q,
      'packedBatch query',
      (since, limit, text) => this.#packed(read, (s) => s.eventsSincePacked(since, limit, text)),
      (from, to, limit, text) => this.#packed(read, (s) => s.eventsBetweenPacked(from, to, limit, text)),
    )[0];
  }

  /** Reads one packed result of the core. */
  #packed<R>(read: (numbers: Float64Array, rest: PackedRest) => R, ask: (s: WasmSim) => WasmPacked): R {
    const p = this.#call(ask);
    try {
      const rest = JSON.parse(p.takeRest()) as PackedRest;
      // a view of the core's memory, read before the next call into it (which may grow it)
      const memory = (this.#glue as Glue).memory() as WebAssembly.Memory;
      return read(new Float64Array(memory.buffer, p.numbersPtr(), p.numbersLen()), rest);
    } finally {
      p.free();
    }
  }

  /** The query of {@link events} and {@link packedEvents}, checked, asked of `since` or `between`. */
  #events<E>(
    query: EventQuery | PackedEventQuery,
    what: string,
    sinceQuery: (since: number, limit: number | undefined, text: string | undefined) => E[],
    between: (from: number, to: number, limit: number | undefined, text: string | undefined) => E[],
  ): E[] {
    const q = check.object(query, what);
    check.keys(q, ['since', 'from', 'to', 'limit', 'text'], `${what} field`);
    const since = q.since === undefined ? undefined : check.whole(q.since, 'since');
    const from = q.from === undefined ? undefined : check.whole(q.from, 'from');
    const to = q.to === undefined ? undefined : check.whole(q.to, 'to');
    const limit = q.limit === undefined ? undefined : check.whole(q.limit, 'limit', 0, U32);
    const text = textTypes(q.text);
    if (from !== undefined && to !== undefined && from > to) {
      throw new RangeError(`from (${from}) must not be after to (${to})`);
    }
    if (from === undefined && to === undefined) return sinceQuery(since ?? 0, limit, text);
    let ev = between(from ?? 0, to ?? Number.MAX_SAFE_INTEGER, since === undefined ? limit : undefined, text);
    if (since !== undefined) {
      ev = ev.filter((e) => (e as { seq: number }).seq > since);
      if (limit !== undefined) ev = ev.slice(0, limit);
    }
    return ev;
  }

  /**
   * The timeline's lanes over [from, to] (simulated ms), projected by the core from the
   * trace, the recorded future after a seek back included: per node its state bands (with
   * the event that began each), its HW and LEO step series, and its marked events; and
   * the messages crossing the window as spans (numbers laid out by `SPAN`). Old windows
   * are regenerated from checkpoints. A window spans at most `lanesSpanMs` and reads at
   * most `lanesEvents` events (see {@link limit}); more is refused with a `RangeError`
   * naming `to`.
   */
  lanes(window: { from: number; to: number }): LaneWindow {
    const w = check.object(window, 'lanes window');
    check.keys(w, ['from', 'to'], 'lanes window field');
    const from = check.whole(w.from, 'from');
    const to = check.whole(w.to, 'to');
    return this.#packed(readLanes, (s) => s.lanes(from, to));
  }

  /**
   * The one-line text form of the events with `seq > since` (all by default), one per
   * line, at most `limit` lines.
   */
  text(query: { since?: number; limit?: number } = {}): string {
    const q = check.object(query, 'text query');
    check.keys(q, ['since', 'limit'], 'text query field');
    const since = q.since === undefined ? 0 : check.whole(q.since, 'since');
    const limit = q.limit === undefined ? undefined : check.whole(q.limit, 'limit', 0, U32);
    return this.#call((s) => s.textSince(since, limit));
  }

  /**
   * The trace after `since` (all of it by default) page by page, up to `limit` events a
   * page (default 10,000, at most 100,000): arrays of events; with `format: 'text'` their
   * one-line text form (a string, one line per event); with `format: 'json'` a JSON array
   * (a string, for writing out). Each page continues where the last one stopped, so
   * reading a whole long run costs about one replay of it (paging with
   * `events({ since })` past the in-memory window replays from a checkpoint for every
   * page). Throws if the cluster moves (advance, act, seek) before the last page is read.
   */
  pages(query?: { since?: number; limit?: number; format?: 'events' }): Generator<TraceEvent[], void, undefined>;
  pages(query: { since?: number; limit?: number; format: 'text' | 'json' }): Generator<string, void, undefined>;
  pages(query: { since?: number; limit?: number; format?: 'events' | 'text' | 'json' } = {}): Generator<TraceEvent[] | string, void, undefined> {
    const q = check.object(query, 'pages query');
    check.keys(q, ['since', 'limit', 'format'], 'pages query field');
    const since = q.since === undefined ? 0 : check.whole(q.since, 'since');
    const limit = q.limit === undefined ? 10_000 : check.whole(q.limit, 'limit', 1, 100_000);
    const format = q.format === undefined ? 'events' : check.oneOf(q.format, ['events', 'text', 'json'] as const, 'format');
    const cursor = this.#call((s) => s.traceCursor(since));
    const next = (): TraceEvent[] | string =>
      this.#call((s) => (format === 'text' ? s.traceTextPage(cursor, limit) : format === 'json' ? s.traceJsonPage(cursor, limit) : (JSON.parse(s.traceJsonPage(cursor, limit)) as TraceEvent[])));
    return (function* () {
      try {
        // An empty page ([], '' or, in JSON, '[]') is the end.
        for (let page = next(); page.length > 0 && page !== '[]'; page = next()) yield page;
      } finally {
        cursor.free();
      }
    })();
  }

  /**
   * Every change of leader among the events kept in memory (all of a run of up to 200,000
   * events), oldest first, the first election included. Each is measured the way the
   * leader-crash story's completion card measures its failover: what took the previous
   * leader away (`cause`, where the measure starts), detection (until another voter
   * started an election), election (until the new leader), first commit (until its HW
   * moved), in `measurement.parts`; and the epochs whose candidates all lost on the way
   * (`lostRounds`: a split vote).
   */
  leaderChanges(): LeaderChange[] {
    return JSON.parse(this.#call((s) => s.leaderChangesJson())) as LeaderChange[];
  }

  /** Every invariant violation so far (the checker runs after every event). */
  violations(): ViolationEvent[] {
    return this.#call((s) => s.violations()) as ViolationEvent[];
  }

  /**
   * A digest (16 hex digits) of the whole trace so far: two runs with the same options,
   * seed and actions have the same digest, natively and in wasm.
   */
  digest(): string {
    return this.#call((s) => s.digest());
  }

  /**
   * Why event `seq` happened: one sentence naming the rule and the Kafka class or method
   * it follows, built by the core from the event's recorded reason. Null when the run has
   * no such event yet.
   */
  explain(seq: number): string | null {
    const n = check.whole(seq, 'seq', 1);
    return this.#call((s) => s.explainEvent(n)) ?? null;
  }

  /** The actions taken so far, with their simulated times (the input log). */
  inputs(): TimedAction[] {
    return JSON.parse(this.#call((s) => s.inputsJson())) as TimedAction[];
  }

  /** Recorded actions beyond now (after seeking back, until a new action replaces them). */
  futureInputs(): TimedAction[] {
    return JSON.parse(this.#call((s) => s.futureInputsJson())) as TimedAction[];
  }

  /**
   * A compact, URL-safe link reproducing this run up to now: `k2.` + base64url of the
   * compressed (DEFLATE) JSON of the options, seed, input log and time. Open it with
   * {@link Cluster.fromLink} (which also reads the uncompressed `k1.` links of earlier
   * versions).
   *
   * `until` (at least now): the run up to that later moment instead, with the actions
   * recorded up to it (after a seek back, {@link futureInputs}): the whole run, not only
   * up to here.
   */
  toLink(options: { until?: number } = {}): string {
    const o = check.object(options, 'toLink options');
    check.keys(o, ['until'], 'toLink option');
    const now = this.now;
    if (o.until === undefined) return links().encodeLink({ v: catalog().version, spec: this.#spec, inputs: this.inputs(), t: now });
    const until = check.whole(o.until, 'until');
    if (until < now) throw new RangeError(`until must be at least now (${now} ms), got ${until}`);
    const inputs = [...this.inputs(), ...this.futureInputs().filter((i) => i.t <= until)];
    return links().encodeLink({ v: catalog().version, spec: this.#spec, inputs, t: until });
  }

  /**
   * A link to this run up to its last good moment. On a working cluster it reproduces
   * the run up to now, like {@link Cluster.toLink}; once the core has crashed (see
   * {@link Cluster.broken}) it still works and gives the run up to just before the call
   * that crashed, so the crash can be reproduced and reported.
   */
  reproductionLink(): string {
    if (this.#disposed) throw new Error('this cluster was disposed and can no longer be used');
    return links().encodeLink({
      v: catalog().version,
      spec: this.#spec,
      inputs: this.#journal.slice(0, this.#good.count),
      t: this.#good.t,
    });
  }

  // ---- faults and operator actions ---------------------------------------------------------

  /** Crashes a node: its process stops; its unflushed log suffix is lost. */
  crash(id: number): this {
    this.#act({ action: 'crash', node: this.#node(id) });
    return this;
  }

  /** Crashes a node and loses its whole disk (log and quorum-state); restart it to rejoin empty. */
  wipe(id: number): this {
    this.#act({ action: 'wipe', node: this.#node(id) });
    return this;
  }

  /** Restarts a crashed node (no effect on a running one). */
  restart(id: number): this {
    this.#act({ action: 'restart', node: this.#node(id) });
    return this;
  }

  /** Cuts a node off from every other node (both directions), until {@link Cluster.reconnect} or {@link Cluster.heal}. */
  isolate(id: number): this {
    this.#act({ action: 'isolate', node: this.#node(id) });
    return this;
  }

  /** Undoes {@link isolate}: the node's links are as they were before (a partition or cuts still apply). */
  reconnect(id: number): this {
    this.#act({ action: 'reconnect', node: this.#node(id) });
    return this;
  }

  /** Undoes the partition only: isolations, cuts and slow links stay. */
  healPartition(): this {
    this.#act({ action: 'healPartition' });
    return this;
  }

  /**
   * Splits the network into groups that cannot talk to each other, e.g. `[[0, 1], [2, 3, 4]]`.
   * Nodes not named form one more group. A node may be named once.
   */
  partition(groups: number[][]): this {
    const list = check.array(groups, 'partition(groups)');
    const seen = new Map<number, string>();
    const clean = list.map((g, i) => {
      const group = check.array(g, `groups[${i}]`);
      if (group.length === 0) throw new RangeError(`groups[${i}] is empty; a group must name at least one node`);
      return group.map((id, j) => {
        const n = this.#node(id, `node id at groups[${i}][${j}]`);
        const before = seen.get(n);
        if (before !== undefined) {
          throw new RangeError(`partition names node ${n} twice (${before} and groups[${i}][${j}]); each node may be in one group`);
        }
        seen.set(n, `groups[${i}][${j}]`);
        return n;
      });
    });
    this.#act({ action: 'partition', groups: clean });
    return this;
  }

  /** Cuts the one-way link `from -> to` (messages from `from` to `to` are dropped). */
  cut(from: number, to: number): this {
    const a = this.#node(from, 'from node id');
    const b = this.#node(to, 'to node id');
    if (a === b) throw new RangeError(`cut needs two different nodes, got ${a} -> ${b}`);
    this.#act({ action: 'cut', from: a, to: b });
    return this;
  }

  /** Restores the one-way link `from -> to` that {@link cut} took down. */
  uncut(from: number, to: number): this {
    const a = this.#node(from, 'from node id');
    const b = this.#node(to, 'to node id');
    if (a === b) throw new RangeError(`uncut needs two different nodes, got ${a} -> ${b}`);
    this.#act({ action: 'uncut', from: a, to: b });
    return this;
  }

  /**
   * Gives the one-way link `from -> to` its own latency (ms, a number or `[min, max]`),
   * e.g. a slow cross-region link; {@link heal} restores the default.
   */
  slowLink(from: number, to: number, latencyMs: number | [number, number]): this {
    const a = this.#node(from, 'from node id');
    const b = this.#node(to, 'to node id');
    if (a === b) throw new RangeError(`slowLink needs two different nodes, got ${a} -> ${b}`);
    this.#act({ action: 'slowLink', from: a, to: b, latencyMs: latency(latencyMs, 'latencyMs') });
    return this;
  }

  /** Undoes {@link slowLink}: the link `from -> to` is back at the network's latency. */
  clearSlowLink(from: number, to: number): this {
    const a = this.#node(from, 'from node id');
    const b = this.#node(to, 'to node id');
    if (a === b) throw new RangeError(`clearSlowLink needs two different nodes, got ${a} -> ${b}`);
    this.#act({ action: 'clearSlowLink', from: a, to: b });
    return this;
  }

  /** Restores every link (partitions, isolations, cuts and slow links); loss, latency and disks stay as they are. */
  heal(): this {
    this.#act({ action: 'heal' });
    return this;
  }

  /**
   * Undoes every fault: heals every link, puts the network (latency, loss, duplication)
   * and every disk back as the cluster was created ({@link baseline}) and restarts
   * crashed nodes. Only what differs is changed, each as one recorded action.
   */
  clearFaults(): this {
    const base = this.baseline();
    const f = this.linkFaults();
    if (f.groups.length || f.isolated.length || f.cuts.length || f.slowLinks.length) this.heal();
    const net = this.network();
    const same = net.loss === base.network.loss && net.duplicate === base.network.duplicate;
    if (!same || net.latencyMs[0] !== base.network.latencyMs[0] || net.latencyMs[1] !== base.network.latencyMs[1]) {
      this.setNetwork(base.network);
    }
    for (const n of this.nodes({ records: false })) {
      if (n.flushMs !== base.flushMs) this.slowDisk(n.id, base.flushMs);
    }
    for (const n of this.nodes({ records: false })) if (n.state === 'crashed') this.restart(n.id);
    return this;
  }

  /**
   * Changes the network: latency (ms, a number or `[min, max]`), loss and duplicate
   * probabilities in [0, 1]. Fields left out keep their current values.
   */
  setNetwork(profile: Partial<NetworkProfile>): this {
    const p = check.object(profile, 'setNetwork(profile)');
    check.keys(p, ['latencyMs', 'loss', 'duplicate'], 'network field');
    const cur = this.network();
    const action: Action = {
      action: 'network',
      latencyMs: p.latencyMs === undefined ? cur.latencyMs : latency(p.latencyMs, 'latencyMs'),
      loss: p.loss === undefined ? cur.loss : check.probability(p.loss, 'loss'),
      duplicate: p.duplicate === undefined ? cur.duplicate : check.probability(p.duplicate, 'duplicate'),
    };
    this.#act(action);
    return this;
  }

  /** Sets a node's disk flush latency (0 to 60000 ms); its replica thread blocks while flushing. */
  slowDisk(id: number, flushMs: number): this {
    const node = this.#node(id);
    const ms = check.duration(flushMs, 'flushMs');
    this.#act({ action: 'slowDisk', node, flushMs: ms });
    return this;
  }

  /**
   * Starts a new controller, as an operator formats a new machine with `kafka-storage.sh
   * format --no-initial-controllers` and starts it (KIP-853, a dynamic quorum only): the
   * next node id, a fresh disk with a new directory id and no voter set of its own, so it
   * fetches from the leader as an observer until `addVoter(id)` adds it. Returns its id.
   * Refused (nothing changes) for a static quorum, or past the most nodes a cluster has.
   */
  addController(): number {
    const id = this.nodeCount;
    this.#act({ action: 'addController' });
    return id;
  }

  /**
   * Asks the leader to add a node to the voters, as `kafka-metadata-quorum.sh add-controller`
   * does (AddRaftVoter with the node's id and its disk's directory id; KIP-853, a dynamic
   * quorum). The answer is an `admin` event: `NONE` once the new voter set commits, or
   * Kafka's error code and the rule that refused.
   */
  addVoter(id: number): this {
    this.#act({ action: 'addVoter', node: this.#node(id) });
    return this;
  }

  /**
   * Asks the leader to remove a node from the voters, as `kafka-metadata-quorum.sh
   * remove-controller` does (RemoveRaftVoter with the directory id the leader's voter set
   * names for it). The answer is an `admin` event; a leader that removes itself leads
   * until the change commits, then resigns.
   */
  removeVoter(id: number): this {
    this.#act({ action: 'removeVoter', node: this.#node(id) });
    return this;
  }

  /**
   * The leader resigns gracefully (EndQuorumEpoch with its preferred successors).
   * Returns the leader that resigned, or null when there was none.
   */
  resign(): LeaderInfo | null {
    const leader = this.leader();
    this.#act({ action: 'resign' });
    return leader;
  }

  /** Sets the background client write load (0 to 1000 writes per second). */
  setWorkload(workload: { writesPerSecond: number }): this {
    const w = check.object(workload, 'setWorkload(workload)');
    check.keys(w, ['writesPerSecond'], 'workload field');
    if (w.writesPerSecond === undefined) throw new TypeError('setWorkload needs { writesPerSecond }');
    const n = check.whole(w.writesPerSecond, 'writesPerSecond', 0, U32);
    this.#act({ action: 'workload', writesPerSecond: n });
    return this;
  }

  /**
   * A client writes a metadata record (a random one when omitted) to the leader.
   * Returns `{ accepted: true, offset, node }`, or `{ accepted: false, reason }` when no
   * live leader can take it (not an exception).
   */
  write(record?: WritableRecord): WriteResult {
    const action: Action = record === undefined ? { action: 'write' } : { action: 'write', record: checkRecord(record) };
    return this.#act(action) as WriteResult;
  }

  /** Frees the core's memory now (otherwise the garbage collector does it). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#sim?.free();
    this.#sim = null;
    this.#glue = null;
  }

  /**
   * @internal Calls `listener` (null: none) after every call that moves time or changes
   * the input log, whoever made it: the element redraws after a page's own calls.
   */
  __watch(listener: (() => void) | null): void {
    this.#watcher = listener;
  }

  /** @internal Bytes of wasm memory of the instance this cluster lives in (benchmarks). */
  __wasmMemoryBytes(): number {
    return this.#call(() => (this.#glue as Glue).memory()?.buffer.byteLength ?? 0);
  }

  /** @internal What holds this run's memory, in bytes by holder, and its checkpoint count (benchmarks). */
  __memoryUsage(): { logs: number; images: number; checker: number; checkpoints: number; events: number; checkpointCount: number } {
    const [logs, images, checker, checkpoints, events, checkpointCount] = this.#call((s) => s.__memoryUsage());
    return { logs, images, checker, checkpoints, events, checkpointCount };
  }

  /** @internal Deliberately panics inside the core (tests of the broken-cluster path). */
  __panicForTest(): void {
    this.#call((s) => s.__panicForTest());
  }
}

/** A scenario file that does not parse or check; `path` names the bad field (`steps[3].node`). */
export class ScenarioError extends Error {
  /** Where in the scenario: `steps[3].node`, `cluster.voters`, or '' for the whole file. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(path ? `${path}: ${message}` : message, options);
    this.name = 'ScenarioError';
    this.path = path;
  }
}

/** A finished scenario run. */
export interface ScenarioRun {
  report: ScenarioReport;
  /** The human summary: steps, expectations, measurements, invariants, PASSED/FAILED. */
  summary: string;
  /** The run, at its end. */
  cluster: Cluster;
}

function scenarioText(scenario: unknown): string {
  if (typeof scenario === 'string') return scenario;
  if (check.isPlainObject(scenario)) return JSON.stringify(scenario);
  throw new TypeError(`a scenario must be its JSON text or the parsed object, got ${check.show(scenario)}`);
}

function toScenarioError(e: unknown): unknown {
  if (e instanceof TypeError || e instanceof RangeError) {
    const field = (e as { field?: unknown }).field;
    const path = typeof field === 'string' ? field : '';
    const prefix = path ? `${path}: ` : '';
    const msg = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    return new ScenarioError(path, msg, { cause: e });
  }
  return e;
}

/** Runs a scenario to its end: the same as {@link Cluster.fromScenario}. */
export function runScenario(scenario: string | object, options: ScenarioOptions = {}): Promise<ScenarioRun> {
  return Cluster.fromScenario(scenario, options);
}

/** {@link runScenario} once the engine is loaded (after `await initEngine()`; Node loads it here). */
export function runScenarioSync(scenario: string | object, options: ScenarioOptions = {}): ScenarioRun {
  return Cluster.fromScenarioSync(scenario, options);
}

function rewrap(e: unknown, prefix: string): Error {
  if (!(e instanceof Error)) return new Error(prefix + String(e));
  const Ctor = e instanceof TypeError ? TypeError : e instanceof RangeError ? RangeError : Error;
  const out = new Ctor(prefix + e.message, { cause: e });
  const field = (e as { field?: unknown }).field;
  if (typeof field === 'string') Object.assign(out, { field });
  return out;
}
