#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, starts the bundled
# local test web (three hosts on 127.0.0.2-4 with duplicate links in equivalent forms, redirects,
# robots.txt rules and a crawler trap), crawls it with config/examples/demo.json, kills the crawl
# with kill -9 partway and resumes it from its checkpoint, shows the report, and prints what the
# server itself counted (duplicate fetches, robots violations).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the build and the demo use: no test tools (scripts/install-deps.sh --build).
scripts/install-deps.sh --build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=OFF >/dev/null
cmake --build build/release -j "$(nproc)" --target bloomcrawl bloomcrawl-testweb

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

build/release/tests/bloomcrawl-testweb --ready-file "$work/port" --log "$work/server.json" \
  --ground-truth "$work/truth.json" >"$work/server.out" 2>&1 &
server_pid=$!
# The server writes the file once it listens: wait for that, not for a fixed time.
for _ in $(seq 100); do [ -s "$work/port" ] && break; kill -0 "$server_pid" || break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/server.out"; echo "demo: the test web did not start"; exit 1; }
port=$(cat "$work/port")
echo "demo: test web on 127.0.0.2-4 port $port"

sed -e "s/:8080/:$port/g" -e "s|\"demo-out|\"$work/out|g" config/examples/demo.json >"$work/demo.json"

# Crash and resume: kill -9 the crawl once it has fetched 100 pages, then resume from its last
# checkpoint and journal. Only the transfers in flight at the kill may be fetched again.
build/release/bloomcrawl crawl --config "$work/demo.json" --progress never >"$work/first.out" 2>&1 &
crawl_pid=$!
pages_logged() { { wc -l <"$work/out/pages.jsonl"; } 2>/dev/null || echo 0; }
while kill -0 "$crawl_pid" 2>/dev/null && [ "$(pages_logged)" -lt 100 ]; do
  sleep 0.05
done
kill -9 "$crawl_pid" 2>/dev/null || true
wait "$crawl_pid" 2>/dev/null || true
echo "demo: crawl killed with kill -9 after $(pages_logged) pages; resuming"
build/release/bloomcrawl inspect "$work/out/checkpoint" 2>&1 >/dev/null | head -5 || true
build/release/bloomcrawl crawl --resume "$work/out/checkpoint"

kill -TERM "$server_pid" && wait "$server_pid" || true
server_pid=""
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
s = json.load(open(f"{work}/server.json"))
truth = set(json.load(open(f"{work}/truth.json"))["urls"])
fetched = {json.loads(l)["url"] for l in open(f"{work}/out/pages.jsonl") if json.loads(l)["status"]}
r = json.load(open(f"{work}/out/report.json"))
print(f"server: {s['page_requests']} page requests, {s['duplicate_fetches']} duplicate fetches "
      f"(the crawler counted {r['duplicates_avoided'].get('pages_refetched_after_crash', 0)} pages in flight at the kill), "
      f"{s['robots_violations']} robots violations, {s['trap_requests']} trap requests")
print(f"ground truth (depth 10): {len(truth)} pages; fetched {len(fetched & truth)} of them, "
      f"{len(fetched - truth)} outside it")
PY
echo "demo: report.json:"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r.pop('config'); print(json.dumps(r, indent=1)[:3000])" "$work/out/report.json"
