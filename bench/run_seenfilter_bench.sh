#!/usr/bin/env bash
# Builds Release, runs the seen-filter benchmarks (bench/seenfilter_bench.cc: SeenFilter vs
# libbloom vs an exact hash set, 1M/10M/100M keys) and the dedup comparison (`bloomcrawl dedup`
# vs libbloom vs awk '!seen[$0]++' vs sort -u over the same URL lines), and writes
# bench/results/seenfilter.md with the machine, the tables and pass/fail per target.
#
#   bench/run_seenfilter_bench.sh            # everything: about 15-25 minutes on 2 cores
#   bench/run_seenfilter_bench.sh --quick    # 1M and 10M keys, 1M dedup lines: a smoke run
#
# Env: BUILD_DIR (default build-release), OUT (default bench/results/seenfilter.md),
#      DEDUP_LINES (default 10000000), SEENFILTER_FILTER (a --benchmark_filter regex).
# Needs ~6 GB of RAM at 100M keys (the exact set alone is 2 GiB) and ~3 GB in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
BUILD_DIR=${BUILD_DIR:-build-release}
OUT=${OUT:-bench/results/seenfilter.md}
if ((quick)); then
  DEDUP_LINES=${DEDUP_LINES:-1000000}
  SEENFILTER_FILTER=${SEENFILTER_FILTER:-keys:(1|10)000000/}
else
  DEDUP_LINES=${DEDUP_LINES:-10000000}
  SEENFILTER_FILTER=${SEENFILTER_FILTER:-.}
fi

started=$(date +%s)
echo "== build (Release) in $BUILD_DIR" >&2
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBLOOMCRAWL_WERROR=ON -DBLOOMCRAWL_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target seenfilter_bench dedup_libbloom_bench bloomcrawl >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/seenfilter_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== seenfilter_bench (filter: $SEENFILTER_FILTER)" >&2
"$BUILD_DIR/bench/seenfilter_bench" --benchmark_filter="$SEENFILTER_FILTER" \
  --benchmark_out="$work/bench.json" --benchmark_out_format=json >&2

echo "== dedup over $DEDUP_LINES URL lines" >&2
"$BUILD_DIR/bench/seenfilter_bench" --emit_urls="$DEDUP_LINES" >"$work/urls.txt" 2>"$work/emit.log"
cat "$work/urls.txt" >/dev/null  # page cache warm for every contender alike

# run NAME CMD...: stdin = the URL lines, stdout -> NAME.out, stderr -> NAME.err, time -v -> NAME.time
run() {
  local name=$1
  shift
  echo "   $name: $*" >&2
  /usr/bin/time -v -o "$work/$name.time" "$@" <"$work/urls.txt" >"$work/$name.out" 2>"$work/$name.err"
}
run bloomcrawl "$BUILD_DIR/bloomcrawl" dedup --stats
run bloomcrawl_sized "$BUILD_DIR/bloomcrawl" dedup --stats --capacity "$DEDUP_LINES"
run libbloom "$BUILD_DIR/bench/dedup_libbloom_bench" "$DEDUP_LINES" 1e-6
run awk awk '!seen[$0]++'
run sort_u env LC_ALL=C sort -u

# Same lines in the same order as awk for the in-order tools; the same set for sort -u.
{
  for name in bloomcrawl bloomcrawl_sized libbloom; do
    if cmp -s "$work/$name.out" "$work/awk.out"; then echo "$name identical"; else echo "$name differs"; fi
  done
  if LC_ALL=C sort "$work/awk.out" | cmp -s - "$work/sort_u.out"; then echo "sort_u identical"; else echo "sort_u differs"; fi
  for name in bloomcrawl bloomcrawl_sized libbloom awk sort_u; do echo "$name lines $(wc -l <"$work/$name.out")"; done
} >"$work/verify.txt"

{
  echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "cpus=$(nproc)"
  echo "ram=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- seenfilter bench crawler || echo ' (with uncommitted changes)')"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "compiler=$(c++ --version | head -1)"
  echo "thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
  echo "libbloom=$(dpkg-query -W -f='${Version}' libbloom-dev 2>/dev/null || echo unknown)"
  echo "awk=$(readlink -f "$(command -v awk)")"
  echo "dedup_lines=$DEDUP_LINES"
  echo "emit=$(cat "$work/emit.log")"
  echo "elapsed=$(($(date +%s) - started))"
  echo "command=BUILD_DIR=$BUILD_DIR bench/run_seenfilter_bench.sh $*"
} >"$work/machine.txt"

