"""A Scrapy spider that crawls the local test web (docs/testweb.md) by its ground-truth rules, for
the dupefilter's crawl test and the benchmark.

Run: python -m scrapy runspider testweb_spider.py -a start=http://127.0.0.2:PORT/ -a hosts=H1,H2,H3

It writes every link in the test web's canonical form before yielding it (lowercase scheme and
host, dot segments removed, escapes of unreserved characters decoded and the others uppercased, no
fragment), so that one page is one request fingerprint whatever form the HTML wrote it in:
Scrapy's own canonicalize_url leaves some of those forms apart (dot segments in absolute links),
and this spider tests the dupefilter, not Scrapy's URL rules. Robots rules (robots.txt, rel and
meta nofollow, X-Robots-Tag) are followed as the truth defines them; requests to hosts out of
scope are dropped before any DNS lookup. Retries are off: the test web's one 500 page always
fails, and a retry would be a second fetch the dupefilter has no say in.
"""
import posixpath
import re
from urllib.parse import urlsplit, urlunsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.http import TextResponse

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _escape(match):
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def canonical(url):
    parts = urlsplit(url)
    path = _ESCAPE.sub(_escape, parts.path) or "/"
    normalized = posixpath.normpath(path)
    if path.endswith("/") and normalized != "/":
        normalized += "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), normalized, parts.query, ""))


class ScopeMiddleware:
    """Downloader middleware: drops requests (redirect targets included) to hosts out of scope."""

    def process_request(self, request, spider):
        if urlsplit(request.url).hostname not in spider.allowed_domains:
            raise IgnoreRequest(f"out of scope: {request.url}")


class TestWebSpider(scrapy.Spider):
    name = "testweb"
    custom_settings = {
        "CONCURRENT_REQUESTS": 32,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 32,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": True,
        "RETRY_ENABLED": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "INFO",
        "USER_AGENT": "bloomcrawl-python-test",
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "DOWNLOADER_MIDDLEWARES": {__name__ + ".ScopeMiddleware": 50},
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
    }

    def __init__(self, start=None, hosts=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not start:
            raise ValueError("testweb_spider: give the start URL with -a start=URL")
        self.start = start
        self.allowed_domains = [h for h in (hosts or urlsplit(start).hostname).split(",") if h]

    def start_requests(self):
        # Filtered like every other request (Scrapy's default start request is not), so a resumed
        # job does not fetch the seed again.
        yield scrapy.Request(self.start, callback=self.parse)

    def parse(self, response):
        if not isinstance(response, TextResponse):
            return  # PDF, PNG: no links
        meta = " ".join(response.xpath('//meta[translate(@name,"ROBTS","robts")="robots"]/@content').getall())
        header = response.headers.get(b"X-Robots-Tag", b"").decode("latin-1")
        if "nofollow" in (meta + " " + header).lower():
            return
        for anchor in response.xpath("//a[@href]"):
            if "nofollow" in (anchor.attrib.get("rel") or "").lower().split():
                continue
            url = response.urljoin(anchor.attrib["href"].strip())  # against <base href> when there is one
            parts = urlsplit(url)
            if parts.scheme.lower() != "http" or parts.hostname not in self.allowed_domains:
                continue
            yield scrapy.Request(canonical(url), callback=self.parse)
