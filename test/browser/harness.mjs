// Shared by the browser tests and the UI benchmark: serve www/dist on a free port with
// scripts/serve.mjs and drive Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The element's tag, as the tests' locators name it. */
export const EL = 'kraft-playground';

/** Starts scripts/serve.mjs (on www/dist, or `dir`) on a free port; resolves to { url, stop }. */
export function serve(dir) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(root, 'scripts/serve.mjs'), ...(dir ? [dir] : [])], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    process.on('exit', () => p.kill());
    const timer = setTimeout(() => reject(new Error(`serve.mjs did not start: ${out}`)), 10_000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/[^\s]+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[0], stop: () => p.kill() });
      }
    });
    p.on('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${out}`)));
  });
}

/**
 * Launches Chromium headless with a fresh profile (a persistent context on a new
 * temporary --user-data-dir). `options` are context options (viewport, hasTouch...).
 */
export async function launch(options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'kp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 1000 },
    ...options,
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** A new page that records console errors and page errors. */
export async function openPage(context, url, opts = {}) {
  const page = await context.newPage();
  if (opts.viewport) await page.setViewportSize(opts.viewport);
  if (opts.colorScheme) await page.emulateMedia({ colorScheme: opts.colorScheme });
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** The screenshots the README shows (in docs/), each taken by a browser test. */
export const README_SHOTS = [
  'screenshot-onramp.png',
  'screenshot-stage-1280x720.png',
  'screenshot-figure-8-1280x720.png',
  'screenshot-stage-390x844.png',
  'screenshot-figure-8-390x844.png',
  'screenshot.png',
  'screenshot-console.png',
  'story-pause.png',
  'story-complete.png',
  'explain-popover.png',
  'embed-compact.png',
  'screenshot-phone.png',
];

/**
 * Where a test's screenshot goes, to be looked at: test-results/; with
 * UPDATE_SCREENSHOTS=1, the README's (README_SHOTS) go to docs/ instead.
 */
export function shotPath(name) {
  const dir = join(root, process.env.UPDATE_SCREENSHOTS === '1' && README_SHOTS.includes(name) ? 'docs' : 'test-results');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Opens `path` of the served site and waits for the element's first run. */
export async function openReady(context, server, path, opts) {
  const { page, errors } = await openPage(context, server.url + path.replace(/^\//, ''), opts);
  await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
  await page.evaluate(() => document.querySelector('kraft-playground').ready);
  return { page, errors };
}

/**
 * A test file's site and browser: serves www/dist and launches Chromium (`options`:
 * context options) before the file's tests, closes both after them. `server` and
 * `browser` are set once the tests run; `open(path, opts)` is openReady on them.
 */
export function useSite(options) {
  const site = {
    server: null,
    browser: null,
    open: (path, opts) => openReady(site.browser.context, site.server, path, opts),
  };
  before(async () => {
    site.server = await serve();
    site.browser = await launch(options);
  });
  after(async () => {
    await site.browser?.close();
    site.server?.stop();
  });
  return site;
}

/** The element's simulated time (ms). */
export const nowOf = (page) => page.evaluate(() => document.querySelector('kraft-playground').cluster.now);

/**
 * Plays the story until it waits at step `index`: by its Continue and Play buttons, or
 * (`byApi`) by the element's play(), Continue's action, which never scrolls the page.
 */
export async function playTo(page, index, { byApi = false } = {}) {
  for (let i = 0; i < 20; i++) {
    const at = await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
      return c.dataset.state === 'waiting' ? Number(c.querySelector('.kp-caption-text').dataset.step) : -1;
    });
    if (at === index) return;
    if (byApi) await page.evaluate(() => document.querySelector('kraft-playground').play());
    else if (at >= 0) await page.locator(`${EL} [data-action="continue"]`).click();
    else if ((await page.locator(`${EL} [data-action="play"]`).getAttribute('aria-label')) !== 'Pause') await page.locator(`${EL} [data-action="play"]`).click();
    await page.waitForFunction(
      (prev) => {
        const c = document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]');
        return c.dataset.state === 'waiting' && Number(c.querySelector('.kp-caption-text').dataset.step) !== prev;
      },
      at,
      { timeout: 30_000 },
    );
  }
  throw new Error(`the story never waited at step ${index}`);
}

/** Pauses the element if it plays (by its Play button). */
export async function pause(page) {
  const btn = page.locator(`${EL} [data-action="play"]`);
  if ((await btn.getAttribute('aria-label')) === 'Pause') await btn.click();
}

/**
 * Installed with `page.addInitScript` before the page's scripts: notes in
 * `window.__firstFrameMs` the first animation frame with a running cluster drawn (the
 * element's clock has moved, its stylesheet has applied, its nodes are drawn). A task
 * queued from requestAnimationFrame runs once that frame's rendering is done. The load and
 * startup benches and the delivery test share this one definition of "drawn". It also says
 * so on the console, for `loadToFirstFrame`.
 */
export function watchFirstFrame() {
  const tick = () => {
    const el = document.querySelector('kraft-playground');
    let now = 0;
    try {
      now = el?.cluster?.now ?? 0;
    } catch {
      /* not loaded yet */
    }
    const root = el?.shadowRoot?.querySelector('.kp-root');
    if (now > 0 && root?.classList.contains('kp-ready') && root.querySelector('[data-node]')) {
      window.__firstFrameMs = performance.now();
      console.debug('kraft-playground: first frame');
      return;
    }
    next();
  };
  const next = () => requestAnimationFrame(() => setTimeout(tick, 0));
  next();
}

/** Holds back the requests of `page` that match `pattern` until the returned function is called. */
export async function holdBack(page, pattern) {
  let release;
  const held = new Promise((r) => {
    release = r;
  });
  await page.route(pattern, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * Opens `url` in `page` (which has `watchFirstFrame` installed) and resolves to the first
 * frame's time (ms since navigation). It waits for the probe's console message, not with
 * `waitForFunction`: that evaluates Playwright's own script in the page (10-30 ms on the
 * main thread, once the page has loaded: in the middle of the startup being measured).
 */
export async function loadToFirstFrame(page, url) {
  const said = page.waitForEvent('console', { predicate: (m) => m.text() === 'kraft-playground: first frame', timeout: 60_000 });
  await page.goto(url, { waitUntil: 'commit' });
  await said;
  return page.evaluate(() => window.__firstFrameMs);
}

// ---- what the tests read and do on a page, shared by more than one test file

export const leaderOf = (page) => page.evaluate(() => document.querySelector('kraft-playground').cluster.leader());

export const digestOf = (page) => page.evaluate(() => document.querySelector('kraft-playground').cluster.digest());

/** Waits for a leader with an epoch above `minEpoch` other than `notId`. */
export async function waitLeader(page, { minEpoch = 0, notId = -1 } = {}, timeout = 30_000) {
  await page.waitForFunction(
    ([e, id]) => {
      const l = document.querySelector('kraft-playground').cluster.leader();
      return l !== null && l.epoch > e && l.id !== id;
    },
    [minEpoch, notId],
    { timeout },
  );
  return leaderOf(page);
}

/** The accessible summary's node table: { n0: { state, epoch, leo, hw }, ... } */
export async function summaryNodes(page) {
  return page.evaluate(() => {
    const rows = document.querySelector('kraft-playground').shadowRoot.querySelectorAll('[data-summary] tbody tr');
    const out = {};
    for (const r of rows) {
      const c = [...r.querySelectorAll('td')].map((td) => td.textContent);
      out[c[0]] = { role: c[1], state: c[2], epoch: Number(c[3]), leo: Number(c[4]), hw: c[5] === 'none' ? null : Number(c[5]) };
    }
    return out;
  });
}

export async function summaryText(page, sel) {
  return page.locator(`${EL} [data-summary] ${sel}`).first().textContent();
}

export async function play(page) {
  const btn = page.locator(`${EL} [data-action="play"]`);
  if ((await btn.getAttribute('aria-label')) === 'Play') await btn.click();
}

export async function nodeAction(page, node, action) {
  await page.locator(`${EL} .kp-node-btn[data-node="${node}"]`).click();
  await page.locator(`${EL} .kp-menu [data-node-action="${action}"]`).click();
  await page.keyboard.press('Escape');
}

/** Travels forward by about `ms` with the keyboard (Shift+→ is 10 s, → is 1 s). */
export async function forward(page, ms) {
  await page.locator(`${EL} .kp-time`).click(); // focus inside the element
  for (let i = 0; i < Math.floor(ms / 10_000); i++) await page.keyboard.press('Shift+ArrowRight');
  for (let i = 0; i < Math.floor((ms % 10_000) / 1000); i++) await page.keyboard.press('ArrowRight');
}

export async function waitSummary(page) {
  // the text summary refreshes a few times a second
  await page.waitForTimeout(450);
}

/** What has focus, looking through the element's shadow root. */
export const focused = (page) =>
  page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a ? { tag: a.tagName, node: a.dataset?.node ?? null, action: a.dataset?.action ?? null, cls: a.className } : null;
  });

/** A documentation page with two full-control elements, the second below the fold. */
export const DOCS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script type="module">import { defineElement } from './kraft-playground.js'; defineElement();</script></head>
<body><main><h1>Docs</h1>
<kraft-playground id="a" controls="full" seed="1" speed="10"></kraft-playground>
<div style="height:3000px">text</div>
<kraft-playground id="b" controls="full" seed="2" speed="10"></kraft-playground>
<div style="height:2000px">more</div></main></body></html>`;
