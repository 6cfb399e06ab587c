#!/usr/bin/env bash
# `npm test`: everything, in order. Installs what it needs first (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

step() { echo; echo "==== $*"; }

step "setup"
bash scripts/setup.sh browser

step "TypeScript and JavaScript: format and lint (Biome, biome.jsonc) over web/, www/, scripts/, test/"
node_modules/.bin/biome ci web www scripts test

step "Scripts: the build's input hashes and stamps, the bench report (node:test, scripts/test/)"
node --test scripts/test/

step "Rust: format (rustfmt.toml), clippy natively and for wasm32 (every warning an error), the declared rust-version, no import circles"
cargo fmt --all --check
cargo clippy -q --workspace --all-targets -- -D warnings
cargo clippy -q --workspace --all-targets --target wasm32-unknown-unknown -- -D warnings
node scripts/check-msrv.mjs
node scripts/check-cycles.mjs

step "Rust: unit, protocol-rule, Kafka-simulation, determinism, sweep and scenario tests"
cargo test --release --workspace

step "Seed sweep (a slice of npm run soak): 150 seeds x 120 s each for 3, 5 and 7 voters, every invariant, liveness"
bash scripts/soak.sh --seeds 150 --seconds 120

step "Fuzz (a slice of npm run fuzz): scenario parser, link decoder, operation sequences, 3 s each"
cargo run --release -q -p kraft-scenario --example fuzz -- --seconds 3

step "Build: wasm, npm package, site"
node scripts/build.mjs

step "npm package: API, CLI, native-vs-wasm digests, packed install"
bash scripts/test-web.sh

step "Browser: the site and the element in Chromium"
bash scripts/test-browser.sh
