"""The corpus index directory: what ``neardup index build`` writes and ``dedup --against`` reads.

::

    INDEX_DIR/
      header.json            {"format": "neardup-corpus-index", "version": 4, "settings": {...},
                              "count": N, "segments": [{"name": "seg-00000", "start": 0, "count": n,
                              "parts": [{"file": "part-00000.parquet", "rows": n, "bytes": B,
                                         "xxh3": "<16 hex>"}], "days": true}]}
      seg-00000/part-*.parquet   columns pos int64, id string, and the match engine's signature:
                                 exact, content, simhash, layout (uint64), has_layout (bool),
                                 size, tokens (int32), sketch (fixed list of uint32),
                                 numbers (fixed list of uint64), profile (list of uint32);
                                 day (int32): the record's date as a day number
                                 (``neardup.match.dates``, NO_DAY unknown), from version 4
      seg-00001/...          one more segment per ``--merge``

Parquet because Spark reads the same directory from local disk, HDFS or S3 (``part-*`` files under
each segment), and pyarrow streams it row group by row group on one machine. ``header.json`` lists
the segments: a segment is visible only once the header naming it has been replaced (atomically),
so an interrupted merge leaves the index as it was. Headers of another format or a newer version
are refused; ``settings`` are the fingerprint settings, checked against the batch's.

Days: a part without a ``day`` column (written by version 3) is read with every day unknown, so its
documents are decided by their texts alone; a merge into a version 3 index writes the new segment
with days and the header at version 4 (an older neardup, which would ignore the days, refuses it).

Integrity: the header lists each segment's part files with their row count, size and the xxh3 of
their bytes (whatever columns they hold). Opening checks the structure (segments that add up to the
count, every listed part present with its size: a deleted, renamed or truncated part is a
FormatError); reading a part checks its checksum first, so flipped bytes are refused rather than read
as other fingerprints; :meth:`CorpusIndex.verify` checks everything at once (``index info
--verify``). Segments written without a part list (a Spark merge on HDFS/S3) are
checked by the row counts in their Parquet footers. A merge that finds the index changed since it
was opened (another ``--merge`` landed meanwhile) is refused, so two runs never both add the same
documents.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import xxhash

from neardup._deps import require
from neardup._stale import owner_alive, remove_stale
from neardup.dedup.config import DedupConfig
from neardup.dedup.fingerprints import Fingerprints
from neardup.exceptions import ConfigError, FormatError, InputError, StoreError
from neardup.io import atomic_write
from neardup.match import Signatures

__all__ = [
    "CHUNK_ROWS",
    "COLUMNS",
    "DAY",
    "FORMAT",
    "HEADER",
    "VERSION",
    "CorpusIndex",
    "arrow_table",
    "check_settings",
    "merged_header",
    "refuse_changed",
    "segment_name",
    "signatures_of",
]

FORMAT = "neardup-corpus-index"
VERSION = 4  # 4: the records' days; 3: match-engine signatures; 2: per-part checksums; 1: none
# (2 and 1 held SimHash only)
MIN_VERSION = 3  # version 3 parts have no day column: their days are unknown
HEADER = "header.json"
#: rows per Parquet row group and per streamed chunk: candidate look-ups skip values common within
#: a chunk, so every reader of the corpus (local or Spark) must cut it into the same chunks
CHUNK_ROWS = 1 << 18
_CHUNK = 1 << 22

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def _pa() -> Any:
    return require("pyarrow", "parquet", purpose="the corpus index (Parquet segments)")


def _pq() -> Any:
    return require("pyarrow.parquet", "parquet", purpose="the corpus index (Parquet segments)")


def file_xxh3(path: str | os.PathLike[str]) -> str:
    """The xxh3-64 of a file's bytes, as 16 hex digits (read 4 MiB at a time)."""
    h = xxhash.xxh3_64()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


_U64_COLS = ("exact", "content", "simhash", "layout")
#: the columns every part holds
COLUMNS = ("pos", "id", *_U64_COLS, "has_layout", "size", "tokens", "sketch", "numbers", "profile")
#: the day column, which parts written before version 4 lack (read as NO_DAY)
DAY = "day"


