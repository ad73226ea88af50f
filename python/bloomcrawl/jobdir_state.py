"""The seen filter's state in a Scrapy JOBDIR: the directory JOBDIR/bloomcrawl-seen, a bloomcrawl
filter checkpoint (docs/checkpoint-format.md), which `bloomcrawl inspect` reads.

Opening never yields a silently empty filter from state that is there but unusable: a damaged or
foreign state directory raises CheckpointError naming the file. The directory exists only once a
save completed (the first save is written beside it and renamed into place), so a directory
without CURRENT is always damaged, never a first save cut short. Scrapy's own RFPDupeFilter state,
JOBDIR/requests.seen, is read into the filter whenever it is there, so a job started with
RFPDupeFilter continues with this one without refetching what it saw.
"""
import os
import shutil

from bloomcrawl._seenfilter import CheckpointError, SeenFilter, checkpoint_exists

STATE_DIR = "bloomcrawl-seen"
RFP_STATE_FILE = "requests.seen"  # scrapy.dupefilters.RFPDupeFilter's: one hex fingerprint a line
_RFP_BATCH = 65536


def state_path(jobdir):
    return os.path.join(jobdir, STATE_DIR)


def open_filter(jobdir, new_filter):
    """Returns (filter, fingerprints imported from requests.seen): the saved filter, with its saved
    parameters, or new_filter() when the JOBDIR has none."""
    state = state_path(jobdir)
    if checkpoint_exists(state):
        seen = SeenFilter.load(state)
    elif os.path.lexists(state):
        raise CheckpointError(
            f"{os.path.join(state, 'CURRENT')}: missing: {state} is not a complete bloomcrawl filter "
            "checkpoint (damaged, or written by something else); move it away to start an empty filter"
        )
    else:
        seen = new_filter()
    return seen, import_rfp_state(seen, os.path.join(jobdir, RFP_STATE_FILE))


def import_rfp_state(seen, path):
    """Adds the fingerprints of an RFPDupeFilter requests.seen file; returns how many were new."""
    if not os.path.exists(path):
        return 0
    imported = 0
    batch = []
    with open(path, "rb") as lines:
        for number, line in enumerate(lines, 1):
            try:
                batch.append(bytes.fromhex(line.rstrip(b"\r\n").decode("ascii")))
            except ValueError:
                raise CheckpointError(f"{path}:{number}: not a hex request fingerprint: {line[:80]!r}") from None
            if len(batch) == _RFP_BATCH:
                imported += sum(seen.add_many(batch))
                batch = []
    return imported + sum(seen.add_many(batch))


def save_filter(seen, jobdir):
    """Saves `seen` as the JOBDIR's state, keeping one checkpoint (its files are all a resume needs)."""
    state = state_path(jobdir)
    if checkpoint_exists(state):
        seen.save(state, keep_manifests=1)
        return
    partial = state + ".partial"
    shutil.rmtree(partial, ignore_errors=True)  # a first save cut short
    seen.save(partial, keep_manifests=1)
    os.rename(partial, state)
    _sync_directory(jobdir)


def _sync_directory(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
