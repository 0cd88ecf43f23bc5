# Environment for building the wasm32-wasip1 guest with Debian's clang-19 and
# wasi-libc headers. Sourced by scripts/setup.sh and scripts/build.sh.
CORDON_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CORDON_ROOT
export CORDON_WASI_SYSROOT="$CORDON_ROOT/target/wasi-sysroot"
# rquickjs-sys downloads wasi-sdk unless told not to: never fetch at build time.
export RQUICKJS_SYS_NO_WASI_SDK=1
export CC_wasm32_wasip1=clang-19
export AR_wasm32_wasip1=llvm-ar-19
export CFLAGS_wasm32_wasip1="--sysroot=$CORDON_WASI_SYSROOT"
export BINDGEN_EXTRA_CLANG_ARGS_wasm32_wasip1="--sysroot=$CORDON_WASI_SYSROOT"
# The host triple every host build uses, so napi, tests and benches share one
# build of wasmtime.
CORDON_HOST_TARGET="$(rustc -vV | sed -n 's/^host: //p')"
export CORDON_HOST_TARGET
# A 4 MiB shadow stack for QuickJS; the stack sits first in linear memory, so
# overflowing it traps instead of corrupting data.
export CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C link-arg=-zstack-size=4194304 -C link-arg=--export=__stack_pointer"
