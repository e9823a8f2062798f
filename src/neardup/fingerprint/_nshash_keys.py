"""Texts to nshash keys: the 64-bit hashes of each text's n longest normalized sentences.

The scanner finds each text's n longest sentences in one pass over UTF-8 bytes. It is a C
extension (``_nshash_c``, built by pip at install), so no call waits for a compiler: a batch goes
through ``scan_into`` in one call over the UTF-8 of all texts, one text through ``scan_one`` with
no batch set-up (the scanner writes into a small array and hashes md5 keys itself; Python hashes
the other keys from the kept byte slices). Where the extension could not be built (no C compiler
at install), batches go through the same scanner in numba (``_nshash_scan``, compiled once into
the kernel cache) and one text is cut by a single regex split in plain Python. Texts with a Latin
sentence end, and texts with no sentence long enough, go through ``split_sentences`` itself. All
paths give the same keys (tested on the corpora).

>>> k = _keyer(2, "xxh3", 5)
>>> k.keys_one("短句。这一句要长一些才行。") == k.keys_many(["短句。这一句要长一些才行。"])[0]
True
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from neardup.exceptions import ConfigError, InputError
from neardup.fingerprint.hashing import HASH_NAMES, get_hash64
from neardup.stores.base import Key
from neardup.text.sentences import _LATIN_END, split_sentences

# whitespace runs other than newlines (newlines end sentences)
_WS = re.compile(r"[^\S\n]+")
# a space with a non-ASCII character on either side (spaces inside Chinese text carry nothing)
_CJK_SPACE = re.compile(r" (?=[^\x00-\x7f])|(?<=[^\x00-\x7f]) ")
# split_sentences' cut (a run of CJK terminators plus closing quotes, or newlines), kept by split()
_CUT = re.compile(r"([。！？；!?;…]+[”’」』）)\"']*|\n+)")

_nshash_c: ModuleType | None
try:
    from neardup.fingerprint import _nshash_c
except ImportError:  # built without a C compiler: numba for batches, plain Python for one text
    _nshash_c = None

# as in _nshash_scan: columns of a kept-sentence row, and scan_one's flags above the count
ROW = 6
CHANGED = 1 << 8
LATIN = 1 << 9


def _scan(buf: Any, bounds: Any, n: int, min_chars: int) -> tuple[Any, Any, Any]:
    """``_nshash_scan._scan``: the kept rows, the number kept per text, and the Latin flags."""
    if _nshash_c is None:
        from neardup.fingerprint._nshash_scan import _scan as scan_numba

        return scan_numba(buf, bounds, n, min_chars)
    ndocs = bounds.shape[0] - 1
    out = np.empty((ndocs * n, ROW), np.int64)
    kept = np.empty(ndocs, np.int64)
    latin = np.empty(ndocs, np.bool_)
    nout = _nshash_c.scan_into(buf, bounds, n, min_chars, out, kept, latin)
    return out[:nout], kept, latin


def _to_text(text: object) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"text is not UTF-8 (bad byte at offset {exc.start}); decode it first or "
                "convert it with iconv"
            ) from None
    raise InputError(f"text must be str or UTF-8 bytes, got {type(text).__name__}")


def _check_args(n: int, min_sentence_chars: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 255:
        raise ConfigError(
            f"n (sentences per document) must be an int between 1 and 255, got {n!r}; "
            "the seed uses 5, and 1 for the longest sentence only"
        )
    if (
        isinstance(min_sentence_chars, bool)
        or not isinstance(min_sentence_chars, int)
        or min_sentence_chars < 0
    ):
        raise ConfigError(f"min_sentence_chars must be an int >= 0, got {min_sentence_chars!r}")


def _hasher(hashfunc: str) -> Callable[[bytes], int]:
    if hashfunc not in HASH_NAMES:
        raise ConfigError(f"hashfunc must be one of {', '.join(map(repr, HASH_NAMES))}, got {hashfunc!r}")
    return get_hash64(hashfunc)


@lru_cache(maxsize=32, typed=True)
def _keyer(n: int, hashfunc: str, min_sentence_chars: int) -> _Keyer:
    _check_args(n, min_sentence_chars)
    return _Keyer(n, hashfunc, min_sentence_chars)


def _normalize(s: str) -> str:
    """The Python twin of the scanner's normalization: whitespace runs -> one space, kept only
    between two ASCII characters ("中 文" -> "中文", "a  b" -> "a b")."""
    return _CJK_SPACE.sub("", " ".join(s.split()))


def _utf8(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")


class _Keyer:
    """Texts to nshash keys for one (n, hashfunc, min_chars): a batch at a time (``keys_many``) or
    one text at a time (``keys_one``)."""

    def __init__(self, n: int, hashfunc: str, min_chars: int) -> None:
        self.n = n
        self.min_chars = min_chars
        self.hashfunc = hashfunc
        self.hash = _hasher(hashfunc)
        self._md5 = hashfunc == "md5"  # the one-text scanner hashes md5 itself
        self._local = threading.local()  # the one-text scanner's output arrays, per thread

    def _run(self, texts: Sequence[object]) -> tuple[list[str], str, bytes, Any, list[int], list[bool]]:
        strs = [t if type(t) is str else _to_text(t) for t in texts]
        big = "".join(strs)
        raw = _utf8(big)
        bounds = np.zeros(len(strs) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, strs), np.int64, len(strs)), out=bounds[1:])
        rows, kept, latin = _scan(np.frombuffer(raw, np.uint8), bounds, self.n, self.min_chars)
        return strs, big, raw, rows, kept.tolist(), latin.tolist()

    def _slow(self, text: str, latin: bool = True) -> list[str]:
        """A text the scanner left out: one with a Latin sentence end goes through split_sentences;
        one with no sentence long enough (``latin=False``: the scanner found none) is its whole text."""
        if latin:
            sents = [_normalize(s) for s in split_sentences(_WS.sub(" ", text))]
            sents.sort(key=len, reverse=True)
            picked = [x for x in sents[: self.n] if len(x) >= self.min_chars]
            if picked:
                return picked
        whole = _normalize(text)
        if not whole:
            raise InputError("text is empty (or only whitespace); nshash needs some text")
        return [whole]

    def _slow_keys(self, text: str, latin: bool = True) -> list[Key]:
        h = self.hash
        return [h(_utf8(s)) for s in self._slow(text, latin)]

    def sentences_many(self, texts: Sequence[object]) -> list[list[str]]:
        """``longest_sentences`` of each text (whole-text fallback included)."""
        strs, big, _, rows, kept, latin = self._run(texts)
        pieces = [big[a:z] for a, z in zip(rows[:, 0].tolist(), rows[:, 1].tolist(), strict=True)]
        for j in np.flatnonzero(rows[:, 5]).tolist():
            pieces[j] = _normalize(pieces[j])
        out: list[list[str]] = []
        pos = 0
        for text, c, lat in zip(strs, kept, latin, strict=True):
            if c:
                out.append(pieces[pos : pos + c])
                pos += c
            else:
                out.append(self._slow(text, lat))
        return out

    def keys_one(self, text: object) -> list[Key]:
        """``keys_many([text])[0]`` without batch set-up: one call of the C scanner on this text's
        bytes (or, without the extension, one regex split in plain Python)."""
        if type(text) is not str:
            text = _to_text(text)
        if _nshash_c is not None:
            return self._keys_compiled(text)
        return self._keys_python(text)

    def _keys_python(self, text: str) -> list[Key]:
        """The same keys as the scanner, cut with one regex split (a text with a Latin sentence end
        takes split_sentences itself)."""
        h = self.hash
        if not ("." in text and _LATIN_END.search(text)):
            parts = _CUT.split(text)
            parts.append("")
            sents = []
            for piece in map(str.__add__, parts[::2], parts[1::2]):
                piece = piece.strip()
                if piece:
                    sents.append(_normalize(piece) if " " in piece or not piece.isprintable() else piece)
            sents.sort(key=len, reverse=True)
            picked = [x for x in sents[: self.n] if len(x) >= self.min_chars]
            if picked:
                return [h(_utf8(x)) for x in picked]
        return self._slow_keys(text)

    def _buffers(self) -> tuple[Any, Any, Any]:
        """This thread's output arrays for ``_scan_one``: rows, md5 heads (empty unless md5), scratch."""
        try:
            return self._local.buffers  # type: ignore[no-any-return]
        except AttributeError:
            bufs = (
                np.empty((self.n, ROW), np.int64),
                np.empty(self.n if self._md5 else 0, np.uint64),
                np.empty(128 if self._md5 else 0, np.uint8),
            )
            self._local.buffers = bufs
            return bufs

    def _keys_compiled(self, text: str) -> list[Key]:
        try:
            raw = text.encode()  # the strict codec is faster; lone surrogates need surrogatepass
        except UnicodeEncodeError:
            raw = _utf8(text)
        top, heads, tail = self._buffers()
        assert _nshash_c is not None  # keys_one comes here only with the C scanner
        got = _nshash_c.scan_one(raw, len(text), self.n, self.min_chars, top, heads, tail)
        if 0 < got < CHANGED and self._md5:  # the md5 keys, computed by the scanner
            return heads.tolist()[:got]  # type: ignore[no-any-return]
        kept = got & (CHANGED - 1)
        if not kept:
            return self._slow_keys(text, latin=got == LATIN)
        h = self.hash
        return [
            h(_utf8(_normalize(text[a:z]))) if w else h(raw[b0:b1])
            for a, z, b0, b1, _, w in top.tolist()[:kept]
        ]

    def keys_many(self, texts: Sequence[object]) -> list[list[Key]]:
        """The keys of each text: 64-bit hashes of its sentences to hash, longest first."""
        strs, big, raw, rows, kept, latin = self._run(texts)
        h = self.hash
        bounds = zip(rows[:, 2].tolist(), rows[:, 3].tolist(), strict=True)
        if self.hashfunc == "md5":  # get_hash64("md5") inlined: digests joined, read by numpy
            md5 = hashlib.md5
            digests = b"".join([md5(raw[a:z]).digest() for a, z in bounds])
            flat: list[int] = np.frombuffer(digests, dtype=">u8")[::2].tolist()
        else:
            flat = [h(raw[a:z]) for a, z in bounds]
        for j in np.flatnonzero(rows[:, 5]).tolist():
            flat[j] = h(_utf8(_normalize(big[rows[j, 0] : rows[j, 1]])))
        out: list[list[Key]] = []
        pos = 0
        for text, c, lat in zip(strs, kept, latin, strict=True):
            if c:
                out.append(flat[pos : pos + c])  # type: ignore[arg-type]
                pos += c
            else:
                out.append(self._slow_keys(text, lat))
        return out
