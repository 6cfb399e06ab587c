// A story's caption bar and completion card as the reader meets them: the card shows all
// of itself without scrolling and takes focus only when it should, a caption the bar cuts
// short reads in full (a story's summary; every step's caption is whole, at 1280x720 and
// on a phone), inline code stands out, and the stage stays put as captions change.
//   node --test test/browser/captions.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DOCS, EL, focused, nowOf, playTo, root, shotPath, useSite } from './harness.mjs';

const site = useSite();
const open = site.open;

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

describe('the caption bar', () => {
  test('in the compact embed, a summary the bar cuts short fades out, and "Read more" shows all of it over the stage, which stays put', async () => {
    // lossy-network: its summary is far longer than its captions, so longer than the bar they size
    const { page } = await openDocsOne('lossy-network', { width: 800, height: 900 });
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
    const summary = JSON.parse(readFileSync(join(root, 'scenarios/lossy-network.json'), 'utf8')).summary;
    const shown = await page.locator(`${EL} [data-story-summary]`).textContent();
    assert.ok(shown.replace(/\s+/g, ' ').includes(summary.replace(/[`*]/g, '').slice(-60)), 'the whole summary, to its last words');
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-stage').getBoundingClientRect().top), bar.stage, 'the stage stayed put');
    await page.screenshot({ path: shotPath('embed-summary-more.png') });
    await page.close();
  });

  test('in the compact embed, the story\'s longest step caption shows whole in the bar, no fold and no "Read more"; the stage stays put', async () => {
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
      return { over: b.scrollHeight - b.clientHeight, clipped: b.hasAttribute('data-clipped'), mask: getComputedStyle(b).maskImage };
    });
    assert.deepEqual(bar, { over: 0, clipped: false, mask: 'none' }, 'nothing of the caption is hidden or faded');
    const text = await readable(page, '[data-caption] .kp-caption-text');
    assert.deepEqual(text.unreadable, [], 'the caption reads without scrolling');
    const shown = await page.locator(`${EL} [data-caption] .kp-caption-text`).textContent();
    assert.ok(shown.replace(/\s+/g, ' ').endsWith(story.steps[step].caption.replace(/[`*]/g, '').slice(-60)), 'the whole caption, to its last words');
    assert.equal(await page.locator(`${EL} [data-caption] button:visible`, { hasText: /Read more/ }).count(), 0, 'no "Read more"');
    assert.equal(await stage(), before, 'the stage stayed put');
    await page.screenshot({ path: shotPath('embed-caption-whole.png') });
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

  test("on a phone, a summary the reader scrolled down gives way to the first step's caption, shown whole from its top", async () => {
    const { page } = await open('/?scenario=figure-8&autoplay=0&speed=10', { viewport: { width: 390, height: 844 } });
    const body = page.locator(`${EL} .kp-caption-body`);
    assert.ok(await body.evaluate((b) => b.scrollHeight > b.clientHeight + 1), 'the summary is cut short (else this test shows nothing)');
    await body.evaluate((b) => {
      b.scrollTop = b.scrollHeight;
    });
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-caption-body').scrollTop > 0);
    await playTo(page, 0, { byApi: true });
    const after = await body.evaluate((b) => ({ top: b.scrollTop, hidden: b.scrollHeight - b.clientHeight }));
    assert.deepEqual(after, { top: 0, hidden: 0 });
    await page.close();
  });
});

describe('every caption, whole', () => {
  const ids = readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => f.replace(/\.json$/, ''));
  /** The caption's words as shown (its markup gone, spaces folded). */
  const plain = (s) => s.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

  for (const viewport of [
    { width: 1280, height: 720 },
    { width: 390, height: 844 },
  ]) {
    test(`at ${viewport.width}x${viewport.height}, every step of every story shows its whole caption: no fold, no "Read more", nothing cut off or outside the window`, async () => {
      const problems = [];
      for (const id of ids) {
        const file = JSON.parse(readFileSync(join(root, 'scenarios', `${id}.json`), 'utf8'));
        const { page, errors } = await open(`/?scenario=${id}&autoplay=0&speed=100`, { viewport });
        for (const [index, st] of file.steps.entries()) {
          if (!st.caption) continue;
          await playTo(page, index, { byApi: true });
          const shown = await page.evaluate(() => {
            const r = document.querySelector('kraft-playground').shadowRoot;
            const bar = r.querySelector('[data-caption]');
            const body = bar.querySelector('.kp-caption-body');
            const b = bar.getBoundingClientRect();
            const t = body.getBoundingClientRect();
            let clippedBy = null;
            for (let a = body.parentElement; a; a = a.parentElement ?? a.getRootNode().host) {
              const cs = getComputedStyle(a);
              if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
              const p = a.getBoundingClientRect();
              if (t.top < p.top - 0.5 || t.bottom > p.bottom + 0.5) clippedBy = a.className || a.tagName;
            }
            return {
              text: bar.querySelector('.kp-caption-text').textContent,
              hidden: body.scrollHeight - body.clientHeight,
              fold: body.hasAttribute('data-clipped'),
              more: [...bar.querySelectorAll('button')].some((b) => b.checkVisibility() && /Read more/i.test(b.textContent)),
              top: b.top,
              bottom: b.bottom,
              clippedBy,
            };
          });
          const at = `${id} step ${index}`;
          if (!plain(shown.text).endsWith(plain(st.caption).slice(-40))) problems.push(`${at}: shows "${plain(shown.text).slice(-60)}"`);
          if (shown.hidden > 1 || shown.fold) problems.push(`${at}: ${shown.hidden}px of the caption scroll out of the bar`);
          if (shown.more) problems.push(`${at}: "Read more" is offered`);
          if (shown.clippedBy) problems.push(`${at}: cut off by ${shown.clippedBy}`);
          if (shown.top < 0 || shown.bottom > viewport.height) problems.push(`${at}: the bar spans ${Math.round(shown.top)}..${Math.round(shown.bottom)}, outside the window`);
        }
        if (id === 'figure-8') await page.screenshot({ path: shotPath(`caption-whole-figure-8-${viewport.width}x${viewport.height}.png`) });
        assert.deepEqual(errors, [], id);
        await page.close();
      }
      assert.deepEqual(problems, []);
    });
  }
});