def arrow_table(fps: Fingerprints, start: int) -> Any:
    """The segment table of a batch whose first document gets corpus position ``start``."""
    pa = _pa()
    n = len(fps)
    s = fps.sigs
    k = s.sketch.shape[1]
    m = s.numbers.shape[1]
    cols: dict[str, Any] = {
        "pos": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "id": pa.array(fps.ids, pa.string()),
    }
    for name in _U64_COLS:
        cols[name] = pa.array(getattr(s, name), pa.uint64())
    cols["has_layout"] = pa.array(s.has_layout, pa.bool_())
    cols["size"] = pa.array(s.size, pa.int32())
    cols["tokens"] = pa.array(s.tokens, pa.int32())
    cols["sketch"] = pa.FixedSizeListArray.from_arrays(pa.array(s.sketch.ravel(), pa.uint32()), k)
    cols["numbers"] = pa.FixedSizeListArray.from_arrays(pa.array(s.numbers.ravel(), pa.uint64()), m)
    cols["profile"] = profile_array(s)
    cols[DAY] = pa.array(s.day, pa.int32())
    return pa.table(cols)


def profile_array(s: Signatures, value_type: Any = None) -> Any:
    """The text profiles of ``s`` as one Arrow list column (``value_type``: uint32 by default)."""
    pa = _pa()
    lo = int(s.prof_ptr[0])
    offsets = pa.array((s.prof_ptr - lo).astype(np.int32 if s.prof_ptr[-1] - lo < 2**31 else np.int64))
    values = s.prof[lo : int(s.prof_ptr[-1])]
    vt = value_type or pa.uint32()
    values_arr = pa.array(values if vt == pa.uint32() else values.view(np.int32), vt)
    kind = pa.ListArray if offsets.type == pa.int32() else pa.LargeListArray
    return kind.from_arrays(offsets, values_arr)


def signatures_of(rb: Any, widths: tuple[int, int] | None = None) -> Signatures:
    """The signatures in a record batch (or table) of a corpus index part, or of the Spark job's
    signature rows: there the unsigned columns come as signed ones of the same width (the bits are
    kept), and the list columns are variable-size lists of ``widths`` (sketch, numbers) values.
    Without a ``day`` column every day is unknown."""
    names = rb.schema.names

    def col(name: str) -> Any:
        return rb.column(names.index(name))

    def fixed(name: str, dtype: Any, width: int | None) -> Any:
        c = col(name)
        if hasattr(c, "combine_chunks"):
            c = c.combine_chunks()
        width = c.type.list_size if width is None else width
        flat = c.flatten().to_numpy(zero_copy_only=False)
        if flat.size != rb.num_rows * width:
            raise FormatError(
                f"signature column {name} holds {flat.size} values for {rb.num_rows} rows of {width}"
            )
        return flat.astype(dtype).reshape(-1, width)

    prof_ptr = np.zeros(rb.num_rows + 1, np.int64)
    prof = np.empty(0, np.uint32)
    if "profile" in names:
        c = col("profile")
        if hasattr(c, "combine_chunks"):
            c = c.combine_chunks()
        offsets = c.offsets.to_numpy().astype(np.int64)
        prof_ptr = offsets - offsets[0]
        prof = c.flatten().to_numpy(zero_copy_only=False).view(np.uint32).copy()
        if prof.size != prof_ptr[-1]:
            raise FormatError(f"the profile column holds {prof.size} values, its offsets say {prof_ptr[-1]}")
    day = np.empty(0, np.int32)  # none: NO_DAY for every row
    if DAY in names:
        day = col(DAY).to_numpy(zero_copy_only=False).astype(np.int32)
    return Signatures(
        day=day,
        prof_ptr=prof_ptr,
        prof=prof,
        exact=col("exact").to_numpy().astype(np.uint64),
        content=col("content").to_numpy().astype(np.uint64),
        simhash=col("simhash").to_numpy().astype(np.uint64),
        size=col("size").to_numpy().astype(np.int32),
        tokens=col("tokens").to_numpy().astype(np.int32),
        sketch=fixed("sketch", np.uint32, None if widths is None else widths[0]),
        numbers=fixed("numbers", np.uint64, None if widths is None else widths[1]),
        layout=col("layout").to_numpy().astype(np.uint64),
        has_layout=col("has_layout").to_numpy(zero_copy_only=False).astype(np.bool_),
    )


