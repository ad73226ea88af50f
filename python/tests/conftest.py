"""Shared fixtures. The C++ programs the tests run are named by environment variables, which
scripts/test.sh sets to its Release build: BLOOMCRAWL_BIN (the `bloomcrawl` command) and
BLOOMCRAWL_TESTWEB_BIN (`bloomcrawl-testweb`, docs/testweb.md). A test needing one is skipped,
saying which variable is unset, when it is not given."""
import os

import pytest


def _program(variable):
    path = os.environ.get(variable)
    if not path:
        pytest.skip(f"{variable} is not set: it names the C++ program this test runs (scripts/test.sh sets it)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{variable}={path} is not an executable program")
    return path


@pytest.fixture
def bloomcrawl_bin():
    return _program("BLOOMCRAWL_BIN")


@pytest.fixture
def testweb_bin():
    return _program("BLOOMCRAWL_TESTWEB_BIN")
