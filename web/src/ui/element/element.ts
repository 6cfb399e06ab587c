// <kraft-playground>: the whole playground as one custom element. The site's main page,
// its embed page and any documentation page use this same element.
//
// Attributes: scenario, voters, observers, seed, network, autoplay, speed,
// controls=full|minimal, layout=compact|full (compact, the default: the ring, the
// timeline, the faults and the controls; full adds the logs, quorum, invariants and
// network panels), height, run (a share link), theme=light|dark, share-base,
// frameless. Property: `cluster` (the live Cluster), `player`. Methods: play(), pause().
// Events: `kraft-playground:change` (the run on screen), `kraft-playground:story` (the
// reader's place in a story's script).

import { type Cluster, init, type PackedBatch, Player, type WasmSource } from '../../api.js';
import { PACKED_TYPES, readRow, rowEnd } from '../../packed.js';
import { h } from '../common/dom.js';
import { MAX_FRAME_EVENTS, SCRUB_WINDOW_MS, STORE_TEXT, Store } from '../common/store.js';
import { readTheme, type Theme } from '../common/theme.js';
import type { UiEvent, UiEventOf } from '../common/types.js';
import { MAX_SPEED, MIN_SPEED } from '../playback/controls.js';
import { CappedBadge, Drawing, DrawingSchedule, FrameLoop, Pacer, stopWithin } from '../playback/frame-loop.js';
import { Playback } from '../playback/playback.js';
import { Dialogs } from '../shell/dialogs.js';
import { type KeyHost, onKey } from '../shell/keys.js';
import { layOut } from '../shell/layout.js';
import { Announcer, announcement, Crashes, Notices, StatusLine, Toaster } from '../shell/messages.js';
import { ExportMenu, Sharing } from '../shell/share.js';
import { Caption } from '../story/caption.js';
import { ScenarioPicker } from '../story/picker.js';
import { StoryProgress } from '../story/progress.js';
import { findScenario, type LoadedScenario, loadBundledScenarios, openableScenario, outlineScenario, playFuture, prefetchScenario, sameStory, variantsOf } from '../story/scenarios.js';
import { type LeftScript, ScriptPlace, stepTicks, stopAt } from '../story/story.js';
import { type Parsed, parseAttributes, show } from './attributes.js';
import { RunChoice, unknownScenario } from './runs.js';
import { ClusterSnapshot } from './snapshot.js';
import { buildViews, type Views } from './views.js';

/** The chunk of what the first frame does not need (later.ts). */
type Later = typeof import('../later.js');
type LaterParts = {
  menu: InstanceType<Later['NodeMenu']>;
  summary: InstanceType<Later['Summary']>;
  quorum: InstanceType<Later['QuorumPanel']>;
  invariants: InstanceType<Later['InvariantsPanel']>;
  imageCard: InstanceType<Later['ImageCard']>;
  openHelp: Later['openHelp'];
};
/** How long after the first frame the later chunk may wait for an idle moment, in ms. */
const LATER_WITHIN_MS = 300;

function cssUrl(): string {
  return new URL('./kraft-playground.css', import.meta.url).href;
}

export class KraftPlayground extends HTMLElement {
  static observedAttributes = ['scenario', 'variant', 'voters', 'observers', 'seed', 'network', 'speed', 'controls', 'layout', 'height', 'run', 'autoplay', 'theme'];
  /** Where the element's stylesheet is (override before the element is created). */
  static stylesheet: string | null = null;
  /** Where the wasm core is (default: kraft_playground_bg.wasm next to this module), or its fetch or compile already under way (see `init`); read when an element boots, a task after it is connected. */
  static wasm: WasmSource | null = null;

