"""SeenFilter shared between threads: of several concurrent adds of one key exactly one reports it
new, and a save taken meanwhile loads."""
import threading

from bloomcrawl import SeenFilter

THREADS = 4
KEYS = 40000


def test_concurrent_adds_report_each_key_new_exactly_once(tmp_path):
    # A small first layer, so the threads also race through the filter's growth. At FPR 1e-9 a
    # false positive among these keys (which would make the union short) has odds below 1e-4.
    f = SeenFilter(capacity=1000, fpr=1e-9)
    shared = [f"https://example.net/{i}".encode() for i in range(KEYS)]
    start = threading.Barrier(THREADS + 1)
    new_in = [None] * THREADS
    saves = []

    def adder(t):
        shift = t * KEYS // THREADS
        mine = shared[shift:] + shared[:shift]  # every thread adds every key, from its own starting point
        start.wait()
        if t % 2:  # add keeps the GIL, add_many releases it: both at once
            answers = [f.add(k) for k in mine]
        else:
            answers = [new for i in range(0, KEYS, 1000) for new in f.add_many(mine[i:i + 1000])]
        new_in[t] = {k for k, new in zip(mine, answers) if new}

    def saver():
        start.wait()
        saves.append(f.save(tmp_path / "state"))

    threads = [threading.Thread(target=adder, args=(t,)) for t in range(THREADS)] + [threading.Thread(target=saver)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(len(s) for s in new_in) == KEYS  # no key reported new twice...
    assert set().union(*new_in) == set(shared)  # ...and every key once
    assert len(f) == KEYS and f.stats()["layers"] > 1
    assert saves == ["MANIFEST-000001"]
    assert len(SeenFilter.load(tmp_path / "state")) <= KEYS
