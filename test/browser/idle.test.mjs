// Quiet when idle (issue 12): paused, hidden, off-screen or finished, the element draws
// no frames (no requestAnimationFrame loop) and changes nothing in the DOM; a hover, a
// resize or play draws again on demand.
//   node --test test/browser/idle.test.mjs      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nowOf, useSite } from './harness.mjs';

const site = useSite();

async function open(path) {
  const { page, errors } = await site.open(path);
  // count every requestAnimationFrame request and every DOM change, page and element alike
  await page.evaluate(() => {
    const w = window;
    w.__rafs = 0;
    w.__mutations = 0;
    const raf = w.requestAnimationFrame.bind(w);
    w.requestAnimationFrame = (cb) => {
      w.__rafs++;
      return raf(cb);
    };
    const mo = new MutationObserver((list) => {
      w.__mutations += list.length;
    });
    const opts = { subtree: true, childList: true, attributes: true, characterData: true };
    mo.observe(document.body, opts);
    mo.observe(document.querySelector('kraft-playground').shadowRoot, opts);
  });
  return { page, errors };
}

/** requestAnimationFrame calls and DOM changes during `ms` of wall time. */
async function activity(page, ms = 2000) {
  return page.evaluate(async (ms) => {
    // let what was already under way (a last frame, a summary refresh) settle first
    await new Promise((r) => setTimeout(r, 400));
    const r0 = window.__rafs;
    const m0 = window.__mutations;
    const t0 = document.querySelector('kraft-playground').cluster.now;
    await new Promise((r) => setTimeout(r, ms));
    return { rafs: window.__rafs - r0, mutations: window.__mutations - m0, simulated: document.querySelector('kraft-playground').cluster.now - t0 };
  }, ms);
}

const playButton = (page) => page.locator('kraft-playground').locator('[data-action="play"]');

async function setPlaying(page, on) {
  const label = await playButton(page).getAttribute('aria-label');
  if ((label === 'Play') === on) await playButton(page).click();
  await page.waitForFunction((on) => document.querySelector('kraft-playground').hasAttribute('data-playing') === on, on);
}

test('paused and visible: no frames and no DOM changes', async () => {
  const { page, errors } = await open('/?voters=5&observers=2&seed=3');
  await setPlaying(page, true);
  await page.waitForTimeout(500);
  await setPlaying(page, false);
  const a = await activity(page);
  assert.deepEqual(a, { rafs: 0, mutations: 0, simulated: 0 }, 'paused, the page kept drawing');
  assert.deepEqual(errors, []);
  await page.close();
});

test('paused, a hover and a resize still draw on demand, then it is quiet again', async () => {
  const { page } = await open('/?voters=5&observers=2&seed=3');
  await setPlaying(page, true);
  await page.waitForTimeout(800);
  await setPlaying(page, false);
  await activity(page, 300);
  const before = await page.evaluate(() => window.__rafs);
  const canvas = page.locator('kraft-playground').locator('.kp-tl-canvas');
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.4);
  await page.waitForTimeout(100);
  const afterHover = await page.evaluate(() => window.__rafs);
  assert.ok(afterHover > before, 'a hover drew no frame');
  // a narrower window: the canvases are redrawn at their new size
  const ringCanvas = page.locator('kraft-playground').locator('.kp-ring-canvas');
  const w0 = await ringCanvas.evaluate((c) => c.width);
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.waitForFunction((w0) => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-ring-canvas').width !== w0, w0);
  await page.mouse.move(0, 0);
  const a = await activity(page);
  assert.deepEqual(a, { rafs: 0, mutations: 0, simulated: 0 }, 'after the hover and resize, the page kept drawing');
  await page.close();
});

test('playing but hidden (visibilitychange): no frames, the run waits; visible again, it plays on', async () => {
  const { page } = await open('/?voters=5&observers=2&seed=3');
  await setPlaying(page, true);
  const hide = (hidden) =>
    page.evaluate((hidden) => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
  await hide(true);
  const a = await activity(page);
  assert.equal(a.rafs, 0, 'hidden, the page kept requesting frames');
  assert.equal(a.mutations, 0, 'hidden, the page kept changing the DOM');
  assert.equal(a.simulated, 0, 'hidden, the run went on');
  await hide(false);
  const b = await activity(page, 1000);
  assert.ok(b.rafs > 0 && b.simulated > 0, `visible again, it did not play on: ${JSON.stringify(b)}`);
  await page.close();
});

test('playing but scrolled off-screen (IntersectionObserver): no frames until it is back', async () => {
  const { page } = await open('/?voters=5&observers=2&seed=3');
  await setPlaying(page, true);
  await page.evaluate(() => {
    const spacer = document.createElement('div');
    spacer.style.height = '4000px';
    document.body.append(spacer);
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  await page.waitForFunction(() => document.querySelector('kraft-playground').getBoundingClientRect().bottom < 0);
  const a = await activity(page);
  assert.equal(a.rafs, 0, 'off-screen, the page kept requesting frames');
  assert.equal(a.simulated, 0, 'off-screen, the run went on');
  await page.evaluate(() => window.scrollTo(0, 0));
  const b = await activity(page, 1000);
  assert.ok(b.rafs > 0 && b.simulated > 0, `back on screen, it did not play on: ${JSON.stringify(b)}`);
  await page.close();
});

test('a story played to its end: no frames and no DOM changes', async () => {
  const { page } = await open('/?scenario=first-election&speed=100');
  // Continue through every pause until the story stops at its end
  await page.evaluate(() => {
    document.querySelector('kraft-playground').player.speed = 100;
  });
  const end = await storyEnd(page);
  for (let i = 0; i < 40 && (await nowOf(page)) < end; i++) {
    // Continue, and wait until it stopped again further on (a close pause may stop it within a frame)
    const from = await nowOf(page);
    await playButton(page).click();
    await page.waitForFunction(
      (from) => {
        const el = document.querySelector('kraft-playground');
        return !el.hasAttribute('data-playing') && el.cluster.now > from;
      },
      from,
      { timeout: 30_000 },
    );
  }
  assert.equal(await nowOf(page), end, 'the story did not stop at its end');
  const a = await activity(page);
  assert.deepEqual(a, { rafs: 0, mutations: 0, simulated: 0 }, 'finished, the page kept drawing');
  await page.close();
});

/** The story's end (ms): where it stops after its last step (the caption bar says). */
function storyEnd(page) {
  return page.evaluate(() => Number(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.end));
}
