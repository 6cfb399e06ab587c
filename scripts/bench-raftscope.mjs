// RaftScope's model (ongardie/raftscope: util.js + raft.js), run headless in Node for the
// throughput comparison of `npm run bench`. Nothing of RaftScope is in this repository:
// the bench takes a path to a checkout (RAFTSCOPE=DIR or --raftscope DIR).
//
// The workload mirrors our reference one as far as its model allows: 5 servers (it has no
// observers), a client request to the leader 100 times per simulated second, RPC
// latency drawn from our datacenter links (1-5 ms), its own timeouts, no checks, no trace,
// no time-travel checkpoints. Its browser UI calls `raft.update` once per animation
// frame; headless, it is called once per simulated millisecond (our clock's resolution).
// That beat stepping from one due moment to the next (a message arrives, a timer or RPC
// is due), whose bookkeeping cost RaftScope more than the idle updates it saved.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Loads the model from `dir`; returns `run(seconds)` -> { simulatedS, wallMs, cpuMs, commits }. */
export function loadRaftScope(dir) {
  // One function body, so its top-level `var`s are fast locals (a vm context's globals
  // go through interceptors, which would slow the model down).
  const source = ['util.js', 'raft.js'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n;\n');
  const setup = 'MIN_RPC_LATENCY = 1000; MAX_RPC_LATENCY = 5000; NUM_SERVERS = 5; return { raft };';
  const { raft } = new Function('$', 'jQuery', 'console', `${source}\n${setup}`)(
    // The two jQuery calls util.js makes, on plain objects of numbers and booleans.
    { map: (m, f) => Object.keys(m).map((k) => f(m[k], k)) },
    { extend: (_deep, _into, o) => structuredClone(o) },
    { log() {} },
  );
  const US = 1e6;
  const TICK = 1000;
  const writeEvery = US / 100;

  return function run(seconds) {
    const peersOf = (i) => [1, 2, 3, 4, 5].filter((j) => j !== i);
    const model = { servers: [1, 2, 3, 4, 5].map((i) => raft.server(i, peersOf(i))), messages: [], time: 0 };
    const end = seconds * US;
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    for (; model.time <= end; model.time += TICK) {
      raft.update(model);
      if (model.time % writeEvery === 0 && model.time > 0) {
        const leader = model.servers.find((s) => s.state === 'leader');
        if (leader) raft.clientRequest(model, leader);
      }
    }
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const commits = Math.max(...model.servers.map((s) => s.commitIndex));
    return { simulatedS: seconds, wallMs, cpuMs, commits };
  };
}