mkdir -p "$(dirname "$OUT")"
python3 - "$work" >"$OUT" <<'PY'
import json, math, re, sys
work = sys.argv[1]
machine = dict(l.rstrip("\n").split("=", 1) for l in open(f"{work}/machine.txt") if "=" in l)
runs = {}
for b in json.load(open(f"{work}/bench.json"))["benchmarks"]:
    m = re.match(r"([^/]+)/fpr:([^/]+)/keys:(\d+)", b["name"])
    runs[(m.group(1), float(m.group(2)), int(m.group(3)))] = b

def get(s, fpr, n, key):
    b = runs.get((s, fpr, n))
    if b is None or b.get("error_occurred"): return None
    return b.get(key)

def ns(v): return "—" if v is None else f"{v:.1f}"
def mega(n): return f"{n // 1_000_000}M"
def pct(p): return f"{p:.3g}"

sizes = sorted({k[2] for k in runs})
fprs = sorted({k[1] for k in runs if k[1] > 0}, reverse=True)
labels = {
    "seen_right": "SeenFilter right-sized (capacity N, r 0.9 = library default)",
    "seen_one_layer": "SeenFilter right-sized, one layer (capacity N, r 0: the whole FPR to layer 0, no growth)",
    "seen_grown": "SeenFilter grown (capacity 1M, growth 2, r 0.8 = crawler config)",
    "libbloom": "libbloom " + machine["libbloom"] + " (same target FPR)",
    "exact_set": "exact set of 64-bit XXH3 hashes (flat, linear probing, load <= 0.5)",
}
structs = ["seen_right", "seen_one_layer", "seen_grown", "libbloom"]

print("# Seen-filter benchmarks\n")
print(f"Generated by `{machine['command'].strip()}` ({int(machine['elapsed']) // 60} min "
      f"{int(machine['elapsed']) % 60} s). Do not edit by hand.\n")
print("| machine | |\n|---|---|")
for k in ["cpu", "cpus", "ram", "date", "commit", "load", "compiler", "thp", "libbloom", "awk"]:
    print(f"| {k} | {machine[k]} |")
print()
print("""## How it is measured

- Keys: URL-shaped, 104 bytes on average, generated from an index (`bench/seenfilter_url_keys.h`):
  groups of 16 share a 60-120 byte prefix (scheme, host among 50,000 per name, deep path, item,
  query string) and differ in their last one or two characters; absent keys differ from present ones
  in exactly one character. All structures see the same keys. Keys are written into a reused chunk of
  8192 and only the calls on a filled chunk are timed: key generation is excluded, its cost is
  reported separately (`keygen`). `XXH3-128 alone` is the hash every SeenFilter call computes once
  per key, timed by itself over 4M of the same keys in the same run: a floor under every SeenFilter
  figure on one thread.
- Times are thread CPU time per key (`CLOCK_THREAD_CPUTIME_ID`), so time the shared machine gives to
  other processes is not counted; cache-miss stalls and page faults are. With 2 threads the figure is
  1 / (sum of both threads' rates): the wall time per key if each thread has a core.
- single = one `insert`/`contains` call per key; batch = `insert_batch`/`contains_batch` with 64 keys.
  Single and batch alternate chunk by chunk in one build, so both see the same fill and page faults.
  libbloom and the exact set have no batch call, and no thread-safe insert (no 2-thread build);
  their lookups are read-only and run on 2 threads.
- hit = lookups of 4M inserted keys spread over the whole set (in a grown filter, old keys sit in the
  oldest layer, probed last); miss = lookups of absent keys, which are also the FPR probes.
- FPR: false positives among `probes` absent keys, 95% Wilson interval. Probes: 10M at a 1% target,
  100M at 1e-6 (about 100 false positives expected at the target). `insert false seen` = new keys
  wrongly reported as already seen while the filter was built (what a crawl would lose).
- bits/key = all allocated bytes x 8 / keys inserted (a grown filter counts its whole active layer).
- Memory pages: SeenFilter's layers and the exact set are mmap'd with `madvise(MADV_HUGEPAGE)`
  (transparent huge pages, see `thp` above); libbloom allocates with `calloc` and gets 4 KiB pages.
- libbloom: Debian's libbloom 1.6 has `bloom_init(struct bloom*, int entries, double error)` only
  (no `bloom_init2`, which came with libbloom 2.0); entries, bits and bytes are `int`, so a filter is
  limited to 2^31-1 bits (256 MiB): 100M keys at 1e-6 need 2.9e9 bits and are reported as
  unsupported. Its k hashes are double hashing of two MurmurHash2 passes over the key, each bit a
  separate cache line.
""")

def ratio(a, b):
    return None if a is None or b is None else a / b

