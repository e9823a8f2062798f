"""URL canonicalization: one key per page, so the seen-store does not fetch the same page twice.

``canonicalize_url`` runs w3lib's ``canonicalize_url`` (lower-case scheme and host, IDNA hosts,
fragment dropped, dot segments resolved, percent-encoding normalized, query sorted) and adds what
w3lib lacks:

- validation: http/https only, a host is required, no spaces or control characters in the host,
  valid IDNA labels (<= 63 bytes, host <= 253), at most ``max_length`` characters;
  a bad URL raises :class:`~neardup.exceptions.InputError` saying why;
- default ports dropped (``:80`` for http, ``:443`` for https) and a trailing dot of the host removed;
- a host that ends in a number read as an IPv4 address (``0x7f.1`` is ``127.0.0.1``), as browsers
  and w3lib 2.6 read it, so the key does not depend on the w3lib installed;
- tracking parameters removed (``utm_*``, ``spm``, ``from``, share ids, click ids:
  :data:`DEFAULT_DROP_PARAMS`), changeable per call or per job.

Batches (:func:`canonicalize_many`, :func:`canonical_hashes`) go through a numba kernel that
writes the same string for the common URL shapes (plain ASCII hosts, paths and queries) and hands
every other URL to the exact path above (``neardup.urls._kernels_nb`` lists the shapes).

>>> canonicalize_url("HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1#top")
'http://example.com/a/c?a=1&b=2'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from fnmatch import translate
from functools import lru_cache
from itertools import pairwise
from typing import Any
from urllib.parse import unquote_plus

import numpy as np
import xxhash

from neardup._deps import require
from neardup.exceptions import InputError
from neardup.urls._kernels import DROP_GENERAL, SECRET, canonical_batch
from neardup.urls._kernels import canonical_one as _canonical_one

__all__ = [
    "DEFAULT_DROP_PARAMS",
    "DEFAULT_MAX_URL_LENGTH",
    "canonical_hash",
    "canonical_hashes",
    "canonicalize_many",
    "canonicalize_url",
    "check_url",
    "drop_params_matcher",
]

#: Query parameters removed by default: campaign tags, click ids and share/referrer markers that
#: never change the page. Names are matched case-insensitively; ``*`` is a wildcard.
#: ``from`` is included (WeChat/Weibo/news apps add ``from=timeline`` etc.); a site that paginates
#: with ``from=20`` needs ``drop_params=DEFAULT_DROP_PARAMS - {"from"}``.
DEFAULT_DROP_PARAMS: frozenset[str] = frozenset(
    {
        # campaign tags (Google Analytics, Matomo/Piwik, HubSpot, Mailchimp, Marketo, Zhihu's utm_psn)
        "utm_*",
        "pk_*",
        "mtm_*",
        "hsa_*",
        "_hsenc",
        "_hsmi",
        "mc_cid",
        "mc_eid",
        "mkt_tok",
        # click ids of ad networks
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "igshid",
        "_ga",
        "_gl",
        # Alibaba/Taobao/Tmall/Youku tracking
        "spm",
        "scm",
        "spm_id_from",
        "ali_trackid",
        # referrer and share markers (WeChat, Weibo, Bilibili, Douyin, Toutiao, Xiaohongshu)
        "from",
        "isappinstalled",
        "share_source",
        "share_medium",
        "share_from",
        "share_plat",
        "share_tag",
        "share_token",
        "share_id",
        "share_session_id",
        "shareid",
        "share_app_id",
        "sharer_sharetime",
        "sharer_shareid",
        "timestamp_share",
        "vd_source",
        "unique_k",
        "bbid",
        "xsec_source",
        "xsec_token",
        "app_platform",
        "wfr",
        "ref_src",
        "ref_url",
    }
)

#: URLs longer than this many characters are rejected (the sitemaps protocol allows 2,048;
#: common servers accept about 8 KiB).
DEFAULT_MAX_URL_LENGTH = 8192

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEMES = frozenset({"http", "https"})
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAB_NEWLINE = re.compile(r"[\t\r\n]")  # removed anywhere, as browsers do (WHATWG URL standard)
_ASCII_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$")
_PORT = re.compile(r"^[0-9]{1,5}$")
_NETLOC_END = re.compile(r"[/?#\\]")
_OTHER_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")


@lru_cache(maxsize=1)
def _w3lib_canonicalize() -> Callable[[str], str]:
    """w3lib's canonicalize_url, imported on first use (a MissingDependency names the extra)."""
    w3lib_url = require("w3lib.url", "urls", purpose="URL canonicalization")
    return w3lib_url.canonicalize_url  # type: ignore[no-any-return]


