#!/usr/bin/env bash
# The URL records at scale (issue 27): RecordStore and RocksDB alone, each in its own process
# (peak RSS is per mode), on the same N records of the frontier bench's shape over H hosts.
# Usage: bench/run_records_bench.sh [N] [H] [DIR] [MEMORY_MB]. Writes bench/results/records.md.
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-5000000}
hosts=${2:-$((records / 100))}
dir=${3:-/work/tmp/records-bench}
memory_mb=${4:-256}
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=ON >/dev/null
cmake --build build/release -j2 --target records_bench
bin=build/release/bench/records_bench
mkdir -p "$dir"
machine=$(bench/machine.sh)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
store=$($bin records "$records" "$hosts" "$dir/records" "$memory_mb")
floor=$($bin rocksdb "$records" "$hosts" "$dir/floor" "$memory_mb")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$dir/records" "$dir/floor"
value() { echo "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
{
  echo "# URL records at scale: RecordStore beside RocksDB alone"
  echo
  echo "$machine"
  echo "- Disk: $(df -h "$dir" | awk 'NR == 2 { print $1 ", " $2 " total" }')"
  echo "- Load average (1, 5, 15 min) before and after: $load_before; $load_after"
  echo
  echo "Command: \`bench/run_records_bench.sh $records $hosts $dir $memory_mb\` ($records records as written at"
  echo "admission (URL of about $(value "$store" url_bytes_per_record) bytes, depth, parent hash, first admitted time) over $hosts"
  echo "hosts; store memory budget $memory_mb MB; lookups: 200,000 sampled URLs in random order, in batches of 35;"
  echo "the exact-mode check: pages of 35 links of one host, all present, pages in random host order)."
  echo "RocksDB alone: its default options but for the memtable size, no WAL, the same keys and values in"
  echo "write batches of the same size, MultiGet for the same lookups."
  echo
  echo "| measure | RecordStore | RocksDB alone (floor) | target |"
  echo "|---|---|---|---|"
  echo "| disk bytes per URL (URL text included) | $(value "$store" disk_bytes_per_url) | $(value "$floor" disk_bytes_per_url) | ≤ 64 |"
  echo "| writes per second (put + persist) | $(value "$store" write_per_s) | $(value "$floor" write_per_s) | ≥ 200,000 |"
  echo "| writes per CPU second (all threads) | $(value "$store" write_per_cpu_s) | $(value "$floor" write_per_cpu_s) | |"
  echo "| get_many of present URLs per second | $(value "$store" get_many_present_per_s) | $(value "$floor" get_many_present_per_s) | |"
  echo "| get_many of present URLs per CPU second | $(value "$store" get_many_present_per_cpu_s) | $(value "$floor" get_many_present_per_cpu_s) | |"
  echo "| get_many of absent URLs per second | $(value "$store" get_many_absent_per_s) | $(value "$floor" get_many_absent_per_s) | |"
  echo "| get_many of absent URLs per CPU second | $(value "$store" get_many_absent_per_cpu_s) | $(value "$floor" get_many_absent_per_cpu_s) | |"
  echo "| exact-mode checks per second (35 links a page) | $(value "$store" exact_check_per_s) | | ≥ 150,000 |"
  echo "| exact-mode checks per CPU second | $(value "$store" exact_check_per_cpu_s) | | |"
  echo "| scan (export) records per second | $(value "$store" scan_per_s) | | |"
  echo "| peak RSS (MB) | $(value "$store" peak_rss_mb) | $(value "$floor" peak_rss_mb) | within the records budget |"
  echo
  echo "Raw output:"
  echo
  echo '```'
  echo "== records"; echo "$store"; echo "== rocksdb"; echo "$floor"
  echo '```'
} >bench/results/records.md
cat bench/results/records.md
