#!/usr/bin/env bash
# Formats every C++ file of the project (the rooms, python/, tests/ and bench/) in place with clang-format 14
# and the repository's .clang-format. With --check it changes nothing and fails, naming each place,
# if any file is not formatted (scripts/test.sh runs that).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format-14}
mode=(-i)
[ "${1:-}" = "--check" ] && mode=(--dry-run --Werror)

dirs=()
for d in base seenfilter frontier records config crawler tests bench python; do [ -d "$d" ] && dirs+=("$d"); done
find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.cc' \) -print0 | sort -z \
  | xargs -0 -n 50 "$clang_format" --style=file "${mode[@]}"
