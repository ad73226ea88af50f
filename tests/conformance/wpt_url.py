#!/usr/bin/env python3
"""Runs the URL Standard's published test data (web-platform-tests url/resources) through
`bloomcrawl url --href` and reports what passes, by file and scheme group, with every failure.

  tests/conformance/wpt_url.py [--bloomcrawl BIN] WPT_URL_RESOURCES_DIR

The directory holds any of urltestdata.json, toascii.json and IdnaTestV2.json as WPT ships them
(they are not in this repository). Cases run as WPT runs them: urltestdata parses `input` against
`base`; toascii and IdnaTestV2 parse `https://` + input + `/x` and expect that host, or a failure.
The CLI reads one `URL` or `BASE<TAB>HREF` per line, so cases containing a tab, LF or CR are
counted as skipped (the parser strips those characters itself; url_parser_test covers them).
Lone surrogates become U+FFFD, as a browser's USVString conversion does. Exit status: 0 when the
CLI ran (failures are reported, not fatal: WPT snapshots differ), 2 on a usage or CLI error.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys


def usv(text):
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def has_line_break(text):
    return text is not None and any(c in text for c in "\t\n\r")


def run_cli(binary, lines):
    data = b"".join(usv(line).encode("utf-8") + b"\n" for line in lines)
    done = subprocess.run([binary, "url", "--href"], input=data, capture_output=True)
    out = done.stdout.decode("utf-8", "backslashreplace").split("\n")[: len(lines)]
    if done.returncode != 0 or len(out) != len(lines):
        sys.exit("wpt_url: %s url --href failed (status %d, %d lines for %d): %s"
                 % (binary, done.returncode, len(out), len(lines), done.stderr.decode(errors="replace")))
    return out


SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.\-]*):")


def scheme_group(url):
    """The case's group, by the scheme of its expected href, or of its input, or of its base."""
    match = SCHEME.match(url or "")
    scheme = match.group(1).lower() if match else ""
    if scheme in ("http", "https"):
        return "http/https"
    return "ws/wss/ftp/file" if scheme in ("ws", "wss", "ftp", "file") else "other schemes"


def check(binary, name, cases, to_line, expected, group):
    """Runs the testable cases; prints counts per group and each failure."""
    testable = [c for c in cases if not has_line_break(c.get("input")) and not has_line_break(c.get("base"))]
    testable = [c for c in testable if c.get("input") != "" or name == "urltestdata"]
    got = run_cli(binary, [to_line(c) for c in testable])
    tally = collections.OrderedDict()
    failures = []
    for case, answer in zip(testable, got):
        want = expected(case)
        ok = answer.startswith("ERROR") if want is None else answer == want
        passed, total = tally.get(group(case), (0, 0))
        tally[group(case)] = (passed + ok, total + 1)
        if not ok:
            failures.append((case, want or "failure", answer))
    skipped = len(cases) - len(testable)
    print("%s: %d/%d passed, %d skipped" % (name, sum(p for p, _ in tally.values()), len(testable), skipped))
    for label, (passed, total) in tally.items():
        print("  %-18s %d/%d" % (label, passed, total))
    for case, want, answer in failures:
        print("  FAIL input=%s base=%s expected=%s got=%s" % (json.dumps(case["input"], ensure_ascii=False),
              json.dumps(case.get("base"), ensure_ascii=False), want, answer))
    return len(failures)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bloomcrawl", default=os.path.join(os.path.dirname(__file__), "../../build/release/bloomcrawl"))
    parser.add_argument("resources", help="directory with urltestdata.json, toascii.json, IdnaTestV2.json")
    args = parser.parse_args()
    found = 0
    path = os.path.join(args.resources, "urltestdata.json")
    if os.path.exists(path):
        found += 1
        cases = [c for c in json.load(open(path, encoding="utf-8")) if isinstance(c, dict)]
        check(args.bloomcrawl, "urltestdata", cases,
              lambda c: c["input"] if c.get("base") is None else c["base"] + "\t" + c["input"],
              lambda c: None if c.get("failure") else c["href"],
              lambda c: scheme_group(c.get("href") or (c["input"] if SCHEME.match(c["input"]) else c.get("base"))))
    for name, key in (("toascii", "output"), ("IdnaTestV2", "output")):
        path = os.path.join(args.resources, name + ".json")
        if not os.path.exists(path):
            continue
        found += 1
        cases = [c for c in json.load(open(path, encoding="utf-8")) if isinstance(c, dict)]
        check(args.bloomcrawl, name, cases, lambda c: "https://" + c["input"] + "/x",
              lambda c, key=key: None if c[key] is None else "https://" + c[key] + "/x",
              lambda c: "hosts")
    if found == 0:
        sys.exit("wpt_url: no urltestdata.json, toascii.json or IdnaTestV2.json in " + args.resources)


if __name__ == "__main__":
    main()
