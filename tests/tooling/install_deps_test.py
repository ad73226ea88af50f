#!/usr/bin/env python3
"""scripts/install-deps.sh's two lists: the demo (scripts/demo.sh) installs only what building and
the demo take, none of the test tools, and scripts/test.sh everything. Run by scripts/test.sh."""

import os
import re
import subprocess
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# Used only by tests and benchmarks (browsers, servers, compilers for the sanitizer builds, linters).
TEST_TOOLS = {"chromium", "prometheus", "nginx", "redis-server", "stunnel4", "clang", "clang-tidy", "clang-format",
              "libclang-rt-14-dev", "llvm", "gdb", "libbenchmark-dev", "libbloom-dev", "nodejs", "npm"}


def listed(*args):
    out = subprocess.run([os.path.join(ROOT, "scripts", "install-deps.sh"), "--list", *args], check=True,
                         capture_output=True, text=True).stdout
    return out.split()


class InstallDepsTest(unittest.TestCase):
    def test_the_build_list_holds_no_test_tool_and_the_full_list_adds_them(self):
        build = set(listed("--build"))
        full = set(listed())
        self.assertFalse(build & TEST_TOOLS, "the demo would install test tools")
        self.assertTrue(build < full)
        self.assertTrue(TEST_TOOLS - {"nodejs", "npm"} <= full)  # Node.js only where it is missing
        self.assertIn("extra-package", listed("--build", "extra-package"))

    def test_the_build_list_has_what_cmake_looks_for(self):
        build = set(listed("--build"))
        cmake = read_text(os.path.join(ROOT, "CMakeLists.txt"))
        # Each required module's Debian package, as CMakeLists.txt names the module.
        for module, package in {"libcurl": "libcurl4-openssl-dev", "gumbo": "libgumbo-dev",
                                "rocksdb": "librocksdb-dev", "hiredis": "libhiredis-dev",
                                "prometheus-cpp-core": "prometheus-cpp-dev", "cpp-httplib": "libcpp-httplib-dev",
                                "libdeflate": "libdeflate-dev", "GTest": "libgtest-dev", "spdlog": "libspdlog-dev"}.items():
            self.assertIn(module, cmake)
            self.assertIn(package, build)

    def test_the_demo_installs_the_build_list_and_builds_without_benchmarks(self):
        demo = read_text(os.path.join(ROOT, "scripts", "demo.sh"))
        self.assertRegex(demo, r"(?m)^scripts/install-deps\.sh --build$")
        self.assertIn("-DBLOOMCRAWL_BENCH=OFF", demo)  # the benchmarks need libbenchmark-dev and libbloom-dev
        test = read_text(os.path.join(ROOT, "scripts", "test.sh"))
        self.assertRegex(test, r"(?m)^scripts/install-deps\.sh$")
        self.assertFalse(re.search(r"install-deps\.sh --build", test))


if __name__ == "__main__":
    unittest.main()
