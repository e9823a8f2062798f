"""The numba MD5 gives ``get_hash64("md5")`` of any byte slice, across block boundaries."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup.fingerprint._md5 import md5_head
from neardup.fingerprint.hashing import get_hash64


@pytest.mark.parametrize("offset", [0, 3])
def test_md5_head_matches_hashlib_for_every_length_around_the_blocks(offset: int) -> None:
    rng = random.Random(offset)
    data = bytes(rng.getrandbits(8) for _ in range(400))
    buf, tail, md5 = np.frombuffer(data, np.uint8), np.zeros(128, np.uint8), get_hash64("md5")
    for length in range(0, 300):
        assert int(md5_head(buf, offset, offset + length, tail)) == md5(data[offset : offset + length])


def test_md5_head_reads_bytes_objects_too() -> None:
    text = "新闻联播，今天的主要内容。".encode()
    assert int(md5_head(text, 3, len(text), np.zeros(128, np.uint8))) == get_hash64("md5")(text[3:])
