// The CLI, spawned as users run it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as kp from '../dist/node.js';

const bin = fileURLToPath(new URL('../bin/kraft-playground.mjs', import.meta.url));

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--help on each command, --version', () => {
  const main = cli('--help');
  assert.equal(main.code, 0);
  assert.match(main.out, /kraft-playground run FILE\.json/);
  assert.match(main.out, /kraft-playground sweep --seeds N --seconds S/);
  const run = cli('run', '--help');
  assert.equal(run.code, 0);
  assert.match(run.out, /--format text\|json/);
  assert.match(run.out, /no-check-quorum: /, 'lists the safety switches');
  const sweep = cli('sweep', '--help');
  assert.equal(sweep.code, 0);
  assert.match(sweep.out, /N passed, M failed/);
  const v = cli('--version');
  assert.equal(v.code, 0);
  assert.match(v.out, /^\d+\.\d+\.\d+/);
  assert.equal(cli().code, 2, 'no command is a usage error');
});

const figure8 = fileURLToPath(new URL('../../scenarios/figure-8.json', import.meta.url));
const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}.json`, import.meta.url));

test('run: trace, one line per event, then the summary; exit 0', () => {
  const r = cli('run', fixture('elect'));
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0], /^\s+0\.000s\s+1 n0 /, 'first event line: time, seq, text');
  const summaryAt = lines.findIndex((l) => l.startsWith('scenario cli-elect'));
  assert.ok(summaryAt > 10, 'the trace comes first');
  const traceLines = lines.slice(0, summaryAt).filter((l) => l.trim() !== '');
  const m = /, (\d+) events, digest ([0-9a-f]{16})/.exec(r.out);
  assert.ok(m, 'the summary gives the event count and digest');
  assert.equal(traceLines.length, Number(m[1]), 'every event printed once');
  traceLines.forEach((l, i) => {
    assert.match(l, new RegExp(`^\\s+\\d+\\.\\d{3}s\\s+${i + 1} `));
  });
  assert.match(r.out, /PASS leaderElectedBy/);
  assert.match(r.out, /invariants: no violations/);
  assert.match(r.out, /PASSED\n$/);
});

test('run: --format json, --seed, --quiet', () => {
  const r = cli('run', fixture('elect'), '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.report.passed, true);
  assert.equal(j.report.id, 'cli-elect');
  assert.equal(j.events.length, j.report.events);
  assert.deepEqual(
    j.events.map((e) => e.seq),
    j.events.map((_, i) => i + 1),
  );
  assert.ok(j.events.some((e) => e.type === 'write' && e.accepted));
  assert.equal(j.report.seed, 4);
  const seeded = JSON.parse(cli('run', fixture('elect'), '--format', 'json', '--seed', '99').out);
  assert.equal(seeded.report.seed, 99);
  assert.notEqual(seeded.report.digest, j.report.digest);
  const again = JSON.parse(cli('run', fixture('elect'), '--format', 'json', '--seed', '99').out);
  assert.equal(again.report.digest, seeded.report.digest, 'deterministic');
  const q = cli('run', fixture('elect'), '--quiet');
  assert.match(q.out, /^scenario cli-elect/);
  const u = JSON.parse(cli('run', fixture('elect'), '--format', 'json', '--unsafe', 'no-pre-vote').out);
  assert.deepEqual(u.report.unsafe, ['no-pre-vote']);
});

// A ten-minute run of about 420,000 events: past the 200,000 the core keeps in memory,
// so printing it replays the older ones. The CLI runs with its JS heap capped at 96 MB
// while it prints about 90 MB of JSON (35 MB of text): it must stream the trace page by
// page, not build it whole (which also failed past 512 MB: "Invalid string length").
const tenMinutes = fixture('ten-minutes');
const cappedHeap = '--max-old-space-size=96';

/** Runs the CLI with its stdout in a file (the trace is too big for a pipe buffer). */
function cliToFile(nodeArgs, ...args) {
  const dir = mkdtempSync(join(tmpdir(), 'kp-cli-'));
  const out = join(dir, 'out');
  const fd = openSync(out, 'w');
  try {
    const r = spawnSync(process.execPath, [...nodeArgs, bin, ...args], { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 300_000 });
    return { code: r.status, out: readFileSync(out, 'utf8'), err: r.stderr };
  } finally {
    closeSync(fd);
  }
}

/** The same run in this process, read back with events({ since }) / text({ since }) pages. */
let reference;
async function referenceRun() {
  if (!reference) {
    await kp.init();
    const { report, cluster } = kp.runScenarioSync(readFileSync(tenMinutes, 'utf8'), {});
    try {
      const events = [];
      const text = [];
      for (let since = 0; since < cluster.lastSeq; ) {
        const page = cluster.events({ since, limit: 50_000 });
        events.push(JSON.stringify(page));
        text.push(cluster.text({ since, limit: 50_000 }));
        since = page[page.length - 1].seq;
      }
      reference = { report, events, text: text.join('') };
    } finally {
      cluster.dispose();
    }
  }
  return reference;
}

test('run --format json: a ten-minute trace past the in-memory window, streamed, every event as events({ since }) gives it', async () => {
  const ref = await referenceRun();
  assert.ok(ref.report.events > 400_000, `${ref.report.events} events`);
  const r = cliToFile([cappedHeap], 'run', tenMinutes, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.report.digest, ref.report.digest);
  assert.equal(j.events.length, j.report.events, 'every event, as many as the report counts');
  j.events.forEach((e, i) => {
    assert.equal(e.seq, i + 1);
  });
  let at = 0;
  for (const page of ref.events) {
    const n = JSON.parse(page).length;
    assert.equal(JSON.stringify(j.events.slice(at, at + n)), page, `events ${at + 1}..${at + n}`);
    at += n;
  }
  assert.equal(at, j.events.length);
});

test('run: the same ten-minute trace as text, one line per event, as text({ since }) gives it', async () => {
  const ref = await referenceRun();
  const r = cliToFile([cappedHeap], 'run', tenMinutes);
  assert.equal(r.code, 0, r.err);
  const at = r.out.indexOf('\n\nscenario cli-ten-minutes');
  assert.ok(at > 0, 'the trace, a blank line, then the summary');
  const trace = r.out.slice(0, at + 1);
  assert.equal(trace.split('\n').length - 1, ref.report.events, 'one line per event');
  assert.ok(trace === ref.text, 'the lines are text({ since }) pages, in order');
  assert.match(r.out, new RegExp(`, ${ref.report.events} events, digest ${ref.report.digest}`));
});

test('run: a failed expectation exits 1', () => {
  const r = cli('run', fixture('too-soon'), '--quiet');
  assert.equal(r.code, 1);
  assert.match(r.out, /FAIL leaderElectedBy/);
  assert.match(r.out, /FAILED\n$/);
});

test('run: an unexpected invariant violation exits 1; the variant that expects it passes', { skip: !existsSync(figure8) && 'no scenarios/figure-8.json' }, () => {
  const r = cli('run', figure8, '--quiet', '--unsafe', 'hw-before-own-epoch');
  assert.equal(r.code, 1);
  assert.match(r.out, /UNEXPECTED .*(ConsistentCommittedData|LeaderCompleteness|MonotonicHighWatermark)/);
  const v = cli('run', figure8, '--quiet', '--variant', 'hw-before-own-epoch');
  assert.equal(v.code, 0, v.out);
  assert.match(v.out, /expected .*ConsistentCommittedData/);
});

test('run: an invalid scenario exits 2 naming the field', () => {
  const r = cli('run', fixture('bad-node'));
  assert.equal(r.code, 2);
  assert.match(r.err, /bad-node\.json: steps\[0\]\.node: node 7 does not exist/);
  assert.equal(r.out, '');
  const dir = mkdtempSync(join(tmpdir(), 'kp-cli-'));
  writeFileSync(join(dir, 'broken.json'), '{"id": "x", ');
  const b = cli('run', join(dir, 'broken.json'));
  assert.equal(b.code, 2);
  assert.match(b.err, /broken\.json: /);
  const v = cli('run', fixture('elect'), '--variant', 'nope');
  assert.equal(v.code, 2);
  assert.match(v.err, /variant/);
});

test('sweep: passing seeds', () => {
  const r = cli('sweep', '--seeds', '3', '--seconds', '20', '--voters', '3');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim(), '3 passed, 0 failed');
  assert.match(r.err, /simulated s per wall s/);
});

test('sweep: an unsafe switch is caught, with the native repro command', () => {
  const r = cli('sweep', '--seeds', '1', '--first-seed', '3', '--seconds', '30', '--unsafe', 'vote-ignores-log');
  assert.equal(r.code, 1);
  assert.match(r.out, /seed 3 FAILED: .*LeaderCompleteness/);
  assert.match(r.out, /reproduce: cargo run --release -p kraft-sim --example sweep -- --seeds 1 --first-seed 3 --seconds 30 --voters 3 --observers 1 --unsafe vote-ignores-log --trace/);
  assert.match(r.out, /0 passed, 1 failed/);
});

test('invalid input exits 2 with a message naming the problem', () => {
  const cases = [
    [['frob'], /unknown command 'frob'/],
    [['sweep', '--seconds', '30'], /sweep needs --seeds N/],
    [['sweep', '--seeds', '2'], /sweep needs --seconds S/],
    [['sweep', '--seeds', 'two', '--seconds', '30'], /--seeds takes a whole number, got 'two'/],
    [['sweep', '--seeds', '1', '--seconds', '5'], /--seconds: must be between 20 and 86400 s, got 5/],
    [['sweep', '--seeds', '1', '--seconds', '30', '--voters', '9'], /--voters: must be between 1 and 7, got 9/],
    [['sweep', '--seeds', '1', '--seconds', '30', '--unsafe', 'yolo'], /unknown safety switch 'yolo'; known switches: hw-before-own-epoch/],
    [['sweep', '--seeds', '1', '--seconds', '30', '--frob'], /--frob/],
    [['run'], /run takes one scenario file, got none/],
    [['run', 'a.json', 'b.json'], /run takes one scenario file/],
    [['run', '/nonexistent/x.json'], /cannot read \/nonexistent\/x\.json: no such file/],
    [['run', 'x.json', '--format', 'xml'], /--format must be text or json, got 'xml'/],
    [['run', 'x.json', '--seed', '-3'], /--seed|-3/],
    [['run', 'x.json', '--unsafe', 'nope'], /unknown safety switch 'nope'/],
  ];
  for (const [args, re] of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, re, args.join(' '));
  }
});
