// When the simulation core crashes mid-play: the banner, play stopped, a link that
// reproduces the run, and starting again.
//   node --test test/browser/core-crash.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestOf, EL, nowOf, pause, play, shotPath, useSite, waitLeader } from './harness.mjs';

const site = useSite();
const open = site.open;

describe('a crashed core', () => {
  test('when the core crashes mid-play: a banner says so, play stops, the reproduction link replays the run, and Start again works', async () => {
    const { page, errors } = await open('/?seed=17&speed=10');
    await waitLeader(page);
    await pause(page);
    const good = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      const c = el.cluster;
      c.crash(c.leader().id);
      // the next advance of the player crashes the core (a deliberate panic)
      c.advance = () => c.__panicForTest();
      return { digest: c.digest(), now: c.now, link: el.shareUrl() };
    });
    await play(page);
    const banner = page.locator(`${EL} [data-crash]`);
    await banner.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await banner.textContent();
    assert.match(text, /The simulation core crashed\./);
    assert.match(text, /This is a bug in KRaft Playground, not something you did\. What failed: panicked at \S+: deliberate panic for a test/);
    assert.match(text, new RegExp(`The run stopped at ${(good.now / 1000).toFixed(3).replace('.', '\\.')}`));
    assert.doesNotMatch(text, /unreachable/);
    // the controls reflect it: paused, the bar inert, the status says so
    assert.equal(await page.locator(`${EL} [data-action="play"]`).getAttribute('aria-label'), 'Play');
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-controls').inert), true);
    assert.match(await page.locator(`${EL} .kp-status`).textContent(), /Core crashed/);
    await page.waitForTimeout(300);
    await page.screenshot({ path: shotPath('crash-banner.png') });
    const repro = await page.locator(`${EL} [data-repro-url]`).inputValue();
    assert.equal(repro, good.link, 'the link of the run at its last good moment');
    await page.locator(`${EL} [data-action="copy-repro"]`).click();
    await page.waitForFunction(() => /Copied|Select and copy/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('[data-action="copy-repro"]').textContent));
    // the reproduction link replays the run up to that moment
    const other = await open(repro.replace(site.server.url, '/'));
    assert.equal(await nowOf(other.page), good.now);
    assert.equal(await digestOf(other.page), good.digest);
    assert.deepEqual(other.errors, []);
    await other.page.close();
    // start again: a new cluster, the banner gone, playing works
    await page.locator(`${EL} [data-action="start-again"]`).click();
    await banner.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster.broken), false);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-controls').inert), false);
    await play(page);
    await waitLeader(page);
    assert.ok(errors.length > 0 && errors.every((e) => /deliberate panic for a test/.test(e)), `only the panic is reported: ${errors}`);
    await page.close();
  });

  test('a crash while Play already reads "Pause" turns the button back to "Play"', async () => {
    const { page, errors } = await open('/?seed=17&speed=10');
    await waitLeader(page);
    const btn = page.locator(`${EL} [data-action="play"]`);
    // playing, and drawn as playing: the button reads Pause
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-action="play"]').getAttribute('aria-label') === 'Pause');
    await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').cluster;
      c.advance = () => c.__panicForTest();
    });
    await page.locator(`${EL} [data-crash]`).waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await btn.getAttribute('aria-label'), 'Play');
    assert.equal(await btn.evaluate((b) => b.classList.contains('kp-on')), false);
    assert.ok(
      errors.every((e) => /deliberate panic for a test/.test(e)),
      `only the panic is reported: ${errors}`,
    );
    await page.close();
  });
});