  #shadow: ShadowRoot;
  #root!: HTMLDivElement;
  #built = false;
  #cluster: Cluster | null = null;
  #player: Player<PackedBatch> | null = null;
  #unsub: (() => void) | null = null;
  #store = new Store();
  #snap = new ClusterSnapshot();
  #theme: Theme | null = null;
  #views!: Views;
  #status = new StatusLine();
  #notices = new Notices();
  #toaster!: Toaster;
  #lastNow = 0;
  #caption!: Caption;
  #picker = new ScenarioPicker((id, variant) => void this.#runs.pick(id, variant));
  #runs: RunChoice = new RunChoice({
    install: (c) => this.#install(c),
    hasCluster: () => !!this.#cluster,
    playing: () => this.#play.playing,
    setPlaying: (on) => this.#play.setPlaying(on),
    emitChange: () => this.#share.emitChange(),
    picker: this.#picker,
    notices: this.#notices,
  });
  #dialogs!: Dialogs;
  /** The later chunk's parts, once loaded and in place (null until then). */
  #later: LaterParts | null = null;
  #laterLoad: Promise<LaterParts> | null = null;
  /** Where the quorum and invariants panels go when they arrive. */
  #slots!: { quorum: HTMLElement; invariants: HTMLElement };
  #keyHost!: KeyHost;
  #live = new Announcer();
  #progress = new StoryProgress();
  #script = new ScriptPlace();
  #loop = new FrameLoop((elapsed, gap) => this.#frame(elapsed, gap));
  #pacer = new Pacer();
  #capped = new CappedBadge();
  #drawing = new DrawingSchedule();
  #play = new Playback({
    player: () => this.#player,
    scenario: () => this.#runs.scenario,
    now: () => this.#now(),
    canPlay: () => !!this.#cluster && !this.#crashes.crashed,
    playingChanged: (on) => {
      this.#loop.restartClock();
      this.#pacer.reset();
      this.toggleAttribute('data-playing', on);
      this.#loop.request();
    },
    seeked: () => {
      if (this.#views.timeline.follow) this.#views.timeline.invalidate();
    },
    failed: (what, e) => this.#crashes.failed(what, e),
  });
  #crashes: Crashes = new Crashes({
    cluster: () => this.#cluster,
    toast: (text) => this.#toaster.show(text),
    halt: () => {
      this.#play.setPlaying(false);
      this.#later?.menu.close();
      this.#dialogs.close();
    },
    mark: (on) => {
      this.#root.toggleAttribute('data-crashed', on);
      this.#views.controls.el.inert = on;
      // no frame draws a broken run: the controls show that play stopped now
      this.#views.controls.frame(this.#runs.scenario?.endMs ?? 0);
    },
    runUrl: (link) => this.#share.runUrl(link),
    startAgain: () => void this.#runs.reset(),
    status: this.#status,
    live: this.#live,
  });
  #share: Sharing = new Sharing({
    el: this,
    cluster: () => this.#cluster,
    scenario: () => this.#runs.scenario,
    settings: () => this.#runs.settings,
    unsafe: () => this.#runs.unsafe,
    speed: () => this.#play.speed,
    dialogs: () => this.#dialogs,
  });
  #parsed: Parsed | null = null;
  #rebootTimer = 0;
  #bootTimer = 0;
  /** The story on screen before its run (see #showOutline), and the request (story, variant, seed) shown or on its way. */
  #outline: LoadedScenario | null = null;
  #outlineKey: string | null = null;
  /** while the story on screen has its recorded future still being read (`#readFuture`) */
  #futurePending = false;
  // Keys act only while focus is inside this element (never the page's, so Space still
  // scrolls it, and of two elements only the focused one acts).
  #keyHandler = (e: KeyboardEvent) => onKey(e, this.#keyHost);
  #schemeQuery: MediaQueryList | null = null;
  #onScheme = () => {
    this.#theme = null;
    this.#views?.timeline.invalidate();
    this.#views?.ring.invalidate();
    this.#views?.logs.invalidate();
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
  get player(): Player<PackedBatch> | null {
    return this.#player;
  }
  #resolveReady: () => void = () => {};
  /** Resolves when the first run is loaded. */
  ready: Promise<void> = new Promise((r) => (this.#resolveReady = r));

  /** Shows a message in the element's notice area (e.g. a page's unknown URL parameter). */
  addNotice(text: string): void {
    this.#notices.add(String(text));
    if (this.#built) this.#notices.show();
  }

  /** Plays from here (past a pause the story waits at, as its Continue button does). */
  play(): void {
    this.#play.setPlaying(true);
  }

  /** Pauses. */
  pause(): void {
    this.#play.setPlaying(false);
  }

  /** Frame times (ms of work per frame) recorded while playing, for benchmarks. */
  takeFrameTimes(): number[] {
    return this.#loop.takeFrameTimes();
  }

  connectedCallback(): void {
    if (!this.#built) this.#build();
    this.addEventListener('keydown', this.#keyHandler);
    this.#schemeQuery = window.matchMedia('(prefers-color-scheme: dark)');
    this.#schemeQuery.addEventListener('change', this.#onScheme);
    // Boot in a later task: a page script that imported this module may still be
    // setting attributes (its URL parameters) or `KraftPlayground.wasm` in this one.
    if (!this.#cluster && !this.#bootTimer) {
      // What the attributes ask to show goes up as soon as the script that connected
      // this is done, before the core loads: its layout and paint overlap the download.
      queueMicrotask(() => this.#showAsked());
      this.#bootTimer = window.setTimeout(() => {
        this.#bootTimer = 0;
        void this.#boot();
      }, 0);
    }
    this.#loop.connect(this);
  }

  disconnectedCallback(): void {
    this.removeEventListener('keydown', this.#keyHandler);
    this.#schemeQuery?.removeEventListener('change', this.#onScheme);
    this.#loop.disconnect();
  }

  attributeChangedCallback(name: string, old: string | null, val: string | null): void {
    if (!this.#built || old === val) return;
    if (name === 'theme') {
      this.#onScheme();
      return;
    }
    if (name === 'layout') {
      // only what is shown changes, not the run
      if (this.#parsed) this.#parsed.full = val === 'full';
      this.#root.dataset.layout = val === 'full' ? 'full' : 'compact';
      this.#views.logs.invalidate();
      return;
    }
    if (!this.#cluster) return;
    if (name === 'speed') {
      const v = Number(val);
      if (Number.isFinite(v) && v >= MIN_SPEED && v <= MAX_SPEED) this.#play.setSpeed(v);
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
    // focusable (not in the tab order) so a click on the ring or the timeline puts focus inside, for the keys
    this.#root = h('div', { class: 'kp-root', tabindex: '-1' });
    link.addEventListener('load', () => {
      this.#root.classList.add('kp-ready');
      this.#theme = readTheme(this);
      this.#views.timeline.invalidate();
      this.#views.ring.invalidate();
    });
    link.addEventListener('error', () => this.#root.classList.add('kp-ready'));
    this.#shadow.append(link, this.#root);
    this.#dialogs = new Dialogs(this.#root);
    this.#toaster = new Toaster(this.#root);

    const views = buildViews(this.#store, this.#play, {
      now: () => this.#now(),
      theme: () => this.#getTheme(),
      cluster: () => this.#cluster,
      nodes: () => this.#snap.nodes,
      quorum: () => this.#snap.quorum,
      downLinks: () => this.#snap.down,
      act: (what, fn) => this.#act(what, fn),
      write: () => this.#write(),
      openNode: (id, anchor) => this.#withLater('The node menu', (l) => l.menu.open(id, anchor, this.#root)),
      unsafe: () => this.#runs.unsafe,
      setUnsafe: (list) => {
        this.#runs.unsafe = list;
        const sc = this.#runs.scenario;
        // in a story: the same story without those rules (on top of its own switches)
        if (sc) void this.#runs.loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: list });
        else void this.#runs.newRun();
      },
      showViolation: (v) => this.#showViolation(v),
      settings: () => this.#runs.settings,
      applySettings: (s) => {
        const sc = this.#runs.scenario;
        const old = this.#runs.settings;
        this.#runs.settings = s;
        if (sc && s.voters === old.voters && s.observers === old.observers && s.network === old.network) {
          // the same story with another seed
          void this.#runs.loadScenario(sc.id, sc.variant, { seed: s.seed, unsafe: this.#runs.unsafe });
          return;
        }
        this.#runs.scenario = null;
        this.#picker.show(null);
        void this.#runs.newRun();
      },
      reset: () => void this.#runs.reset(),
    });
    this.#views = views;
    // paused, a frame is drawn only when something asks for one
    const redraw = () => this.#loop.request();
    views.timeline.onChange = redraw;
    views.ring.onChange = redraw;
    views.logs.onChange = redraw;
    for (const type of ['pointerdown', 'pointermove', 'pointerup', 'pointerleave', 'wheel', 'click', 'keydown', 'input', 'change', 'focusin']) {
      this.#root.addEventListener(type, redraw, { capture: true, passive: true });
    }

    const exportMenu = new ExportMenu({ cluster: () => this.#cluster, scenarioId: () => this.#runs.scenario?.id ?? null, timeline: this.#views.timeline });
    this.#caption = new Caption({
      continue: () => this.#play.setPlaying(true),
      returnToScript: (at) => void this.#returnToScript(at),
      open: (n) => void this.#runs.pick(n.id, n.variant),
      replay: () => void this.#runs.reset(),
      variants: () => {
        const entry = this.#runs.scenario ? findScenario(this.#runs.scenario.id) : undefined;
        return entry ? variantsOf(entry) : [];
      },
    });
    this.#views.controls.el.querySelector('.kp-speed-wrap')?.after(this.#capped.el);

    this.#keyHost = {
      play: this.#play,
      now: () => this.#now(),
      timeline: views.timeline,
      crashed: () => this.#crashes.crashed,
      leader: () => this.#cluster?.leader(),
      act: (what, fn) => this.#act(what, fn),
      write: () => this.#write(),
      toast: (text) => this.#toaster.show(text),
      reset: () => void this.#runs.reset(),
      help: () => this.#openHelp(),
      closeDialog: () => this.#dialogs.close(),
      closeMenu: () => this.#later?.menu.close(true),
    };
    this.#slots = { quorum: h('div', { 'data-later': 'quorum' }), invariants: h('div', { 'data-later': 'invariants' }) };
    layOut(this.#root, {
      picker: this.#picker.el,
      status: this.#status.el,
      exportMenu: exportMenu.el,
      onShare: () => this.#share.open(),
      onHelp: () => this.#openHelp(),
      banners: [this.#crashes.banner.el, this.#notices.el, this.#caption.el],
      ring: this.#views.ring,
      timeline: this.#views.timeline,
      dock: this.#views.faults.dock,
      controls: [this.#views.controls.el, this.#views.controls.settingsEl],
      logs: this.#views.logs,
      images: this.#views.images.el,
      panels: [this.#slots.quorum, this.#slots.invariants, this.#views.faults.el],
      overlays: [this.#live.el],
    });

    // a glossary word: its entry in the help
    this.#root.addEventListener('click', (e) => {
      const word = e.composedPath().find((n): n is HTMLElement => n instanceof HTMLElement && n.classList.contains('kp-term'));
      if (word) this.#openHelp(word.dataset.term);
    });
    this.#setLoading(true);

    this.#root.addEventListener('pointerdown', (e) => {
      const path = e.composedPath();
      const menu = this.#later?.menu;
      if (menu && !menu.el.hidden && !path.includes(menu.el) && !path.some((n) => n instanceof HTMLElement && n.classList.contains('kp-node-btn'))) menu.close();
      exportMenu.pointerDown(path);
    });
  }

  // ---- what comes after the first frame ---------------------------------------------------

  /** Loads the later chunk (once; a failed load is tried again at the next ask) and puts its parts in place. */
  #loadLater(): Promise<LaterParts> {
    if (!this.#laterLoad) {
      const p = import('../later.js').then((module) => this.#mountLater(module));
      p.catch(() => {
        if (this.#laterLoad === p) this.#laterLoad = null;
      });
      this.#laterLoad = p;
    }
    return this.#laterLoad;
  }

  /** Runs `fn` once the later chunk is here: at once when it is, else when it arrives (nothing asked for is dropped). */
  #withLater(what: string, fn: (parts: LaterParts) => void): void {
    if (this.#later) {
      fn(this.#later);
      return;
    }
    this.#loadLater().then(fn, (e: Error) => this.#toaster.show(`${what} could not be loaded: ${e.message}`));
  }

  #openHelp(term?: string): void {
    this.#withLater('The help', (l) => l.openHelp(this.#dialogs, term));
  }

  #mountLater(module: Later): LaterParts {
    const host = this.#views.panelHost;
    const quorum = new module.QuorumPanel(host);
    const invariants = new module.InvariantsPanel(this.#store, host);
    this.#slots.quorum.replaceWith(quorum.el);
    this.#slots.invariants.replaceWith(invariants.el);
    const menu = new module.NodeMenu({
      nodes: () => this.#snap.nodes,
      isolated: () => this.#cluster?.linkFaults().isolated ?? [],
      now: () => this.#now(),
      act: (what, fn) => this.#act(what, fn),
      write: () => this.#write(),
      stateSeq: (id) => this.#store.stateAt(id, this.#now())?.seq ?? -1,
      explain: (seq) => this.#cluster?.explain(seq) ?? null,
    });
    this.#views.logs.mount(module.Logs);
    const summary = new module.Summary(this.#store, this.#views.timeline, this.#views.logs);
    const imageCard = new module.ImageCard({
      image: (id, limit) => this.#cluster?.image(id, { limit }) ?? null,
      ring: () => this.#views.ring.geometry(),
      showAll: () => this.#views.images.showAll(),
    });
    this.#views.ring.el.append(imageCard.el);
    this.#live.el.before(menu.el);
    this.#live.el.after(summary.el);
    this.#later = { menu, summary, quorum, invariants, imageCard, openHelp: module.openHelp };
    this.#loop.request();
    return this.#later;
  }

  /** After the first frame, at an idle moment: the later chunk, so that nothing the reader reaches for waits on it. */
  #loadLaterSoon(): void {
    requestAnimationFrame(() => {
      const load = () => {
        void this.#listLibrary();
        void this.#loadLater().catch(() => {});
      };
      if (typeof requestIdleCallback === 'function') requestIdleCallback(load, { timeout: LATER_WITHIN_MS });
      else setTimeout(load, 0);
    });
  }

  /**
   * Starts the downloads the first run waits for, side by side: the core and the story
   * the `scenario` attribute names (a link's captions too). Returns the core's loading.
   */
  #startLoading(): Promise<void> {
    const core = init(KraftPlayground.wasm ?? new URL('./kraft_playground_bg.wasm', import.meta.url));
    const id = this.getAttribute('scenario');
    if (id) this.#prefetch(id);
    return core;
  }

  #prefetch(id: string): void {
    const entry = openableScenario(id);
    if (entry) prefetchScenario(entry);
    else
      void loadBundledScenarios().then(() => {
        const listed = findScenario(id);
        if (listed) prefetchScenario(listed);
      });
  }

  /** The scenario library's outline, registered and in the picker. */
  async #listLibrary(): Promise<void> {
    await loadBundledScenarios();
    this.#picker.fill();
  }

  /**
   * Until the first run is on screen (the wasm core is still loading) nothing that
   * would act on a cluster takes input: a choice made then would be dropped.
   */
  #setLoading(on: boolean): void {
    this.#root.toggleAttribute('data-loading', on);
    this.#picker.el.disabled = on;
    for (const el of [this.#views.controls.el, this.#views.controls.settingsEl, this.#views.ring.el, this.#views.faults.el, this.#views.faults.dock]) el.inert = on;
    this.#caption.setLoading(on);
    if (on) this.#status.loading();
  }

  #getTheme(): Theme {
    if (!this.#theme) this.#theme = readTheme(this);
    return this.#theme;
  }

  // ---- runs ---------------------------------------------------------------------------------

  /** The layout the attributes ask for, and the outline of the story they name (not a link's). */
  #showAsked(): void {
    if (this.#cluster || !this.isConnected) return;
    const p = parseAttributes(this);
    this.#applyLayout(p);
    if (p.scenario && !p.run) void this.#showOutline(p.scenario, p.variant, p.seedGiven ? p.settings.seed : null);
  }

  #applyLayout(p: Parsed): void {
    this.#root.dataset.controls = p.minimal ? 'minimal' : 'full';
    this.#root.dataset.layout = p.full ? 'full' : 'compact';
    if (p.height) this.style.setProperty('--kp-stage-h', `${p.height}px`);
  }

  async #boot(): Promise<void> {
    const p = parseAttributes(this);
    this.#parsed = p;
    this.#notices.problems = [...p.problems];
    this.#applyLayout(p);
    this.#runs.settings = { ...p.settings };
    if (!p.seedGiven) this.#runs.settings.seed = Math.floor(Math.random() * 1_000_000);
    this.#play.initialSpeed(p.speed);
    const core = this.#startLoading().then(
      () => null,
      (e: Error) => e,
    );
    // a story the course names opens without the library's outline (it is listed after
    // the first frame); anything else waits for the outline, beside the core
    if (p.run || !p.scenario || !openableScenario(p.scenario)) await this.#listLibrary();
    if (p.scenario) this.#prefetch(p.scenario);
    if (p.scenario && !p.run) void this.#showOutline(p.scenario, p.variant, p.seedGiven ? p.settings.seed : null);
    const failed = await core;
    if (failed) {
      this.#notices.problems.push(`The simulation core could not be loaded: ${failed.message}`);
      this.#notices.show();
      this.#status.unavailable();
      return;
    }
    let loaded = false;
    if (p.run) {
      loaded = await this.#runs.loadLink(p.run, p.scenario, p.variant);
    } else if (p.scenario) {
      const entry = openableScenario(p.scenario);
      if (!entry) {
        this.#notices.problems.push(unknownScenario(p.scenario));
      } else {
        loaded = await this.#runs.loadScenario(entry.id, p.variant, p.seedGiven ? { seed: p.settings.seed } : {});
      }
    } else if (p.variant) {
      this.#notices.problems.push(`variant=${show(p.variant)} needs a scenario; ignored.`);
    }
    if (!loaded) await this.#runs.newRun();
    this.#notices.show();
    this.#views.controls.syncSettings();
    // a shared link shows its moment; press play to go on from there
    const fromLink = !!p.run && loaded;
    if (p.autoplay && !fromLink && !stopAt(this.#runs.scenario, this.#now())) this.#play.setPlaying(true);
    this.#resolveReady();
    this.#loadLaterSoon();
  }

  /**
   * While the core loads, a precomputed story's caption bar, name and step ticks, from
   * its module alone: the reader can start reading, and the stage is not pushed down
   * when the run comes (nor is that work left for the frame that shows it).
   */
  async #showOutline(id: string, variant: string | null, seed: number | null): Promise<void> {
    const entry = openableScenario(id);
    if (!entry) return;
    // the latest request wins; the same one again (boot after the early outline) is under way
    const key = `${id} ${variant} ${seed}`;
    if (this.#outlineKey === key) return;
    this.#outlineKey = key;
    const s = await outlineScenario(entry, { variant, seed }).catch(() => null);
    if (!s || this.#cluster || this.#outlineKey !== key) return;
    this.#outline = s;
    this.#picker.show(s.id, s.variant);
    this.#caption.update(s, 0, false, stopAt(s, 0)?.index ?? -1, true, null);
    this.#views.controls.setTicks(stepTicks(s), s.endMs);
  }

  /** Puts a cluster on screen. */
  #install(c: Cluster): void {
    // the story shown while the core loaded, if this is its run: its caption bar stays
    const outlined = sameStory(this.#outline, this.#runs.scenario);
    this.#outline = null;
    this.#outlineKey = null;
    this.#crashes.clear();
    this.#setLoading(false);
    const wasPlaying = this.#play.playing;
    this.#play.setPlaying(false);
    this.#unsub?.();
    this.#player?.destroy();
    if (this.#cluster && this.#cluster !== c) this.#cluster.dispose();
    this.#cluster = c;
    this.#player = new Player<PackedBatch>(c, {
      speed: this.#play.speed,
      packed: { text: STORE_TEXT, batches: true },
      maxEvents: MAX_FRAME_EVENTS,
      // a seek further on than the timeline shows re-reads what it shows (Store.takeFrame)
      maxSeekMs: () => Math.ceil(Math.max(SCRUB_WINDOW_MS, this.#views.timeline.spanMs)),
    });
    this.#store.reset(c.nodeCount);
    this.#views.logs.reload();
    this.#live.clear();
    if (!outlined) this.#caption.reset();
    this.#progress.reset(this.#runs.scenario);
    // a story that asks to pause at its very start waits there for "Continue"
    this.#play.pausedAtStep = stopAt(this.#runs.scenario, c.now)?.index ?? -1;
    this.#views.timeline.highlight.clear();
    this.#views.timeline.highlightNodes.clear();
    this.#views.logs.setRecordNames(this.#runs.scenario?.recordNames ?? {});
    this.#script.reset();
    this.#later?.menu.close();
    // Everything recorded so far, including the future of a scenario loaded and rewound.
    // Everything so far, or the last two minutes of a very long run.
    const all = c.eventCount <= 150_000;
    this.#store.cluster = c;
    if (all) this.#store.addBatch(c.packedBatch({ text: STORE_TEXT }));
    else this.#store.reload(c, 120_000);
    if (this.#runs.scenario?.future) this.#store.addBatch(this.#runs.scenario.future);
    this.#futurePending = false;
    if (this.#runs.scenario?.story) this.#readFuture(this.#runs.scenario, c);
    this.#play.horizon = Math.max(this.#store.lastT, c.now, this.#runs.scenario?.endMs ?? 0);
    this.#unsub = this.#player.subscribe((f) => this.#onFrame(f.events, f.reset));
    this.#refreshViews(true);
    this.#views.faults.sync();
    this.#views.controls.syncSettings();
    this.#views.controls.setTicks(stepTicks(this.#runs.scenario), this.#play.horizon);
    this.#views.timeline.setFollow(true);
    this.#views.timeline.invalidate();
    this.#views.ring.invalidate();
    this.#views.logs.invalidate();
    this.#views.images.invalidate();
    this.#later?.imageCard.invalidate();
    this.#updateCaption(!outlined);
    if (wasPlaying && !this.#runs.scenario) this.#play.setPlaying(true);
    this.#share.emitChange();
  }

  /**
   * A story opened at its start (no run yet): its recorded future, drawn veiled ahead of
   * now, comes after the frame that shows it, a slice per idle moment, for as long as
   * this run is on screen and has not forked.
   */
  #readFuture(s: LoadedScenario, c: Cluster): void {
    const current = () => this.#cluster === c && this.#runs.scenario === s;
    this.#futurePending = true;
    void playFuture(s.story!, current, (b) => {
      if (!current() || !this.#store.addBatch(b)) return;
      this.#views.timeline.invalidate();
      this.#loop.request();
    })
      .catch(() => {
        /* the run on screen does not depend on it: only its veiled future stays short */
      })
      .finally(() => {
        if (current()) this.#futurePending = false;
      });
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

  /** One frame: play for `elapsed` wall ms (if playing; `gap` ms passed in fact), then draw. Returns whether the next frame is wanted too. */
  #frame(elapsed: number, gap: number): boolean {
    const p = this.#player;
    const c = this.#cluster;
    if (!p || !c) return false;
    if (c.broken) {
      this.#crashes.show(c);
      return false;
    }
    const t0 = performance.now();
    const playing = this.#play.playing;
    const drawing = this.#drawing.next(t0, playing, this.#pacer.capped !== null);
    const picture = drawing !== Drawing.None;
    const panels = drawing === Drawing.Panels;
    let wanted = 0;
    let played = 0;
    if (playing) {
      const now = c.now;
      wanted = elapsed * p.speed;
      const allowed = this.#pacer.allowance(wanted, drawing);
      // the player's own reach (whole ms, its carried fractions), so no stop is stepped over
      const stop = stopWithin(this.#script.left ? null : this.#runs.scenario, this.#play.pausedAtStep, now, p.reach(allowed / p.speed));
      try {
        if (stop) {
          p.seek(stop.t);
          if (stop.step) this.#play.pausedAtStep = stop.step.index;
          this.#play.setPlaying(false);
        } else {
          const f = this.#loop.timed('tick', () => p.tick(allowed / p.speed));
          if (f.error) throw f.error;
        }
      } catch (e) {
        this.#play.setPlaying(false);
        this.#crashes.failed('The simulation stopped', e);
      }
      if (c.broken) {
        this.#crashes.show(c);
        return false;
      }
      played = c.now - now;
    }
    const t1 = performance.now();
    // play that just stopped draws everything at once
    const more = picture || !this.#play.playing ? this.#draw(panels || !this.#play.playing) : false;
    if (playing) {
      const t2 = performance.now();
      this.#loop.recordFrame(t2 - t0);
      // judged against real time: frames far apart (a busy machine) fall behind too
      this.#pacer.record(gap, gap * p.speed, played, t1 - t0, t2 - t1, drawing);
    }
    this.#capped.update(this.#play.playing ? this.#pacer.capped : null, this.#play.speed);
    return this.#play.playing || more;
  }

  /** The player's listener: new events (or a rewind). */
  #onFrame(events: PackedBatch[], reset: boolean): void {
    const c = this.#cluster;
    if (!c) return;
    this.#loop.request();
    this.#loop.timed('onFrame', () => this.#onFrameInner(c, events, reset));
  }

  #onFrameInner(c: Cluster, events: PackedBatch[], reset: boolean): void {
    if (reset) this.#views.logs.reload();
    // a jump on before a story's future is read: what is in between comes from the
    // cluster, so the store still holds the whole story (not the window before now)
    if (reset && this.#futurePending && this.#store.firstT === 0 && c.lastSeq > this.#store.lastSeq) this.#store.addBatch(c.packedBatch({ since: this.#store.lastSeq, text: STORE_TEXT }));
    // outside the history the store holds (a long run): what the timeline shows before
    // here, regenerated by the cluster
    this.#store.takeFrame(c, events, reset, this.#views.timeline.spanMs);
    if (events.length) this.#react(events);
    this.#play.horizon = Math.max(this.#play.horizon, c.now);
    this.#refreshViews(events.length > 0 || reset);
  }

  /** Effects of events crossing "now": ghosts, flashes, announcements. */
  #react(batches: PackedBatch[]): void {
    const drops: number[] = [];
    for (const { numbers, rest } of batches) {
      for (let i = 0; i < numbers.length; i = rowEnd(numbers, i)) {
        if (PACKED_TYPES[numbers[i]] !== 'drop') continue;
        const e = readRow(numbers, i, rest.names) as UiEventOf<'drop'>;
        drops.push(e.msg);
      }
    }
    for (const e of batches.flatMap((b) => b.rest.events as UiEvent[])) {
      switch (e.type) {
        case 'drop':
          drops.push(e.msg ?? -1);
          break;
        default: {
          const text = announcement(e);
          if (text) this.#live.announce(text);
        }
      }
    }
    if (drops.length) this.#views.ring.noteDrops(drops);
  }

  /** Re-read what the panels show from the cluster. */
  #refreshViews(changed: boolean): void {
    const c = this.#cluster;
    if (!c || c.broken) return;
    try {
      this.#snap.refresh(c, changed);
    } catch (e) {
      this.#toaster.show((e as Error).message);
    }
    if (changed) {
      this.#views.logs.invalidate();
      this.#views.images.invalidate();
      this.#later?.imageCard.invalidate();
      this.#views.timeline.invalidate();
    }
  }

  /** Draws what changed (`panels`: the panels beside the picture too); returns whether something still animates (and wants the next frame). */
  #draw(panels: boolean): boolean {
    if (!this.#cluster) return false;
    const lap = this.#loop.laps();
    this.#views.timeline.frame();
    lap('timeline');
    const more = this.#views.ring.frame();
    lap('ring');
    if (panels) this.#views.faults.frame();
    if (this.#parsed?.full && panels) {
      this.#views.logs.frame();
      this.#views.images.frame();
      lap('logs');
      this.#later?.quorum.frame();
      this.#later?.invariants.frame();
      lap('panels');
    }
    this.#views.controls.frame(this.#runs.scenario?.endMs ?? 0);
    this.#status.update(this.#cluster, this.#snap.nodes, this.#store, this.#runs.unsafe);
    this.#updateCaption(false);
    this.#later?.menu.frame();
    this.#later?.imageCard.frame();
    lap('controls');
    const summary = this.#later?.summary;
    if (!summary) return more;
    // the accessible summary is refreshed a few times a second: until its turn, the next frame is wanted
    const summaryNow = summary.due(this.#play.playing);
    if (summaryNow) {
      summary.update(this.#cluster, this.#snap.nodes);
      lap('summary');
    }
    return more || !summaryNow;
  }

  /** Starts (true) or stops (false) timing each part of a frame; returns what was timed. */
  profile(on: boolean): Record<string, number[]> | null {
    return this.#loop.profile(on);
  }

  #showViolation(v: UiEventOf<'violation'>): void {
    this.#play.setPlaying(false);
    this.#play.seek(v.t);
    this.#views.timeline.highlight = new Set([v.seq, ...(v.evidence ?? [])]);
    this.#views.timeline.focus(v.t);
    this.#views.timeline.invalidate();
  }

  // ---- actions --------------------------------------------------------------------------------

  #act(what: string, fn: (c: Cluster) => unknown): unknown {
    const c = this.#cluster;
    if (!c || this.#crashes.crashed) return undefined;
    // a network change still settling goes first, so actions keep the order they were made in
    if (what !== 'network') this.#views.faults.settle();
    const seqBefore = c.lastSeq;
    let out: unknown;
    try {
      out = fn(c);
    } catch (e) {
      this.#crashes.failed(what, e);
      return undefined;
    }
    // an action forks the run: the recorded future is gone
    if (this.#store.lastSeq > seqBefore) {
      this.#toaster.show('The run forks here: what was recorded after this moment is replaced.');
      this.#store.truncateAfter(seqBefore);
      this.#play.horizon = c.now;
      if (this.#runs.scenario) {
        this.#runs.scenario = this.#script.fork(this.#runs.scenario, c.now);
        this.#views.controls.setTicks(stepTicks(this.#runs.scenario), this.#play.horizon);
      }
    }
    this.#player?.refresh();
    this.#views.faults.sync();
    this.#share.emitChange();
    return out;
  }

  /** The story reopened at the step the reader left it. */
  async #returnToScript(at: LeftScript): Promise<void> {
    const sc = this.#runs.scenario;
    if (!sc) return;
    const step = at.step;
    if (!(await this.#runs.loadScenario(sc.id, sc.variant, { seed: sc.seed, unsafe: this.#runs.unsafe }))) return;
    const t = this.#runs.scenario?.steps.find((st) => st.index === step)?.t;
    if (t !== null && t !== undefined) this.#play.seek(t);
    this.#share.emitChange();
  }

  #updateCaption(force: boolean): void {
    this.#play.syncStop(this.#now());
    this.#script.focusStop(this.#views.timeline, this.#runs.scenario, this.#play.playing, this.#play.pausedAtStep);
    // a stop whose caption talks about metadata images shows them: on the ring (the card,
    // which comes with the later chunk: a frame once it is here) and in the block
    const at = this.#play.playing || this.#script.left ? -1 : this.#play.pausedAtStep;
    const focus = at >= 0 ? this.#runs.scenario?.steps.find((st) => st.index === at)?.focus : undefined;
    const imaged = focus?.image ? focus.nodes : null;
    this.#views.images.showStop(imaged);
    if (this.#later) this.#later.imageCard.showStop(imaged);
    else if (imaged) void this.#loadLater().catch(() => {});
    this.#caption.update(this.#runs.scenario, this.#now(), this.#play.playing, this.#play.pausedAtStep, force, this.#script.left);
    const story = this.#progress.update(this.#runs.scenario, this.#now());
    if (story) this.dispatchEvent(new CustomEvent('kraft-playground:story', { bubbles: true, composed: true, detail: story }));
  }

  #write(): void {
    const r = this.#act('write', (c) => c.write()) as { accepted: boolean; offset?: number; reason?: string } | undefined;
    if (r) this.#toaster.show(r.accepted ? `Write accepted at offset ${r.offset}` : `Write rejected: ${r.reason}`);
  }

  /** The URL that reproduces this run. */
  shareUrl(): string {
    return this.#share.url();
  }
}
