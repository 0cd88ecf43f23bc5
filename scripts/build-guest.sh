#!/usr/bin/env bash
# Builds the guest (guest/ -> wasm32-wasip1) from source. The runtime embeds
# the result; nothing built is committed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
[ -e "$CORDON_WASI_SYSROOT/include/wasm32-wasip1" ] || { echo "cordon: run scripts/setup.sh first (WASI sysroot missing)" >&2; exit 1; }
cd "$CORDON_ROOT"
cargo build -p cordon-guest --target wasm32-wasip1 --profile guest
ls -l target/wasm32-wasip1/guest/cordon_guest.wasm
