#!/usr/bin/env bash
# Brings a machine (Rust via rustup, Node >= 20 with npm, gcc, Python, root or
# sudo, Debian packages reachable) to a working cordon build. Idempotent: each
# step checks before it acts. Fails with a message naming what is missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"

fail() { echo "cordon setup: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

have cargo || fail "cargo not found: install Rust with rustup (https://rustup.rs)"
have rustup || fail "rustup not found: the wasm32-wasip1 target is added with rustup"
have node || fail "node not found: install Node.js 20 or later"
have npm || fail "npm not found: install npm with Node.js"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "Node.js $node_major is too old: cordon needs Node.js 20 or later"

if ! rustup target list --installed | grep -qx wasm32-wasip1; then
  echo "cordon setup: adding the wasm32-wasip1 Rust target"
  rustup target add wasm32-wasip1 || fail "rustup could not add the wasm32-wasip1 target"
fi

# clang-19 compiles QuickJS for wasm; wasi-libc provides its headers; the
# REPL's test drives `cordon repl` in a real terminal with tmux.
need_pkgs=()
have clang-19 || need_pkgs+=(clang-19)
have llvm-ar-19 || need_pkgs+=(llvm-19)
[ -f /usr/include/wasm32-wasi/stdlib.h ] || need_pkgs+=(wasi-libc)
have tmux || need_pkgs+=(tmux)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  have apt-get || fail "missing ${need_pkgs[*]} and no apt-get to install them"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    have sudo || fail "missing ${need_pkgs[*]}: run as root or install sudo"
    sudo="sudo"
  fi
  echo "cordon setup: installing ${need_pkgs[*]}"
  $sudo apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_pkgs[@]}" >/dev/null \
    || fail "apt-get could not install ${need_pkgs[*]}"
fi
have clang-19 || fail "clang-19 is still missing after install"
have llvm-ar-19 || fail "llvm-ar-19 is still missing after install"
[ -f /usr/include/wasm32-wasi/stdlib.h ] || fail "WASI headers missing in /usr/include/wasm32-wasi (package wasi-libc)"
have tmux || fail "tmux is still missing after install"

# clang looks for headers of the wasm32-wasip1 triple; Debian ships them as wasm32-wasi.
mkdir -p "$CORDON_WASI_SYSROOT/include"
if [ ! -e "$CORDON_WASI_SYSROOT/include/wasm32-wasip1" ]; then
  ln -sfn /usr/include/wasm32-wasi "$CORDON_WASI_SYSROOT/include/wasm32-wasip1"
fi

cd "$CORDON_ROOT"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "cordon setup: installing npm dev dependencies"
  # `npm ci` of npm 11 rejects this lock file over optional platform packages
  # of @napi-rs/cli's dependencies; `npm install` honours the locked versions.
  npm install --no-audit --no-fund --loglevel=error || fail "npm install failed"
fi
echo "cordon setup: ok"
