"""Figures for bench/crawl_bench.sh, from what the server saw rather than what each tool says.

  crawl_analyze.py measure --name N --truth FILE --log ACCESS_LOG --time TIME_V [--wrk WRK_OUT]
                           [--server-cpu FILE] --out JSON
      One tool's row: pages/s, CPU per 1,000 pages, peak RSS (from /usr/bin/time -v), distinct pages
      fetched against the ground truth and duplicate fetches, protocols and requests per connection
      (from nginx's access log); with --server-cpu, nginx's workers' CPU seconds.
  crawl_analyze.py report --rows JSON... --setup MARKDOWN [--notes MARKDOWN] [--parse JSON] --out MARKDOWN
      bench/results/crawl.md: the machine, the setup, the table and the targets; with --parse
      (links_bench on the site's pages), the pages/s that parsing alone allows these cores.

A duplicate fetch is a request whose canonical URL was requested before by the same tool. The
canonical form is RFC 3986 6.2.2 normalization of the request URI exactly as sent ($request_uri):
percent-escapes of unreserved characters decoded, other escapes upper-cased, dot segments removed,
host lower-cased. nginx serves /sec1/p%61ge3.html and /sec1/./page3.html from the same file, so a
tool that requests both fetched one page twice. Standard library only (runs on /usr/bin/python3).
"""
import argparse
import json
import platform
import re
import subprocess
import sys
from collections import Counter
from datetime import datetime, timezone

UNRESERVED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def normalize_escapes(text):
    def fix(match):
        char = chr(int(match.group(1), 16))
        return char if char in UNRESERVED else "%" + match.group(1).upper()
    return ESCAPE.sub(fix, text)


def remove_dot_segments(path):
    """RFC 3986 5.2.4."""
    out = []
    segments = path.split("/")
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def canonical_key(host, port, request_uri):
    path, sep, query = request_uri.partition("?")
    path = remove_dot_segments(normalize_escapes(path))
    return "http://%s:%s%s%s%s" % (host.lower(), port, path, sep, normalize_escapes(query))


def read_time_v(path):
    """user, sys, wall seconds, peak RSS KiB and exit status from `/usr/bin/time -v -o FILE`."""
    fields = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.strip().rpartition(": ")
            fields[key] = value
    wall = fields.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "0:0")
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    return {
        "user_s": float(fields.get("User time (seconds)", 0)),
        "sys_s": float(fields.get("System time (seconds)", 0)),
        "wall_s": seconds,
        "max_rss_kib": int(fields.get("Maximum resident set size (kbytes)", 0)),
        "exit_status": int(fields.get("Exit status", -1)),
    }


def read_wrk(path):
    text = open(path).read()
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in ([\d.]+)(\w+)", text)
    errors = re.search(r"Socket errors: (.*)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {
        "wrk_requests_per_s": float(rps.group(1)) if rps else 0.0,
        "wrk_requests": int(total.group(1)) if total else 0,
        "wrk_socket_errors": errors.group(1) if errors else "none",
        "wrk_non_2xx_3xx": int(non2xx.group(1)) if non2xx else 0,
    }


