// The cluster view's plan (web/src/ui/ring/plan.ts): for every cluster the core allows
// (1-7 voters, 0-8 observers) in the boxes the element gives the view (a phone, the
// compact embed, the main page at 1280x720 and wider), no label overlaps another label or
// another node, nothing leaves the box, and nodes stay big enough to read. Bundled from
// source with esbuild; the browser test (test/browser/stage.test.mjs) checks the drawn
// labels' boxes too.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const source = fileURLToPath(new URL('../src/ui/ring/plan.ts', import.meta.url));

async function loadPlan() {
  const dir = mkdtempSync(join(tmpdir(), 'kp-plan-'));
  try {
    const outfile = join(dir, 'plan.mjs');
    await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Label sizes about as the element measures them (offsets of 3 digits). */
const SIZES = { log: { w: 110, h: 37 }, full: { w: 100, h: 18 }, narrow: { w: 56, h: 32 }, named: { w: 92, h: 47 }, compact: { w: 56, h: 32 } };
/** The smallest and usual rings: the main page beside its tour at 1280x720 and in a short window, the compact embed, its 480 px iframe, a wide screen. */
const BOXES = [
  [330, 276],
  [370, 376],
  [380, 376],
  [334, 276],
  [430, 480],
  [560, 560],
];
const DETAILS = ['log', 'full', 'narrow', 'named', 'compact'];

const apart = (a, b) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;

test('every cluster size, in every box the element gives the view: labels and nodes never overlap, all inside', async () => {
  const { planRing, heightFor } = await loadPlan();
  const problems = [];
  for (let voters = 1; voters <= 7; voters++) {
    for (let observers = 0; observers <= 8; observers++) {
      const roles = [...Array(voters).fill('voter'), ...Array(observers).fill('observer')];
      // a phone's ring is as tall as its cluster wants; a wide one never shorter than it needs
      const size = (d) => SIZES[d];
      const boxes = [...BOXES.map(([w, h]) => [w, Math.max(h, heightFor(w, roles, 160, 800, false, size))]), [366, heightFor(366, roles, 300, 600, true, size)]];
      for (const [w, h] of boxes) {
        const p = planRing(w, h, roles, DETAILS, size);
        const at = `${voters}+${observers} in ${w}x${h}`;
        const ids = roles.map((_, i) => i);
        for (const a of ids) {
          const s = p.spots[a];
          const l = p.labels[a];
          if (!s || !l) {
            problems.push(`${at}: n${a} not placed`);
            continue;
          }
          if (l.x < 0 || l.y < 0 || l.x + l.w > w || l.y + l.h > h) problems.push(`${at}: n${a}'s label leaves the box`);
          if (s.x - s.r < 0 || s.y - s.r < 0 || s.x + s.r > w || s.y + s.r > h) problems.push(`${at}: n${a} leaves the box`);
          for (const b of ids) {
            if (b === a) continue;
            const t = p.spots[b];
            const disc = { x: t.x - t.r, y: t.y - t.r, w: 2 * t.r, h: 2 * t.r };
            if (!apart(l, disc)) problems.push(`${at}: n${a}'s label covers n${b}`);
            if (b > a && !apart(l, p.labels[b])) problems.push(`${at}: the labels of n${a} and n${b} overlap`);
          }
        }
        for (const c of p.captions) for (const a of ids) if (!apart(c.box, p.labels[a])) problems.push(`${at}: "${c.text}" covers n${a}'s label`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('few nodes get big nodes with their state inside and their log tails beside; on a phone every cluster gets room for its state', async () => {
  const { planRing, heightFor } = await loadPlan();
  const size = (d) => SIZES[d];
  const five = planRing(370, 376, Array(5).fill('voter'), DETAILS, size);
  assert.equal(five.detail, 'log');
  assert.ok(five.spots[0].r >= 30, `5 voters in 370x376: r = ${five.spots[0].r}`);
  const three = Array(3).fill('voter');
  const phone3 = heightFor(366, three, 300, 600, true, size);
  assert.equal(phone3, 300, 'three voters on a phone need no more than 300 px');
  assert.equal(planRing(366, phone3, three, DETAILS, size).detail, 'log');
  const most = [...Array(7).fill('voter'), ...Array(8).fill('observer')];
  const phone15 = heightFor(366, most, 300, 600, true, size);
  const p = planRing(366, phone15, most, DETAILS, size);
  assert.ok(p.spots[0].r >= 20, `7 + 8 on a phone, ${phone15} px tall: r = ${p.spots[0].r}`);
});
