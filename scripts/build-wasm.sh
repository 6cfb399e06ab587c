#!/usr/bin/env bash
# Builds the two wasms for the web: cargo (wasm32, `wasm` profile) -> wasm-bindgen (the
# CLI pinned to the crate's exact wasm-bindgen version; without its multi-value ABI) ->
# wasm-opt -O3 --converge. Output: web/pkg/:
# kraft_playground* (the core, without the `scenarios` feature) and kraft_playground_full*
# (with the scenario engine and the chaos sweep). Prints the raw and gzip sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { echo "build-wasm: $*" >&2; }

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' crate/wasm/Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "wasm-bindgen CLI $want missing (have '${have:-none}'); running scripts/setup.sh"
  bash scripts/setup.sh
fi

out=web/pkg
rm -rf "$out"
mkdir -p "$out"
opt=node_modules/.bin/wasm-opt
[ -x "$opt" ] || say "node_modules/.bin/wasm-opt not found (run npm ci); the wasm is not size-optimised"

# The wasm target's rustflags live in .cargo/config.toml; a RUSTFLAGS in the environment
# would replace them (cargo takes one or the other), so they are added to it.
if [ -n "${RUSTFLAGS+set}" ]; then
  config_flags=$(sed -n 's/^rustflags = \[\(.*\)\]/\1/p' .cargo/config.toml | tr -d '",')
  say "RUSTFLAGS is set: adding the wasm target's flags from .cargo/config.toml ($config_flags)"
  export RUSTFLAGS="$RUSTFLAGS $config_flags"
fi

# build NAME CARGO_FLAGS...: cargo -> wasm-bindgen -> factory glue -> wasm-opt, as $out/NAME*.
build() {
  local name=$1
  shift
  say "cargo build $name (wasm32-unknown-unknown, profile wasm $*)"
  # Keep the target_features section for wasm-bindgen; wasm-opt strips afterwards.
  CARGO_PROFILE_WASM_STRIP=false cargo build -q -p kraft-wasm --target wasm32-unknown-unknown --profile wasm "$@"
  # wasm-bindgen's return-pointer ABI, not its multi-value one (see the script: Node init)
  local linked="$out/${name}_linked.wasm"
  cp target/wasm32-unknown-unknown/wasm/kraft_wasm.wasm "$linked"
  node scripts/wasm-no-multivalue.mjs "$linked"
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$linked"
  rm "$linked"
  node scripts/wasm-factory.mjs "$out" "$name"
  local wasm="$out/${name}_bg.wasm"
  if [ -x "$opt" ]; then
    # -O3, not -Oz: as small after gzip (the core 162.2 vs 162.3 KB) and 1-3% faster on the
    # reference workload (interleaved CPU-time runs): -Oz inlined fewer small functions.
    # --low-memory-unused lets wasm-opt fold `p + C` (C < 1 KB) into a load's or store's
    # offset, which differs only where p + C wraps past 4 GiB to the first KB of memory: no
    # Rust pointer is that close to 4 GiB, so only a stack already overflowed (below 0)
    # gets there, and then it traps instead of writing the first KB (0.7 KB gzip less).
    # --strip-target-features: no engine reads that section, only wasm-bindgen did above.
    "$opt" -O3 --converge --low-memory-unused --strip-debug --strip-producers --strip-target-features \
      --detect-features "$wasm" -o "$wasm.opt"
    mv "$wasm.opt" "$wasm"
  fi
  say "$wasm: $(wc -c < "$wasm") bytes raw, $(gzip -9 -c "$wasm" | wc -c) bytes gzip"
}

# The core: what the page loads (free play, links, precomputed stories).
build kraft_playground --no-default-features
# The full engine: the core plus the scenario engine and the chaos sweep, loaded on demand.
build kraft_playground_full
