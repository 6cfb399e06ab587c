// Regression tests for the bugs a learner met (issue 12): the loading window, keys on a
// page with several elements, focus after Escape, the phone menu, the logs' truncation
// boxes, the timeline's fault labels, axe-core, and smaller ones.
//   node --test test/browser/learner-bugs.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, holdBack, launch, nowOf, openPage, playTo, root, shotPath, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

/** What has focus, looking through the element's shadow root. */
const focused = (page) =>
  page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a ? { tag: a.tagName, node: a.dataset?.node ?? null, action: a.dataset?.action ?? null, cls: a.className } : null;
  });

/** A documentation page with two full-control elements, the second below the fold. */
const DOCS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script type="module">import { defineElement } from './kraft-playground.js'; defineElement();</script></head>
<body><main><h1>Docs</h1>
<kraft-playground id="a" controls="full" seed="1" speed="10"></kraft-playground>
<div style="height:3000px">text</div>
<kraft-playground id="b" controls="full" seed="2" speed="10"></kraft-playground>
<div style="height:2000px">more</div></main></body></html>`;

async function openDocs() {
  const page = await site.browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route('**/docs-two.html', (r) => r.fulfill({ contentType: 'text/html', body: DOCS }));
  await page.goto(`${site.server.url}docs-two.html`);
  await page.waitForFunction(() => ['a', 'b'].every((id) => document.getElementById(id)?.cluster != null), null, { timeout: 30_000 });
  return { page, errors };
}

/** A documentation page with one element (the compact layout) telling story `id`. */
async function openDocsOne(id, viewport) {
  const page = await site.browser.context.newPage();
  await page.setViewportSize(viewport);
  const body = DOCS.replace(/<kraft-playground[\s\S]*<\/main>/, `<kraft-playground scenario="${id}" autoplay="0"></kraft-playground><p>text after</p></main>`);
  await page.route('**/docs-one.html', (r) => r.fulfill({ contentType: 'text/html', body }));
  await page.goto(`${site.server.url}docs-one.html`);
  await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
  await page.evaluate(() => document.querySelector('kraft-playground').ready);
  return { page };
}

/**
 * The element's parts matching `sel` and those a reader cannot see without scrolling:
 * outside the viewport, cut off by a box around them that clips its overflow, or covered
 * by something else.
 */
const readable = (page, sel) =>
  page.evaluate((sel) => {
    const r = document.querySelector('kraft-playground').shadowRoot;
    const parts = [...r.querySelectorAll(sel)];
    const unreadable = [];
    for (const e of parts) {
      const b = e.getBoundingClientRect();
      const name = `${e.tagName} ${e.textContent.slice(0, 40)}`;
      if (b.width === 0 || b.height === 0) unreadable.push(`${name}: not shown`);
      else if (b.top < 0 || b.left < 0 || b.bottom > innerHeight || b.right > innerWidth) unreadable.push(`${name}: outside the viewport (${Math.round(b.top)}..${Math.round(b.bottom)})`);
      for (let a = e.parentElement ?? e.getRootNode().host; a; a = a.parentElement ?? a.getRootNode().host) {
        const cs = getComputedStyle(a);
        if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
        const p = a.getBoundingClientRect();
        if (b.top < p.top - 0.5 || b.bottom > p.bottom + 0.5 || b.left < p.left - 0.5 || b.right > p.right + 0.5)
          unreadable.push(`${name}: clipped by ${a.className || a.tagName} (${Math.round(p.top)}..${Math.round(p.bottom)})`);
      }
      const top = r.elementFromPoint(b.left + Math.min(b.width / 2, 20), b.top + b.height / 2);
      if (b.height > 0 && top && !e.contains(top) && !top.contains(e)) unreadable.push(`${name}: covered by ${top.className || top.tagName}`);
    }
    return { count: parts.length, unreadable };
  }, sel);

/** Travels to the story's end (the time slider's End key) and waits for its completion card. */
async function toStoryEnd(page) {
  await page.locator(`${EL} .kp-time`).click();
  await page.keyboard.press('End');
  await page.locator(`${EL} [data-story-complete]`).waitFor({ state: 'visible', timeout: 30_000 });
}

/** The completion card's parts: its headings, each item, each button. */
const cardParts = (page) => readable(page, '[data-story-complete] :is(h2, h3, li, button)');

describe('the loading window', () => {
  test('until the wasm core arrives the controls are disabled and say so; then a picked story loads', async () => {
    const page = await site.browser.context.newPage();
    const release = await holdBack(page, '**/kraft_playground_bg.wasm');
    // the embed: the main page picks stories from the tour panel, the embed from its picker
    await page.goto(`${site.server.url}embed.html?seed=5`);
    const picker = page.locator(`${EL} .kp-scenario`);
    await picker.waitFor({ state: 'attached' });
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelectorAll('.kp-scenario option').length > 1);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster), null);
    assert.match(await page.locator(`${EL} .kp-status`).textContent(), /loading the simulation core/i);
    assert.equal(await picker.isDisabled(), true, 'the story picker waits for the core');
    const inert = await page.evaluate(() => {
      const s = document.querySelector('kraft-playground').shadowRoot;
      return ['.kp-controls', '.kp-settings', '.kp-ring', '.kp-faults'].map((q) => s.querySelector(q).inert);
    });
    assert.deepEqual(inert, [true, true, true, true]);
    await page.screenshot({ path: shotPath('loading-core.png') });
    release();
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').ready);
    assert.equal(await picker.isDisabled(), false);
    await picker.selectOption('first-election');
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]')?.textContent.length > 0);
    assert.equal(await picker.inputValue(), 'first-election');
    await page.close();
  });
});

describe('a core that cannot load', () => {
  test('the status says so and the controls stay disabled', async () => {
    const page = await site.browser.context.newPage();
    await page.route('**/kraft_playground_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.goto(`${site.server.url}?seed=5`);
    await page.waitForFunction(() => /not loaded/.test(document.querySelector('kraft-playground')?.shadowRoot?.querySelector('.kp-status')?.textContent ?? ''), null, { timeout: 30_000 });
    assert.equal(await page.locator(`${EL} .kp-scenario`).isDisabled(), true);
    assert.match(await page.locator(`${EL} .kp-notice`).textContent(), /could not be loaded/);
    await page.close();
  });
});

describe('keys on a page with two elements', () => {
  test('keys act only on the focused element; Space scrolls the page when focus is outside; ? opens one dialog', async () => {
    const { page, errors } = await openDocs();
    const playing = () => page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).hasAttribute('data-playing')));
    const nows = () => page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).cluster.now));
    // focus outside (the page's body): Space scrolls and starts nothing
    await page.mouse.click(5, 5);
    const y0 = await page.evaluate(() => scrollY);
    await page.keyboard.press(' ');
    await page.waitForTimeout(300);
    assert.deepEqual(await playing(), [false, false]);
    assert.ok((await page.evaluate(() => scrollY)) > y0, 'Space scrolled the page');
    const t0 = await nows();
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await nows(), t0, 'ArrowRight seeks no element while focus is outside');
    // focus inside the first element (a click on its timeline): keys act on it only
    await page.evaluate(() => scrollTo(0, 0));
    await page.locator('#a .kp-ring').click({ position: { x: 5, y: 5 } });
    const ta = await nows();
    await page.keyboard.press('ArrowRight');
    const t1 = await nows();
    assert.ok(t1[0] >= ta[0] + 1000, 'the focused element travelled');
    assert.equal(t1[1], ta[1], 'the other did not');
    await page.keyboard.press('?');
    await page.waitForTimeout(200);
    const dialogs = await page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).shadowRoot.querySelectorAll('dialog[open]').length));
    assert.deepEqual(dialogs, [1, 0]);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('focus after Escape', () => {
  test('Escape on the node menu returns focus to its node button', async () => {
    const { page } = await open('/?seed=42');
    await page.locator(`${EL} .kp-node-btn[data-node="1"]`).click();
    await page.locator(`${EL} .kp-menu`).waitFor({ state: 'visible' });
    assert.equal((await focused(page)).tag, 'BUTTON');
    await page.keyboard.press('Escape');
    await page.locator(`${EL} .kp-menu`).waitFor({ state: 'hidden' });
    const f = await focused(page);
    assert.equal(f?.node, '1', `focus is on ${JSON.stringify(f)}`);
    await page.close();
  });

  test('Escape on the help dialog returns focus to the Help button', async () => {
    const { page } = await open('/?seed=42');
    await page.locator(`${EL} [data-action="help"]`).click();
    await page.locator(`${EL} dialog.kp-dialog`).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await page.locator(`${EL} dialog.kp-dialog`).waitFor({ state: 'detached' });
    const f = await focused(page);
    assert.equal(f?.action, 'help', `focus is on ${JSON.stringify(f)}`);
    await page.close();
  });
});

describe('phone', () => {
  test('the node menu stays inside the viewport at 390x844, whichever node', async () => {
    const phone = await launch({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    try {
      const { page } = await openPage(phone.context, `${site.server.url}?scenario=first-election`);
      await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
      const n = await page.locator(`${EL} .kp-node-btn`).count();
      for (let i = 0; i < n; i++) {
        await page.locator(`${EL} .kp-node-btn[data-node="${i}"]`).tap();
        const menu = page.locator(`${EL} .kp-menu`);
        await menu.waitFor({ state: 'visible' });
        for (const b of await menu.locator('button').all()) {
          const r = await b.boundingBox();
          assert.ok(r.y >= 0 && r.y + r.height <= 844, `n${i}: ${await b.textContent()} is at y ${r.y}..${r.y + r.height}`);
        }
        if (i === n - 1) await page.screenshot({ path: shotPath('phone-menu.png') });
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'hidden' });
      }
      await page.close();
    } finally {
      await phone.close();
    }
  });
});

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

/** Columns and rows of the timeline canvas holding fault-red pixels, in the axis row and below it. */
const redFlagBox = (page) =>
  page.evaluate(() => {
    const c = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-tl-canvas');
    const k = c.width / c.clientWidth;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const AXIS_H = 38;
    const cols = new Set();
    const rows = new Set();
    for (let y = Math.round((AXIS_H - 16) * k); y < c.height; y++) {
      for (let x = 0; x < c.width; x++) {
        const i = (y * c.width + x) * 4;
        // #dc2626 (--kp-danger), solid: the flags' fill (the dashed fault line is one column)
        if (Math.abs(d[i] - 220) < 12 && Math.abs(d[i + 1] - 38) < 12 && Math.abs(d[i + 2] - 38) < 12) {
          cols.add(Math.floor(x / k));
          rows.add(Math.floor(y / k));
        }
      }
    }
    const xs = [...cols];
    return { cols: cols.size, minX: Math.min(...xs), maxX: Math.max(...xs), rows: rows.size };
  });

describe('timeline fault labels', () => {
  test('ten cuts at t=0 are labelled at t=0, stacked, not spread over the next seconds', async () => {
    const { page } = await open('/?seed=3&voters=5&observers=0&autoplay=0');
    await page.evaluate(async () => {
      const el = document.querySelector('kraft-playground');
      const c = el.cluster;
      let k = 0;
      for (let a = 0; a < 5 && k < 10; a++) for (let b = 0; b < 5 && k < 10; b++) if (a !== b && k++ < 10) c.cut(a, b);
      el.player.refresh();
      await new Promise((r) => setTimeout(r, 300));
    });
    const box = await redFlagBox(page);
    // one label's width (about 60-130 px) and ten rows of them; spread in time, they would cover 10 widths
    assert.ok(box.maxX - box.minX < 200, `the labels span ${box.minX}..${box.maxX} px`);
    assert.ok(box.rows > 5 * 15, `stacked: red in ${box.rows} pixel rows`);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('timeline-stacked-flags.png') });
    await page.close();
  });
  test("flags over the lanes keep clear of the marks: n0's truncation bar shows whole under the labels (minority-partition, the whole run)", async () => {
    const { page } = await open('/?scenario=minority-partition&autoplay=0', { viewport: { width: 1440, height: 900 } });
    await page.locator(`${EL} .kp-time`).click();
    await page.keyboard.press('End');
    await page.locator(`${EL} [data-action="hide-card"]`).click();
    await page.keyboard.press('0'); // the whole run: its flags crowd into rows over the lanes
    await page.waitForTimeout(300);
    const bars = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const c = el.shadowRoot.querySelector('.kp-tl-canvas');
      const [t0, t1] = el.shadowRoot.querySelector('.kp-tl').dataset.window.split(',').map(Number);
      const k = c.width / c.clientWidth;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      // the geometry of timeline-geometry.ts: gutter 46 px, axis 38 px, a lane's middle
      const lanes = el.cluster.nodes({ records: false }).length;
      const mid = 38 + Math.min(((c.clientHeight - 42) / lanes) * 0.42, 26);
      const red = (x, y) => {
        const i = (Math.round(y * k) * c.width + Math.round(x * k)) * 4;
        return Math.abs(d[i] - 220) < 14 && Math.abs(d[i + 1] - 38) < 14 && Math.abs(d[i + 2] - 38) < 14;
      };
      return el.cluster
        .events()
        .filter((e) => e.type === 'truncate' && e.node === 0)
        .map((e) => {
          const x = 46 + ((e.t - t0) * (c.clientWidth - 46)) / (t1 - t0);
          // the bar: 22 px tall and 2.5 wide about the mark's x; the best of its columns
          let best = 0;
          for (let dx = -1; dx <= 1.5; dx += 0.5) {
            let n = 0;
            for (let y = mid - 10; y <= mid + 10; y++) n += red(x + dx, y) ? 1 : 0;
            best = Math.max(best, n);
          }
          return { t: e.t, red: best };
        });
    });
    assert.ok(bars.length >= 1, 'n0 truncates in this story');
    for (const b of bars) assert.ok(b.red >= 19, `the truncation bar at ${b.t} ms shows ${b.red} of 21 px`);
    await page.locator(`${EL} .kp-tl`).screenshot({ path: shotPath('timeline-flags-clear-of-marks.png') });
    await page.close();
  });
});

const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's moderate, serious and critical violations on the page now (inside shadow roots too). */
async function axeIssues(page) {
  await page.evaluate(AXE); // not a <script>: the pages' CSP refuses inline scripts
  const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return v
    .filter((x) => x.impact === 'moderate' || x.impact === 'serious' || x.impact === 'critical')
    .map((x) => `${x.impact} ${x.id}: ${x.nodes.length} × ${x.nodes[0]?.target.join(' ')} ${x.nodes[0]?.failureSummary?.split('\n')[1] ?? ''}`);
}

describe('axe-core', () => {
  const pages = readdirSync(join(root, 'www/dist')).filter((f) => f.endsWith('.html'));
  for (const scheme of ['light', 'dark']) {
    for (const f of pages) {
      test(`${f} in ${scheme}: no moderate, serious or critical issues`, async () => {
        const { page } = await open(`/${f}?seed=42&speed=10&autoplay=1`, { colorScheme: scheme });
        await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.leader() != null, null, { timeout: 30_000 });
        await page.waitForTimeout(600);
        assert.deepEqual(await axeIssues(page), []);
        // a story with its caption, paused
        await page.goto(`${site.server.url}${f}?scenario=figure-8&autoplay=0`);
        await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
        await page.waitForTimeout(600);
        assert.deepEqual(await axeIssues(page), []);
        // with the node menu open, then the help dialog
        await page.locator(`${EL} .kp-node-btn[data-node="0"]`).click();
        assert.deepEqual(await axeIssues(page), []);
        await page.keyboard.press('Escape');
        await page.locator(`${EL} [data-action="help"]`).click();
        assert.deepEqual(await axeIssues(page), []);
        await page.keyboard.press('Escape');
        // the story's completion card (its own headings), reached by travelling to the end
        await page.locator(`${EL} .kp-time`).click();
        await page.keyboard.press('End');
        await page.locator(`${EL} [data-story-complete]`).waitFor({ state: 'visible', timeout: 30_000 });
        assert.deepEqual(await axeIssues(page), []);
        await page.close();
      });
    }
  }
});

describe('the completion card', () => {
  test("a story's completion card shows all of it (what you saw, the numbers, what to try next) without scrolling, at 1440x900, 1280x720 and in an 800px embed; the stage stays put", async () => {
    const where = [
      { name: 'the page at 1440x900', path: '/', viewport: { width: 1440, height: 900 } },
      { name: 'the page at 1280x720', path: '/', viewport: { width: 1280, height: 720 } },
      { name: 'the compact element on a docs page, 800px wide', path: 'docs', viewport: { width: 800, height: 900 } },
      { name: 'embed.html, 800x900', path: '/embed.html', viewport: { width: 800, height: 900 } },
    ];
    // leader-crash-failover has the failover's parts, diverging-follower the most captions,
    // lossy-network the tallest card at 1280x720, figure-8 an unsafe variant to try
    for (const id of ['leader-crash-failover', 'diverging-follower', 'lossy-network', 'figure-8']) {
      for (const w of where) {
        const { page } = w.path === 'docs' ? await openDocsOne(id, w.viewport) : await open(`${w.path}?scenario=${id}&autoplay=0`, { viewport: w.viewport });
        const at = `${id} on ${w.name}`;
        const stageTop = () => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-stage').getBoundingClientRect().top);
        const before = await stageTop();
        await page.locator(`${EL} .kp-time`).click();
        await page.keyboard.press('End');
        await page.locator(`${EL} [data-story-complete]`).waitFor({ state: 'visible', timeout: 30_000 });
        await page.waitForTimeout(100);
        const parts = await cardParts(page);
        await page.screenshot({ path: shotPath(`story-complete-${id}-${w.viewport.width}x${w.viewport.height}${w.path === 'docs' ? '-docs' : ''}.png`) });
        assert.ok(parts.count >= 8, `${at}: ${parts.count} parts`);
        assert.deepEqual(parts.unreadable, [], `${at}: parts of the card that cannot be read without scrolling`);
        assert.equal(await stageTop(), before, `${at}: the stage moved`);
        await page.close();
      }
    }
  });

  test('its heading takes focus when the reader is in the element; Hide and Escape put it away and give focus back; the bar shows it again', async () => {
    const { page, errors } = await open('/?scenario=leader-crash-failover&autoplay=0', { viewport: { width: 1440, height: 900 } });
    const card = page.locator(`${EL} .kp-caption-card`);
    const show = page.locator(`${EL} [data-action="show-card"]`);
    await toStoryEnd(page);
    assert.equal((await focused(page)).tag, 'H2', 'focus is on the card heading');
    assert.ok(await show.isHidden());
    await page.keyboard.press('Escape');
    assert.ok(await card.isHidden(), 'Escape hid the card');
    assert.match((await focused(page)).cls, /kp-root/, 'focus went back where it was (the element)');
    assert.equal(await show.getAttribute('aria-expanded'), 'false');
    // the bar offers it again; Hide gives focus back to that button
    await show.click();
    assert.ok(await card.isVisible());
    assert.equal((await focused(page)).tag, 'H2');
    await page.locator(`${EL} [data-action="hide-card"]`).click();
    assert.ok(await card.isHidden(), 'Hide hid the card');
    assert.equal((await focused(page)).action, 'show-card');
    await page.keyboard.press('Enter');
    assert.ok(await card.isVisible());
    await page.keyboard.press('Escape');
    assert.equal((await focused(page)).action, 'show-card');
    // going back into the story puts the card away; its end shows it again
    await page.keyboard.press('Home');
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state !== 'complete');
    assert.ok(await card.isHidden());
    assert.ok(await show.isHidden());
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a docs page, a story that ends while focus is outside shows its card without taking focus or scrolling the page', async () => {
    const { page } = await openDocsOne('leader-crash-failover', { width: 800, height: 600 });
    await page.evaluate(() => scrollTo(0, 150));
    await page.mouse.click(5, 5);
    const y = await page.evaluate(() => scrollY);
    await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      el.player.seek(Number(el.shadowRoot.querySelector('[data-caption]').dataset.end));
    });
    await page.locator(`${EL} [data-story-complete]`).waitFor({ state: 'visible', timeout: 30_000 });
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'BODY');
    assert.equal(await page.evaluate(() => scrollY), y, 'the page did not scroll');
    await page.close();
  });
});

describe('the completion card, continued', () => {
  test('playing on past the end (free play) puts the card away; "Show the card" brings it back while play goes on', async () => {
    const { page, errors } = await open('/?scenario=leader-crash-failover&autoplay=0', { viewport: { width: 1440, height: 900 } });
    const card = page.locator(`${EL} .kp-caption-card`);
    const show = page.locator(`${EL} [data-action="show-card"]`);
    await toStoryEnd(page);
    const end = await nowOf(page);
    await page.evaluate(() => document.querySelector('kraft-playground').play());
    await card.waitFor({ state: 'hidden', timeout: 10_000 });
    assert.ok(await show.isVisible(), 'the bar offers the card again');
    await show.click();
    assert.ok(await card.isVisible(), '"Show the card" shows it');
    await page.waitForTimeout(500);
    assert.ok(await card.isVisible(), 'it stays while play goes on');
    assert.ok((await nowOf(page)) > end, 'play went on past the end');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at 390x844 the card is as tall as it needs (no scroll box of its own): the page scrolls to all of it', async () => {
    for (const id of ['diverging-follower', 'lossy-network']) {
      const { page } = await open(`/?scenario=${id}&autoplay=0`, { viewport: { width: 390, height: 844 } });
      await toStoryEnd(page);
      await page.waitForTimeout(100);
      const box = await page.evaluate(() => {
        const c = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-card');
        const b = c.getBoundingClientRect();
        return { scroll: c.scrollHeight - c.clientHeight, top: b.top, bottom: b.bottom + scrollY, page: document.documentElement.scrollHeight };
      });
      assert.ok(box.bottom > 844, `${id}: the card is taller than the window (else this test shows nothing): ${box.bottom}`);
      assert.equal(box.scroll, 0, `${id}: the card scrolls inside itself`);
      assert.ok(box.top >= 0 && box.top < 100, `${id}: the card opened in view from its top (${box.top})`);
      assert.ok(box.page >= box.bottom, `${id}: the page reaches the card's foot`);
      await page.screenshot({ path: shotPath(`story-complete-${id}-390x844.png`) });
      const head = await readable(page, '[data-story-complete] h2');
      assert.deepEqual(head.unreadable, [], `${id}: the heading, as the card opened`);
      // the page alone scrolls to the card's foot
      await page.evaluate(() => {
        const b = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-card').getBoundingClientRect();
        scrollBy(0, b.bottom - innerHeight + 8);
      });
      const last = await readable(page, '[data-story-complete] .kp-done-next li:last-child button');
      assert.deepEqual(last.unreadable, [], `${id}: the last button, the page scrolled to it`);
      await page.screenshot({ path: shotPath(`story-complete-${id}-390x844-foot.png`) });
      await page.close();
    }
  });
});

