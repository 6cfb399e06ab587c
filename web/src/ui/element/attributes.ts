// The element's attributes: read and checked once per boot. Anything wrong becomes a
// message for the notice area and a default, never an exception.

import { MAX_SPEED, MIN_SPEED, type Settings } from '../playback/controls.js';

export const DEFAULTS: Settings = { seed: 1, network: 'teaching', voters: 3, observers: 2 };
const NETWORK_NAMES = ['teaching', 'datacenter', 'wan'];

export interface Parsed {
  settings: Settings;
  seedGiven: boolean;
  scenario: string | null;
  variant: string | null;
  run: string | null;
  speed: number;
  autoplay: boolean;
  minimal: boolean;
  /** layout=full: the logs, quorum, invariants and network panels below the stage. */
  full: boolean;
  height: number | null;
  problems: string[];
}

/** Reads and checks the attributes; anything wrong becomes a message and a default. */
export function parseAttributes(el: HTMLElement): Parsed {
  const problems: string[] = [];
  const get = (n: string) => el.getAttribute(n);
  const int = (name: string, lo: number, hi: number, dflt: number): number => {
    const raw = get(name);
    if (raw === null || raw.trim() === '') return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < lo || v > hi) {
      problems.push(`${name}=${show(raw)} is not allowed: use a whole number from ${lo} to ${hi}. Using ${dflt}.`);
      return dflt;
    }
    return v;
  };
  const settings: Settings = { ...DEFAULTS };
  settings.voters = int('voters', 1, 7, DEFAULTS.voters);
  settings.observers = int('observers', 0, 4, DEFAULTS.observers);
  const seedRaw = get('seed');
  let seedGiven = false;
  if (seedRaw !== null && seedRaw.trim() !== '') {
    const v = Number(seedRaw);
    if (!Number.isSafeInteger(v) || v < 0) problems.push(`seed=${show(seedRaw)} is not allowed: use a whole number from 0 to ${Number.MAX_SAFE_INTEGER}. Using a random seed.`);
    else {
      settings.seed = v;
      seedGiven = true;
    }
  }
  const net = get('network');
  if (net !== null && net !== '') {
    if (NETWORK_NAMES.includes(net)) settings.network = net;
    else problems.push(`network=${show(net)} is unknown: use teaching, wan or datacenter. Using teaching.`);
  }
  let speed = 1;
  const sp = get('speed');
  if (sp !== null && sp !== '') {
    const v = Number(sp);
    if (!Number.isFinite(v) || v < MIN_SPEED || v > MAX_SPEED) problems.push(`speed=${show(sp)} is not allowed: use a number from ${MIN_SPEED} to ${MAX_SPEED}. Using 1.`);
    else speed = v;
  }
  const ctl = get('controls');
  let minimal = false;
  if (ctl !== null && ctl !== '' && ctl !== 'full') {
    if (ctl === 'minimal') minimal = true;
    else problems.push(`controls=${show(ctl)} is unknown: use full or minimal. Using full.`);
  }
  const lay = get('layout');
  let full = false;
  if (lay !== null && lay !== '' && lay !== 'compact') {
    if (lay === 'full') full = true;
    else problems.push(`layout=${show(lay)} is unknown: use compact or full. Using compact.`);
  }
  let height: number | null = null;
  const hg = get('height');
  if (hg !== null && hg !== '') {
    const v = Number(String(hg).replace(/px$/, ''));
    if (!Number.isFinite(v) || v < 240 || v > 2000) problems.push(`height=${show(hg)} is not allowed: use a number of pixels from 240 to 2000.`);
    else height = Math.round(v);
  }
  const autoplay = autoplays(el);
  let scenario = get('scenario') || null;
  let variant = get('variant') || null;
  if (scenario?.includes(':') && !variant) [scenario, variant] = scenario.split(':', 2);
  const run = get('run') || null;
  return { settings, seedGiven, scenario, variant, run, speed, autoplay, minimal, full, height, problems };
}

/** Whether the element plays what it opens at once: an `autoplay` attribute other than `false` or `0`. */
export function autoplays(el: HTMLElement): boolean {
  const auto = el.getAttribute('autoplay');
  return auto !== null && auto !== 'false' && auto !== '0';
}

export function show(s: string): string {
  const t = s.length > 40 ? `${s.slice(0, 37)}…` : s;
  return JSON.stringify(t);
}
