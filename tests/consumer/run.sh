#!/usr/bin/env bash
# Installs tcnum into a temporary prefix, then builds and runs tests/consumer against it:
# checks that find_package(tcnum [COMPONENTS ...]) works for a downstream project, that the core
# target brings neither MPFR, GMP nor Eigen onto the link line, and that asking for a component
# that was not installed fails; builds examples/kernel_test against the package and checks that
# its planted difference is reported.
# Usage: tests/consumer/run.sh [existing tcnum build dir]   (default: a fresh library-only build)
# Exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/tcnum-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT
command -v ninja >/dev/null || { echo "consumer: needs ninja (ninja-build)" >&2; exit 2; }

build="${1:-}"
if [[ -z "$build" ]]; then
  build="$work/build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTCNUM_CUDA=OFF \
    -DTCNUM_BUILD_TESTS=OFF -DTCNUM_BUILD_TOOLS=OFF -DTCNUM_BUILD_BENCHMARKS=OFF
  cmake --build "$build" --target tcnum_core tcnum_reference tcnum_characterize
fi
cmake --install "$build" --prefix "$work/prefix"

cmake -S "$here" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/consumer"
"$work/consumer/app"
if [[ -x "$work/consumer/app_reference" ]]; then "$work/consumer/app_reference"; fi
if [[ -x "$work/consumer/app_probes" ]]; then "$work/consumer/app_probes"; fi

# The core's link line (shown in the log): tcnum and zlib, nothing of the optional layers.
link=$(ninja -C "$work/consumer" -t commands app | tail -n 1)
echo "consumer: app links: ${link#*-o app }"
if grep -Eiq 'mpfr|gmp|eigen' <<<"$link"; then
  echo "consumer: tcnum::tcnum's link line names an optional dependency: $link" >&2
  exit 1
fi

# A component that is not there, asked for as REQUIRED, must fail the configure.
mkdir -p "$work/missing"
cat >"$work/missing/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(tcnum_missing LANGUAGES CXX)
find_package(tcnum REQUIRED COMPONENTS no_such_component)
CMAKE
if cmake -S "$work/missing" -B "$work/missing/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null 2>&1; then
  echo "consumer: find_package(tcnum COMPONENTS no_such_component) did not fail" >&2
  exit 1
fi

# The kernel-test example as a user copies it (examples/kernel_test): it builds against the
# installed package, and its stand-in kernel's planted bit flip fails the test with the report.
cmake -S "$root/examples/kernel_test" -B "$work/kernel_test" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/kernel_test"
if "$work/kernel_test/kernel_test" >"$work/kernel_test.log" 2>&1; then
  cat "$work/kernel_test.log"
  echo "consumer: examples/kernel_test passed, but its planted difference must fail it" >&2
  exit 1
fi
cat "$work/kernel_test.log"
for expected in "1 of 16384 elements differ (bit-exact)" "(17, 42)" "max ULP distance 1"; do
  grep -qF "$expected" "$work/kernel_test.log" || { echo "consumer: kernel_test's report lacks '$expected'" >&2; exit 1; }
done
echo "consumer: OK"
