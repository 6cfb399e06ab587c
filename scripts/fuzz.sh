#!/usr/bin/env bash
# `npm run fuzz [-- --seconds S --seed K]`: the seeded fuzzers for S seconds each
# (default 60): the Rust targets (scenario parser, link decoder, operation sequences; one
# thread each, see crate/scenario/examples/fuzz.rs), then share links through the npm package in
# node (web/test/link-fuzz.test.mjs). A finding prints the command that reproduces it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

seconds=60
seed=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    *) echo "usage: npm run fuzz [-- --seconds S --seed K]" >&2; exit 2 ;;
  esac
done

echo "==== fuzz (Rust): scenario parser, link decoder, operation sequences, $seconds s each"
cargo run --release -q -p kraft-scenario --example fuzz -- --seconds "$seconds" --seed "$seed"

echo "==== fuzz (node): share links, $seconds s"
node scripts/build.mjs --through package
KRAFT_FUZZ_SECONDS="$seconds" KRAFT_FUZZ_SEED="$seed" node --test web/test/link-fuzz.test.mjs
