"""Reference helpers shared by tests (importable because tests/ holds the root conftest)."""

from __future__ import annotations


def components(groups: list[list[int]]) -> set[frozenset[int]]:
    """Reference partition of document indexes: documents sharing a key are in one group."""
    parent = list(range(len(groups)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[int, int] = {}
    for i, keys in enumerate(groups):
        for k in keys:
            if k in owner:
                a, b = find(owner[k]), find(i)
                parent[max(a, b)] = min(a, b)
            else:
                owner[k] = i
    out: dict[int, set[int]] = {}
    for i in range(len(groups)):
        out.setdefault(find(i), set()).add(i)
    return {frozenset(v) for v in out.values()}


def partition(ids: list[int]) -> set[frozenset[int]]:
    """The groups of document indexes that were given the same id."""
    out: dict[int, set[int]] = {}
    for i, g in enumerate(ids):
        out.setdefault(g, set()).add(i)
    return {frozenset(v) for v in out.values()}
