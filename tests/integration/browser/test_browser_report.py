"""The HTML report in a real headless Chromium: it renders, logs no console error, and the pair view
works (clicking a pair, and opening report.html#pair-N directly)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup.eval.report import write_report

pytestmark = pytest.mark.browser

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _page(tmp_path: Path, curve_rows: Callable[..., list[dict[str, Any]]]) -> Path:
    recs = [
        {"id": "a", "cluster": "a", "duplicate_of": None, "kind": "new", "distance": None},
        {"id": "b", "cluster": "a", "duplicate_of": "a", "kind": "near", "distance": 2},
        {"id": "c", "cluster": "a", "duplicate_of": "a", "kind": "exact", "distance": 0},
        {"id": "d", "cluster": "d", "duplicate_of": None, "kind": "new", "distance": None},
    ]
    base = "央视网消息：长江经济带沿线省市坚持生态优先、绿色发展，推动高质量发展取得新成效。"
    texts = {
        "a": base + "记者王小明报道。",
        "b": "【转载】" + base.replace("新成效", "新进展") + "责任编辑：李静",
        "c": base + "记者王小明报道。",
        "d": "完全不同的另一篇文章，讲的是体育比赛。</script><b>x</b>",
    }
    ev = {
        "rows": curve_rows(("simhash-words", "nshash"), hn_drop=1 / 30),
        "default": {"method": "simhash-words", "param": 3, "f1": 0.6},
    }
    path = tmp_path / "report.html"
    write_report(path, recs, texts, ev)
    return path


def _run(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def test_dump_dom_after_scripted_hash_shows_the_pair(
    chromium: str, curve_rows: Callable[..., list[dict[str, Any]]], tmp_path: Path
) -> None:
    page = _page(tmp_path, curve_rows)
    res = _run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=3000",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            f"{page.as_uri()}#pair-0",
        ]
    )
    dom = res.stdout
    assert 'data-ready="1"' in dom, res.stderr[-2000:]
    assert 'data-shown="0"' in dom
    assert 'id="pair-left"' in dom and 'class="chg"' in dom  # the differing passage is highlighted
    assert "责任编辑：李静" in dom
    errors = [ln for ln in res.stderr.splitlines() if "CONSOLE" in ln and ("Error" in ln or "ERROR" in ln)]
    assert not errors, errors


# ------------------------------------------------------------------------------------------ CDP


class _CDP:
    def __init__(self, ws: Any) -> None:
        self.ws, self.n, self.events = ws, 0, []  # type: ignore[var-annotated]

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.n += 1
        my = self.n
        await self.ws.send_str(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads((await self.ws.receive(timeout=20)).data)
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg.get("result", {})  # type: ignore[no-any-return]
            self.events.append(msg)

    async def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                msg = await self.ws.receive(timeout=max(0.01, end - time.monotonic()))
            except asyncio.TimeoutError:
                return
            self.events.append(json.loads(msg.data))

    async def eval(self, expr: str) -> Any:
        res = await self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return res.get("result", {}).get("value")


@pytest.fixture
def devtools(chromium: str, tmp_path: Path, free_tcp_port: int) -> Iterator[str]:
    port = free_tcp_port
    proc = subprocess.Popen(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'cdp-profile'}",
            f"--remote-debugging-port={port}",
            "--remote-debugging-address=127.0.0.1",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1) as r:
                    targets = json.loads(r.read())
                pages = [t for t in targets if t.get("type") == "page"]
                if pages:
                    yield pages[0]["webSocketDebuggerUrl"]
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("chromium did not open its DevTools port")
            time.sleep(0.2)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def test_click_on_a_pair_opens_the_side_by_side_view(
    devtools: str, curve_rows: Callable[..., list[dict[str, Any]]], tmp_path: Path
) -> None:
    aiohttp = pytest.importorskip("aiohttp")
    page = _page(tmp_path, curve_rows)
    shot = tmp_path / "report.png"

    async def main() -> dict[str, Any]:
        async with aiohttp.ClientSession() as session, session.ws_connect(devtools, max_msg_size=0) as ws:
            cdp = _CDP(ws)
            await cdp.call("Runtime.enable")
            await cdp.call("Log.enable")
            await cdp.call("Page.enable")
            await cdp.call(
                "Emulation.setDeviceMetricsOverride",
                width=1280,
                height=1400,
                deviceScaleFactor=1,
                mobile=False,
            )
            await cdp.call("Page.navigate", url=page.as_uri())
            for _ in range(50):
                if await cdp.eval("document.body && document.body.getAttribute('data-ready')") == "1":
                    break
                await asyncio.sleep(0.1)
            before = await cdp.eval("document.getElementById('pairview').getAttribute('data-shown')")
            await cdp.eval("document.querySelector('tr.pair[data-pair=\"1\"]').click()")
            await cdp.drain(0.5)
            out = {
                "before": before,
                "shown": await cdp.eval("document.getElementById('pairview').getAttribute('data-shown')"),
                "hash": await cdp.eval("location.hash"),
                "left": await cdp.eval("document.getElementById('pair-left').textContent"),
                "right": await cdp.eval("document.getElementById('pair-right').textContent"),
                "svgs": await cdp.eval("document.querySelectorAll('svg').length"),
                "selected": await cdp.eval("document.querySelectorAll('tr.sel').length"),
            }
            await cdp.eval("document.querySelector('tr.pair[data-pair=\"0\"]').click()")
            await cdp.drain(0.5)
            out["highlights"] = await cdp.eval(
                "document.querySelectorAll('#pairview .chg, #pairview .ins').length"
            )
            img = await cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            import base64

            shot.write_bytes(base64.b64decode(img["data"]))
            out["events"] = cdp.events
            return out

    got = asyncio.run(asyncio.wait_for(main(), 60))
    assert got["before"] is None
    assert got["shown"] == "1" and got["hash"] == "#pair-1"
    assert got["left"] == got["right"]  # pair 1 is an exact copy
    assert got["svgs"] >= 2 and got["selected"] == 1
    assert got["highlights"] >= 2
    errors = [
        e
        for e in got["events"]
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") == "error")
    ]
    assert not errors, errors
    assert shot.stat().st_size > 10_000
