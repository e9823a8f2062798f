"""Every public entry point answers bad input with a clear TypeError or ValueError naming what is
wrong and what it expects, never an AttributeError from deep inside or a silently wrong result."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

import neardup
from neardup import ConfigError, DedupConfig, InputError
from neardup.fingerprint import fingerprint
from neardup.fingerprint.compat import Simhash, SimhashIndex
from neardup.fingerprint.nshash import NSHash
from neardup.index import HammingIndex
from neardup.match import MatchConfig, compare_texts, match_texts

ONE = DedupConfig(workers=1)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: neardup.fingerprint_many([1, 2]), "texts must be str; item 0 is int"),
        (lambda: neardup.fingerprint_many(["a", None]), "texts must be str; item 1 is NoneType"),
        (lambda: fingerprint(5), "text must be a str, got int"),
        (lambda: fingerprint(None), "text must be a str, got NoneType"),
    ],
)
def test_fingerprint_of_a_non_text_names_the_item_and_its_type(call, needle):
    with pytest.raises(TypeError, match=needle):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: neardup.fingerprint_many("abc"),
        lambda: match_texts("abc"),
        lambda: NSHash(hashdb="memory://").get_similar_many("abc"),
    ],
    ids=["fingerprint_many", "match_texts", "get_similar_many"],
)
def test_a_str_where_a_sequence_of_texts_is_expected_is_refused(call):
    with pytest.raises(TypeError, match=r"expected an? (sequence|iterable) of texts, got a str"):
        call()


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: compare_texts(1, 2), "a must be a str"),
        (lambda: compare_texts(None, "a"), "a must be a str"),
        (lambda: compare_texts("a", b"b"), "b must be a str"),
        (lambda: match_texts([1, 2]), "texts must be str; item 0 is int"),
        (lambda: match_texts(["a"], config="x"), "config must be a MatchConfig"),
    ],
)
def test_match_of_non_texts_is_a_type_error(call, needle):
    with pytest.raises(TypeError, match=needle):
        call()


def test_dedup_records_takes_dicts_and_refuses_other_items():
    docs = [{"id": "a", "text": "同一篇新闻。"}, {"id": "b", "text": "同一篇新闻。", "date": "2024-03-01"}]
    rows = list(neardup.dedup_records(docs, ONE))
    assert [(r["id"], r["kind"], r["duplicate_of"]) for r in rows] == [
        ("a", "first", None),
        ("b", "exact", "a"),
    ]
    with pytest.raises(TypeError, match="config must be a DedupConfig or None, got str"):
        neardup.dedup_records(docs, config="x")
    with pytest.raises(TypeError, match="records must be Records or dicts; item 0 is int"):
        list(neardup.dedup_records([5], ONE))
    with pytest.raises(TypeError, match="text must be a str or None, got int"):
        list(neardup.dedup_records([{"id": "a", "text": 5}], ONE))
    with pytest.raises(InputError, match="has no text"):
        list(neardup.dedup_records([{"id": "a"}], ONE))


@pytest.mark.parametrize(("a", "b"), [(-1, 0), (0, 2**70), (2**64, 0), (np.int64(-1), 0)])
def test_hamming_refuses_values_outside_64_bits(a, b):
    with pytest.raises(ValueError, match="from 0 to 2\\*\\*64 - 1"):
        neardup.hamming(a, b)


def test_hamming_takes_numpy_integers_and_refuses_floats():
    assert neardup.hamming(np.uint64(2**64 - 1), 0) == 64
    assert neardup.hamming(np.int64(5), np.uint64(3)) == 2
    with pytest.raises(TypeError, match="a is float"):
        neardup.hamming(1.0, 0)


@pytest.mark.parametrize(
    ("fps", "needle"),
    [
        ([1.5], "item 0 is float"),
        (np.array([1.0]), "got float64"),
        (np.array([[1], [2]], np.uint64), "1-D array, got shape \\(2, 1\\)"),
        ([2**64], "item 0 is 18446744073709551616"),
        ([-(2**63) - 1], "item 0 is -9223372036854775809"),
        (np.array([-1], np.int32), "negative int32"),
        ([True], "got bool"),
        (["5"], "got <U1"),
    ],
)
def test_index_add_many_refuses_what_is_not_a_fingerprint(fps, needle):
    idx = HammingIndex()
    ids = list(range(len(fps)))
    with pytest.raises(InputError, match=needle):
        idx.add_many(ids, fps)
    assert len(idx) == 0


def test_index_empty_add_is_a_no_op_and_int64_stays_reinterpreted():
    idx = HammingIndex()
    idx.add_many([], [])
    assert len(idx) == 0
    idx.add_many([1, 2], [-1, 2**63])  # numpy reads these as float64; they are read exactly
    assert idx.fingerprints()[1].tolist() == [2**64 - 1, 2**63]
    with pytest.raises(InputError, match="item 0 is float"):
        idx.add(3, 1.5)


@pytest.mark.parametrize(
    ("objs", "needle"),
    [
        ([(1, "x")], "item 0's second value is str 'x'"),
        ([5], "item 0 is int 5"),
        ([(1, Simhash("a"), 2)], "item 0 is tuple"),
    ],
)
def test_simhash_index_names_the_pairs_it_takes(objs, needle):
    with pytest.raises(TypeError, match=f"objs must be \\(obj_id, Simhash\\) pairs; {needle}"):
        SimhashIndex(objs, k=2)
    with pytest.raises(TypeError, match="expected a Simhash, got str"):
        SimhashIndex([], k=2).get_near_dups("x")


def test_contentseen_state_must_be_a_directory(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ConfigError, match=r"state must be a directory: .*afile' exists and is not one"):
        neardup.ContentSeen(afile)
    with pytest.raises(ConfigError, match=r"is under .*afile', which is not one"):
        neardup.ContentSeen(afile / "sub")


@pytest.mark.parametrize("date", [[1], object(), True, {"day": 1}])
def test_contentseen_refuses_a_date_the_service_refuses(date):
    cs = neardup.ContentSeen()
    with pytest.raises(InputError, match=r"date must be a str .* or None; got"):
        cs.check("https://a.example/1", text="长江是中华民族的母亲河。", date=date)
    analysis = cs.analyse(text="长江是中华民族的母亲河。")
    with pytest.raises(InputError, match="date must be"):
        cs.check_analysed("https://a.example/1", analysis, date=date)


@pytest.mark.parametrize("date", [None, "2024-03-01", 1709251200, 1709251200000.0, dt.date(2024, 3, 1)])
def test_contentseen_takes_the_dates_it_reads(date):
    cs = neardup.ContentSeen(match=MatchConfig())
    assert cs.check("https://a.example/1", text="长江是中华民族的母亲河。", date=date).kind == "new"


@pytest.mark.parametrize(
    ("kwargs", "needle"), [({"filter": "yes"}, "filter must be True"), ({"config": "x"}, "config")]
)
def test_dedup_table_refuses_a_bad_filter_or_config(kwargs, needle):
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"id": ["a", "b"], "text": ["同一篇新闻。", "同一篇新闻。"]})
    with pytest.raises(TypeError, match=needle):
        neardup.dedup_table(table, **kwargs)
