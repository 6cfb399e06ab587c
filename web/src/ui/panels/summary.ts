// The accessible text form of what the canvases show: the leader, a table of the nodes,
// the timeline's notable events and state changes in view, the invariants and the logs.
// Screen readers read it; the browser tests read it too.

import type { Cluster } from '../../api.js';
import { fmtT, h, setText } from '../common/dom.js';
import type { Mark, Store } from '../common/store.js';
import { type NodeInfo, RPC_KINDS, STATES, stateIndex } from '../common/types.js';
import type { Timeline } from '../timeline/timeline.js';
import type { LogsSlot } from './logs-slot.js';

const CRASHED = stateIndex('crashed');
/** The most messages the text description counts (it is redrawn a few times a second). */
const DESCRIBED_MESSAGES = 20_000;

export class Summary {
  readonly el: HTMLDivElement = h('div', { class: 'kp-sr-only', 'data-summary': '' });
  readonly #store: Store;
  readonly #timeline: Timeline;
  readonly #logs: LogsSlot;

  constructor(store: Store, timeline: Timeline, logs: LogsSlot) {
    this.#store = store;
    this.#timeline = timeline;
    this.#logs = logs;
  }

  #sum: {
    head: HTMLParagraphElement;
    tbody: HTMLTableSectionElement;
    win: HTMLParagraphElement;
    marks: HTMLOListElement;
    states: HTMLOListElement;
    inv: HTMLParagraphElement;
    logs: HTMLDivElement;
    rows: HTMLTableCellElement[][];
    marksKey: string;
    statesKey: string;
  } | null = null;

  /** When the text was last brought up to date (wall ms). */
  #updatedAt = 0;

  /** Whether the text is to be brought up to date now: it is refreshed a few times a second (less often while playing). */
  due(playing: boolean): boolean {
    const wall = performance.now();
    if (wall - this.#updatedAt <= (playing ? 500 : 250)) return false;
    this.#updatedAt = wall;
    return true;
  }

  /** Brings the text up to date with the cluster at its present moment. */
  update(c: Cluster, nodes: NodeInfo[]): void {
    let S = this.#sum;
    if (!S) {
      S = this.#sum = {
        head: h('p', { 'data-leader': '' }),
        tbody: h('tbody'),
        win: h('p', { 'data-window': '' }),
        marks: h('ol', { 'data-timeline': '' }),
        states: h('ol', { 'data-states': '' }),
        inv: h('p', { 'data-invariants': 'ok' }),
        logs: h('div', { 'data-logs': '' }),
        rows: [],
        marksKey: '',
        statesKey: '',
      };
      this.el.replaceChildren(
        h('h2', null, 'What the playground shows'),
        S.head,
        h('table', null, h('caption', null, 'Nodes'), h('thead', null, h('tr', null, ...['Node', 'Role', 'State', 'Epoch', 'LEO', 'HW', 'Log start'].map((x) => h('th', null, x)))), S.tbody),
        S.win,
        h('h3', null, 'Timeline events in view'),
        S.marks,
        h('h3', null, 'State changes in view'),
        S.states,
        S.inv,
        S.logs,
      );
    }
    const now = c.now;
    let leader: { id: number; epoch: number } | null = null;
    try {
      leader = c.leader();
    } catch {
      /* broken */
    }
    setText(S.head, leader ? `At ${fmtT(now)}: the leader is n${leader.id} in epoch ${leader.epoch}.` : `At ${fmtT(now)}: there is no leader.`);
    S.head.dataset.leader = leader ? String(leader.id) : '';
    S.head.dataset.epoch = leader ? String(leader.epoch) : '';
    if (S.rows.length !== nodes.length) {
      S.rows = nodes.map(() => Array.from({ length: 7 }, () => h('td')));
      S.tbody.replaceChildren(...S.rows.map((cells, i) => h('tr', { 'data-node': String(i) }, ...cells)));
    }
    nodes.forEach((n, i) => {
      const vals = [`n${n.id}`, n.role, n.state, String(n.epoch), String(n.leo), String(n.hw ?? 'none'), String(n.logStart)];
      vals.forEach((v, j) => {
        setText(S!.rows[i][j], v);
      });
      const tr = S!.rows[i][0].parentElement;
      if (tr && tr.dataset.state !== n.state) tr.dataset.state = n.state;
    });
    setText(S.win, describeWindow(this.#timeline, this.#store, now));
    // what the timeline shows: the notable events in its window (up to now)
    const [t0, t1] = this.#timeline.window();
    const lanes = this.#store.window(t0, t1, now);
    const [from, to] = [Math.max(0, t0), Math.min(t1, now)];
    const [a, b] = lanes.markRange(from, to);
    const marks: Mark[] = [];
    for (let i = b - 1; i >= a && marks.length < 60; i--) {
      const m = lanes.marks[i];
      if (m.kind !== 'write' && m.kind !== 'vote') marks.push(m);
    }
    marks.reverse();
    const mk = marks.map((m) => m.seq).join(',');
    if (mk !== S.marksKey) {
      S.marksKey = mk;
      S.marks.replaceChildren(...marks.map((m) => h('li', { 'data-kind': m.kind, 'data-t': String(m.t) }, `${fmtT(m.t)} ${describeMark(m)}`)));
    }
    // the state changes in view (a crash is a mark), the latest 40
    const changes = lanes.states
      .flatMap((segs, node) => segs.filter((s) => s.t >= from && s.t <= to && s.state !== CRASHED).map((s) => ({ node, s })))
      .sort((x, y) => x.s.seq - y.s.seq)
      .slice(-40);
    const sk = changes.map((c) => c.s.seq).join(',');
    if (sk !== S.statesKey) {
      S.statesKey = sk;
      S.states.replaceChildren(
        ...changes.map(({ node, s }) => h('li', { 'data-kind': 'state', 'data-t': String(s.t) }, `${fmtT(s.t)} n${node}: ${STATES[s.from]} → ${STATES[s.state]}, epoch ${s.epoch} (${s.reason})`)),
      );
    }
    const vs = c.violations();
    S.inv.dataset.invariants = vs.length ? 'violated' : 'ok';
    setText(S.inv, vs.length ? `Invariant violations: ${vs.map((v) => `${v.invariant} at ${fmtT(v.t)}`).join('; ')}` : 'All invariants hold.');
    const lines = this.#logs.describe(nodes);
    if (S.logs.childNodes.length !== lines.length) S.logs.replaceChildren(...lines.map(() => h('p', { 'data-log': '' })));
    lines.forEach((l, i) => {
      setText(S!.logs.childNodes[i], l);
    });
  }
}

/** A one-line description of what the timeline's plot shows at `now`: the window, the highlighted lanes, the messages in view by kind. */
function describeWindow(tl: Timeline, store: Store, now: number): string {
  const [t0, t1] = tl.window();
  const hi = [...tl.highlightNodes].sort((a, b) => a - b).map((n) => `n${n}`);
  return `Timeline ${fmtT(Math.max(0, t0))} to ${fmtT(Math.max(0, t1))}${tl.follow ? ', following now' : ''}${hi.length ? `; highlighted: ${hi.join(', ')}` : ''}; ${describeMessages(tl, store, now, t0, t1)}`;
}

/** The messages in [t0, t1] as the timeline's plot shows them (hidden kinds left out), most frequent kind first. */
function describeMessages(tl: Timeline, store: Store, now: number, t0: number, t1: number): string {
  const { byKind, dropped, more } = store.window(t0, t1, now).messageCounts(t0, t1, tl.hiddenGroups, DESCRIBED_MESSAGES);
  if (more) return 'too many messages in view to count (zoom in)';
  const kinds = byKind.flatMap((n, i) => (n ? [{ n, name: RPC_KINDS[i] }] : [])).sort((a, b) => b.n - a.n);
  const total = kinds.reduce((sum, k) => sum + k.n, 0);
  if (!total) return 'no messages in view';
  const listed = kinds.map((k) => `${k.n} ${k.name}`).join(', ');
  return `${total} message${total === 1 ? '' : 's'} in view: ${listed}${dropped ? `; ${dropped} dropped` : ''}`;
}

function describeMark(m: Mark): string {
  switch (m.kind) {
    case 'leader':
      return `n${m.ev.node} became leader of epoch ${m.ev.epoch}`;
    case 'crash':
      return `n${m.ev.node} crashed${m.ev.lostRecords ? `, losing ${m.ev.lostRecords} unflushed record(s)` : ''}`;
    case 'restart':
      return `n${m.ev.node} restarted`;
    case 'truncate':
      return `n${m.ev.node} truncated its log from ${m.ev.fromLeo} to ${m.ev.to}`;
    case 'snapshot':
      return `n${m.ev.node} snapshot ${m.ev.action} (end ${m.ev.endOffset}, epoch ${m.ev.epoch})`;
    case 'fault':
      return `fault: ${m.ev.detail ?? m.ev.text}`;
    case 'violation':
      return `VIOLATION of ${m.ev.invariant}: ${m.ev.detail}`;
    default:
      return m.ev.text ?? '';
  }
}
