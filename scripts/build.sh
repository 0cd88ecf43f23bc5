#!/usr/bin/env bash
# Builds everything from source: the guest (wasm32-wasip1), the native addon
# that embeds it (into npm/<platform>/, stripped), the guest compiled ahead
# of time beside it, and the TypeScript API. Run scripts/setup.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
[ -d node_modules ] || { echo "cordon: run scripts/setup.sh first (node_modules missing)" >&2; exit 1; }
bash scripts/build-guest.sh
bash scripts/build-native.sh "$CORDON_HOST_TARGET"
npx tsc -p tsconfig.json
node scripts/dual-types.mjs
