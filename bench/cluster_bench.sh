#!/usr/bin/env bash
# Cluster benchmark (issue 14): the nginx benchmark site of bench/crawl_bench.sh (bench/nginx_site.sh,
# here on 16 loopback hosts so that hosts spread over the nodes) crawled by one single-node
# bloomcrawl and by clusters of 1, 2 and 4 nodes on this machine, each run with the same total
# transfers in flight (64), against a fresh nginx and a fresh redis-server; and, as the floor of N
# processes on this machine, N single-node crawls at once, each of 1/N of the hosts (its own seed and
# scope, 64/N transfers, no Redis). Pages and duplicates come
# from nginx's access log; CPU from /usr/bin/time of every node; Redis's traffic from INFO stats and
# commandstats, its memory from INFO memory (used_memory_peak, and used_memory sampled every 0.2 s
# beside the inboxes' lengths for the bytes per cross-node URL in flight). Writes
# bench/results/cluster.md.
#
#   bench/cluster_bench.sh [--pages-per-host N] [--nodes "1 2 4"] [--out FILE] [--keep]
#
# Builds Release and cleans up on any exit. A few minutes on 2 cores with the default 4,000 pages
# on each of 16 hosts (64,000 pages).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

pages_per_host=4000
hosts=(); for i in $(seq 2 17); do hosts+=("127.0.0.$i"); done
port=""
node_counts="1 2 4"
out="bench/results/cluster.md"
keep=0
transfers=64
while [ $# -gt 0 ]; do
  case "$1" in
    --pages-per-host) pages_per_host="$2"; shift 2 ;;
    --nodes) node_counts="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "cluster_bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
log() { echo "cluster_bench: $*" >&2; }
py=/usr/bin/python3
command -v redis-server >/dev/null && command -v nginx >/dev/null && [ -x /usr/bin/time ] ||
  { log "needs redis-server, redis-tools, nginx-light and time (scripts/install-deps.sh)"; exit 1; }

log "building Release"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=ON >/dev/null
cmake --build build/release --target bloomcrawl bloomcrawl-testweb >/dev/null
bloomcrawl="$repo/build/release/bloomcrawl"
testweb="$repo/build/release/tests/bloomcrawl-testweb"

source "$repo/bench/nginx_site.sh"
redis_pid=""
stop_redis() { [ -n "$redis_pid" ] && { kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; }; redis_pid=""; }
trap 'stop_redis; stop_nginx; if [ "$keep" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi' EXIT

redis_port="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
rcli() { redis-cli -p "$redis_port" "$@"; }
start_redis() {
  rm -rf "$work/redis"; mkdir -p "$work/redis"
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly no \
    --logfile "$work/redis/log" &
  redis_pid=$!
  for _ in $(seq 100); do rcli ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  log "redis-server did not start"; cat "$work/redis/log" >&2; exit 1
}

