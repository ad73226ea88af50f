#!/usr/bin/env bash
# Open-scope benchmark (issue 15): bloomcrawl crawls the open web of bloomcrawl-testweb `open`
# (tests/support/open_web.h) twice in one run, from one seed each time, with the same total pages:
# 10,000 host names (h<i>.test, all on 127.0.0.1 through fetch.resolve) of 5 pages each, and 3
# host names of 16,667 pages each; every page links 3 pages of other hosts. Same config otherwise
# (2 fetch threads x 64 transfers, no delay, 48 transfers per host, robots.txt obeyed; each robots.txt
# answered after --robots-delay-ms). Reports pages/s, CPU per page and peak RSS (/usr/bin/time -v),
# the ratio of the two (target: 10,000 hosts within 20% of 3 hosts), robots.txt requests being
# answered over time (the server samples them every 100 ms) beside the crawler's share and its
# peak, and the server's check of the crawl: every page once, nothing disallowed fetched.
#
# The floor, in the same run against the same servers: bench/fetch_floor_bench (bare libcurl, set
# up as the fetcher is, no pipeline) fetches each site as the crawl does: the 3 hosts over kept-alive
# connections, the 10,000 hosts' robots.txt and pages each on a new connection (what the crawl
# does; one kept-alive connection per host costs libcurl 7.88 more, docs/fetcher.md). Its extra
# cost per page on the open site, added to the 3-host crawl's own, is the best the open crawl
# could do with this transport; the report gives that ratio beside the crawler's.
#
# Compression is off in both crawls (--compression turns it on): the test web compresses with
# cpp-httplib's brotli at its highest quality, which makes the server, not the crawler, set the
# 3-host crawl's pace (about 2,400 pages/s against about 15,000 without).
#
#   bench/openscope_bench.sh [--hosts N] [--pages-per-host P] [--robots-delay-ms D] [--compression]
#                            [--out FILE] [--keep]
#
# Builds bloomcrawl and bloomcrawl-testweb (Release), cleans up on any exit. A few minutes on 2 cores.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

hosts=10000
pages_per_host=5
robots_delay_ms=5
compression=false
out="bench/results/openscope.md"
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --pages-per-host) pages_per_host="$2"; shift 2 ;;
    --robots-delay-ms) robots_delay_ms="$2"; shift 2 ;;
    --compression) compression=true; shift ;;
    --out) out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
total_pages=$((hosts * pages_per_host))
closed_hosts=3
closed_pages=$(((total_pages + closed_hosts - 1) / closed_hosts))

build=build/release
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=ON \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
fi
nice -n 19 cmake --build "$build" -j2 --target bloomcrawl bloomcrawl-crawler bloomcrawl-testweb fetch_floor_bench >/dev/null
bloomcrawl="$build/bloomcrawl"
testweb="$build/tests/bloomcrawl-testweb"

work="$(mktemp -d /tmp/openscope-bench-XXXXXX)"
server_pid=""
port=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "$keep" = 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

# serve NAME HOSTS PAGES: starts the open web (its log and samples in $work/NAME.*), sets $port.
serve() {
  local name="$1" n_hosts="$2" n_pages="$3"
  rm -f "$work/$name.port"
  "$testweb" open --hosts "$n_hosts" --pages "$n_pages" --cross-links 3 --threads 512 \
    --robots-delay-ms "$robots_delay_ms" --ready-file "$work/$name.port" --log "$work/$name.server.json" \
    --samples "$work/$name.samples" 2>"$work/$name.server.log" &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$work/$name.port" ] && break; sleep 0.1; done  # polls a file the server writes
  port="$(cat "$work/$name.port")"
}

stop_server() {
  kill "$server_pid"; wait "$server_pid" || true; server_pid=""
}

# run NAME HOSTS PAGES FLOOR_ARGS...: crawls the open web, then fetches a fresh one with the floor
# client (so the server's check sees the crawl alone); leaves $work/NAME.*.
run() {
  local name="$1" n_hosts="$2" n_pages="$3"
  shift 3
  serve "$name" "$n_hosts" "$n_pages"
  cat >"$work/$name.json" <<CONF
{
  "seeds": {"urls": ["http://h0.test:$port/p0.html"]},
  "scope": {"same_host": false, "max_depth": -1},
  "politeness": {"user_agent": "bloomcrawl-bench", "delay_ms": 0, "concurrency_per_host": 48, "obey_robots": true},
  "fetch": {"threads": 2, "transfers_per_thread": 64, "allowed_ranges": ["127.0.0.0/8"],
            "compression": $compression, "resolve": ["*:$port:127.0.0.1"]},
  "output": {"directory": "$work/$name.out"},
  "logging": {"level": "warn", "progress": "never"}
}
CONF
  /usr/bin/time -v -o "$work/$name.time" "$bloomcrawl" crawl --config "$work/$name.json" >"$work/$name.stdout" 2>"$work/$name.stderr"
  stop_server
  serve "$name-floor" "$n_hosts" "$n_pages"
  "$build/bench/fetch_floor_bench" --port "$port" --hosts "$n_hosts" --pages "$n_pages" "$@" >"$work/$name.floor.json"
  stop_server
}

