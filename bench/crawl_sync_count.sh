#!/usr/bin/env bash
# Durable before done, measured: each bloomcrawl binary given crawls the bundled local test web
# (bloomcrawl-testweb, PAGES content pages on each of 3 hosts) with a checkpoint directory (journal),
# edges and WARC on. ROUNDS rounds, the binaries alternating within each (the first one goes first
# in odd rounds, last in even ones), each crawl under /usr/bin/time: pages/s and CPU ms per page.
# Then one more crawl per binary under `strace -f -c`, which counts the fsync and fdatasync calls of
# every thread (strace slows the crawl, so it is not timed): syncs per 1,000 pages.
# Prints markdown table rows.
#   bench/crawl_sync_count.sh [--pages N] [--rounds R] BIN...
# Needs strace and /usr/bin/time; builds nothing (the test web is build/release/tests/bloomcrawl-testweb).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pages=2000
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --pages) pages="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--pages N] [--rounds R] BIN..." >&2; exit 2; }

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$repo/build/release/tests/bloomcrawl-testweb" --pages "$pages" --no-trap --ready-file "$work/port" \
  >"$work/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(cat "$work/port")"
cat >"$work/crawl.json" <<EOF
{
  "seeds": {"urls": ["http://127.0.0.2:$port/"]},
  "scope": {"allowed_hosts": ["127.0.0.2", "127.0.0.3", "127.0.0.4"], "max_depth": -1},
  "politeness": {"delay_ms": 0, "concurrency_per_host": 16},
  "fetch": {"allowed_ranges": ["127.0.0.0/8"]},
  "output": {"directory": "$work/out", "edges": true, "warc": {"enabled": true}},
  "checkpoint": {"directory": "$work/out/checkpoint"},
  "logging": {"level": "warn", "progress": "never"}
}
EOF

# crawl BIN [WRAPPER...]: one crawl from scratch; prints the pages recorded.
crawl() {
  local bin="$1"; shift
  rm -rf "$work/out"
  "$@" "$bin" crawl --config "$work/crawl.json" >"$work/crawl.out" 2>&1 || { cat "$work/crawl.out" >&2; exit 1; }
  wc -l <"$work/out/pages.jsonl"
}

echo "| round | binary | pages | seconds | pages/s | CPU ms per page |"
echo "|---|---|---:|---:|---:|---:|"
bins=("$@")
for round in $(seq "$rounds"); do
  order=("${bins[@]}")
  [ $((round % 2)) = 0 ] && order=($(printf '%s\n' "${bins[@]}" | tac))
  for bin in "${order[@]}"; do
    recorded=$(crawl "$bin" /usr/bin/time -f "%e %U %S" -o "$work/time")
    read -r elapsed user sys <"$work/time"
    awk -v r="$round" -v b="$bin" -v p="$recorded" -v e="$elapsed" -v u="$user" -v s="$sys" \
      'BEGIN {printf "| %d | %s | %d | %.1f | %.0f | %.3f |\n", r, b, p, e, p / e, (u + s) * 1000 / p}'
  done
done

echo
echo "| binary | pages | fsync | fdatasync | syncs per 1,000 pages |"
echo "|---|---:|---:|---:|---:|"
for bin in "${bins[@]}"; do
  recorded=$(crawl "$bin" strace -f -c -e trace=fsync,fdatasync -o "$work/strace.txt")
  count() { awk -v c="$1" '$NF == c {print $4}' "$work/strace.txt" | head -1; }
  fsyncs=$(count fsync)
  fdatasyncs=$(count fdatasync)
  awk -v b="$bin" -v p="$recorded" -v f="${fsyncs:-0}" -v d="${fdatasyncs:-0}" \
    'BEGIN {printf "| %s | %d | %d | %d | %.1f |\n", b, p, f, d, (f + d) * 1000 / p}'
done
