"""An append-only journal of framed, checksummed records that proves itself when it is read.

A journal file is a header followed by records::

    header   b"neardupJ" | version u32 | len(kind) u32 | kind bytes | xxh3_64 of the above (u64)
    record   length u32 | seq u64 | xxh3_64(payload) u64 | xxh3_64(first 20 bytes) low 32 bits u32
             | payload (length bytes)

All integers are little-endian. ``seq`` numbers the records 0, 1, 2, ... so a record cut out of the
middle, or one copied in twice, is caught as well as a flipped bit. Replay verifies every record and
decides between two kinds of damage:

* a *torn tail*: the file ends inside its last record (fewer bytes than a frame header, or a frame
  header that verifies but announces more payload than the file holds), or the last records do
  not verify and only zero bytes follow them (the file's size reached the disk, its data not).
  That is a write a crash or power cut cut short, never fsynced; it is cut off (the file is
  truncated to the last good record).
* anything else: a frame header or payload that does not verify, a sequence gap. The journal is
  damaged: :class:`~neardup.exceptions.FormatError` names the file, the record and the offset.

An append that fails part-way (ENOSPC, EIO) truncates the file back to its previous length before the
error is raised, so the next acknowledged record is never written after a partial one.

The journal knows how much of itself is durable (:attr:`Journal.synced_size`: the bytes the last
completed fdatasync covered). An fdatasync that fails is not retried into a false success (after a
failed fsync the kernel may have dropped the unwritten pages and report the next one clean): the
journal refuses every later append and sync with the first error until it is reopened, whose
replay reads what the file really holds.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "j.log")
>>> with Journal(path, kind="demo") as j:
...     j.append(b"first"), j.append(b"second")
(0, 1)
>>> with Journal(path, kind="demo") as j:
...     [(seq, bytes(p)) for seq, p in j.replay()]
[(0, b'first'), (1, b'second')]
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import xxhash

from neardup.exceptions import FormatError, StoreError

__all__ = ["JOURNAL_VERSION", "Journal", "header_bytes"]

JOURNAL_VERSION = 1
_MAGIC = b"neardupJ"
_FRAME = struct.Struct("<IQQI")  # length, seq, payload checksum, frame-header checksum
_FIXED = struct.Struct("<8sII")  # magic, version, len(kind)
_U64 = struct.Struct("<Q")
MAX_RECORD = (1 << 31) - 1
# the journal only grows: fdatasync flushes its data and new length, without the timestamps
_datasync = getattr(os, "fdatasync", os.fsync)


def _frame_check(head20: bytes | memoryview) -> int:
    return xxhash.xxh3_64_intdigest(head20) & 0xFFFFFFFF


def encode_record(seq: int, payload: bytes) -> bytes:
    """One framed record (what :meth:`Journal.append` writes)."""
    head = struct.pack("<IQQ", len(payload), seq, xxhash.xxh3_64_intdigest(payload))
    return head + struct.pack("<I", _frame_check(head)) + payload


def header_bytes(kind: str) -> int:
    """The size of an empty journal of this kind (its header alone)."""
    return len(_file_header(kind))


def _file_header(kind: str) -> bytes:
    k = kind.encode("utf-8")
    fixed = _FIXED.pack(_MAGIC, JOURNAL_VERSION, len(k)) + k
    return fixed + _U64.pack(xxhash.xxh3_64_intdigest(fixed))


def _unwritten_after(data: memoryview, off: int, end: int) -> bool:
    """The record at ``off`` (which ends at ``end``) does not verify and nothing but zero bytes
    follows it: a tail whose data never reached the disk before a power cut (the file's size did,
    its pages not), so it was never fsynced and, at ``always``, never acknowledged."""
    rest = bytes(data[off:])
    zeros_from = off + len(rest.rstrip(b"\0"))  # file offset where the final run of zeros starts
    # write-back loses whole blocks: the zeros must reach back over a sector boundary
    boundary = -(-zeros_from // 512) * 512
    return zeros_from <= end and boundary < len(data)


class Journal:
    """A journal file opened for replay and appends (created, with its header, when missing).

    Args:
        path: the file.
        kind: what the records are (``"contentseen.docs"``); a journal of another kind is refused.
        create: create the file when it does not exist (else FormatError).

    Call :meth:`replay` once before the first :meth:`append`: it verifies the file, repairs a torn
    tail and learns where the next record goes. One process at a time: the owner holds a lock.
    """

    def __init__(self, path: str | os.PathLike[str], *, kind: str, create: bool = True) -> None:
        self.path = Path(path)
        self.kind = kind
        self._header = _file_header(kind)
        self._lock = threading.Lock()
        if not self.path.exists():
            if not create:
                raise FormatError(f"{self.path}: the journal is missing")
            self._create()
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_APPEND)
        self._size = -1  # known after replay
        self._synced = -1  # bytes covered by the last completed fdatasync (known after replay)
        self._count = 0
        self._broken: str | None = None
        self._sync_failed: str | None = None

    def _create(self) -> None:
        """Write the header through a temp file and a rename: a crash leaves no headless journal."""
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            try:
                os.write(fd, self._header)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        dfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    # -- reading -------------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """Records in the journal (after :meth:`replay`)."""
        return self._count

    @property
    def size(self) -> int:
        """Bytes of verified journal (after :meth:`replay`)."""
        return self._size

    @property
    def synced_size(self) -> int:
        """Bytes of the journal known to be on disk: those the last completed fdatasync covered
        (the whole file after :meth:`replay`, which syncs what it read). A power cut may lose the
        records past it; a crash of the process alone loses none."""
        return self._synced

    @property
    def sync_error(self) -> str | None:
        """Why an fdatasync failed (appends are refused since), or None."""
        return self._sync_failed

    def _check_header(self, data: memoryview) -> int:
        where = str(self.path)
        if len(data) < _FIXED.size or bytes(data[:8]) != _MAGIC:
            raise FormatError(
                f"{where} is not a neardup journal (expected it to start with {_MAGIC!r}); "
                "restore it from a backup or start a new state"
            )
        _, version, klen = _FIXED.unpack_from(data)
        end = _FIXED.size + klen
        if len(data) < end + 8 or _U64.unpack_from(data, end)[0] != xxhash.xxh3_64_intdigest(data[:end]):
            raise FormatError(f"{where}: the journal header is damaged (checksum mismatch)")
        if version != JOURNAL_VERSION:
            raise FormatError(
                f"{where} is a journal of version {version}; this neardup reads version "
                f"{JOURNAL_VERSION}: open it with the neardup that wrote it"
            )
        kind = bytes(data[_FIXED.size : end]).decode("utf-8", "replace")
        if kind != self.kind:
            raise FormatError(f"{where} is a journal of {kind!r} records, expected {self.kind!r}")
        return int(end) + 8

    def replay(self) -> Iterator[tuple[int, memoryview]]:
        """Yield ``(seq, payload)`` for every record, verified; repair a torn tail at the end.

        Raises FormatError naming the file, the record number and its byte offset for damage that
        is not a torn tail. Payloads are views of the file read into memory (copy what you keep).
        """
        data = memoryview(self.path.read_bytes())
        off = self._check_header(data)
        end = len(data)
        seq = 0
        where = str(self.path)
        torn = False
        while off < end:
            if end - off < _FRAME.size:
                torn = True
                break
            length, rseq, check, hcheck = _FRAME.unpack_from(data, off)
            if _frame_check(data[off : off + 20]) != hcheck:
                if _unwritten_after(data, off, off + _FRAME.size):
                    torn = True
                    break
                raise FormatError(
                    f"{where}: record {seq} at byte {off} is damaged (frame checksum mismatch); "
                    "restore the file from a backup"
                )
            if rseq != seq:
                raise FormatError(
                    f"{where}: record {seq} at byte {off} is numbered {rseq}: records are missing or "
                    "repeated; restore the file from a backup"
                )
            start = off + _FRAME.size
            if start + length > end:
                torn = True
                break
            payload = data[start : start + length]
            if xxhash.xxh3_64_intdigest(payload) != check:
                if _unwritten_after(data, off, start + length):
                    torn = True
                    break
                raise FormatError(
                    f"{where}: record {seq} at byte {off} is damaged (payload checksum mismatch); "
                    "restore the file from a backup"
                )
            yield seq, payload
            seq += 1
            off = start + length
        assert self._fd is not None
        if torn:
            # the last write never completed, so it was never acknowledged: cut it off
            os.ftruncate(self._fd, off)
        # what was read may still be only in the page cache (a process that crashed without
        # syncing): make it durable, so that synced_size starts at the whole file
        _datasync(self._fd)
        self._size = self._synced = off
        self._count = seq

    # -- writing -------------------------------------------------------------------------------
    def append(self, payload: bytes, *, sync: bool = True) -> int:
        """Write one record (fdatasync it unless ``sync=False``) and return its sequence number.

        A failed write is undone (the file is truncated to its previous length) before the
        StoreError is raised; if even that fails, the journal refuses further appends.
        """
        return self.append_many([payload], sync=sync)

    def append_many(self, payloads: list[bytes], *, sync: bool = True) -> int:
        """Write several records in one write; the sequence number of the last one."""
        with self._lock:
            if self._fd is None:
                raise StoreError(f"{self.path}: the journal is closed")
            if self._size < 0:
                raise StoreError(f"{self.path}: replay the journal before appending to it")
            if self._broken is not None:
                raise StoreError(
                    f"{self.path}: an earlier failed write could not be undone ({self._broken}); "
                    "close and reopen the state (its torn tail is repaired on open)"
                )
            self._refuse_after_failed_sync()
            if not payloads:
                return self._count - 1
            for p in payloads:
                if len(p) > MAX_RECORD:
                    raise StoreError(f"a journal record holds at most {MAX_RECORD} bytes, got {len(p)}")
            first = self._count
            buf = b"".join(encode_record(first + i, p) for i, p in enumerate(payloads))
            try:
                written = os.write(self._fd, buf)
                while written < len(buf):
                    written += os.write(self._fd, buf[written:])
                if sync:
                    _datasync(self._fd)
            except OSError as exc:
                self._undo()
                raise StoreError(f"could not write the journal {self.path}: {exc}") from exc
            self._size += len(buf)
            self._count += len(payloads)
            if sync:
                self._synced = self._size
            return self._count - 1

    def fail(self, reason: str) -> None:
        """Refuse every later append and sync, as after a failed fdatasync (until reopened)."""
        with self._lock:
            if self._sync_failed is None:
                self._sync_failed = reason

    def _refuse_after_failed_sync(self) -> None:
        if self._sync_failed is not None:
            raise StoreError(
                f"could not fsync the journal {self.path} ({self._sync_failed}): records written "
                f"after its first {self._synced} bytes may not be on disk; nothing more is written. "
                "Close and reopen the state once the disk is fixed (opening keeps what the file holds)"
            )

    def _undo(self) -> None:
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, self._size)
        except OSError as exc:  # pragma: no cover - a disk that refuses even to shrink a file
            self._broken = str(exc)

    def reset(self, *, sync: bool = False) -> None:
        """Drop every record (the file keeps its header): for a journal of work in flight."""
        with self._lock:
            if self._fd is None:
                raise StoreError(f"{self.path}: the journal is closed")
            os.ftruncate(self._fd, len(self._header))
            if sync:
                _datasync(self._fd)
            self._size = len(self._header)
            self._synced = self._size if sync else min(self._synced, self._size)
            self._count = 0

    def sync(self) -> None:
        """fdatasync the journal (another thread may append meanwhile: the sync covers at least
        what was written before it began). A failure is raised, and remembered: see the module."""
        with self._lock:
            if self._fd is None:
                return
            self._refuse_after_failed_sync()
            upto = self._size
            if upto <= self._synced:
                return  # nothing written since the last sync
            fd = os.dup(self._fd)
        try:
            _datasync(fd)
        except OSError as exc:
            with self._lock:
                if self._sync_failed is None:
                    self._sync_failed = str(exc)
            raise StoreError(f"could not fsync the journal {self.path}: {exc}") from exc
        finally:
            os.close(fd)
        with self._lock:
            # a reset meanwhile may have shrunk the file below what this sync covered
            self._synced = max(self._synced, min(upto, self._size))

    def close(self) -> None:
        """Close the file (idempotent); appends were written already."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Journal:
        if self._size < 0:
            for _ in self.replay():
                pass
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
