#!/usr/bin/env bash
# Browser tests: the built site (www/dist) served by scripts/serve.mjs, driven through
# Debian's Chromium with playwright-core. Installs chromium when missing; builds the
# site when it is not built yet.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then bash scripts/setup.sh browser; fi
if [ ! -f www/dist/index.html ] || [ ! -f www/dist/kraft_playground_bg.wasm.br ]; then node scripts/build.mjs; fi
node --test --test-concurrency=1 test/browser/
