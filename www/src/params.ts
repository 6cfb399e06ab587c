// URL parameters -> element attributes. The element checks every value itself (bad
// ones become a message in the page and a default); this only forwards them and flags
// parameter names it does not know. A share link carries its run in the fragment
// (`#run=k2...`): no server sees or caps it. `?run=` links of earlier versions still work.
import type { KraftPlayground } from 'kraft-playground/element';

export const PARAMS = ['scenario', 'variant', 'voters', 'observers', 'seed', 'network', 'speed', 'autoplay', 'controls', 'height', 'run', 'theme'] as const;

/** The run a URL fragment carries (`#run=k2...`, or a bare `#k2...`), if any. */
export function fragmentRun(hash: string): string | null {
  const h = hash.replace(/^#/, '');
  if (/^k\d+\./.test(h)) return h;
  return new URLSearchParams(h).get('run');
}

export function applyParams(el: KraftPlayground, search: string, hash = ''): string[] {
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
  const run = fragmentRun(hash);
  if (run) el.setAttribute('run', run);
  return unknown;
}

/** Opens the run of a fragment link pasted into an open page (only the fragment changes, so the page does not reload). */
export function followFragment(el: KraftPlayground): void {
  window.addEventListener('hashchange', () => {
    const run = fragmentRun(location.hash);
    if (run && run !== el.getAttribute('run')) el.setAttribute('run', run);
  });
}
