#!/usr/bin/env bash
# Builds the core for the web: cargo (wasm32, `wasm` profile) -> wasm-bindgen (the CLI
# pinned to the crate's exact wasm-bindgen version) -> wasm-opt -Oz. Output: web/pkg/.
# Prints the raw and gzip sizes of the final .wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { echo "build-wasm: $*" >&2; }

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' crate/Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "wasm-bindgen CLI $want missing (have '${have:-none}'); running scripts/setup.sh"
  bash scripts/setup.sh
fi

say "cargo build (wasm32-unknown-unknown, profile wasm)"
# Keep the target_features section for wasm-bindgen; wasm-opt strips afterwards.
CARGO_PROFILE_WASM_STRIP=false cargo build -q -p kraft-playground --target wasm32-unknown-unknown --profile wasm

out=web/pkg
rm -rf "$out"
say "wasm-bindgen --target web"
wasm-bindgen --target web --out-dir "$out" target/wasm32-unknown-unknown/wasm/kraft_playground.wasm
node scripts/wasm-factory.mjs "$out"

wasm="$out/kraft_playground_bg.wasm"
opt=node_modules/.bin/wasm-opt
if [ -x "$opt" ]; then
  say "wasm-opt -Oz"
  "$opt" -Oz --strip-debug --strip-producers --detect-features "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
else
  say "node_modules/.bin/wasm-opt not found (run npm ci); the wasm is not size-optimised"
fi

raw=$(wc -c < "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
say "$wasm: $raw bytes raw, $gz bytes gzip"