def drop_params_matcher(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """Compile parameter names/globs (``utm_*``) into one case-insensitive regex; None if empty.

    >>> bool(drop_params_matcher(["utm_*"]).match("UTM_Source"))
    True
    """
    if isinstance(patterns, str):
        raise InputError(
            f"drop_params must be a collection of parameter names, got the string {patterns!r}; "
            f"use [{patterns!r}]"
        )
    pats = sorted({str(p).strip().lower() for p in patterns if str(p).strip()})
    if not pats:
        return None
    return re.compile("|".join(f"(?:{translate(p)})" for p in pats), re.IGNORECASE)


@lru_cache(maxsize=64)
def _matcher_for(key: frozenset[str]) -> re.Pattern[str] | None:
    return drop_params_matcher(key)


def _bad(url: str, why: str) -> InputError:
    shown = url if len(url) <= 120 else url[:117] + "..."
    return InputError(f"invalid URL {shown!r}: {why}")


@lru_cache(maxsize=1 << 14)
def _host_ascii(host: str) -> tuple[str, str]:
    """(lower-case ASCII host without a trailing dot, "") or ("", why it is invalid). Cached: hosts repeat."""
    if host.startswith("["):  # IPv6 literal; w3lib normalizes it
        if not host.endswith("]") or len(host) < 4:
            return "", "malformed IPv6 host"
        return host.lower(), ""
    if not host:
        return "", "no host; expected http(s)://host/path"
    if any(c.isspace() for c in host):
        return "", "the host contains a space"
    out = []
    for label in host.rstrip(".").split("."):
        if not label:
            return "", "the host has an empty label ('..')"
        if label.isascii():
            label = label.lower()
            if label.startswith("xn--"):
                try:
                    label[4:].encode("ascii").decode("punycode")
                except (UnicodeError, ValueError):
                    return "", f"invalid IDNA label {label!r}"
        else:
            try:
                label = label.encode("idna").decode("ascii")
            except UnicodeError:
                return "", f"invalid IDNA label {label!r}"
        if len(label) > 63:
            return "", f"host label longer than 63 bytes ({len(label)})"
        if not _ASCII_LABEL.match(label):
            return "", f"host label {label!r} has characters not allowed in a host name"
        out.append(label)
    ascii_host = ".".join(out)
    if len(ascii_host) > 253:
        return "", f"host longer than 253 bytes ({len(ascii_host)})"
    if _ends_in_a_number(out[-1]):
        ipv4 = _ipv4(out)
        if ipv4 is None:
            return "", f"the host {ascii_host!r} ends in a number but is no IPv4 address"
        return ipv4, ""
    return ascii_host, ""


def _ipv4_number(part: str) -> int | None:
    """The WHATWG URL standard's IPv4 number: decimal, hex after 0x, octal after a leading 0."""
    if not part:
        return None
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, radix = part[1:], 8
    if not part:
        return 0
    digits = "0123456789abcdefABCDEF"[: 22 if radix == 16 else radix]
    return int(part, radix) if all(c in digits for c in part) else None


def _ends_in_a_number(last: str) -> bool:
    """The host's last label is a number (all digits, or one the IPv4 number parser reads: 0x7f):
    the host is an IPv4 address, however written, as browsers and w3lib 2.6 read it."""
    return last.isascii() and (last.isdigit() or _ipv4_number(last) is not None)


def _ipv4(labels: list[str]) -> str | None:
    """The dotted-decimal form of a host written as one to four IPv4 numbers (127.1, 0x7f.1,
    2130706433 -> 127.0.0.1), or None when it is none."""
    numbers = [_ipv4_number(p) for p in labels]
    if len(numbers) > 4 or any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(values[:-1]))
    return ".".join(str(address >> shift & 255) for shift in (24, 16, 8, 0))


