#!/usr/bin/env bash
# The package's types as a TypeScript user sees them: packs the main package
# (its .d.ts files, reached through package.json's `exports`; from
# $CORDON_PACKAGES when set, else packed here) and compiles
# __tests__/types/ under `tsc --strict` in one project per framework
# version under .cache/types/<project>, each installing its own packages:
#   bare:  cordon alone, no peer installed, skipLibCheck off  — bare/
#   ai5:   ai 5, @langchain/core 0.3             — common/, ai/, langchain/
#   ai6:   ai 6, @langchain/core 1, langchain 1, @langchain/langgraph 1,
#          @modelcontextprotocol/sdk             — common/, ai/, langchain/, langgraph/, mcp/
#   ai7:   ai 7                                  — common/, ai/, ai7/
# The files named readme-<n>-*.ts are the README's examples, verbatim
# (__tests__/readme.test.mjs holds the README to them); the others add the
# cases that must compile and, with @ts-expect-error, those that must not.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
base="$root/.cache/types"
mkdir -p "$base"
if [ -n "${CORDON_PACKAGES:-}" ]; then
  main="$(ls "$CORDON_PACKAGES"/cordon-[0-9]*.tgz)"
else
  [ -f dist/index.d.ts ] || { echo "dist/ is not built: npm run build:ts" >&2; exit 1; }
  node scripts/dual-types.mjs
  rm -rf "$base/packages"
  mkdir -p "$base/packages"
  npm pack --silent --pack-destination "$base/packages" > /dev/null
  main="$(ls "$base"/packages/cordon-[0-9]*.tgz)"
fi
tools=(typescript@5.9.3 @types/node@20.19.43)
zod=zod@4.6.7

# project <name> <skipLibCheck> <dirs> <packages...>
project() {
  local name="$1" skip="$2" dirs="$3"
  shift 3
  local dir="$base/$name"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || printf '{ "private": true, "type": "module" }\n' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --no-save "${tools[@]}" "$@" "$main")
  rm -rf "$dir/src"
  mkdir -p "$dir/src"
  cp "$root/__tests__/types/tsconfig.json" "$dir/tsconfig.json"
  for d in $dirs; do cp -r "$root/__tests__/types/$d" "$dir/src/$d"; done
  if (cd "$dir" && node_modules/.bin/tsc -p tsconfig.json --skipLibCheck "$skip"); then
    echo "types: $name ok"
  else
    echo "types: $name FAILED" >&2
    return 1
  fi
}

failed=0
project bare false "bare" || failed=1
project ai5 true "common ai langchain" ai@5.0.277 @langchain/core@0.3.80 "$zod" || failed=1
project ai6 true "common ai langchain langgraph mcp" ai@6.0.326 @langchain/core@1.4.0 langchain@1.5.14 @langchain/langgraph@1.7.3 \
  @modelcontextprotocol/sdk@1.32.2 "$zod" || failed=1
project ai7 true "common ai ai7" ai@7.0.173 "$zod" || failed=1
exit "$failed"
