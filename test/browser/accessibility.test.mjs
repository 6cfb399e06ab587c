// Accessibility: axe-core finds no moderate, serious or critical issue on the site's pages
// in either scheme, and the text summary names what the timeline shows.
//   node --test test/browser/accessibility.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, root, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

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

describe('the text summary', () => {
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
});
