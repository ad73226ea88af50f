#!/usr/bin/env bash
# Runs clang-tidy 14 with the repository's .clang-tidy over every C++ source file of the project
# (the rooms, tests/ with the fuzz targets, bench/) and fails on any finding (.clang-tidy sets
# WarningsAsErrors: '*'). The compile commands come from build/tidy, only configured, never built:
# configured with clang, benchmarks and fuzz targets on, so that every .cc is in it. Arguments are
# extra path regexes narrowing the files (default: all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}

cmake -S . -B build/tidy -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DBLOOMCRAWL_BENCH=ON -DBLOOMCRAWL_FUZZ=ON >/dev/null
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("^$root/(base|seenfilter|frontier|config|crawler|tests|bench)/.*\\.cc\$")
# run-clang-tidy-14 always asks for colour; the log is read as text.
run-clang-tidy-14 -j "$jobs" -p build/tidy -quiet "${files[@]}" | sed -u 's/\x1b\[[0-9;]*m//g'
