#!/usr/bin/env bash
# Crawl benchmark: bloomcrawl, `wget --recursive` and Scrapy each crawl the same generated static
# site (at least 50,000 pages on three loopback hosts) served by nginx, and wrk measures what that
# nginx serves on the same pages. Every figure about what was fetched comes from nginx's access log,
# not from the tools; CPU and peak RSS from /usr/bin/time -v. It also times Gumbo's parse of the
# site's own pages (bench/links_bench), the rate parsing alone allows. Writes bench/results/crawl.md.
#
#   bench/crawl_bench.sh [--pages-per-host N] [--port P] [--wrk-seconds S] [--scrapy-seconds S]
#                        [--no-profile] [--notes FILE] [--out FILE] [--keep]
#                        [--baseline BIN] [--rounds N] [--no-others]
#                        [--kill-at-percent P] [--memory-limit-mb M] [--tool-timeout S] [--https] [--warc]
#                        [--durable] [--ours-config JSON]
#
# Installs what it uses, builds Release, and cleans up on any exit (nginx stopped, temp dir removed
# unless --keep). About 10 minutes on 2 cores. Unless --no-profile, bloomcrawl then crawls once more
# under `perf record` (not timed) and the report gets its profile and the connections it held per
# host. --notes FILE: markdown appended to the report (a diagnosis written for the run). Helpers: bench/crawl_nginx.conf (server),
# bench/crawl_bloomcrawl.conf (crawler config), bench/crawl_wrk.lua, bench/scrapy_spider.py,
# bench/crawl_analyze.py (log analysis and the report). --baseline BIN: another bloomcrawl binary
# (e.g. built from an older commit) crawls too, right before ours, so a change is measured against
# what it changed in one sitting; --rounds N repeats that pair N times (rows "-1", "-2", ...;
# the last round's rows are "baseline" and "bloomcrawl"). --no-others skips Scrapy and wget.
# --kill-at-percent P: our crawl checkpoints, is killed with SIGKILL once the server has answered
# P% of the ground truth's requests, and is resumed to the end (bench/crawl_kill_resume.sh); the
# report then checks the big-crawl targets (issue 13: peak RSS <= 500 MiB, pages/s within 10% of
# the baseline's, duplicates no more than the transfers in flight at the kill).
# The baseline then checkpoints too (same directory settings, no kill), so that the comparison is
# of the frontiers, not of a checkpointed crawl against one that journals nothing.
# --memory-limit-mb M: frontier.memory_limit_mb for our crawl (and the baseline's).
# --tool-timeout S: a tool still running after S seconds is stopped (default 900).
# --https: in each round, after bloomcrawl's plain HTTP/1.1 crawl, it crawls the same site again over
# HTTPS with HTTP/2 (row "bloomcrawl-https"): nginx gets a certificate from a CA that openssl makes
# for the run (trusted with fetch.ca_file), and the site's absolute http:// links are rewritten to
# https:// for that crawl (and back). The report then compares the two: pages/s, CPU per page (the
# TLS cost, the server's CPU too) and requests per connection. Scrapy and wget crawl plain HTTP.
#   e.g. --https --no-others --no-profile --pages-per-host 30000 --wrk-seconds 5 --out bench/results/https.md
# --warc: in each round our crawl runs again with WARC output on (rows "bloomcrawl-warc"), after it in odd
# rounds and before it in even ones,
# and bench/warc_compress_bench times the WARC compressor alone on the site's pages: the report
# compares CPU per page with WARC on and off (issue 15: at most 20% more) beside that floor.
# A WARC measurement: --pages-per-host 10000 --rounds 9 --warc --no-others --no-profile
#   --out bench/results/warc.md
# --durable: every bloomcrawl crawl (ours and the baseline's) journals into a fresh checkpoint directory
# and writes WARC, so every output that durable-before-done syncs is in the figures; after the rounds
# each binary crawls once more under `strace -f -c` (not timed), and the report gets the fsync and
# fdatasync calls per 1,000 pages (issue 25: the grouped syncs must not cost a sync per page).
#   e.g. --durable --baseline OLD_BIN --rounds 3 --no-others --no-profile --out bench/results/crawl-durable.md
# --ours-config JSON: sections merged into our crawl's config only (a key of a section replaces the
# template's), e.g. '{"content_seen": {"digest": false}}' to measure a part the baseline lacks
# alone; the baseline crawls with the template's config.
# A big crawl (issue 13): --pages-per-host 333334 --kill-at-percent 40 --baseline OLD_BIN
#   --no-others --no-profile --out bench/results/crawl-1m.md
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

