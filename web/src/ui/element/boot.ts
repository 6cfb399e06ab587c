// Booting the element from its attributes: the layout they ask for, the downloads the
// first run waits for started side by side (the core, the story they name), that story's
// outline while the core loads, and then the first run: a share link's, the story's, or
// free play. Anything wrong becomes a notice, and free play is shown instead.

import { Cluster, type WasmSource } from '../../api.js';
import type { Playback } from '../playback/playback.js';
import type { Notices, StatusLine } from '../shell/messages.js';
import type { StoryOutline } from '../story/outline.js';
import type { ScenarioPicker } from '../story/picker.js';
import { findScenario, loadBundledScenarios, openableScenario, prefetchScenario } from '../story/scenarios.js';
import { stopAt } from '../story/story.js';
import { type Parsed, parseAttributes, show } from './attributes.js';
import { DEFAULT_TUNING, type RunChoice, unknownScenario } from './runs.js';

/** What booting needs of the element. */
export interface BootHost {
  /** The element itself: its attributes, whether it is connected, its style. */
  el: HTMLElement;
  /** The root of its shadow tree, which carries the layout. */
  root: HTMLElement;
  /** Whether a run is on screen already. */
  hasCluster(): boolean;
  /** Where the wasm core is, or its fetch or compile already under way. */
  wasm(): WasmSource;
  runs: RunChoice;
  play: Playback;
  notices: Notices;
  status: StatusLine;
  picker: ScenarioPicker;
  outline: StoryOutline;
  now(): number;
  /** The controls show the run settings. */
  syncSettings(): void;
  /** The first run is on screen. */
  booted(): void;
}

export class Boot {
  /** The attributes as the last boot read them (null before it). */
  parsed: Parsed | null = null;
  readonly #host: BootHost;

  constructor(host: BootHost) {
    this.#host = host;
  }

  /** The layout the attributes ask for, and the outline of the story they name (not a link's). */
  showAsked(): void {
    const host = this.#host;
    if (host.hasCluster() || !host.el.isConnected) return;
    const p = parseAttributes(host.el);
    this.#applyLayout(p);
    if (p.scenario && !p.run) void host.outline.show(p.scenario, p.variant, p.seedGiven ? p.settings.seed : null);
  }

  #applyLayout(p: Parsed): void {
    const root = this.#host.root;
    root.dataset.controls = p.minimal ? 'minimal' : 'full';
    root.dataset.layout = p.full ? 'full' : 'compact';
    if (p.height) this.#host.el.style.setProperty('--kp-stage-h', `${p.height}px`);
  }

  /** Reads the attributes and puts the run they ask for on screen. */
  async run(): Promise<void> {
    const host = this.#host;
    const p = parseAttributes(host.el);
    this.parsed = p;
    host.notices.problems = [...p.problems];
    this.#applyLayout(p);
    host.runs.settings = { ...p.settings };
    // what the attributes ask for, from scratch: nothing of the last run's rules or
    // settings carries over (free play after an unsafe story starts safe)
    host.runs.unsafe = [];
    host.runs.tuning = DEFAULT_TUNING;
    if (!p.seedGiven) host.runs.settings.seed = Math.floor(Math.random() * 1_000_000);
    host.play.initialSpeed(p.speed);
    const core = this.#startLoading().then(
      () => null,
      (e: Error) => e,
    );
    // a story the course names opens without the library's outline (it is listed after
    // the first frame); anything else waits for the outline, beside the core
    if (p.run || !p.scenario || !openableScenario(p.scenario)) await this.listLibrary();
    if (p.scenario) this.#prefetch(p.scenario);
    if (p.scenario && !p.run) void host.outline.show(p.scenario, p.variant, p.seedGiven ? p.settings.seed : null);
    const failed = await core;
    if (failed) {
      host.notices.problems.push(`The simulation core could not be loaded: ${failed.message}`);
      host.notices.show();
      host.status.unavailable();
      return;
    }
    let loaded = false;
    if (p.run) {
      loaded = await host.runs.loadLink(p.run, p.scenario, p.variant);
    } else if (p.scenario) {
      const entry = openableScenario(p.scenario);
      if (!entry) {
        host.notices.problems.push(unknownScenario(p.scenario));
      } else {
        loaded = await host.runs.loadScenario(entry.id, p.variant, p.seedGiven ? { seed: p.settings.seed } : {});
      }
    } else if (p.variant) {
      host.notices.problems.push(`variant=${show(p.variant)} needs a scenario; ignored.`);
    }
    if (!loaded) await host.runs.newRun();
    host.notices.show();
    host.syncSettings();
    // a shared link shows its moment; press play to go on from there
    const fromLink = !!p.run && loaded;
    if (p.autoplay && !fromLink && !stopAt(host.runs.scenario, host.now())) host.play.setPlaying(true);
    host.booted();
  }

  /**
   * Starts the downloads the first run waits for, side by side: the core and the story
   * the `scenario` attribute names (a link's captions too). Returns the core's loading.
   */
  #startLoading(): Promise<void> {
    // the core alone: the share-link codec comes after the first frame (the element's `ready`)
    const core = Cluster.__initCore(this.#host.wasm());
    const id = this.#host.el.getAttribute('scenario');
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
  async listLibrary(): Promise<void> {
    await loadBundledScenarios();
    this.#host.picker.fill();
  }
}
