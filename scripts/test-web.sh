#!/usr/bin/env bash
# The npm package's tests (node's test runner): the API, error cases, determinism,
# links, the Player, the CLI, native-vs-wasm digests and the packed-package install.
# Builds the wasm and the package first when they are missing or older than the sources.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

stale() {
  [ ! -f web/dist/node.js ] && return 0
  [ -n "$(find crate Cargo.toml web/src web/build.mjs -newer web/dist/node.js -print -quit)" ]
}
if stale; then
  echo "test-web: building the wasm and the package first" >&2
  bash scripts/build-wasm.sh
  node web/build.mjs
fi

node --test web/test/
