// Shared by the browser tests and the UI benchmark: serve www/dist on a free port with
// scripts/serve.mjs and drive Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

/** Where a test's screenshot goes: test-results/, or docs/ (the README's copies) with UPDATE_SCREENSHOTS=1. */
export function shotPath(name) {
  const dir = join(root, process.env.UPDATE_SCREENSHOTS === '1' ? 'docs' : 'test-results');
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
