#!/usr/bin/env bash
# Builds the native addon for one Rust target (default: this machine's) into
# npm/<platform>/, strips it, and compiles the guest ahead of time beside it
# (scripts/precompile.mjs). For another target, set the linker the way Cargo
# reads it (CARGO_TARGET_<TRIPLE>_LINKER) and give PRECOMPILE_NODE a command
# that runs that target's Node (for example under qemu), since the addon
# compiles the guest for its own architecture.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
target="${1:-$CORDON_HOST_TARGET}"
name="$(node --input-type=module -e "import { platformOf } from './scripts/platforms.mjs'; console.log(platformOf('$target').name)")"
out="npm/$name"
mkdir -p "$out"
# Until precompile writes new summaries, the directory is not a complete
# build: the tests and the packer skip it.
rm -f "$out"/*.sum
npx napi build --platform --release --target "$target" \
  --manifest-path crates/node/Cargo.toml --output-dir "$out" --no-js --dts ../../native.d.ts
# Symbols are for debugging, not loading: the dynamic symbol table stays.
strip_tool=strip
command -v llvm-strip-19 >/dev/null 2>&1 && strip_tool=llvm-strip-19
"$strip_tool" --strip-unneeded "$out/cordon.$name.node"
# shellcheck disable=SC2086
${PRECOMPILE_NODE:-node} scripts/precompile.mjs "$out/cordon.$name.node"
ls -l "$out"
