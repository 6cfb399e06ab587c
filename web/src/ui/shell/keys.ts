// The keyboard's handler: what each key does (the help dialog lists them: help.ts's KEY_HELP).

import type { Cluster } from '../../api.js';
import type { Playback } from '../playback/playback.js';
import type { Timeline } from '../timeline/timeline.js';

/** What the keys act on. */
export interface KeyHost {
  play: Playback;
  now(): number;
  timeline: Timeline;
  /** The core crashed: only help and Escape still work. */
  crashed(): boolean;
  leader(): { id: number; epoch: number } | null | undefined;
  act(what: string, fn: (c: Cluster) => unknown): unknown;
  write(): void;
  toast(text: string): void;
  reset(): void;
  help(): void;
  closeDialog(): void;
  closeMenu(): void;
}

/** Handles a key press for the element (the keys help.ts's KEY_HELP lists). */
export function onKey(e: KeyboardEvent, k: KeyHost): void {
  const t = e.composedPath()[0] as HTMLElement | undefined;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA') && e.key !== 'Escape') return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (k.crashed() && e.key !== '?' && e.key !== 'Escape') return;
  let handled = true;
  switch (e.key) {
    case ' ':
    case 'k':
      if (t && t.tagName === 'BUTTON') return;
      k.play.setPlaying(!k.play.playing);
      break;
    case '.':
      k.play.step();
      break;
    case 'ArrowRight':
      k.play.seek(k.now() + (e.shiftKey ? 10_000 : 1000));
      break;
    case 'ArrowLeft':
      k.play.seek(Math.max(0, k.now() - (e.shiftKey ? 10_000 : 1000)));
      break;
    case 'Home':
      k.play.seek(0);
      break;
    case 'End':
      k.play.seek(k.play.horizon);
      break;
    case '[':
      k.play.setSpeed(k.play.speed / 2);
      break;
    case ']':
      k.play.setSpeed(k.play.speed * 2);
      break;
    case 'z':
      k.timeline.zoomBy(0.5);
      break;
    case 'x':
      k.timeline.zoomBy(2);
      break;
    case 'f':
      k.timeline.setFollow(true);
      break;
    case '0':
      k.timeline.fitAll();
      break;
    case 'c': {
      const l = k.leader();
      if (l) k.act('crash', (c) => c.crash(l.id));
      else k.toast('There is no leader to crash');
      break;
    }
    case 'g':
      if (k.leader()) k.act('resign', (c) => c.resign());
      break;
    case 'w':
      k.write();
      break;
    case 'h':
      k.act('heal', (c) => c.heal());
      break;
    case 'R':
      k.reset();
      break;
    case '?':
      k.help();
      break;
    case 'Escape':
      k.closeDialog();
      k.closeMenu();
      break;
    default:
      handled = false;
  }
  if (handled) e.preventDefault();
}