run closed "$closed_hosts" "$closed_pages"
run open "$hosts" "$pages_per_host" --robots --fresh

python3 - "$work" "$out" "$hosts" "$pages_per_host" "$closed_hosts" "$closed_pages" "$robots_delay_ms" "$compression" <<'PY'
import json, re, subprocess, sys
work, out, hosts, pages, closed_hosts, closed_pages, robots_delay, compression = sys.argv[1:]

def time_v(path):
    t = open(path).read()
    get = lambda key: float(re.search(re.escape(key) + r": *([0-9.]+)", t).group(1))
    return get("User time (seconds)") + get("System time (seconds)"), int(get("Maximum resident set size (kbytes)"))

rows = {}
for name in ("closed", "open"):
    report = json.load(open(f"{work}/{name}.out/report.json"))
    server = json.load(open(f"{work}/{name}.server.json"))
    cpu, rss_kb = time_v(f"{work}/{name}.time")
    pages_fetched = report["fetches"]["pages_fetched"]
    samples = [tuple(map(int, line.split())) for line in open(f"{work}/{name}.samples") if line.strip()]
    rows[name] = dict(report=report, server=server, cpu=cpu, rss_mb=rss_kb / 1024, pages=pages_fetched,
                      pps=report["crawl"]["pages_per_second"], seconds=report["crawl"]["seconds"],
                      cpu_ms_per_page=1000 * cpu / max(1, pages_fetched), samples=samples,
                      floor=json.load(open(f"{work}/{name}.floor.json")))

