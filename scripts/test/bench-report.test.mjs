// docs/benchmarks.md as scripts/bench-report.mjs renders it from a bench.json (a small
// fixture: a reported row, a skipped one, a met target and a missed one).
//   node --test scripts/test/
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { hostLine, measuredOn, renderBenchmarks, renderTable, writeBenchmarks } from '../bench-report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, 'fixtures/bench.json');
const results = JSON.parse(readFileSync(fixture, 'utf8'));

test('the page names the date, the host, the commit and how many targets were met', () => {
  const page = renderBenchmarks(results);
  assert.match(page, /^# Benchmarks\n/);
  assert.match(page, /Do not edit/);
  assert.match(page, /\*\*Measured:\*\* 2026-01-02 03:04 UTC\n/);
  assert.match(page, /\*\*Host:\*\* Example CPU @ 2\.0GHz, 2 cores; 7\.8 GiB; Linux 6\.1 x64; Node v20\.20\.2\n/);
  assert.match(page, /\*\*Commit:\*\* `0123456789ab`/);
  assert.match(page, /\*\*Targets:\*\* 1 of 2 met; not met: first frame, 10 Mbps \/ 40 ms RTT, throttled Chromium; 1 row skipped\n/);
  assert.doesNotMatch(page, /^> /m, 'no provenance note for a bench run');
});

test('every row is in the table with its value, unit, target and verdict', () => {
  const lines = renderBenchmarks(results).split('\n');
  const rows = lines.filter((l) => l.startsWith('| ') && !l.startsWith('| measurement') && !l.startsWith('| ---'));
  assert.deepEqual(rows, [
    '| wasm throughput, reference workload (sim s per wall s) | 1711 sim s/s | reported |  | 5 voters + 2 observers |',
    '| RaftScope ratio (ours in wasm / RaftScope model) | - | >= 6 x | skipped | skipped: set RAFTSCOPE=DIR |',
    '| scrub step, busy hour: worst | 24 ms | <= 40 ms | met | wall \\| CPU 20 ms |',
    '| first frame, 10 Mbps / 40 ms RTT, throttled Chromium | 499 ms | <= 450 ms | **not met** | median of 11 cold loads (466-549) |',
  ]);
});

test('a carried-over source and notes are shown', () => {
  const page = renderBenchmarks({ ...results, source: 'Carried over from README.md', notes: ['First note.', 'Second | note.'] });
  assert.match(page, /^> \*\*Carried over from README\.md\*\*$/m);
  assert.match(page, /## Notes\n\nFirst note\.\n\nSecond \| note\.\n/);
});

test('a bench.json without rows, a host or a date is refused', () => {
  assert.throws(() => renderBenchmarks({ ...results, rows: undefined }), /no rows/);
  assert.throws(() => renderBenchmarks({ ...results, host: undefined }), /no host/);
  assert.throws(() => renderBenchmarks({ ...results, date: 'yesterday' }), /not a date/);
});

test('the console table has the same verdicts', () => {
  const table = renderTable(results.rows).split('\n');
  assert.equal(table.length, 2 + results.rows.length);
  assert.match(table[3], /\| skipped \|/);
  assert.match(table[4], /24 ms +\| <= 40 ms +\| met/);
  assert.match(table[5], /\| NOT MET \|/);
});

test('the command writes the page from a bench.json', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'kp-bench-report-')), 'docs', 'benchmarks.md');
  execFileSync(process.execPath, [join(here, '..', 'bench-report.mjs'), fixture, out], { stdio: 'pipe' });
  assert.equal(readFileSync(out, 'utf8'), renderBenchmarks(results));
  assert.equal(writeBenchmarks(fixture, out), readFileSync(out, 'utf8'));
});

test('this host and commit, as bench.mjs records them, render', () => {
  const { host, commit } = measuredOn();
  assert.ok(host.cpu.length > 0 && host.cores >= 1, JSON.stringify(host));
  assert.match(hostLine(host), new RegExp(`, ${host.cores} cores?; `));
  assert.ok(commit === null || /^[0-9a-f]{12}/.test(commit), commit);
  assert.match(renderBenchmarks({ ...results, host, commit }), /\*\*Host:\*\* /);
});
