// The operator's console in Chromium: the quorum's timers and the simulator's options seen
// and changed within the core's catalog ranges, said wherever a run's settings matter (a
// link made with a 500 ms fetch timeout says so), carried in links and the address; and
// every leader change of free play measured as the leader-crash story's card measures it,
// in a panel and on the timeline.
//   node --test test/browser/console.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster, catalog, init } from '../../web/dist/node.js';
import { EL, nodeAction, shotPath, useSite, waitLeader } from './harness.mjs';

const site = useSite();
const open = site.open;

const FETCH_TIMEOUT = 'controller.quorum.fetch.timeout.ms';
const shadowText = (page, sel) => page.evaluate((s) => document.querySelector('kraft-playground').shadowRoot.querySelector(s)?.textContent ?? null, sel);

describe('the settings', () => {
  test("every config key and the simulator's options, with the catalog's ranges; a 500 ms fetch timeout applied starts free play again with it, and the page says so", async () => {
    await init();
    const keys = [...catalog().configKeys.map((k) => k.key), 'flushMs', 'snapshotInterval'];
    const { page, errors } = await open('/?seed=7&voters=3&observers=0&speed=10');
    const panel = page.locator(`${EL} .kp-settings-panel`);
    await panel.waitFor();
    const inputs = await panel.locator('input[data-config-key]').evaluateAll((is) => is.map((i) => ({ key: i.dataset.configKey, min: i.min, max: i.max, value: i.value })));
    assert.deepEqual(inputs.map((i) => i.key).sort(), keys.sort(), 'one input a key, grouped');
    for (const k of catalog().configKeys) {
      const i = inputs.find((x) => x.key === k.key);
      assert.deepEqual([i.min, i.max, i.value], [String(k.min), String(k.max), String(k.default)], k.key);
    }
    assert.ok(await page.locator(`${EL} [data-settings-note]`).isHidden(), "Kafka's defaults: nothing to say");
    const input = panel.locator(`input[data-config-key="${FETCH_TIMEOUT}"]`);
    // out of range: refused, naming the key, the value and the range
    await input.fill('5');
    assert.equal(await shadowText(page, '[data-settings-status]'), `${FETCH_TIMEOUT} must be between 10 and 600000 ms, got 5.`);
    assert.ok(await panel.locator('[data-action="apply-settings"]').isDisabled());
    await input.fill('500');
    await panel.locator('[data-action="apply-settings"]').click();
    await page.waitForFunction((k) => document.querySelector('kraft-playground').cluster.options.config?.[k] === 500, FETCH_TIMEOUT);
    assert.equal(await page.evaluate(() => document.querySelector('kraft-playground').cluster.seed), 7, 'the same seed');
    const note = page.locator(`${EL} [data-settings-note]`);
    await note.waitFor();
    assert.match(await note.textContent(), /Settings differ from Kafka's defaults: controller\.quorum\.fetch\.timeout\.ms = 500 ms \(Kafka's default: 2000 ms\)/);
    assert.equal(await panel.locator(`label[data-changed] input[data-config-key="${FETCH_TIMEOUT}"]`).count(), 1, 'the changed key is marked');
    // the address reproduces the run: its link, since no parameter says a setting
    await page.waitForFunction(() => location.hash.startsWith('#run=k2.'));
    const other = await open(new URL(page.url()).pathname + new URL(page.url()).hash);
    assert.equal(await other.page.evaluate((k) => document.querySelector('kraft-playground').cluster.options.config[k], FETCH_TIMEOUT), 500);
    await other.page.locator(`${EL} [data-settings-note]`).waitFor();
    await other.page.locator(`${EL} .kp-settings-panel input[data-config-key="${FETCH_TIMEOUT}"]`).waitFor();
    assert.equal(await other.page.locator(`${EL} .kp-settings-panel input[data-config-key="${FETCH_TIMEOUT}"]`).inputValue(), '500', 'the console shows the run it opened');
    // Kafka's defaults again
    await panel.locator('[data-action="default-settings"]').click();
    await panel.locator('[data-action="apply-settings"]').click();
    await page.waitForFunction(() => Object.keys(document.querySelector('kraft-playground').cluster.options.config ?? {}).length === 0);
    await note.waitFor({ state: 'hidden' });
    assert.deepEqual([...errors, ...other.errors], []);
    await other.page.close();
    await page.close();
  });

  test('a share link made with a 500 ms fetch timeout says so where it opens: on the main page and in the embed', async () => {
    const c = await Cluster.create({ seed: 3, voters: 3, config: { [FETCH_TIMEOUT]: 500 } });
    c.advance(2_000);
    const link = c.toLink();
    for (const path of [`/#run=${link}`, `/embed.html#run=${link}`]) {
      const { page, errors } = await open(path);
      const note = page.locator(`${EL} [data-settings-note]`);
      assert.ok(await note.isVisible(), path);
      assert.match(await note.textContent(), /controller\.quorum\.fetch\.timeout\.ms = 500 ms \(Kafka's default: 2000 ms\)/, path);
      // and the share dialog says what its link carries
      await page.locator(`${EL} [data-action="share"]`).click();
      assert.match(await page.locator(`${EL} dialog.kp-dialog`).textContent(), /the settings \(controller\.quorum\.fetch\.timeout\.ms = 500 ms\)/, path);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});

describe('leader changes in free play', () => {
  test("each new leader gets the leader-crash story card's breakdown (detection, election, first commit), in a panel and on the timeline", async () => {
    const { page, errors } = await open('/?seed=11&voters=3&observers=0&speed=10', { viewport: { width: 1440, height: 1160 } });
    const first = await waitLeader(page);
    await nodeAction(page, first.id, 'crash');
    await waitLeader(page, { minEpoch: first.epoch });
    // the new leader's first commit, then the panel's next refresh
    const item = page.locator(`${EL} .kp-leader-changes li[data-measure="failover"]`).first();
    await item.locator('[data-part="first commit"]').waitFor({ timeout: 20_000 });
    const core = await page.evaluate(() =>
      document
        .querySelector('kraft-playground')
        .cluster.leaderChanges()
        .find((c) => c.previous !== null),
    );
    assert.equal(core.previous.node, first.id);
    assert.equal(core.cause.text, `crash n${first.id}`);
    assert.deepEqual(
      core.measurement.parts.map((p) => p.name),
      ['detection', 'election', 'first commit'],
    );
    for (const p of core.measurement.parts) {
      assert.equal(await item.locator(`[data-part="${p.name}"]`).textContent(), `${p.name}: ${Math.floor(p.ms / 1000)}.${String(p.ms % 1000).padStart(3, '0')}s`);
    }
    assert.match(await item.textContent(), new RegExp(`crash n${first.id} at .*: n${core.node} leads epoch ${core.epoch} at .*, failover .* = detection .* \\+ election`));
    // on the timeline: the parts along the foot of the lanes
    await page.locator(`${EL} .kp-tl-tools [aria-label="Show the whole run"]`).click();
    await page.waitForFunction((t) => (document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-tl').dataset.failovers ?? '').includes(`${t}:detection=`), core.t);
    // the first election is listed too, below it
    assert.equal(await page.locator(`${EL} .kp-leader-changes li[data-measure="firstElection"]`).count(), 1);
    // the README's picture of the console: the leader changes beside the options, the
    // settings' first section below them
    const changes = await page.locator(`${EL} .kp-leader-changes`).boundingBox();
    const settings = await page.locator(`${EL} .kp-settings-panel`).boundingBox();
    const [x, y] = [settings.x - 12, changes.y - 12];
    await page.screenshot({ path: shotPath('screenshot-console.png'), fullPage: true, clip: { x, y, width: changes.x + changes.width + 12 - x, height: settings.y + 440 - y } });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
