// The element's page structure: the top bar, the stage (the cluster ring with the fault
// dock beside it, the timeline, and the playback bar under them), the settings, the
// panels (full layout only), and the overlays; and the resizing of the canvases when
// their boxes change size.

import { h } from '../common/dom.js';
import { term } from '../common/glossary.js';
import { icon } from '../common/icons.js';
import type { LogsSlot } from '../panels/logs-slot.js';
import type { Ring } from '../ring/ring.js';
import type { Timeline } from '../timeline/timeline.js';

export interface LayoutParts {
  /** The scenario picker and the status line, at the left of the top bar. */
  picker: HTMLElement;
  status: HTMLElement;
  /** The export button with its menu, between Share and Help. */
  exportMenu: HTMLElement;
  onShare(): void;
  onHelp(): void;
  /** Between the top bar and the stage: the crash banner, notices, the caption. */
  banners: HTMLElement[];
  ring: Ring;
  timeline: Timeline;
  /** The fault dock, beside the ring. */
  dock: HTMLElement;
  /** The playback bar: in the stage, under the ring and the timeline (above the dock where the dock is a strip). */
  playback: HTMLElement;
  /** Below the stage: the settings row. */
  settings: HTMLElement;
  logs: LogsSlot;
  /** Below the logs: each node's metadata image. */
  images: HTMLElement;
  /** Beside the logs: quorum, invariants, faults. */
  panels: HTMLElement[];
  /** Last: the node menu, the live region, the accessible summary. */
  overlays: HTMLElement[];
}

/** Fills `root` with the parts, and resizes the canvases whenever their boxes change. */
export function layOut(root: HTMLElement, p: LayoutParts): ResizeObserver {
  const share = h(
    'button',
    { class: 'kp-btn', type: 'button', 'data-action': 'share', title: 'A link that reproduces this exact run', 'aria-label': 'Share' },
    icon('link'),
    h('span', { class: 'kp-btn-label' }, 'Share'),
  );
  share.addEventListener('click', () => p.onShare());
  const help = h('button', { class: 'kp-btn', type: 'button', 'aria-label': 'Help and keyboard shortcuts', title: 'Help (?)', 'data-action': 'help' }, '?');
  help.addEventListener('click', () => p.onHelp());
  const top = h('div', { class: 'kp-top' }, p.picker, p.status, h('div', { class: 'kp-spacer' }), share, p.exportMenu, help);

  const ringCard = h(
    'section',
    { class: 'kp-card kp-ring-card', 'aria-label': 'Cluster' },
    h('div', { class: 'kp-card-h' }, h('b', null, 'Cluster'), h('span', null, 'tap a node for actions'), ringKey()),
    p.ring.el,
  );
  const tlCard = h(
    'section',
    { class: 'kp-card kp-tl-card', 'aria-label': 'Timeline' },
    h('div', { class: 'kp-card-h' }, h('b', null, 'Timeline'), h('span', null, 'drag to pan · wheel or pinch to zoom · tap any event (or ↓ then Enter) for why')),
    p.timeline.legend(() => p.ring.invalidate()),
    p.timeline.el,
  );
  const stage = h('div', { class: 'kp-stage' }, ringCard, p.dock, tlCard, p.playback);
  // stacked (a phone), the ring is as tall as its cluster wants; side by side, never shorter than it needs
  p.ring.onWantHeight = (roomy, least) => {
    const head = ringCard.offsetHeight - p.ring.el.offsetHeight;
    stage.style.setProperty('--kp-ring-h', `${roomy + head}px`);
    stage.style.setProperty('--kp-ring-least', `${least + head}px`);
  };
  const logsPanel = h(
    'section',
    { class: 'kp-panel kp-logs-panel', 'aria-label': 'Logs' },
    h(
      'h2',
      null,
      'Logs ',
      h(
        'span',
        { class: 'kp-sub' },
        'colour = ',
        term('epoch', 'epoch'),
        ' · ',
        term('leaderChange', '★ LeaderChange'),
        ' · faded = above the ',
        term('hw', 'HW'),
        ' · red underline = not flushed · ',
        term('leo', '▲ LEO'),
        ' · cyan bar = ',
        term('hw', 'HW'),
      ),
    ),
    p.logs.el,
    p.images,
  );
  const panels = h('div', { class: 'kp-panels' }, logsPanel, ...p.panels);
  root.append(top, ...p.banners, stage, p.settings, panels, ...p.overlays);

  const resize = () => {
    const ring = p.ring.el.getBoundingClientRect();
    p.ring.resize(Math.floor(ring.width), Math.floor(ring.height));
    const tl = p.timeline.el.getBoundingClientRect();
    p.timeline.resize(Math.floor(tl.width), Math.floor(tl.height));
    const lw = p.logs.el.getBoundingClientRect();
    p.logs.resize(Math.floor(lw.width));
    p.ring.invalidate();
  };
  const obs = new ResizeObserver(resize);
  obs.observe(ringCard);
  obs.observe(tlCard);
  obs.observe(logsPanel);
  return obs;
}

/** What the ring's marks mean: a "Key" disclosure in the ring card's header. */
function ringKey(): HTMLElement {
  const item = (mark: string, text: string) => h('li', null, h('span', { class: `kp-key-mark kp-key-${mark}`, 'aria-hidden': 'true' }), h('span', null, text));
  return h(
    'details',
    { class: 'kp-ring-key' },
    h('summary', { title: 'What the ring shows' }, 'Key'),
    h(
      'ul',
      { class: 'kp-key-list', 'data-ring-key': '' },
      item(
        'timer',
        "Arc around a node: how much of its timer is left (a follower's fetch timeout, a candidate's election timeout); red in the last quarter, grey on the leader (its check-quorum timer).",
      ),
      item('halo', 'Coloured halo: a partition group; nodes talk only inside their group.'),
      item('busy', 'Red dot on a node: it is blocked in a disk flush (its replica thread waits for fsync).'),
      item('req', 'Filled dot on a link: a request in flight (colour = RPC, as in the timeline legend); red: it failed, the peer is down. Tap it: what it carries and why it was sent.'),
      item('resp', 'Hollow dot: a response on its way back.'),
      item('down', 'Dashed red line with ✕: a link that is down; ✕ in the middle both ways, near the receiver one way. A brief ✕: a message dropped.'),
      item('star', '★ the leader · dashed grey node: crashed (its disk survives).'),
      item('log', "Beside a node: its log end offset (LEO) and high watermark (HW); with up to 7 nodes, its log's last records, coloured by epoch, faded at or above its HW."),
    ),
  );
}
