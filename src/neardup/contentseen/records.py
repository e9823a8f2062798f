"""What ContentSeen reads from a page (``PageAnalysis``) and keeps of it (``DocRecord``, one journal record).

A journal record (format version 4) is the page's match-engine signature followed by JSON metadata::

    len(sig) u32 little-endian | sig (``Signatures.row_bytes``) | {"i", "u", "k", "r", "p", "s", "ts", "d"}

``d`` is the page's date as a day number (``neardup.match.dates``), present only when the page had a
readable date; version 3 records have none (their days are unknown).

Exact and content keys share one key map; each is XORed with its namespace constant so the two
spaces never collide (``keys_of``).

>>> d = DocRecord(1, "https://a.example/", "new", 1, None, b"sig", (7,), 0.0)
>>> DocRecord.from_record(d.record()).url
'https://a.example/'
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import orjson

from neardup.match import Signatures
from neardup.match.dates import NO_DAY

__all__ = ["NS_RAW", "NS_TEXT", "DocRecord", "PageAnalysis", "keys_of"]

NS_RAW = 0x9E3779B97F4A7C15  # the exact key's namespace
NS_TEXT = 0xC2B2AE3D27D4EB4F  # the content key's namespace
_SIG_LEN = struct.Struct("<I")


@dataclass(slots=True)
class DocRecord:
    """What is remembered of one added page (one journal record)."""

    id: int
    url: str
    kind: str
    root: int  # first document of its cluster: itself when it started one
    partner: int | None  # the document its evidence is about (a duplicate's or a partial copy's)
    sig: bytes  # the page's signature (``Signatures.row_bytes``), the journal payload; emptied once
    # the engine holds it (the state reads it back from there)
    sents: tuple[int, ...]  # hashes of its longest sentences (to show shared passages)
    ts: float
    members: list[int] | None = None  # later documents of its cluster (roots only)
    day: int = NO_DAY  # the page's date as a day number (``neardup.match.dates``); reset, as
    # ``sig`` is emptied, once the engine holds it

    def record(self) -> bytes:
        """The journal payload."""
        meta = {"i": self.id, "u": self.url, "k": self.kind, "r": self.root, "p": self.partner}
        meta.update({"s": list(self.sents), "ts": self.ts})
        if self.day != NO_DAY:
            meta["d"] = self.day
        return _SIG_LEN.pack(len(self.sig)) + self.sig + orjson.dumps(meta)

    @classmethod
    def from_record(cls, payload: bytes | memoryview) -> DocRecord:
        """The record ``record`` wrote (struct.error, KeyError, JSONDecodeError if it is not one)."""
        data = bytes(payload)
        (n,) = _SIG_LEN.unpack_from(data)
        sig = data[4 : 4 + n]
        d = orjson.loads(data[4 + n :])
        day = d.get("d", NO_DAY)
        if isinstance(day, bool) or not isinstance(day, int) or not NO_DAY <= day < 2**31:
            raise ValueError(f"the day {day!r} is not a day number")
        return cls(d["i"], d["u"], d["k"], d["r"], d["p"], sig, tuple(d["s"]), d["ts"], day=day)


@dataclass(slots=True)
class PageAnalysis:
    """What ContentSeen reads from one page, before it looks at what it has seen.

    It depends only on the page and the settings, not on the state, so it can be computed in
    another process (the service does, in a pool) and handed to ``ContentSeen.check_analysed``.
    ``complete`` is False while ``check`` computes it lazily (an exact copy needs only ``raw``).
    """

    raw: int  # the exact key: xxh3 of the page (or the text) with whitespace runs collapsed
    text: str = ""  # main text
    sig: bytes = b""  # the match engine's signature of the page (``Signatures.row_bytes``)
    sent_keys: list[int] = field(default_factory=list)  # hashes of the longest sentences
    sents: list[str] = field(default_factory=list)  # those sentences, read only to explain
    settings: str = ""  # which settings made it (see ContentSeen.check_analysed)
    complete: bool = False
    day: int = NO_DAY  # the page's date as a day number: a fact of the record ``check`` is given


def keys_of(kind: str, sig: Signatures) -> list[int]:
    """The key-map entries of a document: its exact key and, unless it is an exact copy, its
    content key (int keys in their namespaces)."""
    keys = [int(sig.exact[0]) ^ NS_RAW]
    if kind != "exact" and int(sig.tokens[0]) > 0:
        keys.append(int(sig.content[0]) ^ NS_TEXT)
    return keys
