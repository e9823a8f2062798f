"""Fixtures of the service's real-server tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def _warm_numba_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Compile (or load) the numba kernels once in this process, so that each ``neardup serve``
    subprocess loads them from numba's on-disk cache instead of compiling them again at start."""
    from neardup.contentseen import ContentSeen

    state: Path = tmp_path_factory.mktemp("warm") / "state"
    text = "长江是中华民族的母亲河，也是中华民族发展的重要支撑。" * 4
    with ContentSeen(state) as cs:
        cs.check("https://warm.invalid/1", html=f"<html><body><article><p>{text}</p></article></body></html>")
        cs.check("https://warm.invalid/2", text=text + "十年来。", add=True)
    with ContentSeen(state) as cs:  # reopen: the index file's kernels
        cs.check("https://warm.invalid/3", text=text, add=False)
