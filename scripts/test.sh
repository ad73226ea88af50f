#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   0. static checks: the dependency rule between rooms (and its own test), the format, clang-tidy;
#   1. Release build with warnings as errors (gcc), all tests, the Python package's tests;
#   2. clang with ASan+UBSan, all tests, then every fuzz target for a short bounded time;
#   3. clang with TSan, the concurrent tests.
# Exits non-zero on the first failure. Meant for a 2-core machine in under 30 minutes; the time
# budget and what keeps the script inside it (unity-built test programs, tests' own code at -O1/-O0,
# clang-tidy without the *_test.cc files) are in docs/testing.md, "Time budget".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-10}
# Sanitizer builds at -O1: they find the same bugs and compile much faster than -O3.
sanitizer_flags=(-DCMAKE_C_FLAGS_RELEASE="-O1" -DCMAKE_CXX_FLAGS_RELEASE="-O1")

scripts/install-deps.sh
scripts/install-test-tools.sh

step() { printf '\n=== %s (%ss elapsed)\n' "$1" "$SECONDS"; }

# ccache (installed by install-deps.sh) keeps compiled objects across runs and clones: the paths it
# hashes are made relative to the clone, so a fresh clone of an unchanged file is a cache hit.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

configure_build() {  # dir, cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_WERROR=ON "${launcher[@]}" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

step "static checks: layers"
python3 scripts/check_layers.py
python3 tests/tooling/check_layers_test.py
python3 tests/tooling/install_deps_test.py
step "static checks: format (apply with scripts/format.sh)"
scripts/format.sh --check
step "static checks: clang-tidy"
mkdir -p build
JOBS=$jobs scripts/tidy.sh >build/tidy.log 2>&1 || { grep -E 'error:|warning:' build/tidy.log | sort -u; echo "clang-tidy found the above (log: build/tidy.log)"; exit 1; }

step "release build"
# Benchmarks are built (and -Werror checked) by their own bench/run_*.sh scripts.
# The tests' own code at -O1 (-O0 under the sanitizers): half the compile time, same library code.
configure_build build/release -DBLOOMCRAWL_BENCH=OFF -DBLOOMCRAWL_TEST_CXX_FLAGS=-O1
step "release tests"
ctest --test-dir build/release -j "$jobs" --output-on-failure
step "Python package: build, pytest (against the release build's programs)"
BLOOMCRAWL_BUILD_JOBS=$jobs python/test.sh build/release

step "ASan+UBSan build"
configure_build build/asan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${sanitizer_flags[@]}" \
  -DBLOOMCRAWL_SANITIZE=address,undefined -DBLOOMCRAWL_FUZZ=ON -DBLOOMCRAWL_BENCH=OFF -DBLOOMCRAWL_TEST_CXX_FLAGS=-O0
step "ASan+UBSan tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan -j "$jobs" --output-on-failure

step "fuzz targets (${fuzz_seconds}s each, $jobs at a time)"
run_fuzzer() {  # fuzzer binary
  local name corpus seeds=()
  name=$(basename "$1")
  corpus="build/asan/fuzz-corpus/$name"
  mkdir -p "$corpus"
  [ -d "tests/fuzz/corpus/$name" ] && seeds=("tests/fuzz/corpus/$name")
  echo "fuzz: $name"
  "$1" -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=0 "$corpus" "${seeds[@]}" 2>"build/asan/$name.log" \
    || { tail -50 "build/asan/$name.log"; echo "fuzz target $name failed"; return 1; }
}
export -f run_fuzzer
export fuzz_seconds
shopt -s nullglob
fuzzers=(build/asan/fuzz/*_fuzz)
[ ${#fuzzers[@]} -eq 0 ] || printf '%s\n' "${fuzzers[@]}" | xargs -P "$jobs" -I{} bash -c 'run_fuzzer "$1"' _ {} \
  || { echo "a fuzz target failed (above)"; exit 1; }

step "TSan build (concurrent tests)"
configure_build build/tsan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${sanitizer_flags[@]}" \
  -DBLOOMCRAWL_SANITIZE=thread -DBLOOMCRAWL_CONCURRENT_TESTS_ONLY=ON -DBLOOMCRAWL_BENCH=OFF \
  -DBLOOMCRAWL_TEST_CXX_FLAGS=-O0
step "TSan tests"  # TSAN_OPTIONS (halt_on_error, suppressions): tests/CMakeLists.txt
ctest --test-dir build/tsan -j "$jobs" --output-on-failure

step "all passed"
