"""Headless Chromium for the report tests, and the sweep rows their charts draw."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

CurveRows = Callable[..., list[dict[str, Any]]]


@pytest.fixture
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    return CHROMIUM


@pytest.fixture
def curve_rows() -> CurveRows:
    """Sweep rows for k = 1..5 of each method: precision falls and recall rises with k; hard-negative
    precision falls by ``hn_drop`` a step."""

    def rows(methods: Sequence[str], hn_drop: float = 0.0) -> list[dict[str, Any]]:
        return [
            {
                "method": m,
                "param": k,
                "precision": 1 - k / 20,
                "recall": 0.4 + k / 15,
                "f1": 0.6,
                "hn_precision": 1 - k * hn_drop,
            }
            for m in methods
            for k in range(1, 6)
        ]

    return rows
