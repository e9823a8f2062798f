import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "dedup"))  # dedup_synth: made-up articles


@pytest.fixture
def restore_threads() -> Iterator[None]:
    """The pass's thread count set back to its default after the test."""
    yield
    from neardup.match import kernels

    kernels.set_threads()
