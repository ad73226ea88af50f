#!/usr/bin/env bash
# Exact mode's cost (seen_filter.exact, docs/records.md): bloomcrawl crawls the local test web
# (bloomcrawl-testweb, three loopback hosts, no trap) with exact mode off and on, alternated in
# each round so both see the same machine load, and once more per round with exact mode on at a
# 5% filter (its false positives rescued). CPU (user + system, /usr/bin/time) per page fetched is
# the figure that decides the default; duplicates come from the server's fetch log (a fresh server
# per crawl). Writes bench/results/records-exact.md (or --out FILE).
#
#   bench/records_exact_bench.sh [--pages-per-host N] [--rounds R] [--out FILE]
#
# Uses the Release build in build/release (bloomcrawl and tests/bloomcrawl-testweb): build them first.
set -euo pipefail
cd "$(dirname "$0")/.."
pages=3000
rounds=3
out=bench/results/records-exact.md
while [ $# -gt 0 ]; do
  case "$1" in
    --pages-per-host) pages=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
crawler=build/release/bloomcrawl
testweb=build/release/tests/bloomcrawl-testweb
[ -x "$crawler" ] && [ -x "$testweb" ] || { echo "build bloomcrawl and bloomcrawl-testweb (Release) first" >&2; exit 1; }
work=$(mktemp -d)
server=0
cleanup() {
  [ "$server" -gt 0 ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# One crawl: prints "seconds cpu_seconds pages rescued duplicates peak_kib". A 5% filter starts
# at the smallest first layer (1000 URLs) so that its layers fill and answer false positives.
crawl() {
  local exact=$1 fpr=$2 capacity=1000000 run=$work/run
  [ "$fpr" = 1e-6 ] || capacity=1000
  rm -rf "$run" && mkdir -p "$run"
  "$testweb" --hosts 127.0.0.2,127.0.0.3,127.0.0.4 --pages "$pages" --no-trap --port 0 \
    --ready-file "$run/port" --log "$run/log.json" 2>"$run/server.err" &
  server=$!
  # Bounded: a server that dies or never listens fails the bench instead of hanging it.
  for _ in $(seq 200); do
    [ -s "$run/port" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$run/server.err" >&2; echo "test web exited" >&2; exit 1; }
    sleep 0.05
  done
  [ -s "$run/port" ] || { echo "test web not listening after 10 s" >&2; exit 1; }
  local port
  port=$(cat "$run/port")
  cat >"$run/crawl.json" <<EOF
{
  "seeds": {"urls": ["http://127.0.0.2:$port/"]},
  "scope": {"allowed_hosts": ["127.0.0.2", "127.0.0.3", "127.0.0.4"], "max_depth": -1},
  "politeness": {"delay_ms": 0, "concurrency_per_host": 8},
  "fetch": {"threads": 2, "transfers_per_thread": 16, "allowed_ranges": ["127.0.0.0/8"]},
  "seen_filter": {"initial_capacity": $capacity, "target_fpr": $fpr, "exact": $exact},
  "output": {"directory": "$run/out"},
  "logging": {"level": "warn", "progress": "never"}
}
EOF
  /usr/bin/time -f "%e %U %S %M" -o "$run/time" "$crawler" crawl -c "$run/crawl.json" >/dev/null 2>"$run/crawl.err"
  kill "$server" && wait "$server" 2>/dev/null || true
  server=0
  python3 - "$run" <<'EOF'
import json, sys
run = sys.argv[1]
e, u, s, m = open(run + "/time").read().split()
r = json.load(open(run + "/out/report.json"))
log = json.load(open(run + "/log.json"))
print(e, float(u) + float(s), r["fetches"]["pages_fetched"], r["links"].get("false_positives_rescued", 0),
      log["duplicate_fetches"], m)
EOF
}

rows=()
for round in $(seq 1 "$rounds"); do
  # Off first in odd rounds, on first in even ones.
  if [ $((round % 2)) -eq 1 ]; then order="false true"; else order="true false"; fi
  for exact in $order; do rows+=("exact=$exact fpr=1e-6 round=$round $(crawl "$exact" 1e-6)"); done
  rows+=("exact=true fpr=0.05 round=$round $(crawl true 0.05)")
done

{
  echo "# Exact mode (seen_filter.exact): CPU per page, measured"
  echo
  bench/machine.sh
  echo
  echo "Command: \`bench/records_exact_bench.sh --pages-per-host $pages --rounds $rounds\`: the test web"
  echo "(bloomcrawl-testweb, 3 hosts x $pages pages, no trap), a fresh server per crawl, 2 fetch threads x 16"
  echo "transfers. CPU = user + system seconds of the crawler (/usr/bin/time). The 5% rows start the filter at"
  echo "1000 URLs (its default growth after), so that it answers false positives for exact mode to rescue."
  echo
  echo "| exact | target_fpr | round | seconds | CPU s | pages | CPU ms/page | rescued | duplicates | peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for row in "${rows[@]}"; do
    read -r ex fp rd e cpu p resc dup m <<<"$row"
    printf '| %s | %s | %s | %s | %.2f | %s | %.3f | %s | %s | %.0f |\n' "${ex#exact=}" "${fp#fpr=}" "${rd#round=}" "$e" \
      "$cpu" "$p" "$(echo "$cpu * 1000 / $p" | bc -l)" "$resc" "$dup" "$(echo "$m / 1024" | bc -l)"
  done
  echo
  python3 - "${rows[@]}" <<'EOF'
import sys
per = {}
for row in sys.argv[1:]:
    f = row.split()
    key = (f[0], f[1])
    cpu, pages = float(f[4]), int(f[5])
    per.setdefault(key, []).append(cpu * 1000 / pages)
def med(v):
    v = sorted(v)
    return v[len(v) // 2]
off = med(per[("exact=false", "fpr=1e-6")])
on = med(per[("exact=true", "fpr=1e-6")])
hi = med(per[("exact=true", "fpr=0.05")])
print(f"Median CPU per page: exact off {off:.3f} ms, exact on {on:.3f} ms ({on / off:.3f}x), "
      f"exact on at a 5% filter {hi:.3f} ms ({hi / off:.3f}x).")
EOF
} >"$out"
cat "$out"
