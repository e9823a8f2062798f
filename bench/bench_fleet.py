"""Benchmark of a fleet of ``neardup serve --fleet`` servers sharing one Redis (issue 24, item 5).

    .venv/bin/python bench/bench_fleet.py [--articles 200] [--copies 10] [--clients 16] [--no-write]

200 zh-xwlb articles x 10 near copies (the classic synthetic editor's light edits in a reposting
site's page; only articles whose copies one ContentSeen merges into one cluster are used, and one
ContentSeen given all 2,000 pages interleaved gives exactly 200 ``new``), sent by 16 concurrent
clients (threads, httpx) round robin over the servers, each page once (a client resends to the next
server only when one does not answer). Scenarios:

  single        one ``neardup serve`` as before (no --fleet, no Redis): the reference
  two-no-fleet  two servers on one Redis (--redis) without --fleet: the issue's finding
  fleet-1       one server with --fleet: what the shared log costs
  fleet-2       two servers with --fleet
  fleet-3       three servers with --fleet
  fleet-2-kill  two servers, one SIGKILLed once half the pages were answered; its clients resend
  fleet-2-trim  two servers with --fleet-keep 0 (the log trimmed below what both cover, about every
                5 s); Redis memory is read once both have covered every entry

``--trim`` runs only fleet-2 and fleet-2-trim and writes the Redis memory of both logs (its own
section of docs/benchmarks.md, "fleet log trimming").

After each fleet run every server is asked for every document (GET /v1/documents/{id}/duplicates:
identical on all servers) and sent every page again (the answer must be the first verdict). Then a
fresh ContentSeen replays the fleet-2 log in this process (entries/s), and Redis's MEMORY USAGE of
the log's keys gives the bytes per page. Every server runs ``--analysis-processes 1``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "integration" / "service")]

from fleet_pages import article_copies, interleaved  # noqa: E402
from fleet_run import Run, check_agreement, drive  # noqa: E402
from service_proc import ServiceProcess, free_port  # noqa: E402


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed")
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir), "--save", ""]
    args += ["--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    sys.exit("redis-server did not start")


def servers(
    tmp: Path, name: str, n: int, redis: str | None, fleet: str | None, trim: bool = False
) -> list[ServiceProcess]:
    extra = ["--analysis-processes", "1", "--store-timeout", "60"]
    if fleet is not None:
        extra += ["--fleet", fleet]
    if trim:
        extra += ["--fleet-keep", "0"]
    return [
        ServiceProcess(tmp / f"{name}{i}", tmp / f"{name}{i}.log", redis=redis, extra=list(extra))
        for i in range(n)
    ]


def scenario(
    tmp: Path,
    name: str,
    n: int,
    redis: str,
    fleet: bool,
    pages: list[Any],
    clients: int,
    kill: bool = False,
    trim: bool = False,
    check: bool = True,
) -> dict[str, Any]:
    prefix = f"bench-{name}"
    procs = servers(
        tmp, name, n, redis if (fleet or n > 1) else None, f"{redis}?prefix={prefix}" if fleet else None, trim
    )
    for p in procs:
        p.start()
    try:
        urls = [p.url for p in procs]
        victim = procs[-1]

        def kill_one() -> str:
            victim.stop(sig=signal.SIGKILL)
            return victim.url

        run: Run = drive(
            urls,
            pages,
            clients=clients,
            kill_at=len(pages) // 2 if kill else None,
            kill=kill_one if kill else None,
        )
        kinds = Counter(v["kind"] for v in run.answers.values())
        row: dict[str, Any] = {
            "name": name,
            "servers": n,
            "pages_per_s": len(pages) / run.seconds,
            "seconds": run.seconds,
            "new": kinds["new"],
            "retries": run.retries,
            "unavailable": run.unavailable,
            "agree": "-",
        }
        if trim:
            row["trimmed_after_s"] = wait_trimmed(redis, prefix, len(pages))
            row["memory"] = redis_bytes(redis, prefix)
        elif fleet:
            row["memory"] = redis_bytes(redis, prefix)
        if fleet and check:
            if kill:
                check_agreement([procs[0].url], pages, run, resend=False)  # the survivor has every page
                victim.start()  # back: replays the log
            t0 = time.perf_counter()
            check_agreement([p.url for p in procs], pages, run)
            row["agree"] = f"yes ({time.perf_counter() - t0:.0f} s to check)"
        return row
    finally:
        for p in procs:
            if p.proc is not None:
                p.stop()


def open_seconds(fleet: str, state: Path | None = None, runs: int = 3) -> tuple[float, int]:
    """Median seconds to open a member (and the entries it applied)."""
    from neardup.contentseen import ContentSeen

    times = []
    n = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        with ContentSeen(state if state is not None else "memory://", fleet=fleet) as cs:
            times.append(time.perf_counter() - t0)
            n = cs.catch_up()
    return statistics.median(times), n


def redis_bytes(redis: str, prefix: str) -> dict[str, int]:
    """MEMORY USAGE of the log's keys: the stream, the per-URL retry keys, the small hashes."""
    from neardup.stores._url import redis_client

    r = redis_client(redis)
    try:
        mem = lambda k: int(r.memory_usage(k, samples=0) or 0)  # noqa: E731
        out = {"log": mem(f"{prefix}:log")}
        out["meta"] = sum(mem(f"{prefix}:{k}") for k in ("meta", "members", "marks"))
        keys = list(r.scan_iter(match=f"{prefix}:url:*", count=1000))
        out["urls"] = sum(mem(k) for k in keys)
        out["url_keys"] = len(keys)
        out["payload"] = sum(len(f[b"d"]) for _, f in r.xrange(f"{prefix}:log"))
        out["entries"] = int(r.xlen(f"{prefix}:log"))
        out["appended"] = int(r.hget(f"{prefix}:meta", "n") or 0)
        return out
    finally:
        r.close()


