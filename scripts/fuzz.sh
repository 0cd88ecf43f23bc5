#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time (default 30 s each):
#   bash scripts/fuzz.sh [seconds] [target...]
# cargo fuzz needs nightly features; RUSTC_BOOTSTRAP enables them on the
# stable toolchain this machine has. Installs cargo-fuzz from crates.io when
# it is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT/fuzz"
seconds="${1:-30}"
shift || true
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
export RUSTC_BOOTSTRAP=1
mkdir -p target
for target in "${targets[@]}"; do
  echo "== fuzz $target for ${seconds}s"
  mkdir -p "corpus/$target"
  log="target/fuzz-$target.log"
  if ! cargo fuzz run --target "$CORDON_HOST_TARGET" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz target $target failed (artifacts in fuzz/artifacts/$target)" >&2
    exit 1
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" || true
done
