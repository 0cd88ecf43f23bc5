#!/usr/bin/env bash
# The whole test suite: setup (idempotent), build from source, the generated
# types must match the committed ones, formatting and lints of host and
# guest, Rust tests, Node tests against the built package, the package's
# types against each framework version (scripts/test-types.sh), fuzzing, the
# packed packages in a fresh project, and a second target (Linux arm64 under
# qemu).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
source "$here/env.sh"
cd "$CORDON_ROOT"

start=$SECONDS
step() { printf '\n== %s (at %d s)\n' "$*" "$((SECONDS - start))"; }

step setup
bash scripts/setup.sh
step build
bash scripts/build.sh

step "generated types are committed"
if git rev-parse --git-dir >/dev/null 2>&1; then
  git diff --exit-code -- ':(glob)*.d.ts' \
    || { echo "a generated .d.ts file changed on rebuild: commit the regenerated files" >&2; exit 1; }
  untracked="$(git ls-files --others --exclude-standard -- ':(glob)*.d.ts')"
  [ -z "$untracked" ] || { echo "generated types are not committed: $untracked" >&2; exit 1; }
fi

step "third-party licences"
node scripts/licenses.mjs --check

# The arm64 build runs in the background from here on, at the lowest
# priority and in a target directory of its own (so it never waits for
# Cargo's lock on target/): it fills the cores the Rust tests' links and the
# fuzzers leave idle. It is stopped while the Node tests run, since their
# limits are measured in wall time, and continued after them.
step "a second target: Linux arm64, cross-built in the background"
mkdir -p .cache
CARGO_TARGET_DIR="$CORDON_ROOT/target/cross" setsid nice -n 19 \
  bash scripts/test-cross.sh build > .cache/cross-build.log 2>&1 &
cross=$!
# Its own session: the signals below reach cargo and every rustc under it.
trap 'kill -CONT -- "-$cross" 2>/dev/null || true; kill -- "-$cross" 2>/dev/null || true' EXIT

step "cargo fmt --check"
cargo fmt --all -- --check
step "clippy (host)"
cargo clippy --release --target "$CORDON_HOST_TARGET" --all-targets -- -D warnings
step "clippy (guest)"
cargo clippy -p cordon-guest --target wasm32-wasip1 --profile guest -- -D warnings

step "rust tests"
cargo test --release --target "$CORDON_HOST_TARGET"

step "node tests (the arm64 build stopped meanwhile)"
kill -STOP -- "-$cross" 2>/dev/null || true
node --test --test-concurrency=1 __tests__/
kill -CONT -- "-$cross" 2>/dev/null || true

step "types: the README's examples and the adapters under tsc --strict (AI SDK 5/6/7, LangChain 0.3/1, MCP, no peers)"
bash scripts/test-types.sh

step "fuzz (10 s per target)"
bash scripts/fuzz.sh 10

step "the packed packages in a fresh project: Node 20.0/20/22/24, Deno, Bun, esbuild, AI SDK 7"
bash scripts/test-consumer.sh

step "a second target: Linux arm64 under qemu"
wait "$cross" || { cat .cache/cross-build.log; echo "the arm64 build failed" >&2; exit 1; }
trap - EXIT
tail -n 20 .cache/cross-build.log
bash scripts/test-cross.sh test
step "done"
