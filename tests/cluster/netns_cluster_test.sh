#!/bin/bash
# Cluster mode across machines (docs/cluster.md, "Authentication"): Redis, the test web and two nodes
# each in a network namespace of their own (their own network stack, as separate machines), joined
# by a bridge in a private /24 (10.231.23.0/24) that never leaves this machine. Redis listens on its
# namespace address with protected mode on, a password and a Redis 6 ACL user; node 0 takes the
# user's password from an environment variable, node 1 from --cluster's URL. Node 1 is killed with
# kill -9 mid-crawl and resumed. Checks: every page of the test web fetched, repeats no more than
# node 1 had outstanding at the kill, and the passwords in no report, checkpoint, log or status output.
# Usage: netns_cluster_test.sh BLOOMCRAWL BLOOMCRAWL_TESTWEB. Exit 77 (ctest: skipped) with the reason
# printed when network namespaces cannot be made here.
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
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"
command -v redis-server >/dev/null || skip "redis-server is not installed"
command -v redis-cli >/dev/null || skip "redis-cli is not installed"

tag="bc$$"
# One fixed /24: the bridge lives in this run's own hub namespace, so runs cannot clash, and in it
# each node owns three of the web's six hosts (node 0 .10 .13 .15, node 1 .11 .12 .14; pinned by
# HostPartition.OwnersAreTheSameInEveryBuild). An address drawn at random left node 1 no host or
# one in about one run in ten, so it finished before the kill.
net="10.231.23"
work=$(mktemp -d)
namespaces=()
cleanup() {
  # Every process in the namespaces this script made is one it started.
  for ns in "${namespaces[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  done
  wait 2>/dev/null || true
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
# Reads lines from file descriptor $1 until one holds $2; fails after 20 s.
wait_for_line() {
  local fd=$1 text=$2 line
  while IFS= read -r -t 20 -u "$fd" line; do
    [[ $line == *"$text"* ]] && return 0
  done
  fail "no \"$text\" within 20 s"
}
trap cleanup EXIT

ip netns add "$tag-hub" 2>/dev/null || skip "ip netns add failed (no CAP_SYS_ADMIN in this container?)"
namespaces+=("$tag-hub")
ip -n "$tag-hub" link add br0 type bridge
ip -n "$tag-hub" link set br0 up
# machine name, its addresses (the last octets)
add_machine() {
  local name=$1
  shift
  ip netns add "$tag-$name"
  namespaces+=("$tag-$name")
  ip -n "$tag-hub" link add "v-$name" type veth peer name eth0 netns "$tag-$name"
  ip -n "$tag-hub" link set "v-$name" master br0 up
  for octet in "$@"; do ip -n "$tag-$name" addr add "$net.$octet/24" dev eth0; done
  ip -n "$tag-$name" link set lo up
  ip -n "$tag-$name" link set eth0 up
}
add_machine redis 1
add_machine web 10 11 12 13 14 15
add_machine n0 20
add_machine n1 21
in_ns() {
  local name=$1
  shift
  ip netns exec "$tag-$name" "$@"
}

# Redis: protected mode on, a password for the default user and an ACL user for the nodes.
default_password="default-$RANDOM-secret"
node_password="crawler-$RANDOM-secret"
mkdir -p "$work/redis"
exec {redis_log}< <(in_ns redis redis-server --bind "$net.1" --port 6379 --protected-mode yes \
  --requirepass "$default_password" --user crawler on ">$node_password" "~*" "&*" "+@all" --save "" \
  --appendonly no --dir "$work/redis" --daemonize no --logfile "" 2>&1)
wait_for_line "$redis_log" "Ready to accept connections"
[ "$(in_ns n0 redis-cli -h "$net.1" ping 2>&1)" != PONG ] || fail "Redis answered a client without a password"
[ "$(in_ns n0 redis-cli -h "$net.1" --user crawler --pass "$node_password" --no-auth-warning ping)" = PONG ] ||
  fail "node 0 cannot reach Redis across the bridge"

# The test web, six hosts on the web machine.
hosts="$net.10,$net.11,$net.12,$net.13,$net.14,$net.15"
exec {web_out}< <(ip netns exec "$tag-web" "$testweb" --hosts "$hosts" --port 8080 --pages 40 --delay-ms 5 \
  --no-trap --ground-truth "$work/truth.json" --truth-depth 64 --log "$work/web.json" 2>&1)
wait_for_line "$web_out" "serving"

for node in 0 1; do
  cat >"$work/node$node.json" <<JSON
{"seeds": {"urls": ["http://$net.10:8080/"]},
 "scope": {"allowed_hosts": ["$net.10", "$net.11", "$net.12", "$net.13", "$net.14", "$net.15"], "max_depth": -1},
 "politeness": {"delay_ms": 0, "concurrency_per_host": 4},
 "fetch": {"allowed_ranges": ["$net.0/24"]},
 "output": {"directory": "$work/out$node"},
 "checkpoint": {"directory": "$work/ckpt$node"},
 "logging": {"progress": "never"},
 "cluster": {"user": "crawler"$([ "$node" = 0 ] && echo ', "password_env": "BC_REDIS_PASSWORD"')}}
JSON
done
run_node() {  # node, log tag, extra arguments
  local node=$1 log=$2
  shift 2
  local url="redis://$net.1:6379/net"
  [ "$node" = 1 ] && url="redis://crawler:$node_password@$net.1:6379/net"
  # `ip netns exec` execs the program: $! is the node's own pid.
  BC_REDIS_PASSWORD="$node_password" ip netns exec "$tag-n$node" "$bloomcrawl" crawl --config "$work/node$node.json" \
    --cluster "$url" --nodes 2 --node "$node" "$@" >/dev/null 2>"$work/$log.stderr" &
  last_pid=$!
}
run_node 0 run0
pid0=$last_pid
run_node 1 run1
pid1=$last_pid

total=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["urls"]))' "$work/truth.json")
# Node 1 is killed once it has recorded a sixth of the pages (a wait on its output, bounded).
for _ in $(seq 600); do
  [ "$(cat "$work/out1/pages.jsonl" 2>/dev/null | wc -l)" -ge $((total / 6)) ] && break
  kill -0 "$pid1" 2>/dev/null || fail "node 1 ended early: $(cat "$work/run1.stderr")"
  sleep 0.05