machine = subprocess.run(["bash", "bench/machine.sh"], capture_output=True, text=True).stdout
c, o = rows["closed"], rows["open"]
lines = ["# Open-scope crawl: 10,000 hosts against 3 hosts (issue 15)", "", machine.rstrip(), "",
         f"Command: `nice -n 10 bench/openscope_bench.sh` ({hosts} hosts x {pages} pages against {closed_hosts} hosts x "
         f"{closed_pages} pages; 3 cross-host links a page; robots.txt answered after {robots_delay} ms; "
         f"fetch 2 threads x 64 transfers; compression {'on' if compression == 'true' else 'off'}; "
         "both crawls and their floors in this one run, 3 hosts first).", "",
         "| crawl | hosts | pages fetched | seconds | pages/s | CPU s | CPU ms/page | peak RSS MiB | robots.txt fetches | robots share (slots) | robots peak in flight (crawler) | robots peak answered at once (server) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for name, n in (("closed", closed_hosts), ("open", hosts)):
    r = rows[name]
    share = r["report"]["fetches"]["robots_share"]
    lines.append(f"| {name} | {n} | {r['pages']} | {r['seconds']:.1f} | {r['pps']:.0f} | {r['cpu']:.1f} | "
                 f"{r['cpu_ms_per_page']:.3f} | {r['rss_mb']:.0f} | {r['report']['fetches']['robots_fetches']} | "
                 f"{share['slots']} | {share['peak_in_flight']} | {r['server']['robots_peak']} |")
pps_ratio = o["pps"] / c["pps"]
cpu_ratio = o["cpu_ms_per_page"] / c["cpu_ms_per_page"]
lines += ["", "## Against the target (10,000 hosts within 20% of 3 hosts)", "",
          f"- pages/s: {pps_ratio:.2f}x of the 3-host crawl ({'within' if pps_ratio >= 0.8 else 'NOT within'} 20%)",
          f"- CPU per page: {cpu_ratio:.2f}x of the 3-host crawl ({'within' if cpu_ratio <= 1.2 else 'NOT within'} 20%)",
          f"- peak RSS: {o['rss_mb']:.0f} MiB against {c['rss_mb']:.0f} MiB", ""]
fc, fo = c["floor"], o["floor"]
# The open crawl at best: the 3-host crawl plus what the transport alone adds on the open site.
floor_cpu_ms = c["cpu_ms_per_page"] + 1000 * (fo["cpu_s"] / fo["pages"] - fc["cpu_s"] / fc["pages"])
floor_seconds = c["seconds"] * o["pages"] / c["pages"] + (fo["wall_s"] - fc["wall_s"] * fo["pages"] / fc["pages"])
lines += ["## The floor: bare libcurl on the same sites (bench/fetch_floor_bench.cc)", "",
          "| site | requests | new connection each | wall s | pages/s | CPU s | CPU ms/page |", "|---|---|---|---|---|---|---|",
          f"| closed | {fc['requests']} | no | {fc['wall_s']:.2f} | {fc['pages'] / fc['wall_s']:.0f} | {fc['cpu_s']:.2f} | {1000 * fc['cpu_s'] / fc['pages']:.3f} |",
          f"| open | {fo['requests']} | yes | {fo['wall_s']:.2f} | {fo['pages'] / fo['wall_s']:.0f} | {fo['cpu_s']:.2f} | {1000 * fo['cpu_s'] / fo['pages']:.3f} |", "",
          f"- What many hosts cost the transport alone: {1000 * (fo['cpu_s'] / fo['pages'] - fc['cpu_s'] / fc['pages']):.3f} ms of CPU "
          f"and {1000 * (fo['wall_s'] / fo['pages'] - fc['wall_s'] / fc['pages']):.3f} ms of wall time per page (robots.txt and a "
          "connection per request, client and server on these 2 cores).",
          f"- The 3-host crawl plus that: {floor_cpu_ms:.3f} ms CPU per page = **{floor_cpu_ms / c['cpu_ms_per_page']:.2f}x** the 3-host crawl "
          f"(the crawler: {cpu_ratio:.2f}x); {o['pages'] / floor_seconds:.0f} pages/s = **{o['pages'] / floor_seconds / c['pps']:.2f}x** "
          f"(the crawler: {pps_ratio:.2f}x).", "",
          "## Where the open crawl's extra cost goes", "",
          "From `perf record` of both crawls on 2026-12-02 (commit 896c9e2; samples of the open crawl minus "
          "those of the 3-host crawl, by where they fell):",
          "- The transport (56% of the extra): the kernel's TCP work (33%) for a new connection per request "
          "(socket, connect, close, the server's accept on the same cores) and 10,000 more requests for "
          "robots.txt, and the scheduler (23%): the server's 512 threads take a new connection each per "
          "request and preempt the crawler. The floor above measures this part. libcurl 7.88 cannot do "
          "better here by keeping connections: its pool walks every cached connection at each return once "
          "full (docs/fetcher.md, \"Closing connections no one will reuse\"); the floor client with one "
          "kept-alive connection per host spent 7.2 s of CPU against 4.0 s with a new connection each.",
          "- libcurl's own code (11%) and malloc (8%, most of it libcurl's per-connection allocations) for "
          "those connections.",
          "- Per-host structures that 3 hosts keep in cache and 10,000 do not: the frontier's ready queue, "
          "leases and per-host queues (5%), RocksDB's memtable (4%), duplicate counts by host (HeavyHitters, "
          "3%), the robots.txt cache (2%).",
          "- The rest (10%) spread over the pipeline.", "",
          "## The server's check of each crawl", "",
          "| crawl | ground-truth pages | page requests | missing | duplicate fetches | /private/ (disallowed) fetched | robots.txt requests | page requests while a robots.txt was answered |",
          "|---|---|---|---|---|---|---|---|"]
for name in ("closed", "open"):
    s = rows[name]["server"]
    lines.append(f"| {name} | {s['ground_truth_pages']} | {s['page_requests']} | {s['missing_pages']} | "
                 f"{s['duplicate_fetches']} | {s['private_requests']} | {s['robots_requests']} | {s['pages_during_robots']} |")
lines += ["", "## robots.txt requests being answered over time (10,000-host crawl)", "",
          "Sampled by the server every 100 ms; each row summarizes ten seconds: the most and the mean of its samples.", "",
          "| seconds | most | mean |", "|---|---|---|"]
by_window = {}
for ms, n in o["samples"]:
    by_window.setdefault(ms // 10000, []).append(n)
for w in sorted(by_window):
    v = by_window[w]
    lines.append(f"| {10 * w}-{10 * w + 10} | {max(v)} | {sum(v) / len(v):.1f} |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:20]))
PY
