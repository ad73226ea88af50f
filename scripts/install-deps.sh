#!/usr/bin/env bash
# Installs, with apt-get, every Debian 12 package that building and testing bloomcrawl uses and that
# is missing. Extra package names given as arguments are installed too (the benchmarks add theirs).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev llvm clang-format clang-tidy python3
  libcurl4-openssl-dev libgumbo-dev libxxhash-dev libspdlog-dev nlohmann-json3-dev
  libidn2-dev libicu-dev zlib1g-dev libssl-dev libbrotli-dev libcli11-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev libbloom-dev libcpp-httplib-dev librocksdb-dev
  libhiredis-dev redis-server
  libpsl-dev publicsuffix prometheus-cpp-dev libdeflate-dev
  nginx openssl prometheus chromium
  # The Python package (python/, docs/python.md): pybind11, a venv of Debian's python3, Scrapy, pytest.
  pybind11-dev python3-pybind11 python3-dev python3-venv python3-setuptools python3-wheel python3-pytest python3-scrapy
  "$@"
)
# Node.js and npm run the tests' independent WARC reader. Machines that already have them (for
# instance from NodeSource, whose nodejs bundles npm and conflicts with Debian's npm) keep theirs.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
