"""Bearer-token check for the POST endpoints (a refusal is an ``ApiError``, 401).

A refusal never quotes what was sent in the Authorization header.

>>> check_bearer("Bearer s3cret-token-0123456789", "s3cret-token-0123456789")
>>> check_bearer(None, None)  # no token configured: loopback-only service, writes open
"""

from __future__ import annotations

import hmac

from neardup.exceptions import ApiError

__all__ = ["check_bearer"]


def check_bearer(authorization: str | None, token: str | None) -> None:
    """Raise ApiError(401) unless ``authorization`` carries ``token`` (nothing to check when None)."""
    if token is None:
        return
    challenge = {"WWW-Authenticate": 'Bearer realm="neardup"'}
    if not authorization:
        raise ApiError(
            401,
            "unauthorized",
            "this endpoint writes: send the header 'Authorization: Bearer <token>'",
            headers=challenge,
        )
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        # never quote the header: without "Bearer " its first word may be the token itself
        raise ApiError(
            401,
            "unauthorized",
            "expected 'Authorization: Bearer <token>', got a header of another form (not shown)",
            headers=challenge,
        )
    if not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise ApiError(
            401,
            "unauthorized",
            "the bearer token is wrong",
            headers={"WWW-Authenticate": 'Bearer realm="neardup", error="invalid_token"'},
        )
