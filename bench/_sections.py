"""Write a benchmark's section into a docs file between its markers, leaving the others alone.

python bench/_sections.py docs/benchmarks.md index < section.md
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def write_section(doc: str | Path, name: str, body: str) -> None:
    path = Path(doc)
    text = path.read_text(encoding="utf-8")
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text:
        text = text.rstrip("\n") + f"\n\n{begin}\n{end}\n"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    new = f"{head}{begin}\n{body.strip()}\n{end}{tail}"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(new)
    os.replace(tmp, path)


if __name__ == "__main__":
    write_section(sys.argv[1], sys.argv[2], sys.stdin.read())
