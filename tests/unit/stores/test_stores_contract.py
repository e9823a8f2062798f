"""The KeyValueStore contract, pinned on every local backend (memory, file snapshot, LevelDB)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.exceptions import ConfigError, StoreError
from neardup.stores import KeyValueStore, MutableStore, open_store
from neardup.stores.base import assign_groups
from neardup_testing import components, partition


@pytest.fixture(params=["memory", "file", "leveldb"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return {"memory": "memory://", "file": f"file://{tmp_path}/snap", "leveldb": f"leveldb://{tmp_path}/db"}[
        request.param
    ]


@pytest.fixture
def store(store_url: str) -> Iterator[MutableStore]:
    s = open_store(store_url)
    yield s
    s.close()


def test_store_is_a_keyvaluestore(store: MutableStore) -> None:
    assert isinstance(store, KeyValueStore) and isinstance(store, MutableStore)
    assert "://" in store.url


def test_get_put_roundtrip_for_int_str_and_bytes_keys(store: MutableStore) -> None:
    store.put(2**64 - 1, -5)
    store.put("键", 7)
    store.put(b"\x00raw", 2**63 - 1)
    assert store.get(2**64 - 1) == -5
    assert store.get("键") == 7
    assert store.get(b"\x00raw") == 2**63 - 1
    assert store.get("missing") is None
    assert store.get_many(["键", "nope", b"\x00raw"]) == [7, None, 2**63 - 1]
    store.put_many([(1, 10), ("b", 11)])
    assert store.get_many([1, "b"]) == [10, 11]
    store.delete(1)
    assert store.get(1) is None
    assert dict(store.items()) == {2**64 - 1: -5, "键": 7, b"\x00raw": 2**63 - 1, "b": 11}


def test_int_and_str_keys_never_collide(store: MutableStore) -> None:
    store.put(1, 1)
    store.put("1", 2)
    store.put(b"1", 3)
    assert store.get_many([1, "1", b"1"]) == [1, 2, 3]


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, None, True])
def test_bad_keys_are_refused(store: MutableStore, bad: object) -> None:
    with pytest.raises(ConfigError):
        store.assign_many([[bad]])  # type: ignore[list-item]


def test_bad_values_are_refused(store: MutableStore) -> None:
    with pytest.raises(ConfigError, match="64-bit"):
        store.put("a", 2**63)
    with pytest.raises(ConfigError):
        store.put("a", "7")  # type: ignore[arg-type]


def test_assign_many_refuses_empty_groups_and_bare_strings(store: MutableStore) -> None:
    with pytest.raises(ConfigError, match="non-empty"):
        store.assign_many([[]])
    with pytest.raises(ConfigError, match="non-empty"):
        store.assign_many(["abc"])  # type: ignore[list-item]


def test_counter_is_atomic_and_persistent_per_name(store: MutableStore) -> None:
    assert store.incr("x") == 1
    assert store.incr("x", 5) == 6
    assert store.incr("y") == 1


def test_ids_are_ints_starting_at_one_and_shared_keys_share_ids(store: MutableStore) -> None:
    ids = store.assign_many([[10, 11], [12], [11, 13], [14]])
    assert ids == [1, 2, 1, 3]
    assert all(type(i) is int for i in ids)
    assert store.get(13) == 1


def test_merge_smaller_id_wins_and_alias_resolves(store: MutableStore) -> None:
    assert store.assign_many([["a"], ["b"], ["c"]]) == [1, 2, 3]
    assert store.assign_many([["c", "b"]]) == [2]  # 3 joins 2
    assert store.assign_many([["b", "a"]]) == [1]  # 2 (with 3) joins 1
    assert store.resolve([1, 2, 3]) == [1, 1, 1]
    assert store.assign_many([["c"]]) == [1]  # any member now returns the merged id
    stats = store.stats()
    assert stats["groups"] == 1 and stats["aliases"] == 2
    assert stats["assignments"] == 6
    assert dict(store.groups()) == {1: 6}


def test_batch_equals_one_by_one(store_url: str, tmp_path: Path) -> None:
    groups = [[1, 2], [3], [4, 3], [2, 5], [6], [6, 4], [7]]
    with open_store(store_url) as s:
        batch = s.assign_many(groups)
    with open_store(f"file://{tmp_path}/other") as s:
        single = [s.assign_many([g])[0] for g in groups]
    assert batch == single


def test_repeated_keys_in_a_group_are_harmless(store: MutableStore) -> None:
    assert store.assign_many([[5, 5, 6]]) == [1]
    assert store.stats()["keys"] == 2


def test_ids_survive_restart(store_url: str) -> None:
    if store_url == "memory://":
        pytest.skip("memory:// keeps nothing by design")
    with open_store(store_url) as s:
        assert s.assign_many([[1], [2]]) == [1, 2]
        s.assign_many([[1, 2]])
        s.set_meta("m", "v")
    with open_store(store_url) as s:
        assert s.assign_many([[3]]) == [3]  # the counter came back: no collision with 1 or 2
        assert s.assign_many([[2]]) == [1]  # the merge came back
        assert s.get_meta("m") == "v"


def test_clear_forgets_everything(store: MutableStore) -> None:
    store.assign_many([[1], [2]])
    store.set_meta("m", "v")
    store.clear()
    assert store.stats()["keys"] == 0
    assert store.get_meta("m") is None
    assert store.assign_many([[9]]) == [1]


def test_closed_store_raises_store_error(store_url: str) -> None:
    s = open_store(store_url)
    s.close()
    s.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        s.assign_many([[1]])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=5), min_size=1, max_size=40))
def test_final_grouping_is_the_connected_components(store_url: str, groups: list[list[int]]) -> None:
    s = open_store(store_url)
    try:
        s.clear()
        ids = s.resolve(s.assign_many(groups))
        assert partition(ids) == components(groups)
        assert sorted(set(ids)) == sorted(g for g, _ in s.groups())
        assert sum(size for _, size in s.groups()) == len(groups)
    finally:
        s.close()


def test_assign_groups_order_does_not_change_the_partition() -> None:
    groups = [[1, 2], [3, 4], [5], [2, 3], [6, 5], [7]]
    a, _ = assign_groups(groups, {}, {}, {}, 0)
    b, _ = assign_groups(groups[::-1], {}, {}, {}, 0)
    kv: dict[object, int] = {}
    alias: dict[int, int] = {}
    ids, _ = assign_groups(groups, kv, alias, {}, 0)

    def root(i: int) -> int:
        while i in alias:
            i = alias[i]
        return i

    assert partition([root(i) for i in ids]) == components(groups)
    assert len(a) == len(b) == len(groups)


def test_memory_store_cannot_be_shipped_but_says_why() -> None:
    with pytest.raises(TypeError):
        pickle.dumps(open_store("memory://"))
