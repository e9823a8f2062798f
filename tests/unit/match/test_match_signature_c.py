"""The match engine's signature and candidate kernels in C (``_fp_c``) give numba's results bit for
bit: every signature column and the text profiles, on random texts and the corpora, in one thread
and split over threads; the profile gathers; the sketch posting pairs."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from neardup.fingerprint._fast import to_codepoints
from neardup.match import _signature_numba, candidates, signature
from neardup.match.config import MatchConfig
from neardup.text.normalize import numbers_as_digits
from neardup_testing import corpus_texts

pytest.importorskip("neardup.fingerprint._fp_c", reason="the C extension is not built here")

# quote marks opening a line (">", "|", "#", ": ", initials before ">"), newlines, digits, Chinese
# numerals and occasion units (年月日号届次期周 第), letters, full-width and traditional forms, CJK
# beyond the BMP and other astral characters
_ALPHABET = list(
    "> |#:\n\t 0123456789一二三十百两〇年月日号届次期周第abcXYZ，。ＡＢ１２國長江人民中华😀𠀀\U00030000\U00031350é"
)


def _random_texts(k: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(_ALPHABET, k=rng.randint(0, 150))) for _ in range(k)]


def _quoting_texts(k: int, seed: int) -> list[str]:
    """Texts with quotation marks (curly and straight) around runs of 20-60 characters, some
    nested, some left open, some opening a paragraph inside a quotation."""
    rng = random.Random(seed)
    plain = [c for c in _ALPHABET if c not in "\n"]
    marks = ["“", "”", "「", "」", "『", "』", "\n“", '"', '\n"', '\n\n"', "\n"]
    out = []
    for _ in range(k):
        parts = []
        for _ in range(rng.randint(1, 6)):
            parts.append("".join(rng.choices(plain, k=rng.randint(0, 60))))
            parts.append(rng.choice(marks))
        out.append("".join(parts))
    return out


_WORDS = [
    "Monday",
    "march",
    "December",
    "may",
    "colour",
    "colours",
    "coloured",
    "colourful",
    "favourite",
    "honourable",
    "neighbourhood",
    "behavioural",
    "savoury",
    "four",
    "hours",
    "your",
    "flours",
    "devoured",
    "organise",
    "organised",
    "organisations",
    "realising",
    "criticiser",
    "analyse",
    "analysed",
    "analyses",
    "paralysing",
    "rise",
    "crises",
    "promise",
    "surprising",
    "centre",
    "centres",
    "centred",
    "centered",
    "metre",
    "fibre",
    "timbre",
    "genre",
    "catalogue",
    "dialogues",
    "rogue",
    "travelled",
    "traveller",
    "cancelled",
    "modelling",
    "selling",
    "spelling",
    "programme",
    "programmes",
    "programmed",
    "jewellery",
    "defence",
    "offences",
    "licence",
    "pretence",
    "licenced",
    "ORGANISE",
    "Colour",
    "organisationsorganisationsorganisation",
    "color",
    "organize",
    "center",
    "catalog",
    "traveled",
    "defense",
    "program",
]


def _drawn_texts(parts: list[str], k: int, seed: int, sep: str, longest: int) -> list[str]:
    """Texts of 1 to ``longest`` parts drawn at random, joined by ``sep``."""
    rng = random.Random(seed)
    return [sep.join(rng.choices(parts, k=rng.randint(1, longest))) for _ in range(k)]


#: ordinals and dates with and without their units (第十四届, 十四届, 第十四界, 第一时间, 第二个, 3月4号)
_OCCASION_PARTS = [*"第届界次期年月日号周一个", "十四", "14", "时间", "会议", "3", "2023"]
#: years among words and numbers that are none (2004, 1899, 2100, 20040), next to CJK characters too
_YEAR_PARTS = ["2004", "1999", "1899", "2100", "20040", "12", "in", "the", "年", "东京", "2020奥运"]


TEXTS = (
    _random_texts(1_500, seed=25)
    + _quoting_texts(500, seed=26)
    + _drawn_texts(_WORDS, 300, seed=27, sep=" ", longest=30)  # spellings, near misses, long words
    + _drawn_texts(_OCCASION_PARTS, 300, seed=28, sep="", longest=20)
    + _drawn_texts(_YEAR_PARTS, 200, seed=29, sep=" ", longest=20)
    + corpus_texts(400)
)


@pytest.mark.parametrize(("n", "k", "m"), [(5, 128, 16), (3, 16, 0), (1, 4, 2), (9, 0, 1)])
def test_signature_columns_equal_numba(n: int, k: int, m: int) -> None:
    cps, offsets = to_codepoints([numbers_as_digits(t) for t in TEXTS])
    table = signature.fold_table()
    want = _signature_numba._signature_kernel_serial(cps, offsets, table, n, k, m)
    got = signature._sign_c(cps, offsets, table, n, k, m)  # over 256 documents: split over threads
    nd = offsets.shape[0] - 1
    for g, w in zip(got[:6], want[:6], strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g, w)
    # the profile buffer is only defined where a document wrote its tokens
    ntok = want[3]
    for d in range(nd):
        base = offsets[d] + d
        assert np.array_equal(got[6][base : base + ntok[d]], want[6][base : base + ntok[d]])
    ptr_c, prof_c = signature._compact_profiles_c(got[6], offsets, got[3], 50)
    ptr_n, prof_n = _signature_numba._compact_profiles(want[6], offsets, want[3], 50)
    assert np.array_equal(ptr_c, ptr_n) and np.array_equal(prof_c, prof_n)


def test_one_thread_and_many_threads_agree() -> None:
    cps, offsets = to_codepoints(TEXTS[:300])
    table = signature.fold_table()
    split = signature._sign_c(cps, offsets, table, 5, 64, 8)
    saved = signature._PARALLEL_FROM
    signature._PARALLEL_FROM = 10**9
    try:
        whole = signature._sign_c(cps, offsets, table, 5, 64, 8)
    finally:
        signature._PARALLEL_FROM = saved
    for a, b in zip(split[:6], whole[:6], strict=True):
        assert np.array_equal(a, b)


def test_take_gathers_profiles_as_numba() -> None:
    sigs = signature.signatures(TEXTS[:400], MatchConfig())
    rows = np.random.default_rng(1).integers(0, 400, 250).astype(np.int64)
    ptr_c, prof_c = signature._gather(sigs.prof_ptr, sigs.prof, rows)
    ptr_n, prof_n = _signature_numba._gather_profiles(sigs.prof_ptr, sigs.prof, rows)
    assert np.array_equal(ptr_c, ptr_n) and np.array_equal(prof_c, prof_n)


@pytest.mark.parametrize("max_posting", [0, 2, 50])
def test_posting_pairs_equal_numba(max_posting: int) -> None:
    rng = np.random.default_rng(max_posting)
    n = 5_000
    values = np.sort(rng.integers(0, 400, n).astype(np.uint64))
    docs = rng.integers(0, 300, n).astype(np.int64)
    order = np.lexsort((docs, values))
    values, docs = values[order], docs[order]
    posted = rng.random(n) < 0.5
    got = candidates._pairs_of_postings(values, docs, posted, max_posting)
    want = candidates._posting_pairs(values, docs, posted, max_posting)
    assert np.array_equal(got, want)


def test_sketch_pairs_on_the_corpora_equal_numba() -> None:
    cfg = MatchConfig()
    sigs = signature.signatures(TEXTS, cfg)
    got = candidates.sketch_pairs(sigs.sketch, cfg)
    saved = candidates._fp_c
    candidates._fp_c = None
    try:
        want = candidates.sketch_pairs(sigs.sketch, cfg)
    finally:
        candidates._fp_c = saved
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_signing_loads_no_numba_kernel() -> None:
    """With the extension built, signing and sketch candidates never load their numba kernels."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from neardup.match.signature import signatures\n"
        "from neardup.match.candidates import sketch_pairs\n"
        "from neardup.match.config import MatchConfig\n"
        "s = signatures(['长江是中华民族的母亲河，也是中华民族发展的重要支撑。'] * 300)\n"
        "s.take([0, 5])\n"
        "sketch_pairs(s.sketch, MatchConfig())\n"
        "print(sorted(m for m in sys.modules if m.endswith('_numba')))\n"
    )
    env = {**os.environ, "NEARDUP_JIT": "always"}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
