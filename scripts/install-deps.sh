#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages bloomcrawl uses that are missing.
#   install-deps.sh [--build] [--list] [PACKAGE...]
# --build: only what building bloomcrawl and its test web (benchmarks off) takes, and what
#          scripts/demo.sh runs; without it, also the tools the tests and benchmarks use
#          (scripts/test.sh): compilers and sanitizers, linters, redis-server, nginx, prometheus,
#          chromium, Node.js.
# --list:  prints the packages (one a line) instead of installing them.
# Extra package names given as arguments are installed too (the benchmarks add theirs).
set -euo pipefail

build_only=false
list=false
extra=()
for arg in "$@"; do
  case "$arg" in
    --build) build_only=true ;;
    --list) list=true ;;
    *) extra+=("$arg") ;;
  esac
done

# CMakeLists.txt's find_package and pkg_check_modules (GoogleTest too: the tests are configured
# with the rest), and python3, which the demo's summary runs.
packages=(
  build-essential cmake ninja-build ccache pkg-config python3
  libcurl4-openssl-dev libgumbo-dev libxxhash-dev libspdlog-dev nlohmann-json3-dev
  libidn2-dev libicu-dev zlib1g-dev libssl-dev libbrotli-dev libcli11-dev
  googletest libgtest-dev libgmock-dev libcpp-httplib-dev librocksdb-dev libhiredis-dev
  libpsl-dev publicsuffix prometheus-cpp-dev libdeflate-dev
)
if ! $build_only; then
  packages+=(
    clang libclang-rt-14-dev llvm clang-format clang-tidy gdb libbenchmark-dev libbloom-dev
    redis-server stunnel4 nginx openssl prometheus chromium
    # The Python package (python/, docs/python.md): pybind11, a venv of Debian's python3, Scrapy, pytest.
    pybind11-dev python3-pybind11 python3-dev python3-venv python3-setuptools python3-wheel python3-pytest python3-scrapy
  )
  # Node.js and npm run the tests' independent WARC reader. Machines that already have them (for
  # instance from NodeSource, whose nodejs bundles npm and conflicts with Debian's npm) keep theirs.
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
fi
packages+=(${extra[@]+"${extra[@]}"})
if $list; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

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
