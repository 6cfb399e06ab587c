#!/usr/bin/env bash
# `npm test`: everything, in order. Installs what it needs first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

step() { echo; echo "==== $*"; }

step "setup"
bash scripts/setup.sh browser

step "Rust: unit, protocol-rule, Kafka-simulation, determinism, sweep and scenario tests"
cargo test --release --workspace

step "Seed sweep: 300 seeds x 60 s, every invariant after every event"
cargo run --release -q -p kraft-playground --example sweep -- --seeds 300 --seconds 60

step "Build: wasm, npm package, site"
node scripts/build.mjs

step "npm package: API, CLI, native-vs-wasm digests, packed install"
bash scripts/test-web.sh

step "Browser: the site and the element in Chromium"
bash scripts/test-browser.sh
