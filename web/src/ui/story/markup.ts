// The caption markup of scenarios: plain text with **bold**, *em* and `code` (the same
// subset as crate/scenario/src/markup.rs), rendered by building DOM nodes. Nothing in a
// caption can become markup: every piece of text goes in through a text node.

import { h } from '../common/dom.js';

type Style = 'plain' | 'bold' | 'em' | 'code';

/**
 * Splits a line into styled runs; unclosed markers stay literal. The same rule as
 * crate/scenario/src/markup.rs, in one pass: at each point the earliest marker with a
 * closing partner wins, and whether a partner exists is read off the marker's last
 * occurrence rather than searched for (a search per candidate was quadratic).
 */
export function spans(text: string): { style: Style; text: string }[] {
  const out: { style: Style; text: string }[] = [];
  const push = (style: Style, s: string) => {
    if (!s) return;
    const last = out[out.length - 1];
    if (last && last.style === style) last.text += s;
    else out.push({ style, text: s });
  };
  const last = { tick: text.lastIndexOf('`'), star: text.lastIndexOf('*'), double: text.lastIndexOf('**') };
  let pos = 0;
  for (let open = nextOpening(text, pos, last); open; open = nextOpening(text, pos, last)) {
    const inner = open.at + open.marker.length;
    const close = text.indexOf(open.marker, inner);
    push('plain', text.slice(pos, open.at));
    push(open.style, text.slice(inner, close));
    pos = close + open.marker.length;
  }
  push('plain', text.slice(pos));
  return out;
}

/**
 * The earliest marker at or after `pos` that opens a styled run. Stars are taken a run at
 * a time from `pos` on: `**` is tried at the run's start, +2, ... (all but the last
 * would close at once, empty), `*` only as the lone star ending an odd run.
 */
function nextOpening(text: string, pos: number, last: { tick: number; star: number; double: number }): { at: number; marker: '`' | '**' | '*'; style: Style } | null {
  for (let i = pos; i < text.length; ) {
    const c = text[i];
    if (c === '`') {
      if (text[i + 1] !== '`' && last.tick > i + 1) return { at: i, marker: '`', style: 'code' };
      i++;
    } else if (c === '*') {
      let end = i;
      while (text[end] === '*') end++;
      const len = end - i;
      if (len >= 2) {
        const j = i + Math.floor((len - 2) / 2) * 2;
        if (last.double > j + 2) return { at: j, marker: '**', style: 'bold' };
      }
      if (len % 2 === 1 && last.star > end) return { at: end - 1, marker: '*', style: 'em' };
      i = end;
    } else {
      i++;
    }
  }
  return null;
}

/** Renders caption text into paragraphs of styled text nodes. */
export function renderCaption(text: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const para of text.split(/\n\s*\n/)) {
    const p = h('p');
    para.split('\n').forEach((line, i) => {
      if (i > 0) p.appendChild(h('br'));
      for (const s of spans(line)) {
        if (s.style === 'plain') p.appendChild(document.createTextNode(s.text));
        else p.appendChild(h(s.style === 'bold' ? 'strong' : s.style === 'em' ? 'em' : 'code', { text: s.text }));
      }
    });
    frag.appendChild(p);
  }
  return frag;
}
