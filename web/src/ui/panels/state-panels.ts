// The panels that read the run's state below the stage: `kafka-metadata-quorum describe`
// and the invariants. Not on screen at the first frame: loaded with later.ts.

import { fmtT, h, setText, toggleClass } from '../common/dom.js';
import { term } from '../common/glossary.js';
import { invariants, type UiEventOf } from '../common/types.js';
import type { PanelHost } from './faults.js';

// ---- quorum ----------------------------------------------------------------------------

export class QuorumPanel {
  readonly el: HTMLElement;
  private status: HTMLPreElement;
  private repl: HTMLPreElement;
  private last = '';

  constructor(private host: PanelHost) {
    // focusable: a keyboard can scroll them when their lines are wider than the panel
    this.status = h('pre', { class: 'kp-pre', 'data-quorum': 'status', 'aria-live': 'off', tabindex: '0' });
    this.repl = h('pre', { class: 'kp-pre', 'data-quorum': 'replication', tabindex: '0' });
    this.el = h(
      'section',
      { class: 'kp-panel kp-quorum', 'aria-label': 'kafka-metadata-quorum describe' },
      h('h2', null, 'Quorum ', h('span', { class: 'kp-sub' }, 'as kafka-metadata-quorum prints it · ', term('epoch', 'LeaderEpoch'), ' · ', term('hw', 'HighWatermark'))),
      h('div', { class: 'kp-cmd' }, '$ kafka-metadata-quorum describe --status'),
      this.status,
      h('div', { class: 'kp-cmd' }, '$ kafka-metadata-quorum describe --replication'),
      this.repl,
    );
  }

  frame(): void {
    const q = this.host.quorum();
    const key = q ? JSON.stringify(q) : 'none';
    if (key === this.last) return;
    this.last = key;
    if (!q) {
      setText(this.status, 'Error: no leader. The quorum is electing one (or cannot: no majority).');
      setText(this.repl, '');
      toggleClass(this.status, 'kp-err', true);
      return;
    }
    toggleClass(this.status, 'kp-err', false);
    const s = q.status;
    setText(
      this.status,
      [
        ['ClusterId', s.clusterId],
        ['LeaderId', s.leaderId],
        ['LeaderEpoch', s.leaderEpoch],
        ['HighWatermark', s.highWatermark],
        ['MaxFollowerLag', s.maxFollowerLag],
        ['MaxFollowerLagTimeMs', s.maxFollowerLagTimeMs],
        ['CurrentVoters', `[${s.currentVoters.join(',')}]`],
        ['CurrentObservers', `[${s.currentObservers.join(',')}]`],
      ]
        .map(([k, v]) => `${(`${k}:`).padEnd(24)}${v}`)
        .join('\n'),
    );
    const head = ['NodeId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'LastCaughtUpTimestamp', 'Status'];
    const rows = q.replication.map((r) => [r.nodeId, r.logEndOffset, r.lag, r.lastFetchTimestamp, r.lastCaughtUpTimestamp, r.status].map(String));
    const widths = head.map((hd, i) => Math.max(hd.length, ...rows.map((r) => r[i].length)) + 2);
    setText(
      this.repl,
      [head, ...rows]
        .map((r) =>
          r
            .map((c, i) => c.padEnd(widths[i]))
            .join('')
            .trimEnd(),
        )
        .join('\n'),
    );
  }
}

// ---- invariants --------------------------------------------------------------------------

export class InvariantsPanel {
  readonly el: HTMLElement;
  private items = new Map<string, { li: HTMLLIElement; state: HTMLSpanElement; body: HTMLDivElement }>();
  private summary: HTMLParagraphElement;
  private lastCount = -1;
  private lastNow = -1;
  private lastStable: boolean | null = null;

  constructor(private host: PanelHost) {
    const ul = h('ul', { class: 'kp-inv-list' });
    for (const [name, expl] of invariants()) {
      const state = h('span', { class: 'kp-inv-state', 'aria-hidden': 'true' }, '✓');
      const body = h('div', { class: 'kp-inv-body' });
      const li = h('li', { class: 'kp-inv', 'data-invariant': name }, state, h('div', null, h('div', { class: 'kp-inv-name' }, name), h('div', { class: 'kp-inv-expl' }, expl), body));
      ul.appendChild(li);
      this.items.set(name, { li, state, body });
    }
    this.summary = h('p', { class: 'kp-inv-summary', 'data-invariants': 'ok', role: 'status' }, 'All invariants hold.');
    this.el = h(
      'section',
      { class: 'kp-panel kp-invariants', 'aria-label': 'Invariants' },
      h('h2', null, 'Invariants ', h('span', { class: 'kp-sub' }, 'checked after every event')),
      this.summary,
      ul,
    );
  }

  frame(): void {
    const now = this.host.now();
    const vs = this.host.violations();
    const stable = this.host.checksStableLeadership();
    if (vs.length === this.lastCount && (vs.length === 0 || now === this.lastNow) && stable === this.lastStable) return;
    this.lastStable = stable;
    this.lastCount = vs.length;
    this.lastNow = now;
    const by = new Map<string, UiEventOf<'violation'>[]>();
    for (const v of vs) {
      const k = v.invariant ?? '?';
      if (!by.has(k)) by.set(k, []);
      by.get(k)!.push(v);
    }
    for (const [name, it] of this.items) {
      const list = by.get(name) ?? [];
      const bad = list.length > 0;
      toggleClass(it.li, 'kp-bad', bad);
      // not checked in this run: no ✓ that would claim it holds
      const unchecked = name === 'StableLeadership' && !stable && !bad;
      setText(it.state, bad ? '✗' : unchecked ? '–' : '✓');
      it.li.dataset.state = bad ? 'violated' : unchecked ? 'unchecked' : 'ok';
      toggleClass(it.li, 'kp-unchecked', unchecked);
      if (!bad) {
        if (it.body.firstChild) it.body.replaceChildren();
        continue;
      }
      const first = list[0];
      const btn = h('button', { class: 'kp-btn kp-btn-danger', type: 'button', 'data-seek-violation': String(first.seq) }, `Show the moment (${fmtT(first.t)})`);
      btn.addEventListener('click', () => this.host.showViolation(first));
      const ev = first.evidence ?? [];
      const parts: HTMLElement[] = [h('div', { class: 'kp-inv-detail' }, first.detail ?? first.text)];
      if (ev.length) parts.push(h('div', { class: 'kp-inv-ev' }, `Evidence: events ${ev.join(', ')}`));
      if (list.length > 1) parts.push(h('div', { class: 'kp-inv-ev' }, `${list.length - 1} more violation(s) later`));
      parts.push(btn);
      it.body.replaceChildren(...parts);
    }
    const n = vs.length;
    this.summary.dataset.invariants = n ? 'violated' : 'ok';
    toggleClass(this.summary, 'kp-bad', n > 0);
    setText(this.summary, n ? `${n} violation${n > 1 ? 's' : ''} of ${by.size} invariant${by.size > 1 ? 's' : ''}. Safety switches off let it happen.` : 'All invariants hold.');
  }
}
