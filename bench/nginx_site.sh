# Sourced by the crawl benchmarks (bench/crawl_bench.sh, bench/cluster_bench.sh): generates the
# benchmark site and serves it with nginx (bench/crawl_nginx.conf) on loopback hosts.
# The caller sets: repo, py (a python3), hosts (an array of loopback addresses), port (empty: a free
# one), pages_per_host, keep (1: keep the temp dir), and a log function. This defines: work (the
# temp dir, removed on exit unless keep=1), nginx_prefix, port, host_list, seed, truth (the ground
# truth's URL list), truth_pages, fill_template, nginx_blocks [LISTEN_OPTIONS] and nginx_tls
# (HTTPS), start_nginx NAME (a fresh nginx logging to $work/NAME.access.log) and stop_nginx; and
# it sets the EXIT trap that stops nginx.

# On tmpfs when there is one: the site, wget's copy and the logs are ~150,000 files that a disk
# would make slow to write and to delete (minutes on a busy machine) and noisy to measure beside.
tmp_parent=/tmp
[ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -gt $((4 << 20)) ] && tmp_parent=/dev/shm
work="$(mktemp -d "$tmp_parent/crawl-bench.XXXXXX")"
chmod 755 "$work"  # nginx workers run unprivileged and must read the site
nginx_prefix="$work/nginx"
mkdir -p "$nginx_prefix/tmp" "$work/rows"

stop_nginx() {
  local pid_file="$nginx_prefix/nginx.pid"
  [ -f "$pid_file" ] || return 0
  local pid
  pid="$(cat "$pid_file")"
  kill -QUIT "$pid" 2>/dev/null || true  # graceful: finishes requests, flushes the access log
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "nginx $pid did not stop in 10 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
}
cleanup() {
  stop_nginx
  if [ "$keep" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$port" ]; then
  # A port free on every host address.
  port="$("$py" - "${hosts[@]}" <<'EOF'
import socket, sys
for _ in range(50):
    with socket.socket() as s:
        s.bind((sys.argv[1], 0))
        port = s.getsockname()[1]
    try:
        for host in sys.argv[1:]:
            with socket.socket() as t:
                t.bind((host, port))
        print(port)
        break
    except OSError:
        continue
EOF
)"
fi
[ -n "$port" ] || { log "no free port found"; exit 1; }

host_list="$(IFS=,; echo "${hosts[*]}")"
seed="http://${hosts[0]}:$port/"
truth="$work/truth.txt"
log "generating $pages_per_host pages on each of ${#hosts[@]} hosts, port $port"
"$testweb" generate --out "$work/site" --hosts "$host_list" --port "$port" --pages "$pages_per_host" \
  --ground-truth "$truth" 2>"$work/generate.log" || { cat "$work/generate.log" >&2; exit 1; }
truth_pages="$(wc -l <"$truth")"
log "ground truth: $truth_pages URLs"

# nginx_blocks [LISTEN_OPTIONS]: the server blocks (default_listen, servers) for the hosts, each
# listen line with LISTEN_OPTIONS (" ssl http2" for HTTPS); nginx_tls: the certificate directives.
nginx_blocks() {
  default_listen=""
  servers=""
  for h in "${hosts[@]}"; do default_listen+="    listen $h:$port$1 default_server;"$'\n'; done
  for h in "${hosts[@]}"; do
    servers+=$'\n'"  server {"$'\n'
    for l in "${hosts[@]}"; do servers+="    listen $l:$port$1;"$'\n'; done
    servers+="    server_name $h;"$'\n'"    root $work/site/$h;"$'\n'"    index index.html;"$'\n'"  }"$'\n'
  done
}
nginx_blocks ""
nginx_tls=""

# fill_template IN OUT KEY=VALUE...: IN with every @KEY@ replaced (values may span lines); an
# @NAME@ left over is an error, so a template and this script cannot drift apart silently.
fill_template() {
  "$py" - "$@" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
for pair in sys.argv[3:]:
    key, _, value = pair.partition("=")
    text = text.replace("@%s@" % key, value)
left = re.findall(r"@[A-Z_]+@", text)
if left:
    sys.exit("crawl_bench: %s: no value for %s" % (sys.argv[1], ", ".join(sorted(set(left)))))
open(sys.argv[2], "w").write(text)
EOF
}

# Starts a fresh nginx whose access log is $work/NAME.access.log (one log per measurement).
start_nginx() {
  local name="$1" conf="$nginx_prefix/$1.conf"
  fill_template "$repo/bench/crawl_nginx.conf" "$conf" DEFAULT_LISTEN="$default_listen" SERVERS="$servers" \
    PREFIX="$nginx_prefix" PORT="$port" ACCESS_LOG="$work/$name.access.log" TLS="$nginx_tls"
  nginx -p "$nginx_prefix" -c "$conf" -e "$nginx_prefix/error.log"
  for _ in $(seq 50); do
    if (exec 3<>"/dev/tcp/${hosts[0]}/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  log "nginx did not start listening on ${hosts[0]}:$port"; cat "$nginx_prefix/error.log" >&2; exit 1
}
