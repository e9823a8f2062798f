"""nshash: a document's fingerprint is the hashes of its n longest sentences (seed 002).

News reposts copy whole articles and change a few characters, the title or the editor's name. The
n longest sentences (n = 5) of a repost are almost always the original's, so two documents that
share any of those sentence hashes get the same ``similar_id``; grouping by it deduplicates a
corpus. ``n=1`` is the "longest sentence only" method the seed starts from.

How a text becomes keys (``sentence_hashes``):

1. the text is split as ``neardup.text.split_sentences`` splits it (。！？；… with closing quotes,
   newlines, English sentence ends);
2. each sentence is normalized: every whitespace run becomes one space, and a space survives only
   between two ASCII characters ("中 文" -> "中文", "a  b" -> "a b"), so re-wrapped, re-indented
   or space-padded copies hash alike;
3. the n longest sentences (normalized characters, ties in text order) of at least
   ``min_sentence_chars`` characters are kept; when no sentence is that long, the whole text
   (normalized the same way) is the one key, so short texts match only exact copies;
4. each is hashed to 64 bits: md5 by default as the seed (the first 8 bytes of the digest, big
   endian, as ``get_hash64("md5")``), or farmhash, xxh3, murmur3.

One numba pass over the UTF-8 of a whole batch cuts, measures and ranks (``_nshash_scan``); only
the kept sentences are hashed, sliced from the UTF-8 bytes (``_nshash_keys``). Texts with an
English sentence end go through ``split_sentences`` itself. Both paths are tested equal.

``NSHash`` maps those keys to integer ids in a store (``neardup.stores``): memory, a snapshot
file, LevelDB or Redis. Ids come from a counter kept in the store, so they survive restarts; when a
document links two groups, they merge (the smaller id wins) and every member resolves to it.

>>> with NSHash(hashdb="memory://") as nsh:
...     a = nsh.get_similar("第一句话足够长，这是用于测试的一句话，长度超过了三十个字符的门槛。第二句。")
...     b = nsh.get_similar("标题改了。第一句话足够长，这是用于测试的一句话，长度超过了三十个字符的门槛。")
...     a == b
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from neardup.exceptions import ConfigError, FormatError
from neardup.fingerprint._nshash_keys import _check_args, _keyer
from neardup.stores.base import Key, KeyValueStore, open_store, prepare_groups

__all__ = ["NSHash", "longest_sentences", "sentence_hashes", "sentence_hashes_many"]

DEFAULT_N = 5
DEFAULT_MIN_SENTENCE_CHARS = 30
#: bump when the way text becomes keys changes: stores built with another version are refused
KEYS_VERSION = 1


def longest_sentences(
    text: str | bytes, n: int = DEFAULT_N, min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS
) -> list[str]:
    """The n longest sentences of ``text`` (whitespace collapsed) of at least ``min_sentence_chars``
    characters, longest first; or ``[whole text]`` when none is that long.

    >>> longest_sentences("短句。这一句要长一些才行。中等长度的句子。", n=2, min_sentence_chars=5)
    ['这一句要长一些才行。', '中等长度的句子。']
    >>> longest_sentences("太短。也短。", n=2)
    ['太短。也短。']
    """
    return _keyer(n, "xxh3", min_sentence_chars).sentences_many([text])[0]


def sentence_hashes(
    text: str | bytes,
    n: int = DEFAULT_N,
    hashfunc: str = "md5",
    min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
) -> list[int]:
    """The 64-bit hashes of ``longest_sentences(text, n, min_sentence_chars)``, repeats removed.

    >>> len(sentence_hashes("这是第一个足够长的句子，它有很多很多很多很多很多个字。短句。", n=5, min_sentence_chars=10))
    1
    """
    return list(dict.fromkeys(_keyer(n, hashfunc, min_sentence_chars).keys_many([text])[0]))  # type: ignore[arg-type]


def sentence_hashes_many(
    texts: Sequence[str | bytes],
    n: int = DEFAULT_N,
    hashfunc: str = "md5",
    min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
) -> list[list[int]]:
    """``sentence_hashes`` of each text, in one pass (much faster than one call per text).

    >>> [len(h) for h in sentence_hashes_many(["一句。", "另一句。"])]
    [1, 1]
    """
    keyer = _keyer(n, hashfunc, min_sentence_chars)
    return [list(dict.fromkeys(keys)) for keys in keyer.keys_many(texts)]  # type: ignore[arg-type]


def _refuse_upstream_pickle(name: str) -> None:
    """FormatError if veelion/nshash's memory store ``{name}.hashdb.pkl`` is there and ours is not."""
    pkl, snap = f"{name}.hashdb.pkl", f"{name}.hashdb.snap"
    if os.path.exists(pkl) and not os.path.exists(snap):
        raise FormatError(
            f"{pkl!r} is veelion/nshash's memory store: neardup keeps its own in {snap!r} and never loads "
            "pickles (its keys are hashes of differently split sentences, so its ids cannot be reused). "
            f"Re-run your documents to rebuild the groups (NSHash(name={name!r}) then get_similar_many), "
            f"after moving {pkl!r} aside, or pass another name"
        )


