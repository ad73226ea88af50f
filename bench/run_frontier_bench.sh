#!/usr/bin/env bash
# Frontier memory and throughput (issue: the crawl engine, "bytes per queued URL"): 10M URLs over
# 1M hosts against a naive map<host, deque<string>> in the same run. Writes bench/results/frontier.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh time
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target frontier_bench
urls=${1:-10000000}
hosts=${2:-1000000}
out=$(build/release/bench/frontier_bench "$urls" "$hosts")
{
  echo "# Frontier"
  echo
  bench/machine.sh
  echo
  echo "Command: \`bench/run_frontier_bench.sh $urls $hosts\` ($urls queued URLs over $hosts hosts)."
  echo
  echo '```'
  echo "$out" | grep -v '^|'
  echo '```'
  echo
  echo "$out" | grep '^|'
} >bench/results/frontier.md
cat bench/results/frontier.md
