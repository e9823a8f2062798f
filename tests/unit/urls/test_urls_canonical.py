"""canonicalize_url: w3lib's results plus default ports, tracking parameters and validation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from w3lib.url import canonicalize_url as w3lib_canonicalize

from neardup.exceptions import InputError
from neardup.urls import DEFAULT_DROP_PARAMS, canonicalize_many, canonicalize_url, check_url

# URLs with no default port and no tracking parameter: ours must equal w3lib's
W3LIB_CASES = [
    "HTTP://Example.COM/a/./b/../c?b=2&a=1#frag",
    "http://example.com",
    "https://example.com:8443/x",
    "http://例子.测试/路径?q=中文",
    "http://example.com/%7Efoo/%2F?x=%41%zz",
    "http://example.com/a b?c d=e f",
    "http://EXAMPLE.com/%e4%b8%ad",
    "http://example.com/?",
    "http://example.com/a/../../b",
    "http://example.com/?a=1&a=0&b",
    "http://example.com/path;params?x=1",
    "https://news.sina.com.cn/c/2024-05-12/doc-inaxyz.shtml?page=2",
    "http://[::0:1]:8080/a/../b",
]


@pytest.mark.parametrize("url", W3LIB_CASES)
def test_urls_matches_w3lib_when_no_extra_rule_applies(url: str) -> None:
    assert canonicalize_url(url) == w3lib_canonicalize(url)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:0443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),  # not the default for http
        ("http://[::1]:80/", "http://[::1]/"),
        ("http://example.com./a", "http://example.com/a"),
        ("http://example.com:/a", "http://example.com/a"),
    ],
)
def test_urls_default_port_and_trailing_dot_dropped(url: str, expected: str) -> None:
    assert canonicalize_url(url) == expected


def test_urls_tracking_params_removed_by_default() -> None:
    url = (
        "https://item.taobao.com/item.htm?id=7&spm=a1z10.1&utm_source=wx&UTM_Medium=x"
        "&from=timeline&isappinstalled=0&fbclid=abc&share_token=z&vd_source=q"
    )
    assert canonicalize_url(url) == "https://item.taobao.com/item.htm?id=7"


def test_urls_tracking_params_per_job() -> None:
    url = "https://a.com/list?from=20&ref=home&q=x"
    keep_from = DEFAULT_DROP_PARAMS - {"from"}
    assert canonicalize_url(url, drop_params=keep_from) == "https://a.com/list?from=20&q=x&ref=home"
    assert canonicalize_url(url, drop_params=["ref", "q*"]) == "https://a.com/list?from=20"
    assert canonicalize_url(url, drop_params=()) == w3lib_canonicalize(url)


def test_urls_drop_params_as_a_string_is_refused() -> None:
    with pytest.raises(InputError, match="collection"):
        canonicalize_url("https://a.com/", drop_params="utm_source")


def test_urls_same_page_same_key() -> None:
    forms = [
        "https://www.Example.com:443/news/./2024/../2024/a.html?b=2&a=1&utm_campaign=x#comments",
        "HTTPS://www.example.com/news/2024/a.html?a=1&b=2",
        "  https://www.example.com/news/2024/a.html?a=1&spm=x.y&b=2\n",
    ]
    assert len({canonicalize_url(f) for f in forms}) == 1


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("example.com/page", "no scheme"),
        ("mailto:a@b.c", "scheme 'mailto'"),
        ("javascript:void(0)", "scheme 'javascript'"),
        ("ftp://example.com/x", "not http or https"),
        ("http://exa mple.com/", "space"),
        ("http:///path", "no host"),
        ("http://a..b/", "empty label"),
        ("http://-bad.com/", "not allowed"),
        ("http://" + "a" * 64 + ".com/", "longer than 63"),
        ("http://xn--zz--.com/", "IDNA|not allowed"),
        ("http://example.com:99999/", "invalid port"),
        ("http://example.com:abc/", "invalid port"),
        ("http://exa\x00mple.com/", "control"),
        ("https://a.com/" + "x" * 9000, "longer than 8192"),
        ("", "empty"),
    ],
)
def test_urls_malformed_urls_raise_input_error_saying_why(url: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        canonicalize_url(url)


def test_urls_non_string_raises_input_error() -> None:
    with pytest.raises(InputError, match="must be a str"):
        canonicalize_url(b"http://a.com/")  # type: ignore[arg-type]


def test_urls_max_length_is_configurable() -> None:
    url = "https://a.com/" + "x" * 100
    with pytest.raises(InputError):
        canonicalize_url(url, max_length=50)
    assert canonicalize_url(url, max_length=200) == url


def test_urls_tabs_and_newlines_removed_like_browsers() -> None:
    assert check_url("\thttps://a.com/a\nb\r\n") == "https://a.com/ab"


_label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)
_seg = st.text(alphabet="abcXYZ019-_.~%20中文", min_size=0, max_size=10)
_param = st.tuples(
    st.sampled_from(["a", "b", "id", "page", "q", "utm_source", "spm", "from"]),
    st.text(alphabet="abc123中 ", max_size=5),
)


@settings(max_examples=150, deadline=None)
@given(
    scheme=st.sampled_from(["http", "https", "HTTP"]),
    host=st.lists(_label, min_size=1, max_size=3).map(".".join),
    port=st.sampled_from(["", ":80", ":443", ":8080"]),
    path=st.lists(_seg, max_size=4).map("/".join),
    params=st.lists(_param, max_size=4),
    frag=st.sampled_from(["", "#x", "#中"]),
)
def test_urls_property_equals_w3lib_after_the_extra_rules(
    scheme: str, host: str, port: str, path: str, params: list[tuple[str, str]], frag: str
) -> None:
    query = "&".join(f"{k}={v}" for k, v in params)
    url = f"{scheme}://{host}.com{port}/{path}" + (f"?{query}" if query else "") + frag
    ours = canonicalize_url(url)
    # the extra rules, applied by hand, then w3lib
    kept = "&".join(f"{k}={v}" for k, v in params if k not in ("utm_source", "spm", "from"))
    default = {"http": ":80", "https": ":443"}[scheme.lower()]
    bare = f"{scheme}://{host}.com{'' if port == default else port}/{path}" + (f"?{kept}" if kept else "")
    assert ours == w3lib_canonicalize(bare)
    assert canonicalize_url(ours) == ours  # idempotent


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://0x7f.1/x", "https://127.0.0.1/x"),
        ("http://127.1/", "http://127.0.0.1/"),
        ("http://0177.0.0.1/", "http://127.0.0.1/"),
        ("http://2130706433/", "http://127.0.0.1/"),
        ("http://0:8080/", "http://0.0.0.0:8080/"),
        ("http://0XfF.1./", "http://255.0.0.1/"),
        ("http://1.2.3.4/a", "http://1.2.3.4/a"),
        ("http://1e2/", "http://1e2/"),  # no number: a host name
        ("http://0x0x1/", "http://0x0x1/"),
        ("http://www.163.com/", "http://www.163.com/"),
    ],
)
def test_urls_a_host_that_ends_in_a_number_is_an_ipv4_address(url: str, expected: str) -> None:
    # as browsers read it (the WHATWG URL standard) and w3lib from 2.6 on: one key whichever w3lib
    # is installed, and the batch kernel hands such hosts to this path
    assert canonicalize_url(url) == expected
    assert canonicalize_many([url]) == [expected]


@pytest.mark.parametrize(
    "url",
    [
        "http://example.1/",
        "http://09/",
        "http://1.2.3.09/",
        "http://256.1.1.1/",
        "http://4294967296/",
        "http://1.2.3.4.5/",
    ],
)
def test_urls_a_host_that_ends_in_a_number_but_is_no_address_is_refused(url: str) -> None:
    with pytest.raises(InputError, match="ends in a number but is no IPv4 address"):
        canonicalize_url(url)
