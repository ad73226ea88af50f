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
#   bench/openscope_bench.sh [--hosts N] [--pages-per-host P] [--robots-delay-ms D] [--out FILE] [--keep]
#
# Builds bloomcrawl and bloomcrawl-testweb (Release), cleans up on any exit. A few minutes on 2 cores.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

hosts=10000
pages_per_host=5
robots_delay_ms=5
out="bench/results/openscope.md"
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="$2"; shift 2 ;;
    --pages-per-host) pages_per_host="$2"; shift 2 ;;
    --robots-delay-ms) robots_delay_ms="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
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
nice -n 19 cmake --build "$build" -j2 --target bloomcrawl bloomcrawl-testweb >/dev/null
bloomcrawl="$build/bloomcrawl"
testweb="$build/tests/bloomcrawl-testweb"

work="$(mktemp -d /tmp/openscope-bench-XXXXXX)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "$keep" = 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT

# run NAME HOSTS PAGES: serves the open web, crawls it, stops the server; leaves $work/NAME.*.
run() {
  local name="$1" n_hosts="$2" n_pages="$3"
  "$testweb" open --hosts "$n_hosts" --pages "$n_pages" --cross-links 3 --threads 512 \
    --robots-delay-ms "$robots_delay_ms" --ready-file "$work/$name.port" --log "$work/$name.server.json" \
    --samples "$work/$name.samples" 2>"$work/$name.server.log" &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$work/$name.port" ] && break; sleep 0.1; done  # polls a file the server writes
  local port; port="$(cat "$work/$name.port")"
  cat >"$work/$name.json" <<CONF
{
  "seeds": {"urls": ["http://h0.test:$port/p0.html"]},
  "scope": {"allowed_domains": ["test"], "max_depth": -1},
  "politeness": {"user_agent": "bloomcrawl-bench", "delay_ms": 0, "concurrency_per_host": 48, "obey_robots": true},
  "fetch": {"threads": 2, "transfers_per_thread": 64, "allowed_ranges": ["127.0.0.0/8"],
            "resolve": ["*:$port:127.0.0.1"]},
  "output": {"directory": "$work/$name.out"},
  "logging": {"level": "warn", "progress": "never"}
}
CONF
  /usr/bin/time -v -o "$work/$name.time" "$bloomcrawl" crawl --config "$work/$name.json" >"$work/$name.stdout" 2>"$work/$name.stderr"
  kill "$server_pid"; wait "$server_pid" || true; server_pid=""
}

run closed "$closed_hosts" "$closed_pages"
run open "$hosts" "$pages_per_host"

python3 - "$work" "$out" "$hosts" "$pages_per_host" "$closed_hosts" "$closed_pages" "$robots_delay_ms" <<'PY'
import json, re, subprocess, sys
work, out, hosts, pages, closed_hosts, closed_pages, robots_delay = sys.argv[1:]

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
                      cpu_ms_per_page=1000 * cpu / max(1, pages_fetched), samples=samples)

machine = subprocess.run(["bash", "bench/machine.sh"], capture_output=True, text=True).stdout
c, o = rows["closed"], rows["open"]
lines = ["# Open-scope crawl: 10,000 hosts against 3 hosts (issue 15)", "", machine.rstrip(), "",
         f"Command: `nice -n 10 bench/openscope_bench.sh` ({hosts} hosts x {pages} pages against {closed_hosts} hosts x "
         f"{closed_pages} pages; 3 cross-host links a page; robots.txt answered after {robots_delay} ms; "
         "fetch 2 threads x 64 transfers; both crawls in this one run, 3 hosts first).", "",
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
          f"- peak RSS: {o['rss_mb']:.0f} MiB against {c['rss_mb']:.0f} MiB", "",
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
