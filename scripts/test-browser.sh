#!/usr/bin/env bash
# Browser tests: the built site (www/dist) served by scripts/serve.mjs, driven through
# Debian's Chromium with playwright-core. Installs chromium when missing; builds what is
# stale first (scripts/build.mjs skips the steps whose stamps match: about a second).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then bash scripts/setup.sh browser; fi
node scripts/build.mjs
node --test --test-concurrency=1 test/browser/
