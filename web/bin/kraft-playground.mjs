#!/usr/bin/env node
// kraft-playground: run KRaft scenarios and chaos sweeps from the command line, on the
// same WebAssembly core the browser uses.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import * as kp from '../dist/node.js';

const MAIN_HELP = `kraft-playground: Kafka's Raft (KRaft), simulated deterministically in WebAssembly

usage:
  kraft-playground run FILE.json [--seed N] [--variant NAME] [--format text|json] [--unsafe SWITCH]...
  kraft-playground sweep --seeds N --seconds S [--voters V] [--unsafe SWITCH]...
  kraft-playground --version

  run     runs a scenario file: prints the trace (one line per event) and a summary
          of its expectations and invariants
  sweep   runs seeded random fault schedules, checking every invariant after every
          event, and prints "N passed, M failed"

'kraft-playground COMMAND --help' tells more.
exit status: 0 all good, 1 an expectation failed or an invariant was violated, 2 invalid input`;

const RUN_HELP = `usage: kraft-playground run FILE.json [options]

Runs a scenario (see scenarios/README.md for the format) and prints its trace, one line
per event, then a summary: steps, expectations, measurements, invariant violations.

options:
  --seed N            use this seed instead of the scenario's
  --variant NAME      run one of the scenario's variants (e.g. its unsafe variant)
  --unsafe SWITCH     turn a safety rule off (repeatable); switches:
SWITCHES
  --format text|json  text (default): trace lines and the summary;
                      json: one object {report, events}
  --quiet             leave out the trace (text format)
  -h, --help          this help

exit status: 0 every expectation held and no unexpected invariant violation,
             1 otherwise, 2 invalid input (the message names the bad field)`;

const SWEEP_HELP = `usage: kraft-playground sweep --seeds N --seconds S [options]

Runs N seeded random fault schedules (crashes, restarts, partitions, one-way cuts, loss,
delay, slow disks, resignations, then a calm tail), every invariant checked after every
event; a seed fails on a violation or when the quorum makes no progress after healing.
Prints each failing seed with the command that reproduces it natively, then
"N passed, M failed", and the speed (simulated seconds per wall second) on stderr.

options:
  --seeds N           number of seeds (required)
  --seconds S         simulated seconds per seed, at least 20 (required)
  --voters V          voters, 1 to 7 (default 3)
  --observers O       observers, 0 to 8 (default 1)
  --first-seed K      first seed (default 1)
  --unsafe SWITCH     turn a safety rule off (repeatable); switches:
SWITCHES
  -h, --help          this help

exit status: 0 all seeds passed, 1 some failed, 2 invalid input`;

class UsageError extends Error {}

function switchList() {
  return kp
    .catalog()
    .switches.map((s) => `                        ${s.name}: ${s.explanation}`)
    .join('\n');
}

function wholeArg(v, flag, min, max) {
  if (!/^\d+$/.test(v ?? '')) throw new UsageError(`${flag} takes a whole number, got '${v}'`);
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be between ${min} and ${max}, got ${v}`);
  }
  return n;
}

/** One chaos seed; an option the core refuses is a usage error naming its flag. */
function runSeed(seed, opts) {
  try {
    return kp.runChaosSeedSync(seed, opts);
  } catch (e) {
    if (e instanceof RangeError && Object.hasOwn(opts, e.field)) throw new UsageError(`--${e.message}`);
    throw e;
  }
}

function switches(list) {
  const names = kp.catalog().switches.map((s) => s.name);
  for (const s of list ?? []) {
    if (!names.includes(s)) {
      throw new UsageError(`--unsafe: unknown safety switch '${s}'; known switches: ${names.join(', ')}`);
    }
  }
  return list ?? [];
}

function parse(args, options) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(e.message.replace(/^TypeError \[\w+\]: /, ''));
  }
}

async function run(args) {
  const { values, positionals } = parse(args, {
    seed: { type: 'string' },
    variant: { type: 'string' },
    unsafe: { type: 'string', multiple: true },
    format: { type: 'string' },
    quiet: { type: 'boolean' },
  });
  if (values.help) {
    console.log(RUN_HELP.replace('SWITCHES', switchList()));
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(`run takes one scenario file, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`);
  }
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got '${format}'`);
  const opts = { unsafe: switches(values.unsafe) };
  if (values.seed !== undefined) opts.seed = wholeArg(values.seed, '--seed', 0, Number.MAX_SAFE_INTEGER);
  if (values.variant !== undefined) opts.variant = values.variant;
  const file = positionals[0];
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  let run;
  try {
    run = kp.runScenarioSync(text, opts);
  } catch (e) {
    if (e instanceof kp.ScenarioError || e instanceof TypeError || e instanceof RangeError) {
      throw new UsageError(`${file}: ${e.message}`);
    }
    throw e;
  }
  const { report, summary, cluster } = run;
  try {
    // The trace is written page by page as the core makes it: a long run's trace is
    // far larger than one string may be, and each page continues where the last stopped.
    if (format === 'json') {
      await write(`{"report":${JSON.stringify(report)},"events":[`);
      let sep = '';
      for (const page of cluster.pages({ limit: 10_000, format: 'json' })) {
        await write(sep + page.slice(1, -1));
        sep = ',';
      }
      await write(']}\n');
    } else {
      if (!values.quiet) {
        for (const page of cluster.pages({ limit: 20_000, format: 'text' })) await write(page);
        await write('\n');
      }
      await write(summary.endsWith('\n') ? summary : `${summary}\n`);
    }
  } finally {
    cluster.dispose();
  }
  return report.passed ? 0 : 1;
}

