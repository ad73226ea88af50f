#!/usr/bin/env python3
"""Differential test of two bloomcrawl binaries' URL parsing, canonicalization and link
extraction: generates a large, varied corpus and reports every input on which they differ.

  tests/conformance/url_differential.py OLD_BLOOMCRAWL NEW_BLOOMCRAWL
      [--lines N] [--pages N] [--seed S] [--keep DIR]

Made for refactors that must not change behaviour (e.g. splitting the URL parser's state
machine): build the commit before the change, then compare it with the new build.

The corpus (deterministic for a seed) has --lines lines of `URL` or `BASE<TAB>HREF`: every kind of
scheme (special, file, non-special, opaque, invalid), domain / IPv4 / IPv6 / IDNA / percent-encoded
hosts, userinfo, ports, dot segments, backslashes, Windows drive letters, queries, fragments,
control, space and non-ASCII bytes (valid UTF-8 or not), relative references, and random byte
mutations of all of these. It goes through `bloomcrawl url`, `url --href` and `url` with every
canonicalization option. Then --pages generated HTML pages (links of every kind, <base>, meta
refresh/robots, raw text, comments, tables, foreign content, nesting up to tens of thousands of
elements deep, truncated and byte-mutated copies) go through `url --links PAGE --base URL` with
and without --href. Stdout, stderr and exit status must be identical.

Exit status: 0 when there are no differences, 1 when there are (the first ones are printed, all
are counted), 2 on a usage error. Not part of scripts/test.sh: it needs two builds.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

SCHEMES = ["http", "https", "HTTP", "hTtPs", "ws", "wss", "ftp", "file", "FILE", "mailto",
           "javascript", "data", "blob", "urn", "about", "foo", "a+b-c.d", "git+ssh", "h1",
           "sc", "non-spec", "1http", "ht tp", "", "http%3a"]
SPECIAL = ["http", "https", "ws", "wss", "ftp", "file"]
LABELS = ["example", "EXAMPLE", "www", "a", "xn--nxasmq6b", "xn--a", "xn--", "b\u00fccher",
          "\u4f8b\u3048", "fa\u00df", "\u0645\u062b\u0627\u0644", "\U0001f600", "caf\u00e9",
          "cafe\u0301", "xn--caf-dma", "\uff41\uff42", "a\u200db", "ex%41mple", "%2e", "%zz",
          "%00", "ex ample", "ex<ample", "a^b", "a|b", "a%b", "local host", "-lead", "trail-",
          "under_score", "a" * 63, "b" * 64, "\u0131", "\u2488", "\u00ad", "\ufffd", "xn--ls8h",
          "\u0430\u0440\u0440\u04cf\u0435", "co", "uk", "com", "localhost", "LOCALHOST"]
IPV4 = ["1.2.3.4", "0x7f.1", "0300.0250.1", "4294967295", "4294967296", "1.2.3.4.5", "1.2.3",
        "0x", "09", "1.2.3.4.", "255.255.255.255", "256.0.0.1", "0x100000000", "00000001.2.3.4",
        "1.0x.2.3", "127.1", "0", "1..2", "0xffffffff", "999999999999999999999", "1.2.3.08",
        "\uff11.2.3.4", "1.2.3.4%2e", "%31.2.3.4", "1.2.3.09a"]
IPV6 = ["[::1]", "[1:2:3:4:5:6:7:8]", "[::ffff:1.2.3.4]", "[1::2::3]", "[::1]%", "[fe80::1%25eth0]",
        "[v1.x]", "[1:2:3:4:5:6:7:8:9]", "[::]", "[0:0:0:0:0:0:0:0]", "[1:0:0:2:0:0:0:3]",
        "[::1.2.3]", "[::1.2.3.4.5]", "[1:2:3:4:5:6:1.2.3.4]", "[1:2:3:4:5:6:7:1.2.3.4]", "[:1]",
        "[1:]", "[12345::1]", "[::G]", "[::1", "::1]", "[[::1]]", "[FFFF::abcd]", "[::0x1]",
        "[0::0:1.02.3.4]", "[::127.0.0.1]", "[2001:db8::]", "[1:2::7:8]"]
PORTS = ["", ":", ":80", ":443", ":21", ":0", ":65535", ":65536", ":8080", ":abc", ":99999999999",
         ":0080", ":8 0", ":-1", ":1a", ":\u0661"]
USERINFO = ["", "user@", "user:pass@", ":@", "@", "@@", "u%40@", "a:b:c@", "\u00fcser:p\u00e4ss@",
            "us er@", "a@b@", "user:@", ":pass@", "%zz@", "a\\b@", "a/b@", "a?b@", "u#x@", "u;x@"]
SEGMENTS = ["a", "b", "index.html", ".", "..", "%2e", "%2E", ".%2e", "%2e.", "%2e%2E", "...",
            "", "C:", "c|", "C%3A", "a b", "\u00e9", "%zz", "%", "%4", "%41", "~u", "a;b=c",
            "a'b", "<x>", "{}", "`", "^", "\x01", "\x7f", "\u2028", "jsessionid", ";jsessionid=XYZ",
            "default.aspx", "index.php", "INDEX.HTML", "A", "\\", "a\tb", "?"]
QUERIES = ["", "?", "?a=b", "?a=b&c=d", "?utm_source=x&id=3", "?b=2&a=1&a=0", "?'\"<>", "?a b",
           "?\u00e9=\u00fc", "?%zz", "?%41", "?PHPSESSID=abc&x=1", "?gclid=1&fbclid=2", "?&&", "?=",
           "?a=b#", "?\x00", "?#", "?a\\b", "?x=`{}`", "?sid=1;jsessionid=2"]
FRAGMENTS = ["", "#", "#frag", "#a b", "#`", "#\u00e9", "##", "#%zz", "#\x00", "#<>\"", "#a#b", "#?x"]
RELATIVE = ["", ".", "..", "./", "../", "../x", "../../../../x", "//host/x", "///x", "////x",
            "/abs", "?q", "#f", "\\\\host\\x", "\\x", "C:/x", "C|/x", "/C:/x", "file:..", "file:x",
            "http:foo", "http:/x", "http:", "https:", "x:y", "a/b/../c", "%2e%2e/x", " x ",
            "\t//host", "/..", "/.//x", "..\\..\\x", "a?b#c", "?", "#", "//", "\\", "///",
            "//user@host", "//[::1]:80/x", "//%41", "mailto:x@y", "javascript:alert(1)",
            "data:text/html,<b>", "//h\u00f6st/", "\u00e9/x"]
BASES = ["http://example.com/a/b/c?q#f", "https://user:pw@h.example:8443/p/q/", "file:///C:/dir/f",
         "file://host/share/x", "file:///", "ftp://ftp.example/pub/", "foo://auth/p/q",
         "foo:/p/q", "foo:opaque", "data:text/plain,x", "about:blank", "http://[::1]/",
         "http://1.2.3.4:81/x/..", "ws://w.example/s", "sc://\u00e9/", "javascript:void(0)",
         "http://example.com", "not a url", "", "http://xn--nxasmq6b/%2e/", "blob:http://x/y"]
INTERESTING_BYTES = [bytes([b]) for b in list(range(0, 0x21)) + [0x7f, 0x80, 0xbf, 0xc0, 0xc3,
                                                                0xe2, 0xed, 0xef, 0xf0, 0xf4,
                                                                0xf8, 0xfe, 0xff]]
INTERESTING_BYTES += [c.encode() for c in "/\\?#@:[]%.;=&+-_~!$'()*,<>\"`{}|^ "]
INTERESTING_BYTES += [s.encode() for s in ["%2e", "%2E", "%00", "%", "..", "//", "\\\\", "xn--",
                                           "\u00e9", "\u200b", "\uffff", "\U0001f600", "::"]]


def pick(rng, items, wild):
    """Any item when `wild`, else one of the first third (the lists start with ordinary values)."""
    return rng.choice(items if wild else items[:max(3, len(items) // 3)])


def host(rng, wild):
    kind = rng.random()
    if kind < 0.45:
        return ".".join(pick(rng, LABELS, wild) for _ in range(rng.randint(1, 4))) + rng.choice(["", "", "."])
    if kind < 0.65:
        return pick(rng, IPV4, wild)
    if kind < 0.85 or not wild:
        return pick(rng, IPV6, wild)
    return rng.choice(["", "%", "h%2Fx", "exa\u00admple.com", "\u3002.com", "a\uff0eb", "x:y",
                       "127.0.0.1\u3002", "[::1]x", "h\\x", "h@x"])


def path(rng, wild=True):
    sep = rng.choice(["/", "/", "/", "\\", "//"]) if wild else "/"
    segs = [pick(rng, SEGMENTS, wild) for _ in range(rng.randint(0, 6))]
    return (sep if segs or rng.random() < 0.7 else "") + sep.join(segs) + rng.choice(["", "", "/"])


def absolute_url(rng):
    wild = rng.random() < 0.5
    # Half are crawlable, so that canonicalization (http and https only) sees them too.
    scheme = rng.choice(SCHEMES[:4]) if rng.random() < 0.5 else pick(rng, SCHEMES, wild)
    slashes = rng.choice(["//", "//", "//", "/", "", "\\\\", "///", "/\\", "////"]) if wild else "//"
    if wild and rng.random() < 0.3:  # opaque or odd
        body = rng.choice(["x@y.z", "alert(1)", "text/html,<b>hi</b>", "isbn:1", " a b ", "?q", "#f",
                           "//", "\u00e9", "http://inner/"])
        return scheme + ":" + body + rng.choice(QUERIES) + rng.choice(FRAGMENTS)
    return (scheme + ":" + slashes + pick(rng, USERINFO, wild) + host(rng, wild) + pick(rng, PORTS, wild) +
            path(rng, wild) + pick(rng, QUERIES, wild) + pick(rng, FRAGMENTS, wild))


def relative_url(rng):
    if rng.random() < 0.5:
        return rng.choice(RELATIVE)
    return path(rng).lstrip("/" if rng.random() < 0.5 else "") + rng.choice(QUERIES) + rng.choice(FRAGMENTS)


def mutate(rng, data):
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randint(0, len(data))
        if op < 0.4:
            data = data[:i] + rng.choice(INTERESTING_BYTES) + data[i:]
        elif op < 0.6 and data:
            data = data[:i] + data[i + rng.randint(1, 3):]
        elif op < 0.75 and data:
            j = rng.randint(0, len(data))
            data = data[:i] + data[min(i, j):max(i, j)] + data[i:]
        elif op < 0.9 and data:
            data = data[:i] + bytes([rng.randint(0, 255)]) + data[i + 1:]
        else:
            data = data[:i].upper() + data[i:] if rng.random() < 0.5 else data[:i]
    return data


def url_line(rng):
    kind = rng.random()
    if kind < 0.35:
        line = absolute_url(rng).encode()
    elif kind < 0.65:
        base = rng.choice(BASES[:11]) if rng.random() < 0.7 else absolute_url(rng)
        href = relative_url(rng) if rng.random() < 0.7 else absolute_url(rng)
        line = base.encode() + b"\t" + href.encode()
    else:
        line = mutate(rng, (absolute_url(rng) if rng.random() < 0.6 else
                            rng.choice(BASES) + "\t" + relative_url(rng)).encode())
    return line.replace(b"\n", b"")


def html_page(rng):
    out = []
    if rng.random() < 0.3:
        out.append("<!DOCTYPE html><html><head>")
    if rng.random() < 0.3:
        out.append(f'<base href="{rng.choice(RELATIVE + BASES)}">')
    for _ in range(rng.randint(1, 60)):
        href = (relative_url(rng) if rng.random() < 0.6 else absolute_url(rng)).replace('"', "&quot;")
        out.append(rng.choice([
            f'<a href="{href}">x</a>', f"<a href='{href}' rel='nofollow ugc'>", f"<a href={href.replace(' ', '')}>",
            f'<area href="{href}">', f'<link rel="canonical stylesheet" href="{href}">',
            f'<link rel=alternate href="{href}">', f'<link href="{href}">', f'<img src="{href}">',
            f'<script src="{href}"></script>', f'<iframe src="{href}"></iframe>', f'<frame src="{href}">',
            f'<meta http-equiv="refresh" content="0; url={href}">', '<meta name="robots" content="noindex, nofollow">',
            f'<svg><a xlink:href="{href}" href="{href}"/></svg>', f"<template><a href='{href}'></a></template>",
            "<!-- <a href=/commented> -->", "<!--->", "<![CDATA[ <a href=/cdata> ]]>", "<?pi <a href=/pi> ?>",
            "<script>document.write('<a href=/in-script>')</script>", "<style>a{}</style>",
            "<textarea><a href=/in-textarea></textarea>", f'<div title="a>b"><a href="{href}">',
            "<table><tr><td><a href=/cell>c</td></tr></table>", "<p><p><li><li><dd><dt>",
            "<b><i><b><i><u>", "</b></i></u>", "<math><mi><a href=/mi></a></mi></math>",
            "<select><option><optgroup><option>", "<h1><h2>x</h1>", "<ruby><rb>a<rt>b<rp>c</ruby>",
            "<td><tr><tbody>", "</p></li></div></table>", "<br/><img/><input>", "<a href=/unclosed",
        ]))
    depth_kind = rng.random()
    if depth_kind < 0.5:
        tag = rng.choice(["div", "span", "b", "table", "ul", "li", "p", "svg", "td", "a", "font",
                          "object", "section", "dl><dd", "select", "h1", "em"])
        n = rng.choice([100, 500, 511, 512, 513, 600, 2000, 20000])
        link_every = rng.choice([1, 7, 50, 511])
        for i in range(n):
            out.append(f"<{tag}>")
            if i % link_every == 0:
                out.append(f'<a href="/d{i}">')
        if rng.random() < 0.5:
            out.append(f"</{tag.split('>')[0]}>" * (n // 2))
    elif depth_kind < 0.7:
        for i in range(rng.randint(100, 3000)):
            out.append(rng.choice(["<div>", "<b>", "<i>", "</div>", "<table>", "<tr>", "<td>", "</td>",
                                   "<p>", "<li>", "<svg>", "<foreignObject>", "</svg>", "<template>",
                                   "</template>", "<marquee>", "<applet>", "</b>", "<a href=/x>", "</a>",
                                   "<option>", "<h3>", "<plaintext>" if rng.random() < 0.01 else "<u>"]))
    page = "".join(out).encode("utf-8", "surrogatepass")
    if rng.random() < 0.4:
        page = mutate(rng, page)
    if rng.random() < 0.2:
        page = page[:rng.randint(0, len(page))]
    return page


def run(binary, args, stdin_path=None):
    with open(stdin_path or os.devnull, "rb") as stdin:
        proc = subprocess.run([binary] + args, stdin=stdin, capture_output=True)
    return proc.returncode, proc.stdout, proc.stderr


def compare(label, old, new, inputs, report):
    if old == new:
        return 0
    print(f"DIFFERENCE in {label}: exit {old[0]} vs {new[0]}", file=sys.stderr)
    if old[2] != new[2]:
        print(f"  stderr old: {old[2][-300:]!r}\n  stderr new: {new[2][-300:]!r}", file=sys.stderr)
    old_lines, new_lines = old[1].split(b"\n"), new[1].split(b"\n")
    shown = 0
    for i in range(max(len(old_lines), len(new_lines))):
        a = old_lines[i] if i < len(old_lines) else None
        b = new_lines[i] if i < len(new_lines) else None
        if a != b:
            if shown < report:
                where = f" input {inputs[i]!r}" if inputs and i < len(inputs) else ""
                print(f"  line {i + 1}:{where}\n    old {a!r}\n    new {b!r}", file=sys.stderr)
            shown += 1
    print(f"  {shown} differing output lines", file=sys.stderr)
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--lines", type=int, default=300000)
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="write the corpus here instead of a temporary directory")
    parser.add_argument("--report", type=int, default=10, help="differences to print per run")
    args = parser.parse_args()
    for binary in (args.old, args.new):
        if not os.access(binary, os.X_OK):
            parser.error(f"not an executable: {binary}")
    rng = random.Random(args.seed)
    tmp = None if args.keep else tempfile.TemporaryDirectory()
    workdir = args.keep or tmp.name
    os.makedirs(workdir, exist_ok=True)

    lines = [url_line(rng) for _ in range(args.lines)]
    corpus = os.path.join(workdir, "urls.txt")
    with open(corpus, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    failures = 0
    url_modes = [[], ["--href"], ["--sort-query", "--strip-params", "--strip-param", "ref*",
                                  "--strip-session-ids", "--lowercase-path", "--drop-index-pages",
                                  "--max-length", "120"]]
    for mode in url_modes:
        old, new = run(args.old, ["url"] + mode, corpus), run(args.new, ["url"] + mode, corpus)
        failures += compare("url " + " ".join(mode), old, new, lines, args.report)
    print(f"url: {len(lines)} lines x {len(url_modes)} option sets", file=sys.stderr)

    pages = 0
    for i in range(args.pages):
        page = os.path.join(workdir, f"page{i}.html")
        with open(page, "wb") as f:
            f.write(html_page(rng))
        # (argv cannot hold a NUL byte)
        base = rng.choice(BASES[:10]) if rng.random() < 0.85 else absolute_url(rng).replace("\0", "")
        for mode in ([], ["--href"]):
            argv = ["url", "--links", page, "--base", base] + mode
            failures += compare(" ".join(argv), run(args.old, argv), run(args.new, argv), None, args.report)
        pages += 1
    print(f"links: {pages} pages x 2 option sets; {failures} differing runs", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
