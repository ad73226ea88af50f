"""A Scrapy crawl of the local test web (docs/testweb.md) with BloomDupeFilter and a JOBDIR,
stopped by Scrapy's CLOSESPIDER_PAGECOUNT after a few thousand pages and started again: the
server's fetch log must show no URL fetched twice, and the two runs together must fetch exactly
the ground truth. BLOOMCRAWL_TESTWEB_BIN names the test web program (conftest.py)."""
import json
import os
import re
import subprocess
import sys
import urllib.request

import pytest

SPIDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testweb_spider.py")
PAGES_PER_HOST = 1000  # 3 hosts: about 3,100 URLs in the truth
STOP_AFTER = 2000  # responses in the first run
HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]


class LocalTestWeb:
    """bloomcrawl-testweb, serving until stopped; its control endpoints read the fetch log."""

    def __init__(self, program, *args):
        self.process = subprocess.Popen([program, "--hosts", ",".join(HOSTS), *args], stderr=subprocess.PIPE, text=True)
        # It prints "bloomcrawl-testweb: serving N hosts on port P, seed URL ..." once every host listens.
        line = self.process.stderr.readline()
        if "serving" not in line:
            self.process.kill()
            raise RuntimeError(f"bloomcrawl-testweb did not start: {line}{self.process.stderr.read()}")
        self.port = int(line.split(" on port ")[1].split(",")[0])
        self.seed = f"http://{HOSTS[0]}:{self.port}/"

    def get(self, endpoint):
        with urllib.request.urlopen(f"{self.seed}__testweb/{endpoint}", timeout=30) as response:
            return json.load(response)

    def stop(self):
        self.process.terminate()
        self.process.communicate(timeout=30)


@pytest.fixture
def testweb(testweb_bin):
    # Connections idle for less than a minute stay open: with the default 1 s, a loaded machine lets
    # Scrapy send a request on a connection the server is closing, and it fails (no retries here).
    web = LocalTestWeb(testweb_bin, "--pages", str(PAGES_PER_HOST), "--no-trap", "--keep-alive-s", "60")
    yield web
    web.stop()


def crawl(web, jobdir, log, *settings):
    command = [sys.executable, "-m", "scrapy", "runspider", SPIDER, "-a", f"start={web.seed}", "-a",
               "hosts=" + ",".join(HOSTS), "-s", f"JOBDIR={jobdir}", "-s",
               "DUPEFILTER_CLASS=bloomcrawl.scrapy.BloomDupeFilter", "-s", f"LOG_FILE={log}"]
    for setting in settings:
        command += ["-s", setting]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    text = log.read_text()
    assert done.returncode == 0, text[-4000:] + done.stderr[-4000:]
    assert "ERROR" not in text, text[-4000:]
    return text


def page_fetches(web):
    return [r["url"] for r in web.get("requests") if not r["robots_txt"]]


def test_stopped_and_resumed_crawl_fetches_the_truth_once(tmp_path, testweb):
    truth = set(testweb.get("ground-truth?max_depth=1000")["urls"])
    assert len(truth) > STOP_AFTER + 500
    jobdir = tmp_path / "job"

    first = crawl(testweb, jobdir, tmp_path / "first.log", f"CLOSESPIDER_PAGECOUNT={STOP_AFTER}")
    assert "'finish_reason': 'closespider_pagecount'" in first
    fetched_first = len(page_fetches(testweb))
    assert STOP_AFTER - len(HOSTS) <= fetched_first < len(truth)  # robots.txt responses count towards the stop
    assert (jobdir / "bloomcrawl-seen" / "CURRENT").exists()

    second = crawl(testweb, jobdir, tmp_path / "second.log")
    assert "'finish_reason': 'finished'" in second

    summary = testweb.get("summary")
    fetches = page_fetches(testweb)
    assert summary["duplicate_fetches"] == 0, summary["duplicates"][:10]
    assert len(fetches) > fetched_first
    # It continued the first run's filter, which held every request the first run fetched or queued.
    loaded = int(re.search(r"BloomDupeFilter: (\d+) requests seen before", second).group(1))
    assert loaded >= fetched_first
    assert (summary["robots_violations"], summary["nofollow_violations"], summary["unknown_url_requests"]) == (0, 0, 0)
    assert set(fetches) == truth, (sorted(truth - set(fetches))[:10], sorted(set(fetches) - truth)[:10])
