#!/usr/bin/env bash
# content_seen's CPU cost (docs/content-seen.md): bloomcrawl crawls the local test web
# (bloomcrawl-testweb, three loopback hosts, no trap) with content_seen off (digest, learned
# parameters and near duplicates all off) and on (the defaults), alternated in each round so both
# see the same machine load. Prints one line per crawl: mode, CPU seconds (user + system),
# pages fetched, CPU ms per page, exact duplicates, near duplicates, rules in force.
#
#   bench/content_seen_bench.sh [PAGES_PER_HOST [ROUNDS]]
#
# Uses the Release build in build/release (bloomcrawl and tests/bloomcrawl-testweb): build them first.
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-1500}
rounds=${2:-3}
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

crawl() {
  local mode=$1 run=$work/$1
  rm -rf "$run" && mkdir -p "$run"
  "$root/build/release/tests/bloomcrawl-testweb" --hosts 127.0.0.2,127.0.0.3,127.0.0.4 --pages "$pages" --no-trap \
    --port 0 --ready-file "$run/port" 2>"$run/server.err" &
  local server=$!
  for _ in $(seq 200); do [ -s "$run/port" ] && break; sleep 0.05; done
  [ -s "$run/port" ] || { echo "test web not listening after 10 s" >&2; kill "$server"; exit 1; }
  local port content='{}'
  port=$(cat "$run/port")
  [ "$mode" = off ] && content='{"digest": false, "learn_params": false, "near_duplicates": "off"}'
  cat >"$run/crawl.json" <<JSON
{"seeds": {"urls": ["http://127.0.0.2:$port/"]},
 "scope": {"allowed_hosts": ["127.0.0.2", "127.0.0.3", "127.0.0.4"], "max_depth": -1},
 "politeness": {"delay_ms": 0, "concurrency_per_host": 8},
 "fetch": {"threads": 2, "transfers_per_thread": 16, "allowed_ranges": ["127.0.0.0/8"]},
 "output": {"directory": "$run/out"}, "logging": {"progress": "never", "level": "warn"},
 "content_seen": $content}
JSON
  /usr/bin/time -f "%U %S" -o "$run/time" "$root/build/release/bloomcrawl" crawl -c "$run/crawl.json" \
    2>"$run/crawl.err" >/dev/null
  kill "$server"
  wait "$server" 2>/dev/null || true
  python3 - "$run" "$mode" <<'PY'
import json, sys
run, mode = sys.argv[1], sys.argv[2]
user, system = map(float, open(run + "/time").read().split()[-2:])
report = json.load(open(run + "/out/report.json"))
pages = report["fetches"]["pages_fetched"]
c = report["content_seen"]
rules = sum(1 for r in c["rules"] if r["in_force"])
print(mode, round(user + system, 2), pages, round((user + system) * 1000 / pages, 3), c["exact_duplicates"],
      c["near_duplicates"], rules)
PY
}

for _ in $(seq "$rounds"); do
  crawl off
  crawl on
done
