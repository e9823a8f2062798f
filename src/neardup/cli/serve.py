"""``neardup serve``: run the HTTP service (uvicorn, one server process: the state lives in it; pages
are analysed in a pool of worker processes beside it).

    neardup serve --state ./nd-state                       # loopback, unauthenticated
    NEARDUP_TOKEN=... neardup serve --state ./nd-state --host 0.0.0.0 --port 8000
    neardup serve --state ./nd-state --redis redis://127.0.0.1:6379/0 --token-file token.txt
    neardup serve --state ./a --redis redis://r:6379/0 --fleet 'redis://r:6379/0?prefix=job1'  # one of a fleet

SIGTERM or Ctrl-C stops accepting requests, lets running ones finish, then flushes the state.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import click

from neardup._deps import require
from neardup.cli._common import Flag, with_config
from neardup.service.settings import TOKEN_ENV, ServiceSettings, default_analysis_processes

__all__ = ["SERVE_EXCLUDED", "SERVE_FLAGS", "serve_cmd"]


def _processes(value: int | None) -> int:
    return default_analysis_processes() if value is None else value


#: how each ServiceSettings field shows on the command line; every field is here or in SERVE_EXCLUDED
SERVE_FLAGS: dict[str, Flag] = {
    "state": Flag(
        ("--state",),
        "Directory of the ContentSeen state and the embedded URL stores (created if missing).",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        required=True,
    ),
    "host": Flag(("--host",), "Address to listen on; beyond loopback a bearer token is required."),
    "port": Flag(("--port",), type=click.IntRange(0, 65535)),
    "redis": Flag(
        ("--redis",),
        "redis://host:port/db shared with other services for URL and nshash state.",
        metavar="URL",
    ),
    "fleet": Flag(
        ("--fleet",),
        "redis://host:port/db?prefix=job: the log shared by a fleet of servers, which then agree on "
        "every verdict (one new per cluster); the ContentSeen state is rebuilt from it at start.",
        metavar="URL",
    ),
    "fleet_keep": Flag(
        ("--fleet-keep",),
        "Seconds an entry of the fleet's log is kept at least; the log is trimmed below what every "
        "live member's state covers, never below this. A copied state directory joins within it.",
        type=click.FloatRange(min=0),
        metavar="SECONDS",
    ),
    "fleet_member_ttl": Flag(
        ("--fleet-member-ttl",),
        "Seconds a fleet member that stopped (or cannot reach Redis) still holds the log back; a "
        "member down longer starts from a copy of a live member's state directory.",
        type=click.FloatRange(min=0, min_open=True, max=30 * 86400),
        metavar="SECONDS",
    ),
    "max_body_bytes": Flag(
        ("--max-body",), "Largest request body in bytes (413 above).", type=click.IntRange(1024)
    ),
    "max_batch": Flag(
        ("--max-batch",), "Most URLs in one /v1/urls/check batch (413 above).", type=click.IntRange(1)
    ),
    "max_distance": Flag(
        ("--max-distance",),
        "An extra SimHash candidate source (bits); off by default, as in neardup dedup.",
        type=click.IntRange(0, 15),
    ),
    "profile": Flag(
        ("--profile",),
        "What a duplicate is: news (the same story) or corpus (the same text), as in neardup dedup.",
        type=click.Choice(["news", "corpus"]),
    ),
    "strictness": Flag(
        ("--strictness",),
        "How much two texts may add to each other and still merge (0 loosest, 1 strictest), as in "
        "neardup dedup.",
        type=click.FloatRange(0, 1),
    ),
    "recrawl_after": Flag(
        ("--recrawl-after",),
        "Seconds after which a seen URL counts as new again.",
        type=click.FloatRange(min=0, min_open=True),
    ),
    "url_ttl": Flag(
        ("--url-ttl",),
        "Seconds after a job's first check when its whole URL set expires (every URL of the job at "
        "once; a URL is fetched again after --recrawl-after).",
        type=click.FloatRange(min=0, min_open=True),
    ),
    "analysis_processes": Flag(
        ("--analysis-processes",),
        "Worker processes that analyse pages (extraction, SimHash, layout) beside the server "
        "[default: one per CPU; 0 on one CPU]. 0 analyses in the server process.",
        type=click.IntRange(0, 64),
        default=None,
        to_field=_processes,
    ),
    "analysis_timeout": Flag(
        ("--analysis-timeout",),
        "Seconds a worker may spend on one page; past it the worker is restarted and the client gets 503.",
        type=click.FloatRange(min=0, min_open=True, max=3600),
    ),
    "max_html_depth": Flag(
        ("--max-html-depth",),
        "Pages nesting elements deeper are refused (422) before extraction; 0: no limit.",
        type=click.IntRange(0, 1_000_000),
    ),
    "store_timeout": Flag(
        ("--store-timeout",),
        "Seconds a URL or Redis store call may take before the client gets 503.",
        type=click.FloatRange(min=0, min_open=True, max=3600),
    ),
    "durability": Flag(
        ("--durability",),
        "When an added page reaches the disk: always (fsync before the answer), everysec (an fsync "
        "a second at most; a power cut loses about the last second), no (the OS decides).",
    ),
}
#: ServiceSettings fields with no option, and why
SERVE_EXCLUDED: dict[str, str] = {
    "token": f"a secret never goes on a command line: --token-file or ${TOKEN_ENV}",
    "max_jobs": "a memory bound of the library's default is enough for one server",
    "max_url_chars": "the longest URL browsers and crawlers send; the library's bound",
    "fast_path": "answers are the same with and without it; a switch for tests",
}


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another process listens on, before the service starts (ConfigError).

    >>> check_port_free("127.0.0.1", 0)  # any free port: nothing to check
    """
    import errno
    import socket

    from neardup.exceptions import ConfigError

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(f"--host {host!r} does not resolve: {exc.strerror}") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(addr)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {port} on {host} is already in use (another neardup serve?); stop it or pick "
                    "another --port"
                ) from None
            if exc.errno in (errno.EACCES, errno.EPERM):
                raise ConfigError(
                    f"port {port} on {host} needs privileges to bind; pick a --port above 1023"
                ) from None
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


@click.command("serve")
@with_config(ServiceSettings, SERVE_FLAGS, ServiceSettings(), "options")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"File holding the bearer token for write endpoints (else ${TOKEN_ENV}).",
)
@click.option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True
)
@click.option(
    "--access-log/--no-access-log",
    default=False,
    show_default=True,
    help="Log every request (costs throughput).",
)
def serve_cmd(options: dict[str, Any], token_file: Path | None, log_level: str, access_log: bool) -> None:
    """Run the HTTP service: URL seen-checks and ContentSeen verdicts for crawler workers."""
    require("fastapi", "service", purpose="neardup serve")
    uvicorn = require("uvicorn", "service", purpose="neardup serve")
    from neardup.cli._common import config_from_options
    from neardup.service.app import create_app
    from neardup.service.protocols import json_400_protocol

    settings = config_from_options(ServiceSettings, SERVE_FLAGS, options, ServiceSettings())
    settings = settings.with_token_from_env(token_file)
    settings.check_bind()
    check_port_free(settings.host, settings.port)
    logging.basicConfig(
        level=getattr(logging, log_level.upper()), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        workers=1,
        log_level=log_level,
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=8,  # then requests still running are cancelled: a stop stays under 15 s
        server_header=False,
        proxy_headers=False,
        http=json_400_protocol(),  # uvicorn's own 400s in the service's JSON shape
    )
    uvicorn.Server(config).run()
