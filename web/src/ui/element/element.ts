// <kraft-playground>: the whole playground as one custom element. The site's main page,
// its embed page and any documentation page use this same element.
//
// Attributes: scenario, voters, observers, seed, network, autoplay, speed,
// controls=full|minimal, layout=compact|full (compact, the default: the ring, the
// timeline, the faults and the controls; full adds the logs, quorum, invariants and
// network panels), height, run (a share link), theme=light|dark, share-base,
// frameless. Properties: `cluster` (the live Cluster), `player`, `courseProgress` (the
// page's record of completed stories). Methods: play(), pause(), help(). Events: `kraft-playground:change` (the run on screen), `kraft-playground:story` (the
// reader's place in a story's script).

import { Cluster, type PackedBatch, Player, type WasmSource } from '../../api.js';
import { h } from '../common/dom.js';
import { Store } from '../common/store.js';
import { ThemeWatch } from '../common/theme.js';
import { MAX_SPEED, MIN_SPEED } from '../playback/controls.js';
import { FrameLoop } from '../playback/frame-loop.js';
import { FramePlay } from '../playback/frame-play.js';
import { Playback } from '../playback/playback.js';
import { type KeyHost, onKey } from '../shell/keys.js';
import { layOut } from '../shell/layout.js';
import { Announcer, Crashes, Notices, StatusLine, Toaster } from '../shell/messages.js';
import { disclosure, type Popup, TapElsewhere } from '../shell/popups.js';
import { SettingsNote } from '../shell/settings-note.js';
import { exportButton, Sharing } from '../shell/share.js';
import { Caption } from '../story/caption.js';
import type { CourseProgress } from '../story/course.js';
import { StoryOutline } from '../story/outline.js';
import { ScenarioPicker } from '../story/picker.js';
import { StoryProgress } from '../story/progress.js';
import { findScenario, variantsOf } from '../story/scenarios.js';
import { ScriptPlace, stepTicks, stopAt } from '../story/story.js';
import { Actions } from './actions.js';
import { autoplays } from './attributes.js';
import { Boot } from './boot.js';
import { FrameDraw } from './frame-draw.js';
import { LaterChunk } from './later-chunk.js';
import { LeaderChanges } from './leader-changes.js';
import { PageCalls } from './page-calls.js';
import { RunChoice, tuningOf } from './runs.js';
import { ClusterSnapshot } from './snapshot.js';
import { type StoryPlaceHost, showStoryPlace } from './story-place.js';
import { Stylesheets } from './stylesheets.js';
import { buildViews, type Views } from './views.js';

/**
 * A frame with more new events than this (a jump far forward) carries none and says
 * `reset`: what a frame's events are for (the ring's ✕ of drops, announcements) is about
 * playing, not jumping. Well above what a frame at 100x brings (~20,000).
 */
const MAX_FRAME_EVENTS = 50_000;

