#!/usr/bin/env bash
# Installs the npm tools the tests use into build/node: warcio, an independent WARC reader that
# tests/support/warc_dump.mjs drives.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/node
if [ ! -f build/node/node_modules/warcio/dist/index.js ]; then
  (cd build/node && npm install --silent --no-audit --no-fund warcio@2.4 >/dev/null)
fi
