"""The console script asks numpy not to request transparent huge pages (``madvise``) for its
arrays, and leaves a choice the user made in ``NUMPY_MADVISE_HUGEPAGE`` alone."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from neardup.cli.main import _without_huge_pages

try:
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # numpy 1.x
    from numpy.core.multiarray import _set_madvise_hugepage  # type: ignore[no-redef]


@pytest.fixture
def numpy_setting() -> Iterator[None]:
    before = _set_madvise_hugepage(True)
    yield
    _set_madvise_hugepage(before)


def test_the_run_asks_numpy_for_no_huge_pages(monkeypatch: pytest.MonkeyPatch, numpy_setting: None) -> None:
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    _without_huge_pages()
    assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "0"  # read by the workers' numpy
    assert _set_madvise_hugepage(True) is False  # this process, numpy already imported


def test_a_setting_the_user_made_is_left_alone(monkeypatch: pytest.MonkeyPatch, numpy_setting: None) -> None:
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    _without_huge_pages()
    assert os.environ["NUMPY_MADVISE_HUGEPAGE"] == "1"
    assert _set_madvise_hugepage(True) is True
