"""The Scrapy side of bench/crawl_bench.sh: follow every in-scope link breadth-first, as bloomcrawl
does, with 64 concurrent requests and no politeness delay (the server is our own, on loopback).

Run: /usr/bin/python3 -m scrapy runspider bench/scrapy_spider.py -a start=URL -a hosts=H1,H2,...
`hosts` (default: the start URL's host) are the hosts in scope, as bloomcrawl's allowed_hosts.

Rules kept the same as bloomcrawl's defaults so both fetch the same pages: robots.txt obeyed,
rel=nofollow links and every link of a <meta name="robots" content="nofollow"> page not followed,
every file type followed (no extension filter), no depth limit. Scrapy's own request fingerprint
(canonicalize_url) removes duplicates.
"""
import scrapy
from scrapy.linkextractors import LinkExtractor


class BenchSpider(scrapy.Spider):
    name = "bench"
    custom_settings = {
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": True,
        "DEPTH_LIMIT": 0,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,  # bloomcrawl does not retry pages either; the server never fails
        "USER_AGENT": "scrapy-bench",
        "DEPTH_PRIORITY": 1,  # breadth-first, like bloomcrawl
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
    }

    def __init__(self, start=None, hosts=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not start:
            raise ValueError("scrapy_spider: give the start URL with -a start=URL")
        self.start_urls = [start]
        authority = start.split("/")[2]
        start_host, _, port = authority.partition(":")
        self.allowed_domains = [h for h in (hosts or start_host).split(",") if h]  # OffsiteMiddleware: no ports
        # LinkExtractor compares domains with the whole netloc, port included.
        netlocs = self.allowed_domains + ["%s:%s" % (h, port) for h in self.allowed_domains if port]
        self.extractor = LinkExtractor(allow_domains=netlocs, deny_extensions=[])

    def parse(self, response):
        if not hasattr(response, "text"):
            return  # not HTML (PDF, PNG): nothing to follow
        meta_robots = " ".join(response.xpath('//meta[@name="robots"]/@content').getall()).lower()
        if "nofollow" in meta_robots or "none" in meta_robots:
            return
        for link in self.extractor.extract_links(response):
            if not link.nofollow:
                yield response.follow(link.url, callback=self.parse)
