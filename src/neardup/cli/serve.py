"""``neardup serve``: run the HTTP service (uvicorn, one server process: the state lives in it; pages
are analysed in a pool of worker processes beside it).

    neardup serve --state ./nd-state                       # loopback, unauthenticated
    NEARDUP_TOKEN=... neardup serve --state ./nd-state --host 0.0.0.0 --port 8000
    neardup serve --state ./nd-state --redis redis://127.0.0.1:6379/0 --token-file token.txt

SIGTERM or Ctrl-C stops accepting requests, lets running ones finish, then flushes the state.
"""

from __future__ import annotations

import logging
from pathlib import Path

import click

from neardup._deps import require
from neardup.service.settings import (
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_BODY,
    TOKEN_ENV,
    ServiceSettings,
    default_analysis_processes,
)

__all__ = ["serve_cmd"]


@click.command("serve")
@click.option(
    "--state",
    "state",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory of the ContentSeen state and the embedded URL stores (created if missing).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; beyond loopback a bearer token is required.",
)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--redis",
    "redis_url",
    default=None,
    metavar="URL",
    help="redis://host:port/db shared with other services for URL and nshash state.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"File holding the bearer token for write endpoints (else ${TOKEN_ENV}).",
)
@click.option(
    "--max-body",
    default=DEFAULT_MAX_BODY,
    show_default=True,
    type=click.IntRange(1024),
    help="Largest request body in bytes (413 above).",
)
@click.option(
    "--max-batch",
    default=DEFAULT_MAX_BATCH,
    show_default=True,
    type=click.IntRange(1),
    help="Most URLs in one /v1/urls/check batch (413 above).",
)
@click.option(
    "--max-distance",
    default=None,
    type=click.IntRange(0, 15),
    help="An extra SimHash candidate source (bits); off by default, as in neardup dedup.",
)
@click.option(
    "--recrawl-after",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds after which a seen URL counts as new again.",
)
@click.option(
    "--url-ttl",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds a URL stays in its job's seen-store.",
)
@click.option(
    "--analysis-processes",
    type=click.IntRange(0, 64),
    default=None,
    help="Worker processes that analyse pages (extraction, SimHash, layout) beside the server "
    "[default: one per CPU; 0 on one CPU]. 0 analyses in the server process.",
)
@click.option(
    "--analysis-timeout",
    type=click.FloatRange(min=0, min_open=True, max=3600),
    default=20.0,
    show_default=True,
    help="Seconds a worker may spend on one page; past it the worker is restarted and the client gets 503.",
)
@click.option(
    "--max-html-depth",
    type=click.IntRange(0, 1_000_000),
    default=512,
    show_default=True,
    help="Pages nesting elements deeper are refused (422) before extraction; 0: no limit.",
)
@click.option(
    "--store-timeout",
    type=click.FloatRange(min=0, min_open=True, max=3600),
    default=10.0,
    show_default=True,
    help="Seconds a URL or Redis store call may take before the client gets 503.",
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
def serve_cmd(
    state: Path,
    host: str,
    port: int,
    redis_url: str | None,
    token_file: Path | None,
    max_body: int,
    max_batch: int,
    max_distance: int | None,
    recrawl_after: float | None,
    url_ttl: float | None,
    analysis_processes: int | None,
    analysis_timeout: float,
    max_html_depth: int,
    store_timeout: float,
    log_level: str,
    access_log: bool,
) -> None:
    """Run the HTTP service: URL seen-checks and ContentSeen verdicts for crawler workers."""
    require("fastapi", "service", purpose="neardup serve")
    uvicorn = require("uvicorn", "service", purpose="neardup serve")
    from neardup.service.app import create_app
    from neardup.service.protocols import json_400_protocol

    settings = ServiceSettings(
        state=state,
        host=host,
        port=port,
        redis=redis_url,
        max_body_bytes=max_body,
        max_batch=max_batch,
        max_distance=max_distance,
        recrawl_after=recrawl_after,
        url_ttl=url_ttl,
        analysis_processes=default_analysis_processes() if analysis_processes is None else analysis_processes,
        analysis_timeout=analysis_timeout,
        max_html_depth=max_html_depth,
        store_timeout=store_timeout,
    ).with_token_from_env(token_file)
    settings.check_bind()
    logging.basicConfig(
        level=getattr(logging, log_level.upper()), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        workers=1,
        log_level=log_level,
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=20,
        server_header=False,
        proxy_headers=False,
        http=json_400_protocol(),  # uvicorn's own 400s in the service's JSON shape
    )
    uvicorn.Server(config).run()