def _parse(url: object, max_length: int) -> tuple[str, tuple[str, str, str], str, str, str]:
    """Validate; return (cleaned url, (scheme, path, query), "userinfo@", ASCII host, port or "")."""
    if not isinstance(url, str):
        raise InputError(f"URL must be a str, got {type(url).__name__}: {url!r:.80}")
    url = url.strip()
    if "\t" in url or "\n" in url or "\r" in url:
        url = _TAB_NEWLINE.sub("", url)
    if not url:
        raise InputError("invalid URL '': empty")
    if len(url) > max_length:
        raise _bad(url, f"longer than {max_length} characters ({len(url)}); raise max_length to accept it")
    if not url.isprintable() and _CONTROL.search(url):
        raise _bad(url, "contains a control character")
    if "://" not in url:
        other = _OTHER_SCHEME.match(url)
        if other and not url[other.end() : other.end() + 1].isdigit():  # not "host:8080/..."
            raise _bad(url, f"scheme {other.group(1)!r} is not http or https")
        raise _bad(url, "no scheme; expected http:// or https://")
    # a plain split (urlsplit costs more and w3lib splits again anyway)
    i = url.find("://")
    raw_scheme, rest = url[:i], url[i + 3 :]
    scheme = raw_scheme.lower()
    if scheme not in _SCHEMES:
        raise _bad(url, f"scheme {raw_scheme!r} is not http or https")
    end = _NETLOC_END.search(rest)
    netloc, tail = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
    tail = tail.partition("#")[0]
    path, _, query = tail.partition("?")
    parts = (scheme, path, query)
    userinfo, at, netloc = netloc.rpartition("@")
    if netloc.startswith("["):
        host, _, rest = netloc.partition("]")
        host += "]"
        if rest and not rest.startswith(":"):
            raise _bad(url, "malformed IPv6 host")
        port = rest[1:]
    else:
        host, _, port = netloc.partition(":")
    ascii_host, why = _host_ascii(host)
    if why:
        raise _bad(url, why)
    if port and not (_PORT.match(port) and int(port) <= 65535):
        raise _bad(url, f"invalid port {port!r}")
    return url, parts, userinfo + at, ascii_host, port


def check_url(url: object, max_length: int = DEFAULT_MAX_URL_LENGTH) -> str:
    """Validate ``url``; return it with surrounding whitespace, tabs and newlines removed.

    Raises InputError naming the problem: not a string, too long, no scheme, a scheme other than
    http/https, no host, spaces or control characters in the host, invalid IDNA.

    >>> check_url("  https://example.com/a\\n")
    'https://example.com/a'
    """
    return _parse(url, max_length)[0]


def _drop_query_params(query: str, matcher: re.Pattern[str]) -> str:
    kept = []
    for part in query.split("&"):
        if not part:
            continue
        name = unquote_plus(part.partition("=")[0])
        if not matcher.fullmatch(name):
            kept.append(part)
    return "&".join(kept)