for fpr in fprs:
    print(f"## Target FPR {pct(fpr)}\n")
    print("| keys | structure | bits/key | layers | measured FPR [95% interval] | false positives / probes | insert false seen |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        for s in structs + ["exact_set"]:
            f = 0.0 if s == "exact_set" else fpr
            b = runs.get((s, f, n))
            if b is None: continue
            if b.get("error_occurred"):
                print(f"| {mega(n)} | {labels[s]} | — | — | unsupported: {b.get('error_message')} | | |")
                continue
            print(f"| {mega(n)} | {labels[s]} | {b['bits_per_key']:.2f} | {b['layers']:.0f} | "
                  f"{b['fpr']:.3g} [{b['fpr_low']:.3g}, {b['fpr_high']:.3g}] | "
                  f"{b['false_positives']:.0f} / {b['negative_probes']:.3g} | {b['insert_false_seen']:.0f} |")
    print()
    print("ns/key (lower is better); 2t = two threads.\n")
    cols = [("insert_ns", "insert"), ("insert_batch_ns", "insert batch"), ("insert_2t_ns", "insert 2t"),
            ("insert_2t_batch_ns", "insert batch 2t"), ("hit_ns", "hit"), ("hit_batch_ns", "hit batch"),
            ("hit_2t_ns", "hit 2t"), ("hit_2t_batch_ns", "hit batch 2t"), ("miss_ns", "miss"),
            ("miss_batch_ns", "miss batch"), ("miss_2t_ns", "miss 2t"), ("miss_2t_batch_ns", "miss batch 2t"),
            ("keygen_ns", "keygen"), ("hash_ns", "XXH3-128 alone")]
    print("| keys | structure | " + " | ".join(c[1] for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for n in sizes:
        for s in structs + ["exact_set"]:
            f = 0.0 if s == "exact_set" else fpr
            if get(s, f, n, "insert_ns") is None: continue
            # Only SeenFilter hashes with XXH3-128; the others' rows leave that column empty.
            cells = [ns(get(s, f, n, c[0])) if c[0] != "hash_ns" or s.startswith("seen") else "—" for c in cols]
            print(f"| {mega(n)} | {s} | " + " | ".join(cells) + " |")
    print()
    print("Speed-up over libbloom in the same run (libbloom ns / SeenFilter ns; libbloom has single calls only).\n")
    print("| keys | structure | insert | insert batch | hit | hit batch | miss | miss batch |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for s in structs:
            if s == "libbloom" or get(s, fpr, n, "insert_ns") is None: continue
            lb = lambda c: get("libbloom", fpr, n, c)
            if lb("insert_ns") is None:
                print(f"| {mega(n)} | {s} | libbloom unsupported | | | | | |")
                continue
            r = [ratio(lb("insert_ns"), get(s, fpr, n, "insert_ns")), ratio(lb("insert_ns"), get(s, fpr, n, "insert_batch_ns")),
                 ratio(lb("hit_ns"), get(s, fpr, n, "hit_ns")), ratio(lb("hit_ns"), get(s, fpr, n, "hit_batch_ns")),
                 ratio(lb("miss_ns"), get(s, fpr, n, "miss_ns")), ratio(lb("miss_ns"), get(s, fpr, n, "miss_batch_ns"))]
            print(f"| {mega(n)} | {s} | " + " | ".join("—" if x is None else f"{x:.2f}x" for x in r) + " |")
    print()

# ---- dedup ----
def parse_time(name):
    t = {}
    for line in open(f"{work}/{name}.time"):
        k, _, v = line.strip().rpartition(": ")
        t[k] = v
    wall = t["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    return secs, float(t["User time (seconds)"]) + float(t["System time (seconds)"]), int(t["Maximum resident set size (kbytes)"]) / 1024
verify = open(f"{work}/verify.txt").read().splitlines()
lines = {l.split()[0]: int(l.split()[2]) for l in verify if " lines " in l}
same = {l.split()[0]: l.split()[1] for l in verify if " lines " not in l}
dedup = {n: parse_time(n) for n in ["bloomcrawl", "bloomcrawl_sized", "libbloom", "awk", "sort_u"]}
cmds = {"bloomcrawl": "bloomcrawl dedup (defaults: capacity 2^20, grows, FPR 1e-6)",
        "bloomcrawl_sized": f"bloomcrawl dedup --capacity {machine['dedup_lines']} (FPR 1e-6)",
        "libbloom": f"dedup_libbloom_bench {machine['dedup_lines']} 1e-6",
        "awk": "awk '!seen[$0]++' (" + machine["awk"] + ")", "sort_u": "LC_ALL=C sort -u"}
print(f"## Dedup of {int(machine['dedup_lines']):,} URL lines\n")
print(f"Input: {machine['emit']} (each line a new URL or, with probability 1/2, a repeat of an earlier one). "
      "Measured with `/usr/bin/time -v`, input in the page cache, output to a file.\n")
print("| command | wall s | CPU s | peak RSS MiB | output lines | same output as awk | bloomcrawl speed-up (wall) | bloomcrawl RSS share |")
print("|---|---|---|---|---|---|---|---|")
bw, _, brss = dedup["bloomcrawl"]
for n, (w, c, rss) in dedup.items():
    print(f"| {cmds[n]} | {w:.2f} | {c:.2f} | {rss:.0f} | {lines[n]:,} | {same.get(n, '(reference)')} | "
          f"{w / bw:.2f}x | {brss / rss:.0%} |")
print()

# ---- targets ----
big = max(sizes)
print("## Targets (the issue's words) — pass/fail\n")
print("| target | configuration | measured | result |\n|---|---|---|---|")
def verdict(ok): return "**pass**" if ok else "**FAIL**"
for s in ["seen_one_layer", "seen_right"]:
    for n in sizes:
        bpk, fp, hi = get(s, 0.01, n, "bits_per_key"), get(s, 0.01, n, "fpr"), get(s, 0.01, n, "fpr_high")
        if bpk is None: continue
        print(f"| right-sized at 1%: <= 10.5 bits/key, measured FPR <= 1% | {labels[s]}, {mega(n)} | "
              f"{bpk:.2f} bits/key, FPR {fp:.4%} (95% upper {hi:.4%}) | {verdict(bpk <= 10.5 and fp <= 0.01)} |")
for fpr in fprs:
    bpk, fp, hi = get("seen_grown", fpr, big, "bits_per_key"), get("seen_grown", fpr, big, "fpr"), get("seen_grown", fpr, big, "fpr_high")
    if bpk is None: continue
    limit = "FPR <= 1%, <= 16 bits/key" if fpr == 0.01 else "FPR <= 1e-6 (no bits target)"
    ok = fp <= fpr and (bpk <= 16 if fpr == 0.01 else True)
    print(f"| grown 1M -> {mega(big)}: {limit} | {labels['seen_grown']}, target {pct(fpr)} | "
          f"{bpk:.2f} bits/key, {get('seen_grown', fpr, big, 'layers'):.0f} layers, FPR {fp:.3g} (95% upper {hi:.3g}) | {verdict(ok)} |")
for fpr in fprs:
    for s in ["seen_right", "seen_one_layer", "seen_grown"]:
        hb, mb = get(s, fpr, big, "hit_batch_ns"), get(s, fpr, big, "miss_batch_ns")
        if hb is None: continue
        h2, m2 = get(s, fpr, big, "hit_2t_batch_ns"), get(s, fpr, big, "miss_2t_batch_ns")
        print(f"| batch lookups <= 10 ns/key on a {mega(big)}-key filter (1 thread) | {s}, target {pct(fpr)} | "
              f"hits {hb:.1f}, misses {mb:.1f} ns/key (2 threads: {h2:.1f}, {m2:.1f}); the XXH3-128 hash every call "
              f"makes costs {get(s, fpr, big, 'hash_ns'):.1f} alone | {verdict(hb <= 10 and mb <= 10)} |")
for fpr in fprs:
    for n in sizes:
        if get("libbloom", fpr, n, "insert_ns") is None: continue
        for s in ["seen_right", "seen_one_layer", "seen_grown"]:
            if get(s, fpr, n, "insert_ns") is None: continue
            lb = lambda c: get("libbloom", fpr, n, c)
            ri = ratio(lb("insert_ns"), get(s, fpr, n, "insert_ns"))
            rib = ratio(lb("insert_ns"), get(s, fpr, n, "insert_batch_ns"))
            rl = ratio(lb("hit_ns"), get(s, fpr, n, "hit_ns"))
            rlb = ratio(lb("hit_ns"), get(s, fpr, n, "hit_batch_ns"))
            rm = ratio(lb("miss_ns"), get(s, fpr, n, "miss_ns"))
            print(f"| lookups and inserts >= 5x libbloom's rate | {s}, {mega(n)}, target {pct(fpr)} | "
                  f"insert {ri:.2f}x (batch {rib:.2f}x), hit {rl:.2f}x (batch {rlb:.2f}x), miss {rm:.2f}x | "
                  f"{verdict(min(ri, rl, rm) >= 5)} single, {verdict(min(rib, rlb) >= 5)} batch |")
for n in ["libbloom", "awk", "sort_u"]:
    w, c, rss = dedup[n]
    print(f"| dedup of {int(machine['dedup_lines']):,} lines >= 2x faster than {cmds[n]} | bloomcrawl dedup (defaults) | "
          f"{w / bw:.2f}x wall ({bw:.2f} s vs {w:.2f} s), RSS {brss:.0f} vs {rss:.0f} MiB | {verdict(w / bw >= 2)} |")
print()
PY
echo "wrote $OUT" >&2
