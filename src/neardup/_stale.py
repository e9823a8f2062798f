"""Temp files and folders of killed runs: named with their owner's pid, removed by the next run.

A run writes its work in progress under a name ending in ``-<pid>`` (``.idx.tmp-4242``,
``.seg-000003.tmp-4242``) and renames it into place when done. A run killed before that leaves it
behind; :func:`remove_stale` removes those whose owner is gone: no process has that pid, or the
process that has it started after the temp was last written (the pid was reused).

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> os.mkdir(os.path.join(d, ".idx.tmp-999999999"))
>>> [p.name for p in remove_stale(d, ".idx.tmp-")]
['.idx.tmp-999999999']
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["owner_alive", "remove_stale"]


def _started(pid: int) -> float | None:
    """When process ``pid`` started, in seconds since the epoch (Linux /proc), None when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22: start time after boot
        boot = next(
            int(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def owner_alive(pid: int, written: float) -> bool:
    """Whether the process ``pid`` that wrote something at time ``written`` may still be running."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = _started(pid)
    return started is None or started <= written + 2.0  # /proc/stat btime is in whole seconds


def remove_stale(directory: str | os.PathLike[str], prefix: str, tag: str | None = None) -> list[Path]:
    """Remove the entries of ``directory`` named ``<prefix>...<tag><pid>`` (``tag`` defaults to
    ``prefix``: ``<prefix><pid>``) whose owner is gone; return those removed."""
    tag = prefix if tag is None else tag
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        head, sep, tail = entry.name.rpartition(tag)
        if not sep or len(head) + len(sep) < len(prefix) or not tail.isdigit():
            continue
        try:
            written = entry.stat(follow_symlinks=False).st_mtime
        except FileNotFoundError:
            continue
        if owner_alive(int(tail), written):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not path.exists():
            removed.append(path)
    return removed
