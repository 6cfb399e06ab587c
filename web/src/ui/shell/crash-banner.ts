// The crash banner's content: what failed, the reproduction link with its copy button,
// and a way to start again (messages.ts's CrashBanner shows it). A crash is rare: it
// comes with the later chunk (later.ts).

import type { Cluster } from '../../api.js';
import { fmtT, h } from '../common/dom.js';
import { copyButton } from './dialogs.js';

export function crashBody(c: Cluster, url: string, startAgain: () => void): HTMLElement {
  const input = h('input', { class: 'kp-share-url', type: 'text', readonly: true, value: url, 'aria-label': 'Reproduction link', 'data-repro-url': '' });
  const copy = copyButton(input, 'Copy reproduction link');
  copy.dataset.action = 'copy-repro';
  const again = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'start-again' }, 'Start again');
  again.addEventListener('click', startAgain);
  return h(
    'div',
    { class: 'kp-crash-body' },
    h('strong', null, 'The simulation core crashed.'),
    h('p', null, 'This is a bug in KRaft Playground, not something you did. What failed: ', h('code', { 'data-crash-cause': '' }, c.failure ?? 'unknown')),
    h(
      'p',
      null,
      `The run stopped at ${fmtT(c.lastGoodTime)}. The reproduction link replays it up to that moment; press play there to see the crash again, and please attach the link when you report it.`,
    ),
    input,
    h('div', { class: 'kp-row' }, copy, again),
  );
}
