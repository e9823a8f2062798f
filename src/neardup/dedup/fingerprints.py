"""Stage 1: documents in, signatures out (``neardup.match.signature``). Texts are dropped as soon as
they are signed.

This process parses the records; a pool of worker processes does the rest, which is mostly
Python-level work (main-text extraction of HTML records with resiliparse, credit lines, phrases,
numbers, the exact key) around the C signing kernel: a chunk of text records is cut in one slice
per worker, each read for signing and signed on one thread there; an HTML chunk's pages are
extracted there and signed here by the kernel over every core. Memory is bounded by the signatures
and a few chunks of text in flight.

Each chunk's signatures are small arrays that the C allocator places among the chunk's texts. They
are joined into the batch's arrays one column at a time, each column's parts freed and handed back
to the system before the next is joined (``Signatures.concat(consume=True)``): the join holds the
batch's signatures plus one column's parts, not the signatures twice, and what the chunks leave
behind is not kept resident for the rest of the run (0.48 GB on 195,410 zh documents).

>>> from neardup.io import Record
>>> fp = fingerprint_records([Record(id="a", text="今天天气很好。")], DedupConfig(workers=1))
>>> fp.ids, len(fp), fp.sigs.simhash.dtype.name
(['a'], 1, 'uint64')
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._workers import WorkerDied, WorkerPool, WorkerStuck, describe_exit
from neardup.dedup.config import DedupConfig
from neardup.exceptions import InputError
from neardup.io import Record
from neardup.match import MatchConfig, Signatures, signatures
from neardup.match.dates import days_of, reads_dates
from neardup.match.pages import has_html, prepare_pages, read_page

__all__ = ["Fingerprints", "fingerprint_records", "fingerprint_texts", "unique_ids"]

I64 = npt.NDArray[np.int64]


@dataclass
class Fingerprints:
    """The signatures of a batch, in input order, with the ids and what the keep rule compares."""

    ids: list[str] = field(default_factory=list)
    sigs: Signatures = field(default_factory=lambda: signatures([]))
    order: list[Any] | None = None  # per document, the value of config.match.keep_field (keep="newest")

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, positions: I64) -> Fingerprints:
        """The sub-batch at ``positions`` (ascending), renumbered from 0."""
        positions = np.asarray(positions, np.int64)
        return Fingerprints(
            ids=[self.ids[i] for i in positions.tolist()],
            sigs=self.sigs.take(positions),
            order=None if self.order is None else [self.order[i] for i in positions.tolist()],
        )


Item = tuple[str | None, str | None]
_Where = tuple[str, str, int]  # id, source, line

# chunks of text records at least this long are read for signing and signed by the worker
# processes (a slice each); shorter ones, in this process
SIGN_IN_WORKERS_FROM = 1000


@dataclass(frozen=True)
class _Slice:
    """A worker task's one item: a slice of a chunk's text records, to be signed there."""

    items: list[Item]


def _read_item(item: Item, extractor: str) -> Any:
    """One worker step: the page of one (text, html) item."""
    return read_page(item[0], item[1], extractor)


def _sign_slice(items: list[Item], config: MatchConfig) -> Signatures:
    """One worker step: a slice of text records read for signing and signed, on one thread (the
    workers are the parallelism)."""
    return prepare_pages(items, config)[0].sign(threads=1)


def _work(item: Item | _Slice, config: MatchConfig) -> Any:
    if isinstance(item, _Slice):
        return _sign_slice(item.items, config)
    return _read_item(item, config.extractor)


# -------------------------------------------------------------------------------- parent side
def unique_ids(records: Iterable[Record], policy: str) -> Iterator[Record]:
    """The records with a repeated id refused (``policy="error"``: InputError) or renamed
    ``id#2``, ``id#3``, ... (``"suffix"``), skipping a suffixed name that is a real id.

    >>> [r.id for r in unique_ids([Record("a", "x"), Record("a", "y"), Record("a#2", "z")], "suffix")]
    ['a', 'a#2', 'a#2#2']
    """
    seen: dict[str, int] = {}
    for rec in records:
        doc_id = rec.id
        if doc_id in seen:
            if policy == "error":
                raise InputError(
                    f"duplicate id {doc_id!r}: ids must be unique, or pass --duplicate-ids suffix to "
                    "rename repeats id#2, id#3, ...",
                    source=rec.source or None,
                    line=rec.line or None,
                )
            n = seen[doc_id]
            while f"{doc_id}#{n}" in seen or n < 2:
                n += 1
            seen[doc_id] = n
            doc_id = f"{doc_id}#{n}"
            rec.id = doc_id
        seen[doc_id] = 1
        yield rec


def _chunks(
    records: Iterable[Record], size: int, ids: list[str], order: list[Any] | None, order_field: str
) -> Iterator[tuple[list[Item], list[_Where]]]:
    chunk: list[Item] = []
    recs: list[_Where] = []
    for rec in records:
        ids.append(rec.id)
        if order is not None:
            order.append(rec.extra.get(order_field))
        chunk.append((rec.text, rec.html))
        recs.append((rec.id, rec.source, rec.line))  # for messages
        if len(chunk) >= size:
            yield chunk, recs
            chunk, recs = [], []
    if chunk:
        yield chunk, recs


def fingerprint_records(
    records: Iterable[Record],
    config: DedupConfig,
    *,
    on_chunk: Callable[[int], None] | None = None,
) -> Fingerprints:
    """Sign a stream of records in ``config.n_workers`` processes.

    This process parses the records; the workers extract HTML pages' main text and read text
    records for signing and sign them, a slice of a chunk each, while the next chunk is parsed
    (a chunk shorter than ``SIGN_IN_WORKERS_FROM`` is signed here). ``on_chunk(n)`` is called after
    each chunk of ``n`` documents (progress). A worker process that dies (killed, out of memory, a
    crash in the extractor) is replaced and its task run again once; when it dies on it twice, an
    InputError names the record it was reading, as it does when a worker spends over
    ``config.record_timeout`` seconds on one record or slice (the worker is killed). With
    ``workers=1`` everything runs in this process, where nothing can bound it.
    """
    cfg = config.match
    ids: list[str] = []
    # the records' dates: what keep="newest" compares and what tells two occasions apart
    dated = cfg.keep == "newest" or reads_dates(cfg)
    values: list[Any] | None = [] if dated else None
    parts: list[Signatures] = []
    chunks = _chunks(
        unique_ids(records, config.duplicate_ids), config.chunk_size, ids, values, cfg.keep_field
    )
    in_workers = config.workers != 1
    pool: WorkerPool | None = None
    # chunks given to the workers, in input order: (items, tasks, signed there)
    pending: deque[tuple[list[Item], list[int] | None, bool]] = deque()
    owners: dict[int, list[_Where]] = {}  # task -> its records (for the message when a worker dies)
    slices: set[int] = set()  # the tasks that sign a slice (the others extract pages)

    # a chunk signed in this process is read for signing here (the interpreter's lock held) and
    # signed by a thread (the C kernels release the lock), so it is signed while the next is read
    signer = ThreadPoolExecutor(1, thread_name_prefix="neardup-sign")
    signing: deque[tuple[Future[Signatures], int]] = deque()

    def collect(keep: int) -> None:
        while len(signing) > keep:
            future, n = signing.popleft()
            parts.append(future.result())
            if on_chunk:
                on_chunk(n)

    def results(tasks: list[int]) -> list[Any]:
        assert pool is not None
        got: list[Any] = []
        for tid in tasks:
            got.extend(pool.result(tid))
            owners.pop(tid, None)
            slices.discard(tid)
        return got

    def finish(items: list[Item], tasks: list[int] | None, signed: bool) -> None:
        if signed:
            assert tasks is not None
            got = results(tasks)
            collect(0)  # the chunks before it first
            parts.extend(got)
            if on_chunk:
                on_chunk(len(items))
            return
        pages = None if tasks is None else results(tasks)
        prepared = prepare_pages(items, cfg, pages=pages)[0]
        collect(0)  # at most one chunk signing while the next is read
        signing.append((signer.submit(prepared.sign), len(items)))

    try:
        for chunk, recs in chunks:
            html = any(has_html(item) for item in chunk)
            if not in_workers or not (html or len(chunk) >= SIGN_IN_WORKERS_FROM):
                while pending:
                    finish(*pending.popleft())
                finish(chunk, None, False)
                continue
            if pool is None:
                pool = WorkerPool(
                    config.n_workers,
                    functools.partial(_work, config=cfg),
                    deadline=config.record_timeout,
                )
            step = -(-len(chunk) // config.n_workers)
            tasks = []
            for i in range(0, len(chunk), step):
                piece = chunk[i : i + step]
                tid = pool.submit(piece if html else [_Slice(piece)])
                owners[tid] = recs[i : i + step]
                if not html:
                    slices.add(tid)
                tasks.append(tid)
            pending.append((chunk, tasks, not html))
            while len(pending) > 2:  # bounded: a few chunks of text in flight
                finish(*pending.popleft())
        while pending:
            finish(*pending.popleft())
        collect(0)
    except WorkerDied as exc:
        doc_id, source, line = owners[exc.task][0 if exc.task in slices else exc.item]
        if exc.task in slices:
            what = f"records {doc_id!r} to {owners[exc.task][-1][0]!r}: the process signing them died"
            fix = "give the run more memory, or pass --workers 1"
        else:
            what = f"record {doc_id!r}: the process extracting its main text died on it"
            fix = "remove the record, or give the run more memory"
        raise InputError(
            f"{what} twice ({describe_exit(exc.exitcode)}); {fix}",
            source=source or None,
            line=line or None,
        ) from None
    except WorkerStuck as exc:
        doc_id, source, line = owners[exc.task][0 if exc.task in slices else exc.item]
        if exc.task in slices:
            what = f"records {doc_id!r} to {owners[exc.task][-1][0]!r}: signing them"
        else:
            what = f"record {doc_id!r}: extracting its main text"
        raise InputError(
            f"{what} took over {exc.seconds:g} s (the per-record deadline, --record-timeout); its "
            "worker was stopped. Remove the record, or raise the deadline",
            source=source or None,
            line=line or None,
        ) from None
    finally:
        if pool is not None:
            pool.close()
        for future, _ in signing:
            future.cancel()
        signer.shutdown(wait=True)
    order = values if cfg.keep == "newest" else None
    if order and all(v is None for v in order):
        raise InputError(
            f"no document has the field {cfg.keep_field!r}, which --keep newest compares; pass "
            "--keep-field with the field holding each document's date, or --keep first",
            field=cfg.keep_field,
        )
    sigs = Signatures.concat(parts, cfg, consume=True) if parts else signatures([], cfg)
    parts.clear()
    if reads_dates(cfg):
        sigs.day = days_of(values, len(ids))
    return Fingerprints(ids=ids, sigs=sigs, order=order)


def fingerprint_texts(
    texts: Sequence[str], config: DedupConfig | None = None, *, ids: Sequence[str] | None = None
) -> Fingerprints:
    """Sign in-memory texts (ids default to "0", "1", ...).

    >>> len(fingerprint_texts(["一", "二"], DedupConfig(workers=1)))
    2
    """
    cfg = config or DedupConfig()
    names = list(ids) if ids is not None else [str(i) for i in range(len(texts))]
    recs = (Record(id=i, text=t) for i, t in zip(names, texts, strict=False))
    return fingerprint_records(recs, cfg)
