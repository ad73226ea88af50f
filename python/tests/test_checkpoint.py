"""SeenFilter.save / SeenFilter.load: the C++ checkpoint format (docs/checkpoint-format.md), and
every damaged checkpoint an error naming its file."""
import os

import pytest

from bloomcrawl import CheckpointError, SeenFilter, checkpoint_exists


def keys(n, prefix="https://example.com/item/"):
    return [f"{prefix}{i}" for i in range(n)]


@pytest.fixture
def saved(tmp_path):
    """A grown filter (3 layers) saved to tmp_path/state."""
    f = SeenFilter(capacity=1000, fpr=1e-5)
    f.add_many(keys(5000))
    directory = tmp_path / "state"
    f.save(directory)
    return f, directory


def layer_files(directory):
    return sorted(p for p in directory.iterdir() if p.name.startswith("layer-"))


def test_round_trip_keeps_keys_parameters_and_stats(saved):
    f, directory = saved
    assert checkpoint_exists(directory)
    g = SeenFilter.load(directory)
    assert len(g) == len(f) == 5000
    assert (g.capacity, g.fpr) == (1000, 1e-5)
    assert all(k in g for k in keys(5000))
    before, after = f.stats(), g.stats()
    for field in ("layers", "keys", "bytes", "estimated_fpr", "estimated_false_positives"):
        assert after[field] == pytest.approx(before[field]), field
    assert g.add_many(keys(5010)) == [False] * 5000 + [True] * 10



def test_save_returns_the_manifest_and_keeps_what_it_is_asked_to(tmp_path):
    f = SeenFilter()
    directory = tmp_path / "state"
    names = []
    for i in range(3):
        f.add(f"key {i}")
        names.append(f.save(str(directory), keep_manifests=1))
    assert names == ["MANIFEST-000001", "MANIFEST-000002", "MANIFEST-000003"]
    assert (directory / "CURRENT").read_text() == "MANIFEST-000003\n"
    assert sorted(p.name for p in directory.glob("MANIFEST-*")) == ["MANIFEST-000003"]
    assert len(layer_files(directory)) == 1
    with pytest.raises(ValueError, match="keep_manifests"):
        f.save(directory, keep_manifests=0)


def test_load_memory_limit_replaces_the_saved_one(saved):
    _, directory = saved
    assert SeenFilter.load(directory, memory_limit=1 << 24).memory_limit == 1 << 24


def test_missing_checkpoint_names_current(tmp_path):
    assert not checkpoint_exists(tmp_path)
    with pytest.raises(CheckpointError, match=str(tmp_path / "CURRENT")) as error:
        SeenFilter.load(tmp_path)
    assert isinstance(error.value, OSError)


def test_flipped_bit_in_a_layer_names_the_layer_file(saved):
    _, directory = saved
    victim = layer_files(directory)[1]
    data = bytearray(victim.read_bytes())
    data[100] ^= 0x10
    victim.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=f"{victim}: .*checksum"):
        SeenFilter.load(directory)


def test_truncated_layer_names_the_layer_file(saved):
    _, directory = saved
    victim = layer_files(directory)[0]
    with open(victim, "r+b") as layer:
        layer.truncate(os.path.getsize(victim) - 64)
    with pytest.raises(CheckpointError, match=f"{victim}: truncated"):
        SeenFilter.load(directory)


def test_foreign_manifest_names_the_manifest(saved):
    _, directory = saved
    manifest = directory / (directory / "CURRENT").read_text().strip()
    manifest.write_bytes(b"requests.seen would look like this\n" * 4)
    with pytest.raises(CheckpointError, match=f"{manifest}: "):
        SeenFilter.load(directory)


def test_missing_layer_file_names_it(saved):
    _, directory = saved
    victim = layer_files(directory)[2]
    victim.unlink()
    with pytest.raises(CheckpointError, match=str(victim)):
        SeenFilter.load(directory)
