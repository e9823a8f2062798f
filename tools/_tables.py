"""The writer the table tools share: a generated TSV table of ``key<TAB>value`` rows in sections, each
headed by a comment line (the readers in ``neardup.text.normalize`` split on those lines)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def write_table(out: Path, sections: Sequence[tuple[str, Iterable[tuple[str, str]]]]) -> int:
    """Write ``# heading`` and the rows of each section to ``out``; return how many rows."""
    lines, n = [], 0
    for heading, rows in sections:
        lines.append(f"# {heading}\n")
        for key, value in rows:
            lines.append(f"{key}\t{value}\n")
            n += 1
    out.write_text("".join(lines), encoding="utf-8")
    return n