def measure(args):
    truth = set(line.strip() for line in open(args.truth) if line.strip())
    port = next(iter(truth)).rsplit(":", 1)[1].split("/")[0]
    seen = Counter()
    statuses = Counter()
    protocols = Counter()
    connections = set()
    requests = robots = 0
    first_start = last_end = None
    total_request_time = 0.0
    with open(args.log, errors="replace") as log:
        for line in log:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 6:
                continue
            host, uri, status, request_time, msec = fields[0], fields[1], fields[2], float(fields[3]), float(fields[4])
            requests += 1
            if len(fields) >= 10:  # $server_protocol, $connection, $connection_requests
                protocols[fields[7]] += 1
                connections.add(fields[8])
            statuses[status[0] + "xx" if status != "421" else "421"] += 1
            total_request_time += request_time
            key = canonical_key(host, port, uri)
            seen[key] += 1
            if key.endswith(":%s/robots.txt" % port):
                robots += 1
            start = msec - request_time
            first_start = start if first_start is None else min(first_start, start)
            last_end = msec if last_end is None else max(last_end, msec)
    pages = requests - robots
    distinct_pages = set(k for k in seen if not k.endswith(":%s/robots.txt" % port))
    row = {
        "name": args.name,
        "requests": requests,
        "robots_fetches": robots,
        "pages": pages,
        "distinct_pages": len(distinct_pages),
        "truth_pages": len(truth),
        "truth_fetched": len(distinct_pages & truth),
        "outside_truth": len(distinct_pages - truth),
        "outside_truth_examples": sorted(distinct_pages - truth)[:5],
        "truth_missed_examples": sorted(truth - distinct_pages)[:5],
        "duplicate_fetches": sum(n - 1 for n in seen.values()),
        "duplicate_page_fetches": sum(n - 1 for k, n in seen.items() if k in distinct_pages),
        "duplicate_examples": [k for k, n in seen.most_common(5) if n > 1],
        "statuses": dict(statuses),
        "log_span_s": (last_end - first_start) if requests else 0.0,
        "mean_server_ms": 1000 * total_request_time / requests if requests else 0.0,
        "protocols": dict(protocols),
        "connections": len(connections),
        "requests_per_connection": requests / len(connections) if connections else 0.0,
    }
    if args.server_cpu:
        row["server_cpu_s"] = float(open(args.server_cpu).read().strip() or 0)
        row["server_cpu_s_per_1000_pages"] = 1000 * row["server_cpu_s"] / pages if pages else 0.0
    row.update(read_time_v(args.time))
    cpu = row["user_s"] + row["sys_s"]
    row["pages_per_s"] = pages / row["wall_s"] if row["wall_s"] else 0.0
    row["pages_per_s_log_span"] = pages / row["log_span_s"] if row["log_span_s"] else 0.0
    row["cpu_s_per_1000_pages"] = 1000 * cpu / pages if pages else 0.0
    if args.wrk:
        row.update(read_wrk(args.wrk))
        row["pages_per_s"] = row["wrk_requests_per_s"]
    with open(args.out, "w") as out:
        json.dump(row, out, indent=1)
    print("%-10s %8.0f pages/s  %6.3f CPU s/1k pages  %7.1f MiB  %d/%d truth pages  %d duplicates"
          % (row["name"], row["pages_per_s"], row["cpu_s_per_1000_pages"], row["max_rss_kib"] / 1024,
             row["truth_fetched"], row["truth_pages"], row["duplicate_fetches"]), file=sys.stderr)


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine():
    lscpu = command_output(["lscpu"])
    model = re.search(r"Model name:\s+(.*)", lscpu)
    cpus = re.search(r"^CPU\(s\):\s+(\d+)", lscpu, re.M)
    mem_kib = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])
    commit = command_output(["git", "rev-parse", "--short=12", "HEAD"])
    dirty = command_output(["git", "status", "--porcelain", "--untracked-files=no"])
    return {
        "cpu": model.group(1) if model else "unknown",
        "cores": cpus.group(1) if cpus else "unknown",
        "ram_gib": "%.1f" % (mem_kib / 2**20),
        "kernel": platform.release(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit + (" (with uncommitted changes)" if dirty and dirty != "unknown" else ""),
    }


def verdict(ok):
    return "**pass**" if ok else "**FAIL**"


def parse_ceiling(parse, cores, wrk_pages_per_s):
    """What parsing alone allows: links_bench's bare Gumbo parse of the site's own pages."""
    bench = next(b for b in parse["benchmarks"] if b["name"].startswith("BM_GumboBareParse"))
    per_core = bench["items_per_second"]
    ceiling = per_core * int(cores) if str(cores).isdigit() else per_core
    return ("Parsing alone bounds this: Gumbo, the crawler's HTML parser, parses %d of this site's "
            "pages at %.0f pages/s per core (`links_bench`, bare parse without error recording, CPU "
            "time, this run), so %s cores parse at most %.0f pages/s = %.0f%% of wrk's rate, before any "
            "fetching, serving by nginx on the same cores, or link handling; 70%% of wrk needs %.0f "
            "pages/s." % (bench["corpus_pages"], per_core, cores, ceiling, 100 * ceiling / wrk_pages_per_s,
                          0.7 * wrk_pages_per_s))


def report(args):
    rows = [json.load(open(p)) for p in args.rows]
    by_name = {r["name"]: r for r in rows}
    setup = open(args.setup).read().strip()
    m = machine()
    lines = [
        "# Crawl benchmark: bloomcrawl vs wget vs Scrapy vs the server's capacity (wrk)",
        "",
        "Written by `bench/crawl_bench.sh`; do not edit by hand, rerun it.",
        "",
        "## Machine",
        "",
        "| | |", "|---|---|",
        "| CPU | %s |" % m["cpu"],
        "| cores | %s (shared with other work: figures are noisy, compare ratios) |" % m["cores"],
        "| RAM | %s GiB |" % m["ram_gib"],
        "| kernel | %s |" % m["kernel"],
        "| date | %s |" % m["date"],
        "| commit | %s |" % m["commit"],
        "",
        "## Setup",
        "",
    ]
    lines.append(setup)
    lines += [
        "",
        "## Results",
        "",
        "pages/s: pages fetched (server log, robots.txt excluded) / the tool's wall time (start-up "
        "included); for wrk its Requests/sec. CPU and peak RSS: `/usr/bin/time -v` of the tool (for "
        "wrk, of the load generator: shown for scale only). Ground truth pages: distinct canonical "
        "URLs fetched that are in the ground truth. Duplicates: requests whose canonical URL the tool "
        "had already requested (server log).",
        "",
        "| tool | pages fetched | wall s | pages/s | pages/s (log span) | CPU s (user+sys) | CPU s / 1,000 pages "
        "| peak RSS MiB | ground truth pages | outside truth | duplicate fetches | statuses | exit |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        statuses = ", ".join("%s %d" % (k, v) for k, v in sorted(r["statuses"].items()))
        lines.append("| %s | %d | %.1f | %.0f | %.0f | %.2f | %.3f | %.1f | %d / %d | %d | %s | %s | %d |" % (
            r["name"], r["pages"], r["wall_s"], r["pages_per_s"], r["pages_per_s_log_span"],
            r["user_s"] + r["sys_s"], r["cpu_s_per_1000_pages"], r["max_rss_kib"] / 1024,
            r["truth_fetched"], r["truth_pages"], r["outside_truth"],
            "n/a" if r.get("wrk_requests") else r["duplicate_fetches"], statuses,
            r["exit_status"]))
    bc, scrapy, wrk = by_name.get("bloomcrawl"), by_name.get("scrapy"), by_name.get("wrk")
    lines += ["", "## Targets (bloomcrawl)", ""]
    if bc:
        lines.append("- Zero duplicate fetches: %d duplicates: %s" % (bc["duplicate_fetches"], verdict(bc["duplicate_fetches"] == 0)))
    if bc and scrapy and scrapy["pages_per_s"]:
        ratio = bc["pages_per_s"] / scrapy["pages_per_s"]
        lines.append("- At least 3x Scrapy's pages/s: %.0f vs %.0f = %.2fx: %s" % (bc["pages_per_s"], scrapy["pages_per_s"], ratio, verdict(ratio >= 3)))
    if bc and wrk and wrk["pages_per_s"]:
        ratio = bc["pages_per_s"] / wrk["pages_per_s"]
        lines.append("- At least 70%% of wrk's pages/s on the same server: %.0f vs %.0f = %.0f%%: %s" % (bc["pages_per_s"], wrk["pages_per_s"], 100 * ratio, verdict(ratio >= 0.7)))
        if args.parse:
            lines.append("  " + parse_ceiling(json.load(open(args.parse)), m["cores"], wrk["pages_per_s"]))
    if bc and scrapy and scrapy["cpu_s_per_1000_pages"]:
        ratio = bc["cpu_s_per_1000_pages"] / scrapy["cpu_s_per_1000_pages"]
        lines.append("- CPU per page at most a fifth of Scrapy's: %.3f vs %.3f CPU s / 1,000 pages = %.2f of Scrapy's: %s" % (bc["cpu_s_per_1000_pages"], scrapy["cpu_s_per_1000_pages"], ratio, verdict(ratio <= 0.2)))
    base = by_name.get("baseline")
    if bc and args.kill_inspect:
        inspected = json.load(open(args.kill_inspect))["since_generation"]
        in_flight = inspected["in_flight_at_stop"]
        lines += ["", "## Targets of a big crawl with one kill -9 and resume (issue 13)", ""]
        lines.append("- Every ground-truth page fetched: %d / %d: %s" % (
            bc["truth_fetched"], bc["truth_pages"], verdict(bc["truth_fetched"] == bc["truth_pages"])))
        lines.append("- Page fetches repeated no more than the transfers in flight at the kill (%d, from the "
                     "journal: `bloomcrawl inspect` after the kill): %d: %s; robots.txt fetched again on resume "
                     "(docs/checkpoint-format.md): %d" % (
                         in_flight, bc["duplicate_page_fetches"], verdict(bc["duplicate_page_fetches"] <= in_flight),
                         bc["duplicate_fetches"] - bc["duplicate_page_fetches"]))
        lines.append("- Peak RSS at most 500 MiB (the larger of the two runs): %.0f MiB: %s" % (
            bc["max_rss_kib"] / 1024, verdict(bc["max_rss_kib"] <= 500 * 1024)))
        if base and base["pages_per_s"]:
            ratio = bc["pages_per_s"] / base["pages_per_s"]
            lines.append("- pages/s within 10%% of the baseline's uninterrupted crawl (kill, restart and resume "
                         "included): %.0f vs %.0f = %.3f: %s" % (bc["pages_per_s"], base["pages_per_s"], ratio, verdict(ratio >= 0.9)))
    pairs = [(by_name[n], by_name[n.replace("baseline", "bloomcrawl")]) for n in by_name
             if n.startswith("baseline") and n.replace("baseline", "bloomcrawl") in by_name]
    if pairs:
        lines += ["", "## Against the baseline binary (--baseline), crawled right before it in each round (with --durable, after it in even rounds)", ""]
        for base, new in pairs:
            lines.append("- %s: pages/s %.0f vs %.0f (%.3f of baseline), CPU s / 1,000 pages %.3f vs %.3f (%.3f), "
                         "peak RSS %.0f vs %.0f MiB, duplicates %d vs %d" % (
                             new["name"], new["pages_per_s"], base["pages_per_s"], new["pages_per_s"] / base["pages_per_s"],
                             new["cpu_s_per_1000_pages"], base["cpu_s_per_1000_pages"],
                             new["cpu_s_per_1000_pages"] / base["cpu_s_per_1000_pages"],
                             new["max_rss_kib"] / 1024, base["max_rss_kib"] / 1024,
                             new["duplicate_fetches"], base["duplicate_fetches"]))
    https_pairs = [(by_name[n.replace("bloomcrawl-https", "bloomcrawl")], by_name[n]) for n in by_name
                   if n.startswith("bloomcrawl-https") and n.replace("bloomcrawl-https", "bloomcrawl") in by_name]
    if https_pairs:
        lines += ["", "## HTTPS with HTTP/2 against plain HTTP/1.1 (--https), crawled one after the other in each round", "",
                  "CPU per page is bloomcrawl's (user+sys, `/usr/bin/time -v`); the server's is nginx's workers' "
                  "(from /proc before it stops). Protocols, connections and requests per connection come from "
                  "nginx's access log ($server_protocol, $connection).", "",
                  "| pair | pages/s HTTP/1.1 | pages/s HTTPS h2 | ratio | crawler CPU s / 1,000 pages HTTP/1.1 "
                  "| HTTPS h2 | ratio (TLS cost) | nginx CPU s / 1,000 pages HTTP/1.1 | HTTPS h2 | protocols HTTPS "
                  "| connections HTTP/1.1 | HTTPS | requests per connection HTTP/1.1 | HTTPS | truth pages HTTPS |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        for plain, tls in https_pairs:
            lines.append("| %s | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %d | %d | %.0f | %.0f | %d / %d |" % (
                tls["name"], plain["pages_per_s"], tls["pages_per_s"], tls["pages_per_s"] / plain["pages_per_s"],
                plain["cpu_s_per_1000_pages"], tls["cpu_s_per_1000_pages"],
                tls["cpu_s_per_1000_pages"] / plain["cpu_s_per_1000_pages"],
                plain.get("server_cpu_s_per_1000_pages", 0.0), tls.get("server_cpu_s_per_1000_pages", 0.0),
                ", ".join("%s %d" % kv for kv in sorted(tls["protocols"].items())),
                plain["connections"], tls["connections"], plain["requests_per_connection"],
                tls["requests_per_connection"], tls["truth_fetched"], tls["truth_pages"]))
    lines += warc_section(by_name, args)
    lines += ["", "## Details", ""]
    for r in rows:
        details = []
        if r.get("wrk_requests"):
            details.append("wrk: %d requests, socket errors %s, non-2xx/3xx %d" % (r["wrk_requests"], r["wrk_socket_errors"], r["wrk_non_2xx_3xx"]))
        details.append("server log: %d requests, %d of them robots.txt" % (r["requests"], r["robots_fetches"]))
        if r["duplicate_examples"] and not r.get("wrk_requests"):
            details.append("most repeated: " + ", ".join("`%s`" % u for u in r["duplicate_examples"]))
        if r["outside_truth_examples"] and r["name"] != "wrk":
            details.append("outside the truth, e.g. " + ", ".join("`%s`" % u for u in r["outside_truth_examples"]))
        if r["truth_missed_examples"] and r["name"] != "wrk":
            details.append("missed, e.g. " + ", ".join("`%s`" % u for u in r["truth_missed_examples"]))
        lines.append("- **%s**: %s" % (r["name"], "; ".join(details)))
    if args.notes:
        lines += ["", open(args.notes).read().strip()]
    with open(args.out, "w") as out:
        out.write("\n".join(lines) + "\n")


def warc_section(by_name, args):
    """WARC on against off (crawl_bench.sh --warc): rows bloomcrawl-warc[-N] beside bloomcrawl[-N]."""
    pairs = [(by_name[n.replace("bloomcrawl-warc", "bloomcrawl")], by_name[n]) for n in sorted(by_name)
             if n.startswith("bloomcrawl-warc") and n.replace("bloomcrawl-warc", "bloomcrawl") in by_name]
    if not pairs:
        return []
    floor = json.load(open(args.warc_floor)) if args.warc_floor else None
    lines = ["", "## WARC on against off (--warc), crawled one after the other in each round, WARC first in every other round", ""]
    for off, on in pairs:
        ratio = on["cpu_s_per_1000_pages"] / off["cpu_s_per_1000_pages"]
        added_us = 1000 * (on["cpu_s_per_1000_pages"] - off["cpu_s_per_1000_pages"])
        lines.append("- %s: CPU s / 1,000 pages %.3f with WARC vs %.3f without = %.3f (target <= 1.20: %s), "
                     "%.0f us more CPU per page; pages/s %.0f vs %.0f; peak RSS %.0f vs %.0f MiB" % (
                         on["name"], on["cpu_s_per_1000_pages"], off["cpu_s_per_1000_pages"], ratio,
                         verdict(ratio <= 1.2), added_us, on["pages_per_s"], off["pages_per_s"],
                         on["max_rss_kib"] / 1024, off["max_rss_kib"] / 1024))
    if len(pairs) > 1:
        # One pair is at the mercy of the machine's other jobs: the rounds together, and the median.
        on_cpu = sum(on["user_s"] + on["sys_s"] for _, on in pairs)
        off_cpu = sum(off["user_s"] + off["sys_s"] for off, _ in pairs)
        on_pages = sum(on["pages"] for _, on in pairs)
        off_pages = sum(off["pages"] for off, _ in pairs)
        ratios = sorted(on["cpu_s_per_1000_pages"] / off["cpu_s_per_1000_pages"] for off, on in pairs)
        ratio = (on_cpu / on_pages) / (off_cpu / off_pages)
        lines.append("- All %d rounds together: CPU s / 1,000 pages %.3f with WARC vs %.3f without = %.3f (target <= "
                     "1.20: %s), %.0f us more CPU per page; median of the rounds' ratios %.3f" % (
                         len(pairs), 1000 * on_cpu / on_pages, 1000 * off_cpu / off_pages, ratio,
                         verdict(ratio <= 1.2), 1e6 * (on_cpu / on_pages - off_cpu / off_pages),
                         ratios[len(ratios) // 2]))
    if floor:
        z, d, g = floor["zlib_level_1"], floor["zlib_default_level"], floor["writer_gzip"]
        lines.append("- The floor, zlib alone on the same bodies (bench/warc_compress_bench, every page of the site, "
                     "one gzip member each, its state reused): %.1f us per record at level 1 (output %.1f%% of "
                     "input); at its default level %d, %.1f us (%.1f%%)." % (
                         z["us_per_record"], 100 * z["ratio"], d["level"], d["us_per_record"], 100 * d["ratio"]))
        lines.append("- The writer's compressor on the same bodies (WarcGzip: %s level %d, one gzip member each): "
                     "%.1f us per record (output %.1f%% of input), %.2f of zlib level 1's time." % (
                         g["compressor"], g["level"], g["us_per_record"], 100 * g["ratio"],
                         g["us_per_record"] / z["us_per_record"]))
        lines.append("- The whole writer on the same bodies (WarcWriter::write: both digests, both records "
                     "compressed, the index line, the write to a file): %.1f us per record." %
                     floor["writer"]["us_per_record"])
    if args.warc_bytes:
        lines.append("- WARC files of the last WARC crawl: %.1f MiB." % (int(args.warc_bytes) / 2**20))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--name", required=True)
    m.add_argument("--truth", required=True)
    m.add_argument("--log", required=True)
    m.add_argument("--time", required=True)
    m.add_argument("--wrk")
    m.add_argument("--server-cpu", help="a file holding the CPU seconds nginx's workers used")
    m.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--rows", nargs="+", required=True)
    r.add_argument("--setup", required=True, help="markdown: how the run was set up, with its commands")
    r.add_argument("--notes", help="markdown appended at the end (diagnosis, profile)")
    r.add_argument("--parse", help="links_bench JSON: the bare parse of a sample of the site's pages")
    r.add_argument("--out", required=True)
    r.add_argument("--kill-inspect",
                   help="our crawl was killed once and resumed: `bloomcrawl inspect` of its checkpoint after the kill")
    r.add_argument("--warc-floor", help="warc_compress_bench JSON: the WARC compressor alone on the site's pages")
    r.add_argument("--warc-bytes", help="bytes of WARC files the last WARC crawl wrote")
    args = parser.parse_args()
    measure(args) if args.command == "measure" else report(args)


if __name__ == "__main__":
    main()