def check_settings(header: dict[str, Any], config: DedupConfig, where: str | os.PathLike[str]) -> None:
    """Refuse a batch signed otherwise than the corpus of ``header`` (ConfigError naming the
    settings that differ)."""
    mine, theirs = dict(header["settings"]), config.fingerprint_settings()
    if mine != theirs:
        diff = [k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]
        raise ConfigError(
            f"{where} was built with other fingerprint settings ({', '.join(diff)} differ: "
            f"index {[mine.get(k) for k in diff]} vs now {[theirs.get(k) for k in diff]}); "
            "dedup with the index's settings (the default is to use them) or rebuild it"
        )


def segment_name(header: dict[str, Any]) -> str:
    """The directory name of the next segment."""
    return f"seg-{len(header['segments']):05d}"


def refuse_changed(where: str | os.PathLike[str], opened: dict[str, Any], fresh: dict[str, Any]) -> None:
    """StoreError when another merge added a segment since the header ``opened`` was read: some
    of the batch may be in the index now, so it must be deduplicated again."""
    if fresh["segments"] != opened["segments"]:
        raise StoreError(
            f"another merge added {int(fresh['count']) - int(opened['count'])} documents to {where} "
            "while this batch was being deduplicated against it; nothing was merged: run the dedup "
            "again (merges into one index must run one after another)"
        )


