#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over the project's C++ source files and fails
# on any finding (.clang-tidy sets WarningsAsErrors: '*'). The compile commands come from build/tidy,
# only configured, never built: configured with clang, benchmarks and fuzz targets on, test unity
# builds off, so that every .cc is in it. Arguments are path regexes choosing the files; the default
# is every .cc except the *_test.cc files (scripts/test.sh runs that): the rooms, bench/, the test
# support library and the fuzz targets. `scripts/tidy.sh tests/` checks the tests as well (~11 more
# minutes on 2 cores); docs/testing.md says why scripts/test.sh leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}

cmake -S . -B build/tidy -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DBLOOMCRAWL_BENCH=ON -DBLOOMCRAWL_FUZZ=ON -DBLOOMCRAWL_TEST_UNITY=OFF >/dev/null
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("^$root/(base|seenfilter|frontier|records|config|crawler|tests|bench)/.*(?<!_test)\\.cc\$")
# Files whose exact input (text, preprocessed includes, flags, .clang-tidy) was found clean before on
# this machine are skipped (scripts/tidy_cached.py). run-clang-tidy-14 always asks for colour; the log
# is read as text.
python3 scripts/tidy_cached.py build/tidy "$jobs" "${files[@]}" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'
