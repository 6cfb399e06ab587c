// The element's frame loop (web/src/ui/playback/frame-loop.ts): how much wall time each frame of
// play is given. Bundled from source with esbuild; driven by a fake clock and a fake
// requestAnimationFrame (a frame's timestamp is when it began, before its callback runs).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const source = fileURLToPath(new URL('../src/ui/playback/frame-loop.ts', import.meta.url));

async function loadFrameLoop() {
  const dir = mkdtempSync(join(tmpdir(), 'kp-frame-loop-'));
  try {
    const outfile = join(dir, 'frame-loop.mjs');
    await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A page's clock and animation frames, by hand: `frame(began, now)` runs the pending callback of a frame that began at `began`, at `now`. */
function fakePage() {
  let now = 0;
  let pending = null;
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'performance');
  Object.defineProperty(globalThis, 'performance', { value: { now: () => now }, configurable: true, writable: true });
  globalThis.requestAnimationFrame = (cb) => {
    pending = cb;
    return 1;
  };
  globalThis.cancelAnimationFrame = () => {
    pending = null;
  };
  globalThis.document = { hidden: false, addEventListener() {}, removeEventListener() {} };
  return {
    set now(t) {
      now = t;
    },
    frame(began, at) {
      now = at;
      const cb = pending;
      pending = null;
      assert.ok(cb, 'a frame was asked for');
      cb(began);
    },
    restore() {
      Object.defineProperty(globalThis, 'performance', saved);
      delete globalThis.requestAnimationFrame;
      delete globalThis.cancelAnimationFrame;
      delete globalThis.document;
    },
  };
}

test('the first frame after Play plays until it is on screen, even when that frame began before Play', async () => {
  // The regression: the first frame after Play counted from its own timestamp, which is
  // before Play when a long task (loading the story) delayed the frame's callback: it
  // played 0 ms and showed the moment of Play still; the running cluster came a frame later.
  const { FrameLoop } = await loadFrameLoop();
  const page = fakePage();
  try {
    const played = [];
    let playing = false;
    const loop = new FrameLoop((elapsed) => {
      if (playing) played.push(elapsed);
      return playing;
    });
    loop.connect({});
    page.frame(0, 1); // a paused frame
    // play starts at 100 ms; the frame that began at 90 ms runs its callback at 130 ms
    page.now = 100;
    playing = true;
    loop.restartClock();
    loop.request();
    page.frame(90, 130);
    assert.equal(played.length, 1);
    // from Play to the end of this frame's callback, and one display frame until it is shown
    assert.ok(Math.abs(played[0] - (30 + 1000 / 60)) < 1e-9, `the first frame played ${played[0]} ms`);
    // the frames after it count from one frame's start to the next's, nothing twice
    page.frame(140, 141);
    page.frame(156.7, 157);
    assert.deepEqual(
      played.slice(1).map((ms) => Math.round(ms * 10) / 10),
      [10, 16.7],
    );
  } finally {
    page.restore();
  }
});

test('frames of play that follow one another play the time between their timestamps', async () => {
  const { FrameLoop } = await loadFrameLoop();
  const page = fakePage();
  try {
    const played = [];
    const loop = new FrameLoop((elapsed) => {
      played.push(elapsed);
      return true;
    });
    page.now = 10;
    loop.connect({});
    page.frame(16, 18);
    page.frame(32, 40);
    page.frame(48, 49);
    assert.deepEqual(played, [6, 16, 16]);
  } finally {
    page.restore();
  }
});
