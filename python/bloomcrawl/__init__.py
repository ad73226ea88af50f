"""bloomcrawl's seen filter from Python.

    >>> from bloomcrawl import SeenFilter
    >>> f = SeenFilter(capacity=10000, fpr=1e-6)
    >>> f.add("https://example.com/"), f.add("https://example.com/")
    (True, False)

`SeenFilter` is the C++ filter of the bloomcrawl crawler (a scalable blocked Bloom filter); its
checkpoints are the crawler's, so `bloomcrawl inspect DIR` and `bloomcrawl dedup --state DIR` read
what `SeenFilter.save(DIR)` writes. `bloomcrawl.scrapy.BloomDupeFilter` is a Scrapy dupefilter
built on it. docs/python.md has the details.
"""
from bloomcrawl._seenfilter import CheckpointError, DirectoryLockedError, SeenFilter, checkpoint_exists

__all__ = ["CheckpointError", "DirectoryLockedError", "SeenFilter", "checkpoint_exists"]
