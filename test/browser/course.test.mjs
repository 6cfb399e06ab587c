// The on-ramp of the main page, in Chromium: a visit without a link opens the course's
// next story already playing beside the cards; progress survives a reload; free play is
// one click away and writes; the glossary is in the help and on the words; links and
// the embed open what they name, without the on-ramp.
//   node --test test/browser/      (the site must be built: node scripts/build.mjs)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EL, holdBack, nowOf, root, shotPath, useSite } from './harness.mjs';

const COURSE = '.site-course';

/** Every scenario id of the library (scenarios/*.json). */
const library = readdirSync(join(root, 'scenarios'))
  .filter((f) => f.endsWith('.json') && f !== 'schema.json')
  .map((f) => JSON.parse(readFileSync(join(root, 'scenarios', f), 'utf8')).id)
  .sort();

// a fresh profile: nothing in localStorage, as on a first visit
const site = useSite();
const open = site.open;

const scenarioOf = (page) => page.evaluate(() => document.querySelector('kraft-playground').getAttribute('scenario'));
const card = (page, id) => page.locator(`${COURSE} .course-card[data-story="${id}"]`);

describe('the on-ramp', () => {
  test('a first visit opens the first story already playing, beside the course as cards', async () => {
    const { page, errors } = await open('/', { viewport: { width: 1440, height: 900 } });
    assert.equal(await scenarioOf(page), 'first-election');
    // playing at once: the clock runs from 0 to the story's next pause
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.now > 0, null, { timeout: 10_000 });
    await page.locator(`${EL} [data-action="continue"]`).waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await page.locator(`${EL} [data-caption]`).textContent(), /First election · step [2-9]/);
    assert.equal(new URL(page.url()).searchParams.get('scenario'), 'first-election');
    // the cards: every scenario once, in four parts, the story on screen marked and seen
    const ids = await page.locator(`${COURSE} .course-card`).evaluateAll((cs) => cs.map((c) => c.dataset.story));
    assert.deepEqual([...ids].sort(), library, 'one card per scenario file');
    assert.equal(ids[0], 'first-election');
    assert.deepEqual(await page.locator(`${COURSE} .course-part-title`).allTextContents(), ['1 · Basics', '2 · Failures', '3 · Safety', "4 · KRaft's own"]);
    assert.equal(await card(page, 'first-election').getAttribute('aria-current'), 'true');
    assert.equal(await card(page, 'first-election').getAttribute('data-progress'), 'seen');
    assert.equal(await card(page, 'leader-crash-failover').getAttribute('data-progress'), 'new');
    assert.equal(await page.locator(`${COURSE} [data-course-count]`).textContent(), `0 of ${library.length} completed`);
    assert.ok(await card(page, 'first-election').isVisible(), 'the cards are beside the playground, in view');
    const box = await page.locator(COURSE).boundingBox();
    const elBox = await page.locator(EL).boundingBox();
    assert.ok(box.x >= elBox.x + elBox.width - 1 && box.y < 200, `beside the playground (${JSON.stringify(box)})`);
    // each card has one line
    assert.match(await card(page, 'figure-8').textContent(), /own epoch/);
    // free play is one click away; the element's compact picker is not the way in here
    assert.ok(await page.locator(`${COURSE} [data-course-action="free-play"]`).isVisible());
    assert.equal(await page.locator(`${EL} .kp-scenario`).isVisible(), false);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: shotPath('screenshot-onramp.png') });
    for (const [w, hgt, scheme] of [
      [1280, 720, 'light'],
      [1440, 900, 'dark'],
      [1280, 720, 'dark'],
    ]) {
      await page.setViewportSize({ width: w, height: hgt });
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(250);
      await page.screenshot({ path: shotPath(`onramp-${w}x${hgt}${scheme === 'dark' ? '-dark' : ''}.png`) });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the course shows the on-ramp's story (its part open, its card current) before the playground has loaded: nothing in it moves when the story starts", async () => {
    // The regression: the part opened only once the story was on screen, so the course
    // was painted with every part folded and unfolded under the reader a moment later.
    const page = await site.browser.context.newPage();
    const release = await holdBack(page, /\.wasm$/);
    await page.goto(site.server.url);
    await page.locator(`${COURSE} .course-card`).first().waitFor();
    const shown = () =>
      page.evaluate(() => ({
        open: [...document.querySelectorAll('.site-course details[open]')].map((d) => d.dataset.part),
        current: [...document.querySelectorAll('.site-course [aria-current="true"]')].map((c) => c.dataset.story),
      }));
    const before = await shown();
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster), null, 'the core is still on its way');
    assert.deepEqual(before.current, ['first-election']);
    assert.equal(before.open.length, 1, JSON.stringify(before));
    release();
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster?.now > 0, null, { timeout: 30_000 });
    await page.locator(`${COURSE} .course-card[data-story="first-election"][data-progress="seen"]`).waitFor();
    assert.deepEqual(await shown(), before);
    await page.close();
  });

  test('playing a story to its last caption completes it; progress survives a reload, a visit goes on with the next story, and Reset clears it', async () => {
    const { page, errors } = await open('/?scenario=first-election');
    const cont = page.locator(`${EL} [data-action="continue"]`);
    // read on: Continue at each pause until the card says completed
    for (let i = 0; i < 12 && (await card(page, 'first-election').getAttribute('data-progress')) !== 'completed'; i++) {
      if (await cont.isVisible()) await cont.click();
      await page.waitForTimeout(600);
    }
    assert.equal(await card(page, 'first-election').getAttribute('data-progress'), 'completed');
    assert.equal(await page.locator(`${COURSE} [data-course-count]`).textContent(), `1 of ${library.length} completed`);
    assert.equal(await page.locator(`${COURSE} [data-part="basics"] .course-part-count`).textContent(), '1/3');
    assert.equal(await card(page, 'metadata-state-machine').getAttribute('data-next'), '', 'the next story of the path is tagged');
    await page.reload();
    await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    assert.equal(await card(page, 'first-election').getAttribute('data-progress'), 'completed', 'remembered across a reload');
    // a visit without a link goes on with the next story of the path
    const next = await open('/');
    assert.equal(await scenarioOf(next.page), 'metadata-state-machine');
    assert.equal(await card(next.page, 'metadata-state-machine').getAttribute('aria-current'), 'true');
    // opening a story from its card (in a part still folded) marks it seen
    await next.page.locator(`${COURSE} [data-part="kraft"] > summary`).click();
    await card(next.page, 'split-vote').click();
    await next.page.waitForFunction(() => new URL(location.href).searchParams.get('scenario') === 'split-vote');
    await next.page.waitForFunction(() => document.querySelector('.site-course [data-story="split-vote"]').dataset.progress === 'seen');
    assert.match(await next.page.locator(`${EL} [data-caption]`).textContent(), /Split vote/);
    await next.page.locator(`${COURSE} [data-course-action="reset"]`).click();
    assert.equal(await card(next.page, 'first-election').getAttribute('data-progress'), 'new');
    assert.equal(await next.page.locator(`${COURSE} [data-course-count]`).textContent(), `0 of ${library.length} completed`);
    await next.page.reload();
    await next.page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
    assert.equal(await card(next.page, 'first-election').getAttribute('data-progress'), 'new', 'the reset is remembered too');
    assert.deepEqual([...errors, ...next.errors], []);
    await next.page.close();
    await page.close();
  });

  test('free play is one click away and starts with a light client workload: the log grows within a few simulated seconds', async () => {
    const { page, errors } = await open('/');
    await page.locator(`${COURSE} [data-course-action="free-play"]`).click();
    await page.waitForFunction(() => {
      const el = document.querySelector('kraft-playground');
      return el.getAttribute('scenario') === null && el.cluster && new URL(location.href).searchParams.has('voters');
    });
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster.writesPerSecond), 2);
    assert.equal(await page.locator(`${EL} select[aria-label="Client writes per second"]`).inputValue(), '2');
    assert.equal(await page.locator(`${COURSE} [data-course-action="free-play"]`).getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator(`${COURSE} .course-card[aria-current]`).count(), 0);
    // it plays at once, and the leader's log passes a few records by 6 simulated seconds
    await page.waitForFunction(
      () => {
        const c = document.querySelector('kraft-playground').cluster;
        const l = c.leader();
        return c.now >= 6000 || (l !== null && c.node(l.id).leo >= 6);
      },
      null,
      { timeout: 20_000 },
    );
    const { now, leo } = await page.evaluate(() => {
      const c = document.querySelector('kraft-playground').cluster;
      const l = c.leader();
      return { now: c.now, leo: l ? c.node(l.id).leo : 0 };
    });
    assert.ok(leo >= 6 && now <= 6000, `LeaderChange and writes: leo ${leo} at ${now} ms`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the glossary: a Raft-to-KRaft table in the help, and the same entries as tooltips on the words', async () => {
    const { page, errors } = await open('/?seed=42&speed=10');
    const shadow = (sel, attr) => page.evaluate(([s, a]) => document.querySelector('kraft-playground').shadowRoot.querySelector(s)?.getAttribute(a) ?? null, [sel, attr]);
    // the status line, the legend, the node labels, the panel headings
    assert.match(await shadow('.kp-status', 'title'), /epoch \(Raft: term\)/);
    assert.match(await shadow('.kp-status', 'title'), /commitIndex/);
    assert.match(await shadow('.kp-legend-item[data-rpc="Fetch"]', 'title'), /AppendEntries.*Pull, not push/s);
    assert.match(await shadow('.kp-legend-item[data-rpc="Vote"]', 'title'), /RequestVote/);
    assert.match(await shadow('.kp-legend-item[data-rpc="PreVote"]', 'title'), /Pre-Vote/);
    assert.match(await shadow('.kp-legend-item[data-rpc="BeginQuorumEpoch"]', 'title'), /heartbeat/);
    assert.match(await shadow('.kp-legend-item[data-rpc="EndQuorumEpoch"]', 'title'), /leadership transfer/);
    assert.match(await shadow('.kp-legend-item[data-rpc="FetchSnapshot"]', 'title'), /InstallSnapshot/);
    // a node's tooltip is its word alone until the meanings arrive with the later chunk; the
    // ring retitles its nodes on its next frame after that (ring.ts), so wait for that frame
    await page.waitForFunction(() => /\(Raft: term\)/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-node-btn[data-node="0"]')?.title ?? ''));
    assert.match(await shadow('.kp-node-btn[data-node="0"]', 'title'), /e: epoch \(Raft: term\)/);
    assert.match(await shadow('.kp-node-btn[data-node="4"]', 'title'), /observer \(Raft: learner/);
    // the logs and the quorum panel come with the later chunk, after the first frame
    await page.waitForFunction(() => document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-quorum h2 .kp-term[data-term="epoch"]'));
    assert.match(await shadow('.kp-logs-panel h2 .kp-term[data-term="hw"]', 'title'), /commitIndex/);
    assert.match(await shadow('.kp-quorum h2 .kp-term[data-term="epoch"]', 'title'), /Raft: term/);
    // the help: one row per entry, the same text the tooltips carry
    await page.locator(`${EL} [data-action="help"]`).click();
    const rows = page.locator(`${EL} .kp-dialog table.kp-glossary tbody tr`);
    assert.ok((await rows.count()) >= 11);
    const raftWords = await rows.locator('td:first-child').allTextContents();
    for (const w of ['term', 'RequestVote', 'AppendEntries', 'commitIndex', 'heartbeat', 'leader lease', 'learner', 'InstallSnapshot', 'leadership transfer']) {
      assert.ok(
        raftWords.some((x) => x.includes(w)),
        `the help maps Raft's ${w}`,
      );
    }
    const hwRow = await page.locator(`${EL} .kp-dialog tr[data-term="hw"] td:last-child`).textContent();
    const hwTip = await shadow('.kp-logs-panel h2 .kp-term[data-term="hw"]', 'title');
    assert.ok(hwTip.includes(hwRow.slice(0, 60)), 'the tooltip and the table share one entry');
    await page.keyboard.press('Escape');
    // without hover (a phone), a tap on a dotted word opens its entry in the help
    await page.locator(`${EL} .kp-logs-panel h2 .kp-term[data-term="leo"]`).click();
    const hit = page.locator(`${EL} .kp-dialog tr.kp-glossary-hit`);
    assert.equal(await hit.getAttribute('data-term'), 'leo');
    assert.ok(await hit.isVisible());
    await page.keyboard.press('Escape');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('links open what they name without the on-ramp in the way; the embed has no on-ramp', async () => {
    // a ?scenario= link: that story, as the link asks (not played by the on-ramp)
    const { page, errors } = await open('/?scenario=figure-8&autoplay=0');
    assert.equal(await scenarioOf(page), 'figure-8');
    await page.waitForTimeout(800);
    assert.equal(await nowOf(page), 0, 'not started by the on-ramp');
    assert.equal(await card(page, 'figure-8').getAttribute('aria-current'), 'true');
    // a #run= link: the run at its moment, no story
    await page.locator(`${COURSE} [data-course-action="free-play"]`).click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').getAttribute('scenario') === null && document.querySelector('kraft-playground').cluster.now > 1500);
    const link = await page.evaluate(() => {
      const el = document.querySelector('kraft-playground');
      el.pause();
      return { url: el.shareUrl(), now: el.cluster.now, digest: el.cluster.digest() };
    });
    const shared = await open(new URL(link.url).pathname + new URL(link.url).hash);
    assert.equal(await scenarioOf(shared.page), null);
    assert.equal(await nowOf(shared.page), link.now);
    assert.equal(await shared.page.evaluate(() => document.querySelector('kraft-playground').cluster.digest()), link.digest);
    await shared.page.waitForTimeout(500);
    assert.equal(await nowOf(shared.page), link.now, 'a shared moment waits for play');
    // the embed: no cards, free play, and the compact picker in the course's order
    const embed = await open('/embed.html');
    assert.equal(await embed.page.locator(COURSE).count(), 0);
    assert.equal(await scenarioOf(embed.page), null);
    const picker = embed.page.locator(`${EL} .kp-scenario`);
    assert.ok(await picker.isVisible());
    assert.deepEqual(await picker.locator('optgroup').evaluateAll((gs) => gs.map((g) => g.label)), ['Basics', 'Failures', 'Safety', "KRaft's own"]);
    assert.deepEqual(await picker.locator('option').evaluateAll((os) => os.slice(0, 2).map((o) => o.value)), ['', 'first-election']);
    assert.deepEqual([...errors, ...shared.errors, ...embed.errors], []);
    for (const p of [page, shared.page, embed.page]) await p.close();
  });
});
