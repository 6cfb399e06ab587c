// URL parameters -> element attributes. The element checks every value itself (bad
// ones become a message in the page and a default); this only forwards them and flags
// parameter names it does not know.
import type { KraftPlayground } from '../../web/src/ui/index.js';

export const PARAMS = ['scenario', 'variant', 'voters', 'observers', 'seed', 'network', 'speed', 'autoplay', 'controls', 'height', 'run', 'theme'] as const;

export function applyParams(el: KraftPlayground, search: string): string[] {
  const q = new URLSearchParams(search);
  const unknown: string[] = [];
  for (const [k, v] of q) {
    if ((PARAMS as readonly string[]).includes(k)) {
      if (k === 'autoplay' && (v === '0' || v === 'false')) el.removeAttribute('autoplay');
      else if (k === 'theme') {
        if (v === 'light' || v === 'dark') el.setAttribute('theme', v);
        else unknown.push(`theme=${JSON.stringify(v.slice(0, 20))} is unknown: use light or dark.`);
      } else el.setAttribute(k, v);
    } else {
      unknown.push(`The URL parameter ${JSON.stringify(k.slice(0, 30))} is unknown and was ignored. Known: ${PARAMS.join(', ')}.`);
    }
  }
  return unknown;
}
