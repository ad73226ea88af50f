"""bloomcrawl.SeenFilter: the API on its own (no files)."""
import pytest

from bloomcrawl import SeenFilter


def keys(n, prefix="https://example.com/page/"):
    return [f"{prefix}{i}" for i in range(n)]


def test_add_reports_new_once():
    f = SeenFilter()
    assert f.add("https://example.com/") is True
    assert f.add("https://example.com/") is False
    assert f.add("https://example.com/other") is True
    assert len(f) == 2


def test_str_is_its_utf8_bytes():
    f = SeenFilter()
    assert f.add("https://example.com/caf\u00e9") is True
    assert f.add("https://example.com/caf\u00e9".encode("utf-8")) is False
    assert b"https://example.com/caf\xc3\xa9" in f
    assert "https://example.com/cafe" not in f


def test_contains_has_no_false_negatives_across_growth():
    f = SeenFilter(capacity=1000, fpr=1e-6)
    added = keys(20000)
    assert all(f.add_many(added))  # fixed keys and a fixed hash: no false positive among them
    assert len(f) == 20000
    assert f.stats()["layers"] > 1  # it grew past its first layer
    assert all(k in f for k in added)


def test_false_positive_rate_stays_under_target():
    f = SeenFilter(capacity=10000, fpr=0.01)
    f.add_many(keys(10000))
    absent = keys(200000, prefix="https://absent.example/")
    false_positives = sum(k in f for k in absent)
    assert 0.0 < f.estimated_fpr <= 0.01
    assert false_positives / len(absent) < 0.01


def test_add_many_reports_each_key_and_repeats_in_the_batch():
    f = SeenFilter()
    f.add("b")
    assert f.add_many(["a", "b", "a", b"c", "c"]) == [True, False, False, True, False]
    assert f.add_many(k for k in ("d", "a")) == [True, False]  # any iterable
    assert f.add_many(()) == []


def test_bad_keys_are_type_errors_naming_the_key():
    f = SeenFilter()
    with pytest.raises(TypeError, match="key must be str or bytes, not int"):
        f.add(1)
    with pytest.raises(TypeError, match="key 2 must be str or bytes, not bytearray"):
        f.add_many(["a", b"b", bytearray(b"c")])
    with pytest.raises(TypeError, match="not a single str"):
        f.add_many("abc")  # a str is one key, not three
    with pytest.raises(TypeError):
        _ = None in f
    assert len(f) == 0  # a refused batch records nothing


def test_bad_options_are_value_errors_naming_the_option():
    with pytest.raises(ValueError, match="initial_capacity"):
        SeenFilter(capacity=0)
    with pytest.raises(ValueError, match="target_fpr"):
        SeenFilter(fpr=0.0)
    with pytest.raises(ValueError, match="target_fpr"):
        SeenFilter(fpr=1.5)
    with pytest.raises(ValueError, match="memory_limit_bytes"):
        SeenFilter(capacity=10000, memory_limit=100)


def test_stats_are_those_of_dedup():
    f = SeenFilter(capacity=5000, fpr=1e-4)
    f.add_many(keys(3000))
    f.add_many(keys(1000))
    f.add("one more")
    s = f.stats()
    assert (s["keys_in"], s["new"], s["duplicates"], s["unrecorded_full"]) == (4001, 3001, 1000, 0)
    assert s["keys"] == len(f) == 3001
    assert s["layers"] == 1 and s["bytes"] > 0
    assert s["bits_per_key"] == pytest.approx(s["bytes"] * 8 / 3001)
    assert s["estimated_fpr"] == f.estimated_fpr and 0 < s["estimated_fpr"] < 1e-4
    assert 0 < s["estimated_false_positives"] < 1
    assert s["full"] is False and s["full_reason"] == ""
    assert (f.capacity, f.fpr) == (5000, 1e-4)


def test_full_filter_reports_new_keys_new_but_does_not_remember_them():
    first_layer = SeenFilter(capacity=1000, fpr=1e-3).stats()["bytes"]
    f = SeenFilter(capacity=1000, fpr=1e-3, memory_limit=first_layer)
    assert f.add_many(keys(1000)) == [True] * 1000
    assert not f.full
    assert f.add("over the limit") is True
    assert f.full
    assert f.add("over the limit") is True  # still new: it could not be recorded
    s = f.stats()
    assert s["unrecorded_full"] == 2 and s["keys"] == 1000
    assert "memory" in s["full_reason"]
    assert f.add(keys(1)[0]) is False  # what it holds it still answers


def test_repr():
    f = SeenFilter()
    f.add("x")
    assert repr(f).startswith("<bloomcrawl.SeenFilter keys=1 ")
