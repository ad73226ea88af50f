#!/usr/bin/env bash
# Link extraction and canonicalization benchmarks (issue: URLs and links). Builds Release, runs
# bench/links_bench (extract_links and extract+canonicalize against Gumbo's bare parse of the same
# pages, in one run) and bench/canonicalize_bench, and writes bench/results/links.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target links_bench canonicalize_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/bench/links_bench --benchmark_min_time=2 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$tmp/links.json"
build/release/bench/canonicalize_bench --benchmark_min_time=1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$tmp/canon.json"
{
  echo "# Link extraction and canonicalization"
  echo
  bench/machine.sh
  echo
  echo "Command: \`bench/run_links_bench.sh\` (medians of 3 repetitions, CPU time)."
  echo
  python3 - "$tmp/links.json" "$tmp/canon.json" <<'PY'
import json, sys
def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b
    return out
links = medians(sys.argv[1])
bare = links["BM_GumboBareParse"]
print("## Extract links from generated pages (10-100 KB, ~300 links each)\n")
print("| benchmark | pages/s | MB/s | rate vs Gumbo's bare parse |")
print("|---|---:|---:|---:|")
for name, label in [("BM_GumboBareParse", "Gumbo bare parse (gumbo_parse + destroy)"),
                    ("BM_ExtractLinks", "extract_links"),
                    ("BM_ExtractAndCanonicalize", "extract_links + canonicalize every link")]:
    b = links[name]
    print(f"| {label} | {b['items_per_second']:.0f} | {b['bytes_per_second']/1e6:.1f} | "
          f"{b['items_per_second']/bare['items_per_second']:.2f} |")
ratio = links["BM_ExtractAndCanonicalize"]["items_per_second"] / bare["items_per_second"]
print(f"\nTarget: extract+canonicalize at least 80% of the bare parse rate: **{ratio:.0%} — "
      f"{'pass' if ratio >= 0.8 else 'FAIL'}**.\n")
canon = medians(sys.argv[2])
print("## Canonicalize alone (one core)\n")
print("| benchmark | URLs/s | ns/URL |")
print("|---|---:|---:|")
for name, b in canon.items():
    print(f"| {name} | {b['items_per_second']:.0f} | {1e9/b['items_per_second']:.0f} |")
rate = canon["BM_CanonicalizeAbsolute"]["items_per_second"]
rel = canon["BM_CanonicalizeRelative"]["items_per_second"]
print(f"\nTarget: at least 2 million URLs/s on one core: absolute {rate/1e6:.2f} M/s, relative "
      f"{rel/1e6:.2f} M/s — **{'pass' if min(rate, rel) >= 2e6 else 'FAIL'}** (default options; "
      "all options on is listed above for reference).")
PY
} >bench/results/links.md
cat bench/results/links.md
