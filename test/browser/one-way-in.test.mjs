// One way in, in Chromium: a story starts the same way from a card, from "Try next", from
// a link and in an embed (a visible Start where nothing plays it); the card and the tour
// agree on what is next; free play starts safe and the address always reproduces what
// is on screen; completion cards keep each step's lesson and name the invariants that
// fired; Share offers the whole run after a travel back; a page's own calls on
// `el.cluster` while paused are drawn.
//   node --test test/browser/one-way-in.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestOf, EL, nowOf, openPage, pause, useSite, waitLeader } from './harness.mjs';

const site = useSite();
const open = site.open;

const COURSE = '.site-course';
const playing = (page) => page.evaluate(() => document.querySelector('kraft-playground').hasAttribute('data-playing'));
const captionState = (page) => page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('[data-caption]').dataset.state);

/** Travels to the end of the story on screen (the End key on the time slider) and waits for its card. */
async function toStoryEnd(page) {
  await page.locator(`${EL} .kp-time`).click();
  await page.keyboard.press('End');
  await page.locator(`${EL} [data-story-complete]`).waitFor({ state: 'visible', timeout: 30_000 });
}

describe('starting a story', () => {
  test('in an embed without autoplay, a story waits at its start with a visible Start, which plays it', async () => {
    const { page, errors } = await open('/embed.html?scenario=leader-crash-failover');
    const start = page.locator(`${EL} [data-action="start"]`);
    await start.waitFor({ state: 'visible' });
    assert.equal(await playing(page), false);
    await start.click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 0);
    assert.ok(await start.isHidden(), 'Start makes way once the story plays');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('"Try next" starts the next story the way its card in the tour does: playing, the address naming it', async () => {
    const { page, errors } = await open('/?scenario=first-election&speed=10');
    await pause(page);
    await toStoryEnd(page);
    await page.locator(`${EL} [data-story-complete] [data-try="metadata-state-machine"]`).click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'metadata-state-machine');
    await page.waitForFunction(() => document.querySelector('kraft-playground').hasAttribute('data-playing') || document.querySelector('kraft-playground').cluster.now > 0, null, { timeout: 10_000 });
    assert.match(await page.locator(`${EL} [data-caption]`).textContent(), /metadata/i);
    assert.ok((await captionState(page)) !== 'complete');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the completion card's next story is the tour's: the first after it not yet completed", async () => {
    const page = await site.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(() => {
      if (!sessionStorage.getItem('seeded')) {
        localStorage.setItem('kraft-playground:progress', JSON.stringify({ seen: ['first-election', 'leader-crash-failover'], completed: ['first-election', 'leader-crash-failover'] }));
        sessionStorage.setItem('seeded', '1');
      }
    });
    await page.goto(`${site.server.url}?scenario=metadata-state-machine&autoplay=0`);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await toStoryEnd(page);
    const tries = await page.locator(`${EL} [data-story-complete] [data-try]`).evaluateAll((bs) => bs.map((b) => [b.dataset.try, b.textContent]));
    const next = tries.find(([, text]) => text.startsWith('Next story'));
    assert.deepEqual(next?.[0], 'minority-partition', JSON.stringify(tries));
    await page.waitForFunction(() => document.querySelector('.site-course .course-card[data-next]')?.dataset.story === 'minority-partition', null, { timeout: 5_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('free play and the address', () => {
  test('free play after the unsafe figure 8 starts safe; a rule switched off then is in the address, which reopens it', async () => {
    const { page, errors } = await open('/?scenario=figure-8&variant=hw-before-own-epoch&autoplay=0');
    assert.deepEqual(await page.evaluate(() => document.querySelector('kraft-playground').cluster.options.unsafe), ['hw-before-own-epoch']);
    await page.locator(`${COURSE} [data-course-action="free-play"]`).click();
    await page.waitForFunction(() => {
      const el = document.querySelector('kraft-playground');
      return el.getAttribute('scenario') === null && el.cluster && new URL(location.href).searchParams.has('voters');
    });
    assert.deepEqual(await page.evaluate(() => document.querySelector('kraft-playground').cluster.options.unsafe ?? []), [], 'free play starts safe');
    assert.equal(await page.locator(`${EL} [data-switch="hw-before-own-epoch"]`).isChecked(), false);
    // a rule switched off in free play: the parameters cannot say it, the run's link does
    await page.locator(`${EL} [data-switch="no-pre-vote"]`).check();
    await page.waitForFunction(() => location.hash.startsWith('#run=k2.'));
    const other = await open(new URL(page.url()).pathname + new URL(page.url()).hash);
    assert.deepEqual(await other.page.evaluate(() => document.querySelector('kraft-playground').cluster.options.unsafe), ['no-pre-vote']);
    assert.deepEqual([...errors, ...other.errors], []);
    await other.page.close();
    await page.close();
  });

  test('after an action the address is the run so far', async () => {
    const { page } = await open('/?seed=4&voters=3&observers=0&speed=10');
    const l = await waitLeader(page);
    await pause(page);
    await page.locator(`${EL} [data-fault-target]`).selectOption(String(l.id));
    await page.locator(`${EL} .kp-faults [data-fault="crash"]`).click();
    await page.waitForFunction(() => location.hash.startsWith('#run=k2.'));
    const digest = await digestOf(page);
    const other = await open(new URL(page.url()).pathname + new URL(page.url()).hash);
    assert.equal(await digestOf(other.page), digest);
    await other.page.close();
    await page.close();
  });
});

describe('the completion card', () => {
  test("keeps each step's lesson, not only its first sentence", async () => {
    const { page } = await open('/?scenario=figure-8&autoplay=0');
    await toStoryEnd(page);
    const saw = await page.locator(`${EL} [data-story-complete] .kp-done-saw`).textContent();
    assert.match(saw, /X is not committed\./, 'step 14 ends with its lesson');
    assert.match(saw, /X is gone, which is fine: it was never committed\./);
    await page.close();
  });

  test('in an unsafe variant, names the invariants that fired', async () => {
    const { page, errors } = await open('/?scenario=figure-8&variant=hw-before-own-epoch&autoplay=0');
    await toStoryEnd(page);
    const fired = await page.evaluate(() => [
      ...new Set(
        document
          .querySelector('kraft-playground')
          .cluster.violations()
          .map((v) => v.invariant),
      ),
    ]);
    assert.ok(fired.includes('ConsistentCommittedData'), JSON.stringify(fired));
    const named = await page.locator(`${EL} [data-story-complete] [data-fired]`).evaluateAll((ls) => ls.map((l) => l.dataset.fired));
    assert.deepEqual(named, fired);
    assert.match(await page.locator(`${EL} [data-story-complete]`).textContent(), /Invariants that fired/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('sharing and scripting', () => {
  test('after a travel back, Share offers the run up to here and the whole run; each opens as it says', async () => {
    const { page, errors } = await open('/?seed=5&voters=3&observers=0&speed=10');
    const l = await waitLeader(page);
    await page.evaluate((id) => document.querySelector('kraft-playground').cluster.crash(id), l.id);
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 9_000, null, { timeout: 20_000 });
    await pause(page);
    const end = { now: await nowOf(page), digest: await digestOf(page) };
    await page.evaluate(() => document.querySelector('kraft-playground').player.seek(2_000));
    await page.locator(`${EL} [data-action="share"]`).click();
    const here = await page.locator(`${EL} [data-share-url]`).inputValue();
    const whole = await page.locator(`${EL} [data-share-whole]`).inputValue();
    const a = await open(new URL(here).pathname + new URL(here).search + new URL(here).hash);
    assert.equal(await nowOf(a.page), 2_000);
    const b = await open(new URL(whole).pathname + new URL(whole).search + new URL(whole).hash);
    assert.ok((await nowOf(b.page)) >= end.now, 'the whole run, to its latest moment');
    await b.page.evaluate((t) => document.querySelector('kraft-playground').player.seek(t), end.now);
    assert.equal(await digestOf(b.page), end.digest);
    assert.deepEqual([...errors, ...a.errors, ...b.errors], []);
    for (const p of [a.page, b.page, page]) await p.close();
  });

  test('calls a page makes on el.cluster while paused are drawn: the clock, the ring, the faults in force', async () => {
    const { page, errors } = await openPage(site.browser.context, `${site.server.url}?seed=42&voters=3&observers=0&autoplay=0`);
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').ready);
    await page.waitForTimeout(300);
    await page.evaluate(() => document.querySelector('kraft-playground').cluster.advance(3_000));
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-time').dataset.time === '3000', null, { timeout: 3_000 });
    await page.evaluate(() => document.querySelector('kraft-playground').cluster.crash(2));
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-node-btn[data-node="2"]')?.dataset.state === 'crashed', null, { timeout: 3_000 });
    await page.locator(`${EL} [data-active-fault="crash:2"]`).waitFor({ timeout: 3_000 });
    assert.equal(await playing(page), false, 'still paused');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