# The crawl config for N nodes (0: single-node mode), transfers split evenly. With PART (0 ≤ PART < N),
# a floor run's process: the hosts i with i % N == PART, seeded with the first one's home page.
write_config() {
  local n="$1" file="$2" part="${3:-}" per_node=$transfers run_seed="$seed" mine=("${hosts[@]:1}")
  [ "$n" -gt 0 ] && per_node=$((transfers / n))
  if [ -n "$part" ]; then
    mine=(); for i in "${!hosts[@]}"; do [ $((i % n)) = "$part" ] && mine+=("${hosts[$i]}"); done
    run_seed="http://${mine[0]}:$port/"
  fi
  allowed_hosts="$(printf '"%s", ' "${mine[@]}")"
  fill_template "$repo/bench/crawl_bloomcrawl.conf" "$file.in" SEED="$run_seed" ALLOWED_HOSTS="${allowed_hosts%, }" \
    PER_HOST=4 OUTPUT="OUT" MEMORY_LIMIT_MB=256 TLS_FETCH="" WARC=false
  "$py" - "$file.in" "$file" "$per_node" <<'EOF'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
c = json.loads(text)
c["fetch"]["threads"] = 1
c["fetch"]["transfers_per_thread"] = int(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"))
EOF
}

# Samples Redis's used_memory and the inboxes' total length every 0.2 s while the crawl runs.
sample_redis() {
  local name="$1" n="$2"
  while :; do
    local mem len=0
    mem="$(rcli info memory 2>/dev/null | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')" || break
    [ -n "$mem" ] || break
    for i in $(seq 0 $((n - 1))); do len=$((len + $(rcli xlen "bloomcrawl:bench:inbox:$i" 2>/dev/null || echo 0))); done
    echo "$mem $len" >>"$work/$name.samples"
    sleep 0.2
  done
}

run() {
  local n="$1" kind="${2:-cluster}" name="single" config
  [ "$n" -gt 0 ] && name="$kind-$n"
  log "running $name"
  write_config "$n" "$work/$name.json"
  if [ "$kind" = floor ]; then
    for part in $(seq 0 $((n - 1))); do write_config "$n" "$work/$name.$part.json" "$part"; done
  fi
  start_nginx "$name"
  local pids=() cluster=()
  if [ "$kind" = cluster ] && [ "$n" -gt 0 ]; then
    start_redis
    rcli info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p' >"$work/$name.redis-empty"
    sample_redis "$name" "$n" &
    sampler=$!
  fi
  for node in $(seq 0 $(( n > 0 ? n - 1 : 0 ))); do
    config="$work/$name.json"
    [ "$kind" = floor ] && config="$work/$name.$node.json"
    [ "$kind" = cluster ] && [ "$n" -gt 0 ] && cluster=(--cluster "redis://127.0.0.1:$redis_port/bench" --nodes "$n" --node "$node")
    /usr/bin/time -f "%e %U %S %M" -o "$work/$name.$node.time" \
      "$bloomcrawl" crawl --config "$config" -o "$work/$name-out-$node" "${cluster[@]}" \
      >"$work/$name.$node.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || log "$name: a node exited with status $?"; done
  if [ "$kind" = cluster ] && [ "$n" -gt 0 ]; then
    rcli info stats >"$work/$name.redis-stats"
    rcli info commandstats >"$work/$name.redis-commands"
    rcli info memory >"$work/$name.redis-memory"
    kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
    stop_redis
  fi
  stop_nginx
  echo "$name $n $kind" >>"$work/runs"
}

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
run 0
for n in $node_counts; do run "$n"; done
for n in $node_counts; do [ "$n" -gt 1 ] && run "$n" floor; done
# Redis bytes per URL waiting in an inbox, measured directly: up to 20,000 of the site's URLs put in
# one stream as the nodes encode them (crawler/cluster/cluster_link.cc), one per batch and in
# batches of 8, on a fresh server; the memory it grew by over the URLs.
fill_inbox() {
  local per_batch="$1" urls before after
  urls="$(head -20000 "$truth" | wc -l)"
  start_redis
  before="$(rcli info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')"
  "$py" - "$truth" "$per_batch" <<'EOF' | redis-cli -p "$redis_port" --pipe >/dev/null
import json, sys
urls = [l.strip() for l in open(sys.argv[1])][:20000]
k = int(sys.argv[2])
def resp(*args):
    out = "*%d\r\n" % len(args)
    for a in args:
        out += "$%d\r\n%s\r\n" % (len(a.encode()), a)
    return out
for i in range(0, len(urls), k):
    batch = {"d": 3, "h": 0, "p": urls[i - 1] if i else "", "u": [[u, u.split("/")[2], 0, 0] for u in urls[i:i + k]]}
    sys.stdout.write(resp("XADD", "bloomcrawl:bench:inbox:0", "*", "from", "1", "batch", json.dumps(batch, separators=(",", ":"))))
EOF
  after="$(rcli info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')"
  echo "$per_batch $(( (after - before) / urls ))" >>"$work/fill"
  stop_redis
}
fill_inbox 1
fill_inbox 8
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

"$py" - "$work" "$truth" "$out" "$load_start" "$load_end" "$pages_per_host" "${#hosts[@]}" "$transfers" \
  "$(bench/machine.sh)" <<'EOF'
import collections, glob, json, os, re, sys
work, truth_file, out, load_start, load_end, pph, nhosts, transfers, machine = sys.argv[1:]
truth = set(l.strip() for l in open(truth_file))
def info(path):
    d = {}
    for line in open(path):
        if ":" in line:
            k, v = line.strip().split(":", 1)
            d[k] = v
    return d
rows = []
for line in open(f"{work}/runs"):
    name, n, kind = line.split(); n = int(n)
    pages = dups = 0
    log_pages = collections.Counter()
    for l in open(f"{work}/{name}.access.log"):  # host, path, status, ... (bench/crawl_nginx.conf)
        host, path = l.split("\t")[:2]
        if path != "/robots.txt":
            log_pages[(host, path)] += 1
    pages = sum(log_pages.values())
    dups = sum(c - 1 for c in log_pages.values())
    wall = cpu = 0.0
    rss = 0
    for f in glob.glob(f"{work}/{name}.*.time"):
        e, u, s, m = open(f).read().split()[-4:]
        wall = max(wall, float(e)); cpu += float(u) + float(s); rss = max(rss, int(m))
    row = dict(name=name, nodes=n, kind=kind, pages=pages, dups=dups, wall=wall, cpu=cpu, rss_mib=rss / 1024)
    if n and kind == "cluster":
        st = info(f"{work}/{name}.redis-stats"); cs = info(f"{work}/{name}.redis-commands"); mem = info(f"{work}/{name}.redis-memory")
        empty = int(open(f"{work}/{name}.redis-empty").read().strip())
        calls = {k[8:]: int(re.search(r"calls=(\d+)", v).group(1)) for k, v in cs.items() if k.startswith("cmdstat_")}
        urls_sent = batches_sent = 0
        for r in glob.glob(f"{work}/{name}-out-*/report.json"):
            c = json.load(open(r)).get("cluster", {})
            urls_sent += c.get("urls_sent", 0); batches_sent += c.get("batches_sent", 0)
        per_batch = urls_sent / batches_sent if batches_sent else 0
        best = None
        if os.path.exists(f"{work}/{name}.samples"):
            for s in open(f"{work}/{name}.samples"):
                memv, ln = map(int, s.split())
                if ln and (best is None or ln > best[1]):
                    best = (memv, ln)
        row.update(commands=int(st["total_commands_processed"]), calls=calls,
                   net_bytes=int(st["total_net_input_bytes"]) + int(st["total_net_output_bytes"]),
                   peak=int(mem["used_memory_peak"]), empty=empty, urls_sent=urls_sent, batches_sent=batches_sent,
                   per_batch=per_batch,
                   bytes_per_url=((best[0] - empty) / (best[1] * per_batch)) if best and per_batch else None,
                   max_inbox_urls=int(best[1] * per_batch) if best else 0)
    rows.append(row)
single = next(r for r in rows if r["nodes"] == 0)
sp = single["cpu"] / single["pages"] * 1000 if single["pages"] else 0
with open(out, "w") as f:
    f.write("# Cluster benchmark (issue 14)\n\n")
    f.write(machine + "\n\n")
    f.write(f"- Load average: {load_start} at start, {load_end} at the end\n")
    f.write(f"- Site: bench/nginx_site.sh (the crawl benchmark's), {pph} pages on each of {nhosts} loopback hosts, "
            f"{len(truth)} ground-truth URLs; a fresh nginx and (cluster runs) a fresh redis-server 7 per run, "
            "no AOF, on this machine\n")
    f.write(f"- Every run has {transfers} transfers in flight in total (N nodes: {transfers}/N each), 4 per host, "
            "no politeness delay, robots.txt obeyed; all nodes of a run share the 2 cores\n")
    f.write("- Command: `bench/cluster_bench.sh`\n")
    f.write("- floor-N: N single-node processes at once, each crawling the hosts i with i % N == its index "
            "(its own seed, 64/N transfers, no Redis): what N processes cost on this machine without any cluster work\n\n")
    cpp_of = lambda r: r["cpu"] / r["pages"] * 1000 if r["pages"] else 0
    floor = {r["nodes"]: cpp_of(r) for r in rows if r["kind"] == "floor"}
    f.write("| run | nodes | pages fetched | duplicates | wall s | pages/s | CPU s | CPU ms / page | vs single | vs floor-N |"
            " peak RSS MiB (largest node) |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        cpp = cpp_of(r)
        vs_floor = f"{(cpp / floor[r['nodes']] - 1) * 100:+.1f}%" if r["kind"] == "cluster" and floor.get(r["nodes"]) else "-"
        f.write(f"| {r['name']} | {r['nodes'] or '-'} | {r['pages']} | {r['dups']} | {r['wall']:.1f} | "
                f"{r['pages'] / r['wall'] if r['wall'] else 0:.0f} | {r['cpu']:.1f} | {cpp:.3f} | "
                f"{(cpp / sp - 1) * 100 if sp else 0:+.1f}% | {vs_floor} | {r['rss_mib']:.0f} |\n")
    f.write("\nRedis, per cluster run (fresh server; `INFO stats`, `INFO commandstats`, `INFO memory`):\n\n")
    f.write("| run | commands | commands / page | XADD | EVAL | XREADGROUP | bytes in+out | bytes / page | URLs sent to other nodes | URLs / batch | used_memory_peak MiB (empty server) | peak URLs in inboxes | Redis bytes / cross-node URL in flight |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        if not r["nodes"] or r["kind"] != "cluster":
            continue
        c = r["calls"]
        bpu = f"{r['bytes_per_url']:.0f}" if r["bytes_per_url"] else "-"
        f.write(f"| {r['name']} | {r['commands']} | {r['commands'] / r['pages']:.2f} | {c.get('xadd', 0)} | {c.get('eval', 0)} | "
                f"{c.get('xreadgroup', 0)} | {r['net_bytes']} | {r['net_bytes'] / r['pages']:.0f} | {r['urls_sent']} | "
                f"{r['per_batch']:.1f} | {r['peak'] / 2**20:.2f} ({r['empty'] / 2**20:.2f}) | {r['max_inbox_urls']} | {bpu} |\n")
    f.write("\nRedis bytes per URL waiting in an inbox, filled directly (up to 20,000 of the site's URLs, encoded as "
            "the nodes encode them, in one stream on a fresh server):\n\n| URLs per batch | bytes per URL |\n|---|---|\n")
    for line in open(f"{work}/fill"):
        k, b = line.split()
        f.write(f"| {k} | {b} |\n")
EOF
log "wrote $out"
