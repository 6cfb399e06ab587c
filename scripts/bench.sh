#!/usr/bin/env bash
# `npm run bench`: speed and memory, never as pass/fail tests. Prints one table of issue
# 11's numbers beside their targets (scripts/bench.mjs) and writes them to target/bench.json
# and docs/benchmarks.md (scripts/bench-report.mjs: the page is never edited by hand).
#   npm run bench [-- --raftscope DIR]   (or RAFTSCOPE=DIR: a checkout of ongardie/raftscope
#                                          for the ratio row; skipped without one)
#   npm run bench -- --details           first also the older detailed benches: the core
#                                          natively, memory cases, sweep native vs wasm,
#                                          the linear paths, sizes, UI frames at 10x
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh browser
node scripts/build.mjs
cargo build --release -q -p kraft-sim --example reference

details=0
args=()
for a in "$@"; do
  if [ "$a" = "--details" ]; then details=1; else args+=("$a"); fi
done

if [ "$details" = 1 ]; then
  echo "==== core (native)"
  cargo bench -q -p kraft-sim --bench core

  echo "==== peak memory: an hour with a crash a minute, 40 topics of 10,000 partitions, no snapshots at 1,000 writes/s"
  cargo bench -q -p kraft-sim --bench memory
  node scripts/bench-memory.mjs

  echo "==== sweep workload, 40 seeds x 60 s, one thread: native vs wasm"
  cargo run --release -q -p kraft-sim --example sweep -- --seeds 40 --seconds 60 --jobs 1 2>&1 | grep -E "simulated s per wall s|passed"
  node web/bin/kraft-playground.mjs sweep --seeds 40 --seconds 60 2>&1 | grep -E "per wall|passed"

  echo "==== linear paths: captions, a page of old events, the CLI printing long traces"
  node scripts/bench-trace.mjs

  echo "==== sizes"
  for f in www/dist/*.wasm www/dist/*.js www/dist/*.css; do
    printf '%-40s %8d B raw %8d B gzip\n' "$f" "$(wc -c < "$f")" "$(gzip -9c "$f" | wc -c)"
  done

  echo "==== UI frame times (Chromium)"
  node scripts/bench-ui.mjs --voters 7 --observers 0
  echo
fi

node scripts/bench.mjs ${args[@]+"${args[@]}"}