pages_per_host=17000
hosts=(127.0.0.2 127.0.0.3 127.0.0.4)
port=""
wrk_seconds=20
# Scrapy fetches ~100 pages/s here and, not removing dot segments, requests most pages two or three
# times: the whole site would take it half an hour. It runs this long (CLOSESPIDER_TIMEOUT), which
# is plenty to measure its rate and CPU per page; its coverage is then partial, and says so.
scrapy_seconds=300
out="bench/results/crawl.md"
keep=0
profile=1
notes_file=""
tool_timeout_s=900  # a run that takes longer is stopped (SIGINT) and reported as it stands
baseline_bin=""
rounds=1
others=1
kill_at_percent=""
memory_limit_mb=256
https=0
warc=0
durable=0
ours_config=""

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --pages-per-host) pages_per_host="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --wrk-seconds) wrk_seconds="$2"; shift 2 ;;
    --scrapy-seconds) scrapy_seconds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-profile) profile=0; shift ;;
    --notes) notes_file="$(realpath "$2")"; shift 2 ;;
    --baseline) baseline_bin="$(realpath "$2")"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --no-others) others=0; shift ;;
    --kill-at-percent) kill_at_percent="$2"; shift 2 ;;
    --memory-limit-mb) memory_limit_mb="$2"; shift 2 ;;
    --tool-timeout) tool_timeout_s="$2"; shift 2 ;;
    --https) https=1; shift ;;
    --warc) warc=1; shift ;;
    --durable) durable=1; shift ;;
    --ours-config) ours_config="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "crawl_bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

log() { echo "crawl_bench: $*" >&2; }

bench_packages=(nginx-light wrk python3-scrapy wget time linux-perf iproute2 strace)
if ! scripts/install-deps.sh "${bench_packages[@]}"; then
  # install-deps.sh installs the whole project's list, and one unrelated package that apt cannot
  # install (e.g. npm beside a nodejs that bundles it) must not stop a benchmark whose own tools
  # are here: install ours alone, then check.
  log "scripts/install-deps.sh failed; installing the benchmark's own packages only"
  missing=()
  for p in "${bench_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi
# The system Python has Debian's Scrapy; `python3` on PATH may be another one without it.
py=/usr/bin/python3

log "building Release"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_BENCH=ON >/dev/null
cmake --build build/release --target bloomcrawl bloomcrawl-testweb links_bench warc_compress_bench
bloomcrawl="$repo/build/release/bloomcrawl"
testweb="$repo/build/release/tests/bloomcrawl-testweb"

# The site on its nginx: $work, $port, $seed, $truth, $truth_pages, fill_template, start_nginx,
# stop_nginx, and the cleanup on exit (bench/nginx_site.sh).
source "$repo/bench/nginx_site.sh"

# CPU seconds (user + sys) nginx's workers have used: the server's share of the cost (TLS included).
nginx_worker_cpu() {
  local master ticks=0 pid stat
  master="$(cat "$nginx_prefix/nginx.pid")"
  for pid in $(pgrep -P "$master"); do
    stat="$(cat "/proc/$pid/stat")"
    stat="${stat##*) }"  # the fields after the command name; utime and stime are its 12th and 13th
    ticks=$((ticks + $(echo "$stat" | awk '{print $12 + $13}')))
  done
  awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f\n", t / hz}'
}

