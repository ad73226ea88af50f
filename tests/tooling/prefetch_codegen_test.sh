#!/usr/bin/env bash
# The compact seen filter's prefetch step must survive optimisation (base/prefetch.h says how
# GCC 12 deleted it). Counts the prefetch instructions compiled into compact_layers.cc's object in
# the seenfilter library: the Bloom layers' (active block, insert stripe, frozen block) are 3; the
# fuse filters' cells (big level and runs) add at least 3 more. Before base/prefetch.h the object
# held exactly those 3.
#   prefetch_codegen_test.sh path/to/libseenfilter.a
set -euo pipefail
lib=$1
command -v objdump >/dev/null || { echo "objdump not found: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
ar x "$lib"
object=$(ls | grep -E '^compact_layers\.cc\.o$' || true)
[[ -n $object ]] || { echo "no compact_layers.cc.o in $lib"; exit 1; }
count=$(objdump -d --no-show-raw-insn "$object" | grep -cE '\sprefetch(t0|t1|t2|nta|w)?\s' || true)
echo "prefetch instructions in $object: $count"
if ((count < 6)); then
  echo "the fuse filters' prefetches were optimised away (expected at least 6)"
  exit 1
fi
