#!/usr/bin/env bash
# The frontier at scale (issue 13): the disk frontier, today's in-RAM frontier and RocksDB alone,
# each in its own process (peak RSS is per mode), on the same N URLs (with parents) over H hosts.
# Usage: [RAM_URLS=M] bench/run_frontier_disk_bench.sh [N] [H] [DIR] [MEMORY_MB]. Writes
# bench/results/frontier-disk.md. RAM_URLS (default N): the in-RAM frontier's count, for N beyond
# what it can hold (100M would need ~14 GB): issue 13 compares 100M on disk with 10M in RAM.
set -euo pipefail
cd "$(dirname "$0")/.."
urls=${1:-10000000}
hosts=${2:-$((urls / 100))}
ram_urls=${RAM_URLS:-$urls}
dir=${3:-/work/tmp/frontier-disk-bench}
memory_mb=${4:-256}
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=ON >/dev/null
cmake --build build/release -j2 --target frontier_disk_bench
bin=build/release/bench/frontier_disk_bench
mkdir -p "$dir"
machine=$(bench/machine.sh)
ram=$($bin ram "$ram_urls" "$((hosts * ram_urls / urls))")
disk=$($bin disk "$urls" "$hosts" "$dir/disk" "$memory_mb")
floor=$($bin rocksdb "$urls" "$hosts" "$dir/floor" "$memory_mb")
rm -rf "$dir/disk" "$dir/floor"
value() { echo "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
{
  echo "# Frontier at scale: disk frontier (RocksDB) beside the in-RAM frontier"
  echo
  echo "$machine"
  echo "- Disk: $(df -h "$dir" | awk 'NR == 2 { print $1 ", " $2 " total" }')"
  echo
  echo "Command: \`RAM_URLS=$ram_urls bench/run_frontier_disk_bench.sh $urls $hosts $dir $memory_mb\` ($urls URLs of about"
  echo "$(value "$disk" raw_bytes_per_url) bytes, each with its parent as the crawler packs it, over $hosts hosts;"
  echo "RocksDB alone: its default options, no WAL, one put per URL, then a seek and the read of one URL per host"
  echo "round-robin;"
  echo "pop+complete of $((urls / 10)); disk frontier memory limit $memory_mb MB). The in-RAM frontier: $ram_urls URLs"
  echo "over $((hosts * ram_urls / urls)) hosts."
  echo
  echo "| measure | disk frontier | in-RAM frontier | RocksDB alone (floor) | target |"
  echo "|---|---|---|---|---|"
  echo "| peak RSS (MB) | $(value "$disk" peak_rss_mb) | $(value "$ram" peak_rss_mb) | $(value "$floor" peak_rss_mb) | ≤ 1024 at 100M |"
  echo "| disk bytes per URL | $(value "$disk" disk_bytes_per_url) | | $(value "$floor" disk_bytes_per_url) | ≤ 50 |"
  echo "| push per second | $(value "$disk" push_per_s) | $(value "$ram" push_per_s) | $(value "$floor" push_per_s) | ≥ 200,000 |"
  echo "| pop+complete per second | $(value "$disk" pop_complete_per_s) | $(value "$ram" pop_complete_per_s) | $(value "$floor" seek_read_per_s) (seek + read one URL, round-robin) | ≥ 100,000 |"
  echo "| push per CPU second (all threads) | $(value "$disk" push_per_cpu_s) | $(value "$ram" push_per_cpu_s) | $(value "$floor" push_per_cpu_s) | |"
  echo "| pop+complete per CPU second (all threads) | $(value "$disk" pop_complete_per_cpu_s) | $(value "$ram" pop_complete_per_cpu_s) | $(value "$floor" seek_read_per_cpu_s) | |"
  echo "| checkpoint pause after the pushes (ms) | $(value "$disk" checkpoint1_pause_ms) | $(value "$ram" snapshot_pause_ms) (capture) | | ≤ 100 |"
  echo "| checkpoint pause after pop+complete (ms) | $(value "$disk" checkpoint2_pause_ms) | | | ≤ 100 |"
  echo "| first checkpoint: written (MB), total time (s) | $(value "$disk" checkpoint1_written_mb), $(value "$disk" checkpoint1_total_s) | snapshot $(value "$ram" snapshot_bytes_per_url) B/URL, encoded in $(value "$ram" snapshot_encode_s) s | | |"
  echo "| next checkpoint: written (MB), total time (s) | $(value "$disk" checkpoint2_written_mb), $(value "$disk" checkpoint2_total_s) | (rewrites everything) | | |"
  echo "| resume to first dispatch (s) | $(value "$disk" resume_to_first_dispatch_s) | | | ≤ 10 |"
  echo
  echo "Raw output:"
  echo
  echo '```'
  echo "== disk"; echo "$disk"; echo "== ram"; echo "$ram"; echo "== rocksdb"; echo "$floor"
  echo '```'
} >bench/results/frontier-disk.md
cat bench/results/frontier-disk.md
