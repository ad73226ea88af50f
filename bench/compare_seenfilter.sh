#!/usr/bin/env bash
# Before/after for a change that must not move the seen filter's figures: runs the same
# seenfilter_bench cases from two builds, alternating old/new round by round on the same machine,
# and prints one markdown table of the figures per case and round (ns/key: thread CPU time).
#
#   bench/compare_seenfilter.sh OLD_BENCH_BIN NEW_BENCH_BIN [FILTER_REGEX] [ROUNDS]
#
# FILTER_REGEX defaults to the 10M-key right-sized and grown filters at 1%; ROUNDS to 2.
set -euo pipefail
old=$1 new=$2
filter=${3:-'seen_(right|grown)/fpr:0.01/keys:10000000/'}
rounds=${4:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/compare_seenfilter.XXXXXX")
trap 'rm -rf "$work"' EXIT
for round in $(seq "$rounds"); do
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    echo "compare_seenfilter: round $round, $side" >&2
    "$bin" --benchmark_filter="$filter" --benchmark_out="$work/$side-$round.json" --benchmark_out_format=json \
      >/dev/null 2>"$work/$side-$round.log"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 - "$work" "$rounds" <<'PY'
import json, sys
work, rounds = sys.argv[1], int(sys.argv[2])
cols = ["bits_per_key", "fpr", "insert_ns", "insert_batch_ns", "insert_2t_batch_ns", "hit_ns", "hit_batch_ns",
        "miss_ns", "miss_batch_ns", "hash_ns"]
print("| case | side | round | " + " | ".join(cols) + " |")
print("|---|---|---|" + "---|" * len(cols))
rows = {}
for r in range(1, rounds + 1):
    for side in ["old", "new"]:
        for b in json.load(open(f"{work}/{side}-{r}.json"))["benchmarks"]:
            name = b["name"].split("/iterations")[0]
            rows.setdefault(name, []).append((side, r, b))
for name, entries in rows.items():
    for side, r, b in entries:
        cells = [("%.3g" % b[c]) if c == "fpr" else ("%.2f" % b[c]) if c in b else "—" for c in cols]
        print(f"| {name} | {side} | {r} | " + " | ".join(cells) + " |")
PY
