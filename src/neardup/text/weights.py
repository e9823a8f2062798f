"""Feature weights: IDF tables (jieba's by default, or fitted on your corpus), TF-IDF, 5-level
quantization (seed 004), topic-word boost and top-N keyword selection by text length.

>>> table = IDFTable({"亚冠": 9.0}, default=5.0)
>>> table["亚冠"], table["unknown"]
(9.0, 5.0)
>>> quantize([0.5, 2.0, 10.0], levels=5)
[1, 1, 5]
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from neardup.exceptions import FormatError, InputError

__all__ = ["IDFTable", "auto_top_n", "fit_idf", "jieba_idf", "load_idf", "quantize"]

IDF_HEADER = "# neardup idf v1"


class IDFTable:
    """Word -> inverse document frequency, with ``default`` (the median) for unseen words."""

    __slots__ = ("default", "name", "table")

    def __init__(self, table: Mapping[str, float], default: float | None = None, name: str = "") -> None:
        self.table: dict[str, float] = dict(table)
        if default is None:
            values = sorted(self.table.values())
            default = values[len(values) // 2] if values else 1.0
        self.default = float(default)
        self.name = name

    def __getitem__(self, word: str) -> float:
        return self.table.get(word, self.default)

    def get(self, word: str) -> float:
        return self.table.get(word, self.default)

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, word: object) -> bool:
        return word in self.table

    def save(self, path: str | os.PathLike[str], *, docs: int | None = None) -> None:
        """Write ``word idf`` lines (jieba's format) atomically, with a comment header."""
        from neardup.io import atomic_write

        with atomic_write(path, "w") as fh:
            fh.write(f"{IDF_HEADER} docs={docs if docs is not None else ''} default={self.default!r}\n")
            for word, idf in sorted(self.table.items(), key=lambda kv: (kv[1], kv[0])):
                fh.write(f"{word} {idf:.6f}\n")


def _weight(text: str, path: Path, lineno: int) -> float:
    """An IDF value: a finite number >= 0 (a NaN or a negative weight breaks every weighted sum)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise InputError(f"idf must be a finite number >= 0, got {text!r}", source=str(path), line=lineno)
    return value


def _read_idf(path: Path) -> IDFTable:
    table: dict[str, float] = {}
    default: float | None = None
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 (closed by the with below)
    except OSError as exc:
        raise InputError(f"cannot read the IDF table: {exc.strerror}", source=str(path)) from None
    with fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if line.startswith("#"):
                    if line.startswith("# neardup idf") and not line.startswith(IDF_HEADER):
                        raise FormatError(
                            f"{path}: IDF table of an unknown version ({line.strip()!r}); "
                            f"expected {IDF_HEADER!r}"
                        )
                    for part in line.split():
                        if part.startswith("default=") and part[8:]:
                            default = _weight(part[8:], path, lineno)
                    continue
                parts = line.rstrip("\n").rsplit(" ", 1)
                if len(parts) != 2:
                    if not line.strip():
                        continue
                    raise InputError("expected 'word idf'", source=str(path), line=lineno)
                table[parts[0]] = _weight(parts[1], path, lineno)
        except UnicodeDecodeError:
            raise InputError("IDF table is not UTF-8", source=str(path)) from None
    if not table:
        raise InputError("IDF table is empty", source=str(path))
    return IDFTable(table, default, name=str(path))


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime: float) -> IDFTable:
    return _read_idf(Path(path))


def load_idf(path: str | os.PathLike[str] | None = None) -> IDFTable:
    """The IDF table at ``path`` (``word idf`` lines), or jieba's own table when None. Cached."""
    if path is None:
        return jieba_idf()
    p = Path(path)
    try:
        mtime = p.stat().st_mtime
    except OSError:
        raise InputError(
            "IDF table not found (build one with: neardup idf build CORPUS -o idf.txt)", source=str(p)
        ) from None
    return _load_cached(str(p.resolve()), mtime)


@lru_cache(maxsize=1)
def jieba_idf() -> IDFTable:
    """jieba's IDF table (``jieba/analyse/idf.txt`` of the installed jieba); median for unknown words."""
    import jieba

    path = Path(jieba.__file__).parent / "analyse" / "idf.txt"
    table = _read_idf(path)
    table.name = "jieba"
    return table


def fit_idf(token_lists: Iterable[Iterable[str]], *, smooth: bool = True) -> tuple[IDFTable, int]:
    """Fit IDF on documents given as token lists: ``log((1 + N) / (1 + df)) + 1`` (smoothed).

    Returns the table and the number of documents. Unknown words get the IDF of a word seen once.

    >>> t, n = fit_idf([["a", "b"], ["a"]])
    >>> n, round(t["a"], 3), round(t["b"], 3)
    (2, 1.0, 1.405)
    """
    df: Counter[str] = Counter()
    n = 0
    for tokens in token_lists:
        df.update(set(tokens))
        n += 1
    if n == 0:
        raise InputError("cannot fit IDF on an empty corpus")
    s = 1 if smooth else 0
    table = {w: math.log((s + n) / (s + c)) + 1.0 for w, c in df.items()}
    return IDFTable(table, math.log((s + n) / (s + 1)) + 1.0), n


def quantize(weights: list[float], levels: int = 5) -> list[int]:
    """Map weights to integer levels 1..levels relative to the heaviest (seed 004's 1-5 scale)."""
    if not weights:
        return []
    top = max(weights)
    if top <= 0:
        return [1] * len(weights)
    return [max(1, math.ceil(levels * w / top - 1e-9)) for w in weights]


def auto_top_n(n_chars: int) -> int:
    """How many keywords to keep for a text of ``n_chars`` characters: 16 + chars/20, at most 256.

    >>> auto_top_n(100), auto_top_n(2000), auto_top_n(100_000)
    (21, 116, 256)
    """
    return min(256, 16 + n_chars // 20)
