"""The batch's signatures are joined a column at a time, each column's parts freed as it goes
(``Signatures.concat(consume=True)``): the same arrays, the same rows, whatever the chunking."""

from __future__ import annotations

import itertools
import platform
import random
import sys

import numpy as np
import pytest
from dedup_synth import article, make_docs

from neardup._memory import release_free_memory
from neardup.dedup import DedupConfig, dedup_records, fingerprint_records
from neardup.io import Record
from neardup.match.signature import FIELDS, Signatures, signatures

COLUMNS = (*FIELDS, "prof_ptr", "prof", "day")


def texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = [article(rng, rng.randint(1, 6)) for _ in range(n)]
    out[3] = ""  # no tokens: an empty profile between two others
    out[5] = "Latin words, 42 of them; and 中文 mixed in."
    return out


def assert_same(a: Signatures, b: Signatures) -> None:
    assert len(a) == len(b)
    for name in COLUMNS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y), name


@pytest.mark.parametrize("cuts", [[], [1], [3, 4, 11], list(range(1, 20))])
def test_consuming_join_gives_the_arrays_of_one_signing(cuts: list[int]) -> None:
    docs = texts(20)
    whole = signatures(docs)
    bounds = [0, *cuts, len(docs)]
    parts = [signatures(docs[lo:hi]) for lo, hi in itertools.pairwise(bounds)]
    kept = Signatures.concat(parts)  # the parts stay usable
    assert_same(kept, whole)
    joined = Signatures.concat(parts, consume=True)
    assert_same(joined, whole)
    assert all(len(p) == 0 and p.prof.size == 0 for p in parts)  # their memory is released
    for i in range(len(docs)):
        assert np.array_equal(joined.profile(i), whole.profile(i))


def test_consuming_join_of_slices_keeps_only_their_profiles() -> None:
    # parts that are takes of a larger batch: their profile pointers start anywhere
    whole = signatures(texts(12))
    parts = [whole.take(slice(0, 5)), whole.take(np.array([5, 6, 7])), whole.take(slice(8, 12))]
    assert_same(Signatures.concat(parts, consume=True), whole)


@pytest.mark.parametrize("chunk_size", [1, 3, 7])
def test_signatures_and_rows_do_not_depend_on_the_chunking(chunk_size: int) -> None:
    docs = make_docs(40)
    recs = lambda: [Record(id=d["id"], text=d.get("text"), html=d.get("html")) for d in docs]  # noqa: E731
    ref_cfg = DedupConfig(workers=1)
    cfg = DedupConfig(workers=1, chunk_size=chunk_size)
    assert_same(fingerprint_records(recs(), cfg).sigs, fingerprint_records(recs(), ref_cfg).sigs)
    assert list(dedup_records(recs(), cfg)) == list(dedup_records(recs(), ref_cfg))


def test_release_free_memory_answers_whether_it_could() -> None:
    blocks = [bytearray(100_000) for _ in range(50)]
    del blocks[::2]
    released = release_free_memory()
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert released is True if glibc else released in (True, False)
    assert len(blocks) == 25


@pytest.mark.parametrize("chunk_size", [5, 13])
def test_records_signed_by_the_worker_processes_are_signed_as_here(
    monkeypatch: pytest.MonkeyPatch, chunk_size: int
) -> None:
    # every chunk, text or HTML, to the two workers (a slice each): the same arrays, in input order,
    # as one process signing it all, and the same output rows
    import neardup.dedup.fingerprints as fpmod

    monkeypatch.setattr(fpmod, "SIGN_IN_WORKERS_FROM", 1)
    docs = make_docs(40)
    for d in docs[7:20]:  # a run of HTML pages among the texts: HTML chunks and mixed ones
        d["html"] = f"<html><body><p>{d.pop('text')}</p></body></html>"
    recs = lambda: [Record(id=d["id"], text=d.get("text"), html=d.get("html")) for d in docs]  # noqa: E731
    here = DedupConfig(workers=1, chunk_size=chunk_size)
    workers = DedupConfig(workers=2, chunk_size=chunk_size)
    seen: list[int] = []
    fps = fingerprint_records(recs(), workers, on_chunk=seen.append)
    assert_same(fps.sigs, fingerprint_records(recs(), here).sigs)
    assert sum(seen) == len(docs)
    assert list(dedup_records(recs(), workers)) == list(dedup_records(recs(), here))
