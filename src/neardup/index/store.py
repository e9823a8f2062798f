"""The on-disk format of a HammingIndex: one file, a checked header, memory-mapped arrays.

Layout (all integers little-endian)::

    offset 0   8 bytes   magic b"NDHAMIDX"
    offset 8   uint32    format version (FORMAT_VERSION)
    offset 12  uint32    header length H
    offset 16  uint64    xxh3_64 of the header bytes
    offset 24  H bytes   header, UTF-8 JSON (see below)
    ...        zero padding; every array starts at a multiple of 4096

Header keys: ``format``, ``version``, ``bits``, ``max_distance``, ``blocks`` (the design),
``count``, ``layout`` ("residual" or "compressed"), ``layout_params``, ``metadata`` (the caller's
dict, e.g. the SimHash config), ``neardup_version``, and ``arrays``: name -> {dtype, shape,
offset, nbytes, xxh3}. Opening checks the magic, the version, the header checksum, the file
length and (unless ``verify=False``) the xxh3 of every array; any mismatch raises FormatError.
Writes are atomic: a temp file beside the target, fsync, rename.

Version 2 stores the residual tables of :mod:`neardup.index.residual` (arrays ``hi``, ``lo``,
``offsets``, ``ids``). Version 1 stored full 64-bit tables (layout "tables"); such a file still
opens, its table 0 rebuilt into residual tables in memory (save it again to store version 2).
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import xxhash

from neardup._version import __version__
from neardup.exceptions import FormatError
from neardup.index.design import Design
from neardup.index.segments import Segment
from neardup.io import atomic_write

if TYPE_CHECKING:
    from neardup.index.hamming import HammingIndex

__all__ = ["FORMAT_VERSION", "MAGIC", "open_index", "read_header", "save_index"]

MAGIC = b"NDHAMIDX"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
_PREFIX = struct.Struct("<8sIIQ")
_ALIGN = 4096


def _align(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _digest(arr: npt.NDArray[Any]) -> str:
    return xxhash.xxh3_64_hexdigest(np.ascontiguousarray(arr).data)


def save_index(
    index: HammingIndex,
    path: str | os.PathLike[str],
    *,
    compress: bool = False,
    block_size: int = 128,
    codec: str = "gap",
) -> None:
    """Write a compacted index (one segment or none) to ``path`` atomically."""
    from neardup.index.codec import CompressedSegment

    segs = index._segments
    if len(segs) > 1 or index._buf_ids.shape[0]:
        index.compact()
        segs = index._segments
    arrays: dict[str, npt.NDArray[Any]] = {}
    layout, params = "tables", {}
    if segs:
        seg = segs[0]
        if compress and not isinstance(seg, CompressedSegment):
            seg = CompressedSegment.from_segment(seg, block_size=block_size, codec=codec)
        elif not compress and isinstance(seg, CompressedSegment):
            seg = seg.plain()
        arrays, params = seg.to_arrays()
        layout = "compressed" if isinstance(seg, CompressedSegment) else "residual"
    d = index.design
    header: dict[str, Any] = {
        "format": "neardup-hamming-index",
        "version": FORMAT_VERSION,
        "bits": d.bits,
        "max_distance": d.max_distance,
        "blocks": list(d.blocks),
        "count": len(index),
        "layout": layout,
        "layout_params": params,
        "metadata": index.metadata,
        "neardup_version": __version__,
        "arrays": {},
    }
    specs = {
        name: {"dtype": a.dtype.str, "shape": list(a.shape), "nbytes": int(a.nbytes), "xxh3": _digest(a)}
        for name, a in arrays.items()
    }
    header["arrays"] = specs
    # array offsets depend on the header length and vice versa: reserve room, grow until it fits
    reserve = _ALIGN
    while True:
        pos = _align(_PREFIX.size + reserve)
        for spec in specs.values():
            spec["offset"] = pos
            pos = _align(pos + spec["nbytes"])
        blob = json.dumps(header, sort_keys=True).encode("utf-8")
        if not specs or _PREFIX.size + len(blob) <= min(sp["offset"] for sp in specs.values()):
            break
        reserve *= 2
    with atomic_write(path, "wb") as fh:
        fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, len(blob), xxhash.xxh3_64_intdigest(blob)))
        fh.write(blob)
        written = _PREFIX.size + len(blob)
        for name, a in arrays.items():
            off = specs[name]["offset"]
            fh.write(b"\0" * (off - written))
            fh.write(np.ascontiguousarray(a).data)
            written = off + a.nbytes
        end = _align(written) if arrays else written
        fh.write(b"\0" * (end - written))


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON header of an index file (checked), without mapping its arrays."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            prefix = fh.read(_PREFIX.size)
            if len(prefix) < _PREFIX.size:
                raise FormatError(f"{p}: not a neardup Hamming index (file too short: {len(prefix)} bytes)")
            magic, version, hlen, hsum = _PREFIX.unpack(prefix)
            if magic != MAGIC:
                raise FormatError(
                    f"{p}: not a neardup Hamming index (expected magic {MAGIC!r}, got {magic!r})"
                )
            if version not in READABLE_VERSIONS:
                raise FormatError(
                    f"{p}: index format version {version}, this neardup reads versions "
                    f"{', '.join(map(str, READABLE_VERSIONS))}: rebuild the index with this neardup "
                    "(`neardup index build`) or open it with the neardup that wrote it"
                )
            blob = fh.read(hlen)
    except OSError as exc:
        raise FormatError(f"{p}: cannot read index: {exc}") from exc
    if len(blob) != hlen or xxhash.xxh3_64_intdigest(blob) != hsum:
        raise FormatError(f"{p}: index header is damaged (checksum mismatch): rebuild or restore the file")
    try:
        header: dict[str, Any] = json.loads(blob)
    except ValueError as exc:  # pragma: no cover - the checksum catches damage first
        raise FormatError(f"{p}: index header is not JSON: {exc}") from exc
    return header


def _check_fields(header: Any, p: Path) -> None:
    """The header's fields of the expected types and ranges, so a crafted header (whose checksum
    was recomputed) is one FormatError, not a traceback."""

    def bad(what: str, value: Any) -> FormatError:
        return FormatError(f"{p}: index header field {what} is {value!r}: the header is damaged")

    def count(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not isinstance(header, dict):
        raise bad("(the whole header)", type(header).__name__)
    if not count(header.get("count")):
        raise bad("count", header.get("count"))
    if not isinstance(header.get("metadata") or {}, dict):
        raise bad("metadata", header.get("metadata"))
    if not isinstance(header.get("layout_params", {}), dict):
        raise bad("layout_params", header.get("layout_params"))
    specs = header.get("arrays", {})
    if not isinstance(specs, dict):
        raise bad("arrays", specs)
    for name, spec in specs.items():
        if not isinstance(spec, dict):
            raise bad(f"arrays.{name}", spec)
        for key in ("offset", "nbytes"):
            if not count(spec.get(key)):
                raise bad(f"arrays.{name}.{key}", spec.get(key))
        shape = spec.get("shape")
        if not isinstance(shape, list) or not all(count(d) for d in shape):
            raise bad(f"arrays.{name}.shape", shape)
        if not isinstance(spec.get("xxh3"), str):
            raise bad(f"arrays.{name}.xxh3", spec.get("xxh3"))
        try:
            np.dtype(spec.get("dtype"))
        except TypeError:
            raise bad(f"arrays.{name}.dtype", spec.get("dtype")) from None


def open_index(path: str | os.PathLike[str], *, verify: bool = True) -> HammingIndex:
    """Open a file written by :func:`save_index`; arrays are memory-mapped read-only."""
    from neardup.index.codec import CompressedSegment
    from neardup.index.hamming import HammingIndex

    p = Path(path)
    header = read_header(p)
    _check_fields(header, p)
    try:
        design = Design.parse(header["blocks"], bits=header["bits"], max_distance=header["max_distance"])
    except Exception as exc:
        raise FormatError(f"{p}: index header has an invalid design: {exc}") from exc
    size = p.stat().st_size
    arrays: dict[str, npt.NDArray[Any]] = {}
    specs: dict[str, dict[str, Any]] = header.get("arrays", {})
    mm: mmap.mmap | None = None
    if specs:
        end = max(s["offset"] + s["nbytes"] for s in specs.values())
        if size < end:
            raise FormatError(f"{p}: index file is truncated (expected at least {end} bytes, got {size})")
        with open(p, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        for name, s in specs.items():
            dt = np.dtype(s["dtype"])
            count = int(np.prod(s["shape"])) if s["shape"] else 1
            if count * dt.itemsize != s["nbytes"]:
                raise FormatError(f"{p}: array {name!r} has an inconsistent size in the header")
            a = np.frombuffer(mm, dtype=dt, count=count, offset=s["offset"]).reshape(s["shape"])
            if verify and _digest(a) != s["xxh3"]:
                raise FormatError(
                    f"{p}: array {name!r} is damaged (xxh3 mismatch): rebuild or restore the index file"
                )
            arrays[name] = a
    index = HammingIndex(
        bits=design.bits,
        max_distance=design.max_distance,
        design=design,
        metadata=header.get("metadata") or {},
    )
    index.path = str(p)
    if arrays:
        kern = index._kern
        params = header.get("layout_params", {})
        try:
            if header.get("layout") == "compressed":
                seg: Any = CompressedSegment.from_arrays(kern, arrays, params)
            elif header.get("layout") == "residual":
                seg = Segment.from_arrays(kern, arrays, params)
            elif header.get("layout") == "tables":  # version 1: full tables, table 0 = sorted fps
                seg = Segment.build(kern, np.asarray(arrays["ids"]), np.asarray(arrays["tables"][0]))
            else:
                raise FormatError(f"{p}: unknown index layout {header.get('layout')!r}")
        except (KeyError, ValueError) as exc:
            raise FormatError(f"{p}: index arrays do not match the header: {exc}") from exc
        index._segments = [seg]
        index._mmap = mm
    if len(index) != header.get("count"):
        raise FormatError(f"{p}: index holds {len(index)} fingerprints, header says {header.get('count')}")
    return index
