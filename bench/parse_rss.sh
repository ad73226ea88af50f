#!/usr/bin/env bash
# Peak RSS of a crawl of six 10 MiB HTML pages (three flat: a link a line; three deep: blocks of
# 500 nested <div>), served by python3's http.server on loopback, for each fetch.max_parse_bytes
# given (default: 8 MiB, the old fixed cap, and 2 MiB, the default). Prints a markdown table;
# results go in bench/results/parse-rss.md (docs/links.md, "Parse memory").
# Usage: bench/parse_rss.sh [BLOOMCRAWL_BIN] [CAP...]
set -euo pipefail
bin=${1:-build/release/bloomcrawl}
shift || true
caps=("$@")
[ ${#caps[@]} -eq 0 ] && caps=(8388608 2097152)
dir=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
python3 - "$dir/site" <<'PY'
import os, sys
site = sys.argv[1]; os.makedirs(site)
size = (10 << 20) - 4096
def anchor(i): return '<a href="http://off.site.test/%d">x</a>' % i
home = '<html><body>'
for n in range(6):
    parts, length, i = ['<!doctype html><html><body>\n'], 0, 0
    while length < size:
        block = ('<div>' * 500 + anchor(i) + '</div>' * 500 + '\n') if n % 2 else ('<p>' + anchor(i) + '</p>\n')
        parts.append(block); length += len(block); i += 1
    open(os.path.join(site, 'big%d.html' % n), 'w').write(''.join(parts)[:size])
    home += '<a href="/big%d.html">big</a>' % n
open(os.path.join(site, 'index.html'), 'w').write(home + '</body></html>')
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir/site" >/dev/null 2>&1 &
server=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/"; do :; done
echo "| max_parse_bytes | peak RSS (MiB) | wall (s) | links found on the six pages |"
echo "|---|---|---|---|"
for cap in "${caps[@]}"; do
  cat > "$dir/c.json" <<JSON
{"seeds": {"urls": ["http://127.0.0.1:$port/"]}, "scope": {"allowed_hosts": ["127.0.0.1"]},
 "politeness": {"delay_ms": 0},
 "fetch": {"allowed_ranges": ["127.0.0.0/8"], "max_links_per_page": 1000000, "max_parse_bytes": $cap},
 "output": {"directory": "$dir/out-$cap"}}
JSON
  /usr/bin/time -f '%M %e' -o "$dir/time" "$bin" crawl --config "$dir/c.json" >/dev/null 2>&1
  read -r kib secs <"$dir/time"
  links=$(python3 -c 'import json,sys; print(sum(json.loads(l)["links_found"] for l in open(sys.argv[1]) if "big" in json.loads(l)["url"]))' "$dir/out-$cap/pages.jsonl")
  echo "| $cap | $((kib / 1024)) | $secs | $links |"
done
