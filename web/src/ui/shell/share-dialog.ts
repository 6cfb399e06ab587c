// The share dialog: the link of the run up to now, what it carries, a copy button; after
// a travel back in time, the link of the whole run too. Opened on demand: it comes with
// the later chunk (later.ts).

import type { Cluster } from '../../api.js';
import { fmtT, h } from '../common/dom.js';
import { copyButton, type Dialogs } from './dialogs.js';
import { changedSettings, releaseSetting, withUnit } from './settings-note.js';

/** A link to share, read-only and selectable, with its copy button and a way to open it. */
function linkRow(url: string, label: string, attrs: Record<string, string>): { input: HTMLInputElement; row: HTMLElement } {
  const input = h('input', { class: 'kp-share-url', type: 'text', readonly: true, value: url, 'aria-label': label, ...attrs });
  const row = h('div', { class: 'kp-row' }, copyButton(input, 'Copy link'), h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open in a new tab'));
  return { input, row };
}

/**
 * The share dialog: the link of `c`'s run up to now (`url`), what it carries, a copy
 * button; after a travel back in time (`whole`: the run up to the latest moment it
 * reached), that link too, so either can be shared.
 */
export function openShare(dialogs: Dialogs, c: Cluster, url: string, whole: { url: string; t: number } | null): void {
  const here = linkRow(url, whole ? 'Share link up to here' : 'Share link', { 'data-share-url': '' });
  const changed = changedSettings(c).map(({ key, value, limit }) => `${key} = ${withUnit(value, limit)}`);
  const release = releaseSetting(c);
  if (release !== null) changed.push(`kafkaRelease = ${release}`);
  const settings = changed.length ? `the settings (${changed.join(', ')})` : 'the settings';
  const carries = `the seed (${c.seed}), ${settings} and the ${c.inputs().length} action(s) you took`;
  const body: HTMLElement[] = [];
  if (whole) {
    const all = linkRow(whole.url, 'Share link to the whole run', { 'data-share-whole': '' });
    body.push(
      h('h3', null, `Up to here (${fmtT(c.now)})`),
      h('p', null, `This moment: ${carries} so far. Whoever opens it gets the same run, event for event (trace digest ${c.digest()}).`),
      here.input,
      here.row,
      h('h3', null, `The whole run (to ${fmtT(whole.t)})`),
      h('p', null, `Everything recorded, ${c.futureInputs().length} action(s) after this moment included, opened at its end.`),
      all.input,
      all.row,
    );
  } else {
    body.push(h('p', null, `The link carries ${carries}, up to ${fmtT(c.now)}. Whoever opens it gets the same run, event for event (trace digest ${c.digest()}).`), here.input, here.row);
  }
  dialogs.open('Share this run', ...body);
  here.input.select();
}
