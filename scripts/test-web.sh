#!/usr/bin/env bash
# The npm package's tests (node's test runner): the API, error cases, determinism,
# links, the Player, the CLI, native-vs-wasm digests and the packed-package install.
# Builds the wasm and the package first unless their stamps say they are up to date
# (scripts/build.mjs --through package: about a second of hashing when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

node scripts/build.mjs --through package
node --test web/test/
