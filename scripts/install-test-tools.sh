#!/usr/bin/env bash
# Installs the npm tools the tests use (an independent WARC reader) into build/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/node
if [ ! -d build/node/node_modules/warcio ]; then
  (cd build/node && npm install --silent --no-audit --no-fund warcio@2 >/dev/null)
fi