export class KraftPlayground extends HTMLElement {
  static observedAttributes = ['scenario', 'variant', 'voters', 'observers', 'seed', 'network', 'speed', 'controls', 'layout', 'height', 'run', 'autoplay', 'theme'];
  /**
   * Where the element's stylesheet is (override before the element is created); the
   * stylesheet of what it loads after its first frame, kraft-playground-later.css, is
   * looked for beside it.
   */
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
  #theme = new ThemeWatch(this, () => {
    this.#views?.timeline.invalidate();
    this.#views?.ring.invalidate();
    this.#views?.logs.invalidate();
  });
  #views!: Views;
  #status = new StatusLine();
  #notices = new Notices();
  #settingsNote = new SettingsNote();
  /** The run's leader changes as the core measures them: the timeline and the panel share one copy. */
  #leaderChanges = new LeaderChanges();
  #pageCalls = new PageCalls({
    cluster: () => this.#cluster,
    playing: () => this.#play.playing,
    refresh: () => {
      this.#player?.refresh();
      this.#views.faults.sync();
    },
    emittedActions: () => this.#share.emittedActions,
    emitChange: () => this.#share.emitChange(),
    request: () => this.#loop.request(),
  });
  #toaster!: Toaster;
  #caption!: Caption;
  #picker = new ScenarioPicker((id, variant) => void this.#runs.pick(id, variant));
  #runs: RunChoice = new RunChoice({
    install: (c) => this.#install(c),
    hasCluster: () => !!this.#cluster,
    playing: () => this.#play.playing,
    setPlaying: (on) => this.#play.setPlaying(on),
    seek: (t) => this.#play.seek(t),
    emitChange: () => this.#share.emitChange(),
    autoplay: () => autoplays(this),
    picker: this.#picker,
    notices: this.#notices,
  });
  /** What the first frame does not need: loaded after it, or when asked for sooner. */
  #later = new LaterChunk({
    views: () => this.#views,
    store: this.#store,
    nodes: () => this.#snap.nodes,
    cluster: () => this.#cluster,
    now: () => this.#now(),
    act: (what, fn) => this.#actions.act(what, fn),
    write: () => this.#actions.write(),
    live: () => this.#live.el,
    root: () => this.#root,
    styles: () => this.#styles.later(),
    exportBox: () => this.#exportBox,
    scenarioId: () => this.#runs.scenario?.id ?? null,
    toast: (text) => this.#toaster.show(text),
    mounted: (parts) => {
      // as a frame that draws the panels would (FrameDraw)
      if (this.#cluster && !this.#cluster.broken && this.#boot.parsed?.full) {
        parts.quorum.frame();
        parts.invariants.frame();
        parts.changes.frame();
      }
      this.#loop.request();
    },
    leaderChanges: () => this.#leaderChanges.get(this.#cluster, this.#play.playing),
    seek: (t) => this.#play.seek(t),
    // what the run on screen uses (a story's or a link's own settings too)
    tuning: () => (this.#cluster ? tuningOf(this.#cluster) : this.#runs.tuning),
    applyTuning: (t) => this.#runs.applyTuning(t),
    inStory: () => !!this.#runs.scenario,
  });
  #keyHost!: KeyHost;
  #live = new Announcer();
  #progress = new StoryProgress();
  #script = new ScriptPlace();
  #loop = new FrameLoop((elapsed, gap) => this.#frames.run(elapsed, gap));
  #play = new Playback({
    player: () => this.#player,
    scenario: () => this.#runs.scenario,
    now: () => this.#now(),
    canPlay: () => !!this.#cluster && !this.#crashes.crashed,
    playingChanged: (on) => {
      this.#loop.restartClock();
      this.#frames.pacer.reset();
      this.toggleAttribute('data-playing', on);
      this.#loop.request();
    },
    seeked: () => {
      if (this.#views.timeline.follow) this.#views.timeline.invalidate();
    },
    failed: (what, e) => this.#crashes.failed(what, e),
  });
  #frames: FramePlay = new FramePlay({
    player: () => this.#player,
    cluster: () => this.#cluster,
    script: () => (this.#script.left ? null : this.#runs.scenario),
    play: this.#play,
    loop: this.#loop,
    broken: (c) => this.#crashes.show(c),
    failed: (what, e) => this.#crashes.failed(what, e),
    draw: (panels) => this.#drawer.draw(panels),
  });
  #drawer: FrameDraw = new FrameDraw({
    cluster: () => this.#cluster,
    views: () => this.#views,
    later: () => this.#later.parts,
    loop: this.#loop,
    snap: this.#snap,
    status: this.#status,
    full: () => !!this.#boot.parsed?.full,
    playing: () => this.#play.playing,
    storyEnd: () => this.#runs.scenario?.endMs ?? 0,
    unsafe: () => this.#runs.unsafe,
    updateCaption: () => showStoryPlace(this.#storyPlace, false),
    live: this.#live,
    play: this.#play,
    toast: (text) => this.#toaster.show(text),
  });
  #crashes: Crashes = new Crashes({
    cluster: () => this.#cluster,
    toast: (text) => this.#toaster.show(text),
    halt: () => {
      this.#play.setPlaying(false);
      this.#later.parts?.menu.close();
      this.#later.parts?.dialogs.close();
    },
    mark: (on) => {
      this.#root.toggleAttribute('data-crashed', on);
      this.#views.controls.el.inert = on;
      // no frame draws a broken run: the controls show that play stopped now
      this.#views.controls.frame(this.#runs.scenario?.endMs ?? 0);
    },
    runUrl: (link) => this.#share.runUrl(link),
    crashBody: (fn) => this.#later.with('The crash report', (l) => fn(l.crashBody)),
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
    horizon: () => this.#cluster?.horizon ?? 0,
  });
  #actions = new Actions({
    cluster: () => this.#cluster,
    player: () => this.#player,
    crashes: this.#crashes,
    play: this.#play,
    runs: this.#runs,
    script: this.#script,
    views: () => this.#views,
    toast: (text) => this.#toaster.show(text),
    emitChange: () => this.#share.emitChange(),
  });
  #outline = new StoryOutline({
    hasRun: () => !!this.#cluster,
    show: (s) => {
      this.#picker.show(s.id, s.variant);
      this.#caption.update(s, 0, false, stopAt(s, 0)?.index ?? -1, true, null);
      this.#views.controls.setTicks(stepTicks(s), s.endMs);
    },
  });
  #storyPlace: StoryPlaceHost = {
    el: this,
    play: this.#play,
    script: this.#script,
    progress: this.#progress,
    later: this.#later,
    scenario: () => this.#runs.scenario,
    views: () => this.#views,
    caption: () => this.#caption,
    now: () => this.#now(),
  };
  #boot!: Boot;
  #rebootTimer = 0;
  #bootTimer = 0;
  // Keys act only while focus is inside this element (never the page's, so Space still
  // scrolls it, and of two elements only the focused one acts).
  #keyHandler = (e: KeyboardEvent) => onKey(e, this.#keyHost);
  /** A tap anywhere on the page closes the popups it lands outside of. */
  #tapElsewhere = new TapElsewhere(() => this.#popups());
  #styles!: Stylesheets;
  /** The Export button's box (its menu comes with the later chunk). */
  #exportBox = exportButton(() => this.#later.with('The export menu', (l) => l.exportMenu.toggle()));

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
  /** The page's record of the stories the reader completed (the site's tour sets it), or null. */
  courseProgress: CourseProgress | null = null;
  #resolveReady: () => void = () => {};
  /** Resolves when the first run is loaded and its link can be made ({@link shareUrl}, `cluster.toLink()`): the link codec comes after the first frame. */
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

  /** Opens the help (what `?` does inside the element; a page can bind it to its own `?`). */
  help(): void {
    this.#openHelp();
  }

  /** Frame times (ms of work per frame) recorded while playing, for benchmarks. */
  takeFrameTimes(): number[] {
    return this.#loop.takeFrameTimes();
  }

  connectedCallback(): void {
    if (!this.#built) this.#build();
    this.addEventListener('keydown', this.#keyHandler);
    this.#tapElsewhere.connect();
    this.#theme.connect();
    // Boot in a later task: a page script that imported this module may still be
    // setting attributes (its URL parameters) or `KraftPlayground.wasm` in this one.
    if (!this.#cluster && !this.#bootTimer) {
      // What the attributes ask to show goes up as soon as the script that connected
      // this is done, before the core loads: its layout and paint overlap the download.
      queueMicrotask(() => this.#boot.showAsked());
      this.#bootTimer = window.setTimeout(() => {
        this.#bootTimer = 0;
        void this.#boot.run();
      }, 0);
    }
    this.#loop.connect(this);
  }

  disconnectedCallback(): void {
    this.removeEventListener('keydown', this.#keyHandler);
    this.#tapElsewhere.disconnect();
    this.#theme.disconnect();
    this.#loop.disconnect();
  }

  attributeChangedCallback(name: string, old: string | null, val: string | null): void {
    if (!this.#built || old === val) return;
    if (name === 'theme') {
      this.#theme.forget();
      return;
    }
    if (name === 'layout') {
      // only what is shown changes, not the run
      if (this.#boot.parsed) this.#boot.parsed.full = val === 'full';
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
    this.#rebootTimer = window.setTimeout(() => void this.#boot.run(), 0);
  }

  // ---- building the DOM ------------------------------------------------------------------

  #build(): void {
    this.#built = true;
    this.#styles = new Stylesheets(KraftPlayground.stylesheet, (loaded) => {
      this.#root.classList.add('kp-ready');
      if (!loaded) return;
      this.#theme.reread();
      this.#views.timeline.invalidate();
      this.#views.ring.invalidate();
    });
    // focusable (not in the tab order) so a click on the ring or the timeline puts focus inside, for the keys
    this.#root = h('div', { class: 'kp-root', tabindex: '-1' });
    this.#shadow.append(this.#styles.own, this.#root);
    this.#toaster = new Toaster(this.#root);

    const views = buildViews(this.#store, this.#play, {
      now: () => this.#now(),
      theme: () => this.#theme.get(),
      cluster: () => this.#cluster,
      nodes: () => this.#snap.nodes,
      quorum: () => this.#snap.quorum,
      downLinks: () => this.#snap.down,
      act: (what, fn) => this.#actions.act(what, fn),
      write: () => this.#actions.write(),
      openNode: (id, anchor) => this.#later.with('The node menu', (l) => l.menu.open(id, anchor, this.#root)),
      unsafe: () => this.#runs.unsafe,
      setUnsafe: (list) => this.#runs.setUnsafe(list),
      violations: () => this.#snap.violations,
      showViolation: (v) => this.#actions.showViolation(v),
      settings: () => this.#runs.settings,
      applySettings: (s) => this.#runs.applySettings(s),
      reset: () => void this.#runs.reset(),
      leaderChanges: () => this.#leaderChanges.get(this.#cluster, this.#play.playing),
      later: (what, fn) => this.#later.with(what, () => fn()),
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

    this.#caption = new Caption({
      continue: () => this.#play.setPlaying(true),
      // with the gap below it: what the stage's fit to the window leaves the bar
      resized: (px) => this.#root.style.setProperty('--kp-caption-h', `${px ? px + 10 : 0}px`),
      returnToScript: (at) => void this.#runs.returnToStep(at.step),
      open: (n) => void this.#runs.pick(n.id, n.variant),
      replay: () => void this.#runs.reset(),
      variants: () => {
        const entry = this.#runs.scenario ? findScenario(this.#runs.scenario.id) : undefined;
        return entry ? variantsOf(entry) : [];
      },
      completed: (id) => this.courseProgress?.completed(id) ?? false,
      cluster: () => this.#cluster,
      withCard: (fn) => this.#later.with('The story card', (l) => fn(l.card)),
    });
    this.#views.controls.el.querySelector('.kp-speed-wrap')?.after(this.#frames.capped.el);

    this.#keyHost = {
      play: this.#play,
      now: () => this.#now(),
      timeline: views.timeline,
      crashed: () => this.#crashes.crashed,
      leader: () => this.#cluster?.leader(),
      act: (what, fn) => this.#actions.act(what, fn),
      write: () => this.#actions.write(),
      toast: (text) => this.#toaster.show(text),
      reset: () => void this.#runs.reset(),
      help: () => this.#openHelp(),
      closeDialog: () => this.#later.parts?.dialogs.close(),
      closeMenu: () => {
        this.#later.parts?.menu.close(true);
        this.#later.parts?.exportMenu.close(true);
      },
    };
    this.#boot = new Boot({
      el: this,
      root: this.#root,
      hasCluster: () => !!this.#cluster,
      wasm: () => KraftPlayground.wasm ?? new URL('./kraft_playground_bg.wasm', import.meta.url),
      runs: this.#runs,
      play: this.#play,
      notices: this.#notices,
      status: this.#status,
      picker: this.#picker,
      outline: this.#outline,
      now: () => this.#now(),
      syncSettings: () => this.#views.controls.syncSettings(),
      booted: () => {
        this.#later.loadSoon(() => {
          void this.#boot.listLibrary();
          // the share-link codec, which `ready` waits for
          const ready = () => this.#resolveReady();
          void Cluster.__initLinks().then(ready, ready);
        });
      },
    });
    layOut(this.#root, {
      picker: this.#picker.el,
      status: this.#status.el,
      exportMenu: this.#exportBox,
      onShare: () => this.#later.with('Sharing', (l) => this.#share.open((c, url, whole) => l.openShare(l.dialogs, c, url, whole))),
      onHelp: () => this.#openHelp(),
      banners: [this.#crashes.banner.el, this.#notices.el, this.#settingsNote.el, this.#caption.el],
      ring: this.#views.ring,
      timeline: this.#views.timeline,
      dock: this.#views.faults.dock,
      playback: this.#views.controls.el,
      settings: this.#views.controls.settingsEl,
      logs: this.#views.logs,
      images: this.#views.images.el,
      panels: [this.#later.slots.quorum, this.#later.slots.invariants, this.#later.slots.network, this.#later.slots.changes, this.#later.slots.settings],
      overlays: [this.#live.el],
    });

    // a glossary word: its entry in the help
    this.#root.addEventListener('click', (e) => {
      const word = e.composedPath().find((n): n is HTMLElement => n instanceof HTMLElement && n.classList.contains('kp-term'));
      if (word) this.#openHelp(word.dataset.term);
    });
    this.#setLoading(true);
  }

  /** What a tap elsewhere closes. */
  #popups(): Popup[] {
    const menu = this.#later.parts?.menu.popup;
    const key = disclosure(() => this.#root.querySelector('.kp-ring-key'));
    const exportMenu = this.#later.parts?.exportMenu.popup;
    const explainer = this.#views.timeline.explainer?.popup;
    return [...(menu ? [menu] : []), ...(exportMenu ? [exportMenu] : []), ...(explainer ? [explainer] : []), key, this.#caption.summaryPopup];
  }

  #openHelp(term?: string): void {
    this.#later.with('The help', (l) => l.openHelp(l.dialogs, term));
  }

  /**
   * Until the first run is on screen (the wasm core is still loading) nothing that
   * would act on a cluster takes input: a choice made then would be dropped.
   */
  #setLoading(on: boolean): void {
    this.#root.toggleAttribute('data-loading', on);
    this.#picker.el.disabled = on;
    const network = this.#later.parts?.network.el ?? this.#later.slots.network;
    for (const el of [this.#views.controls.el, this.#views.controls.settingsEl, this.#views.ring.el, network, this.#views.faults.dock]) el.inert = on;
    this.#caption.setLoading(on);
    if (on) this.#status.loading();
  }

  // ---- runs ---------------------------------------------------------------------------------

  /** Puts a cluster on screen. */
  #install(c: Cluster): void {
    // the story shown while the core loaded, if this is its run: its caption bar stays
    const outlined = this.#outline.takenBy(this.#runs.scenario);
    this.#crashes.clear();
    this.#setLoading(false);
    const wasPlaying = this.#play.playing;
    this.#play.setPlaying(false);
    this.#unsub?.();
    this.#player?.destroy();
    if (this.#cluster && this.#cluster !== c) {
      this.#cluster.__watch(null);
      this.#cluster.dispose();
    }
    this.#cluster = c;
    c.__watch(() => this.#pageCalls.moved(c));
    this.#player = new Player<PackedBatch>(c, {
      speed: this.#play.speed,
      // a frame's events are read for the ring's ✕ and the announcements (no text), a seek's not
      packed: { text: false, batches: true },
      maxEvents: MAX_FRAME_EVENTS,
      maxSeekMs: 0,
    });
    this.#store.attach(c);
    this.#views.logs.reload();
    this.#live.clear();
    if (!outlined) this.#caption.reset();
    this.#progress.reset(this.#runs.scenario);
    // a story that asks to pause at its very start waits there for "Continue"
    this.#play.pausedAtStep = stopAt(this.#runs.scenario, c.now)?.index ?? -1;
    this.#views.timeline.highlight.clear();
    this.#views.timeline.highlightNodes.clear();
    this.#views.logs.setRecordNames(this.#runs.scenario?.recordNames ?? {});
    this.#views.ring.setRecordNames(this.#runs.scenario?.recordNames ?? {});
    this.#script.reset();
    this.#later.parts?.menu.close();
    // the recorded run (a story's whole, opened at its start) is the core's: the lanes show it
    this.#play.horizon = Math.max(c.horizon, this.#runs.scenario?.endMs ?? 0);
    this.#unsub = this.#player.subscribe((f) => this.#drawer.events(f.events, f.reset));
    this.#drawer.refresh(true);
    this.#views.faults.sync();
    this.#views.controls.syncSettings();
    this.#settingsNote.update(c);
    this.#later.parts?.settings.sync();
    this.#views.controls.setTicks(stepTicks(this.#runs.scenario), this.#play.horizon);
    this.#views.timeline.setFollow(true);
    this.#views.timeline.invalidate();
    this.#views.ring.invalidate();
    this.#views.logs.invalidate();
    this.#views.images.invalidate();
    this.#later.parts?.imageCard.invalidate();
    showStoryPlace(this.#storyPlace, !outlined);
    if (wasPlaying && !this.#runs.scenario) this.#play.setPlaying(true);
    this.#share.emitChange();
  }

  // ---- the loop -----------------------------------------------------------------------------

  #now(): number {
    return this.#snap.now(this.#cluster);
  }

  /** Starts (true) or stops (false) timing each part of a frame; returns what was timed. */
  profile(on: boolean): Record<string, number[]> | null {
    return this.#loop.profile(on);
  }

  /** The URL that reproduces this run (once {@link ready} has resolved). */
  shareUrl(): string {
    return this.#share.url();
  }
}
