"""bloomcrawl.scrapy.BloomDupeFilter against Scrapy's dupefilter interface, without a crawl: keys,
JOBDIR saves (at close and periodic), reloads, damaged state, RFPDupeFilter's state."""
import pytest
from scrapy import Request, Spider
from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.test import get_crawler
from twisted.internet import task

from bloomcrawl import CheckpointError, SeenFilter
from bloomcrawl.scrapy import BloomDupeFilter


def make(settings=None, clock=None):
    crawler = get_crawler(Spider, settings or {})
    crawler.spider = crawler._create_spider("test")
    if clock is None:
        return BloomDupeFilter.from_crawler(crawler), crawler
    df = BloomDupeFilter(crawler.settings.get("JOBDIR"), fingerprinter=crawler.request_fingerprinter,
                         save_interval=crawler.settings.getfloat("BLOOMCRAWL_SAVE_INTERVAL", 60),
                         crawler=crawler, clock=clock)
    return df, crawler


def requests(n, site="http://www.example.com"):
    return [Request(f"{site}/page/{i}?b=2&a=1") for i in range(n)]


def test_requests_are_seen_by_scrapys_fingerprint():
    df, _ = make()
    df.open()
    assert not df.request_seen(Request("http://www.example.com/p?b=2&a=1"))
    assert df.request_seen(Request("http://www.example.com/p?a=1&b=2"))  # same fingerprint: query sorted
    assert df.request_seen(Request("http://www.example.com/p?b=2&a=1#fragment"))
    assert not df.request_seen(Request("http://www.example.com/p?b=2&a=1", method="POST"))
    df.close("finished")


def test_settings_size_a_new_filter():
    df, _ = make({"BLOOMCRAWL_CAPACITY": 123, "BLOOMCRAWL_FPR": 1e-3})
    assert (df.filter.capacity, df.filter.fpr) == (123, 1e-3)


def test_jobdir_state_is_saved_at_close_and_loaded_by_the_next_run(tmp_path):
    settings = {"JOBDIR": str(tmp_path)}
    first, crawler = make(settings)
    first.open()
    assert [first.request_seen(r) for r in requests(4000)] == [False] * 4000
    first.close("shutdown")
    stats = crawler.stats.get_stats()
    assert stats["bloomcrawl/keys"] == 4000 and stats["bloomcrawl/saves"] == 1
    assert 0 < stats["bloomcrawl/estimated_fpr"] < 1e-6
    assert len(SeenFilter.load(tmp_path / "bloomcrawl-seen")) == 4000

    second, _ = make(settings)
    second.open()
    assert [second.request_seen(r) for r in requests(4010)] == [True] * 4000 + [False] * 10
    second.close("finished")
    assert len(SeenFilter.load(tmp_path / "bloomcrawl-seen")) == 4010
    on_disk = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert on_disk / 4010 <= 16  # the bound on JOBDIR bytes per request (docs/python.md)


def test_state_is_saved_every_interval(tmp_path):
    clock = task.Clock()
    df, crawler = make({"JOBDIR": str(tmp_path), "BLOOMCRAWL_SAVE_INTERVAL": 30}, clock=clock)
    df.open()
    for r in requests(100):
        df.request_seen(r)
    clock.advance(29)
    assert not (tmp_path / "bloomcrawl-seen").exists()
    clock.advance(1)
    assert len(SeenFilter.load(tmp_path / "bloomcrawl-seen")) == 100
    for r in requests(50, site="http://other.example.com"):
        df.request_seen(r)
    clock.advance(30)
    assert len(SeenFilter.load(tmp_path / "bloomcrawl-seen")) == 150
    assert crawler.stats.get_value("bloomcrawl/saves") == 2
    df.close("finished")
    assert crawler.stats.get_value("bloomcrawl/saves") == 3
    clock.advance(300)  # the loop stopped at close
    assert crawler.stats.get_value("bloomcrawl/saves") == 3