def wait_trimmed(redis: str, prefix: str, appended: int, timeout: float = 120.0) -> float:
    """Seconds until the log holds only its last entry (every member covers all of it)."""
    from neardup.stores._url import redis_client

    r = redis_client(redis)
    t0 = time.perf_counter()
    try:
        while r.xlen(f"{prefix}:log") > 1 or int(r.hget(f"{prefix}:meta", "first") or 1) != appended:
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"the log {prefix} was not trimmed within {timeout} s")
            time.sleep(0.2)
        return time.perf_counter() - t0
    finally:
        r.close()


def trim_section(
    args: Any, started: str, load: tuple[float, float], groups: Any, pages: Any, rows: list[Any]
) -> str:
    lines = [
        "| scenario | pages/s | entries in the log | stream B/page appended | retry keys (B) | other keys (B) "
        "| Redis total B/page appended | same verdicts after trims |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        m = r["memory"]
        per = m["appended"] or 1
        total = m["log"] + m["urls"] + m["meta"]
        lines.append(
            f"| {r['name']} | {r['pages_per_s']:.1f} | {m['entries']} | {m['log'] / per:,.0f} | "
            f"{m['urls']:,} ({m['url_keys']} keys) | {m['meta']:,} | {total / per:,.0f} | {r['agree']} |"
        )
    trimmed = next((r for r in rows if "trimmed_after_s" in r), None)
    wait = f"{trimmed['trimmed_after_s']:.1f} s" if trimmed else "-"
    return f"""## fleet log trimming (issue 24: the log bounded by what live members cover)

Command: `python bench/bench_fleet.py --trim` — {started} — machine: 2 cores, shared (5 workers);
load average {load[0]:.1f} before, {load[1]:.1f} after. Redis {_redis_version()} on loopback, no
persistence. {len(groups)} articles x {args.copies} near copies ({len(pages)} pages), {args.clients}
clients, two `--fleet` servers (`--analysis-processes 1`). fleet-2 runs the defaults (`--fleet-keep
300`: nothing is trimmed within the run); fleet-2-trim runs `--fleet-keep 0`, and its memory is read
once both servers' heartbeats covered every entry ({wait} after the last answer). Redis MEMORY USAGE
per page appended:

{chr(10).join(lines)}

With trimming the stream holds the entries no live member's state covers yet, plus those appended
in the last `--fleet-keep` seconds: its bytes no longer grow with the crawl. The retry keys
(`P:url:<url>`, about 100-200 B each) live for the retry window (10 minutes), so they are bounded
by the pages appended in 10 minutes, trimming or not. The pages/s of the two rows differ by the
machine's load, not by trimming (a heartbeat and a trim are two Lua calls and one fsync every 5 s
a server).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=200)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--only", nargs="*", default=None, help="scenario names to run")
    ap.add_argument("--no-write", action="store_true", help="print the section, do not write docs")
    ap.add_argument("--trim", action="store_true", help="only fleet-2 and fleet-2-trim: Redis memory")
    args = ap.parse_args()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    groups = article_copies(DATA, args.articles, args.copies)
    pages = interleaved(groups)
    print(
        f"{len(pages)} pages of {len(groups)} articles ready in {time.perf_counter() - t0:.0f} s", flush=True
    )
    plan = [
        ("single", 1, False, False),
        ("two-no-fleet", 2, False, False),
        ("fleet-1", 1, True, False),
        ("fleet-2", 2, True, False),
        ("fleet-3", 3, True, False),
        ("fleet-2-kill", 2, True, True),
    ]
    rows = []
    if args.trim:
        with tempfile.TemporaryDirectory(prefix="neardup-bench-fleet-") as d:
            tmp = Path(d)
            proc, redis = start_redis(tmp)
            try:
                for name, trim in (("fleet-2", False), ("fleet-2-trim", True)):
                    row = scenario(tmp, name, 2, redis, True, pages, args.clients, trim=trim, check=trim)
                    print(row, flush=True)
                    rows.append(row)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
        section = trim_section(args, started, (load_before, os.getloadavg()[0]), groups, pages, rows)
        print(section)
        if not args.no_write:
            sys.path.insert(0, str(ROOT / "bench"))
            from _sections import write_section

            write_section(ROOT / "docs" / "benchmarks.md", "fleet log trimming", section)
        return
    with tempfile.TemporaryDirectory(prefix="neardup-bench-fleet-") as d:
        tmp = Path(d)
        proc, redis = start_redis(tmp)
        try:
            for name, n, fleet, kill in plan:
                if args.only and name not in args.only:
                    continue
                row = scenario(tmp, name, n, redis, fleet, pages, args.clients, kill)
                print(row, flush=True)
                rows.append(row)
            log = f"{redis}?prefix=bench-fleet-2"
            empty, _ = open_seconds(f"{redis}?prefix=bench-empty")  # what opening costs without entries
            replay, entries = open_seconds(log)
            open_seconds(log, tmp / "restart", runs=1)  # the first open writes the local copy
            restart, _ = open_seconds(log, tmp / "restart")
            rate = entries / max(replay - empty, 1e-9)
            mem = redis_bytes(redis, "bench-fleet-2")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    load_after = os.getloadavg()[0]
    single = next((r["pages_per_s"] for r in rows if r["name"] == "single"), None)
    table = [
        "| scenario | servers | pages/s | x single | seconds | `new` (target "
        f"{len(groups)}) | resent after no answer (503s) | same verdicts and documents on every server |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ratio = f"{r['pages_per_s'] / single:.2f}" if single else "-"
        table.append(
            f"| {r['name']} | {r['servers']} | {r['pages_per_s']:.1f} | {ratio} | {r['seconds']:.1f} | "
            f"{r['new']} | {r['retries']} ({r['unavailable']}) | {r['agree']} |"
        )
    per = mem["entries"] or 1
    cmd = "python bench/bench_fleet.py" + (
        f" --articles {args.articles} --copies {args.copies}"
        if (args.articles, args.copies) != (200, 10)
        else ""
    )
    section = f"""## fleet (`neardup serve --fleet`: servers that agree)

Command: `{cmd}` — {started} — machine: 2 cores, 24 GiB, {platform.machine()}, Python
{platform.python_version()}, shared; load average {load_before:.1f} before, {load_after:.1f} after. Redis
{_redis_version()} on loopback, no persistence. {len(groups)} zh-xwlb articles x {args.copies} near copies
({len(pages)} pages of about {statistics.mean(len(p.html.encode()) for p in pages) / 1024:.1f} KB of HTML; one ContentSeen
given them interleaved says exactly {len(groups)} `new`), {args.clients} concurrent clients, round robin
over the servers; every server runs `--analysis-processes 1`.

{chr(10).join(table)}

Replay (a new member applies the log from the start, in this process): {replay:.2f} s for the
{entries} entries, of which {empty:.2f} s opening a member of an empty log: **{rate:,.0f} entries/s**
({1000 / rate:.1f} ms an entry), median of 3. A restart from the state directory (`--state`: the
local copy of the entries applied, the log holding no newer ones): {restart:.2f} s
({(restart - empty) * 1e6 / entries:,.0f} us an entry beyond the empty open: the journal replayed
into the engine, plus one read of the log's last entry), median of 3. Redis memory
for the {entries}-entry log: stream {mem["log"] / per:,.0f} B/page, retry keys {mem["urls"] / per:,.0f} B/page
(total {(mem["log"] + mem["urls"] + mem["meta"]) / per:,.0f} B/page; the entries' own bytes average
{mem["payload"] / per:,.0f} B: signature row with its text profile, sentence hashes and the five longest
sentences).

Every member applies every page, so a fleet's pages/s is bounded by what one server's state step
does (the replay rate above), whatever the number of servers; on this 2-core machine the servers
and their analysis workers also share two cores, so more servers only add contention. The fleet is
for agreement and availability (a member can die, another answers the same), not for throughput:
scaling the near-duplicate step out needs the state partitioned, which the engine's one ordered pass
does not allow today.
"""
    print(section)
    if not args.no_write:
        sys.path.insert(0, str(ROOT / "bench"))
        from _sections import write_section

        write_section(ROOT / "docs" / "benchmarks.md", "fleet", section)


def _redis_version() -> str:
    out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
    return out.split("v=")[1].split()[0] if "v=" in out else "?"


if __name__ == "__main__":
    main()
