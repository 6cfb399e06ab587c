// RaftScope's model (ongardie/raftscope: util.js + raft.js), run headless in Node for the
// throughput comparison of `npm run bench`. Nothing of RaftScope is in this repository:
// the bench takes a path to a checkout (RAFTSCOPE=DIR or --raftscope DIR).
//
// The workload mirrors our reference one as far as its model allows: 5 servers (it has no
// observers), a client request to the leader 100 times per simulated second, RPC
// latency drawn from our datacenter links (1-5 ms), its own timeouts, no checks, no trace,
// no time-travel checkpoints. Its browser UI calls `raft.update` once per animation
// frame; headless, the model is updated at each moment something is due (a message
// arrives, a timer or RPC is due, a client request) and 1 ms after any delivery (so
// rules that react to a reply run as soon as ours do), never at idle moments: the
// cheapest stepping that keeps its behaviour.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Loads the model from `dir`; returns `run(seconds)` -> { simulatedS, wallMs, commits }. */
export function loadRaftScope(dir) {
  // One function body, so its top-level `var`s are fast locals (a vm context's globals
  // go through interceptors, which would slow the model down).
  const source = ['util.js', 'raft.js'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n;\n');
  const setup = 'MIN_RPC_LATENCY = 1000; MAX_RPC_LATENCY = 5000; NUM_SERVERS = 5; return { raft, util };';
  const { raft, util } = new Function('$', 'jQuery', 'console', `${source}\n${setup}`)(
    // The two jQuery calls util.js makes, on plain objects of numbers and booleans.
    { map: (m, f) => Object.keys(m).map((k) => f(m[k], k)) },
    { extend: (_deep, _into, o) => structuredClone(o) },
    { log() {} },
  );
  const US = 1e6;
  const writeEvery = US / 100;

  /** The next moment anything is due after `now` (µs); `delivered`: messages arrived at `now`. */
  function nextDue(model, now, delivered) {
    let next = Math.ceil((now + 1) / writeEvery) * writeEvery;
    if (delivered) next = Math.min(next, now + 1000);
    let arrival = Infinity;
    for (const m of model.messages) if (m.recvTime > now) arrival = Math.min(arrival, m.recvTime);
    for (const s of model.servers) {
      if (s.state === 'stopped') continue;
      if (s.electionAlarm > now && s.electionAlarm < util.Inf) next = Math.min(next, s.electionAlarm);
      for (const p of s.peers) {
        if (s.state === 'leader') {
          if (s.heartbeatDue[p] > now) next = Math.min(next, s.heartbeatDue[p]);
          if (s.nextIndex[p] <= s.log.length) next = Math.min(next, Math.max(now + 1, s.rpcDue[p]));
        } else if (s.state === 'candidate' && s.rpcDue[p] > now && s.rpcDue[p] < util.Inf) {
          next = Math.min(next, s.rpcDue[p]);
        }
      }
    }
    return { next: Math.min(next, arrival), delivers: arrival <= next };
  }

  return function run(seconds) {
    const peersOf = (i) => [1, 2, 3, 4, 5].filter((j) => j !== i);
    const model = { servers: [1, 2, 3, 4, 5].map((i) => raft.server(i, peersOf(i))), messages: [], time: 0 };
    const end = seconds * US;
    let nextWrite = writeEvery;
    let delivered = false;
    const started = performance.now();
    while (model.time < end) {
      raft.update(model);
      if (model.time >= nextWrite) {
        const leader = model.servers.find((s) => s.state === 'leader');
        if (leader) raft.clientRequest(model, leader);
        nextWrite += writeEvery;
      }
      const { next, delivers } = nextDue(model, model.time, delivered);
      model.time = Math.min(end, next);
      delivered = delivers;
    }
    raft.update(model);
    const wallMs = performance.now() - started;
    const commits = Math.max(...model.servers.map((s) => s.commitIndex));
    return { simulatedS: seconds, wallMs, commits };
  };
}
