#!/usr/bin/env bash
# `npm run soak [-- --seeds N --seconds S --first-seed K]`: the long seed sweep. For each
# of 3, 5 and 7 voters (with 1, 2 and 3 observers), N seeds (default 10,000) x S simulated
# seconds (default 120), each seed its own world (fault mix drawn from the seed), every
# invariant after every event and the liveness bound after the final heal. All cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

seeds=10000
seconds=120
first=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --first-seed) first="$2"; shift 2 ;;
    *) echo "usage: npm run soak [-- --seeds N --seconds S --first-seed K]" >&2; exit 2 ;;
  esac
done

cargo build --release -q -p kraft-sim --example sweep
started=$SECONDS
status=0
for size in "3 1" "5 2" "7 3"; do
  set -- $size
  echo "==== soak: $seeds seeds x $seconds s, $1 voters + $2 observers"
  cargo run --release -q -p kraft-sim --example sweep -- \
    --seeds "$seeds" --seconds "$seconds" --first-seed "$first" --voters "$1" --observers "$2" || status=1
done
echo "soak: $((3 * seeds)) seeds in $((SECONDS - started)) s wall, $([ $status = 0 ] && echo 'all passed' || echo 'FAILURES above')"
exit $status
