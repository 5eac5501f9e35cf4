"""The per-process caches (vocabularies, loaded statistics) are bounded."""

from vtt_site.cache import BoundedCache


def test_least_recently_used_entries_go_first_and_each_is_built_once():
    built = []
    cache = BoundedCache[str](2)

    def get(key):
        return cache.get_or_build(key, lambda: built.append(key) or key.upper())

    assert [get("a"), get("b"), get("a"), get("c")] == ["A", "B", "A", "C"]
    assert len(cache) == 2 and built == ["a", "b", "c"]
    get("a")  # still there: it was used after "b"
    get("b")  # built again: it was the least recently used when "c" came
    assert built == ["a", "b", "c", "b"]


def test_get_reads_without_building_and_counts_as_a_use():
    cache = BoundedCache[int](2)
    assert cache.get("a") is None and len(cache) == 0
    cache.get_or_build("a", lambda: 1)
    cache.get_or_build("b", lambda: 2)
    assert cache.get("a") == 1  # "a" is now the most recently used: "b" goes first
    cache.get_or_build("c", lambda: 3)
    assert cache.get("b") is None and cache.get("a") == 1
