#!/usr/bin/env bash
# Builds everything from source: the guest (wasm32-wasip1), the native addon
# that embeds it, and the TypeScript API. Run scripts/setup.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
[ -d node_modules ] || { echo "cordon: run scripts/setup.sh first (node_modules missing)" >&2; exit 1; }
bash scripts/build-guest.sh
npx napi build --platform --release --target "$CORDON_HOST_TARGET" \
  --manifest-path crates/node/Cargo.toml --output-dir . --no-js --dts native.d.ts
npx tsc -p tsconfig.json
