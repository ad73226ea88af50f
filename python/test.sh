#!/usr/bin/env bash
# Builds the `bloomcrawl` Python package into the virtual environment build/python-venv (made from
# Debian's /usr/bin/python3 with its site packages, so Debian's Scrapy and pytest are visible; no
# network: pip builds with --no-build-isolation --no-index) and runs its pytest tests. The tests
# that need the C++ programs get them from BUILD_DIR (default build/release): `bloomcrawl` and
# `tests/bloomcrawl-testweb`, which must be built (pytest run by hand without BLOOMCRAWL_BIN and
# BLOOMCRAWL_TESTWEB_BIN skips those tests, saying why). docs/python.md.
#
#   python/test.sh [BUILD_DIR]        # build, then pytest (exit status: pytest's)
#   python/test.sh --build-only       # build only
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=false
[ "${1:-}" = "--build-only" ] && { build_only=true; shift; }
build_dir=${1:-build/release}
venv=build/python-venv

[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
# The extension is rebuilt only when a source or header of python/src, seenfilter/ or base/ changed.
"$venv/bin/pip" install --quiet --no-build-isolation --no-index --no-deps --disable-pip-version-check ./python
$build_only && exit 0

export BLOOMCRAWL_BIN=$PWD/$build_dir/bloomcrawl BLOOMCRAWL_TESTWEB_BIN=$PWD/$build_dir/tests/bloomcrawl-testweb
# From the top directory: `python -m` puts the working directory on sys.path, and python/ would
# shadow the installed package with its unbuilt sources. pyproject.toml holds pytest's settings.
exec "$venv/bin/python" -m pytest -c python/pyproject.toml -q -rs -p no:cacheprovider python/tests
