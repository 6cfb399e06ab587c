// Changing the voters from a node's menu (KIP-853, a dynamic quorum): add-controller and
// remove-controller go through the element's actions, and the menu says what the leader
// answered: NONE once the new voter set commits, or Kafka's error code with the core's
// sentence naming the rule that refused.
//   node --test test/browser/membership.test.mjs   (the site must be built)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Cluster } from '../../web/dist/node.js';
import { EL, shotPath, summaryNodes, useSite, waitSummary } from './harness.mjs';

const site = useSite();

/** Opens node `id`'s menu and presses its `action` button; the menu stays open. */
async function menuAction(page, id, action) {
  const menu = page.locator(`${EL} .kp-menu`);
  if (!(await menu.isVisible()) || (await menu.locator('h2').textContent()) !== `Node n${id}`) await page.locator(`${EL} .kp-node-btn[data-node="${id}"]`).click();
  await menu.locator(`[data-node-action="${action}"]`).click();
}

const adminLine = (page) => page.locator(`${EL} .kp-menu [data-admin]`);
const playing = (page, on) => page.evaluate((on) => (on ? document.querySelector('kraft-playground').play() : document.querySelector('kraft-playground').pause()), on);

describe('voters changed from the node menu', () => {
  test('a dynamic 4.2 quorum: the observer is added, a voter removed, and a second change while one is pending is refused with its rule', async () => {
    const c = await Cluster.create({ seed: 7, voters: 3, observers: 1, kafkaRelease: '4.2', quorum: 'dynamic', network: 'datacenter' });
    assert.ok(c.runUntil((c) => c.leader() !== null && c.node(3).hw >= 1, { timeoutMs: 20_000 }));
    c.advance(2_000);
    const { page, errors } = await site.open(`/#run=${c.toLink()}`);
    await waitSummary(page);
    assert.equal((await summaryNodes(page)).n3.role, 'observer');

    await menuAction(page, 3, 'add-controller');
    assert.match(await adminLine(page).textContent(), /add-controller n3: (sent, waiting|NONE)/);
    await playing(page, true);
    await page.waitForFunction(() => /NONE: committed/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-menu [data-admin]').textContent), null, { timeout: 30_000 });
    await playing(page, false);
    assert.match(await adminLine(page).textContent(), /add-controller n3: NONE: committed\. .*n3/);
    await waitSummary(page);
    assert.equal((await summaryNodes(page)).n3.role, 'voter', 'the ring and the summary show n3 as a voter');
    // its menu now offers the opposite
    assert.equal(await page.locator(`${EL} .kp-menu [data-node-action="remove-controller"]`).count(), 1);
    await page.screenshot({ path: shotPath('membership-added.png') });

    // two removals in the same moment: the second comes while the first is uncommitted
    const leader = await page.evaluate(() => document.querySelector('kraft-playground').cluster.leader().id);
    const [a, b] = [0, 1, 2, 3].filter((n) => n !== leader);
    await menuAction(page, a, 'remove-controller');
    await menuAction(page, b, 'remove-controller');
    await playing(page, true);
    await page.waitForFunction(
      (b) => new RegExp(`remove-controller n${b}: refused`).test(document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-menu [data-admin]').textContent),
      b,
      { timeout: 30_000 },
    );
    await playing(page, false);
    const refusal = await page.evaluate((b) => {
      const ev = document
        .querySelector('kraft-playground')
        .cluster.events({ text: false })
        .filter((e) => e.type === 'admin' && e.voter === b);
      return ev.at(-1);
    }, b);
    assert.notEqual(refusal.error, 'NONE');
    const line = await adminLine(page).textContent();
    assert.ok(line.includes(`refused, ${refusal.error}`), line);
    assert.ok(line.includes(refusal.rule), `the explanation names Kafka's rule (${refusal.rule}): ${line}`);
    await page.screenshot({ path: shotPath('membership-refused.png') });
    // the first removal commits: node a is an observer now
    await playing(page, true);
    await page.waitForFunction((a) => document.querySelector('kraft-playground').cluster.node(a).role === 'observer', a, { timeout: 30_000 });
    await playing(page, false);
    await waitSummary(page);
    assert.equal((await summaryNodes(page))[`n${a}`].role, 'observer');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a run with no Kafka release: the buttons are there, disabled, and say why', async () => {
    const { page, errors } = await site.open('/?voters=3&observers=1&autoplay=0');
    await page.locator(`${EL} .kp-node-btn[data-node="3"]`).click();
    const add = page.locator(`${EL} .kp-menu [data-node-action="add-controller"]`);
    assert.ok(await add.isDisabled());
    assert.match(await add.getAttribute('title'), /dynamic quorum, Kafka 3\.9 and later/);
    await page.locator(`${EL} .kp-node-btn[data-node="0"]`).click();
    assert.ok(await page.locator(`${EL} .kp-menu [data-node-action="remove-controller"]`).isDisabled());
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Settings start a dynamic 4.2 quorum, whose observer is then added from its menu; no release: dynamic is disabled', async () => {
    const { page, errors } = await site.open('/?voters=3&observers=1&autoplay=0');
    const release = page.locator(`${EL} [data-setting="kafkaRelease"]`);
    const quorum = page.locator(`${EL} [data-setting="quorum"]`);
    assert.equal(await release.inputValue(), 'legacy');
    assert.ok(await quorum.locator('option[value="dynamic"]').isDisabled(), 'dynamic needs 3.9 or later');
    assert.match(await quorum.locator('option[value="dynamic"]').getAttribute('title'), /3\.9 or later/);
    await release.selectOption('4.2');
    assert.ok(!(await quorum.locator('option[value="dynamic"]').isDisabled()));
    await quorum.selectOption('dynamic');
    await page.locator(`${EL} [data-action="apply-settings"]`).click();
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.options.quorum === 'dynamic');
    const o = await page.evaluate(() => document.querySelector('kraft-playground').cluster.options);
    assert.equal(o.kafkaRelease, '4.2');
    assert.equal(await release.inputValue(), '4.2', 'the panel shows the run on screen');
    await playing(page, true);
    // the observer has caught up with the leader's first records
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.node(3).hw >= 1, null, { timeout: 30_000 });
    await menuAction(page, 3, 'add-controller');
    await page.waitForFunction(() => /add-controller n3: (NONE|refused)/.test(document.querySelector('kraft-playground').shadowRoot.querySelector('.kp-menu [data-admin]').textContent), null, {
      timeout: 30_000,
    });
    await playing(page, false);
    assert.match(await adminLine(page).textContent(), /add-controller n3: NONE: committed/);
    // n3 sees itself a voter once its HW passes the committed VotersRecord
    await playing(page, true);
    await page.waitForFunction(() => document.querySelector('kraft-playground').cluster.node(3).role === 'voter', null, { timeout: 30_000 });
    await playing(page, false);
    await page.locator(`${EL} .kp-settings-panel`).screenshot({ path: shotPath('membership-settings.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
