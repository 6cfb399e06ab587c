#!/usr/bin/env node
// docs/benchmarks.md from target/bench.json: `npm run bench` (scripts/bench.mjs) writes
// both, so no figure there is edited by hand. Also the console table bench.mjs prints.
//   node scripts/bench-report.mjs [IN.json [OUT.md]]   (default target/bench.json -> docs/benchmarks.md)
//
// bench.json: { date (ISO), host: { cpu, cores, os?, node?, memoryGiB? }, commit?,
//   rows: [{ what, value (null: skipped), unit, target ('reported' or '<= 20' etc.),
//            met (true, false, null: reported or skipped), note }],
//   source? (where the numbers come from, when not from a bench run), notes? [paragraphs] }
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, release, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The host the numbers are measured on and the commit they are measured at: { host, commit }. */
export function measuredOn(dir = root) {
  const host = {
    cpu: cpus()[0]?.model?.trim() || 'unknown CPU',
    cores: availableParallelism(),
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    os: `${type()} ${release()} ${arch()}`,
    node: process.version,
  };
  let commit = null;
  try {
    const git = (...args) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git('rev-parse', '--short=12', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : '');
  } catch {
    // not a git checkout
  }
  return { host, commit };
}

/** A row's value, target and verdict as shown in both the console table and the page. */
export function cells(r) {
  return {
    value: r.value === null || r.value === undefined ? '-' : `${r.value} ${r.unit}`,
    target: r.target === 'reported' ? 'reported' : `${r.target} ${r.unit}`,
    verdict: r.met === null || r.met === undefined ? (r.value === null || r.value === undefined ? 'skipped' : '') : r.met ? 'met' : 'NOT MET',
  };
}

/** The plain-text table bench.mjs prints. */
export function renderTable(rows) {
  const body = rows.map((r) => {
    const c = cells(r);
    return [r.what, c.value, c.target, c.verdict, r.note ?? ''];
  });
  const head = ['measurement', 'value', 'target', '', 'notes'];
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((c) => String(c[i]).length)));
  const line = (c) =>
    c
      .map((x, i) => String(x).padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

/** `2026-12-03 06:26 UTC` from an ISO date. */
export function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new Error(`bench-report: date ${JSON.stringify(iso)} is not a date`);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const md = (s) =>
  String(s ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');

export function hostLine(host) {
  if (!host?.cpu) throw new Error('bench-report: bench.json has no host.cpu');
  const parts = [`${host.cpu}, ${host.cores} core${host.cores === 1 ? '' : 's'}`];
  if (host.memoryGiB) parts.push(`${host.memoryGiB} GiB`);
  if (host.os) parts.push(host.os);
  if (host.node) parts.push(`Node ${host.node}`);
  return parts.join('; ');
}

/** docs/benchmarks.md for one bench.json. */
export function renderBenchmarks(results) {
  if (!Array.isArray(results?.rows)) throw new Error('bench-report: bench.json has no rows');
  const judged = results.rows.filter((r) => r.met === true || r.met === false);
  const missed = judged.filter((r) => r.met === false);
  const out = [];
  out.push('# Benchmarks');
  out.push('');
  out.push('<!-- Written by scripts/bench-report.mjs from target/bench.json (npm run bench). Do not edit: rerun the bench. -->');
  out.push('');
  out.push('Every number the performance targets (issue 11) set a bound for, each beside its target, plus a few reported for context.');
  out.push('Speed is measured by `npm run bench`, never asserted in tests; the numbers depend on the host, and on a shared host on the hour.');
  out.push('');
  if (results.source) {
    out.push(`> **${md(results.source)}**`);
    out.push('');
  }
  out.push(`- **Measured:** ${when(results.date)}`);
  out.push(`- **Host:** ${md(hostLine(results.host))}`);
  if (results.commit) out.push(`- **Commit:** \`${md(results.commit)}\``);
  const skipped = results.rows.filter((r) => r.value === null || r.value === undefined).length;
  out.push(
    `- **Targets:** ${judged.length - missed.length} of ${judged.length} met` +
      (missed.length ? `; not met: ${missed.map((r) => md(r.what)).join('; ')}` : '') +
      (skipped ? `; ${skipped} row${skipped === 1 ? '' : 's'} skipped` : ''),
  );
  out.push('');
  out.push('| measurement | value | target | | notes |');
  out.push('| --- | ---: | ---: | --- | --- |');
  for (const r of results.rows) {
    const c = cells(r);
    const verdict = c.verdict === 'NOT MET' ? '**not met**' : c.verdict;
    out.push(`| ${md(r.what)} | ${md(c.value)} | ${md(c.target)} | ${verdict} | ${md(r.note)} |`);
  }
  if (Array.isArray(results.notes) && results.notes.length) {
    out.push('');
    out.push('## Notes');
    for (const n of results.notes) {
      out.push('');
      out.push(String(n).trim());
    }
  }
  out.push('');
  out.push('## Running it');
  out.push('');
  out.push('```sh');
  out.push('npm run bench                      # this page and target/bench.json');
  out.push('RAFTSCOPE=DIR npm run bench        # with the ratio to RaftScope (DIR: a checkout of ongardie/raftscope)');
  out.push('npm run bench -- --details         # first the older detailed benches: native core, memory cases, sweep speed, linear paths, sizes');
  out.push('node scripts/bench-report.mjs      # this page again from target/bench.json');
  out.push('```');
  out.push('');
  out.push("`node scripts/bench-load.mjs --phases` shows where a cold load's time goes (when the element's module and the wasm arrive, when the");
  out.push('compile resolves, when the element is ready, the long tasks, and the CPU of each Chromium process), and `--profile` the main');
  out.push("thread's CPU profile until the first frame, by function (build with `KP_KEEP_NAMES=1` for the source's names).");
  out.push('');
  return out.join('\n');
}

/** Reads a bench.json and writes its page; returns the page. */
export function writeBenchmarks(input = join(root, 'target/bench.json'), output = join(root, 'docs/benchmarks.md')) {
  const page = renderBenchmarks(JSON.parse(readFileSync(input, 'utf8')));
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, page);
  return page;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [input, output] = process.argv.slice(2);
  writeBenchmarks(input && resolve(input), output && resolve(output));
  console.log(`bench-report: wrote ${output ?? 'docs/benchmarks.md'}`);
}
