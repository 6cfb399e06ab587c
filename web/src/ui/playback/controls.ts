// The control bar: play/pause, step, speed (log scale), the scrub bar with scenario
// step ticks, time, reset; the run settings (seed, network, voters, observers).

import { clamp, fmtT, h, setText, toggleClass } from '../common/dom.js';
import { icon } from '../common/icons.js';
import { NETWORKS } from '../common/types.js';

export interface ControlsHost {
  playing(): boolean;
  setPlaying(on: boolean): void;
  step(): void;
  speed(): number;
  setSpeed(s: number): void;
  now(): number;
  horizon(): number;
  seek(t: number): void;
  reset(): void;
  settings(): Settings;
  applySettings(s: Settings): void;
  randomSeed(): number;
}

export interface Settings {
  seed: number;
  network: string;
  voters: number;
  observers: number;
}

export const MIN_SPEED = 0.1;
export const MAX_SPEED = 100;

export function speedLabel(s: number): string {
  return s >= 10 ? `${Math.round(s)}×` : s >= 1 ? `${Math.round(s * 10) / 10}×` : `${Math.round(s * 100) / 100}×`;
}

export class Controls {
  readonly el: HTMLElement;
  readonly settingsEl: HTMLElement;
  private playBtn: HTMLButtonElement;
  private speedIn: HTMLInputElement;
  private speedOut: HTMLOutputElement;
  private scrub: HTMLInputElement;
  private ticks: HTMLDivElement;
  private timeOut: HTMLSpanElement;
  private seedIn: HTMLInputElement;
  private netSel: HTMLSelectElement;
  private votersSel: HTMLSelectElement;
  private obsSel: HTMLSelectElement;
  private scrubbing = false;
  private pendingSeek: number | null = null;
  private tickKey = '';