# run_tool NAME COMMAND...: the command under /usr/bin/time -v against a fresh nginx, then its row.
run_tool() {
  local name="$1"; shift
  log "running $name"
  start_nginx "$name"
  /usr/bin/time -v -o "$work/$name.time" timeout -s INT -k 30 "$tool_timeout_s" "$@" \
    >"$work/$name.out" 2>&1 || log "$name exited with status $? (see the table)"
  nginx_worker_cpu >"$work/$name.server-cpu"
  stop_nginx
  local extra=()
  [ "$name" = wrk ] && extra=(--wrk "$work/$name.out")
  "$py" "$repo/bench/crawl_analyze.py" measure --name "$name" --truth "$truth" --log "$work/$name.access.log" \
    --time "$work/$name.time" --server-cpu "$work/$name.server-cpu" --out "$work/rows/$name.json" "${extra[@]}"
}

# Other jobs may share the machine: the report gives the load around the measurements.
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
# wrk first: it also brings the site into the page cache for the crawlers.
wrk_cmd=(wrk -t2 -c64 "-d${wrk_seconds}s" -s "$repo/bench/crawl_wrk.lua" "$seed" -- "$truth")
run_tool wrk "${wrk_cmd[@]}"

per_host=$(( (64 + ${#hosts[@]} - 1) / ${#hosts[@]} ))
allowed_hosts="$(printf '"%s", ' "${hosts[@]:1}")"
durable_warc=false
[ "$durable" = 1 ] && durable_warc=true
fill_template "$repo/bench/crawl_bloomcrawl.conf" "$work/bloomcrawl.json" SEED="$seed" \
  ALLOWED_HOSTS="${allowed_hosts%, }" PER_HOST="$per_host" OUTPUT="$work/bloomcrawl-out" \
  MEMORY_LIMIT_MB="$memory_limit_mb" TLS_FETCH="" WARC="$durable_warc"
if [ "$https" = 1 ]; then
  [ -n "$kill_at_percent" ] && { log "--https and --kill-at-percent do not go together"; exit 2; }
  # A CA made for this run, and one certificate naming every host's address.
  tls="$work/tls"
  mkdir -p "$tls"
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 -subj "/CN=crawl_bench CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
  openssl req "${ec[@]}" -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=${hosts[0]}" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$(printf 'IP:%s,' "${hosts[@]}" | sed 's/,$//')" >"$tls/server.ext"
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
    -out "$tls/server.pem" -days 2 -extfile "$tls/server.ext" 2>/dev/null
  fill_template "$repo/bench/crawl_bloomcrawl.conf" "$work/bloomcrawl-https.json" SEED="${seed/http:/https:}" \
    ALLOWED_HOSTS="${allowed_hosts%, }" PER_HOST="$per_host" OUTPUT="$work/bloomcrawl-out" \
    MEMORY_LIMIT_MB="$memory_limit_mb" TLS_FETCH="\"ca_file\": \"$tls/ca.pem\"," WARC=false
fi
# site_scheme http|https: the site's absolute links (written http:// or HTTP://) made to use it.
site_scheme() {
  local from='(http|HTTP)s://' to='\1://'
  [ "$1" = https ] && { from='(http|HTTP)://'; to='\1s://'; }
  { grep -rlE "$from" "$work/site" || true; } | xargs -r sed -i -E "s#$from#$to#g"
}
# The HTTPS row: the site's links and nginx switched to HTTPS with HTTP/2 for one crawl, then back.
run_https() {
  log "switching the site to https"
  site_scheme https
  nginx_blocks " ssl http2"
  nginx_tls="ssl_certificate $tls/server.pem; ssl_certificate_key $tls/server.key;"
  rm -rf "$work/bloomcrawl-out"
  run_tool "bloomcrawl-https$1" "$bloomcrawl" crawl --config "$work/bloomcrawl-https.json"
  row_names+=("bloomcrawl-https$1")
  nginx_blocks ""
  nginx_tls=""
  site_scheme http
}
ours_json="$work/bloomcrawl.json"
if [ -n "$ours_config" ]; then
  [ -n "$kill_at_percent" ] && { log "--ours-config and --kill-at-percent do not go together"; exit 2; }
  ours_json="$work/bloomcrawl-ours.json"
  "$py" - "$work/bloomcrawl.json" "$ours_config" "$ours_json" <<'PY'
import json, sys
# The template's comments are whole lines starting with // (the crawler's loader skips them).
config = json.loads("".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//")))
for section, value in json.loads(sys.argv[2]).items():
    if isinstance(value, dict) and isinstance(config.get(section), dict):
        config[section].update(value)
    else:
        config[section] = value
json.dump(config, open(sys.argv[3], "w"), indent=1)
PY
fi
bloomcrawl_cmd=("$bloomcrawl" crawl --config "$ours_json")
# --durable: a checkpoint directory (emptied before each crawl), so the crawl journals.
durable_args=()
if [ "$durable" = 1 ]; then
  [ -n "$kill_at_percent" ] && { log "--durable and --kill-at-percent do not go together"; exit 2; }
  durable_args=(--checkpoint-dir "$work/durable-ckpt")
  bloomcrawl_cmd+=("${durable_args[@]}")
fi
fill_template "$repo/bench/crawl_bloomcrawl.conf" "$work/bloomcrawl-warc.json" SEED="$seed" \
  ALLOWED_HOSTS="${allowed_hosts%, }" PER_HOST="$per_host" OUTPUT="$work/bloomcrawl-warc-out" \
  MEMORY_LIMIT_MB="$memory_limit_mb" TLS_FETCH="" WARC=true
warc_cmd=("$bloomcrawl" crawl --config "$work/bloomcrawl-warc.json")
if [ -n "$kill_at_percent" ]; then
  kill_after=$(( truth_pages * kill_at_percent / 100 ))
  bloomcrawl_cmd=("$repo/bench/crawl_kill_resume.sh" "$bloomcrawl" "$work/bloomcrawl.json" "$work/bloomcrawl-ckpt"
                  "$work/bloomcrawl.access.log" "$kill_after" "$work/kill-inspect.json")
  [ "$rounds" = 1 ] || { log "--kill-at-percent takes one round"; exit 2; }
fi
# run_warc SUFFIX: our crawl with WARC output on (row bloomcrawl-warcSUFFIX).
run_warc() {
  rm -rf "$work/bloomcrawl-warc-out"
  run_tool "bloomcrawl-warc$1" "${warc_cmd[@]}"
  row_names+=("bloomcrawl-warc$1")
  du -sb "$work/bloomcrawl-warc-out/warc" | cut -f1 >"$work/warc-bytes.txt"
}
row_names=(wrk)
# run_baseline SUFFIX: the baseline binary's crawl (row baselineSUFFIX).
run_baseline() {
  rm -rf "$work/bloomcrawl-out" "$work/durable-ckpt"
  local baseline_checkpoint=()
  [ -n "$kill_at_percent" ] && { rm -rf "$work/baseline-ckpt"; baseline_checkpoint=(--checkpoint-dir "$work/baseline-ckpt"); }
  run_tool "baseline$1" "$baseline_bin" crawl --config "$work/bloomcrawl.json" "${baseline_checkpoint[@]}" \
    "${durable_args[@]}"
  row_names+=("baseline$1")
}
for round in $(seq "$rounds"); do
  suffix=""; [ "$round" -lt "$rounds" ] && suffix="-$round"
  # The baseline crawls right before ours; with --durable, right after ours in even rounds, so that
  # neither side always has the warmer page cache or the load's drift.
  baseline_after=0
  [ "$durable" = 1 ] && [ $((round % 2)) = 0 ] && baseline_after=1
  [ -n "$baseline_bin" ] && [ "$baseline_after" = 0 ] && run_baseline "$suffix"
  # With --warc, every other round crawls with WARC first: a machine whose load drifts during a
  # round then favours neither side of the comparison.
  [ "$warc" = 1 ] && [ $((round % 2)) = 0 ] && run_warc "$suffix"
  rm -rf "$work/bloomcrawl-out" "$work/durable-ckpt"
  run_tool "bloomcrawl$suffix" "${bloomcrawl_cmd[@]}"
  row_names+=("bloomcrawl$suffix")
  [ "$https" = 1 ] && run_https "$suffix"
  [ "$warc" = 1 ] && [ $((round % 2)) = 1 ] && run_warc "$suffix"
  [ -n "$baseline_bin" ] && [ "$baseline_after" = 1 ] && run_baseline "$suffix"
done
warc_args=()
if [ "$warc" = 1 ]; then
  # The compressor's own cost on the same bodies: every page of the site, as nginx served them.
  find "$work/site" -name '*.html' | sort >"$work/warc-bodies.txt"
  "$repo/build/release/bench/warc_compress_bench" "$work/warc-bodies.txt" >"$work/warc-floor.json"
  warc_args=(--warc-floor "$work/warc-floor.json" --warc-bytes "$(cat "$work/warc-bytes.txt")")
fi

# From the temp dir: Scrapy looks for a project (scrapy.cfg) upwards from where it runs.
scrapy_cmd=(env -C "$work" "$py" -m scrapy runspider "$repo/bench/scrapy_spider.py" -a "start=$seed" -a "hosts=$host_list"
            -s "CLOSESPIDER_TIMEOUT=$scrapy_seconds")
[ "$others" = 1 ] && { run_tool scrapy "${scrapy_cmd[@]}"; row_names+=(scrapy); }

wget_cmd=(wget --recursive --level=inf --span-hosts "--domains=$host_list" -e robots=on --no-verbose
          --user-agent=wget-bench "--directory-prefix=$work/wget-out" "--output-file=$work/wget.log" "$seed")
[ "$others" = 1 ] && { run_tool wget "${wget_cmd[@]}"; row_names+=(wget); }

load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
cat >"$work/setup.md" <<EOF
- Machine load (1/5/15-minute load average) when the measurements started: $load_start; when they
  ended: $load_end. Above 2 on these 2 cores, other jobs took CPU from the tools and the server.
- Site: \`bloomcrawl-testweb generate\`, $pages_per_host content pages on each of ${#hosts[@]} hosts
  (${hosts[*]}), port $port, $truth_pages URLs in the ground truth (every URL a polite crawler
  fetches from the seed $seed: robots.txt obeyed, rel=nofollow and meta-robots nofollow obeyed;
  404 pages included). Links to a page come in many equivalent spellings (scheme/host case,
  \`./\`, \`zz/../\`, percent-escaped letters, fragments), so a tool that does not canonicalize
  fetches pages twice.
- Server: nginx $(nginx -v 2>&1 | sed 's|.*/||'), 2 workers, one server block per host chosen by the
  Host header, all listening on the three loopback addresses; a fresh nginx (and access log) per
  tool, sendfile, keep-alive, no gzip. Config: \`bench/crawl_nginx.conf\`.
- Hosts: three, because all three crawlers stay in scope across them (wget with
  \`--span-hosts --domains\`, Scrapy with \`allowed_domains\`, bloomcrawl with
  \`scope.allowed_hosts\`), all starting from the one seed.
- Robots: obeyed by every tool (bloomcrawl default, wget \`-e robots=on\`, Scrapy
  \`ROBOTSTXT_OBEY\`); robots.txt requests are not counted as pages.
- bloomcrawl: \`bench/crawl_bloomcrawl.conf\`: no politeness delay, $per_host transfers per host,
  fetch.threads 2 x 32 transfers, allowed_ranges 127.0.0.0/8, max_depth -1, pages.jsonl and
  report.json written to a temp dir.$([ -n "$ours_config" ] && printf '%s' "
  Ours only (--ours-config), merged into that config: \`$ours_config\`.")
- Scrapy $("$py" -c 'import scrapy; print(scrapy.__version__)'): \`bench/scrapy_spider.py\`, 64
  concurrent requests, no delay, breadth-first, no retries, nofollow obeyed (its LinkExtractor
  matches \`rel=nofollow\` case-sensitively, so \`rel="NoFollow"\` links are followed). **Stopped
  after ${scrapy_seconds} s** (CLOSESPIDER_TIMEOUT): at its rate the whole site would take about half an
  hour, so its ground-truth coverage is partial by design; its pages/s and CPU per page are
  measured over the pages it did fetch.
- wget $(wget --version | head -1 | awk '{print $3}'): one connection (wget has no concurrency), files
  written to a temp dir; it ignores \`rel=nofollow\`, so it also fetches the nofollow-only pages.
- wrk: 2 threads, 64 connections, ${wrk_seconds} s, every ground-truth URL round-robin
  (\`bench/crawl_wrk.lua\`), with nginx's access log on as for the crawlers.
- Frontier: \`frontier.memory_limit_mb\` $memory_limit_mb.$([ -n "$kill_at_percent" ] && printf '%s' "
  **Kill and resume**: our crawl checkpoints into TMP/bloomcrawl-ckpt (the default interval), is
  killed with SIGKILL once nginx has logged $kill_at_percent% of the ground truth's count of requests, and is
  resumed with \`--resume\` to the end (\`bench/crawl_kill_resume.sh\`): its wall time, CPU and peak
  RSS cover both runs and the restart between them. The baseline checkpoints with the same
  settings (into TMP/baseline-ckpt) and is not killed.")
- Order: wrk (also warms the page cache), bloomcrawl$([ "$https" = 1 ] && printf '%s' " then
  bloomcrawl-https (the same crawl over HTTPS with HTTP/2 against the same nginx, listening with
  \`ssl http2\` and a certificate (ECDSA P-256) from a CA made for the run, trusted with
  \`fetch.ca_file\`; the site's absolute links rewritten to https:// for it)"), Scrapy, wget; each tool under
  \`/usr/bin/time -v\`, stopped after ${tool_timeout_s} s if still running.

Commands (TMP is the run's temp dir):

\`\`\`
$(printf '%q ' "${wrk_cmd[@]}")
$(printf '%q ' "${bloomcrawl_cmd[@]}")
$([ "$https" = 1 ] && printf '%q ' "$bloomcrawl" crawl --config "$work/bloomcrawl-https.json")
$([ "$warc" = 1 ] && printf '%q ' "${warc_cmd[@]}")
$([ -n "$baseline_bin" ] && printf '%q ' "$baseline_bin" crawl --config "$work/bloomcrawl.json" ${kill_at_percent:+--checkpoint-dir "$work/baseline-ckpt"} "${durable_args[@]}")
$([ "$others" = 1 ] && printf '%q ' "${scrapy_cmd[@]}")
$([ "$others" = 1 ] && printf '%q ' "${wget_cmd[@]}")
\`\`\`
EOF
sed -i -e "s|$work|TMP|g" -e "s|$repo/||g" "$work/setup.md"

# The profile run: where bloomcrawl's CPU goes (per thread, per library, per function) and how
# many connections it really holds per host (sampled with ss every second).
profile_bloomcrawl() {
  log "profiling bloomcrawl (perf record; not part of the figures)"
  rm -rf "$work/bloomcrawl-out"
  start_nginx profile
  perf record -F 499 -o "$work/perf.data" -- "${bloomcrawl_cmd[@]}" >"$work/profile.out" 2>&1 &
  local perf_pid=$! max_conns=""
  while kill -0 "$perf_pid" 2>/dev/null; do
    sleep 1
    max_conns+="$(ss -Htn state established "( dport = :$port )" | awk '{split($4, a, ":"); print a[1]}' \
      | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}')"$'\n'
  done
  wait "$perf_pid" || log "perf record exited with status $?"
  stop_nginx
  {
    echo "## Profile of bloomcrawl (a separate run under perf record -F 499)"
    echo
    echo "Established connections per host (the config allows $per_host), sampled each second during the"
    echo "crawl, and how many samples saw each combination:"
    echo
    echo '```'
    echo "$max_conns" | grep -v '^$' | sort | uniq -c | sort -rn | head -5 | sed 's/, $//' || true
    echo '```'
    for key in pid dso sym; do
      echo
      echo "Share of CPU samples by $( [ $key = pid ] && echo "thread (tid)" || echo $key ):"
      echo
      echo '```'
      perf report -i "$work/perf.data" --no-children -g none --sort "$key" --stdio 2>/dev/null \
        | grep -v -e '^#' -e '^$' | head -"$( [ $key = sym ] && echo 15 || echo 6 )" || true
      echo '```'
    done
  } >"$work/profile.md"
}
# What parsing alone allows on these cores: Gumbo's bare parse (the crawler's parser, as links_bench
# times it) of every 20th page of the site, CPU time. No crawl can fetch and parse faster.
log "timing the parse of the site's pages (links_bench)"
find "$work/site" -name '*.html' | sort | awk 'NR % 20 == 0' >"$work/parse-pages.txt"
LINKS_BENCH_PAGES="$work/parse-pages.txt" "$repo/build/release/bench/links_bench" \
  --benchmark_filter='^BM_GumboBareParseNoErrors$' --benchmark_min_time=2 --benchmark_format=json >"$work/parse.json"

notes_parts=()
if [ "$profile" = 1 ]; then
  if command -v perf >/dev/null && perf record -o /dev/null -- true >/dev/null 2>&1; then
    profile_bloomcrawl
    notes_parts+=("$work/profile.md")
  else
    log "perf is missing or not permitted: no profile"
  fi
fi
# --durable: the syncs each binary makes, counted by strace in one more crawl each (not timed).
count_syncs() {  # name binary
  rm -rf "$work/bloomcrawl-out" "$work/durable-ckpt"
  start_nginx "syncs-$1"
  strace -f -c -e trace=fsync,fdatasync -o "$work/$1.strace" \
    "$2" crawl --config "$work/bloomcrawl.json" "${durable_args[@]}" >"$work/$1.syncs.out" 2>&1 \
    || log "$1 under strace exited with status $?"
  stop_nginx
  local pages fsyncs fdatasyncs
  pages=$(wc -l <"$work/bloomcrawl-out/pages.jsonl")
  fsyncs=$(awk '$NF == "fsync" {print $4}' "$work/$1.strace" | head -1)
  fdatasyncs=$(awk '$NF == "fdatasync" {print $4}' "$work/$1.strace" | head -1)
  awk -v b="$1" -v p="$pages" -v f="${fsyncs:-0}" -v d="${fdatasyncs:-0}" \
    'BEGIN {printf "| %s | %d | %d | %d | %.1f |\n", b, p, f, d, (f + d) * 1000 / p}'
}
if [ "$durable" = 1 ]; then
  log "counting syncs (strace; not part of the timed figures)"
  {
    echo "## Syncs per 1,000 pages (--durable: checkpoint directory and WARC on)"
    echo
    echo "One more crawl of each binary under \`strace -f -c -e trace=fsync,fdatasync\` (not timed):"
    echo "every thread's calls, checkpoints included. Pages: lines of pages.jsonl."
    echo
    echo "| binary | pages | fsync | fdatasync | syncs per 1,000 pages |"
    echo "|---|---:|---:|---:|---:|"
    [ -n "$baseline_bin" ] && count_syncs baseline "$baseline_bin"
    count_syncs bloomcrawl "$bloomcrawl"
  } >"$work/syncs.md"
  notes_parts+=("$work/syncs.md")
fi
[ -n "$notes_file" ] && notes_parts+=("$notes_file")
notes=()
if [ ${#notes_parts[@]} -gt 0 ]; then
  for part in "${notes_parts[@]}"; do cat "$part"; echo; done >"$work/notes.md"
  notes=(--notes "$work/notes.md")
fi
mkdir -p "$(dirname "$out")"
row_files=()
for name in "${row_names[@]}"; do row_files+=("$work/rows/$name.json"); done
kill_args=()
[ -n "$kill_at_percent" ] && kill_args=(--kill-inspect "$work/kill-inspect.json")
"$py" "$repo/bench/crawl_analyze.py" report --rows "${row_files[@]}" \
  --setup "$work/setup.md" --parse "$work/parse.json" --out "$out" "${notes[@]}" "${kill_args[@]}" "${warc_args[@]}"
log "wrote $out"
cat "$out"
