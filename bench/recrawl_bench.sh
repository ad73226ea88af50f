#!/usr/bin/env bash
# Recrawl's cost (issue 28, docs/recrawl.md): the crawl bench's site, served by nginx
# (bench/nginx_site.sh), whose ETag and Last-Modified are nginx's own (each file's mtime and size),
# as a real static server's are. In each round, beside each other:
#   first:     a fresh crawl with recrawl on, a checkpoint directory and the WARC on;
#   unchanged: that crawl resumed with --revisit-all from a copy of its checkpoint and outputs, no
#              page changed: every known page revisited with conditional headers.
# Then once, from the last round's copy: PERCENT% of the HTML pages rewritten (a paragraph added,
# so a new size, mtime, ETag and payload digest) and a --revisit-all round over them ("changed").
# Reported per run: page requests (robots.txt apart) per known page, body bytes sent (nginx's log)
# against the first crawl's, CPU seconds (user + system, /usr/bin/time) per page, the revisit
# outcomes (report.json) and the WARC bytes written. The targets (issue 28): bytes <= 15% of the
# first crawl's; CPU per revisited unchanged page <= 0.3x a full fetch and parse (the first crawl's
# CPU per page, its WARC included as the revisit's is).
#
#   bench/recrawl_bench.sh [--pages-per-host N] [--changed-percent P] [--rounds R] [--out FILE] [--keep]
#
# About 2 minutes a round at 10,000 pages a host on 2 cores.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

pages_per_host=10000
changed_percent=10
rounds=3
out="bench/results/recrawl.md"
hosts=(127.0.0.2 127.0.0.3 127.0.0.4)
port=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pages-per-host) pages_per_host="$2"; shift 2 ;;
    --changed-percent) changed_percent="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "recrawl_bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

log() { echo "recrawl_bench: $*" >&2; }

scripts/install-deps.sh nginx-light time
py=/usr/bin/python3
log "building Release"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target bloomcrawl bloomcrawl-testweb
bloomcrawl="$repo/build/release/bloomcrawl"
testweb="$repo/build/release/tests/bloomcrawl-testweb"

# $work, $port, $seed, start_nginx, stop_nginx and the cleanup on exit (bench/nginx_site.sh).
source "$repo/bench/nginx_site.sh"
machine="$(bench/machine.sh)"  # its load average is the one at the start

allowed="$(printf '"%s",' "${hosts[@]}")"
config() {  # RUN: the first crawl's config, its outputs and checkpoint under RUN
  cat >"$1/crawl.json" <<JSON
{"seeds": {"urls": ["$seed"]},
 "scope": {"same_host": true, "allowed_hosts": [${allowed%,}], "max_depth": -1},
 "politeness": {"user_agent": "bloomcrawl-bench", "delay_ms": 0, "concurrency_per_host": 22, "obey_robots": true},
 "fetch": {"threads": 2, "transfers_per_thread": 32, "allowed_ranges": ["127.0.0.0/8"]},
 "seen_filter": {"initial_capacity": 1000000},
 "checkpoint": {"directory": "$1/ckpt"},
 "recrawl": {"enabled": true},
 "output": {"directory": "$1/out", "warc": {"enabled": true}},
 "logging": {"level": "warn", "progress": "never"}}
JSON
}

# measure NAME OUTPUT ARGS...: bloomcrawl ARGS (writing to the directory OUTPUT) under
# /usr/bin/time with a fresh nginx logging to $work/NAME.access.log; its figures to
# $work/rows/NAME.json.
measure() {
  local name=$1 output=$2
  shift 2
  start_nginx "$name"
  local warc_before=0  # what the resumed crawl's output directory holds already
  [ -d "$output" ] && warc_before="$(find "$output" -name '*.warc*' -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
  /usr/bin/time -f "%U %S %e" -o "$work/$name.time" "$bloomcrawl" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
    { log "$name: bloomcrawl failed"; cat "$work/$name.err" >&2; exit 1; }
  stop_nginx
  "$py" - "$work/$name.time" "$output" "$work/$name.access.log" "$warc_before" >"$work/rows/$name.json" <<'PY'
import glob, json, os, sys
time_file, output, access_log, warc_before = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
user, system, wall = map(float, open(time_file).read().split()[-3:])
pages = robots = body = 0
statuses = {}
for line in open(access_log):
    _, uri, status, _, _, sent = line.rstrip("\n").split("\t")[:6]
    if uri == "/robots.txt":
        robots += 1
        continue
    pages += 1
    body += int(sent)
    statuses[status] = statuses.get(status, 0) + 1
report = json.load(open(os.path.join(output, "report.json")))
warc = sum(os.path.getsize(p) for p in glob.glob(os.path.join(output, "**", "*.warc*"), recursive=True))
print(json.dumps({"cpu_s": user + system, "wall_s": wall, "page_requests": pages,
                  "robots_requests": robots, "body_bytes": body, "statuses": statuses,
                  "revisits": report["revisits"], "warc_bytes": warc - warc_before}))
PY
}

for r in $(seq "$rounds"); do
  run="$work/round$r"
  mkdir -p "$run"
  config "$run"
  log "round $r: first crawl"
  measure "first-$r" "$run/out" crawl --config "$run/crawl.json"
  # The revisit from copies, so that the round leaves the first crawl's state as it was.
  cp -a "$run/ckpt" "$run/ckpt-unchanged"
  cp -a "$run/out" "$run/out-unchanged"
  log "round $r: every known page revisited, none changed"
  measure "unchanged-$r" "$run/out-unchanged" crawl --resume "$run/ckpt-unchanged" --output "$run/out-unchanged" \
    --revisit-all
