"""Settings of the HTTP service: where state lives, who may write, how big a request may be.

>>> s = ServiceSettings(state="/tmp/nd-state")
>>> s.is_loopback, s.max_body_bytes
(True, 2097152)
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from neardup.exceptions import ConfigError
from neardup.stores.durability import DEFAULT_DURABILITY, Durability, check_durability

__all__ = [
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY",
    "TOKEN_ENV",
    "ServiceSettings",
    "default_analysis_processes",
    "read_token_file",
]

TOKEN_ENV = "NEARDUP_TOKEN"
DEFAULT_MAX_BODY = 2 * 1024 * 1024
DEFAULT_MAX_BATCH = 10_000
_MIN_TOKEN_CHARS = 16


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_analysis_processes() -> int:
    """Worker processes for page analysis: one per CPU this process may use; none on one CPU
    (a worker would only compete with the server for it)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return min(cpus, 16) if cpus > 1 else 0


def read_token_file(path: str | Path) -> str:
    """The bearer token stored in ``path`` (surrounding whitespace dropped)."""
    p = Path(path)
    try:
        token = p.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {str(p)!r}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the token file {str(p)!r} is not UTF-8 text") from exc
    if not token:
        raise ConfigError(f"the token file {str(p)!r} is empty; write a random token of >= 16 characters")
    return token


@dataclass(frozen=True)
class ServiceSettings:
    """Everything ``create_app`` needs.

    state: directory holding the ContentSeen state and the embedded URL stores (``None``: in memory,
        lost at exit; for tests). redis: a ``redis://`` URL shared with other services for the URL
        seen-stores and the nshash state. fleet: a ``redis://host:port/db?prefix=job`` URL of the log
        shared by a fleet of servers that must agree on near duplicates (ContentSeen's ``fleet``). token: bearer token required on every write endpoint; without
        one the service must listen on loopback only.
    """

    state: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    redis: str | None = None
    fleet: str | None = None  # the shared log of a fleet of servers (ContentSeen's fleet=)
    fleet_keep: float = 300.0  # seconds an entry of the fleet's log is kept at least (Retention.keep)
    fleet_member_ttl: float = 600.0  # seconds a silent member holds the log back (Retention.member_ttl)
    token: str | None = field(default=None, repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_batch: int = DEFAULT_MAX_BATCH
    max_distance: int | None = None  # SimHash candidate radius; None: off (the engine's default)
    profile: str = "news"  # what a duplicate is (MatchConfig.profile): news or corpus
    strictness: float = 0.5  # how much texts may add and still merge (MatchConfig.strictness)
    recrawl_after: float | None = None  # seconds before a seen URL may be fetched again
    url_ttl: float | None = None  # seconds after a job's first check when its whole URL set expires
    max_jobs: int = 1024  # URL seen-stores kept open at once (least recently used closed first)
    max_url_chars: int = 8192
    fast_path: bool = True  # serve the two hot POST endpoints before FastAPI's routing (same answers)
    analysis_processes: int = 0  # worker processes analysing pages (0: in the server process)
    analysis_timeout: float = 20.0  # seconds a worker may spend on one page before it is recycled
    max_html_depth: int = 512  # pages nesting elements deeper are refused before extraction
    store_timeout: float = 10.0  # seconds a store call (SQLite, Redis) may take before a 503
    durability: Durability = DEFAULT_DURABILITY  # when ContentSeen's journal is fsynced (stores.durability)

    def __post_init__(self) -> None:
        if self.state is not None and not isinstance(self.state, Path):
            object.__setattr__(self, "state", Path(self.state))
        if self.state is not None:
            object.__setattr__(self, "state", self.state.absolute())
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be between 0 and 65535, got {self.port}")
        if self.max_body_bytes < 1024:
            raise ConfigError(f"max_body_bytes must be >= 1024, got {self.max_body_bytes}")
        if self.max_batch < 1:
            raise ConfigError(f"max_batch must be >= 1, got {self.max_batch}")
        if not 0 <= self.analysis_processes <= 64:
            raise ConfigError(f"analysis_processes must be between 0 and 64, got {self.analysis_processes}")
        for name in ("analysis_timeout", "store_timeout"):
            if not 0 < getattr(self, name) <= 3600:
                raise ConfigError(f"{name} must be between 0 and 3600 seconds, got {getattr(self, name)}")
        if not 0 <= self.max_html_depth <= 1_000_000:
            raise ConfigError(
                f"max_html_depth must be between 0 (no limit) and 1000000, got {self.max_html_depth}"
            )
        check_durability(self.durability)
        if self.max_jobs < 1:
            raise ConfigError(f"max_jobs must be >= 1, got {self.max_jobs}")
        from neardup.match import MatchConfig

        MatchConfig(profile=self.profile, strictness=self.strictness)  # type: ignore[arg-type]  # checks both
        if self.max_distance is not None and not 0 <= self.max_distance <= 15:
            raise ConfigError(
                f"max_distance must be between 0 and 15 (or None: off), got {self.max_distance}"
            )
        for name in ("recrawl_after", "url_ttl"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(f"{name} must be > 0 seconds or None, got {value}")
        if self.redis is not None and not self.redis.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"redis must be a redis://host:port/db URL, got {self.redis!r}")
        if self.redis is not None:
            from neardup.stores._url import check_redis_url

            # one URL for two kinds of store: a parameter only one of them reads would be ignored
            # by the other, or fail it at the first URL check (a 4xx for the server's setting)
            check_redis_url(
                self.redis,
                reads=frozenset({"prefix"}),
                store="the service's redis URL, which its URL seen-stores and ContentSeen's key map share,",
            )
        if self.fleet is not None and not self.fleet.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"fleet must be a redis://host:port/db?prefix=job URL, got {self.fleet!r}")
        from neardup.contentseen.fleet import Retention

        Retention(keep=self.fleet_keep, member_ttl=self.fleet_member_ttl)  # checks both
        if self.token is not None and len(self.token) < _MIN_TOKEN_CHARS:
            raise ConfigError(
                f"the bearer token must have >= {_MIN_TOKEN_CHARS} characters, got {len(self.token)}; "
                "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )

    @property
    def is_loopback(self) -> bool:
        return _is_loopback(self.host)

    @property
    def authenticated(self) -> bool:
        return self.token is not None

    def check_bind(self) -> None:
        """Refuse to listen beyond loopback without a token."""
        if self.token is None and not self.is_loopback:
            raise ConfigError(
                f"refusing to listen on {self.host!r} without a bearer token: set {TOKEN_ENV} or pass "
                "--token-file FILE, or listen on 127.0.0.1"
            )

    def with_token_from_env(self, token_file: str | Path | None = None) -> ServiceSettings:
        """These settings with the token from ``token_file`` or else the environment variable."""
        token = read_token_file(token_file) if token_file is not None else os.environ.get(TOKEN_ENV) or None
        return replace(self, token=token.strip() if token else None)
