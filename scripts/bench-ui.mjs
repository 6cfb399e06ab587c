#!/usr/bin/env node
// UI frame-time benchmark (not a test): the built site in headless Chromium, 7 nodes,
// 20,000 events in history, playing at 10x for a while. Reports the work per frame
// (advance + draw, measured inside the page) and the interval between animation
// frames, median / p95 / p99 / worst, the speed achieved and whether the UI said it was
// capped, and then, paused, the animation frames and DOM changes per second (idle: both
// should be 0); --json prints them as one JSON object instead; --parts times each part.
//   node scripts/bench-ui.mjs [--seconds 10] [--events 20000] [--network teaching|datacenter] [--writes 20]
//                             [--voters 5] [--observers 2] [--speed 10] [--json]
import { launch, openPage, serve } from '../test/browser/harness.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const seconds = Number(arg('seconds', 10));
const events = Number(arg('events', 20_000));
const network = arg('network', 'teaching');
const writes = Number(arg('writes', 20));
const voters = Number(arg('voters', 5));
const observers = Number(arg('observers', 2));
const speed = Number(arg('speed', 10));
const json = process.argv.includes('--json');

const server = await serve();
const { context, close } = await launch({ viewport: { width: 1440, height: 1000 } });
try {
  const { page, errors } = await openPage(context, `${server.url}?voters=${voters}&observers=${observers}&seed=1&network=${network}&speed=${speed}`);
  await page.waitForFunction(() => document.querySelector('kraft-playground')?.cluster != null, null, { timeout: 30_000 });
  await page.evaluate(() => document.querySelector('kraft-playground').ready);
  // Build up history through the UI's player (so the element holds it all).
  const setup = await page.evaluate(
    async ([want, wps]) => {
      const el = document.querySelector('kraft-playground');
      el.cluster.setWorkload({ writesPerSecond: wps });
      const t0 = performance.now();
      while (el.cluster.eventCount < want) el.player.seek(el.cluster.now + 2000);
      el.player.refresh();
      await new Promise((r) => setTimeout(r, 500));
      el.takeFrameTimes();
      return { events: el.cluster.eventCount, simulatedMs: el.cluster.now, setupMs: performance.now() - t0 };
    },
    [events, writes],
  );
  // Play at the speed asked and record.
  const result = await page.evaluate(
    async ([secs, speed]) => {
      const el = document.querySelector('kraft-playground');
      el.player.speed = speed;
      const intervals = [];
      let last = 0;
      let running = true;
      const tick = (t) => {
        if (last) intervals.push(t - last);
        last = t;
        if (running) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      const play = el.shadowRoot.querySelector('[data-action="play"]');
      if (play.getAttribute('aria-label') === 'Play') play.click();
      el.takeFrameTimes();
      el.profile(true);
      const startSim = el.cluster.now;
      // what the "capped at" indicator said, sampled every 250 ms
      const badge = el.shadowRoot.querySelector('.kp-capped');
      const said = new Set();
      const sampler = setInterval(() => {
        if (badge && !badge.hidden) said.add(badge.textContent);
      }, 250);
      await new Promise((r) => setTimeout(r, secs * 1000));
      clearInterval(sampler);
      running = false;
      const work = el.takeFrameTimes();
      const parts = el.profile(false);
      const capped = badge && !badge.hidden ? badge.textContent : null;
      return { work, intervals, parts, simulated: el.cluster.now - startSim, eventsEnd: el.cluster.eventCount, capped, said: [...said] };
    },
    [seconds, speed],
  );
  // Paused: animation frames requested and DOM changes over 2 s (after 0.5 s to settle).
  const idle = await page.evaluate(async () => {
    const el = document.querySelector('kraft-playground');
    const play = el.shadowRoot.querySelector('[data-action="play"]');
    if (play.getAttribute('aria-label') !== 'Play') play.click();
    await new Promise((r) => setTimeout(r, 500));
    let rafs = 0;
    let mutations = 0;
    const raf = window.requestAnimationFrame;
    window.requestAnimationFrame = (cb) => {
      rafs++;
      return raf.call(window, cb);
    };
    const mo = new MutationObserver((l) => {
      mutations += l.length;
    });
    const opts = { subtree: true, childList: true, attributes: true, characterData: true };
    mo.observe(document.body, opts);
    mo.observe(el.shadowRoot, opts);
    await new Promise((r) => setTimeout(r, 2000));
    mo.disconnect();
    window.requestAnimationFrame = raf;
    return { framesPerSecond: rafs / 2, domChangesPerSecond: mutations / 2 };
  });
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { n: s.length, median: q(0.5), p95: q(0.95), p99: q(0.99), worst: s[s.length - 1] };
  };
  const fmt = (o) => `median ${o.median.toFixed(2)} ms, p95 ${o.p95.toFixed(2)} ms, p99 ${o.p99.toFixed(2)} ms, worst ${o.worst.toFixed(2)} ms (${o.n} frames)`;
  const w = stats(result.work);
  const iv = stats(result.intervals);
  const achievedSpeed = result.simulated / (seconds * 1000);
  if (json) {
    console.log(JSON.stringify({ work: w, interval: iv, frames: w.n, achievedSpeed, capped: result.capped, cappedSaid: result.said, idle, errors }));
  } else {
    console.log(`bench-ui: ${voters} voters + ${observers} observers, network ${network}, ${writes} writes/s, ${speed}x speed, ${seconds} s wall`);
    console.log(`  history before playing: ${setup.events} events over ${(setup.simulatedMs / 1000).toFixed(1)} simulated s (built in ${setup.setupMs.toFixed(0)} ms)`);
    console.log(`  played ${(result.simulated / 1000).toFixed(1)} simulated s (${achievedSpeed.toFixed(1)}x); ${result.eventsEnd} events at the end`);
    console.log(`  work per frame (advance + draw): ${fmt(w)}`);
    console.log(`  frame interval (requestAnimationFrame): ${fmt(iv)}`);
    console.log(`  frames over 16.7 ms of work: ${result.work.filter((x) => x > 16.7).length}`);
    console.log(`  speed indicator: ${result.capped ? `"${result.capped}" at the end` : 'not capped at the end'}${result.said.length ? ` (said: ${result.said.join(', ')})` : ''}`);
    console.log(`  paused: ${idle.framesPerSecond} animation frames/s, ${idle.domChangesPerSecond} DOM changes/s`);
    if (process.argv.includes('--parts')) {
      for (const [k, v] of Object.entries(result.parts ?? {})) console.log(`    ${k.padEnd(10)} ${fmt(stats(v))}`);
    }
    if (errors.length) console.log(`  console errors: ${errors.join(' | ')}`);
  }
} finally {
  await close();
  server.stop();
}