def test_log_counts_filtered_requests():
    df, crawler = make()
    r = Request("http://www.example.com/")
    df.request_seen(r)
    assert df.request_seen(r)
    df.log(r, crawler.spider)
    df.log(r, crawler.spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 2


def test_corrupt_state_is_an_error_naming_the_file(tmp_path):
    df, _ = make({"JOBDIR": str(tmp_path)})
    df.request_seen(Request("http://www.example.com/"))
    df.close("shutdown")
    state = tmp_path / "bloomcrawl-seen"
    manifest = state / (state / "CURRENT").read_text().strip()
    manifest.write_bytes(manifest.read_bytes()[:-1] + b"\x00")
    with pytest.raises(CheckpointError, match=f"{manifest}: "):
        make({"JOBDIR": str(tmp_path)})


@pytest.mark.parametrize("foreign", ["empty directory", "regular file", "other files"])
def test_foreign_state_is_an_error_naming_the_file(tmp_path, foreign):
    state = tmp_path / "bloomcrawl-seen"
    if foreign == "regular file":
        state.write_text("not a directory")
    else:
        state.mkdir()
        if foreign == "other files":
            (state / "requests.seen").write_text("0" * 40 + "\n")
    with pytest.raises(CheckpointError, match=str(state / "CURRENT") + ": missing"):
        make({"JOBDIR": str(tmp_path)})


def test_rfpdupefilter_jobdir_continues_with_this_filter(tmp_path):
    crawler = get_crawler(Spider, {"JOBDIR": str(tmp_path)})
    rfp = RFPDupeFilter.from_crawler(crawler)
    assert [rfp.request_seen(r) for r in requests(500)] == [False] * 500
    rfp.close("shutdown")

    df, crawler = make({"JOBDIR": str(tmp_path)})
    assert crawler.stats.get_value("bloomcrawl/imported_requests_seen") == 500
    assert [df.request_seen(r) for r in requests(501)] == [True] * 500 + [False]


def test_a_bad_requests_seen_line_is_an_error_naming_file_and_line(tmp_path):
    (tmp_path / "requests.seen").write_text("0" * 40 + "\nnot hex\n")
    with pytest.raises(CheckpointError, match=f"{tmp_path / 'requests.seen'}:2: not a hex request fingerprint"):
        make({"JOBDIR": str(tmp_path)})


class RecordingEngine:
    def __init__(self):
        self.closed = []

    def close_spider(self, spider, reason):
        self.closed.append(reason)


def test_a_failed_periodic_save_closes_the_spider_and_close_raises(tmp_path, caplog):
    clock = task.Clock()
    df, crawler = make({"JOBDIR": str(tmp_path), "BLOOMCRAWL_SAVE_INTERVAL": 10}, clock=clock)
    crawler.engine = RecordingEngine()
    df.open()
    df.request_seen(Request("http://www.example.com/"))
    (tmp_path / "bloomcrawl-seen.partial").write_text("a file where the first save makes its directory")
    clock.advance(10)
    assert "periodic save to" in caplog.text and "bloomcrawl-seen.partial: cannot create directory" in caplog.text
    assert crawler.engine.closed == ["bloomcrawl_save_failed"]
    with pytest.raises(CheckpointError, match="bloomcrawl-seen.partial: cannot create directory"):
        df.close("bloomcrawl_save_failed")


def test_a_first_save_cut_short_is_replaced(tmp_path):
    partial = tmp_path / "bloomcrawl-seen.partial"
    partial.mkdir()
    (partial / "layer-0000-0123456789abcdef.sfl.tmp").write_bytes(b"\0" * 100)
    df, _ = make({"JOBDIR": str(tmp_path)})
    df.request_seen(Request("http://www.example.com/"))
    df.close("finished")
    assert not partial.exists()
    assert len(SeenFilter.load(tmp_path / "bloomcrawl-seen")) == 1


def test_a_full_filter_lets_new_requests_through_and_says_so_once(caplog):
    df, _ = make()
    first_layer = SeenFilter(capacity=1000, fpr=1e-3).stats()["bytes"]
    df.filter = SeenFilter(capacity=1000, fpr=1e-3, memory_limit=first_layer)
    assert not any(df.request_seen(r) for r in requests(1000))
    assert not any(df.request_seen(r) for r in requests(3, site="http://new.example.com"))  # not dropped
    assert caplog.text.count("memory limit reached") == 1
    assert df.request_seen(requests(1)[0])  # what it holds it still filters