done
kill -KILL "$pid1"
wait "$pid1" 2>/dev/null || true
outstanding=$("$bloomcrawl" inspect "$work/ckpt1" 2>/dev/null |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["since_generation"]["in_flight_at_stop"])')
run_node 1 resume1 --resume
pid1=$last_pid
wait "$pid0" || fail "node 0 exited $?: $(cat "$work/run0.stderr")"
wait "$pid1" || fail "resumed node 1 exited $?: $(cat "$work/resume1.stderr")"
in_ns n0 "$bloomcrawl" status --cluster "redis://crawler:$node_password@$net.1:6379/net" --json >"$work/status.json"
for pid in $(ip netns pids "$tag-web"); do kill -TERM "$pid"; done
wait_for_line "$web_out" "duplicate"  # its one-line summary, written after the log file

python3 - "$work" "$outstanding" <<'PY'
import json, sys, pathlib
work, outstanding = pathlib.Path(sys.argv[1]), int(sys.argv[2])
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
assert repeats <= outstanding, f"{repeats} repeats, node 1 had {outstanding} outstanding at the kill"
status = json.load(open(work / "status.json"))
assert status["done"], status
print(f"PASS: {len(truth)} pages over 2 nodes in network namespaces, {repeats} repeats "
      f"(node 1 had {outstanding} outstanding at the kill)")
PY
if grep -rlF -e "$node_password" -e "$default_password" "$work"/out* "$work"/ckpt* "$work"/*.stderr "$work/status.json"; then
  fail "a password was written to the file(s) above"
fi