@lru_cache(maxsize=1 << 16)
def _canonicalize(url: str, drop_key: frozenset[str], max_length: int) -> str:
    url, (scheme, path, query), userinfo, host, port = _parse(url, max_length)
    matcher = _matcher_for(drop_key)
    if matcher is not None and query:
        query = _drop_query_params(query, matcher)
    if port and int(port) == _DEFAULT_PORTS[scheme]:
        port = ""
    netloc = f"{userinfo}{host}:{int(port)}" if port else f"{userinfo}{host}"
    cleaned = f"{scheme}://{netloc}{path}?{query}" if query else f"{scheme}://{netloc}{path}"
    try:
        return str(_w3lib_canonicalize()(cleaned))
    except (ValueError, UnicodeError) as exc:
        raise _bad(url, f"cannot be canonicalized: {exc}") from None


def canonicalize_url(
    url: str,
    *,
    drop_params: Iterable[str] = DEFAULT_DROP_PARAMS,
    max_length: int = DEFAULT_MAX_URL_LENGTH,
) -> str:
    """The canonical form of ``url``: the same page gives the same string.

    w3lib's rules plus default-port and tracking-parameter removal and validation (see the module
    docstring). ``drop_params``: parameter names or globs to remove (case-insensitive); pass
    ``()`` to keep every parameter. Raises InputError for a malformed URL.

    >>> canonicalize_url("https://例子.测试:443/路径?spm=a.b&id=7")
    'https://xn--fsqu00a.xn--0zwm56d/%E8%B7%AF%E5%BE%84?id=7'
    >>> canonicalize_url("https://a.com/?from=20&q=x", drop_params=DEFAULT_DROP_PARAMS - {"from"})
    'https://a.com/?from=20&q=x'
    """
    return _canonicalize(url, _drop_key(drop_params), max_length)


def _as_names(drop_params: Iterable[str]) -> Iterable[str]:
    if isinstance(drop_params, str):
        raise InputError(
            f"drop_params must be a collection of parameter names, got the string {drop_params!r}; "
            f"use [{drop_params!r}]"
        )
    return drop_params


_xxh3 = xxhash.xxh3_64_intdigest
_SECRET = SECRET


@lru_cache(maxsize=64)
def _drop_spec(
    key: frozenset[str],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], int]:
    """The drop list as the kernel reads it: (lower-case names, offsets, is-prefix flags, mode).

    Mode 0: nothing to drop; 1: literal names and ``prefix*`` globs; DROP_GENERAL: other globs
    (``?``, ``[...]``, an inner ``*``, non-ASCII), which only the regex matches.
    """
    pats = sorted({str(p).strip().lower() for p in key if str(p).strip()})
    names = bytearray()
    offs = [0]
    prefix = []
    mode = 1 if pats else 0
    for p in pats:
        stem = p[:-1] if p.endswith("*") else p
        if not p.isascii() or any(c in stem for c in "*?["):
            mode = DROP_GENERAL
            break
        names += stem.encode("ascii")
        offs.append(len(names))
        prefix.append(p.endswith("*"))
    return (
        np.frombuffer(bytes(names) or b"\0", dtype=np.uint8),
        np.array(offs, dtype=np.int64),
        np.array(prefix or [False], dtype=np.bool_),
        mode,
    )


