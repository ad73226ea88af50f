"""The Python side of bench/run_python_bench.sh: bloomcrawl.scrapy.BloomDupeFilter against Scrapy's
RFPDupeFilter, and bloomcrawl.SeenFilter.add_many against a Python set. Each measurement prints one
JSON object on stdout; run_python_bench.sh runs each in a process of its own and writes the table.

  python bench/python_dupefilter_bench.py requests FILTER N JOBDIR MARKS
      FILTER (base, rfp, bloom) sees N requests with JOBDIR; at each of MARKS (comma-separated
      request counts) the JOBDIR's bytes on disk (the filter saved first); at the end the RSS grown
      since before the first request. `base` (Scrapy's BaseDupeFilter, which keeps nothing) gives
      the RSS the loop itself leaves (request objects, allocator), subtracted from the others.
  python bench/python_dupefilter_bench.py add_many N THREADS
      N 20-byte keys (request fingerprints' size) into a new SeenFilter in batches of 10,000 on
      THREADS threads at once, then the same keys into a Python set on one thread.
"""
import gc
import json
import os
import sys
import threading
import time

BATCH = 10000


def rss_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def disk_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def request_url(i):
    return f"https://www.shop{i % 997}.example.com/catalog/{i % 89}/item-{i}.html?ref={i % 13}"


def make_dupefilter(kind, jobdir):
    from scrapy import Spider
    from scrapy.dupefilters import BaseDupeFilter, RFPDupeFilter
    from scrapy.utils.test import get_crawler

    from bloomcrawl.scrapy import BloomDupeFilter

    crawler = get_crawler(Spider, {"JOBDIR": jobdir})
    cls = {"base": BaseDupeFilter, "rfp": RFPDupeFilter, "bloom": BloomDupeFilter}[kind]
    df = cls.from_crawler(crawler) if hasattr(cls, "from_crawler") else cls()
    df.open()
    return df, crawler.request_fingerprinter


def flush_state(kind, df):
    if kind == "rfp":
        df.file.flush()
    elif kind == "bloom":
        df.save()


def requests_run(kind, n, jobdir, marks):
    from scrapy import Request

    df, fingerprinter = make_dupefilter(kind, jobdir)
    gc.collect()
    rss_before = rss_bytes()
    on_disk = {}
    seen_time = 0.0
    wrongly_seen = 0  # every request is new: a Bloom filter's false positives
    started = time.process_time()
    for i in range(n):
        request = Request(request_url(i))
        fingerprinter.fingerprint(request)  # computed (and cached) apart, so seen_time is the filter's
        t = time.perf_counter()
        wrongly_seen += df.request_seen(request)
        seen_time += time.perf_counter() - t
        if i + 1 in marks:
            flush_state(kind, df)
            on_disk[i + 1] = disk_bytes(jobdir)
    cpu = time.process_time() - started
    gc.collect()
    rss_after = rss_bytes()
    df.close("finished")
    return {"filter": kind, "requests": n, "rss_growth": rss_after - rss_before, "on_disk": on_disk,
            "request_seen_s": seen_time, "loop_cpu_s": cpu, "wrongly_seen": wrongly_seen}


def add_many_run(n, threads):
    from bloomcrawl import SeenFilter

    keys = [i.to_bytes(20, "little") for i in range(n)]
    f = SeenFilter()
    chunks = [keys[i:i + BATCH] for i in range(0, n, BATCH)]
    barrier = threading.Barrier(threads)

    def work(t):
        barrier.wait()
        for chunk in chunks[t::threads]:
            f.add_many(chunk)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    wall, cpu = time.perf_counter(), time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu

    baseline = set()
    set_wall, set_cpu = time.perf_counter(), time.process_time()
    for chunk in chunks:
        baseline.update(chunk)
    set_wall, set_cpu = time.perf_counter() - set_wall, time.process_time() - set_cpu
    return {"keys": n, "threads": threads, "wall_s": wall, "cpu_s": cpu, "set_wall_s": set_wall, "set_cpu_s": set_cpu,
            "layers": f.stats()["layers"], "false_positives": n - len(f),
            "estimated_false_positives": f.stats()["estimated_false_positives"]}


def main(argv):
    if argv[1] == "requests":
        marks = {int(m) for m in argv[5].split(",")}
        result = requests_run(argv[2], int(argv[3]), argv[4], marks)
    elif argv[1] == "add_many":
        result = add_many_run(int(argv[2]), int(argv[3]))
    else:
        raise SystemExit(__doc__)
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv)
