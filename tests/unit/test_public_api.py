"""The public API: the core in ``neardup.__all__``, every public name documented once (docs/api.md)
with the one path it is imported from, eval tools under ``neardup.eval``, and a light import."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import neardup

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"
README = API.parent.parent / "README.md"
#: the evaluation tools, imported from neardup.eval only
EVAL_NAMES = (
    "Truth",
    "evaluate",
    "score_clusters",
    "adjusted_rand_index",
    "SynthConfig",
    "synthesize",
    "natural_truth",
    "sweep",
    "build_report",
    "write_report",
)


def documented() -> list[tuple[str, str]]:
    """(name, module) of each row of docs/api.md, in order."""
    rows: list[tuple[str, str]] = []
    module = None
    for line in API.read_text(encoding="utf-8").splitlines():
        head = re.fullmatch(r"## `([\w.]+)`", line)
        if head:
            module = head.group(1)
        row = re.match(r"\| `(\w+)` \|", line)
        if row and module:
            rows.append((row.group(1), module))
    return rows


def test_every_public_name_resolves() -> None:
    missing = [name for name in neardup.__all__ if getattr(neardup, name, None) is None]
    assert missing == []


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        neardup.no_such_name  # noqa: B018


def test_import_neardup_does_not_load_heavy_modules() -> None:
    code = "import sys, neardup; print(sorted(m for m in ('numba', 'jieba', 'fastapi', 'pyspark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_all_lists_exactly_the_lazy_names_and_the_eager_ones() -> None:
    eager = {
        "ConfigError",
        "FormatError",
        "InputError",
        "MissingDependency",
        "NeardupError",
        "SimHashConfig",
        "StoreError",
        "__version__",
    }
    assert set(neardup.__all__) == eager | set(neardup._LAZY)


def test_no_core_name_is_also_a_subpackage_or_module() -> None:
    modules = {m.name for m in pkgutil.iter_modules(neardup.__path__)}
    assert "fingerprint" in modules and "eval" in modules
    assert sorted(set(neardup.__all__) & modules) == []


def test_eval_tools_live_under_neardup_eval_only() -> None:
    ev = importlib.import_module("neardup.eval")
    for name in EVAL_NAMES:
        assert name not in neardup.__all__
        assert getattr(ev, name) is not None
        with pytest.raises(AttributeError):
            getattr(neardup, name)


def test_every_public_name_has_exactly_one_documented_import_path() -> None:
    rows = documented()
    names = [n for n, _ in rows]
    assert sorted({n for n in names if names.count(n) > 1}) == []
    paths = dict(rows)
    assert sorted(n for n, m in rows if m == "neardup") == sorted(neardup.__all__)
    for name in EVAL_NAMES:
        assert paths[name] == "neardup.eval"
    for name, module in rows:  # each documented path works
        assert getattr(importlib.import_module(module), name) is not None, f"{module}.{name}"
    for module in ("neardup.match", "neardup.dedup"):  # their whole __all__, nothing else
        mod = importlib.import_module(module)
        assert all(paths.get(n) in (module, "neardup") for n in mod.__all__), module


@pytest.mark.parametrize("page", [README, *sorted(API.parent.glob("*.md"))], ids=lambda p: p.name)
def test_readme_and_docs_import_each_name_from_its_documented_path(page: Path) -> None:
    paths = dict(documented())
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"^\s*(?:>>> )?from (neardup[\w.]*) import \(?([\w, ]+)", text, re.MULTILINE)
    for module, names in found:
        for name in (n.strip() for n in names.split(",")):
            if name in paths:
                assert paths[name] == module, (
                    f"{page.name} imports {name} from {module}, documented in {paths[name]}"
                )


def test_the_readme_fingerprint_is_the_one_text_function() -> None:
    from neardup.fingerprint import fingerprint
    from neardup.fingerprint.simhash import fingerprint as defined

    assert fingerprint is defined
    assert fingerprint("新闻联播") == int(neardup.fingerprint_many(["新闻联播"])[0])
