// Tiny DOM helpers. Text only ever goes in through textContent: nothing from a URL,
// an attribute or a scenario can become markup.

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  title?: string;
  role?: string;
  type?: string;
  id?: string;
  [attr: string]: string | number | boolean | undefined | EventListener;
}

/** `h('button', { class: 'x', onclick: fn }, 'Play')` */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === false) continue;
      if (k === 'text') el.textContent = String(v);
      else if (k === 'class') el.className = String(v);
      else if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2), v as EventListener);
      } else if (v === true) el.setAttribute(k, '');
      else if (k === 'style') throw new Error('inline styles are not allowed (CSP)');
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Sets text only when it changed (cheap per-frame updates). */
export function setText(el: Node, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function toggleClass(el: Element, name: string, on: boolean): void {
  if (el.classList.contains(name) !== on) el.classList.toggle(name, on);
}

/** Seconds with 3 decimals: 12.345s */
export function fmtT(ms: number): string {
  const s = Math.floor(ms / 1000);
  const r = Math.floor(ms % 1000);
  return `${s}.${String(r).padStart(3, '0')}s`;
}

/** A compact duration for axis labels. */
export function fmtShort(ms: number): string {
  if (ms >= 60_000) {
    const m = Math.floor(ms / 60_000);
    const s = (ms % 60_000) / 1000;
    return `${m}m${s ? `${String(Math.round(s * 10) / 10).padStart(2, '0')}s` : ''}`;
  }
  if (ms >= 1000 || ms === 0) return `${Math.round(ms) / 1000}s`;
  return `${Math.round(ms)}ms`;
}

export function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : Math.min(v, hi);
}

/** Downloads a Blob under a file name, without touching the page's markup. */
export function download(name: string, blob: Blob): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
