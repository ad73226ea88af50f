#!/usr/bin/env python3
"""Runs clang-tidy (run-clang-tidy-14) over the chosen files of a compile database, skipping each file
whose exact input was already found clean on this machine.

A file's input is everything clang-tidy's verdict depends on: the clang-tidy version, every
.clang-tidy file from the repository root down to the file's directory, the file's own text, and its
preprocessed form with macro definitions kept (`clang++ -E -dD` with the file's own compile command),
which covers every header it includes and every flag that changes what they expand to. A file whose
key is in the cache directory passed with that exact input, so its verdict cannot have changed. The
keys of the files checked are recorded when the run passes, or, when it fails, for every file no
finding names (unless a finding is in a header, which cannot be pinned on the file including it), so
a file with a finding is always checked again.

Usage: tidy_cached.py BUILD_DIR JOBS REGEX...  (REGEX as run-clang-tidy takes them: searched in the
file's absolute path). Exit code: run-clang-tidy's (0 when every file is clean or cached).
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

TIDY = "clang-tidy-14"
RUN_TIDY = "run-clang-tidy-14"


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "bloomcrawl-tidy")
    os.makedirs(path, exist_ok=True)
    return path


def tidy_configs(root, source):
    """The text of every .clang-tidy between the repository root and the file's directory."""
    parts = []
    directory = os.path.dirname(source)
    while True:
        config = os.path.join(directory, ".clang-tidy")
        if os.path.isfile(config):
            with open(config, "rb") as f:
                parts.append(os.path.relpath(config, root).encode() + b"\0" + f.read())
        if os.path.samefile(directory, root) or directory == os.path.dirname(directory):
            break
        directory = os.path.dirname(directory)
    return b"\0".join(parts)


def preprocess_argv(entry):
    argv = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD"):
            continue
        out.append(arg)
    return out + ["-E", "-dD", "-o", "-"]


def file_key(root, version, entry):
    source = os.path.join(entry["directory"], entry["file"])
    digest = hashlib.sha256()
    digest.update(version)
    digest.update(tidy_configs(root, source))
    with open(source, "rb") as f:
        digest.update(f.read())
    pre = subprocess.run(preprocess_argv(entry), cwd=entry["directory"], capture_output=True)
    if pre.returncode != 0:
        return source, None  # clang-tidy will report it
    # The line markers name headers by absolute path: with the clone's own folder taken out, a clone
    # elsewhere of the same files has the same key (as ccache's base_dir does for objects).
    digest.update(pre.stdout.replace(os.path.join(root, "").encode(), b"<root>/"))
    return source, digest.hexdigest()


def main():
    build_dir, jobs, regexes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    root = os.getcwd()
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    patterns = [re.compile(r) for r in regexes]
    chosen = {}
    for entry in entries:
        source = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        if any(p.search(source) for p in patterns):
            chosen.setdefault(source, entry)
    version = subprocess.run([TIDY, "--version"], capture_output=True, check=True).stdout

    cache = cache_dir()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        keys = list(pool.map(lambda e: file_key(root, version, e), chosen.values()))
    to_check = [(src, key) for src, key in keys if key is None or not os.path.exists(os.path.join(cache, key))]
    print(f"tidy: {len(chosen)} files, {len(chosen) - len(to_check)} unchanged since a clean check, "
          f"{len(to_check)} to check", flush=True)
    if not to_check:
        return 0
    names = ["^" + re.escape(os.path.realpath(src)) + "$" for src, _ in to_check]
    run = subprocess.Popen([RUN_TIDY, "-j", str(jobs), "-p", build_dir, "-quiet"] + names,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    flagged = set()  # the files named by a finding
    finding = re.compile(r"^(?:\x1b\[[0-9;]*m)*(/[^:\x1b]+):\d+:\d+: (?:\x1b\[[0-9;]*m)*(?:warning|error):")
    for line in run.stdout:
        sys.stdout.write(line)
        if m := finding.match(line):
            flagged.add(os.path.realpath(m.group(1)))
    run.wait()
    checked = {os.path.realpath(src) for src, _ in to_check}
    # A finding in a header cannot be pinned on the file that included it: then nothing is recorded.
    if run.returncode == 0 or flagged <= checked:
        for src, key in to_check:
            if key is not None and os.path.realpath(src) not in flagged:
                open(os.path.join(cache, key), "wb").close()
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
