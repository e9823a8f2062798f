"""The batch kernel gives exactly the exact path's canonical keys (and errors) on nasty, generated and real URLs."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pytest
import xxhash

pytest.importorskip("w3lib")

from neardup.exceptions import InputError
from neardup.urls import SeenURLs
from neardup.urls.canonical import (
    DEFAULT_DROP_PARAMS,
    _canonicalize,
    _drop_key,
    _run_kernel,
    canonical_hashes,
    canonicalize_many,
    canonicalize_url,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SHARED = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))


def exact(url: str, drop: frozenset[str] = DEFAULT_DROP_PARAMS) -> str | None:
    """The exact path's key, or None when it rejects the URL."""
    try:
        return _canonicalize(url, drop, 8192)
    except InputError:
        return None


def assert_agree(urls: list[str], drop: frozenset[str] = DEFAULT_DROP_PARAMS) -> int:
    """Kernel output equals the exact path wherever the kernel answers; returns how many it answered."""
    out, starts, hashes, status = _run_kernel(urls, _drop_key(drop), 8192)
    answered = 0
    for i, u in enumerate(urls):
        if status[i] == 1:
            continue
        answered += 1
        got = out[starts[i] : starts[i + 1]].tobytes().decode("ascii")
        want = exact(u, drop)
        assert got == want, f"{u!r}: kernel {got!r}, exact path {want!r}"
        if status[i] == 0:
            assert int(hashes[i]) == xxhash.xxh3_64_intdigest(want.encode())
    h, bad = canonical_hashes(urls, drop_params=drop)
    bad_idx = {i for i, _ in bad}
    for i, u in enumerate(urls):
        want = exact(u, drop)
        if want is None:
            assert i in bad_idx, u
        else:
            assert int(h[i]) == xxhash.xxh3_64_intdigest(want.encode()), u
    return answered


def nasty() -> list[str]:
    lines = (HERE / "nasty_urls.txt").read_text(encoding="utf-8").split("\n")
    return [ln for ln in lines if ln.strip() and not ln.startswith("#")]


_HOSTS = ["example.com", "EXAMPLE.com", "a-b.c_d.cn", "www.sina.com.cn", "1.2.3.4", "xn--fsqu00a.cn", "例子.cn",
          "a..b", "-x.com", "x-.com", "a.com.", "[::1]", "[2001:db8::1]", "u:p@a.com", "@a.com", "", "a b.com"]  # fmt: skip
_PORTS = ["", "", "", ":80", ":443", ":8080", ":0", ":080", ":", ":65536", ":99999x"]
_SEG = ["a", "B", ".", "..", "...", ".a", "a.", "", "%2e", "%2F", "%7e", "~x", "a;b", "a b", "中", "x%zz",
        "!$&'()*+,=:@", "a|b", "[x]", "{y}", "é", "%E4%B8%AD", "a\tb", "a\\b"]  # fmt: skip
_KEYS = ["a", "A", "b", "utm_source", "UTM_Medium", "from", "spm", "a+b", "a b", "", "k=v", "x%20", "中",
         "a_b", "ab", "_ga", "utm_", "gclid", "Z", "a.b", "q;", "~"]  # fmt: skip
_VALS = [
    "",
    "1",
    "2",
    "a+b",
    "a b",
    "x=y",
    "%2B",
    "中",
    "/p?q",
    ",:@!$'()*;?",
    "<>`^{|}",
    "%zz",
    "~-_.",
    "\\",
]


def _pick(rng: random.Random, odd: list[str], clean: list[str], p_odd: float) -> str:
    return rng.choice(odd) if rng.random() < p_odd else rng.choice(clean)


_CLEAN_SEG = ["a", "B", "...", ".a", "a.", "", "~x", "!$&'()*+,=:@", "2024", "index.html", "x-y_z"]
_CLEAN_KEY = [
    "a",
    "A",
    "b",
    "utm_source",
    "UTM_Medium",
    "from",
    "spm",
    "a+b",
    "a_b",
    "ab",
    "_ga",
    "utm_",
    "Z",
    "~",
]
_CLEAN_VAL = ["", "1", "2", "a+b", "x=y", "/p?q", ",:@!$'()*;?", "<>`^{|}", "~-_.", "A+"]


