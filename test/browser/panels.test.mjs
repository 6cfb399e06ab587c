// The panels below the stage and the status line: the logs (truncated records, a lagging
// node's row), the invariants' ticks, and the status pill with two leaders.
//   node --test test/browser/panels.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EL, shotPath, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

/** The accessible summary's log lines ("n0 log: ..."), after it has refreshed. */
async function logLines(page) {
  await page.waitForTimeout(700);
  return page.evaluate(() => [...document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-summary] [data-log]')].map((p) => p.textContent));
}

/** Red (danger) pixels in node n's row of the logs canvas: the truncated boxes, struck out. */
const redInRow = (page, n) =>
  page.evaluate((n) => {
    const c = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-logs-canvas');
    const k = c.width / c.clientWidth;
    const y0 = Math.round((18 + n * 24) * k);
    const d = c.getContext('2d').getImageData(0, y0, c.width, Math.round(24 * k)).data;
    let red = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 170 && d[i + 1] < 110 && d[i + 2] < 110) red++;
    return red;
  }, n);

const seek = (page, t) =>
  page.evaluate(async (t) => {
    const el = document.querySelector('kraft-playground');
    el.player.seek(t);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, t);

describe('the logs panel', () => {
  test("truncated records are shown from the moment's history: the same after any seek, never over records that replaced them", async () => {
    const { page } = await open('/?scenario=diverging-follower&autoplay=0');
    // n0 truncates 8 -> 5 at 17.426 s and 5 -> 3 at 17.626 s (scenarios/golden/diverging-follower.txt)
    const T = 17_700;
    await seek(page, T);
    const direct = await logLines(page);
    assert.match(direct[0], /just truncated: offsets/, direct[0]);
    const redDirect = await redInRow(page, 0);
    await page.locator(`${EL} .kp-logs`).screenshot({ path: shotPath('logs-truncated.png') });
    await seek(page, T + 6000);
    await logLines(page);
    const redLater = await redInRow(page, 0);
    assert.ok(redDirect > redLater + 40, `n0's row has the struck-out boxes after a seek (${redDirect} red pixels, ${redLater} later)`);
    await seek(page, 30_000);
    await seek(page, T);
    assert.deepEqual(await logLines(page), direct, 'back from later: the same');
    await seek(page, 16_000);
    await seek(page, T);
    assert.deepEqual(await logLines(page), direct, 'forward from earlier: the same');
    // long after, the boxes are gone
    await seek(page, T + 6000);
    assert.doesNotMatch((await logLines(page))[0], /just truncated/);
    await page.close();
  });

  test('at the end of lossy-network no truncated box sits where the log holds records again', async () => {
    const { page } = await open('/?scenario=lossy-network&autoplay=0');
    // the end of the story, reached by playing at speed (the path that left stale boxes)
    await page.evaluate(() => document.querySelector('kraft-playground').setAttribute('speed', '100'));
    const played = await page.evaluate(async () => {
      const el = document.querySelector('kraft-playground');
      const btn = el.shadowRoot.querySelector('[data-action="play"]');
      // Continue past each of the story's pauses until it ends (60 s)
      for (let i = 0; i < 400 && el.cluster.now < 60_000; i++) {
        if (!el.hasAttribute('data-playing')) btn.click();
        await new Promise((r) => setTimeout(r, 100));
      }
      if (el.hasAttribute('data-playing')) btn.click();
      return el.cluster.now;
    });
    assert.ok(played >= 60_000, `played to ${played}`);
    const lines = await logLines(page);
    // the same moment reached by a seek shows the same
    await seek(page, 0);
    await seek(page, played);
    assert.deepEqual(await logLines(page), lines);
    const nodes = await page.evaluate(() => document.querySelector('kraft-playground').cluster.nodes({ records: false }));
    lines.forEach((l, i) => {
      const m = /just truncated: offsets (\d+)–(\d+)/.exec(l);
      if (m) assert.ok(Number(m[1]) >= nodes[i].leo, `n${i}: a box at ${m[1]} under LEO ${nodes[i].leo} (t ${played})`);
    });
    await page.close();
  });

  test("a lagging node's row says where its log ends instead of looking empty", async () => {
    const { page } = await open('/?seed=42&speed=10');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() != null, null, { timeout: 30_000 });
    const lag = await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').cluster;
      const l = c.leader();
      const f = (l.id + 1) % 3;
      c.isolate(f);
      for (let i = 0; i < 120; i++) c.write();
      return f;
    });
    await page.waitForFunction(() => {
      const ns = document.querySelector('kraft-playground').cluster.nodes({ records: false });
      return Math.max(...ns.map((n) => n.leo)) > 100;
    });
    await page.locator(`${EL} [data-action="play"]`).click();
    const lines = await logLines(page);
    assert.match(lines[lag], /its log ends at \d+, before this view/, lines[lag]);
    await page.locator(`${EL} .kp-logs`).screenshot({ path: shotPath('logs-lagging.png') });
    await page.close();
  });
});

describe('the invariants and the status', () => {
  test('StableLeadership shows no ✓ where the run does not check it (free play), and ✓ where a story does', async () => {
    const inv = (page) =>
      page.evaluate(() => {
        const li = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-invariant="StableLeadership"]');
        return { state: li.dataset.state, mark: li.querySelector('.kp-inv-state').textContent };
      });
    const free = await open('/?seed=42');
    await free.page.waitForTimeout(300);
    assert.deepEqual(await inv(free.page), { state: 'unchecked', mark: '–' });
    await free.page.close();
    const story = await open('/?scenario=disruptive-rejoin&autoplay=0');
    await story.page.waitForTimeout(300);
    assert.deepEqual(await inv(story.page), { state: 'ok', mark: '✓' });
    await story.page.close();
  });

  test('the status pill names both leaders while two act as leader (partitioned leader, no check-quorum)', async () => {
    const { page } = await open('/?scenario=partitioned-leader&variant=no-check-quorum&autoplay=0');
    const t = await page.evaluate(async () => {
      const el = document.querySelector('kraft-playground');
      for (let t = 500; t < 40_000; t += 250) {
        el.player.seek(t);
        if (el.cluster.nodes({ records: false }).filter((n) => n.state === 'leader').length === 2) return t;
      }
      return -1;
    });
    assert.ok(t > 0, 'two leaders at some moment');
    await page.waitForTimeout(200);
    const text = await page.locator(`${EL} .kp-status`).textContent();
    assert.match(text, /2 nodes act as leader: n\d \(epoch \d+\), n\d \(epoch \d+\)/, text);
    await page.close();
  });
});
