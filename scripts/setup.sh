#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently; quick when all is there.
#   scripts/setup.sh          Rust wasm target, pinned wasm-bindgen CLI, npm packages (esbuild,
#                             TypeScript, Biome, binaryen, playwright-core: package-lock.json)
#   scripts/setup.sh browser  ... and Debian's chromium for the browser tests
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*" >&2; }

# The wasm-bindgen CLI must match the wasm-bindgen crate exactly.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' crate/wasm/Cargo.toml)
[ -n "$WASM_BINDGEN_VERSION" ] || { say "cannot read the pinned wasm-bindgen version from crate/wasm/Cargo.toml"; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >&2
fi

export PATH="$HOME/.cargo/bin:$PATH"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force >&2
fi

# npm packages: reinstall only when the lock file changed since the last install.
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund >&2
fi

if [ "${1:-}" = "browser" ] && [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >&2
fi
