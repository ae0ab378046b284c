"""Where an authorization code may be sent (DESIGN section 16): an https address, or an http one on
a loopback address, where a native or desktop application listens on a port of its choosing (RFC
8252 section 7.3). The same rule for every OAuth client, however it was registered."""

from __future__ import annotations

from urllib.parse import urlsplit

from core.api.fields import matches_pattern

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
# The rule as one pattern, the one the API schema states (identity.apis): https and a dotted host
# name (or an IPv4 address), or http on a loopback address; an optional port up to 65535; a path
# and query of printable ASCII without spaces, `#` or backslashes. `$` ends the value (a trailing
# newline is refused, as a JSON Schema validator reads `$`).
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_PATTERN = f"{_LABEL}(?:\\.{_LABEL})*"
PORT_PATTERN = "(?::(?:[0-9]{1,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
_LOOPBACK = "(?:127\\.0\\.0\\.1|\\[::1\\]|[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt])"
REDIRECT_URI_PATTERN = (
    f"^(?:[Hh][Tt][Tt][Pp][Ss]://{HOST_PATTERN}|[Hh][Tt][Tt][Pp]://{_LOOPBACK}){PORT_PATTERN}"
    '(?:[/?][!-"$-\\[\\]-~]*)?$'
)
# A browser origin an OAuth client's tokens may be used from: scheme://host[:port], no path.
ORIGIN_PATTERN = f"^[Hh][Tt][Tt][Pp][Ss]?://{HOST_PATTERN}{PORT_PATTERN}/?$"


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
    if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS):
        return "A redirect URI must use https, or http on a loopback address (127.0.0.1, [::1], localhost)."
    if not matches_pattern(REDIRECT_URI_PATTERN, uri):
        return (
            "A redirect URI is https://host[:port][/path][?query] with a dotted host name or IPv4 address "
            "(or http on a loopback address), in printable ASCII without spaces or backslashes."
        )
    return None


def is_loopback(uri: str) -> bool:
    parts = urlsplit(uri)
    return parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
