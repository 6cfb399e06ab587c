// The help dialog: how to read the views, the glossary as a table, the keys, the safety
// switches. Opened on demand: loaded with later.ts.

import { h } from '../common/dom.js';
import { type Term, WORDS } from '../common/glossary.js';
import { MEANINGS } from '../common/glossary-text.js';
import { STATES, switches } from '../common/types.js';
import type { Dialogs } from './dialogs.js';

/** Keys and what they do, as the help dialog lists them (keys.ts handles them). */
export const KEY_HELP: [string, string][] = [
  ['Space', 'play / pause (or continue after a caption)'],
  ['.', 'step to the next event'],
  ['← →', 'travel back / forward 1 s (Shift: 10 s)'],
  ['Home End', 'go to the start / the latest moment'],
  ['[ ]', 'slower / faster'],
  ['Z X', 'zoom the timeline in / out'],
  ['F', 'follow the present on the timeline'],
  ['0', 'show the whole run'],
  ['C', 'crash the leader'],
  ['G', 'the leader resigns gracefully'],
  ['W', 'write a record'],
  ['H', 'heal every link'],
  ['Shift+R', 'reset the run'],
  ['?', 'this help; Esc closes it'],
];

/** The help dialog: how to read the views, the glossary, the keys, the safety switches; `term` scrolls to and marks that glossary entry. */
export function openHelp(dialogs: Dialogs, term?: string): void {
  const glossary = glossaryTable();
  const dl = h('dl', { class: 'kp-keys' });
  for (const [k, d] of KEY_HELP) dl.append(h('dt', null, ...k.split(' ').flatMap((x, i) => [i ? ' ' : '', h('kbd', null, x)])), h('dd', null, d));
  dialogs.open(
    'How to read the playground',
    h(
      'p',
      null,
      'A KRaft controller quorum: voters elect a leader; followers pull the log from it with Fetch; a record is committed once a majority has it (the high watermark, HW). Observers (brokers) replicate but never vote.',
    ),
    h('h3', null, 'Raft words, KRaft words'),
    h('p', null, "KRaft is Raft with Kafka's names and a few changes of its own. The same entries show as tooltips on the words where the playground uses them; tap a dotted word to come here."),
    glossary,
    h('h3', null, 'States'),
    h('div', { class: 'kp-states' }, ...STATES.map((s) => h('span', { class: `kp-st-${s}` }, s))),
    h('h3', null, 'Timeline'),
    h(
      'p',
      null,
      "One lane per node, time to the right. Bands show each node's state and epoch; arrows are messages from send to delivery (dashed: responses; ✓/✗ on vote responses); ✕ marks a dropped message; ✂ a truncation; the cyan step line is each node's HW. Tap the time axis to travel there.",
    ),
    h('h3', null, 'Keyboard'),
    dl,
    h('h3', null, 'Safety switches'),
    h('ul', null, ...switches().map(([n, e]) => h('li', null, h('code', null, n), `: ${e}`))),
  );
  if (term) {
    const row = glossary.querySelector(`tr[data-term="${CSS.escape(term)}"]`);
    row?.classList.add('kp-glossary-hit');
    row?.scrollIntoView({ block: 'center' });
  }
}

/** The whole glossary as a table, for the help dialog. */
function glossaryTable(): HTMLTableElement {
  const rows = (Object.keys(WORDS) as Term[]).map((key) => {
    const m = MEANINGS[key];
    return h('tr', { 'data-term': key }, h('td', null, m.raft), h('th', { scope: 'row' }, WORDS[key]), h('td', null, m.text, ' ', h('span', { class: 'kp-glossary-kafka' }, m.kafka)));
  });
  return h(
    'table',
    { class: 'kp-glossary' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Raft says'), h('th', { scope: 'col' }, 'KRaft says'), h('th', { scope: 'col' }, 'What it means here'))),
    h('tbody', null, ...rows),
  );
}
