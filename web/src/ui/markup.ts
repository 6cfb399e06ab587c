// The caption markup of scenarios: plain text with **bold**, *em* and `code` (the same
// subset as crate/src/scenario/markup.rs), rendered by building DOM nodes. Nothing in a
// caption can become markup: every piece of text goes in through a text node.

import { h } from './dom.js';

type Style = 'plain' | 'bold' | 'em' | 'code';

/** Splits a line into styled runs; unclosed markers stay literal. */
export function spans(text: string): { style: Style; text: string }[] {
  const out: { style: Style; text: string }[] = [];
  const push = (style: Style, s: string) => {
    if (!s) return;
    const last = out[out.length - 1];
    if (last && last.style === style) last.text += s;
    else out.push({ style, text: s });
  };
  let rest = text;
  while (rest) {
    let best: { at: number; marker: string; style: Style } | null = null;
    for (const [marker, style] of [
      ['`', 'code'],
      ['**', 'bold'],
      ['*', 'em'],
    ] as const) {
      let from = 0;
      for (;;) {
        const start = rest.indexOf(marker, from);
        if (start < 0) break;
        const inner = start + marker.length;
        const isDouble = marker === '*' && rest.startsWith('**', start);
        const close = rest.indexOf(marker, inner);
        if (!isDouble && close > inner) {
          if (!best || start < best.at) best = { at: start, marker, style };
          break;
        }
        from = isDouble ? start + 2 : start + 1;
      }
    }
    if (!best) {
      push('plain', rest);
      break;
    }
    push('plain', rest.slice(0, best.at));
    const inner = best.at + best.marker.length;
    const close = rest.indexOf(best.marker, inner);
    push(best.style, rest.slice(inner, close));
    rest = rest.slice(close + best.marker.length);
  }
  return out;
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