done

# PERCENT% of the HTML pages, every (100/PERCENT)th in name order, get a paragraph more.
"$py" - "$work/site" "$changed_percent" >"$work/changed.txt" <<'PY'
import os, sys
root, percent = sys.argv[1], float(sys.argv[2])
pages = sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".html"))
step = 100.0 / percent
chosen = [pages[int(i * step)] for i in range(int(len(pages) / step))]
for path in chosen:
    text = open(path, encoding="utf-8").read()
    open(path, "w", encoding="utf-8").write(text.replace("</body>", "<p>Revised: a new paragraph.</p>\n</body>", 1))
print(len(chosen), len(pages))
PY
read -r changed_pages html_pages <"$work/changed.txt"
log "changed $changed_pages of $html_pages HTML pages"
run="$work/round$rounds"
cp -a "$run/ckpt" "$run/ckpt-changed"
cp -a "$run/out" "$run/out-changed"
log "every known page revisited, $changed_percent% changed"
measure "changed" "$run/out-changed" crawl --resume "$run/ckpt-changed" --output "$run/out-changed" --revisit-all

load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$(dirname "$out")"
"$py" - "$work/rows" "$rounds" "$changed_pages" "$html_pages" "$changed_percent" "$pages_per_host" \
  "$load_end" "$machine" >"$out" <<'PY'
import json, os, statistics, sys
rows_dir, rounds, changed_pages, html_pages, percent, per_host, load_end, machine = sys.argv[1:9]
rounds = int(rounds)
rows = {f[:-5]: json.load(open(os.path.join(rows_dir, f))) for f in os.listdir(rows_dir)}
def per_page(r):
    return r["cpu_s"] * 1000.0 / r["page_requests"]
print("# Recrawl: revisits beside the first crawl (issue 28)\n")
print("Written by `bench/recrawl_bench.sh`; do not edit by hand, rerun it.\n")
print(machine.strip())
print(f"- Load average at the end: {load_end}\n")
print("## Setup\n")
print(f"- Site: the crawl bench's (`bloomcrawl-testweb generate`, {per_host} content pages on each of 3 hosts) "
      "served by nginx 1.22 (`bench/crawl_nginx.conf`): its ETag and Last-Modified are nginx's, from each "
      "file's mtime and size, and it answers If-None-Match / If-Modified-Since with 304.")
print("- bloomcrawl: 2 fetch threads x 32 transfers, 22 per host, no delay, robots.txt obeyed, "
      "`recrawl.enabled`, a checkpoint directory, the WARC on.")
print(f"- Each of {rounds} rounds: a fresh first crawl, then `crawl --resume CKPT --revisit-all` from a copy of its "
      "checkpoint and outputs with no page changed (\"unchanged\"). Then once, from the last round's copy: "
      f"{changed_pages} of the {html_pages} HTML files ({percent}%) rewritten with a paragraph more, and the "
      "same revisit (\"changed\").")
print("- Bytes: body bytes nginx sent (`$body_bytes_sent`, headers not included) for page requests; "
      "robots.txt requests counted apart. CPU: user + system of the bloomcrawl process (`/usr/bin/time`).\n")
print("## Results\n")
print("| run | page requests | robots.txt | statuses | body bytes | CPU s | CPU ms / page request | wall s | "
      "not modified | unchanged | changed | gone | new URLs | WARC bytes written |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
names = [f"{k}-{r}" for r in range(1, rounds + 1) for k in ("first", "unchanged")] + ["changed"]
for n in names:
    r = rows[n]
    v = r["revisits"]
    st = ", ".join(f"{k} {c}" for k, c in sorted(r["statuses"].items()))
    print(f"| {n} | {r['page_requests']} | {r['robots_requests']} | {st} | {r['body_bytes']} | {r['cpu_s']:.2f} | "
          f"{per_page(r):.3f} | {r['wall_s']:.1f} | {v['not_modified']} | {v['unchanged']} | {v['changed']} | "
          f"{v['gone']} | {v['new_urls']} | {r['warc_bytes']} |")
first = [rows[f"first-{r}"] for r in range(1, rounds + 1)]
unchanged = [rows[f"unchanged-{r}"] for r in range(1, rounds + 1)]
ratios = [per_page(u) / per_page(f) for f, u in zip(first, unchanged)]
changed, last_first = rows["changed"], rows[f"first-{rounds}"]
bytes_ratio = changed["body_bytes"] / last_first["body_bytes"]
known = last_first["page_requests"]
print("\n## Targets\n")
print(f"- Page requests per known page in the changed round: {changed['page_requests']} / {known} = "
      f"{changed['page_requests'] / known:.3f}, plus {changed['robots_requests']} robots.txt requests "
      "(target: 1 + robots.txt).")
print(f"- Bytes received in the changed round: {changed['body_bytes']} vs {last_first['body_bytes']} in the first "
      f"crawl = **{bytes_ratio:.3f}** (target <= 0.15): **{'pass' if bytes_ratio <= 0.15 else 'FAIL'}**")
med = statistics.median(ratios)
print(f"- CPU per revisited unchanged page vs a full fetch and parse, per round: "
      f"{', '.join(f'{x:.3f}' for x in ratios)}; median **{med:.3f}x** (target <= 0.3x): "
      f"**{'pass' if med <= 0.3 else 'FAIL'}**")
print(f"- WARC bytes written: first crawl {last_first['warc_bytes']}, changed round {changed['warc_bytes']} "
      f"({changed['warc_bytes'] / max(1, last_first['warc_bytes']):.3f} of the first).")
PY
log "wrote $out"
cat "$out"
