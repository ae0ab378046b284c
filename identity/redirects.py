"""Where an authorization code may be sent (DESIGN section 16): an https address, or an http one on
a loopback address, where a native or desktop application listens on a port of its choosing (RFC
8252 section 7.3). The same rule for every OAuth client, however it was registered."""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def redirect_uri_problem(uri: object) -> str | None:
    """Why `uri` cannot be a redirect URI, or None when it can."""
    if not isinstance(uri, str):
        return "A redirect URI is a string."
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (an impossible port is refused here)
    except ValueError:
        return "Not a valid URL."
    if not parts.scheme or not parts.hostname:
        return "A redirect URI must be an absolute URL."
    if "#" in uri:
        return "A redirect URI must not contain a fragment."
    if "@" in parts.netloc:
        return "A redirect URI must not carry credentials."
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS):
        return None
    return "A redirect URI must use https, or http on a loopback address (127.0.0.1, [::1], localhost)."


def is_loopback(uri: str) -> bool:
    parts = urlsplit(uri)
    return parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
