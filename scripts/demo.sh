#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds, starts the bundled
# local test web (three hosts on 127.0.0.2-4 with duplicate links in equivalent forms, redirects,
# robots.txt rules and a crawler trap), crawls it with config/examples/demo.json, shows the
# report, and prints what the server itself counted (duplicate fetches, robots violations).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
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
build/release/bloomcrawl crawl --config "$work/demo.json"

kill -TERM "$server_pid" && wait "$server_pid" || true
server_pid=""
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
s = json.load(open(f"{work}/server.json"))
truth = set(json.load(open(f"{work}/truth.json"))["urls"])
fetched = {json.loads(l)["url"] for l in open(f"{work}/out/pages.jsonl") if json.loads(l)["status"]}
print(f"server: {s['page_requests']} page requests, {s['duplicate_fetches']} duplicate fetches, "
      f"{s['robots_violations']} robots violations, {s['trap_requests']} trap requests")
print(f"ground truth (depth 10): {len(truth)} pages; fetched {len(fetched & truth)} of them, "
      f"{len(fetched - truth)} outside it")
PY
echo "demo: report.json:"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r.pop('config'); print(json.dumps(r, indent=1)[:3000])" "$work/out/report.json"
