#!/bin/bash
# The stunnel recipe of docs/cluster.md ("TLS"), as written there, on loopback: Redis bound to
# 127.0.0.1 with a password, a server-side stunnel in front of it holding a certificate for
# redis.internal (from a CA made for the run), and a client-side stunnel (client = yes, CAfile,
# verifyChain, checkHost) that the nodes talk plain Redis to. Checks:
#  - the port between the two stunnels speaks TLS only (a plain PING there gets no PONG);
#  - two nodes crawl the test web through the client stunnel, with the password from the
#    environment: every page fetched once, both exit 0, the password in no output;
#  - a client stunnel that trusts another CA refuses the server, and a node through it stops with
#    exit 1 and an error naming the cluster's URL, never a hang or a crash.
# Usage: stunnel_cluster_test.sh BLOOMCRAWL BLOOMCRAWL_TESTWEB. Exit 77 (ctest: skipped) with the
# reason printed when stunnel, redis-server or openssl is missing.
set -euo pipefail

bloomcrawl=$1
testweb=$2
skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in stunnel redis-server redis-cli openssl python3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/install-deps.sh installs it)"
done

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# Reads lines from file descriptor $1 until one holds $2; fails after 20 s.
wait_for_line() {
  local fd=$1 text=$2 line
  while IFS= read -r -t 20 -u "$fd" line; do
    [[ $line == *"$text"* ]] && return 0
  done
  fail "no \"$text\" within 20 s"
}
# Free loopback ports, chosen by the kernel (bound and released at once).
read -r redis_port tls_port client_port bad_client_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')

# A CA for the run and a certificate for redis.internal; a second CA that signed nothing of ours.
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
for ca in ca other-ca; do
  openssl req -x509 "${ec[@]}" -keyout "$work/$ca.key" -out "$work/$ca.pem" -days 2 -subj "/CN=stunnel test $ca" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
done
openssl req "${ec[@]}" -keyout "$work/redis.key" -out "$work/redis.csr" -subj "/CN=redis.internal" 2>/dev/null
printf 'subjectAltName=DNS:redis.internal\nextendedKeyUsage=serverAuth\n' >"$work/redis.ext"
openssl x509 -req -in "$work/redis.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
  -out "$work/redis.pem" -days 2 -extfile "$work/redis.ext" 2>/dev/null

password="stunnel-$RANDOM-secret"
mkdir -p "$work/redis"
exec {redis_log}< <(exec redis-server --bind 127.0.0.1 --port "$redis_port" --requirepass "$password" --save "" \
  --appendonly no --dir "$work/redis" --daemonize no --logfile "" 2>&1)
pids+=($!)
wait_for_line "$redis_log" "Ready to accept connections"

# start_stunnel NAME CONFIG-LINES: stunnel in the foreground, logging to stderr, until it listens.
start_stunnel() {
  local name=$1
  printf 'foreground = yes\npid =\noutput = /dev/stderr\ndebug = 5\n[redis]\n%s\n' "$2" >"$work/$name.conf"
  exec {stunnel_log}< <(exec stunnel "$work/$name.conf" 2>&1)
  pids+=($!)
  wait_for_line "$stunnel_log" "Configuration successful"
}
# The Redis machine's side (docs/cluster.md's second block).
start_stunnel server "accept = 127.0.0.1:$tls_port
connect = 127.0.0.1:$redis_port
cert = $work/redis.pem
key = $work/redis.key"
# Each node's side (docs/cluster.md's first block; the server's address for redis.internal's).
start_stunnel client "client = yes
accept = 127.0.0.1:$client_port
connect = 127.0.0.1:$tls_port
CAfile = $work/ca.pem
verifyChain = yes
checkHost = redis.internal"

if [ "$(timeout 10 redis-cli -p "$tls_port" -a "$password" --no-auth-warning ping 2>/dev/null)" = PONG ]; then
  fail "the port between the stunnels answered plain Redis"