/** Writes to stdout, waiting when the pipe is full. */
async function write(text) {
  if (!process.stdout.write(text)) await new Promise((r) => process.stdout.once('drain', r));
}

async function sweep(args) {
  const { values, positionals } = parse(args, {
    seeds: { type: 'string' },
    seconds: { type: 'string' },
    voters: { type: 'string' },
    observers: { type: 'string' },
    'first-seed': { type: 'string' },
    unsafe: { type: 'string', multiple: true },
  });
  if (values.help) {
    console.log(SWEEP_HELP.replace('SWITCHES', switchList()));
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`sweep takes no positional arguments, got '${positionals[0]}'`);
  if (values.seeds === undefined) throw new UsageError('sweep needs --seeds N');
  if (values.seconds === undefined) throw new UsageError('sweep needs --seconds S');
  const seeds = wholeArg(values.seeds, '--seeds', 1, 1_000_000);
  // The core checks the ranges (its error names the option, which becomes the flag).
  const opts = {
    seconds: wholeArg(values.seconds, '--seconds', 0, Number.MAX_SAFE_INTEGER),
    voters: values.voters === undefined ? 3 : wholeArg(values.voters, '--voters', 0, 0xffff_ffff),
    observers: values.observers === undefined ? 1 : wholeArg(values.observers, '--observers', 0, 0xffff_ffff),
    unsafe: switches(values.unsafe),
  };
  const first = values['first-seed'] === undefined ? 1 : wholeArg(values['first-seed'], '--first-seed', 0, Number.MAX_SAFE_INTEGER - seeds);
  const started = performance.now();
  let failed = 0;
  let events = 0;
  let simulatedMs = 0;
  for (let seed = first; seed < first + seeds; seed++) {
    const o = runSeed(seed, opts);
    events += o.events;
    simulatedMs += o.simulatedMs;
    if (!o.passed) {
      failed++;
      const why = o.violations.length > 0 ? `${o.violations.length} violation(s), first ${o.violations[0].invariant}: ${o.violations[0].detail}` : 'no progress in the calm tail after healing';
      console.log(`seed ${seed} FAILED: ${why}\n  reproduce: ${o.reproduce}`);
    }
  }
  const wall = (performance.now() - started) / 1000;
  console.error(
    `${seeds} seeds x ${opts.seconds} s in wasm: ${events} events in ${wall.toFixed(2)} s wall: ` +
      `${Math.round(events / wall)} events/s, ${Math.round(simulatedMs / 1000 / wall)} simulated s per wall s`,
  );
  console.log(`${seeds - failed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(MAIN_HELP);
    return cmd === undefined ? 2 : 0;
  }
  if (cmd === '--version' || cmd === '-v') {
    await kp.init();
    console.log(kp.catalog().version);
    return 0;
  }
  await kp.init();
  if (cmd === 'run') return run(rest);
  if (cmd === 'sweep') return sweep(rest);
  throw new UsageError(`unknown command '${cmd}'; commands: run, sweep (see --help)`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    if (e instanceof UsageError) {
      console.error(`kraft-playground: ${e.message}`);
      process.exitCode = 2;
    } else {
      console.error(e);
      process.exitCode = 3;
    }
  },
);