def merged_header(
    header: dict[str, Any], count: int, parts: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header after a merge of ``count`` documents written as ``parts`` (file, rows, bytes,
    xxh3) in the next segment, and that segment's entry."""
    start = int(header["count"])
    # "days": the segment's parts hold the day column (segments of version 3 indexes do not)
    seg = {"name": segment_name(header), "start": start, "count": count, "parts": parts, "days": True}
    out = dict(header)
    out["version"] = VERSION
    out["segments"] = [*header["segments"], seg]
    out["count"] = start + count
    out["updated"] = time.time()
    out["header_xxh3"] = header_checksum(out)
    return out, seg


def header_checksum(header: dict[str, Any]) -> str:
    """The xxh3 of a header's content (settings, counts, segments and their parts' checksums; not
    its times), so that a header edited or damaged in place is refused rather than read with other
    settings."""
    body = {k: v for k, v in header.items() if k not in ("header_xxh3", "created", "updated")}
    return xxhash.xxh3_64_hexdigest(orjson.dumps(body, option=orjson.OPT_SORT_KEYS))


def _count(value: Any, what: str, where: str) -> int:
    """``value`` as a count (an int >= 0, not a bool or a string), else FormatError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FormatError(
            f"{where}: {what} must be a whole number >= 0, got {value!r}: the header is damaged"
        )
    return value


def _plain_name(value: Any, what: str, where: str) -> str:
    """``value`` as a file name inside the index (no folder part, not hidden), else FormatError."""
    if not isinstance(value, str) or not value or "/" in value or "\\" in value or value.startswith("."):
        raise FormatError(
            f"{where}: {what} must be a file name in the index, got {value!r}: the header is damaged"
        )
    return value


def _check_fields(header: dict[str, Any], where: str) -> None:
    """Every field of a corpus index header of the expected type and range (FormatError naming it)."""
    if not isinstance(header["settings"], dict):
        raise FormatError(
            f"{where}: 'settings' must be an object, got {header['settings']!r}: the header is damaged"
        )
    _count(header["count"], "'count'", where)
    for key in ("created", "updated"):
        v = header.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise FormatError(f"{where}: {key!r} must be a time in seconds, got {v!r}: the header is damaged")
    segments = header["segments"]
    if not isinstance(segments, list):
        raise FormatError(f"{where}: 'segments' must be a list, got {segments!r}: the header is damaged")
    for i, seg in enumerate(segments):
        if not isinstance(seg, dict):
            raise FormatError(f"{where}: segment {i} must be an object, got {seg!r}: the header is damaged")
        name = _plain_name(seg.get("name"), f"the name of segment {i}", where)
        _count(seg.get("start"), f"the start of segment {name}", where)
        _count(seg.get("count"), f"the count of segment {name}", where)
        if not isinstance(seg.get("days", False), bool):
            raise FormatError(
                f"{where}: the days flag of segment {name} must be true or false, got {seg['days']!r}: "
                "the header is damaged"
            )
        parts = seg.get("parts")
        if parts is None:
            continue
        if not isinstance(parts, list):
            raise FormatError(
                f"{where}: the part list of segment {name} is damaged: not a list but {parts!r}"
            )
        damaged = f"the part list of segment {name} is damaged:"
        for pt in parts:
            if not isinstance(pt, dict):
                raise FormatError(f"{where}: {damaged} a part must be an object, got {pt!r}")
            _plain_name(pt.get("file"), f"{damaged} a part's file", where)
            _count(pt.get("rows"), f"{damaged} the rows of {pt['file']}", where)
            _count(pt.get("bytes"), f"{damaged} the bytes of {pt['file']}", where)
            if not isinstance(pt.get("xxh3"), str):
                raise FormatError(
                    f"{where}: {damaged} the xxh3 of {pt['file']} must be a string, got {pt.get('xxh3')!r}"
                )


def _finish_killed_builds(p: Path) -> None:
    """Clean up after index builds of ``p`` that were killed: their temp folders are removed, and
    an old index moved aside by a build killed before the new one took its place is put back."""
    remove_stale(p.parent, f".{p.name}.tmp-")
    old_tag = f".{p.name}.old-"
    for entry in sorted(p.parent.glob(f"{old_tag}*")):
        tail = entry.name[len(old_tag) :]
        if not tail.isdigit() or owner_alive(int(tail), time.time()):  # its mtime is the old build's
            continue
        if p.exists():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            os.replace(entry, p)


class CorpusIndex:
    """A corpus index directory (see the module doc).

    >>> import tempfile
    >>> from neardup.dedup.fingerprints import fingerprint_texts
    >>> d = tempfile.mkdtemp() + "/idx"
    >>> cfg = DedupConfig(workers=1)
    >>> ix = CorpusIndex.create(d, cfg, fingerprint_texts(["一篇文章。", "另一篇。"], cfg))
    >>> len(CorpusIndex.open(d)), CorpusIndex.open(d).segments[0]["name"]
    (2, 'seg-00000')
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = header
        self._verified: set[Path] = set()

    # -- opening -----------------------------------------------------------------------------
    @staticmethod
    def check_header(header: Any, where: str) -> dict[str, Any]:
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise FormatError(f"{where} is not a neardup corpus index (expected format {FORMAT!r})")
        version = header.get("version")
        if not isinstance(version, int) or version > VERSION:
            raise FormatError(
                f"{where} is a corpus index of version {version!r}; this neardup reads version "
                f"{VERSION}: upgrade neardup"
            )
        if version < MIN_VERSION:
            raise FormatError(
                f"{where} is a corpus index of version {version} (SimHash fingerprints only); this "
                f"neardup matches by signatures (version {VERSION}): rebuild it with `neardup index build`"
            )
        for key in ("settings", "count", "segments"):
            if key not in header:
                raise FormatError(f"{where} has no {key!r}: the header is damaged")
        _check_fields(header, where)
        # headers written before the checksum have none; every merge since writes one
        if "header_xxh3" in header and header["header_xxh3"] != header_checksum(header):
            raise FormatError(
                f"{where}: the header's checksum does not match its content: it was edited or is "
                "damaged; restore it from a backup or rebuild the index"
            )
        return header

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> CorpusIndex:
        p = Path(path)
        hp = p / HEADER
        if not hp.is_file():
            raise FormatError(
                f"{p} is not a corpus index (no {HEADER}); build one with "
                "`neardup index build CORPUS -o INDEX_DIR`"
            )
        try:
            header = orjson.loads(hp.read_bytes())
        except orjson.JSONDecodeError:
            raise FormatError(f"{hp} is not valid JSON: the header is damaged") from None
        ix = cls(p, cls.check_header(header, str(hp)))
        ix.check_structure()
        return ix

    def check_structure(self) -> None:
        """The cheap checks made on open: segments add up, listed parts are there with their size."""
        where = self.path / HEADER
        total = 0
        segments = self.header["segments"]
        if not isinstance(segments, list):
            raise FormatError(f"{where}: 'segments' is not a list: the header is damaged")
        names: set[str] = set()
        for seg in segments:
            try:
                name, start, count = str(seg["name"]), int(seg["start"]), int(seg["count"])
            except (KeyError, TypeError, ValueError):
                raise FormatError(f"{where}: a segment entry is damaged ({seg!r})") from None
            if name in names or "/" in name or name in ("", ".", ".."):
                raise FormatError(
                    f"{where}: segment {name!r} is named twice or is not a folder name: the header is damaged"
                )
            names.add(name)
            if start != total:
                raise FormatError(
                    f"{where}: segment {name} starts at {start}, expected {total}: the header is damaged"
                )
            total += count
            seg_dir = self.path / name
            parts = seg.get("parts")
            if parts is None:  # a remote Spark merge: the footers are checked on read
                if count and not any(seg_dir.glob("*.parquet")):
                    raise FormatError(
                        f"{seg_dir}: segment {name} holds {count} documents but has no part files; "
                        "restore the directory from a backup or rebuild the index"
                    )
                continue
            try:
                listed = [
                    (str(pt["file"]), int(pt["rows"]), int(pt["bytes"]), str(pt["xxh3"])) for pt in parts
                ]
            except (KeyError, TypeError, ValueError):
                raise FormatError(f"{where}: the part list of segment {name} is damaged") from None
            if sum(rows for _, rows, _, _ in listed) != count:
                raise FormatError(f"{where}: the parts of segment {name} do not add up to {count} rows")
            files = [file for file, _, _, _ in listed]
            if len(set(files)) != len(files) or any("/" in f or f in ("", ".", "..") for f in files):
                raise FormatError(
                    f"{where}: segment {name} lists a part twice or a part that is not a file name: "
                    "the header is damaged"
                )
            for pt in parts:
                f = seg_dir / pt["file"]
                try:
                    size = f.stat().st_size
                except OSError:
                    raise FormatError(
                        f"{f} is missing (listed in {where}): the index is incomplete; restore the "
                        "file from a backup or rebuild the index"
                    ) from None
                if size != int(pt["bytes"]):
                    raise FormatError(
                        f"{f} has {size} bytes, the header says {pt['bytes']}: the part is truncated "
                        "or was replaced; restore it from a backup or rebuild the index"
                    )
        if total != int(self.header["count"]):
            raise FormatError(
                f"{where}: the segments hold {total} documents but the header says "
                f"{self.header['count']}: the header is damaged (a header listing no segments?)"
            )

    def verify_part(self, seg: dict[str, Any], f: Path) -> None:
        """Check one part file against the header (its checksum, or its footer's row count)."""
        if f in self._verified:
            return
        parts = {pt["file"]: pt for pt in seg.get("parts") or ()}
        pt = parts.get(f.name)
        if pt is not None:
            got = file_xxh3(f)
            if got != pt["xxh3"]:
                raise FormatError(
                    f"{f}: checksum {got}, the header says {pt['xxh3']}: the part is damaged; restore "
                    "it from a backup or rebuild the index"
                )
        self._verified.add(f)

    def verify(self) -> list[dict[str, Any]]:
        """Check every part (checksums, and row counts from the Parquet footers); one row per part.

        Raises FormatError at the first damage found.
        """
        pq = _pq()
        report: list[dict[str, Any]] = []
        for seg in self.segments:
            rows = 0
            for f in self._seg_files(seg):
                self.verify_part(seg, f)
                try:
                    n = int(pq.ParquetFile(f).metadata.num_rows)
                except Exception as exc:  # pyarrow's own error types for an unreadable file
                    raise FormatError(f"{f} is not a readable Parquet file ({exc})") from None
                rows += n
                checked = "xxh3" if seg.get("parts") else "rows only (no checksum in the header)"
                report.append({"file": str(f), "rows": n, "checked": checked})
            if rows != int(seg["count"]):
                raise FormatError(
                    f"{self.path / seg['name']}: its parts hold {rows} rows, the header says "
                    f"{seg['count']}; restore the segment from a backup or rebuild the index"
                )
        return report

    @classmethod
    def create(
        cls, path: str | os.PathLike[str], config: DedupConfig, fps: Fingerprints, *, overwrite: bool = False
    ) -> CorpusIndex:
        """Write a new index holding ``fps`` (atomically: a temp directory renamed into place)."""
        p = Path(path)
        if os.path.abspath(p).startswith(("/dev/", "/proc/")) or (p.exists() and not p.is_dir()):
            raise InputError(
                "an index is a directory of files; name a new directory (not a file or a device)",
                source=str(p),
            )
        if p.exists() and any(p.iterdir()):
            if not overwrite:
                raise ConfigError(f"{p} exists and is not empty; pick a new directory or pass --force")
            if not (p / HEADER).is_file():
                raise ConfigError(f"{p} is not a corpus index; refusing to overwrite it")
        p.parent.mkdir(parents=True, exist_ok=True)
        _finish_killed_builds(p)
        tmp = p.parent / f".{p.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            header = {
                "format": FORMAT,
                "version": VERSION,
                "settings": config.fingerprint_settings(),
                "count": 0,
                "segments": [],
                "created": time.time(),
                "updated": time.time(),
            }
            ix = cls(tmp, header)
            ix._write_segment(fps, where=p)
            if p.exists():
                old = p.parent / f".{p.name}.old-{os.getpid()}"
                os.replace(p, old)
                os.replace(tmp, p)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, p)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return cls.open(p)

    # -- properties --------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.header["count"])

    @property
    def segments(self) -> list[dict[str, Any]]:
        return list(self.header["segments"])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.header["settings"])

    def check_settings(self, config: DedupConfig) -> None:
        """Refuse a batch fingerprinted otherwise than this corpus."""
        check_settings(self.header, config, self.path)

    def _seg_files(self, seg: dict[str, Any]) -> list[Path]:
        seg_dir = self.path / seg["name"]
        if seg.get("parts") is not None:
            return [seg_dir / pt["file"] for pt in seg["parts"]]
        return sorted(seg_dir.glob("*.parquet"))

    def files(self) -> list[Path]:
        """The part files, in position order, each verified (checksum) before it is handed out."""
        out: list[Path] = []
        for seg in self.segments:
            for f in self._seg_files(seg):
                self.verify_part(seg, f)
                out.append(f)
        return out

    def disk_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    # -- reading -----------------------------------------------------------------------------
    def iter_signatures(self, batch_rows: int = CHUNK_ROWS) -> Iterator[tuple[I64, Signatures]]:
        """Stream the corpus in position order (per file): (positions, signatures) a row batch at a time."""
        pq = _pq()
        cols = [c for c in COLUMNS if c != "id"] + [DAY]
        for f in self.files():
            for rb in _batches(pq, f, batch_rows, cols):
                yield rb.column(0).to_numpy().astype(np.int64), signatures_of(rb)

    def lookup(self, positions: I64) -> tuple[list[str], Signatures]:
        """ids and signatures of the documents at ``positions`` (sorted, unique)."""
        positions = np.asarray(positions, np.int64)
        ids: list[str | None] = [None] * positions.size
        parts: list[tuple[I64, Signatures]] = []
        if positions.size:
            pq = _pq()
            for f in self.files():
                for rb in _batches(pq, f, CHUNK_ROWS, [*COLUMNS, DAY]):
                    pos = rb.column(0).to_numpy().astype(np.int64)
                    hit = np.isin(pos, positions)
                    if not hit.any():
                        continue
                    rows = np.flatnonzero(hit)
                    where = np.searchsorted(positions, pos[rows])
                    for w, i in zip(where.tolist(), rb.column(1).take(rows).to_pylist(), strict=False):
                        ids[w] = i
                    parts.append((where, signatures_of(rb).take(rows)))
        missing = [int(p) for p, i in zip(positions.tolist(), ids, strict=False) if i is None]
        if missing:
            raise FormatError(f"{self.path}: corpus positions {missing[:5]} not found: the index is damaged")
        if not parts:
            from neardup.match import signatures

            return [], signatures([])
        where_all = np.concatenate([w for w, _ in parts])
        sigs = Signatures.concat([p for _, p in parts]).take(np.argsort(where_all, kind="stable"))
        return [str(i) for i in ids], sigs

    # -- writing -----------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.path / ".lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _write_segment(self, fps: Fingerprints, *, where: Path | None = None) -> dict[str, Any]:
        """Write ``fps`` as a new segment; an OSError without a path names ``where`` (the index the
        user gave) rather than no file at all (pyarrow's write errors carry no path)."""
        try:
            return self._write_segment_unnamed(fps)
        except OSError as exc:
            if exc.filename is not None:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), str(where or self.path)) from None

    def _write_segment_unnamed(self, fps: Fingerprints) -> dict[str, Any]:
        pq = _pq()
        start = len(self)
        name = segment_name(self.header)
        remove_stale(self.path, ".", ".tmp-")  # segments of merges that were killed
        tmp = self.path / f".{name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            # one part per CHUNK_ROWS rows (the chunks every reader streams), as the Spark merge
            # writes them: the same documents give the same files either way
            for first in range(0, len(fps), CHUNK_ROWS):
                part = fps.take(np.arange(first, min(first + CHUNK_ROWS, len(fps))))
                pq.write_table(
                    arrow_table(part, start + first),
                    tmp / f"part-{first // CHUNK_ROWS:05d}.parquet",
                    row_group_size=CHUNK_ROWS,
                )
            parts = [
                {
                    "file": f.name,
                    "rows": int(pq.ParquetFile(f).metadata.num_rows),
                    "bytes": f.stat().st_size,
                    "xxh3": file_xxh3(f),
                }
                for f in sorted(tmp.glob("*.parquet"))
            ]
            for f in tmp.glob("*.parquet"):  # the parts reach the disk before the header names them
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
            final = self.path / name
            shutil.rmtree(final, ignore_errors=True)  # left by an interrupted merge, never listed
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        header, seg = merged_header(self.header, len(fps), parts)
        with atomic_write(self.path / HEADER, "wb", join=False) as fh:
            fh.write(orjson.dumps(header, option=orjson.OPT_INDENT_2))
        self.header = header
        return seg

    def segment_tmp(self, name: str) -> Path:
        """A fresh hidden folder for the parts of segment ``name``, written by others (the Spark
        merge's executors) and then handed to ``commit_segment``."""
        remove_stale(self.path, ".", ".tmp-")  # segments of merges that were killed
        tmp = self.path / f".{name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        return tmp

    def commit_segment(self, tmp: Path, count: int, parts: list[dict[str, Any]]) -> dict[str, Any]:
        """Make the parts in ``tmp`` (``segment_tmp``) the next segment: under the lock, refused
        (StoreError, ``tmp`` removed) if another merge landed since the index was opened; each
        part's size is checked against ``parts`` (file, rows, bytes, xxh3), the folder renamed into
        place and the header replaced atomically."""
        try:
            with self._locked():
                refuse_changed(self.path, self.header, CorpusIndex.open(self.path).header)
                for pt in parts:
                    f = tmp / str(pt["file"])
                    if f.stat().st_size != int(pt["bytes"]):
                        raise StoreError(f"{f}: {f.stat().st_size} bytes written, {pt['bytes']} expected")
                name = segment_name(self.header)
                final = self.path / name
                shutil.rmtree(final, ignore_errors=True)  # left by an interrupted merge, never listed
                os.replace(tmp, final)
                header, seg = merged_header(self.header, count, parts)
                with atomic_write(self.path / HEADER, "wb", join=False) as fh:
                    fh.write(orjson.dumps(header, option=orjson.OPT_INDENT_2))
                self.header = header
                return seg
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def append(self, fps: Fingerprints) -> dict[str, Any]:
        """Add documents as a new segment (the merge step); the header swap makes it visible.

        The batch was deduplicated against the index as this object opened it: if another merge
        landed since, some of ``fps`` may now be in the index, so the merge is refused (StoreError)
        and nothing is written; deduplicate the batch again. A batch that keeps nothing adds no
        segment (the header stays as it is).
        """
        if not len(fps):
            return {}
        with self._locked():
            refuse_changed(self.path, self.header, CorpusIndex.open(self.path).header)
            return self._write_segment(fps)

    def info(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "format": self.header["format"],
            "version": self.header["version"],
            "documents": len(self),
            "segments": len(self.segments),
            "disk_bytes": self.disk_bytes(),
            "checksums": all(seg.get("parts") is not None for seg in self.segments),
            # rows of segments written before version 4, without the day column: their days are
            # unknown, so a batch is decided against them by the texts alone
            "days_unknown": sum(int(seg["count"]) for seg in self.segments if not seg.get("days")),
            "settings": self.settings,
            "created": self.header.get("created"),
            "updated": self.header.get("updated"),
        }


def _batches(pq: Any, f: Path, rows: int, cols: list[str]) -> Iterator[Any]:
    """Record batches of one part (``DAY`` only if the part has it); pyarrow's errors become a
    FormatError naming the file."""
    try:
        pf = pq.ParquetFile(f)
        if DAY in cols and DAY not in pf.schema_arrow.names:
            cols = [c for c in cols if c != DAY]
        it = pf.iter_batches(batch_size=rows, columns=cols)
        while True:
            rb = next(it, None)
            if rb is None:
                return
            yield rb
    except (OSError, ValueError, KeyError, TypeError) as exc:  # ArrowInvalid is a ValueError
        raise FormatError(f"{f} is not a readable corpus index part ({exc}); rebuild the index") from None
