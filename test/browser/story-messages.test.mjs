// A stop whose caption names messages: the timeline draws those arrows emphasized and the
// others dimmed, and marks their legend entries; away from a stop every arrow is as usual.
//   node --test test/browser/story-messages.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, root, shotPath, useSite } from './harness.mjs';

const site = useSite();

/** What the timeline draws of the named messages, and the legend entries marked. */
const named = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const tl = r.querySelector('.kp-tl');
    return {
      emphasized: tl.dataset.namedArrows ?? '',
      dimmed: tl.dataset.dimmedArrows ?? '',
      marked: [...r.querySelectorAll('.kp-legend-item.kp-legend-named')].map((b) => b.dataset.rpc),
    };
  });

const stepShown = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
    return { state: c.dataset.state, step: Number(c.querySelector('.kp-caption-text')?.dataset.step) };
  });

/** Plays on to the stop at step `index` (the story autoplays, or is started here). */
async function stopAt(page, index) {
  for (let i = 0; i < 40; i++) {
    await page.waitForFunction(
      () => {
        const el = document.querySelector('kraft-playground');
        const c = el.shadowRoot.querySelector('[data-caption]');
        return c.dataset.state === 'waiting' || c.dataset.state === 'complete' || !el.hasAttribute('data-playing');
      },
      null,
      { timeout: 30_000 },
    );
    await page.waitForTimeout(150);
    const s = await stepShown(page);
    if (s.state === 'waiting' && s.step === index) return;
    if (s.state === 'complete') throw new Error(`the story ended before step ${index}`);
    await page.locator(`${EL} [data-action="${s.state === 'waiting' ? 'continue' : 'play'}"]`).click();
    await page.waitForTimeout(100);
  }
  throw new Error(`no stop at step ${index}`);
}

describe('a stop names messages', () => {
  test('leader-crash-failover: at the crash the Fetch arrows are emphasized, Fetch marked; at detection PreVote is, Fetch dimmed; not after the stop', async () => {
    const { page, errors } = await site.open('/?scenario=leader-crash-failover&speed=10');
    await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
    await stopAt(page, 1);
    const crash = await named(page);
    // every arrow around the crash is a Fetch or its response: all named, none dimmed
    assert.ok(Number(crash.emphasized) > 0, `Fetch arrows emphasized: ${JSON.stringify(crash)}`);
    assert.deepEqual(crash.marked, ['Fetch']);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('story-messages-fetch.png') });
    await stopAt(page, 2);
    const detection = await named(page);
    assert.ok(Number(detection.emphasized) > 0, `PreVote arrows emphasized: ${JSON.stringify(detection)}`);
    assert.ok(Number(detection.dimmed) > 0, `the Fetch arrows dimmed: ${JSON.stringify(detection)}`);
    assert.deepEqual(detection.marked, ['PreVote']);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('story-messages.png') });
    await page.locator(`${EL} [data-action="continue"]`).click();
    // away from step 2: playing, or (42 ms of wall time later at 10x, which a busy machine's
    // polling can miss) already waiting at step 3, whose caption names no messages
    await page.waitForFunction(() => {
      const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
      return c.dataset.state !== 'waiting' || c.querySelector('.kp-caption-text').dataset.step !== '2';
    });
    await page.waitForTimeout(150);
    assert.deepEqual(await named(page), { emphasized: '', dimmed: '', marked: [] }, 'playing on: every arrow as usual');
    assert.deepEqual(errors, []);
    await page.close();
  });

  // every named message is on screen at its stop: a focus whose from/to match nothing would highlight nothing
  const stories = readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => ({ id: f.slice(0, -5), file: JSON.parse(readFileSync(join(root, 'scenarios', f), 'utf8')) }))
    .filter(({ file }) => file.steps?.some((s) => s.focus?.messages && s.caption));
  for (const { id, file } of stories) {
    test(`${id}: each stop naming messages emphasizes some arrows`, async () => {
      const { page, errors } = await site.open(`/?scenario=${id}&speed=20`);
      await page.locator(`${EL} [data-caption]`).waitFor({ state: 'visible' });
      for (const [i, st] of file.steps.entries()) {
        if (!st.caption || !st.focus?.messages) continue;
        await stopAt(page, i);
        const at = await named(page);
        assert.ok(Number(at.emphasized) > 0, `step ${i}: ${JSON.stringify(st.focus.messages)} emphasizes arrows: ${JSON.stringify(at)}`);
        assert.deepEqual(at.marked.sort(), [...new Set(st.focus.messages.map((m) => m.kind))].sort(), `step ${i}: legend`);
      }
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
