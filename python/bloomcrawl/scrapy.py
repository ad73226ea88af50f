"""BloomDupeFilter: Scrapy's duplicate-request filter on bloomcrawl's seen filter.

    # settings.py
    DUPEFILTER_CLASS = "bloomcrawl.scrapy.BloomDupeFilter"

A request is keyed by Scrapy's request fingerprinter (crawler.request_fingerprinter, the key of
RFPDupeFilter too), so the two filters drop the same requests, except that this one may drop a
new request with probability at most BLOOMCRAWL_FPR (the estimate is in the stats). It keeps
about 5 bytes per request in memory, where RFPDupeFilter keeps a Python str of 40 hex digits
in a set (about 120 bytes).

With JOBDIR the filter is saved to JOBDIR/bloomcrawl-seen (a bloomcrawl filter checkpoint,
readable with `bloomcrawl inspect`) when the spider closes and every BLOOMCRAWL_SAVE_INTERVAL
seconds, and loaded from there when the job starts again, so a spider paused and resumed
requests nothing twice; a state that cannot be read is an error naming the file, never an empty
filter. A JOBDIR started with RFPDupeFilter continues with this filter: its requests.seen is
read in.

Settings: BLOOMCRAWL_CAPACITY (10000: requests in the first layer; the filter grows past it),
BLOOMCRAWL_FPR (1e-6), BLOOMCRAWL_SAVE_INTERVAL (60 s; 0 saves only at close), DUPEFILTER_DEBUG.
Stats: dupefilter/filtered, bloomcrawl/keys, bloomcrawl/bytes, bloomcrawl/estimated_fpr,
bloomcrawl/estimated_false_positives, bloomcrawl/imported_requests_seen, bloomcrawl/saves.
"""
import logging

from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.job import job_dir
from scrapy.utils.request import referer_str

from bloomcrawl import SeenFilter, jobdir_state

logger = logging.getLogger(__name__)

DEFAULT_CAPACITY = 10000
DEFAULT_FPR = 1e-6
DEFAULT_SAVE_INTERVAL = 60.0
# Capacity ratio of successive layers. The C++ default, 2, makes a just-grown filter 3x the size
# of the keys it holds (a 10,000-key first layer plus a 20,000-key second one at 10,001 requests:
# 18.9 bytes per request); 1.5 keeps it under 16 bytes per request from 4,000 requests on, for a
# few more layers to probe (10 instead of 7 at 1M requests). docs/python.md has the figures.
GROWTH = 1.5


class BloomDupeFilter(BaseDupeFilter):
    """Scrapy dupefilter keeping request fingerprints in a bloomcrawl SeenFilter."""

    def __init__(self, path=None, debug=False, *, fingerprinter, capacity=DEFAULT_CAPACITY, fpr=DEFAULT_FPR,
                 save_interval=DEFAULT_SAVE_INTERVAL, crawler=None, clock=None):
        """path: the JOBDIR (None: nothing saved). fingerprinter: Scrapy's request fingerprinter.
        crawler: for the stats, and to close the spider when a periodic save fails. clock: what
        schedules the periodic save (the reactor when None; tests pass twisted.internet.task.Clock)."""
        self.jobdir = path
        self.debug = debug
        self.fingerprinter = fingerprinter
        self.save_interval = save_interval
        self.crawler = crawler
        self.stats = crawler.stats if crawler is not None else None
        self.clock = clock
        self.logdupes = True
        self.saves = 0
        self._full_reported = False
        self._saver = None
        def new_filter():
            return SeenFilter(capacity=capacity, fpr=fpr, growth=GROWTH)

        if path:
            self.filter, imported = jobdir_state.open_filter(path, new_filter)
            self._set_stat("bloomcrawl/imported_requests_seen", imported)
            logger.info("BloomDupeFilter: %d requests seen before, from %s%s", len(self.filter),
                        jobdir_state.state_path(path),
                        f" (+{imported} new from {jobdir_state.RFP_STATE_FILE})" if imported else "")
        else:
            self.filter = new_filter()

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        return cls(job_dir(settings), settings.getbool("DUPEFILTER_DEBUG"),
                   fingerprinter=crawler.request_fingerprinter,
                   capacity=settings.getint("BLOOMCRAWL_CAPACITY", DEFAULT_CAPACITY),
                   fpr=settings.getfloat("BLOOMCRAWL_FPR", DEFAULT_FPR),
                   save_interval=settings.getfloat("BLOOMCRAWL_SAVE_INTERVAL", DEFAULT_SAVE_INTERVAL),
                   crawler=crawler)

    def request_seen(self, request):
        if not self.filter.add(self.fingerprinter.fingerprint(request)):
            return True
        if self.filter.full and not self._full_reported:
            self._full_reported = True
            logger.warning("BloomDupeFilter: %s; new requests are let through but no longer remembered",
                           self.filter.stats()["full_reason"])
        return False

    def open(self):
        if self.jobdir and self.save_interval > 0:
            from twisted.internet import task  # the reactor Scrapy installed, at open time

            self._saver = task.LoopingCall(self.save)
            if self.clock is not None:
                self._saver.clock = self.clock
            self._saver.start(self.save_interval, now=False).addErrback(self._periodic_save_failed)

    def close(self, reason):
        if self._saver is not None and self._saver.running:
            self._saver.stop()
        if self.jobdir:
            self.save()
        self._record_stats()
        s = self.filter.stats()
        logger.info("BloomDupeFilter: %d requests seen, %d bytes, estimated FPR %.3g%s", s["keys"], s["bytes"],
                    s["estimated_fpr"], f", saved to {jobdir_state.state_path(self.jobdir)}" if self.jobdir else "")

    def save(self):
        """Saves the filter to the JOBDIR now (the periodic save and close call this)."""
        jobdir_state.save_filter(self.filter, self.jobdir)
        self.saves += 1
        self._set_stat("bloomcrawl/saves", self.saves)

    def log(self, request, spider):
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s (referer: %(referer)s)",
                         {"request": request, "referer": referer_str(request)}, extra={"spider": spider})
        elif self.logdupes:
            logger.debug("Filtered duplicate request: %(request)s - no more duplicates will be shown"
                         " (see DUPEFILTER_DEBUG to show all duplicates)", {"request": request},
                         extra={"spider": spider})
            self.logdupes = False
        stats = self.stats if self.stats is not None else spider.crawler.stats
        stats.inc_value("dupefilter/filtered", spider=spider)

    def _periodic_save_failed(self, failure):
        # A crawl that can no longer save its filter stops: close() tries a last save, and raises
        # (Scrapy logs it) if that fails too.
        logger.error("BloomDupeFilter: periodic save to %s failed: %s", jobdir_state.state_path(self.jobdir),
                     failure.getErrorMessage())
        if self.crawler is not None and self.crawler.engine is not None:
            self.crawler.engine.close_spider(self.crawler.spider, "bloomcrawl_save_failed")

    def _record_stats(self):
        s = self.filter.stats()
        for name in ("keys", "bytes", "estimated_fpr", "estimated_false_positives"):
            self._set_stat("bloomcrawl/" + name, s[name])

    def _set_stat(self, name, value):
        if self.stats is not None:
            self.stats.set_value(name, value)