class NSHash:
    """Assign ``similar_id``s to documents by their n longest sentences (the seed's API).

    ``hashdb``: ``"memory"`` (seed-compatible: kept in memory, saved to ``{name}.hashdb.snap`` on
    close and at exit), ``"leveldb"`` (the directory ``{name}.hashdb``), a store URL
    (``"memory://"`` nothing saved, ``"file:///p/snap"``, ``"leveldb:///p/db"``,
    ``"redis://host:6379/0?prefix=job"``) or an open store (left open by ``close``).

    >>> nsh = NSHash(name="demo", hashfunc="md5", hashdb="memory://")
    >>> nsh.get_similar("只有一句短话。")
    1
    >>> nsh.get_similar_many(["只有一句短话。", "另一句。"])
    [1, 2]
    """

    def __init__(
        self,
        name: str = "test",
        hashfunc: str = "md5",
        hashdb: str | KeyValueStore = "memory",
        n: int = DEFAULT_N,
        min_sentence_chars: int = DEFAULT_MIN_SENTENCE_CHARS,
        *,
        batch_size: int = 2000,
    ) -> None:
        _check_args(n, min_sentence_chars)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"name must be a non-empty string (the seed's file name stem), got {name!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive int, got {batch_size!r}")
        self.name = name
        self.hashfunc = hashfunc
        self.n = n
        self.min_sentence_chars = min_sentence_chars
        self.batch_size = batch_size
        self._keyer = _keyer(n, hashfunc, min_sentence_chars)
        self._owned = True
        if isinstance(hashdb, str) and hashdb == "memory":
            from neardup.stores.memory import MemoryStore

            _refuse_upstream_pickle(name)
            self.store: KeyValueStore = MemoryStore(f"{name}.hashdb.snap")
        elif isinstance(hashdb, str) and hashdb == "leveldb":
            from neardup.stores.leveldb import LevelDBStore

            self.store = LevelDBStore(f"{name}.hashdb")
        elif isinstance(hashdb, str) and "://" in hashdb:
            self.store = open_store(hashdb)
        elif isinstance(hashdb, KeyValueStore):
            self.store = hashdb
            self._owned = False
        else:
            raise ConfigError(
                f"hashdb must be 'memory', 'leveldb', a store URL (memory://, file:///path, leveldb:///path, "
                f"redis://host:port/db?prefix=p) or a store object, got {hashdb!r}"
            )
        self._assign: Callable[[list[list[Key]]], list[int]] = getattr(
            self.store, "_assign_prepared", self.store.assign_many
        )
        try:
            self._check_meta()
        except BaseException:
            self.close()
            raise

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the settings and the store (a Redis store drops its client and reconnects), so an
        NSHash can be shipped to worker processes or Spark executors."""
        state = self.__dict__.copy()
        del state["_keyer"], state["_assign"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._keyer = _keyer(self.n, self.hashfunc, self.min_sentence_chars)
        self._assign = getattr(self.store, "_assign_prepared", self.store.assign_many)

    def settings(self) -> dict[str, Any]:
        """What decides the keys; stored in the store and checked when it is reopened."""
        return {
            "algorithm": "nshash",
            "keys_version": KEYS_VERSION,
            "hashfunc": self.hashfunc,
            "n": self.n,
            "min_sentence_chars": self.min_sentence_chars,
        }

    def _check_meta(self) -> None:
        mine = self.settings()
        raw = self.store.get_meta("nshash")
        if raw is None:
            self.store.set_meta("nshash", json.dumps(mine, sort_keys=True))
            return
        theirs = json.loads(raw)
        if theirs != mine:
            diff = ", ".join(
                f"{k}={theirs.get(k)!r} (you asked {mine.get(k)!r})"
                for k in sorted(set(mine) | set(theirs))
                if theirs.get(k) != mine.get(k)
            )
            raise ConfigError(
                f"store {self.store.url!r} was built with other nshash settings: {diff}; "
                "use the same settings or another store/prefix"
            )

    def get_nshash(self, text: str | bytes, n: int | None = None) -> list[int]:
        """The document's keys: the hashes of its ``n`` longest sentences (default: this NSHash's n).

        >>> nsh = NSHash(hashdb="memory://", min_sentence_chars=0)
        >>> len(nsh.get_nshash("第一句话。第二句话要长一些。第三句。", 2))
        2
        """
        if n is None or n == self.n:
            keyer = self._keyer
        else:
            _check_args(n, self.min_sentence_chars)
            keyer = _keyer(n, self.hashfunc, self.min_sentence_chars)
        return list(dict.fromkeys(keyer.keys_many([text])[0]))  # type: ignore[arg-type]

    def get_similar(self, text: str | bytes) -> int:
        """The document's similar_id: an existing group's if it shares a sentence hash, else a new id."""
        return self._assign([self._keyer.keys_one(text)])[0]

    def get_similar_many(self, texts: Iterable[str | bytes]) -> list[int]:
        """``get_similar`` of each text, in order, batched (one store round trip per ``batch_size``)."""
        if isinstance(texts, (str, bytes)):
            raise TypeError(
                f"expected an iterable of texts, got a {type(texts).__name__}: wrap one text in a list "
                "or call get_similar"
            )
        try:
            items = iter(texts)
        except TypeError:
            raise TypeError(f"expected an iterable of texts, got {type(texts).__name__}") from None
        keys_many, out = self._keyer.keys_many, []
        batch: list[object] = []
        for t in items:
            batch.append(t)
            if len(batch) >= self.batch_size:
                out.extend(self._assign(keys_many(batch)))
                batch = []
        if batch:
            out.extend(self._assign(keys_many(batch)))
        return out

    def assign_keys(self, keys: Sequence[Sequence[Key]]) -> list[int]:
        """Group ids for precomputed key lists (e.g. ``sentence_hashes`` computed on Spark executors)."""
        return self._assign(prepare_groups(keys))

    def resolve(self, ids: Sequence[int]) -> list[int]:
        """The current id of each similar_id handed out earlier (groups may have merged since)."""
        return self.store.resolve(ids)

    def stats(self) -> dict[str, Any]:
        return {**self.store.stats(), **self.settings()}

    def flush(self) -> None:
        self.store.flush()

    def close(self) -> None:
        """Save and close the store (unless it was passed in open)."""
        if self._owned:
            self.store.close()

    def __enter__(self) -> NSHash:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NSHash(hashfunc={self.hashfunc!r}, n={self.n}, store={self.store.url!r})"