  constructor(
    private host: ControlsHost,
    minimal: boolean,
  ) {
    this.playBtn = h('button', { class: 'kp-btn kp-play', type: 'button', 'data-action': 'play', 'aria-label': 'Play', title: 'Play / pause (Space)' }, icon('play'));
    this.playBtn.addEventListener('click', () => this.host.setPlaying(!this.host.playing()));
    const step = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'step', 'aria-label': 'Step to the next event', title: 'Step to the next event (.)' }, icon('step'));
    step.addEventListener('click', () => this.host.step());
    this.speedIn = h('input', {
      type: 'range',
      class: 'kp-speed',
      min: String(Math.log10(MIN_SPEED)),
      max: String(Math.log10(MAX_SPEED)),
      step: '0.05',
      value: '0',
      'aria-label': 'Speed (log scale)',
      title: 'Speed, log scale ([ and ])',
    });
    this.speedOut = h('output', { class: 'kp-speed-out' }, '1×');
    this.speedIn.addEventListener('input', () => this.host.setSpeed(10 ** Number(this.speedIn.value)));
    this.scrub = h('input', { type: 'range', class: 'kp-scrub', min: '0', max: '1000', step: '1', value: '0', 'aria-label': 'Time: drag to travel back and forth' });
    this.scrub.addEventListener('pointerdown', () => (this.scrubbing = true));
    this.scrub.addEventListener('input', () => {
      this.pendingSeek = Number(this.scrub.value);
    });
    this.scrub.addEventListener('change', () => {
      this.scrubbing = false;
      this.pendingSeek = Number(this.scrub.value);
    });
    this.ticks = h('div', { class: 'kp-ticks', 'aria-hidden': 'true' });
    this.timeOut = h('span', { class: 'kp-time', 'data-time': '0' }, '0.000s');
    const reset = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'reset', title: 'Start the run again (Shift+R)' }, icon('reset'), 'Reset');
    reset.addEventListener('click', () => this.host.reset());
    this.el = h(
      'div',
      { class: 'kp-controls', role: 'toolbar', 'aria-label': 'Playback' },
      this.playBtn,
      step,
      h('label', { class: 'kp-speed-wrap' }, h('span', { class: 'kp-label' }, 'Speed'), this.speedIn, this.speedOut),
      h('div', { class: 'kp-scrub-wrap' }, this.scrub, this.ticks),
      this.timeOut,
      reset,
    );

    // settings
    this.seedIn = h('input', { type: 'number', class: 'kp-num kp-seed', min: '0', step: '1', 'aria-label': 'Seed', 'data-setting': 'seed' });
    const dice = h('button', { class: 'kp-btn', type: 'button', title: 'A random seed', 'data-action': 'random-seed' }, 'Random');
    dice.addEventListener('click', () => {
      this.seedIn.value = String(this.host.randomSeed());
      this.apply();
    });
    this.netSel = h('select', { 'aria-label': 'Network', 'data-setting': 'network' });
    for (const [v, label] of NETWORKS) this.netSel.appendChild(h('option', { value: v }, label));
    this.votersSel = h('select', { 'aria-label': 'Voters', 'data-setting': 'voters' });
    for (let v = 1; v <= 7; v++) this.votersSel.appendChild(h('option', { value: String(v) }, String(v)));
    this.obsSel = h('select', { 'aria-label': 'Observers', 'data-setting': 'observers' });
    for (let v = 0; v <= 4; v++) this.obsSel.appendChild(h('option', { value: String(v) }, String(v)));
    for (const el of [this.seedIn, this.netSel, this.votersSel, this.obsSel]) el.addEventListener('change', () => this.apply());
    this.settingsEl = h(
      'div',
      { class: 'kp-settings', role: 'group', 'aria-label': 'Run settings' },
      h('label', null, h('span', { class: 'kp-label' }, 'Seed'), this.seedIn, dice),
      h('label', null, h('span', { class: 'kp-label' }, 'Voters'), this.votersSel),
      h('label', null, h('span', { class: 'kp-label' }, 'Observers'), this.obsSel),
      h('label', null, h('span', { class: 'kp-label' }, 'Network'), this.netSel),
    );
    if (minimal) this.settingsEl.hidden = true;
  }

  private apply(): void {
    const seed = Math.floor(Number(this.seedIn.value));
    this.host.applySettings({
      seed: Number.isSafeInteger(seed) && seed >= 0 ? seed : this.host.settings().seed,
      network: this.netSel.value,
      voters: clamp(Number(this.votersSel.value) || 3, 1, 7),
      observers: clamp(Number(this.obsSel.value) || 0, 0, 4),
    });
  }

  syncSettings(): void {
    const s = this.host.settings();
    this.seedIn.value = String(s.seed);
    this.netSel.value = s.network;
    this.votersSel.value = String(s.voters);
    this.obsSel.value = String(s.observers);
    const sp = this.host.speed();
    this.speedIn.value = String(Math.log10(sp));
    setText(this.speedOut, speedLabel(sp));
  }

  /** Scenario step times on the scrub bar. */
  setTicks(ticks: { t: number; label: string }[], end: number): void {
    const key = `${end}:${ticks.map((t) => t.t).join(',')}`;
    if (key === this.tickKey) return;
    this.tickKey = key;
    this.ticks.replaceChildren(
      ...ticks.map((t) => {
        const d = h('div', { class: 'kp-tick', title: t.label });
        d.style.left = `${clamp((t.t / Math.max(1, end)) * 100, 0, 100)}%`;
        return d;
      }),
    );
  }

  /** Per frame: reflect state; returns a seek the user asked for, if any. */
  frame(tickEnd: number): void {
    if (this.pendingSeek !== null) {
      const t = this.pendingSeek;
      this.pendingSeek = null;
      this.host.seek(t);
    }
    const playing = this.host.playing();
    const label = playing ? 'Pause' : 'Play';
    if (this.playBtn.getAttribute('aria-label') !== label) {
      this.playBtn.setAttribute('aria-label', label);
      this.playBtn.replaceChildren(icon(playing ? 'pause' : 'play'));
      toggleClass(this.playBtn, 'kp-on', playing);
    }
    const sp = this.host.speed();
    setText(this.speedOut, speedLabel(sp));
    if (document.activeElement !== this.speedIn) this.speedIn.value = String(Math.log10(sp));
    const now = this.host.now();
    const max = Math.max(tickEnd, this.host.horizon(), now, 1000);
    if (this.scrub.max !== String(max)) this.scrub.max = String(max);
    if (!this.scrubbing && this.pendingSeek === null) this.scrub.value = String(now);
    setText(this.timeOut, `${fmtT(now)}`);
    this.timeOut.dataset.time = String(now);
  }
}