describe('smaller ones', () => {
  test('in the compact embed, a summary the bar cuts short fades out, and "Read more" shows all of it over the stage, which stays put', async () => {
    const { page } = await openDocsOne('leader-crash-failover', { width: 800, height: 900 });
    const bar = await page.evaluate(() => {
      const r = document.querySelector('kraft-playground').shadowRoot;
      const b = r.querySelector('.kp-caption-body');
      return { over: b.scrollHeight > b.clientHeight, clipped: b.hasAttribute('data-clipped'), mask: getComputedStyle(b).maskImage, stage: r.querySelector('.kp-stage').getBoundingClientRect().top };
    });
    assert.ok(bar.over, 'the summary is longer than the bar (else this test shows nothing)');
    assert.ok(bar.clipped && bar.mask.includes('gradient'), `a fade at the foot of the bar: ${bar.mask}`);
    const more = page.locator(`${EL} [data-action="story-summary"]`);
    assert.equal(await more.textContent(), 'Read more');
    await more.click();
    const panel = await readable(page, '[data-story-summary], [data-story-summary] p');
    assert.ok(panel.count >= 2, `${panel.count} parts`);
    assert.deepEqual(panel.unreadable, []);
    const summary = JSON.parse(readFileSync(join(root, 'scenarios/leader-crash-failover.json'), 'utf8')).summary;
    const shown = await page.locator(`${EL} [data-story-summary]`).textContent();
    assert.ok(shown.replace(/\s+/g, ' ').includes(summary.replace(/[`*]/g, '').slice(-60)), 'the whole summary, to its last words');
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-stage').getBoundingClientRect().top), bar.stage, 'the stage stayed put');
    await page.screenshot({ path: shotPath('embed-summary-more.png') });
    await page.close();
  });

  test('in the compact embed, a step caption the bar cuts short fades out, and "Read more" shows all of it over the stage, which stays put', async () => {
    const { page } = await openDocsOne('leader-crash-failover', { width: 800, height: 900 });
    const story = JSON.parse(readFileSync(join(root, 'scenarios/leader-crash-failover.json'), 'utf8'));
    // the longest caption of the story, and the step it belongs to
    const step = story.steps.reduce((best, st, i) => ((st.caption ?? '').length > (story.steps[best].caption ?? '').length ? i : best), 0);
    const stage = () => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-stage').getBoundingClientRect().top);
    const before = await stage();
    await playTo(page, step, { byApi: true });
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-text').dataset.step), String(step));
    const bar = await page.evaluate(() => {
      const b = document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-body');
      return { over: b.scrollHeight > b.clientHeight, clipped: b.hasAttribute('data-clipped') };
    });
    assert.ok(bar.over && bar.clipped, `the caption is longer than the bar and fades (else this test shows nothing): ${JSON.stringify(bar)}`);
    const more = page.locator(`${EL} [data-action="caption-more"]`);
    assert.ok(await more.isVisible(), '"Read more" is offered');
    assert.equal(await more.textContent(), 'Read more');
    assert.deepEqual((await readable(page, '[data-action="caption-more"]')).unreadable, [], 'the button itself is readable');
    await more.click();
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    const panel = await readable(page, '[data-caption-more], [data-caption-more] p');
    assert.ok(panel.count >= 2, `${panel.count} parts`);
    assert.deepEqual(panel.unreadable, []);
    const shown = await page.locator(`${EL} [data-caption-more]`).textContent();
    assert.ok(shown.replace(/\s+/g, ' ').includes(story.steps[step].caption.replace(/[`*]/g, '').slice(-60)), 'the whole caption, to its last words');
    assert.equal(await stage(), before, 'the stage stayed put');
    await page.screenshot({ path: shotPath('embed-caption-more.png') });
    // the next step's caption closes it
    await page.evaluate(() => document.querySelector('kraft-playground').play());
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption-more]').hidden, null, { timeout: 30_000 });
    await page.close();
  });

  test('the text summary names the messages the timeline shows, counted per kind; a kind hidden in the legend is left out', async () => {
    const { page } = await open('/?seed=3&speed=1', { viewport: { width: 1440, height: 900 } });
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 3_000, null, { timeout: 30_000 });
    const text = () => page.locator(`${EL} [data-summary] [data-window]`).textContent();
    await page.waitForFunction(() => /messages in view/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-summary] [data-window]')?.textContent ?? ''), null, {
      timeout: 10_000,
    });
    const withFetch = await text();
    assert.match(withFetch, /\d+ messages in view: \d+ Fetch(Response)?\b/, withFetch);
    await page.locator(`${EL} .kp-legend-item[data-rpc="Fetch"]`).click();
    await page.waitForFunction(() => !/\d Fetch(Response)?\b/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-summary] [data-window]').textContent), null, {
      timeout: 10_000,
    });
    assert.ok((await text()).length < 400, 'bounded');
    await page.close();
  });

  test("inline code in a caption has a background that stands out from the caption's", async () => {
    const { page } = await open('/?scenario=first-election&autoplay=0');
    const diff = await page.evaluate(() => {
      const s = document.querySelector('kraft-playground').shadowRoot;
      const code = s.querySelector('[data-caption] code');
      const paint = (...colors) => {
        const ctx = document.createElement('canvas').getContext('2d');
        for (const c of colors) {
          ctx.fillStyle = c;
          ctx.fillRect(0, 0, 1, 1);
        }
        return [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
      };
      const panel = getComputedStyle(s.querySelector('[data-caption]')).backgroundColor;
      const a = paint(panel);
      const b = paint(panel, getComputedStyle(code).backgroundColor);
      return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    });
    assert.ok(diff > 15, `code background differs from the caption's by ${diff.toFixed(1)}`);
    await page.close();
  });

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

  test('the stage stays put when the caption changes', async () => {
    const { page } = await open('/?scenario=figure-8&autoplay=0');
    const tops = await page.evaluate(async () => {
      const el = document.querySelector('kraft-playground');
      const stage = el.shadowRoot.querySelector('.kp-stage');
      const out = [];
      for (let t = 0; t <= 30_000; t += 1000) {
        el.player.seek(t);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        out.push(stage.getBoundingClientRect().top);
      }
      return out;
    });
    assert.equal(new Set(tops).size, 1, `the stage's top moved: ${[...new Set(tops)].join(', ')}`);
    await page.close();
  });

  test('a caption the reader scrolled down is followed by the next one from its top', async () => {
    // on a phone the captions are cut short: they scroll
    const { page } = await open('/?scenario=figure-8&autoplay=0&speed=10', { viewport: { width: 390, height: 844 } });
    const body = page.locator(`${EL} .kp-caption-body`);
    const overflows = () => body.evaluate((b) => b.scrollHeight > b.clientHeight + 1);
    const stepShown = () => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-text').dataset.step);
    await page.locator(`${EL} [data-action="play"]`).click();
    await page.locator(`${EL} [data-action="continue"]`).waitFor({ state: 'visible' });
    const seen = [];
    for (let i = 0; i < 6; i++) {
      const step = await stepShown();
      if (await overflows()) {
        await body.evaluate((b) => {
          b.scrollTop = b.scrollHeight;
        });
        await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-body').scrollTop > 0);
      }
      await page.locator(`${EL} [data-action="continue"]`).click();
      await page.waitForFunction((s) => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-text').dataset.step !== s, step);
      await page.waitForTimeout(50);
      seen.push({ step: await stepShown(), top: await body.evaluate((b) => b.scrollTop), overflows: await overflows() });
      await page.locator(`${EL} [data-action="continue"]`).waitFor({ state: 'visible' });
    }
    assert.ok(
      seen.some((s) => s.overflows),
      `no caption was cut short: ${JSON.stringify(seen)}`,
    );
    assert.deepEqual(
      seen.filter((s) => s.top !== 0),
      [],
    );
    await page.close();
  });

  test('the PNG export is the whole timeline at 2x (or the screen density), not the visible window', async () => {
    const { page } = await open('/?seed=3&speed=10&autoplay=1');
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 15_000, null, { timeout: 30_000 });
    await page.locator(`${EL} [data-action="play"]`).click();
    const view = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const c = el.shadowRoot.querySelector('.kp-tl-canvas');
      return { w: c.clientWidth, h: c.clientHeight, now: el.cluster.now };
    });
    await page.locator(`${EL} [data-action="export"]`).click();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`${EL} .kp-export-menu button`, { hasText: 'Timeline as PNG' }).click()]);
    const chunks = [];
    for await (const c of await dl.createReadStream()) chunks.push(c);
    const png = Buffer.concat(chunks);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    assert.equal(height, view.h * 2, `height ${height} for a ${view.h} px tall timeline`);
    // the visible window shows about 3.5 s of a run of more than 15 s
    assert.ok(width > view.w * 2 * 3, `width ${width} for a ${view.w} px window`);
    await page.close();
  });

  test('the speed is in the share link and comes back from it', async () => {
    const { page } = await open('/?seed=42&speed=4');
    await page.locator(`${EL} [data-action="share"]`).click();
    const url = await page.locator(`${EL} .kp-share-url`).inputValue();
    assert.equal(new URL(url).searchParams.get('speed'), '4', url);
    await page.goto(url);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.player != null, null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').player.speed), 4);
    await page.close();
  });
});
