"""Builds the `bloomcrawl` package: the extension bloomcrawl._seenfilter (pybind11) compiled from
python/src and the C++ rooms it uses, seenfilter/ and base/, and the pure-Python modules.

Built from the bloomcrawl source tree only (the C++ sources live beside python/, not in it), with
no network: `pip install --no-build-isolation ./python` into a venv made from Debian's interpreter
(docs/python.md). The rooms' sources are globbed, as CMakeLists.txt does, so a file added to
seenfilter/ or base/ needs no edit here.
"""
import glob
import os

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The rooms python/ may depend on (docs/design.md, scripts/check_layers.py).
ROOMS = ["seenfilter", "base"]

if not os.path.isfile(os.path.join(ROOT, "seenfilter", "seen_filter.h")):
    raise SystemExit(f"bloomcrawl: {ROOT}/seenfilter is missing: build python/ from the bloomcrawl source tree")

# setup.cfg puts build products in ROOT/build/python-setuptools; egg_info wants the directory to exist.
os.makedirs(os.path.join(ROOT, "build", "python-setuptools"), exist_ok=True)


# base/'s RocksDB seam serves the stores (frontier/, records/), which the extension does not use:
# compiled in, it would need librocksdb at import.
NOT_USED = {os.path.join(ROOT, "base", "store_file_system.cc")}


def room_files(pattern):
    return sorted(f for room in ROOMS + ["python/src"] for f in glob.glob(os.path.join(ROOT, room, pattern))
                  if f not in NOT_USED)


# Compiles the sources on as many processes as the machine has cores (BLOOMCRAWL_BUILD_JOBS overrides).
ParallelCompile("BLOOMCRAWL_BUILD_JOBS", default=0).install()

extension = Pybind11Extension(
    "bloomcrawl._seenfilter",
    room_files("*.cc"),
    include_dirs=[ROOT],
    libraries=["xxhash"],
    depends=room_files("*.h"),  # a changed header rebuilds the extension
    cxx_std=20,
    # The project's Release and warning flags (CMakeLists.txt): the filter's hot path is built as the
    # C++ one is, and a warning fails the build as it does there.
    extra_compile_args=["-O3", "-g0", "-DNDEBUG", "-Wall", "-Wextra", "-Wpedantic", "-Wno-missing-field-initializers",
                        "-Werror"],
)

setup(
    name="bloomcrawl",
    version="0.1.0",
    description="bloomcrawl's seen filter from Python, and a Scrapy dupefilter built on it",
    packages=["bloomcrawl"],
    package_data={"bloomcrawl": ["py.typed", "*.pyi"]},
    ext_modules=[extension],
    cmdclass={"build_ext": build_ext},
    python_requires=">=3.9",
    zip_safe=False,
)
