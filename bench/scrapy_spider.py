"""The Scrapy side of bench/crawl_bench.sh: follow every in-site link breadth-first, as bloomcrawl
does, with 64 concurrent requests and no politeness delay (the server is our own, on loopback)."""
import scrapy
from scrapy.linkextractors import LinkExtractor


class BenchSpider(scrapy.Spider):
    name = "bench"
    custom_settings = {
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "DEPTH_PRIORITY": 1,  # breadth-first, like bloomcrawl
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
    }

    def __init__(self, start=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.start_urls = [start]
        host = start.split("/")[2]
        self.extractor = LinkExtractor(allow_domains=[host.split(":")[0]], deny_extensions=[])

    def parse(self, response):
        if not hasattr(response, "text"):
            return
        for link in self.extractor.extract_links(response):
            yield response.follow(link.url, callback=self.parse)
