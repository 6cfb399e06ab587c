// <kraft-playground>: the whole playground as one custom element. The site's main page,
// its embed page and any documentation page use this same element.
//
// Attributes: scenario, voters, observers, seed, network, autoplay, speed,
// controls=full|minimal, height, run (a share link), theme=light|dark, share-base,
// frameless. Property: `cluster` (the live Cluster), `player`.

import { Cluster, init, Player } from '../api.js';
import { Controls, MAX_SPEED, MIN_SPEED, type Settings } from './controls.js';
import { clamp, download, fmtT, h, setText, toggleClass } from './dom.js';
import { icon } from './icons.js';
import { Logs } from './logs.js';
import { renderCaption } from './markup.js';
import { FaultsPanel, InvariantsPanel, QuorumPanel, type NetworkProfile } from './panels.js';
import { Ring } from './ring.js';
import { findScenario, loadBundledScenarios, scenarioList, loadScenario, variantsOf, type LoadedScenario, type ScenarioStep } from './scenarios.js';
import { Store } from './store.js';
import { readTheme, type Theme } from './theme.js';
import { Timeline } from './timeline.js';
import { STATES, SWITCHES, type NodeInfo, type QuorumInfo, type UiEvent } from './types.js';

const DEFAULTS: Settings = { seed: 1, network: 'teaching', voters: 3, observers: 2 };
const NETWORK_NAMES = ['teaching', 'datacenter', 'wan'];

interface Parsed {
  settings: Settings;
  seedGiven: boolean;
  scenario: string | null;
  variant: string | null;
  run: string | null;
  speed: number;
  autoplay: boolean;
  minimal: boolean;
  height: number | null;
  problems: string[];
}

/** Reads and checks the attributes; anything wrong becomes a message and a default. */
function parseAttributes(el: HTMLElement): Parsed {
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
  let height: number | null = null;
  const hg = get('height');
  if (hg !== null && hg !== '') {
    const v = Number(String(hg).replace(/px$/, ''));
    if (!Number.isFinite(v) || v < 240 || v > 2000) problems.push(`height=${show(hg)} is not allowed: use a number of pixels from 240 to 2000.`);
    else height = Math.round(v);
  }
  const auto = get('autoplay');
  const autoplay = auto !== null && auto !== 'false' && auto !== '0';
  let scenario = get('scenario') || null;
  let variant = get('variant') || null;
  if (scenario && scenario.includes(':') && !variant) [scenario, variant] = scenario.split(':', 2);
  const run = get('run') || null;
  return { settings, seedGiven, scenario, variant, run, speed, autoplay, minimal, height, problems };
}

function pickerValue(id: string, variant: string | null | undefined): string {
  return variant ? `${id}|${variant}` : id;
}

function show(s: string): string {
  const t = s.length > 40 ? s.slice(0, 37) + '…' : s;
  return JSON.stringify(t);
}

function cssUrl(): string {
  return new URL('./kraft-playground.css', import.meta.url).href;
}

export class KraftPlayground extends HTMLElement {
  static observedAttributes = ['scenario', 'variant', 'voters', 'observers', 'seed', 'network', 'speed', 'controls', 'height', 'run', 'autoplay', 'theme'];
  /** Where the element's stylesheet is (override before the element is created). */
  static stylesheet: string | null = null;
  /** Where the wasm core is (default: kraft_playground_bg.wasm next to this module). */
  static wasm: string | URL | null = null;

