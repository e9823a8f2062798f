"""The eval tools' public API: every evaluation name has one import path, ``neardup.eval``."""

from __future__ import annotations

import importlib

import neardup
import neardup.eval

# the evaluation names the top-level package has offered; they stay importable from neardup.eval
EVAL_NAMES = (
    "SynthConfig",
    "Truth",
    "adjusted_rand_index",
    "build_report",
    "evaluate",
    "natural_truth",
    "score_clusters",
    "sweep",
    "synthesize",
    "write_report",
)


def test_every_eval_name_imports_from_neardup_eval() -> None:
    for name in EVAL_NAMES:
        assert name in neardup.eval.__all__
        assert getattr(importlib.import_module("neardup.eval"), name) is not None


def test_names_the_top_level_takes_from_eval_are_in_its_all() -> None:
    lazy = getattr(neardup, "_LAZY", {})
    from_eval = {name for name, module in lazy.items() if module.startswith("neardup.eval")}
    assert from_eval <= set(neardup.eval.__all__)


def test_eval_all_names_resolve_to_one_object() -> None:
    for name in neardup.eval.__all__:
        value = getattr(neardup.eval, name)
        module = getattr(value, "__module__", None)
        assert module is None or module.startswith("neardup.eval"), (name, module)


def test_no_eval_name_is_also_a_submodule() -> None:
    import pkgutil

    submodules = {m.name for m in pkgutil.iter_modules(neardup.eval.__path__)}
    assert not submodules & set(neardup.eval.__all__)