def _run_kernel(
    urls: list[str], drop_key: frozenset[str], max_length: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(canonical bytes, their offsets, hashes, status) of a batch; TypeError if an item is not a str."""
    joined = "".join(urls)
    n = len(urls)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, urls), dtype=np.int64, count=n), out=starts[1:])
    if joined.isascii():
        buf = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    else:  # one slot per character; anything non-ASCII becomes 0xFF, which sends its URL to the exact path
        cp = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        buf = np.where(cp < 128, cp, 255).astype(np.uint8)
    names, offs, is_prefix, mode = _drop_spec(drop_key)
    out = np.empty(4 * buf.shape[0] + n + 8, dtype=np.uint8)
    out_starts = np.empty(n + 1, dtype=np.int64)
    hashes = np.empty(n, dtype=np.uint64)
    status = np.empty(n, dtype=np.int8)
    canonical_batch(
        buf, starts, max_length, names, offs, is_prefix, mode, _SECRET, out, out_starts, hashes, status
    )
    return out, out_starts, hashes, status


def canonical_hash(
    url: str,
    *,
    drop_params: Iterable[str] = DEFAULT_DROP_PARAMS,
    max_length: int = DEFAULT_MAX_URL_LENGTH,
) -> int:
    """XXH3-64 of ``canonicalize_url(url)`` (UTF-8): one URL, no batch set-up. InputError if malformed.

    >>> canonical_hash("HTTPS://A.com:443/x#y") == xxhash.xxh3_64_intdigest(b"https://a.com/x")
    True
    """
    key = _drop_key(drop_params)
    if url.isascii():
        names, offs, is_prefix, mode = _drop_spec(key)
        h, status = _canonical_one(
            np.frombuffer(url.encode(), dtype=np.uint8), max_length, names, offs, is_prefix, mode, _SECRET
        )
        if status == 0:
            return int(h)
    return _xxh3(_canonicalize(url, key, max_length).encode())


def _drop_key(drop_params: Iterable[str]) -> frozenset[str]:
    return drop_params if isinstance(drop_params, frozenset) else frozenset(_as_names(drop_params))


def canonical_hashes(
    urls: list[str],
    *,
    drop_params: Iterable[str] = DEFAULT_DROP_PARAMS,
    max_length: int = DEFAULT_MAX_URL_LENGTH,
) -> tuple[np.ndarray[Any, Any], list[tuple[int, str]]]:
    """XXH3-64 of each URL's canonical form (UTF-8), and the URLs that are invalid.

    Equal to ``xxh3_64_intdigest(canonicalize_url(u).encode())`` for every valid URL; an invalid
    one gets hash 0 and appears in the second list as (index, why). Raises TypeError when an item
    is not a str.

    >>> h, bad = canonical_hashes(["https://A.com:443/x?utm_source=1", "ftp://a"])
    >>> int(h[0]) == xxhash.xxh3_64_intdigest(b"https://a.com/x"), bad[0][0]
    (True, 1)
    """
    key = _drop_key(drop_params)
    if not urls:
        return np.zeros(0, dtype=np.uint64), []
    out, out_starts, hashes, status = _run_kernel(urls, key, max_length)
    bad: list[tuple[int, str]] = []
    for i in np.flatnonzero(status).tolist():
        if status[i] == 2:
            hashes[i] = _xxh3(out[out_starts[i] : out_starts[i + 1]].tobytes())
            continue
        try:
            hashes[i] = _xxh3(_canonicalize(urls[i], key, max_length).encode())
        except InputError as exc:
            hashes[i] = 0
            bad.append((i, str(exc)))
    return hashes, bad


def canonicalize_many(
    urls: Iterable[str],
    *,
    drop_params: Iterable[str] = DEFAULT_DROP_PARAMS,
    max_length: int = DEFAULT_MAX_URL_LENGTH,
) -> list[str]:
    """``[canonicalize_url(u) for u in urls]``, the common shapes in one compiled pass.

    Raises InputError for the first malformed URL.

    >>> canonicalize_many(["HTTP://Example.COM:80/a?b=2&a=1#top", "https://例子.测试/"])
    ['http://example.com/a?a=1&b=2', 'https://xn--fsqu00a.xn--0zwm56d/']
    """
    items = urls if isinstance(urls, list) else list(urls)
    key = _drop_key(drop_params)
    if not items:
        return []
    try:
        out, out_starts, _, status = _run_kernel(items, key, max_length)
    except TypeError:
        return [_canonicalize(u, key, max_length) for u in items]
    text = out[: out_starts[-1]].tobytes().decode("ascii")
    bounds = out_starts.tolist()
    res = [text[a:b] for a, b in pairwise(bounds)]
    for i in np.flatnonzero(status == 1).tolist():
        res[i] = _canonicalize(items[i], key, max_length)
    return res
