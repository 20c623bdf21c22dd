#!/usr/bin/env bash
# Installs tcnum into a temporary prefix, then builds and runs tests/consumer against it:
# checks that find_package(tcnum) + tcnum::tcnum work for a downstream project.
# Usage: tests/consumer/run.sh [existing tcnum build dir]   (default: a fresh library-only build)
# Exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/tcnum-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

build="${1:-}"
if [[ -z "$build" ]]; then
  build="$work/build"
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=OFF \
    -DTCNUM_BUILD_TESTS=OFF -DTCNUM_BUILD_TOOLS=OFF -DTCNUM_BUILD_BENCHMARKS=OFF
  cmake --build "$build" --target tcnum_core
fi
cmake --install "$build" --prefix "$work/prefix"

cmake -S "$here" -B "$work/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/consumer"
"$work/consumer/app"
echo "consumer: OK"