def generated(n: int, seed: int) -> list[str]:
    """URLs assembled from edge-case parts; half of them odd somewhere, half of the common shape."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        p = 0.3 if rng.random() < 0.5 else 0.02
        scheme = _pick(rng, ["ftp", "http:", "https:/", "Https"], ["http", "https", "HTTP"], p)
        if rng.random() < 0.6:
            host = _pick(rng, _HOSTS, _HOSTS[:5], p)
        else:
            host = "".join(rng.choices("abcXYZ019-_.", k=rng.randint(1, 12)))
        path = "".join("/" + _pick(rng, _SEG, _CLEAN_SEG, p) for _ in range(rng.randint(0, 4)))
        if rng.random() < 0.2:
            path += "/"
        url = f"{scheme}://{host}{_pick(rng, _PORTS, _PORTS[:6], p)}{path}"
        if rng.random() < 0.7:
            pairs = []
            for _ in range(rng.randint(0, 5)):
                k, v = _pick(rng, _KEYS, _CLEAN_KEY, p), _pick(rng, _VALS, _CLEAN_VAL, p)
                pairs.append(rng.choice([f"{k}={v}", k, f"{k}=", f"={v}", ""]))
            url += "?" + "&".join(pairs)
        if rng.random() < 0.2:
            url += "#" + rng.choice(["", "top", "a?b=1", "中"])
        if rng.random() < p / 6:
            url = rng.choice([" ", "\t", ""]) + url + rng.choice([" ", "\n", ""])
        out.append(url)
    return out


def test_nasty_fixture_agrees_with_the_exact_path() -> None:
    urls = nasty()
    assert len(urls) > 60
    assert assert_agree(urls) >= 20


def test_generated_urls_agree_with_the_exact_path() -> None:
    urls = generated(20_000, seed=18)
    answered = assert_agree(urls)
    assert answered > 5_000  # the kernel takes a good share even of these odd URLs


@pytest.mark.parametrize(
    "drop",
    [frozenset(), frozenset({"a", "b*"}), frozenset({"a?c", "x"}), frozenset({"*"}), frozenset({"A_*", "ſ"})],
    ids=["none", "names-prefixes", "general-glob", "everything", "upper-and-non-ascii"],
)
def test_other_drop_lists_agree(drop: frozenset[str]) -> None:
    assert_agree(generated(3_000, seed=7) + nasty(), drop)


def _real_urls() -> list[str]:
    urls: set[str] = set()
    for p in sorted(SHARED.glob("*.jsonl.gz")):
        with gzip.open(p, "rt", encoding="utf-8") as f:
            for line in f:
                u = json.loads(line).get("url")
                if u:
                    urls.add(u)
    pat = re.compile(r"https?://[^\s\"'<>\\)\]]+")
    for p in list((ROOT / "tests").rglob("*.py")) + list((ROOT / "tests").rglob("*.html")):
        urls.update(pat.findall(p.read_text(encoding="utf-8", errors="replace")))
    return sorted(urls)


def test_real_urls_and_their_variants_agree() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"no corpus at {SHARED} (the real URL list is built from its url fields)")
    base = _real_urls()
    rng = random.Random(3)
    urls = list(base)
    for u in base:  # what crawlers meet: case, default ports, tracking tags, fragments, dot segments
        head, sep, tail = u.partition("://")
        host, slash, rest = tail.partition("/")
        urls.append(f"{head.upper()}{sep}{host.upper()}:{443 if head == 'https' else 80}{slash}{rest}")
        urls.append(u + ("&" if "?" in u else "?") + f"utm_source=wx&z={rng.randint(0, 9)}&a=1#p")
        urls.append(f"{head}{sep}{host}/./x/../{rest}")
    assert len(base) > 10_000
    assert assert_agree(urls) > len(base)


def test_canonicalize_many_equals_canonicalize_url() -> None:
    urls = [u for u in nasty() + generated(2_000, seed=5) if exact(u) is not None]
    assert canonicalize_many(urls) == [canonicalize_url(u) for u in urls]
    assert canonicalize_many([]) == []
    with pytest.raises(InputError, match="scheme"):
        canonicalize_many(["https://a.com/", "ftp://a.com/"])


def test_canonical_hashes_names_invalid_urls_and_rejects_non_str() -> None:
    h, bad = canonical_hashes(["https://a.com/", "nope", "https://a.com/" + "x" * 300])
    assert [i for i, _ in bad] == [1]
    assert int(h[2]) == xxhash.xxh3_64_intdigest(("https://a.com/" + "x" * 300).encode())  # over 240 bytes
    with pytest.raises(TypeError):
        canonical_hashes(["https://a.com/", 7])  # type: ignore[list-item]
    assert canonical_hashes([])[0].shape == (0,)


def test_seen_urls_single_and_batch_paths_give_the_same_keys() -> None:
    urls = [u for u in nasty() + generated(1_000, seed=9) if exact(u) is not None]
    one = SeenURLs("a", on_invalid="skip")
    many = SeenURLs("b", on_invalid="skip")
    assert [one.check_and_add(u) for u in urls] == many.check_and_add_many(urls)
    assert one.stats()["urls"] == many.stats()["urls"] == len({exact(u) for u in urls})


def test_seen_urls_batch_with_bad_and_non_str_items() -> None:
    seen = SeenURLs("c", on_invalid="skip")
    assert seen.check_and_add_many(["https://a.com/", "nope", 5, "HTTPS://A.com:443/"]) == [
        True,
        False,
        False,
        False,
    ]  # type: ignore[list-item]
    assert seen.stats()["invalid"] == 2
    strict = SeenURLs("d")
    with pytest.raises(InputError, match="1 of 2 URLs are invalid"):
        strict.check_and_add_many(["https://a.com/", "nope"])
    assert strict.check_and_add("https://a.com/") is True  # nothing of the failed batch was recorded
    assert np.array_equal(
        canonical_hashes(["https://a.com/x"])[0],
        np.array([xxhash.xxh3_64_intdigest(b"https://a.com/x")], dtype=np.uint64),
    )