  #shadow: ShadowRoot;
  #root!: HTMLDivElement;
  #built = false;
  #cluster: Cluster | null = null;
  #player: Player | null = null;
  #unsub: (() => void) | null = null;
  #store = new Store();
  #nodes: NodeInfo[] = [];
  #quorum: QuorumInfo | null = null;
  #down: [number, number][] = [];
  #quorumAt = -1;
  #theme: Theme | null = null;
  #timeline!: Timeline;
  #ring!: Ring;
  #logs!: Logs;
  #controls!: Controls;
  #quorumPanel!: QuorumPanel;
  #invPanel!: InvariantsPanel;
  #faults!: FaultsPanel;
  #status!: HTMLDivElement;
  #notice!: HTMLDivElement;
  #crashBanner!: HTMLDivElement;
  #crashed = false;
  #lastNow = 0;
  #caption!: HTMLDivElement;
  #captionText!: HTMLDivElement;
  #captionStep!: HTMLSpanElement;
  #captionBtn!: HTMLButtonElement;
  #scenarioSel!: HTMLSelectElement;
  #menu!: HTMLDivElement;
  #menuNode = -1;
  #menuAnchor: HTMLElement | null = null;
  #overlay: HTMLDialogElement | null = null;
  #live!: HTMLDivElement;
  #summary!: HTMLDivElement;
  #summaryAt = 0;
  #toastEl: HTMLDivElement | null = null;
  #raf = 0;
  #lastWall = 0;
  #playing = false;
  #speed = 1;
  #settings: Settings = { ...DEFAULTS };
  #unsafe: string[] = [];
  #scenario: LoadedScenario | null = null;
  #captionShown = -2;
  #pausedAtStep = -1;
  #horizon = 0;
  #parsed: Parsed | null = null;
  #bootSeq = 0;
  #rebootTimer = 0;
  #bootTimer = 0;
  #resizeObs: ResizeObserver | null = null;
  #frameTimes: number[] = [];
  #announced = new Set<string>();
  #problems: string[] = [];
  #keyHandler = (e: KeyboardEvent) => this.#onKey(e);
  #docKeyHandler = (e: KeyboardEvent) => {
    if (e.target === document.body || e.target === document.documentElement) this.#onKey(e);
  };
  #schemeQuery: MediaQueryList | null = null;
  #onScheme = () => {
    this.#theme = null;
    this.#timeline?.invalidate();
    this.#logs?.invalidate();
  };

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
  }

  /** The live cluster (null until the first run is loaded). */
  get cluster(): Cluster | null {
    return this.#cluster;
  }
  /** The player driving it. */
  get player(): Player | null {
    return this.#player;
  }
  #resolveReady: () => void = () => {};
  /** Resolves when the first run is loaded. */
  ready: Promise<void> = new Promise((r) => (this.#resolveReady = r));

  /** Shows a message in the element's notice area (e.g. a page's unknown URL parameter). */
  addNotice(text: string): void {
    this.#extraNotices.push(String(text));
    if (this.#built) this.#showProblems();
  }
  #extraNotices: string[] = [];

  /** Frame times (ms of work per frame) recorded while playing, for benchmarks. */
  takeFrameTimes(): number[] {
    const t = this.#frameTimes;
    this.#frameTimes = [];
    return t;
  }

  connectedCallback(): void {
    if (!this.#built) this.#build();
    this.addEventListener('keydown', this.#keyHandler);
    if (this.#parsed && !this.#parsed.minimal) document.addEventListener('keydown', this.#docKeyHandler);
    this.#schemeQuery = window.matchMedia('(prefers-color-scheme: dark)');
    this.#schemeQuery.addEventListener('change', this.#onScheme);
    // Boot in a later task: a page script that imported this module may still be
    // setting attributes (its URL parameters) in this one.
    if (!this.#cluster && !this.#bootTimer) {
      this.#bootTimer = window.setTimeout(() => {
        this.#bootTimer = 0;
        void this.#boot();
      }, 0);
    }
    this.#startLoop();
  }

  disconnectedCallback(): void {
    this.removeEventListener('keydown', this.#keyHandler);
    document.removeEventListener('keydown', this.#docKeyHandler);
    this.#schemeQuery?.removeEventListener('change', this.#onScheme);
    cancelAnimationFrame(this.#raf);
    this.#raf = 0;
  }

  attributeChangedCallback(name: string, old: string | null, val: string | null): void {
    if (!this.#built || old === val) return;
    if (name === 'theme') {
      this.#onScheme();
      return;
    }
    if (!this.#cluster) return;
    if (name === 'speed') {
      const v = Number(val);
      if (Number.isFinite(v) && v >= MIN_SPEED && v <= MAX_SPEED) this.#setSpeed(v);
      return;
    }
    if (name === 'autoplay') return;
    clearTimeout(this.#rebootTimer);
    this.#rebootTimer = window.setTimeout(() => void this.#boot(), 0);
  }

  // ---- building the DOM ------------------------------------------------------------------

  #build(): void {
    this.#built = true;
    const link = h('link', { rel: 'stylesheet', href: KraftPlayground.stylesheet ?? cssUrl() });
    this.#root = h('div', { class: 'kp-root' });
    link.addEventListener('load', () => {
      this.#root.classList.add('kp-ready');
      this.#theme = null;
      this.#timeline.invalidate();
    });
    link.addEventListener('error', () => this.#root.classList.add('kp-ready'));
    this.#shadow.append(link, this.#root);

    const host = {
      now: () => this.#now(),
      theme: () => this.#getTheme(),
    };
    this.#timeline = new Timeline(this.#store, {
      ...host,
      seek: (t) => this.#seek(t),
      nodeLabel: (n) => `n${n}`,
      isObserver: (n) => this.#nodes[n]?.role === 'observer',
    });
    this.#ring = new Ring(this.#store, {
      ...host,
      nodes: () => this.#nodes,
      openNode: (id, anchor) => this.#openMenu(id, anchor),
      hiddenGroups: () => this.#timeline.hiddenGroups,
      downLinks: () => this.#down,
    });
    this.#logs = new Logs({
      ...host,
      nodes: () => this.#nodes,
      lastHw: (id) => {
        const st = this.#store.hw[id];
        if (!st) return null;
        const now = this.#now();
        for (let i = st.t.length - 1; i >= 0; i--) if (st.t[i] <= now && !Number.isNaN(st.v[i])) return st.v[i];
        return null;
      },
      records: (id, from, limit) => {
        try {
          return this.#cluster ? this.#cluster.log(id, { from, limit }) : [];
        } catch {
          return [];
        }
      },
    });
    const panelHost = {
      now: () => this.#now(),
      nodes: () => this.#nodes,
      quorum: () => this.#quorum,
      downLinks: () => this.#down,
      partition: (groups: number[][]) => this.#act('partition', (c) => c.partition(groups)),
      cut: (a: number, b: number) => this.#act('cut', (c) => c.cut(a, b)),
      heal: () => this.#act('heal', (c) => c.heal()),
      network: (): NetworkProfile => (this.#cluster ? this.#cluster.network() : { latencyMs: [60, 140], loss: 0, duplicate: 0 }),
      setNetwork: (p: NetworkProfile) => this.#act('network', (c) => c.setNetwork(p)),
      workload: () => (this.#cluster ? this.#cluster.writesPerSecond : 0),
      setWorkload: (w: number) => this.#act('workload', (c) => c.setWorkload({ writesPerSecond: w })),
      unsafe: () => this.#unsafe,
      setUnsafe: (list: string[]) => {
        this.#unsafe = list;
        const sc = this.#scenario;
        // in a story: the same story without those rules (on top of its own switches)
        if (sc) void this.#loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: list });
        else void this.#newRun();
      },
      showViolation: (v: UiEvent) => this.#showViolation(v),
    };
    this.#quorumPanel = new QuorumPanel(panelHost);
    this.#invPanel = new InvariantsPanel(this.#store, panelHost);
    this.#faults = new FaultsPanel(panelHost);
    this.#controls = new Controls(
      {
        playing: () => this.#playing,
        setPlaying: (on) => this.#setPlaying(on),
        step: () => this.#step(),
        speed: () => this.#curSpeed(),
        setSpeed: (s) => this.#setSpeed(s),
        now: () => this.#now(),
        horizon: () => this.#horizon,
        seek: (t) => this.#seek(t),
        reset: () => void this.#reset(),
        settings: () => this.#settings,
        applySettings: (s) => {
          const sc = this.#scenario;
          const old = this.#settings;
          this.#settings = s;
          if (sc && s.voters === old.voters && s.observers === old.observers && s.network === old.network) {
            // the same story with another seed
            void this.#loadScenario(sc.id, sc.variant, { seed: s.seed, unsafe: this.#unsafe });
            return;
          }
          this.#scenario = null;
          this.#scenarioSel.value = '';
          void this.#newRun();
        },
        randomSeed: () => Math.floor(Math.random() * 1_000_000),
      },
      false,
    );

    // top bar
    this.#scenarioSel = h('select', { class: 'kp-scenario', 'aria-label': 'Scenario' });
    this.#scenarioSel.addEventListener('change', () => void this.#pickScenario(this.#scenarioSel.value));
    this.#status = h('div', { class: 'kp-status', role: 'status', 'data-leader': '' }, h('span', { class: 'kp-dot' }), h('span', { class: 'kp-status-text' }, 'Starting…'));
    const share = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'share', title: 'A link that reproduces this exact run', 'aria-label': 'Share' }, icon('link'), h('span', { class: 'kp-btn-label' }, 'Share'));
    share.addEventListener('click', () => this.#openShare());
    const exportBtn = h('button', { class: 'kp-btn', type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false', 'data-action': 'export', 'aria-label': 'Export' }, icon('download'), h('span', { class: 'kp-btn-label' }, 'Export'));
    const exportMenu = h(
      'div',
      { class: 'kp-export-menu', hidden: true, role: 'menu' },
      this.#menuItem('Trace as JSON', () => this.#exportJson()),
      this.#menuItem('Trace as text', () => this.#exportText()),
      this.#menuItem('Timeline as PNG', () => this.#exportPng()),
    );
    exportBtn.addEventListener('click', () => {
      exportMenu.hidden = !exportMenu.hidden;
      exportBtn.setAttribute('aria-expanded', String(!exportMenu.hidden));
    });
    exportMenu.addEventListener('click', () => {
      exportMenu.hidden = true;
      exportBtn.setAttribute('aria-expanded', 'false');
    });
    const help = h('button', { class: 'kp-btn', type: 'button', 'aria-label': 'Help and keyboard shortcuts', title: 'Help (?)', 'data-action': 'help' }, '?');
    help.addEventListener('click', () => this.#openHelp());
    const top = h(
      'div',
      { class: 'kp-top' },
      this.#scenarioSel,
      this.#status,
      h('div', { class: 'kp-spacer' }),
      share,
      h('div', { class: 'kp-export' }, exportBtn, exportMenu),
      help,
    );
    this.#notice = h('div', { class: 'kp-notice', role: 'alert', hidden: true });
    this.#crashBanner = h('div', { class: 'kp-crash', role: 'alert', hidden: true, 'data-crash': '' });
    this.#captionText = h('div', { class: 'kp-caption-text', 'aria-live': 'polite' });
    this.#captionStep = h('span', { class: 'kp-caption-step' });
    this.#captionBtn = h('button', { class: 'kp-btn kp-primary', type: 'button', 'data-action': 'continue' }, 'Continue ▶');
    this.#captionBtn.addEventListener('click', () => this.#setPlaying(true));
    this.#caption = h('div', { class: 'kp-caption', hidden: true, 'data-caption': '' }, h('div', { class: 'kp-caption-body' }, this.#captionStep, this.#captionText), this.#captionBtn);

    const ringCard = h(
      'section',
      { class: 'kp-card', 'aria-label': 'Cluster' },
      h('div', { class: 'kp-card-h' }, h('b', null, 'Cluster'), h('span', null, 'tap a node for actions')),
      this.#ring.el,
    );
    const tlCard = h(
      'section',
      { class: 'kp-card', 'aria-label': 'Timeline' },
      h('div', { class: 'kp-card-h' }, h('b', null, 'Timeline'), h('span', null, 'drag to pan · wheel or pinch to zoom · tap an arrow for details')),
      this.#timeline.legend(() => this.#ring.invalidate()),
      this.#timeline.el,
    );
    const stage = h('div', { class: 'kp-stage' }, ringCard, tlCard);
    const logsPanel = h(
      'section',
      { class: 'kp-panel kp-logs-panel', 'aria-label': 'Logs' },
      h('h3', null, 'Logs ', h('span', { class: 'kp-sub' }, 'colour = epoch · ★ LeaderChange · faded = above the HW · red underline = not flushed · ▲ LEO · cyan bar = HW')),
      this.#logs.el,
    );
    const panels = h('div', { class: 'kp-panels' }, logsPanel, this.#quorumPanel.el, this.#invPanel.el, this.#faults.el);
    this.#menu = h('div', { class: 'kp-menu', hidden: true, role: 'dialog', 'aria-label': 'Node actions' });
    this.#live = h('div', { class: 'kp-sr-only', 'aria-live': 'polite', 'data-live': '' });
    this.#summary = h('div', { class: 'kp-sr-only', 'data-summary': '' });
    this.#root.append(top, this.#crashBanner, this.#notice, this.#caption, stage, this.#controls.el, this.#controls.settingsEl, panels, this.#menu, this.#live, this.#summary);

    this.#root.addEventListener('pointerdown', (e) => {
      const path = e.composedPath();
      if (!this.#menu.hidden && !path.includes(this.#menu) && !path.some((n) => n instanceof HTMLElement && n.classList.contains('kp-node-btn'))) this.#closeMenu();
      if (!exportMenu.hidden && !path.includes(exportMenu) && !path.includes(exportBtn)) exportMenu.hidden = true;
    });

    this.#resizeObs = new ResizeObserver(() => this.#layout());
    this.#resizeObs.observe(ringCard);
    this.#resizeObs.observe(tlCard);
    this.#resizeObs.observe(logsPanel);
  }

  #menuItem(label: string, fn: () => void): HTMLButtonElement {
    const b = h('button', { class: 'kp-btn', type: 'button', role: 'menuitem' }, label);
    b.addEventListener('click', fn);
    return b;
  }

  #layout(): void {
    const ring = this.#ring.el.getBoundingClientRect();
    this.#ring.resize(Math.floor(ring.width), Math.floor(ring.height));
    const tl = this.#timeline.el.getBoundingClientRect();
    this.#timeline.resize(Math.floor(tl.width), Math.floor(tl.height));
    const lw = this.#logs.el.getBoundingClientRect();
    this.#logs.resize(Math.floor(lw.width));
    this.#ring.invalidate();
  }

  #getTheme(): Theme {
    if (!this.#theme) this.#theme = readTheme(this);
    return this.#theme;
  }

  // ---- runs ---------------------------------------------------------------------------------

  async #boot(): Promise<void> {
    const p = (this.#parsed = parseAttributes(this));
    this.#problems = [...p.problems];
    this.#root.dataset.controls = p.minimal ? 'minimal' : 'full';
    if (p.height) this.style.setProperty('--kp-stage-h', `${p.height}px`);
    this.#settings = { ...p.settings };
    if (!p.seedGiven) this.#settings.seed = Math.floor(Math.random() * 1_000_000);
    this.#speed = p.speed;
    document.removeEventListener('keydown', this.#docKeyHandler);
    if (!p.minimal) document.addEventListener('keydown', this.#docKeyHandler);
    // The core loads while the scenario library does.
    const core = init(KraftPlayground.wasm ?? new URL('./kraft_playground_bg.wasm', import.meta.url)).then(
      () => null,
      (e: Error) => e,
    );
    await loadBundledScenarios();
    this.#fillScenarioPicker();
    const failed = await core;
    if (failed) {
      this.#problems.push(`The simulation core could not be loaded: ${failed.message}`);
      this.#showProblems();
      return;
    }
    let loaded = false;
    if (p.run) {
      loaded = await this.#loadLink(p.run, p.scenario, p.variant);
    } else if (p.scenario) {
      const entry = findScenario(p.scenario);
      if (!entry) {
        const known = scenarioList().map((s) => s.id);
        this.#problems.push(`There is no scenario ${show(p.scenario)}.${known.length ? ` Known scenarios: ${known.join(', ')}.` : ''} Showing a free-play cluster instead.`);
      } else {
        loaded = await this.#loadScenario(entry.id, p.variant, p.seedGiven ? { seed: p.settings.seed } : {});
      }
    } else if (p.variant) {
      this.#problems.push(`variant=${show(p.variant)} needs a scenario; ignored.`);
    }
    if (!loaded) await this.#newRun();
    this.#showProblems();
    this.#controls.syncSettings();
    // a shared link shows its moment; press play to go on from there
    const fromLink = !!p.run && loaded;
    if (p.autoplay && !fromLink && !this.#pauseAtStart()) this.#setPlaying(true);
    this.#resolveReady();
  }

  #pauseAtStart(): boolean {
    const s = this.#scenario;
    return !!s && s.steps.some((st) => st.pause && st.t === this.#now());
  }

  async #loadLink(link: string, scenarioId: string | null, variant: string | null): Promise<boolean> {
    try {
      const c = await Cluster.fromLink(link);
      const o = c.options as { voters?: number; observers?: number; seed?: number; network?: unknown; unsafe?: string[] };
      this.#settings = {
        seed: c.seed,
        voters: c.voters,
        observers: c.observers,
        network: typeof o.network === 'string' ? o.network : 'teaching',
      };
      this.#unsafe = o.unsafe ?? [];
      this.#scenario = null;
      if (scenarioId) {
        const entry = findScenario(scenarioId);
        if (entry) {
          try {
            const s = await loadScenario(entry, { variant, seed: c.seed, unsafe: this.#unsafe });
            // captions only: the run itself is the link's
            this.#scenario = { ...s, cluster: null, futureEvents: undefined };
            s.cluster?.dispose();
            this.#scenarioSel.value = pickerValue(entry.id, variant);
          } catch {
            /* captions are optional for a link */
          }
        }
      }
      this.#install(c);
      return true;
    } catch (e) {
      this.#problems.push(`This link could not be loaded: ${(e as Error).message}. Showing a default cluster instead.`);
      return false;
    }
  }

  async #pickScenario(value: string): Promise<void> {
    if (!value) {
      this.#scenario = null;
      this.#unsafe = [];
      await this.#newRun();
    } else {
      const [id, variant] = value.split('|');
      await this.#loadScenario(id, variant ?? null);
    }
    this.#emitChange();
  }

  async #loadScenario(id: string, variant: string | null = null, opts: { seed?: number | null; unsafe?: string[] } = {}): Promise<boolean> {
    const entry = findScenario(id);
    if (!entry) return false;
    const seq = ++this.#bootSeq;
    try {
      const s = await loadScenario(entry, { variant, seed: opts.seed, unsafe: opts.unsafe });
      if (seq !== this.#bootSeq) {
        s.cluster?.dispose();
        return false;
      }
      this.#scenario = s;
      this.#unsafe = s.unsafe;
      this.#settings = { ...this.#settings, ...s.settings };
      this.#scenarioSel.value = pickerValue(id, s.variant);
      this.#install(s.cluster!);
      this.#setPlaying(false);
      return true;
    } catch (e) {
      this.#problems.push(`The scenario ${show(variant ? `${id}:${variant}` : id)} could not be loaded: ${(e as Error).message}`);
      this.#showProblems();
      if (this.#cluster) this.#scenarioSel.value = this.#scenario ? pickerValue(this.#scenario.id, this.#scenario.variant) : '';
      return false;
    }
  }

  /** A fresh run from the current settings. */
  async #newRun(): Promise<void> {
    const seq = ++this.#bootSeq;
    const s = this.#settings;
    try {
      const c = await Cluster.create({
        voters: s.voters,
        observers: s.observers,
        seed: s.seed,
        network: s.network as 'teaching',
        unsafe: this.#unsafe as never[],
      });
      if (seq !== this.#bootSeq) {
        c.dispose();
        return;
      }
      this.#scenario = null;
      this.#scenarioSel.value = '';
      this.#install(c);
      this.#emitChange();
    } catch (e) {
      this.#problems.push(`Could not start the simulation: ${(e as Error).message}`);
      this.#showProblems();
    }
  }

  async #reset(): Promise<void> {
    const sc = this.#scenario;
    if (sc) {
      await this.#loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: this.#unsafe });
      return;
    }
    const wasPlaying = this.#playing;
    await this.#newRun();
    if (wasPlaying) this.#setPlaying(true);
  }

  /** Puts a cluster on screen. */
  #install(c: Cluster): void {
    this.#clearCrash();
    const wasPlaying = this.#playing;
    this.#setPlaying(false);
    this.#unsub?.();
    this.#player?.destroy();
    if (this.#cluster && this.#cluster !== c) this.#cluster.dispose();
    this.#cluster = c;
    this.#player = new Player(c, { speed: this.#curSpeed() });
    this.#store.reset(c.nodeCount);
    this.#logs.clearGhosts();
    this.#announced.clear();
    this.#captionShown = -2;
    // a story that asks to pause at its very start waits there for "Continue"
    this.#pausedAtStep = this.#scenario?.steps.find((st) => st.pause && st.t === c.now)?.index ?? -1;
    this.#timeline.highlight.clear();
    this.#closeMenu();
    // Everything recorded so far, including the future of a scenario loaded and rewound.
    // Everything so far, or the last two minutes of a very long run.
    const all = c.eventCount <= 150_000;
    this.#store.add((all ? c.events() : c.events({ from: Math.max(0, c.now - 120_000), to: c.now })) as UiEvent[]);
    if (this.#scenario?.futureEvents) this.#store.add(this.#scenario.futureEvents);
    this.#horizon = Math.max(this.#store.lastT, c.now, this.#scenario?.endMs ?? 0);
    this.#unsub = this.#player.subscribe((f) => this.#onFrame(f.events as UiEvent[], f.reset));
    this.#refreshViews(true);
    this.#faults.sync();
    this.#controls.syncSettings();
    this.#controls.setTicks(
      (this.#scenario?.steps ?? []).filter((s) => s.t !== null && s.caption).map((s) => ({ t: s.t!, label: s.caption ?? '' })),
      this.#horizon,
    );
    this.#timeline.setFollow(true);
    this.#timeline.invalidate();
    this.#ring.invalidate();
    this.#logs.invalidate();
    this.#updateCaption(true);
    if (wasPlaying && !this.#scenario) this.#setPlaying(true);
    this.#emitChange();
  }

  // ---- the loop -----------------------------------------------------------------------------

  #now(): number {
    try {
      if (this.#cluster) this.#lastNow = this.#cluster.now;
      else return 0;
    } catch {
      /* a crashed core: the last time seen */
    }
    return this.#lastNow;
  }

  #startLoop(): void {
    if (this.#raf) return;
    this.#lastWall = performance.now();
    const loop = (wall: number) => {
      this.#raf = requestAnimationFrame(loop);
      this.#frame(wall);
    };
    this.#raf = requestAnimationFrame(loop);
  }

  #frame(wall: number): void {
    const elapsed = Math.max(0, Math.min(100, wall - this.#lastWall));
    this.#lastWall = wall;
    const p = this.#player;
    const c = this.#cluster;
    if (!p || !c) return;
    if (c.broken) {
      this.#showCrash(c);
      return;
    }
    const t0 = performance.now();
    if (this.#playing) {
      const now = c.now;
      const stop = this.#nextPause(now);
      // A story stops at its end so the reader sees how it came out; play goes on freely.
      const end = this.#scenario && now < this.#scenario.endMs ? this.#scenario.endMs : null;
      const reach = now + elapsed * p.speed;
      try {
        if (stop !== null && stop.t !== null && reach >= stop.t && (end === null || stop.t <= end)) {
          p.seek(stop.t);
          this.#pausedAtStep = stop.index;
          this.#setPlaying(false);
        } else if (end !== null && reach >= end) {
          p.seek(end);
          this.#setPlaying(false);
        } else {
          const a = performance.now();
          const f = p.tick(elapsed);
          if (this.#profile) (this.#profile.tick ??= []).push(performance.now() - a);
          if (f.error) throw f.error;
        }
      } catch (e) {
        this.#setPlaying(false);
        this.#failed('The simulation stopped', e);
      }
      if (c.broken) {
        this.#showCrash(c);
        return;
      }
    }
    this.#draw();
    if (this.#playing) {
      this.#frameTimes.push(performance.now() - t0);
      if (this.#frameTimes.length > 20_000) this.#frameTimes.splice(0, 10_000);
    }
  }

  #nextPause(now: number): ScenarioStep | null {
    const s = this.#scenario;
    if (!s) return null;
    for (const st of s.steps) {
      if (st.pause && st.t !== null && st.t > now && st.index !== this.#pausedAtStep) return st;
    }
    return null;
  }

  /** The player's listener: new events (or a rewind). */
  #onFrame(events: UiEvent[], reset: boolean): void {
    const c = this.#cluster;
    if (!c) return;
    const a = performance.now();
    this.#onFrameInner(c, events, reset);
    if (this.#profile) (this.#profile.onFrame ??= []).push(performance.now() - a);
  }

  #onFrameInner(c: Cluster, events: UiEvent[], reset: boolean): void {
    if (reset) {
      this.#logs.clearGhosts();
      if (c.now < this.#store.firstT) {
        // travelled back before the history the store still holds (a long run): start
        // again from the last minute before here, regenerated by the cluster
        this.#store.reset(c.nodeCount);
        this.#store.add(c.events({ from: Math.max(0, c.now - 60_000), to: c.now }) as UiEvent[]);
      }
    }
    if (events.length) {
      // After a seek back, the store already holds these (the recorded future); check
      // the first one still matches, else the run forked.
      const first = events[0];
      if (first.seq <= this.#store.lastSeq) {
        const held = this.#store.events[this.#store.events.length - 1 - (this.#store.lastSeq - first.seq)];
        if (!held || held.seq !== first.seq || held.text !== first.text) this.#store.truncateAfter(first.seq - 1);
      }
      this.#store.add(events);
      this.#store.compact();
      this.#react(events);
    }
    this.#horizon = Math.max(this.#horizon, c.now);
    this.#refreshViews(events.length > 0 || reset);
  }

  /** Effects of events crossing "now": ghosts, flashes, announcements. */
  #react(events: UiEvent[]): void {
    const drops: number[] = [];
    for (const e of events) {
      switch (e.type) {
        case 'truncate':
          if (typeof e.node === 'number') this.#logs.noteTruncate(e.node, Number(e.to ?? 0), e.t);
          break;
        case 'drop':
          drops.push(e.msg ?? -1);
          break;
        case 'state':
          if (e.to === 'leader') this.#announce(`${fmtT(e.t)}: n${e.node} became leader of epoch ${e.epoch}.`);
          break;
        case 'crash':
          this.#announce(`${fmtT(e.t)}: n${e.node} crashed.`);
          break;
        case 'restart':
          this.#announce(`${fmtT(e.t)}: n${e.node} restarted.`);
          break;
        case 'violation':
          this.#announce(`${fmtT(e.t)}: invariant ${e.invariant} violated. ${e.detail ?? ''}`);
          break;
        default:
          break;
      }
    }
    if (drops.length) this.#ring.noteDrops(drops);
  }

  #announce(text: string): void {
    if (this.#announced.has(text)) return;
    this.#announced.add(text);
    const line = h('div', null, text);
    this.#live.appendChild(line);
    while (this.#live.childNodes.length > 8) this.#live.firstChild!.remove();
  }

  /** Re-read what the panels show from the cluster. */
  #refreshViews(changed: boolean): void {
    const c = this.#cluster;
    if (!c || c.broken) return;
    try {
      this.#nodes = c.nodes({ records: false }) as unknown as NodeInfo[];
      if (changed) this.#down = c.downLinks();
      const wall = performance.now();
      if (changed || wall - this.#quorumAt > 250) {
        this.#quorum = c.describeQuorum();
        this.#quorumAt = wall;
      }
    } catch (e) {
      this.#toast((e as Error).message);
    }
    if (changed) {
      this.#logs.invalidate();
      this.#timeline.invalidate();
    }
  }

  #draw(): void {
    if (!this.#cluster) return;
    const P = this.#profile;
    let t = P ? performance.now() : 0;
    const lap = (name: string) => {
      if (!P) return;
      const n = performance.now();
      (P[name] ??= []).push(n - t);
      t = n;
    };
    this.#timeline.frame();
    lap('timeline');
    this.#ring.frame();
    lap('ring');
    if (!this.#parsed?.minimal) {
      this.#logs.frame();
      lap('logs');
      this.#quorumPanel.frame();
      this.#invPanel.frame();
      this.#faults.frame();
      lap('panels');
    }
    this.#controls.frame(this.#scenario?.endMs ?? 0);
    this.#updateStatus();
    this.#updateCaption(false);
    if (!this.#menu.hidden) this.#renderMenu();
    lap('controls');
    const wall = performance.now();
    if (wall - this.#summaryAt > (this.#playing ? 500 : 250)) {
      this.#summaryAt = wall;
      this.#updateSummary();
      lap('summary');
    }
  }

  #profile: Record<string, number[]> | null = null;
  /** Starts (true) or stops (false) timing each part of a frame; returns what was timed. */
  profile(on: boolean): Record<string, number[]> | null {
    const out = this.#profile;
    this.#profile = on ? {} : null;
    return out;
  }

  // ---- playback --------------------------------------------------------------------------------

  #setPlaying(on: boolean): void {
    if (on && (!this.#cluster || this.#crashed)) return;
    this.#playing = on;
    this.#lastWall = performance.now();
    this.toggleAttribute('data-playing', on);
  }

  #step(): void {
    this.#setPlaying(false);
    try {
      this.#player?.step();
    } catch (e) {
      this.#failed('step', e);
    }
  }

  #curSpeed(): number {
    return this.#player ? this.#player.speed : this.#speed;
  }

  #setSpeed(s: number): void {
    this.#speed = clamp(s, MIN_SPEED, MAX_SPEED);
    if (this.#player) this.#player.speed = this.#speed;
  }

  #seek(t: number): void {
    const p = this.#player;
    if (!p) return;
    const target = clamp(Math.round(t), 0, Math.max(this.#horizon, this.#now()) + 60_000);
    try {
      p.seek(target);
      this.#pausedAtStep = -1;
      const s = this.#scenario;
      if (s) {
        // landing exactly on a pause step counts as having paused there
        const at = s.steps.find((st) => st.pause && st.t === target);
        if (at) this.#pausedAtStep = at.index;
      }
    } catch (e) {
      this.#failed('travel in time', e);
    }
    if (this.#timeline.follow) this.#timeline.invalidate();
  }

  #showViolation(v: UiEvent): void {
    this.#setPlaying(false);
    this.#seek(v.t);
    this.#timeline.highlight = new Set([v.seq, ...(v.evidence ?? [])]);
    this.#timeline.focus(v.t);
    this.#timeline.invalidate();
  }

  // ---- actions --------------------------------------------------------------------------------

  #act(what: string, fn: (c: Cluster) => unknown): unknown {
    const c = this.#cluster;
    if (!c || this.#crashed) return undefined;
    // a network change still settling goes first, so actions keep the order they were made in
    if (what !== 'network') this.#faults.settle();
    const seqBefore = c.lastSeq;
    let out: unknown;
    try {
      out = fn(c);
    } catch (e) {
      this.#failed(what, e);
      return undefined;
    }
    // an action forks the run: the recorded future is gone
    if (this.#store.lastSeq > seqBefore) {
      this.#toast('The run forks here: what was recorded after this moment is replaced.');
      this.#store.truncateAfter(seqBefore);
      this.#horizon = c.now;
      if (this.#scenario) this.#scenario = { ...this.#scenario, steps: this.#scenario.steps.filter((s) => s.t !== null && s.t <= c.now) };
    }
    this.#player?.refresh();
    this.#faults.sync();
    this.#emitChange();
    return out;
  }

  #openMenu(id: number, anchor: HTMLElement): void {
    if (this.#menuNode === id && !this.#menu.hidden) {
      this.#closeMenu();
      return;
    }
    this.#menuAnchor?.setAttribute('aria-expanded', 'false');
    this.#menuNode = id;
    this.#menuAnchor = anchor;
    anchor.setAttribute('aria-expanded', 'true');
    this.#menu.hidden = false;
    this.#menuKey = '';
    this.#renderMenu();
    const r = anchor.getBoundingClientRect();
    const root = this.#root.getBoundingClientRect();
    const mw = this.#menu.offsetWidth;
    let left = r.right - root.left + 6;
    if (left + mw > root.width - 4) left = r.left - root.left - mw - 6;
    if (left < 4) left = clamp(r.left - root.left + r.width / 2 - mw / 2, 4, Math.max(4, root.width - mw - 4));
    const narrow = root.width < 560;
    this.#menu.classList.toggle('kp-menu-wide', narrow);
    this.#menu.style.left = `${narrow ? 8 : left}px`;
    this.#menu.style.top = `${narrow ? r.bottom - root.top + 8 : Math.max(4, r.top - root.top - 10)}px`;
    (this.#menu.querySelector('button') as HTMLButtonElement | null)?.focus({ preventScroll: true });
  }

  #closeMenu(): void {
    if (this.#menu.hidden) return;
    this.#menu.hidden = true;
    this.#menuAnchor?.setAttribute('aria-expanded', 'false');
    this.#menuNode = -1;
  }

  #menuKey = '';

  #menuFacts: HTMLDivElement[] = [];

  /** The node menu: facts updated in place every frame; buttons rebuilt only when the
   * set of actions changes (so a click never lands on a replaced button). */
  #renderMenu(): void {
    const n = this.#nodes[this.#menuNode];
    if (!n) return;
    const others = this.#nodes.length - 1;
    const isolated = others > 0 && this.#down.filter(([a, b]) => a === n.id || b === n.id).length === 2 * others;
    const crashed = n.state === 'crashed';
    const leader = n.state === 'leader';
    const slow = (n.flushMs ?? 1) >= 100;
    const id = n.id;
    const facts = [
      `${n.role} · ${n.state} · epoch ${n.epoch}`,
      `LEO ${n.leo} · HW ${n.hw ?? '–'} · flushed ${n.flushed ?? '–'}`,
      `leader ${n.leader ?? '–'} · votedFor ${n.votedFor ?? '–'}`,
      n.timer ? `${n.timer.kind} timer: ${Math.max(0, n.timer.deadline - this.#now())} ms left` : 'no timer running',
      `disk flush: ${n.flushMs ?? 1} ms`,
    ];
    const key = `${id}:${crashed}:${leader}:${isolated}:${slow}`;
    if (key !== this.#menuKey) {
      this.#menuKey = key;
      const btn = (label: string, action: string, fn: () => void, opts: { danger?: boolean; disabled?: boolean; title?: string } = {}) => {
        const b = h('button', { class: `kp-btn${opts.danger ? ' kp-btn-danger' : ''}`, type: 'button', 'data-node-action': action, disabled: !!opts.disabled, title: opts.title }, label);
        b.addEventListener('click', () => fn());
        return b;
      };
      this.#menuFacts = facts.map(() => h('div'));
      this.#menu.replaceChildren(
        h('h4', null, `Node n${id}`),
        h('div', { class: 'kp-menu-facts' }, ...this.#menuFacts),
        h(
          'div',
          { class: 'kp-menu-actions' },
          crashed ? btn('↻ Restart', 'restart', () => this.#act('restart', (c) => c.restart(id))) : btn('✕ Crash', 'crash', () => this.#act('crash', (c) => c.crash(id)), { danger: true }),
          isolated ? btn('Reconnect all', 'heal', () => this.#act('heal', (c) => c.heal())) : btn('Isolate', 'isolate', () => this.#act('isolate', (c) => c.isolate(id)), { disabled: crashed }),
          btn('Resign', 'resign', () => this.#act('resign', (c) => c.resign()), { disabled: !leader, title: leader ? 'Graceful resignation: EndQuorumEpoch' : 'Only the leader can resign' }),
          btn('Write', 'write', () => {
            const r = this.#act('write', (c) => c.write()) as { accepted: boolean; offset?: number; reason?: string } | undefined;
            if (r) this.#toast(r.accepted ? `Write accepted at offset ${r.offset}` : `Write rejected: ${r.reason}`);
          }, { disabled: !leader, title: leader ? 'A client writes a metadata record' : 'Writes go to the leader' }),
          btn(slow ? 'Fast disk' : 'Slow disk', 'slow-disk', () => this.#act('slowDisk', (c) => c.slowDisk(id, slow ? 1 : 400)), { title: 'Flush latency 400 ms: the replica blocks while it flushes' }),
          btn('Wipe disk', 'wipe', () => this.#act('wipe', (c) => c.wipe(id)), { danger: true, title: 'Crash and lose the whole disk' }),
        ),
      );
    }
    facts.forEach((f, i) => setText(this.#menuFacts[i], f));
  }

  // ---- status, captions, summary ---------------------------------------------------------------

  #updateStatus(): void {
    const c = this.#cluster;
    if (!c) return;
    let text: string;
    let leaderAttr = '';
    let leader: { id: number; epoch: number } | null = null;
    try {
      leader = c.leader();
    } catch {
      /* broken */
    }
    const nodes = this.#nodes;
    if (leader) {
      const ln = nodes[leader.id];
      text = `Leader n${leader.id} · epoch ${leader.epoch} · HW ${ln?.hw ?? '–'}`;
      leaderAttr = String(leader.id);
    } else {
      const maxEpoch = Math.max(0, ...nodes.map((n) => n.epoch));
      text = `No leader · epoch ${maxEpoch} · electing`;
    }
    const vs = this.#store.violations.filter((v) => v.t <= c.now).length;
    if (vs) text += ` · ⚠ ${vs} violation${vs > 1 ? 's' : ''}`;
    if (this.#unsafe.length) text += ` · unsafe: ${this.#unsafe.join(', ')}`;
    setText(this.#status.lastChild!, text);
    if (this.#status.dataset.leader !== leaderAttr) this.#status.dataset.leader = leaderAttr;
    this.#status.dataset.epoch = String(leader?.epoch ?? '');
    toggleClass(this.#status, 'kp-bad', vs > 0);
  }

  #updateCaption(force: boolean): void {
    const s = this.#scenario;
    if (!s) {
      if (!this.#caption.hidden) this.#caption.hidden = true;
      this.#captionShown = -2;
      return;
    }
    const now = this.#now();
    let cur: ScenarioStep | null = null;
    for (const st of s.steps) if (st.caption && st.t !== null && st.t <= now) cur = st;
    const idx = cur ? cur.index : -1;
    const waiting = !this.#playing && cur !== null && cur.pause && this.#pausedAtStep === cur.index;
    const key = idx * 2 + (waiting ? 1 : 0);
    if (!force && key === this.#captionShown) return;
    this.#captionShown = key;
    this.#caption.hidden = false;
    toggleClass(this.#caption, 'kp-wait', waiting);
    this.#captionBtn.hidden = !waiting;
    const captioned = s.steps.filter((st) => st.caption);
    if (!cur) {
      setText(this.#captionStep, `${s.title}${s.unsafe.length ? ` · unsafe: ${s.unsafe.join(', ')}` : ''}`);
      this.#captionText.replaceChildren(renderCaption(s.summary || 'Press play to start the story.'));
      this.#captionText.dataset.step = '';
    } else {
      setText(this.#captionStep, `${s.title} · step ${captioned.indexOf(cur) + 1} of ${captioned.length} · at ${fmtT(cur.t ?? 0)}${waiting ? ' · paused so you can look' : ''}`);
      this.#captionText.replaceChildren(renderCaption(cur.caption ?? ''));
      this.#captionText.dataset.step = String(cur.index);
    }
  }

  #sum: {
    head: HTMLParagraphElement;
    tbody: HTMLTableSectionElement;
    win: HTMLParagraphElement;
    marks: HTMLOListElement;
    states: HTMLOListElement;
    inv: HTMLParagraphElement;
    logs: HTMLDivElement;
    rows: HTMLTableCellElement[][];
    marksKey: string;
    statesKey: string;
  } | null = null;

  /** The accessible text form of what the canvases show (also what tests read). */
  #updateSummary(): void {
    const c = this.#cluster;
    if (!c) return;
    let S = this.#sum;
    if (!S) {
      S = this.#sum = {
        head: h('p', { 'data-leader': '' }),
        tbody: h('tbody'),
        win: h('p', { 'data-window': '' }),
        marks: h('ol', { 'data-timeline': '' }),
        states: h('ol', { 'data-states': '' }),
        inv: h('p', { 'data-invariants': 'ok' }),
        logs: h('div', { 'data-logs': '' }),
        rows: [],
        marksKey: '',
        statesKey: '',
      };
      this.#summary.replaceChildren(
        h('h2', null, 'What the playground shows'),
        S.head,
        h('table', null, h('caption', null, 'Nodes'), h('thead', null, h('tr', null, ...['Node', 'Role', 'State', 'Epoch', 'LEO', 'HW', 'Log start'].map((x) => h('th', null, x)))), S.tbody),
        S.win,
        h('h3', null, 'Timeline events in view'),
        S.marks,
        h('h3', null, 'State changes in view'),
        S.states,
        S.inv,
        S.logs,
      );
    }
    const now = c.now;
    const nodes = this.#nodes;
    let leader: { id: number; epoch: number } | null = null;
    try {
      leader = c.leader();
    } catch {
      /* broken */
    }
    setText(S.head, leader ? `At ${fmtT(now)}: the leader is n${leader.id} in epoch ${leader.epoch}.` : `At ${fmtT(now)}: there is no leader.`);
    S.head.dataset.leader = leader ? String(leader.id) : '';
    S.head.dataset.epoch = leader ? String(leader.epoch) : '';
    if (S.rows.length !== nodes.length) {
      S.rows = nodes.map(() => Array.from({ length: 7 }, () => h('td')));
      S.tbody.replaceChildren(...S.rows.map((cells, i) => h('tr', { 'data-node': String(i) }, ...cells)));
    }
    nodes.forEach((n, i) => {
      const vals = [`n${n.id}`, n.role, n.state, String(n.epoch), String(n.leo), String(n.hw ?? 'none'), String(n.logStart)];
      vals.forEach((v, j) => setText(S!.rows[i][j], v));
      const tr = S!.rows[i][0].parentElement;
      if (tr && tr.dataset.state !== n.state) tr.dataset.state = n.state;
    });
    setText(S.win, this.#timeline.describeWindow());
    // what the timeline shows: the notable events in its window (up to now)
    const [t0, t1] = this.#timeline.window();
    const [a, b] = this.#store.markRange(Math.max(0, t0), Math.min(t1, now));
    const marks: number[] = [];
    for (let i = b - 1; i >= a && marks.length < 60; i--) {
      const k = this.#store.marks[i].kind;
      if (k !== 'write' && k !== 'vote') marks.push(i);
    }
    marks.reverse();
    const mk = marks.map((i) => this.#store.marks[i].seq).join(',');
    if (mk !== S.marksKey) {
      S.marksKey = mk;
      S.marks.replaceChildren(
        ...marks.map((i) => {
          const m = this.#store.marks[i];
          return h('li', { 'data-kind': m.kind, 'data-t': String(m.t) }, `${fmtT(m.t)} ${describeMark(m.kind, m.ev)}`);
        }),
      );
    }
    const [ea, eb] = this.#store.eventRange(Math.max(0, t0), Math.min(t1, now));
    const st: UiEvent[] = [];
    for (let i = eb - 1; i >= ea && st.length < 40; i--) {
      const e = this.#store.events[i];
      if (e.type === 'state') st.push(e);
    }
    st.reverse();
    const sk = st.map((e) => e.seq).join(',');
    if (sk !== S.statesKey) {
      S.statesKey = sk;
      S.states.replaceChildren(...st.map((e) => h('li', { 'data-kind': 'state', 'data-t': String(e.t) }, `${fmtT(e.t)} n${e.node}: ${e.from} → ${e.to}, epoch ${e.epoch} (${e.reason})`)));
    }
    const vs = this.#store.violations.filter((v) => v.t <= now);
    S.inv.dataset.invariants = vs.length ? 'violated' : 'ok';
    setText(S.inv, vs.length ? `Invariant violations: ${vs.map((v) => `${v.invariant} at ${fmtT(v.t)}`).join('; ')}` : 'All invariants hold.');
    const lines = this.#logs.describe(nodes);
    if (S.logs.childNodes.length !== lines.length) S.logs.replaceChildren(...lines.map(() => h('p', { 'data-log': '' })));
    lines.forEach((l, i) => setText(S!.logs.childNodes[i], l));
  }

  #showProblems(): void {
    const all = [...this.#problems, ...this.#extraNotices];
    if (!all.length) {
      this.#notice.hidden = true;
      return;
    }
    const close = h('button', { class: 'kp-x', type: 'button', 'aria-label': 'Dismiss' }, '×');
    close.addEventListener('click', () => {
      this.#notice.hidden = true;
      this.#problems = [];
      this.#extraNotices = [];
    });
    this.#notice.replaceChildren(h('div', null, h('strong', null, 'Some settings could not be used:'), h('ul', null, ...all.map((p) => h('li', null, p)))), close);
    this.#notice.hidden = false;
  }

  #toast(text: string): void {
    this.#toastEl?.remove();
    const t = h('div', { class: 'kp-toast', role: 'status' }, text);
    this.#toastEl = t;
    this.#root.appendChild(t);
    setTimeout(() => t.remove(), 2600);
  }

  // ---- scenarios picker -----------------------------------------------------------------------

  #fillScenarioPicker(): void {
    const list = scenarioList();
    const opts: HTMLOptionElement[] = [h('option', { value: '' }, 'Free play')];
    list.forEach((s, i) => {
      opts.push(h('option', { value: s.id }, `${i + 1}. ${s.title}`));
      for (const v of variantsOf(s)) opts.push(h('option', { value: pickerValue(s.id, v.name) }, `${i + 1}′. ${v.title}`));
    });
    this.#scenarioSel.replaceChildren(...opts);
    this.#scenarioSel.hidden = list.length === 0;
  }

  #emitChange(): void {
    const c = this.#cluster;
    this.dispatchEvent(
      new CustomEvent('kraft-playground:change', {
        bubbles: true,
        composed: true,
        detail: {
          scenario: this.#scenario?.id ?? null,
          variant: this.#scenario?.variant ?? null,
          scenarioSeed: this.#scenario?.seed ?? null,
          seed: this.#settings.seed,
          voters: this.#settings.voters,
          observers: this.#settings.observers,
          network: this.#settings.network,
          unsafe: this.#unsafe,
          actions: c ? c.inputs().length : 0,
        },
      }),
    );
  }

  // ---- share and export ------------------------------------------------------------------------

  /** The URL that reproduces this run. */
  shareUrl(): string {
    const c = this.#cluster;
    if (!c) return '';
    return this.#runUrl(c.toLink());
  }

  /**
   * The page URL that opens a link: the run goes in the fragment (`#run=k2...`), which
   * browsers never send to a server, so no server's limit on the query string applies.
   */
  #runUrl(link: string): string {
    const base = new URL(this.getAttribute('share-base') || location.href, location.href);
    base.search = '';
    base.hash = '';
    if (this.#scenario) {
      base.searchParams.set('scenario', this.#scenario.id);
      if (this.#scenario.variant) base.searchParams.set('variant', this.#scenario.variant);
    }
    base.hash = `run=${link}`;
    return base.href;
  }

  // ---- when something fails ------------------------------------------------------------------

  /** An action or a frame failed: a crash of the core gets the banner, anything else a toast. */
  #failed(what: string, e: unknown): void {
    const c = this.#cluster;
    if (c?.broken) this.#showCrash(c);
    else this.#toast(`${what}: ${(e as Error).message}`);
  }

  /**
   * The core crashed (a bug): say so, offer the link of the run up to its last good
   * moment and a way to start again; the controls stop until then.
   */
  #showCrash(c: Cluster): void {
    if (this.#crashed) return;
    this.#crashed = true;
    this.#setPlaying(false);
    this.#closeMenu();
    this.#closeDialog();
    const url = this.#runUrl(c.reproductionLink());
    const input = h('input', { class: 'kp-share-url', type: 'text', readonly: true, value: url, 'aria-label': 'Reproduction link', 'data-repro-url': '' });
    const copy = copyButton(input, 'Copy reproduction link');
    copy.dataset.action = 'copy-repro';
    const again = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'start-again' }, 'Start again');
    again.addEventListener('click', () => void this.#reset());
    this.#crashBanner.replaceChildren(
      h(
        'div',
        { class: 'kp-crash-body' },
        h('strong', null, 'The simulation core crashed.'),
        h('p', null, 'This is a bug in KRaft Playground, not something you did. What failed: ', h('code', { 'data-crash-cause': '' }, c.failure ?? 'unknown')),
        h('p', null, `The run stopped at ${fmtT(c.lastGoodTime)}. The reproduction link replays it up to that moment; press play there to see the crash again, and please attach the link when you report it.`),
        input,
        h('div', { class: 'kp-row' }, copy, again),
      ),
    );
    this.#crashBanner.hidden = false;
    this.#root.toggleAttribute('data-crashed', true);
    this.#controls.el.inert = true;
    setText(this.#status.lastChild!, 'Core crashed · start again');
    this.#status.dataset.leader = '';
    toggleClass(this.#status, 'kp-bad', true);
    this.#announce('The simulation core crashed; the run has stopped.');
  }

  #clearCrash(): void {
    if (!this.#crashed) return;
    this.#crashed = false;
    this.#crashBanner.hidden = true;
    this.#crashBanner.replaceChildren();
    this.#root.toggleAttribute('data-crashed', false);
    this.#controls.el.inert = false;
  }

  #openShare(): void {
    const url = this.shareUrl();
    const input = h('input', { class: 'kp-share-url', type: 'text', readonly: true, value: url, 'aria-label': 'Share link', 'data-share-url': '' });
    const copy = copyButton(input, 'Copy link');
    const c = this.#cluster!;
    this.#openDialog(
      'Share this run',
      h('p', null, `The link carries the seed (${c.seed}), the settings and the ${c.inputs().length} action(s) you took, up to ${fmtT(c.now)}. Whoever opens it gets the same run, event for event (trace digest ${c.digest()}).`),
      input,
      h('div', { class: 'kp-row' }, copy, h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open in a new tab')),
    );
    input.select();
  }

  #fileBase(): string {
    const c = this.#cluster!;
    return `kraft-${this.#scenario?.id ?? 'run'}-seed${c.seed}-${c.now}ms`;
  }

  #exportJson(): void {
    const c = this.#cluster;
    if (!c) return;
    download(`${this.#fileBase()}.json`, new Blob([JSON.stringify({ link: c.toLink(), digest: c.digest(), options: c.options, events: c.events() }, null, 1)], { type: 'application/json' }));
  }

  #exportText(): void {
    const c = this.#cluster;
    if (!c) return;
    download(`${this.#fileBase()}.txt`, new Blob([c.text()], { type: 'text/plain' }));
  }

  #exportPng(): void {
    this.#timeline.invalidate();
    this.#timeline.frame();
    this.#timeline.canvas.toBlob((b) => {
      if (b) download(`${this.#fileBase()}-timeline.png`, b);
    }, 'image/png');
  }

  // ---- dialogs and keys ------------------------------------------------------------------------

  /** A modal <dialog> (the top layer: above everything, whatever the page does). */
  #openDialog(title: string, ...body: (Node | null)[]): void {
    this.#closeDialog();
    const close = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'close' }, 'Close');
    close.addEventListener('click', () => this.#closeDialog());
    const dialog = h('dialog', { class: 'kp-dialog', 'aria-label': title }, h('div', { class: 'kp-dialog-head' }, h('h2', null, title), close), ...body);
    dialog.addEventListener('click', (e) => {
      // a click on the backdrop (outside the dialog's box) closes it
      const r = dialog.getBoundingClientRect();
      if (e.target === dialog && (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom)) this.#closeDialog();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (this.#overlay === dialog) this.#overlay = null;
    });
    this.#overlay = dialog;
    this.#root.appendChild(dialog);
    dialog.showModal();
    close.focus({ preventScroll: true });
  }

  #closeDialog(): void {
    const d = this.#overlay;
    this.#overlay = null;
    if (d?.open) d.close();
    d?.remove();
  }

  #openHelp(): void {
    const keys: [string, string][] = [
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
    const dl = h('dl', { class: 'kp-keys' });
    for (const [k, d] of keys) dl.append(h('dt', null, ...k.split(' ').flatMap((x, i) => [i ? ' ' : '', h('kbd', null, x)])), h('dd', null, d));
    this.#openDialog(
      'How to read the playground',
      h('p', null, "A KRaft controller quorum: voters elect a leader; followers pull the log from it with Fetch; a record is committed once a majority has it (the high watermark, HW). Observers (brokers) replicate but never vote."),
      h('h3', null, 'States'),
      h('div', { class: 'kp-states' }, ...STATES.map((s) => h('span', { class: `kp-st-${s}` }, s))),
      h('h3', null, 'Timeline'),
      h('p', null, 'One lane per node, time to the right. Bands show each node\'s state and epoch; arrows are messages from send to delivery (dashed: responses; ✓/✗ on vote responses); ✕ marks a dropped message; ✂ a truncation; the cyan step line is each node\'s HW. Tap the time axis to travel there.'),
      h('h3', null, 'Keyboard'),
      dl,
      h('h3', null, 'Safety switches'),
      h('ul', null, ...SWITCHES.map(([n, e]) => h('li', null, h('code', null, n), `: ${e}`))),
    );
  }

  #onKey(e: KeyboardEvent): void {
    const t = e.composedPath()[0] as HTMLElement | undefined;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA') && e.key !== 'Escape') return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (this.#crashed && e.key !== '?' && e.key !== 'Escape') return;
    const leader = () => this.#cluster?.leader();
    let handled = true;
    switch (e.key) {
      case ' ':
      case 'k':
        if (t && t.tagName === 'BUTTON') return;
        this.#setPlaying(!this.#playing);
        break;
      case '.':
        this.#step();
        break;
      case 'ArrowRight':
        this.#seek(this.#now() + (e.shiftKey ? 10_000 : 1000));
        break;
      case 'ArrowLeft':
        this.#seek(Math.max(0, this.#now() - (e.shiftKey ? 10_000 : 1000)));
        break;
      case 'Home':
        this.#seek(0);
        break;
      case 'End':
        this.#seek(this.#horizon);
        break;
      case '[':
        this.#setSpeed(this.#curSpeed() / 2);
        break;
      case ']':
        this.#setSpeed(this.#curSpeed() * 2);
        break;
      case 'z':
        this.#timeline.zoomBy(0.5);
        break;
      case 'x':
        this.#timeline.zoomBy(2);
        break;
      case 'f':
        this.#timeline.setFollow(true);
        break;
      case '0':
        this.#timeline.fitAll();
        break;
      case 'c': {
        const l = leader();
        if (l) this.#act('crash', (c) => c.crash(l.id));
        else this.#toast('There is no leader to crash');
        break;
      }
      case 'g':
        if (leader()) this.#act('resign', (c) => c.resign());
        break;
      case 'w': {
        const r = this.#act('write', (c) => c.write()) as { accepted: boolean; offset?: number; reason?: string } | undefined;
        if (r) this.#toast(r.accepted ? `Write accepted at offset ${r.offset}` : `Write rejected: ${r.reason}`);
        break;
      }
      case 'h':
        this.#act('heal', (c) => c.heal());
        break;
      case 'R':
        void this.#reset();
        break;
      case '?':
        this.#openHelp();
        break;
      case 'Escape':
        this.#closeDialog();
        this.#closeMenu();
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  }
}

/** A button that copies the link in `input` (selecting it, for copying by hand where the clipboard is refused). */
function copyButton(input: HTMLInputElement, label: string): HTMLButtonElement {
  const copy = h('button', { class: 'kp-btn kp-primary', type: 'button' }, label);
  copy.addEventListener('click', async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      setText(copy, 'Copied ✓');
    } catch {
      setText(copy, 'Select and copy (Ctrl+C)');
    }
  });
  return copy;
}

function describeMark(kind: string, e: UiEvent): string {
  switch (kind) {
    case 'leader':
      return `n${e.node} became leader of epoch ${e.epoch}`;
    case 'crash':
      return `n${e.node} crashed${e.lostRecords ? `, losing ${e.lostRecords} unflushed record(s)` : ''}`;
    case 'restart':
      return `n${e.node} restarted`;
    case 'truncate':
      return `n${e.node} truncated its log from ${e.fromLeo} to ${e.to}`;
    case 'snapshot':
      return `n${e.node} snapshot ${e.action} (end ${e.endOffset}, epoch ${e.epoch})`;
    case 'fault':
      return `fault: ${e.detail ?? e.text}`;
    case 'violation':
      return `VIOLATION of ${e.invariant}: ${e.detail}`;
    default:
      return e.text;
  }
}

