"""The report in headless Chromium: Chinese drawn as glyphs (not empty boxes), chart legends inside
their charts, the run's settings printed. Screenshots are decoded here (PNG, zlib) and compared."""

from __future__ import annotations

import struct
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from neardup.eval.report import FONT_STACK, write_report

pytestmark = pytest.mark.browser

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-sync",
]


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of grey levels (0 dark .. 255 light) of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev, rows = zlib.decompress(idat), width * channels, bytearray(width * channels), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(min(line[x * channels : x * channels + 3]) for x in range(width)))
        prev = line
    return width, height, rows


def shoot(chromium: str, page: Path, png: Path, size: str = "480,200") -> list[bytes]:
    res = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={png.parent / 'profile'}", f"--window-size={size}",
         f"--screenshot={png}", page.as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert png.exists(), res.stderr[-2000:]
    return read_png(png)[2]


def ink(rows: list[bytes]) -> set[tuple[int, int]]:
    return {(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v < 128}


def test_chinese_is_drawn_as_glyphs_in_the_report_fonts(chromium: str, tmp_path: Path) -> None:
    lines = {
        "a": "长江经济带发展",
        "b": "体育比赛新闻报",
        "tofu": "\u0378\u0379\u0380\u0381\u0382\u0383\u038b",
    }
    rows = "".join(
        f'<div style="position:absolute;left:10px;top:{10 + 60 * n}px;height:50px">{text}</div>'
        for n, text in enumerate(lines.values())
    )
    page = tmp_path / "glyphs.html"
    page.write_text(
        '<html><head><meta charset="utf-8"><style>body{margin:0;background:#fff;font:40px '
        + FONT_STACK
        + f"}}</style></head><body>{rows}</body></html>",
        encoding="utf-8",
    )
    shot = shoot(chromium, page, tmp_path / "glyphs.png", size="480,200")
    # one band of 60 pixel rows per line, ink positions relative to the band
    a, b, tofu = ({(x, y - 60 * n) for x, y in ink(shot[60 * n : 60 * n + 60])} for n in range(3))
    # without a CJK font both strings are the same row of boxes; with one they are different drawings
    assert len(a) > 500 and len(b) > 500
    assert len(a ^ b) > 0.5 * len(a | b), "two Chinese strings rendered alike: CJK glyphs are missing (tofu)"
    assert len(a ^ tofu) > 0.5 * len(a | tofu), "Chinese rendered like unassigned code points (tofu)"


def test_report_legends_fit_and_settings_show(
    chromium: str, curve_rows: Callable[..., list[dict[str, Any]]], tmp_path: Path
) -> None:
    recs = [
        {"id": "a", "cluster": "a", "duplicate_of": None, "kind": "new", "distance": None},
        {"id": "b", "cluster": "a", "duplicate_of": "a", "kind": "near", "distance": 2},
    ]
    texts = {
        "a": "长江经济带沿线省市坚持生态优先、绿色发展。",
        "b": "【转载】长江经济带沿线省市坚持生态优先。",
    }
    methods = ("simhash-words+cosine", "中文方法名称比较长的一个", "nshash")
    ev = {"rows": curve_rows(methods)}
    page = tmp_path / "report.html"
    # what each setting would change, with counts as wide as a large corpus gives (ticks of 7 digits)
    outcomes = [
        {"profile": p, "strictness": x, "merged": int(900_000 * (1.5 - x)) + (p == "corpus") * 50_000,
         "kept": 1, "merged_to_kept": 0, "kept_to_merged": 0, "changes": {}, "run": x == 0.5}
        for p in ("news", "corpus") for x in (0.0, 0.5, 1.0)
    ]  # fmt: skip
    changes = {"outcomes": outcomes, "run_profile": "news", "run_strictness": 0.5, "text_pairs": 10}
    write_report(
        page, recs, texts, ev, settings={"max_distance": 8, "features": "shingles"}, settings_changes=changes
    )
    html = page.read_text(encoding="utf-8")
    assert "<td>max_distance</td><td>8</td>" in html and "1,400,000" in html
    # a script counts the SVG text elements that end outside their chart
    probe = (
        "<script>var n=0;document.querySelectorAll('svg').forEach(function(s){var w=s.viewBox.baseVal.width;"
        "s.querySelectorAll('text').forEach(function(t){var b=t.getBBox();if(b.x<0||b.x+b.width>w+0.5)n++;});});"
        "document.body.setAttribute('data-clipped',String(n));</script></body>"
    )
    page.write_text(html.replace("</body>", probe), encoding="utf-8")
    res = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert 'data-clipped="0"' in res.stdout, res.stdout[-500:] + res.stderr[-1500:]