fi
[ "$(timeout 10 redis-cli -p "$client_port" -a "$password" --no-auth-warning ping)" = PONG ] ||
  fail "Redis does not answer through the two stunnels"

exec {web_out}< <(exec "$testweb" --hosts 127.0.0.2,127.0.0.3,127.0.0.4 --port 0 --pages 20 --no-trap \
  --ready-file "$work/web.port" --ground-truth "$work/truth.json" --truth-depth 64 --log "$work/web.json" 2>&1)
web_pid=$!
pids+=("$web_pid")
wait_for_line "$web_out" "serving"
web_port=$(cat "$work/web.port")

for node in 0 1; do
  cat >"$work/node$node.json" <<JSON
{"seeds": {"urls": ["http://127.0.0.2:$web_port/"]},
 "scope": {"allowed_hosts": ["127.0.0.2", "127.0.0.3", "127.0.0.4"], "max_depth": -1},
 "politeness": {"delay_ms": 0},
 "fetch": {"allowed_ranges": ["127.0.0.0/8"]},
 "output": {"directory": "$work/out$node"},
 "logging": {"progress": "never"},
 "cluster": {"password_env": "BC_REDIS_PASSWORD"}}
JSON
done
node_pids=()
for node in 0 1; do
  BC_REDIS_PASSWORD="$password" timeout 120 "$bloomcrawl" crawl --config "$work/node$node.json" \
    --cluster "redis://127.0.0.1:$client_port/tls" --nodes 2 --node "$node" >/dev/null 2>"$work/run$node.stderr" &
  node_pids+=($!)
done
for node in 0 1; do
  wait "${node_pids[$node]}" || fail "node $node exited $?: $(cat "$work/run$node.stderr")"
done
kill -TERM "$web_pid"
wait_for_line "$web_out" "duplicate"  # its one-line summary, written after the log file

python3 - "$work" <<'PY'
import json, sys, pathlib
work = pathlib.Path(sys.argv[1])
truth = set(json.load(open(work / "truth.json"))["urls"])
fetched = set()
for node in (0, 1):
    for line in open(work / f"out{node}" / "pages.jsonl"):
        record = json.loads(line)
        if record.get("status", 0) != 0:
            fetched.add(record["url"])
missing, extra = truth - fetched, fetched - truth
assert not missing and not extra, f"missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}"
repeats = json.load(open(work / "web.json"))["duplicate_fetches"]
assert repeats == 0, f"{repeats} pages fetched twice"
print(f"PASS: {len(truth)} pages over 2 nodes through stunnel, none fetched twice")
PY
if grep -rlF -e "$password" "$work"/out* "$work"/run*.stderr; then
  fail "the password was written to the file(s) above"
fi

# A client stunnel that trusts another CA: the TLS handshake fails, stunnel drops the connection,
# and the node must stop with its own error.
start_stunnel bad-client "client = yes
accept = 127.0.0.1:$bad_client_port
connect = 127.0.0.1:$tls_port
CAfile = $work/other-ca.pem
verifyChain = yes
checkHost = redis.internal"
status=0
BC_REDIS_PASSWORD="$password" timeout 120 "$bloomcrawl" crawl --config "$work/node0.json" \
  --output "$work/bad-out" --cluster "redis://127.0.0.1:$bad_client_port/untrusted" --nodes 2 --node 0 \
  >/dev/null 2>"$work/bad.stderr" || status=$?
[ "$status" = 1 ] || fail "a node behind an untrusting stunnel exited $status (want 1): $(cat "$work/bad.stderr")"
grep -q "redis://127.0.0.1:$bad_client_port" "$work/bad.stderr" ||
  fail "the error does not name the cluster's Redis: $(cat "$work/bad.stderr")"
echo "PASS: a node behind a stunnel that refuses the server's certificate stops: $(head -c 300 "$work/bad.stderr")"
