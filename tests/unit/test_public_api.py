"""The names in neardup.__all__ are all importable and the package imports light."""

from __future__ import annotations

import subprocess
import sys

import neardup


def test_every_public_name_resolves() -> None:
    missing = [name for name in neardup.__all__ if getattr(neardup, name, None) is None]
    assert missing == []


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        neardup.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_import_neardup_does_not_load_heavy_modules() -> None:
    code = "import sys, neardup; print(sorted(m for m in ('numba', 'jieba', 'fastapi', 'pyspark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_all_lists_exactly_the_lazy_names_and_the_core_ones() -> None:
    core = {
        "ConfigError",
        "FormatError",
        "InputError",
        "MissingDependency",
        "NeardupError",
        "SimHashConfig",
        "StoreError",
        "__version__",
    }
    assert set(neardup.__all__) == core | set(neardup._LAZY)
