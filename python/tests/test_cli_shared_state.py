"""The checkpoint directory is shared with the C++ `bloomcrawl` command: what SeenFilter.save
writes, `bloomcrawl inspect` describes and `bloomcrawl dedup --state` continues; what dedup saves,
SeenFilter.load reads. BLOOMCRAWL_BIN names the command (conftest.py)."""
import json
import subprocess

import pytest

from bloomcrawl import DirectoryLockedError, SeenFilter


def lines(start, stop):
    return [f"https://example.org/doc/{i}" for i in range(start, stop)]


def dedup(bloomcrawl_bin, state, text):
    done = subprocess.run([bloomcrawl_bin, "dedup", "--state", str(state), "--stats"], input=text.encode(),
                          capture_output=True, check=True)
    stats = json.loads(done.stderr.decode().splitlines()[0])
    return done.stdout.decode().splitlines(), stats


def test_inspect_reads_what_python_saved(tmp_path, bloomcrawl_bin):
    f = SeenFilter(capacity=2000, fpr=1e-4)
    f.add_many(lines(0, 5000))
    manifest = f.save(tmp_path / "state")
    shown = subprocess.run([bloomcrawl_bin, "inspect", str(tmp_path / "state")], capture_output=True, check=True)
    info = json.loads(shown.stdout)
    assert info["kind"] == "seen-filter" and info["manifest"] == manifest and info["checksums_verified"]
    assert info["keys"] == 5000 and info["bytes"] == f.stats()["bytes"]
    assert info["parameters"]["initial_capacity"] == 2000 and info["parameters"]["target_fpr"] == 1e-4
    assert len(info["layers"]) == f.stats()["layers"] == 2
    assert info["estimated_fpr"] == pytest.approx(f.estimated_fpr)


def test_dedup_continues_python_and_python_continues_dedup(tmp_path, bloomcrawl_bin):
    state = tmp_path / "state"
    f = SeenFilter(capacity=1000, fpr=1e-6)
    f.add_many(lines(0, 3000))
    f.save(state)

    printed, stats = dedup(bloomcrawl_bin, state, "\n".join(lines(2000, 4000) + lines(3990, 4010)) + "\n")
    assert printed == lines(3000, 4010)  # only what neither Python nor this run saw before
    assert stats["keys"] == 4010 and stats["new"] == 1010

    g = SeenFilter.load(state)
    assert len(g) == 4010
    assert (g.capacity, g.fpr) == (1000, 1e-6)  # the saved parameters travelled through dedup
    assert g.add_many(lines(0, 4020)) == [False] * 4010 + [True] * 10


def test_save_is_refused_while_dedup_holds_the_directory(tmp_path, bloomcrawl_bin):
    state = tmp_path / "state"
    f = SeenFilter()
    f.add("before")
    f.save(state)
    run = subprocess.Popen([bloomcrawl_bin, "dedup", "--state", str(state), "--line-buffered"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        run.stdin.write(b"first line\n")
        run.stdin.flush()
        assert run.stdout.readline() == b"first line\n"  # dedup runs, so it holds LOCK
        with pytest.raises(DirectoryLockedError, match=str(run.pid)):
            f.save(state)
    finally:
        run.stdin.close()
        assert run.wait() == 0
    assert "first line" in SeenFilter.load(state)  # dedup saved its state after all
    assert "before" in SeenFilter.load(state)
