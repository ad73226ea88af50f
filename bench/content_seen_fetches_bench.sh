#!/usr/bin/env bash
# content_seen's fetches per distinct content page (docs/content-seen.md, "Measured on the shop
# web"): bloomcrawl crawls the shop web (bloomcrawl-testweb shop: shop_site.h, every case of
# issue 29 on HOSTS hosts of ITEMS items each) with content_seen on (the defaults) and off (digest,
# learned parameters and near duplicates off), each against a fresh server whose log counts the
# fetches of each distinct page. Prints one line per crawl: mode, pages fetched, why it stopped,
# then for each group (byte-identical renders, renders that differ, the stock pages behind a
# parameter that changes some) fetches per distinct page fetched and the pages fetched of the
# site's; the pages never fetched (every one is a page whose parameters matter), the exact
# duplicates, the fetches saved by rules and the rules in force.
# Off, fresh visit ids never end: its crawl stops at OFF_LIMIT pages (default 10 x HOSTS x ITEMS).
#
#   bench/content_seen_fetches_bench.sh [HOSTS [ITEMS]]  (env OFF_LIMIT)
#
# KEEP_DIR=DIR keeps each crawl's outputs, config and the server's log in DIR/on and DIR/off.
# Uses the Release build in build/release (bloomcrawl and tests/bloomcrawl-testweb): build them first.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-3}
items=${2:-1000}
root=$(pwd)
work=${KEEP_DIR:-$(mktemp -d)}
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT

crawl() {
  local mode=$1 run=$work/$1
  rm -rf "$run" && mkdir -p "$run"
  "$root/build/release/tests/bloomcrawl-testweb" shop --hosts "$hosts" --items "$items" --port 0 \
    --ready-file "$run/port" --log "$run/shop.json" 2>"$run/server.err" &
  local server=$!
  for _ in $(seq 200); do [ -s "$run/port" ] && break; sleep 0.05; done
  [ -s "$run/port" ] || { echo "shop web not listening after 10 s" >&2; kill "$server"; exit 1; }
  local port content='{}' limit=0 names
  port=$(cat "$run/port")
  names=$(python3 -c "import json; print(json.dumps(['shop%d.test' % i for i in range($hosts)]))")
  if [ "$mode" = off ]; then
    content='{"digest": false, "learn_params": false, "near_duplicates": "off"}'
    limit=${OFF_LIMIT:-$((hosts * items * 10))}
  fi
  cat >"$run/crawl.json" <<JSON
{"seeds": {"urls": ["http://shop0.test:$port/"]},
 "scope": {"allowed_hosts": $names, "max_depth": -1, "max_pages": $limit},
 "politeness": {"delay_ms": 0, "concurrency_per_host": 8},
 "fetch": {"threads": 2, "transfers_per_thread": 16, "allowed_ranges": ["127.0.0.0/8"],
           "resolve": ["*:$port:127.0.0.1"]},
 "output": {"directory": "$run/out"}, "logging": {"progress": "never", "level": "warn"},
 "content_seen": $content}
JSON
  "$root/build/release/bloomcrawl" crawl -c "$run/crawl.json" 2>"$run/crawl.err" >/dev/null
  kill "$server"
  wait "$server" 2>/dev/null || true
  python3 - "$run" "$mode" <<'PY'
import json, sys
run, mode = sys.argv[1], sys.argv[2]
report = json.load(open(run + "/out/report.json"))
shop = json.load(open(run + "/shop.json"))
c = report["content_seen"]
line = [mode, report["fetches"]["pages_fetched"], report["crawl"]["stopped_by"]]
for group in ("identical", "per_render", "sometimes"):
    g = shop[group]
    ratio = g["fetches"] / g["fetched_pages"] if g["fetched_pages"] else float("nan")
    line += [group, round(ratio, 3), "%d/%d" % (g["fetched_pages"], g["distinct_pages"])]
line += ["missing", len(shop["missing"]), "exact", c["exact_duplicates"], "saved", c["fetches_saved_by_rules"],
         "rules", ",".join(sorted("%s:%s" % (r["host"].split(".")[0], r["param"]) for r in c["rules"] if r["in_force"]))]
print(*line)
for m in shop["missing"][:10]:
    print("  never fetched:", m)
PY
}

crawl on
crawl off
