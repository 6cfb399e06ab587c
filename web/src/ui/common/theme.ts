// Colours for the canvases, read from the stylesheet's custom properties so the light
// and dark schemes (prefers-color-scheme) live in one place: the CSS.

import { RPC_GROUPS, STATES } from './types.js';

export interface Theme {
  dark: boolean;
  bg: string;
  panel: string;
  fg: string;
  muted: string;
  grid: string;
  lane: string;
  accent: string;
  danger: string;
  ok: string;
  now: string;
  state: string[];
  rpc: string[];
  font: string;
  mono: string;
}

const FALLBACK_STATE = ['#94a3b8', '#eab308', '#f97316', '#16a34a', '#60a5fa', '#a855f7', '#475569'];
const FALLBACK_RPC = ['#d97706', '#ea580c', '#7c3aed', '#db2777', '#2563eb', '#0d9488'];

/**
 * An element's colours: read when first asked for (and again once its stylesheet has
 * loaded), forgotten when the colour scheme or its `theme` attribute changes, which
 * `changed` then redraws.
 */
export class ThemeWatch {
  #theme: Theme | null = null;
  #query: MediaQueryList | null = null;
  readonly #el: Element;
  readonly #changed: () => void;

  constructor(el: Element, changed: () => void) {
    this.#el = el;
    this.#changed = changed;
  }

  /** The colours (read now when forgotten). */
  get(): Theme {
    if (!this.#theme) this.#theme = readTheme(this.#el);
    return this.#theme;
  }

  /** Reads the colours again now (the stylesheet has loaded). */
  reread(): void {
    this.#theme = readTheme(this.#el);
  }

  /** The scheme or the theme changed: the colours are read again when next asked for. */
  readonly forget = (): void => {
    this.#theme = null;
    this.#changed();
  };

  /** Follows the system's colour scheme (while the element is connected). */
  connect(): void {
    this.#query = window.matchMedia('(prefers-color-scheme: dark)');
    this.#query.addEventListener('change', this.forget);
  }

  disconnect(): void {
    this.#query?.removeEventListener('change', this.forget);
  }
}

export function readTheme(el: Element): Theme {
  const cs = getComputedStyle(el);
  const v = (name: string, d: string) => cs.getPropertyValue(name).trim() || d;
  return {
    dark: v('--kp-scheme', 'light') === 'dark',
    bg: v('--kp-bg', '#ffffff'),
    panel: v('--kp-panel', '#f8fafc'),
    fg: v('--kp-fg', '#0f172a'),
    muted: v('--kp-muted', '#64748b'),
    grid: v('--kp-grid', '#e2e8f0'),
    lane: v('--kp-lane', '#f1f5f9'),
    accent: v('--kp-accent', '#2563eb'),
    danger: v('--kp-danger', '#dc2626'),
    ok: v('--kp-ok', '#16a34a'),
    now: v('--kp-now', '#0f172a'),
    state: STATES.map((s, i) => v(`--kp-st-${s}`, FALLBACK_STATE[i])),
    rpc: RPC_GROUPS.map((g, i) => v(`--kp-rpc-${g}`, FALLBACK_RPC[i])),
    font: v('--kp-font', 'system-ui, sans-serif'),
    mono: v('--kp-mono', 'ui-monospace, monospace'),
  };
}

/** A distinct, stable colour per epoch (golden-angle hues). */
const epochCache = new Map<string, string>();
export function epochColor(epoch: number, dark: boolean, alpha = 1): string {
  const key = `${epoch}:${dark}:${alpha}`;
  let c = epochCache.get(key);
  if (!c) {
    c = makeEpochColor(epoch, dark, alpha);
    if (epochCache.size > 4000) epochCache.clear();
    epochCache.set(key, c);
  }
  return c;
}
function makeEpochColor(epoch: number, dark: boolean, alpha: number): string {
  const hue = (epoch * 137.508 + 200) % 360;
  const l = dark ? 58 : 62;
  const s = dark ? 55 : 65;
  return alpha === 1 ? `hsl(${hue.toFixed(1)} ${s}% ${l}%)` : `hsl(${hue.toFixed(1)} ${s}% ${l}% / ${alpha})`;
}

/** Canvas sized for the device pixel ratio; returns the 2D context scaled to CSS px. */
export function fitCanvas(c: HTMLCanvasElement, w: number, hgt: number, dpr = Math.min(3, window.devicePixelRatio || 1)): CanvasRenderingContext2D {
  const pw = Math.max(1, Math.round(w * dpr));
  const ph = Math.max(1, Math.round(hgt * dpr));
  if (c.width !== pw || c.height !== ph) {
    c.width = pw;
    c.height = ph;
    c.style.width = `${w}px`;
    c.style.height = `${hgt}px`;
  }
  const ctx = c.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}
