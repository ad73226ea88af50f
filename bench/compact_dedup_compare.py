# `bloomcrawl dedup`, layered (its default) against --compact, both growing from --capacity 10000
# at --fpr 1e-6, alternating round by round on the same input (bench/run_dedup_bench.sh's URL-line
# generator: each line new with chance 1/3, else a repeat). Prints one markdown row per contender:
# lines per second (wall, CPU), median wall / CPU seconds of 3 rounds, peak RSS (MB), output lines.
#
#   python3 bench/compact_dedup_compare.py BUILD_DIR/bloomcrawl LINES...
import tempfile
import random, subprocess, sys, time, os, statistics
bc = sys.argv[1]; sizes = [int(x) for x in sys.argv[2:]]
work = tempfile.mkdtemp()
def make_input(n, path):
    rnd = random.Random(17)
    words = ["news", "item", "page", "blog", "shop", "docs", "user", "tag", "post", "wiki"]
    distinct, out, M = 0, [], (1 << 64) - 1
    with open(path, "w") as f:
        for _ in range(n):
            if distinct == 0 or rnd.random() < 1 / 3:
                i, distinct = distinct, distinct + 1
            else:
                i = rnd.randrange(distinct)
            h = (i * 0x9E3779B97F4A7C15) & M
            out.append(f"https://{words[h % 10]}{(h >> 8) % 5000}.example.com/{words[(h >> 24) % 10]}/{(h >> 32) % 1000000}?id={i}")
            if len(out) >= 100000:
                f.write("\n".join(out) + "\n"); out = []
        if out: f.write("\n".join(out) + "\n")
    return distinct
def run(cmd, path):
    with open(path, "rb") as i:
        t = time.perf_counter(); r0 = os.times()
        p = subprocess.run(["nice", "-n", "10", "/usr/bin/time", "-f", "%M", "-o", f"{work}/rss"] + cmd, stdin=i, stdout=subprocess.PIPE)
        wall = time.perf_counter() - t; r1 = os.times()
    cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    return wall, cpu, int(open(f"{work}/rss").read().split()[-1]), p.stdout.count(b"\n")
for n in sizes:
    path = f"{work}/in{n}"; distinct = make_input(n, path)
    contenders = {"layered": [bc, "dedup", "--fpr", "1e-6", "--capacity", "10000"],
                  "compact": [bc, "dedup", "--compact", "--fpr", "1e-6", "--capacity", "10000"]}
    res = {k: [] for k in contenders}
    for rnd in range(3):
        for k in (list(contenders) if rnd % 2 == 0 else list(reversed(contenders))):
            res[k].append(run(contenders[k], path))
    with open("/proc/loadavg") as f: load = f.read().split()[:3]
    for k, v in res.items():
        wall = statistics.median(x[0] for x in v); cpu = statistics.median(x[1] for x in v)
        print(f"| {n} ({distinct} distinct) | {k} | {n/wall/1e6:.2f} | {n/cpu/1e6:.2f} | {wall:.2f} / {cpu:.2f} | {max(x[2] for x in v)/1024:.0f} | {v[0][3]} | load {' '.join(load)} |")
    os.remove(path)
os.remove(f"{work}/rss"); os.rmdir(work)
